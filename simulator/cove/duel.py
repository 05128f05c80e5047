"""Exact Pirate's Cove duels: one player ship against a Legendary Pirate, the Royal Navy or another
player ship, as an absorbing Markov chain over the damage states.

Rules: "Combat" and "Non-player ships" of ``../shared/rules/pirates-cove.md``, exactly as the scalar
engine :mod:`simulator.cove.battle` plays them with no cards in hand (Artisans and parrots are
supported). A state is taken at the start of an exchange: each player ship's ring positions,
Artisan hits left and parrot hits left, and the non-player ship's hull. Within an exchange the
ships act in speed order (an exact tie is a fair coin, as the die roll-off is), each broadside's
hits are Binomial(dice, p) and the damage follows :meth:`battle._Battle.hit_section`; the Flying
Dutchman's regeneration is applied at the end of the exchange.

Damage only ever goes down (the Dutchman never regains more than it lost in that exchange), so
every state leads to itself or to a strictly more damaged state: the chain is acyclic except for
self-loops, and the absorption probabilities follow from one pass in topological order with the
self-loop divided out, ``V(s) = (sum_{s' != s} P(s, s') (r + V(s')) + P(s, s) r) / (1 - P(s, s))``.

Policies must be :class:`simulator.cove.combat_policies.BattlePolicy` objects whose decisions
depend only on the damage state (``RulePolicy`` does); they are asked with a :class:`BattleView`.

Public API: :func:`exact_duel` (probabilities for the first ship: ``win``, ``routed``, ``fled``,
``mutiny`` (part of ``fled``), ``expected_fame``), :class:`DuelShip`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any

from simulator.cove.battle import ROYAL_NAVY
from simulator.cove.combat_policies import (
    NPC_TARGET,
    BattlePolicy,
    BattleView,
    NpcView,
    RoyalNavyPolicy,
    RulePolicy,
    ShipView,
)
from simulator.cove.rules import SECTIONS, CoveRules

HULL, CREW, CANNONS, SAILS = range(4)
OUTCOME_KEYS = ("win", "routed", "fled", "mutiny")
_WIN, _ROUTED, _FLED, _MUTINY = range(4)


@dataclass(frozen=True)
class DuelShip:
    """A player ship in a duel (no cards)."""

    positions: tuple[int, int, int, int] = (2, 2, 2, 2)  # SECTIONS order, 1-based
    artisans: dict[str, int] = field(default_factory=dict)  # section -> hits already absorbed
    parrot: str | None = None
    parrot_wounded: bool = False
    seat: int = 0


@dataclass(frozen=True)
class DuelResult:
    win: Any
    routed: Any
    fled: Any
    mutiny: Any
    expected_fame: Any
    states: int
    method: str = "exact"

    def as_dict(self) -> dict[str, Any]:
        return {
            "win": self.win,
            "routed": self.routed,
            "fled": self.fled,
            "mutiny": self.mutiny,
            "expected_fame": self.expected_fame,
            "states": self.states,
            "method": self.method,
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

    def alive_parrot(self, st):
        return self.parrot if self.parrot is not None and st[8] > 0 else None

    def speed(self, st) -> int:
        par = self.alive_parrot(st)
        return self.value(st, SAILS) + (par.speed_bonus if par else 0)

    def dice(self, st) -> int:
        par = self.alive_parrot(st)
        if par is not None and par.fixed_dice:
            return par.fixed_dice
        if par is not None and par.dice_equal_cannons:
            return self.value(st, CANNONS)
        return min(self.value(st, CREW), self.value(st, CANNONS))

    def hit(self, st, secs, k: int):
        """Apply ``k`` hits to each section in ``secs``; returns (state, parrot_died)."""
        s = list(st)
        died = False
        for sec in secs:
            n = k
            a = min(n, s[4 + sec])
            s[4 + sec] -= a
            n -= a
            if n and s[8] > 0 and sec == self.parrot_sec:
                p = min(n, s[8])
                s[8] -= p
                if self.parrot_absorbs:
                    n -= p
                if s[8] == 0:
                    died = True
            if n:
                s[sec] = max(s[sec] - n, 0)
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
) -> DuelResult:
    """Exact outcome probabilities of a duel for ``ship``.

    Args:
        rules: scenario rules.
        ship: the first player ship.
        opponent: a key of ``rules.pirates`` (a fighting one), ``"royal_navy"``, or a second
            :class:`DuelShip` (give it another seat).
        policy, opponent_policy: battle policies (default: stand); they must depend on the damage
            state only.
        royal_navy_policy: the Royal Navy's controller (default: weakest section).
        fractions: compute with :class:`fractions.Fraction` instead of float64.

    Returns:
        :class:`DuelResult` for the first ship: ``win`` (sinks the pirate / the other ship is
        routed or flees), ``routed``, ``fled`` (including mutiny), ``mutiny``, ``expected_fame``
        (before the fame floor: pirate fame, rout and flight fame, minus parrot death and mutiny).
    """
    c = rules.combat
    one = Fraction(1) if fractions else 1.0
    policy = policy or RulePolicy()
    opponent_policy = opponent_policy or RulePolicy()
    rn_policy = royal_navy_policy or RoyalNavyPolicy()
    A = _Side(rules, ship)
    pvp = isinstance(opponent, DuelShip)
    if pvp:
        if opponent.seat == ship.seat:
            opponent = DuelShip(
                opponent.positions,
                opponent.artisans,
                opponent.parrot,
                opponent.parrot_wounded,
                seat=ship.seat + 1,
            )
        B = _Side(rules, opponent)
        npc = None
        start = (A.start, B.start)
    else:
        if opponent == ROYAL_NAVY:
            npc = rules.royal_navy
        elif opponent in rules.pirates:
            npc = rules.pirates[opponent]
        else:
            raise ValueError(
                f"opponent {opponent!r} (allowed: {', '.join(list(rules.pirates) + [ROYAL_NAVY])})"
            )
        if not npc.fights:
            raise ValueError(
                f"{npc.title} does not fight (allowed: a fighting pirate or royal_navy)"
            )
        B = None
        start = (A.start, npc.hull)

    def p_of(thr: int):
        if thr <= 1:
            return one
        if thr > 6:
            return 0 * one
        return Fraction(7 - thr, 6) if fractions else (7 - thr) / 6.0

    p_hit = p_of(c.hit_on)
    p_mutiny = p_of(7 - c.mutiny_on) if c.mutiny_on > 0 else 0 * one  # P(die <= mutiny_on)
    binom_cache: dict[int, list] = {}

    def binom(n):
        if n not in binom_cache:
            binom_cache[n] = _binom(n, p_hit)
        return binom_cache[n]

    def view_for(me_seat, a_st, opp):
        ships = [A.view(a_st)]
        npc_view = None
        if pvp:
            ships.append(B.view(opp))
            ships.sort(key=lambda v: v.seat)
        else:
            npc_view = NpcView(
                key=str(opponent), hull=opp, max_hull=npc.hull, sails=npc.sails, present=True
            )
        return BattleView(
            me=me_seat,
            island="hull",
            exchange=1,
            ships=tuple(ships),
            npc=npc_view,
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
        for k, pk in enumerate(binom(n)):
            if not pk:
                continue
            if pvp:
                sec = SECTIONS.index(act.section) if act.target != NPC_TARGET else HULL
                b2, _ = B.hit(opp, [sec], k)
                if min(b2[:4]) <= 0:
                    out.append((pk, c.rout_fame, ("abs", _WIN)))
                else:
                    out.append((pk, 0, ("go", a_st, b2)))
            else:
                h = opp - k
                if h <= 0:
                    out.append((pk, npc.fame, ("abs", _WIN)))
                else:
                    out.append((pk, 0, ("go", a_st, h)))
        return out

    def b_turn(a_st, opp):
        out = []
        if pvp:
            act = opponent_policy.broadside(view_for(B.seat, a_st, opp), ())
            if act.flee:
                r = c.flight_fame_if_hit if opp != B.start else 0
                return [(one, r, ("abs", _WIN))]
            secs = [SECTIONS.index(act.section)]
            n = B.dice(opp)
        else:
            if npc.first_target == "controller" or opponent == ROYAL_NAVY:
                _, section = rn_policy.target(view_for(-1, a_st, opp))
                secs = [SECTIONS.index(section)]
            elif npc.damages == "every_section":
                secs = [0, 1, 2, 3]
            else:
                secs = [SECTIONS.index(npc.damages)]
            n = npc.dice
        for k, pk in enumerate(binom(n)):
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
        sb = B.speed(opp) if pvp else npc.sails
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
                    a3, o3 = res2[1], res2[2]
                    if not pvp and npc.regenerate_per_exchange:
                        lost = opp - o3
                        o3 = min(o3 + min(lost, npc.regenerate_per_exchange), npc.hull)
                    add(po * p1 * p2, r1 + r2, ("go", a3, o3))
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


FIGHTING_OPPONENTS = (
    "blackbeard",
    "flying_dutchman",
    "captain_hook",
    "bonny_and_read",
    "royal_navy",
)
