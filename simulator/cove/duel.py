"""Exact Pirate's Cove duels: one player ship against a Legendary Pirate, the Royal Navy or another
player ship, as an absorbing Markov chain over the damage states.

Rules: "Combat" and "Non-player ships" of ``../shared/rules/pirates-cove.md``, exactly as the scalar
engine :mod:`tests.cove_battle_oracle` plays them (Artisans and parrots are supported). Against a
non-player ship the lone ship may hold battle and volley cards (``cards``): that chain, with the
cards in its state and the optimal or heuristic card policy, is :mod:`simulator.cove.duel_cards`.
A ship duel (two player ships) has no cards. A state is taken at the start of an exchange: each
player ship's ring positions, Artisan hits left and parrot hits left, and the non-player ship's
hull. Within an exchange the ships act in speed order (an exact tie is a fair coin, as the die
roll-off is), each broadside's hits are Binomial(dice, p) and the damage follows
:meth:`battle._Battle.hit_section`; the Flying Dutchman's regeneration is applied at the end of the
exchange.

Damage only ever goes down (the Dutchman never regains more than it lost in that exchange), so
every state leads to itself or to a strictly more damaged state: the chain is acyclic except for
self-loops, and the absorption probabilities follow from one pass in topological order with the
self-loop divided out, ``V(s) = (sum_{s' != s} P(s, s') (r + V(s')) + P(s, s) r) / (1 - P(s, s))``.

Policies must be :class:`simulator.cove.combat_policies.BattlePolicy` objects whose decisions
depend only on the damage state (``RulePolicy`` does); they are asked with a :class:`BattleView`.

Public API: :func:`exact_duel` (probabilities for the first ship: ``win``, ``routed``, ``fled``,
``mutiny`` (part of ``fled``), ``expected_fame``), :class:`DuelShip`, :class:`LoneShipOdds` (a
memo of lone-ship duels with cards for the players: ``p_sink``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any, Literal

from simulator.compiled import python
from simulator.cove.combat import ROYAL_NAVY
from simulator.cove.combat_policies import (
    BATTLE_CARDS,
    NPC_TARGET,
    VOLLEY_CARDS,
    BattlePolicy,
    BattleView,
    HeuristicCardPolicy,
    RoyalNavyPolicy,
    RulePolicy,
    ShipView,
    policy_from_name,
)
from simulator.cove.duel_cards import (
    CARD_POLICIES,
    COMBAT_CARDS,
    V_FAME,
    V_FLED,
    V_MUTINY,
    V_ROUTED,
    V_SUNK_ROUTED,
    V_WIN,
    CardChain,
    CardPlay,
    candidate_plans,
    hand_counts,
    heuristic_plan,
)
from simulator.cove.fast import core
from simulator.cove.rules import SECTIONS, CoveRules, NonPlayerShip
from simulator.cove.tables import hit_chance

# the rule core's hit, dice and speed rules, run by Python (one source with the compiled engines)
_absorb = python(core.absorb)
_ring_after = python(core.ring_after)
_num_dice = python(core.num_dice)
_speed = python(core.speed)

HULL, CREW, CANNONS, SAILS = range(4)
OUTCOME_KEYS = ("win", "routed", "fled", "mutiny")
_WIN, _ROUTED, _FLED, _MUTINY = range(4)


@dataclass(frozen=True)
class DuelShip:
    """A player ship in a duel (its battle and volley cards are ``exact_duel``'s ``cards``)."""

    positions: tuple[int, int, int, int] = (2, 2, 2, 2)  # SECTIONS order, 1-based
    artisans: dict[str, int] = field(default_factory=dict)  # section -> hits already absorbed
    parrot: str | None = None
    parrot_wounded: bool = False
    seat: int = 0
    chests: int = 0  # aboard: what Overboard can throw


@dataclass(frozen=True)
class DuelResult:
    win: Any
    routed: Any
    fled: Any
    mutiny: Any
    expected_fame: Any
    states: int
    method: str = "exact"
    # with cards: P(sink) includes sinking it with the broadside whose own Powder keg or
    # Grapeshot recoil routs the ship (``routed_while_sinking``); ``routed`` is routed without
    # sinking it, so win + routed + fled = 1
    routed_while_sinking: Any = 0
    cards: tuple[str, ...] = ()
    card_policy: str = "optimal"
    battle_cards_played: tuple[str, ...] = ()  # the card rounds' plan (one card per round)
    overboard_chests: int = 0
    card_play: Any = field(default=None, repr=False, compare=False)  # duel_cards.CardPlay

    def as_dict(self) -> dict[str, Any]:
        return {
            "win": self.win,
            "routed": self.routed,
            "fled": self.fled,
            "mutiny": self.mutiny,
            "expected_fame": self.expected_fame,
            "states": self.states,
            "method": self.method,
            "routed_while_sinking": self.routed_while_sinking,
            "cards": list(self.cards),
            "card_policy": self.card_policy,
            "battle_cards_played": list(self.battle_cards_played),
            "overboard_chests": self.overboard_chests,
        }


class _Side:
    """Static facts of one player ship (values, parrot) and helpers on its damage state.

    A damage state is a tuple ``(pos0, pos1, pos2, pos3, art0, .., art3, parrot_hp)``.
    """

    def __init__(self, rules: CoveRules, ship: DuelShip):
        c = rules.combat
        self.rules = rules
        self.mat = rules.ship_mat
        self.seat = ship.seat
        art = [0, 0, 0, 0]
        if c.artisan_limit == "per_ship" and len(ship.artisans) > 1:
            raise ValueError(f"{len(ship.artisans)} Artisans (allowed: 1 per ship)")
        for sec, used in ship.artisans.items():
            if sec not in SECTIONS or not 0 <= used < c.artisan_absorbs:
                raise ValueError(
                    f"Artisan {sec}={used} (allowed: section -> 0..{c.artisan_absorbs - 1})"
                )
            art[SECTIONS.index(sec)] = c.artisan_absorbs - used
        if ship.parrot is not None and ship.parrot not in rules.parrots:
            raise ValueError(f"parrot {ship.parrot!r} (allowed: {', '.join(rules.parrots)})")
        for p in ship.positions:
            if not 1 <= p <= self.mat.num_positions:
                raise ValueError(f"position {p} (allowed: 1..{self.mat.num_positions})")
        self.parrot = rules.parrots[ship.parrot] if ship.parrot else None
        self.parrot_name = ship.parrot
        self.parrot_sec = SECTIONS.index(self.parrot.section) if self.parrot else -1
        hp = (c.parrot_hits_to_kill - (1 if ship.parrot_wounded else 0)) if self.parrot else 0
        self.start = tuple(ship.positions) + tuple(art) + (hp,)
        self.kill = c.parrot_hits_to_kill
        self.parrot_absorbs = c.parrot_absorbs_hits

    def value(self, st, sec: int) -> int:
        return getattr(self.mat, SECTIONS[sec])[st[sec] - 1]

    def parrot_alive(self, st) -> bool:
        return self.parrot is not None and st[8] > 0

    def speed(self, st, bonus: int = 0) -> int:
        """:func:`~simulator.cove.fast.core.speed` of the state (``bonus``: Favourable wind,
        Overboard)."""
        par, alive = self.parrot, self.parrot_alive(st)
        return _speed(self.value(st, SAILS), bonus, alive, par.speed_bonus if alive else 0)

    def dice(self, st, grapple: bool = False) -> int:
        """:func:`~simulator.cove.fast.core.num_dice` of the state."""
        par, alive = self.parrot, self.parrot_alive(st)
        return _num_dice(
            self.value(st, CREW),
            self.value(st, CANNONS),
            alive,
            par.fixed_dice if alive else 0,
            alive and par.dice_equal_cannons,
            grapple,
        )

    def hit(self, st, secs, k: int):
        """``k`` hits on each section in ``secs`` (:func:`~simulator.cove.fast.core.absorb`,
        then :func:`~simulator.cove.fast.core.ring_after`); returns (state, parrot_died)."""
        s = list(st)
        died = False
        for sec in secs:
            a, p, steps = _absorb(k, s[4 + sec], s[8], sec == self.parrot_sec, self.parrot_absorbs)
            s[4 + sec] -= a
            if p:
                s[8] -= p
                died = died or s[8] == 0
            s[sec] = _ring_after(s[sec], steps)[0]
        return tuple(s), died

    def view(self, st, present=True) -> ShipView:
        prot = list(st[4:8])
        if self.parrot_sec >= 0 and st[8] > 0 and self.parrot_absorbs:
            prot[self.parrot_sec] += st[8]
        return ShipView(
            seat=self.seat,
            positions=tuple(st[:4]),
            start_positions=tuple(self.start[:4]),
            protection=tuple(prot),
            parrot=self.parrot_name if st[8] > 0 else None,
            parrot_wounded=self.parrot is not None and 0 < st[8] < self.kill,
            speed=self.speed(st),
            present=present,
            was_hit=st != self.start,
            smoke=False,
            can_fire=True,
            hand_size=0,
            chests=0,
        )


def _binom(n: int, p):
    q = 1 - p
    return [comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)]


def exact_duel(
    rules: CoveRules,
    ship: DuelShip,
    opponent: str | DuelShip,
    policy: BattlePolicy | None = None,
    opponent_policy: BattlePolicy | None = None,
    *,
    royal_navy_policy: RoyalNavyPolicy | None = None,
    fractions: bool = False,
    cards: tuple[str, ...] = (),
    card_policy: Literal["optimal", "heuristic"] = "optimal",
) -> DuelResult:
    """Exact outcome probabilities of a duel for ``ship``.

    Args:
        rules: scenario rules.
        ship: the first player ship.
        opponent: a key of ``rules.pirates`` (a fighting one), ``"royal_navy"``, or a second
            :class:`DuelShip` (give it another seat).
        policy, opponent_policy: battle policies (default: stand); they must depend on the damage
            state only. Against a non-player ship ``policy`` decides flight (and aim).
        royal_navy_policy: the Royal Navy's controller (default: weakest section).
        fractions: compute with :class:`fractions.Fraction` instead of float64.
        cards: the battle and volley cards the lone ship holds (Tavern card names, e.g.
            ``("smoke", "powder_keg")``), against a non-player ship only. Battle cards set the
            battle's parameters, volley cards enter the Markov state (:mod:`duel_cards`).
        card_policy: ``"optimal"`` plays them to maximise P(sink) (ties: fewest cards);
            ``"heuristic"`` plays the scripted players' rule
            (:class:`~simulator.cove.combat_policies.HeuristicCardPolicy`).

    Returns:
        :class:`DuelResult` for the first ship: ``win`` (sinks the non-player ship -- including
        the broadside whose own Powder keg or Grapeshot recoil also routs it,
        ``routed_while_sinking`` -- or, in a ship duel, the other ship is routed or flees),
        ``routed`` (without sinking it), ``fled`` (including mutiny), ``mutiny``,
        ``expected_fame`` (before the fame floor: pirate fame, rout and flight fame, minus parrot
        death and mutiny). Against a non-player ship also the card plan (``battle_cards_played``,
        ``overboard_chests``) and the solved policy (``card_play``; ``card_play.policy(flee)``
        plays it in the engines).
    """
    policy = policy or RulePolicy()
    if card_policy not in CARD_POLICIES:
        raise ValueError(f"card_policy {card_policy!r} (allowed: {', '.join(CARD_POLICIES)})")
    one = Fraction(1) if fractions else 1.0
    if not isinstance(opponent, DuelShip):
        rn_policy = royal_navy_policy or RoyalNavyPolicy()
        return _npc_duel(rules, ship, opponent, policy, rn_policy, one, tuple(cards), card_policy)
    if cards:
        raise ValueError("cards are for a lone ship against a non-player ship (not a ship duel)")
    return _ship_duel(rules, ship, opponent, policy, opponent_policy or RulePolicy(), one)


def _ship_duel(
    rules: CoveRules,
    ship: DuelShip,
    opponent: DuelShip,
    policy: BattlePolicy,
    opponent_policy: BattlePolicy,
    one: Any,
) -> DuelResult:
    """Two player ships, no cards: a chain over both damage states (module docstring)."""
    c = rules.combat
    fractions = isinstance(one, Fraction)
    A = _Side(rules, ship)
    if opponent.seat == ship.seat:
        opponent = DuelShip(
            opponent.positions,
            opponent.artisans,
            opponent.parrot,
            opponent.parrot_wounded,
            seat=ship.seat + 1,
        )
    B = _Side(rules, opponent)
    start = (A.start, B.start)

    p_hit = hit_chance(c.hit_on, fractions)
    p_mutiny = hit_chance(7 - c.mutiny_on, fractions)  # P(die <= mutiny_on): 0 when 0
    binom_cache: dict[int, list] = {}

    def binom(n):
        if n not in binom_cache:
            binom_cache[n] = _binom(n, p_hit)
        return binom_cache[n]

    def view_for(me_seat, a_st, opp):
        ships = sorted([A.view(a_st), B.view(opp)], key=lambda v: v.seat)
        return BattleView(
            me=me_seat,
            island="hull",
            exchange=1,
            ships=tuple(ships),
            npc=None,
            grapple=False,
            becalmed=False,
        )

    # -- one actor's turn: list of (prob, reward_for_A, ("abs", k) | ("go", a_st, opp)) -------
    def a_turn(a_st, opp):
        act = policy.broadside(view_for(A.seat, a_st, opp), ())
        out = []
        if act.flee:
            r_flee = 0  # flight fame goes to the others, not to the fleeing ship
            out.append((1 - p_mutiny, r_flee, ("abs", _FLED)))
            if p_mutiny:
                out.append((p_mutiny, r_flee - c.mutiny_fame_loss, ("abs", _MUTINY)))
            return out
        n = A.dice(a_st)
        sec = SECTIONS.index(act.section) if act.target != NPC_TARGET else HULL
        for k, pk in enumerate(binom(n)):
            if not pk:
                continue
            b2, _ = B.hit(opp, [sec], k)
            if min(b2[:4]) <= 0:
                out.append((pk, c.rout_fame, ("abs", _WIN)))
            else:
                out.append((pk, 0, ("go", a_st, b2)))
        return out

    def b_turn(a_st, opp):
        out = []
        act = opponent_policy.broadside(view_for(B.seat, a_st, opp), ())
        if act.flee:
            r = c.flight_fame_if_hit if opp != B.start else 0
            return [(one, r, ("abs", _WIN))]
        secs = [SECTIONS.index(act.section)]
        for k, pk in enumerate(binom(B.dice(opp))):
            if not pk:
                continue
            a2, died = A.hit(a_st, secs, k)
            r = -c.parrot_death_fame_loss if died else 0
            if min(a2[:4]) <= 0:
                out.append((pk, r, ("abs", _ROUTED)))
            else:
                out.append((pk, r, ("go", a2, opp)))
        return out

    from functools import lru_cache

    a_turn = lru_cache(maxsize=None)(a_turn)  # the same mid-exchange states recur across states
    b_turn = lru_cache(maxsize=None)(b_turn)

    def exchange(a_st, opp):
        """Distribution over next exchange-start states / absorbing outcomes."""
        sa = A.speed(a_st)
        sb = B.speed(opp)
        if sa > sb:
            orders = [(one, (a_turn, b_turn))]
        elif sb > sa:
            orders = [(one, (b_turn, a_turn))]
        else:
            orders = [(one / 2, (a_turn, b_turn)), (one / 2, (b_turn, a_turn))]
        out: dict = {}  # result -> [probability, probability x reward] (merged duplicates)

        def add(p, r, res):
            cell = out.get(res)
            if cell is None:
                out[res] = [p, p * r]
            else:
                cell[0] += p
                cell[1] += p * r

        for po, (first, second) in orders:
            for p1, r1, res1 in first(a_st, opp):
                if res1[0] == "abs":
                    add(po * p1, r1, res1)
                    continue
                for p2, r2, res2 in second(res1[1], res1[2]):
                    if res2[0] == "abs":
                        add(po * p1 * p2, r1 + r2, res2)
                        continue
                    add(po * p1 * p2, r1 + r2, ("go", res2[1], res2[2]))
        return out

    memo: dict = {}
    zero = [0 * one] * 5

    def value(state):
        if state in memo:
            return memo[state]
        a_st, opp = state
        acc = list(zero)  # probabilities of the 4 outcomes, then expected fame
        p_self = 0 * one
        r_self = 0 * one
        for res, (p, pr) in exchange(a_st, opp).items():
            if res[0] == "abs":
                acc[res[1]] += p
                acc[4] += pr
            elif (res[1], res[2]) == state:
                p_self += p
                r_self += pr
            else:
                v = value((res[1], res[2]))
                for i in range(4):
                    acc[i] += p * v[i]
                acc[4] += pr + p * v[4]
        if p_self:
            denom = 1 - p_self
            if denom == 0:
                raise ValueError("this duel never ends (no ship can hurt the other)")
            acc = [x / denom for x in acc[:4]] + [(acc[4] + r_self) / denom]
        memo[state] = acc
        return acc

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10_000))
    try:
        v = value(start)
    finally:
        sys.setrecursionlimit(old)
    win, routed, fled, mutiny, fame = v
    return DuelResult(
        win=win,
        routed=routed,
        fled=fled + mutiny,
        mutiny=mutiny,
        expected_fame=fame,
        states=len(memo),
    )


def _npc_opponent(rules: CoveRules, opponent: str) -> NonPlayerShip:
    if opponent == ROYAL_NAVY:
        npc = rules.royal_navy
    elif opponent in rules.pirates:
        npc = rules.pirates[opponent]
    else:
        raise ValueError(
            f"opponent {opponent!r} (allowed: {', '.join(list(rules.pirates) + [ROYAL_NAVY])})"
        )
    if not npc.fights:
        raise ValueError(f"{npc.title} does not fight (allowed: a fighting pirate or royal_navy)")
    return npc


def check_hand(rules: CoveRules, cards: tuple[str, ...]) -> dict[str, int]:
    """Counts of a duel hand's battle and volley cards; refuses other names and more copies of a
    card than the scenario's Tavern deck holds."""
    counts = hand_counts(cards)
    for name, k in counts.items():
        most = getattr(rules.tavern, name)
        if k > most:
            raise ValueError(
                f"{k} x {name} in hand (allowed: at most {most}, the scenario's Tavern deck)"
            )
    return counts


def _npc_duel(
    rules: CoveRules,
    ship: DuelShip,
    opponent: str,
    policy: BattlePolicy,
    rn_policy: RoyalNavyPolicy,
    one: Any,
    cards: tuple[str, ...],
    card_policy: str,
    chains: dict | None = None,
) -> DuelResult:
    """A lone ship against a non-player ship, cards in hand (see :mod:`duel_cards`).

    ``chains``: (plan, battle cards left) -> :class:`CardChain` already solved for this same
    ship, opponent and policies (another hand starts at another state of the same chain), or
    ``None``."""
    npc = _npc_opponent(rules, opponent)
    counts = check_hand(rules, cards)
    if ship.chests < 0:
        raise ValueError(f"chests {ship.chests} (allowed: >= 0)")
    A = _Side(rules, ship)
    volley_hand = tuple(counts.get(v, 0) for v in VOLLEY_CARDS)
    n_battle = sum(counts.get(b, 0) for b in BATTLE_CARDS)
    if card_policy == "heuristic":
        rule = HeuristicCardPolicy.from_rules(rules, policy)
        plans = [heuristic_plan(rules, A, opponent, npc, rule, counts, ship.chests)]
    else:
        rule = None
        plans = candidate_plans(rules, A, npc, counts, ship.chests)
    tol = 0 if isinstance(one, Fraction) else 1e-12
    best = None
    states = 0
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        for plan in plans:
            hand = (0, 0, 0) if plan.becalmed else volley_hand
            key = (plan, n_battle - len(plan.played))
            chain = chains.get(key) if chains is not None else None
            if chain is None:
                chain = CardChain(
                    rules,
                    A,
                    opponent,
                    npc,
                    policy,
                    rn_policy,
                    plan,
                    ship.chests,
                    n_battle - len(plan.played),
                    rule,
                    one,
                )
                if chains is not None:
                    chains[key] = chain
            v = chain.value((A.start, npc.hull, hand, True))
            states += len(chain.memo)
            score = v[V_WIN] + v[V_SUNK_ROUTED]
            if best is None or score > best[0] + tol:
                best = (score, plan, chain, v)
    finally:
        sys.setrecursionlimit(old)
    _, plan, chain, v = best
    c = rules.combat
    t = rules.tavern
    radix = (
        (rules.ship_mat.num_positions + 1,) * 4
        + (c.artisan_absorbs + 1,) * 4
        + (c.parrot_hits_to_kill + 1, npc.hull + 1)
        + (t.grapeshot + 1, t.powder_keg + 1, t.cannonade + 1, 2, 2)
    )
    play = CardPlay(
        plan,
        dict(chain.decisions),
        A.parrot_sec,
        c.parrot_hits_to_kill,
        c.parrot_absorbs_hits,
        radix,
    )
    return DuelResult(
        win=v[V_WIN] + v[V_SUNK_ROUTED],
        routed=v[V_ROUTED],
        fled=v[V_FLED] + v[V_MUTINY],
        mutiny=v[V_MUTINY],
        expected_fame=v[V_FAME],
        states=states,
        routed_while_sinking=v[V_SUNK_ROUTED],
        cards=tuple(cards),
        card_policy=card_policy,
        battle_cards_played=plan.played,
        overboard_chests=plan.overboard,
        card_play=play,
    )


class LoneShipOdds:
    """Memo of exact lone-ship duels with cards, for callers that ask many times (the players).

    One object per rules (e.g. per chunk of games, beside the players' odds cache); no module
    state. :meth:`p_sink` takes a whole hand: cards without an effect in battle (events, Artisans,
    fame cards, parrots) are ignored, the order of the cards does not matter, and chests count
    only when Overboard is in hand. Each distinct question is solved once by :func:`exact_duel`
    (about 1 ms without cards, 1-60 ms with one to six cards on the standard mat).
    """

    def __init__(self, rules: CoveRules):
        self.rules = rules
        self._memo: dict = {}
        self._chains: dict = {}  # (ship, opponent, policy, card policy) -> {plan: CardChain}

    def duel(
        self,
        ship: DuelShip,
        opponent: str,
        cards: tuple[str, ...] = (),
        *,
        policy: str = "stand",
        card_policy: Literal["optimal", "heuristic"] = "optimal",
    ) -> DuelResult:
        """:func:`exact_duel` of ``ship`` alone against ``opponent`` holding ``cards``.

        ``policy`` is a flee rule name (:func:`~simulator.cove.combat_policies.policy_from_name`).
        """
        hand = tuple(sorted(c for c in cards if c in COMBAT_CARDS))
        chests = ship.chests if "overboard" in hand else 0
        key = (
            tuple(ship.positions),
            tuple(sorted(ship.artisans.items())),
            ship.parrot,
            bool(ship.parrot_wounded and ship.parrot),
            chests,
            opponent,
            hand,
            policy,
            card_policy,
        )
        got = self._memo.get(key)
        if got is None:
            if card_policy not in CARD_POLICIES:
                raise ValueError(
                    f"card_policy {card_policy!r} (allowed: {', '.join(CARD_POLICIES)})"
                )
            duel_ship = DuelShip(
                key[0], dict(key[1]), ship.parrot, key[3], seat=ship.seat, chests=chests
            )
            chains = self._chains.setdefault(key[:6] + key[7:], {})
            got = self._memo[key] = _npc_duel(
                self.rules,
                duel_ship,
                opponent,
                policy_from_name(policy),
                RoyalNavyPolicy(),
                1.0,
                hand,
                card_policy,
                chains,
            )
        return got

    def p_sink(
        self,
        ship: DuelShip,
        opponent: str,
        cards: tuple[str, ...] = (),
        *,
        policy: str = "stand",
        card_policy: Literal["optimal", "heuristic"] = "optimal",
    ) -> float:
        """P(the lone ship sinks ``opponent``) with ``cards`` in hand (float)."""
        return float(self.duel(ship, opponent, cards, policy=policy, card_policy=card_policy).win)


FIGHTING_OPPONENTS = (
    "blackbeard",
    "flying_dutchman",
    "captain_hook",
    "bonny_and_read",
    "royal_navy",
)
