"""Exact duels of a lone player ship against a non-player ship, with Tavern cards in hand.

Rules: "Combat", "Non-player ships" and "Tavern deck" of ``../shared/rules/pirates-cove.md``,
exactly as the scalar engine :mod:`tests.cove_battle_oracle` plays them (readings in
``docs/rules-cove-combat.md``). Used by :func:`simulator.cove.duel.exact_duel` for every duel
against a Legendary Pirate or the Royal Navy (with or without cards).

**Battle cards** are played in the card rounds before the first exchange and set the battle's
parameters (:class:`BattlePlan`: Smoke, Favourable wind count, Grapple, chests thrown with
Overboard, Becalmed). The non-player ship plays no cards, so with one player ship every subset of
the hand's battle cards can be played (one per round), and each plan is a separate chain.

**Volley cards** enter the Markov state. A state, taken at the start of an exchange, is
``(ship, hull, hand, can_fire)``: the ship's damage tuple (rings, Artisan hits left, parrot hits
left; as :class:`simulator.cove.duel._Side`), the non-player ship's hull, the volley cards left
(Grapeshot, Powder keg, Cannonade counts) and the reload flag (False for the exchange after a
Cannonade). The ship decides its volley cards at its turn, which comes before the non-player
ship's broadside (stage 1: the ship is faster, or wins the tie's roll-off) or after it (stage 2).

Every transition goes to the same or a later state (damage, hull lost in the exchange and cards
never come back; ``can_fire`` returns to True only by passing a turn), so the chain is acyclic
apart from self-loops (nothing happened). ``card_policy="optimal"`` maximises P(sink): at each
decision point the best volley set given the optimal values of the later states (Bellman), and at
a state's own self-loop the best pair of (stage-1, stage-2-after-a-miss) choices by enumeration
of the few local policies. Ties go to the fewest cards. The battle-card plan is the best plan.
``card_policy="heuristic"`` asks :class:`~simulator.cove.combat_policies.HeuristicCardPolicy`
(the scripted players' rule) instead. Flight always follows the caller's flee policy.

The decisions are kept (:class:`CardPlay`) and turned into a battle policy for the engines
(:meth:`CardPlay.policy`), so a Monte Carlo run plays exactly the solved card policy.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from simulator.compiled import python
from simulator.cove.combat_policies import (
    BATTLE_CARDS,
    FLEE,
    NPC_TARGET,
    VOLLEY_CARDS,
    BattlePolicy,
    BattleView,
    Broadside,
    HeuristicCardPolicy,
    NpcView,
    RoyalNavyPolicy,
    RulePolicy,
    ShipView,
)
from simulator.cove.fast import core
from simulator.cove.rules import SECTIONS, CoveRules, NonPlayerShip
from simulator.cove.tables import hit_chance

# the rule core's thresholds and regeneration, run by Python (one source with the compiled
# engines)
_fire_threshold = python(core.fire_threshold)
_npc_threshold = python(core.npc_threshold)
_regenerate = python(core.regenerate)

HULL, CREW, CANNONS, SAILS = range(4)
GRAPESHOT, POWDER_KEG, CANNONADE = range(3)  # VOLLEY_CARDS order
# value vector: outcome probabilities for the lone ship, then its expected fame
V_WIN, V_SUNK_ROUTED, V_ROUTED, V_FLED, V_MUTINY, V_FAME = range(6)
_FLEE, _RELOAD = "flee", "reload"  # forced actions at the ship's turn
CARD_POLICIES = ("optimal", "heuristic")
COMBAT_CARDS = BATTLE_CARDS + VOLLEY_CARDS


@dataclass(frozen=True)
class BattlePlan:
    """The battle cards a lone ship plays in the card rounds and the parameters they set."""

    played: tuple[str, ...] = ()  # one per round, in this order
    smoke: bool = False
    wind: int = 0  # Favourable wind cards played
    grapple: bool = False
    overboard: int = 0  # chests thrown with Overboard
    becalmed: bool = False


def hand_counts(cards: Sequence[str]) -> dict[str, int]:
    """Card name -> count for the battle and volley cards of ``cards`` (others refused)."""
    out: dict[str, int] = {}
    for c in cards:
        if c not in COMBAT_CARDS:
            raise ValueError(
                f"card {c!r} has no effect in a duel (allowed: {', '.join(COMBAT_CARDS)})"
            )
        out[c] = out.get(c, 0) + 1
    return out


def _binom(n: int, p) -> list:
    q = 1 - p
    return [comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)]


class CardChain:
    """The Markov chain of one duel under one :class:`BattlePlan` (see the module docstring).

    ``side`` is the ship's :class:`simulator.cove.duel._Side`; ``card_rule`` is ``None`` for the
    optimal card policy or the heuristic policy object; ``flee_policy`` decides flight.
    """

    def __init__(
        self,
        rules: CoveRules,
        side: Any,
        npc_key: str,
        npc: NonPlayerShip,
        flee_policy: BattlePolicy,
        rn_policy: RoyalNavyPolicy,
        plan: BattlePlan,
        chests: int,
        battle_cards_left: int,
        card_rule: HeuristicCardPolicy | None,
        one: Any,
    ):
        c = rules.combat
        self.rules, self.c, self.side = rules, c, side
        self.npc_key, self.npc = npc_key, npc
        self.flee_policy, self.rn_policy, self.card_rule = flee_policy, rn_policy, card_rule
        self.plan = plan
        self.one = one
        self.fractions = isinstance(one, Fraction)
        self.tol = 0 if self.fractions else 1e-12
        self.bonus = (
            plan.wind * c.favourable_wind_speed + plan.overboard * c.overboard_speed_per_chest
        )
        self.chests = chests - plan.overboard
        self.battle_cards_left = battle_cards_left
        # the faces that hit (the rule core's thresholds): the ship fires at the non-player
        # ship's hull (Grapeshot: its own threshold); it fires back at a ship Smoke may hide
        thr = (c.hit_on, c.smoke_hit_on, c.grapeshot_hit_on, c.grapeshot_beats_smoke)
        self.p_hit = self._p(_fire_threshold(True, False, False, *thr))
        self.p_grape = self._p(_fire_threshold(True, False, True, *thr))
        self.p_npc = self._p(_npc_threshold(plan.smoke, c.hit_on, c.smoke_hit_on))
        self.p_mutiny = self._p(7 - c.mutiny_on)  # P(die <= mutiny_on): 0 when 0
        if npc_key == "royal_navy" or npc.first_target == "controller":
            self.npc_secs = None  # the controller chooses, per state
        elif npc.damages == "every_section":
            self.npc_secs = (0, 1, 2, 3)
        else:
            self.npc_secs = (SECTIONS.index(npc.damages),)
        self.memo: dict = {}
        self.decisions: dict = {}  # (stage, state) -> volley tuple (optimal and heuristic)
        self.p2_values: dict = {}  # state -> value of its stage-2 decision point
        self._binoms: dict = {}
        self._actions: dict = {}
        self._ship_turns: dict = {}
        self._volleys: dict = {}
        self._npc_turns: dict = {}
        self._speeds: dict = {}
        # flight decided by the ship's damage state alone (RulePolicy): cached per ship state
        self._flee_by_ship: dict | None = {} if type(flee_policy) is RulePolicy else None

    # ------------------------------------------------------------------ helpers
    def _p(self, thr: int):
        return hit_chance(thr, self.fractions)

    def binom(self, n: int, p) -> list:
        key = (n, p)
        got = self._binoms.get(key)
        if got is None:
            got = self._binoms[key] = _binom(n, p)
        return got

    def speed(self, st) -> int:
        got = self._speeds.get(st)
        if got is None:
            got = self._speeds[st] = self.side.speed(st, self.bonus)
        return got

    def dice(self, st) -> int:
        return self.side.dice(st, grapple=self.plan.grapple)

    def view(self, st, h: int, hand, cf: bool, stage: int, me: int | None = None) -> BattleView:
        side = self.side
        sv = side.view(st)
        sv = ShipView(
            seat=sv.seat,
            positions=sv.positions,
            start_positions=sv.start_positions,
            protection=sv.protection,
            parrot=sv.parrot,
            parrot_wounded=sv.parrot_wounded,
            speed=self.speed(st),
            present=True,
            was_hit=sv.was_hit,
            smoke=self.plan.smoke,
            can_fire=cf,
            hand_size=sum(hand) + self.battle_cards_left,
            chests=self.chests,
        )
        npc = self.npc
        return BattleView(
            me=side.seat if me is None else me,
            island="hull",
            exchange=1,
            ships=(sv,),
            npc=NpcView(key=self.npc_key, hull=h, max_hull=npc.hull, sails=npc.sails, present=True),
            grapple=self.plan.grapple,
            becalmed=self.plan.becalmed,
            npc_has_fired=stage == 2,
        )

    @staticmethod
    def hand_names(hand) -> tuple[str, ...]:
        return tuple(name for name, k in zip(VOLLEY_CARDS, hand) for _ in range(k))

    # ------------------------------------------------------------------ turns
    def actions(self, st, h: int, hand, cf: bool, stage: int) -> list:
        """The ship's choices at its turn: [FLEE], [RELOAD] or volley sets (tuples of names)."""
        key = (st, h, hand, cf, stage)
        got = self._actions.get(key)
        if got is not None:
            return got
        rule = self.card_rule
        if rule is None and self._flee_by_ship is not None:
            # a RulePolicy decides flight from the ship's own rings and protection only
            flee = self._flee_by_ship.get(st)
            if flee is None:
                view = self.view(st, h, hand, cf, stage)
                flee = self._flee_by_ship[st] = self.flee_policy.broadside(view, ()).flee
        else:
            view = self.view(st, h, hand, cf, stage)
            act = (rule if rule is not None else self.flee_policy).broadside(
                view, self.hand_names(hand)
            )
            flee = act.flee
        if flee:
            got = [_FLEE]
        elif not cf:
            got = [_RELOAD]
        elif rule is not None:
            got = [tuple(c for c in VOLLEY_CARDS if c in act.volley)]
        elif self.plan.becalmed or not any(hand):
            got = [()]
        else:
            kinds = [VOLLEY_CARDS[i] for i in range(3) if hand[i] > 0]
            got = [
                combo for r in range(len(kinds) + 1) for combo in itertools.combinations(kinds, r)
            ]
        self._actions[key] = got
        return got

    def ship_turn(self, st, h: int, hand, cf: bool, action) -> list:
        """[(p, fame, ("abs", code) | ("go", st, h, hand, can_fire))] of the ship's turn."""
        key = (st, h, hand, cf, action)
        got = self._ship_turns.get(key)
        if got is not None:
            return got
        c, one = self.c, self.one
        if action == _FLEE:
            got = [(1 - self.p_mutiny, 0, ("abs", V_FLED))]
            if self.p_mutiny:
                got.append((self.p_mutiny, -c.mutiny_fame_loss, ("abs", V_MUTINY)))
        elif action == _RELOAD:
            got = [(one, 0, ("go", st, h, hand, True))]
        else:
            hand2 = tuple(k - (VOLLEY_CARDS[i] in action) for i, k in enumerate(hand))
            cf2 = "cannonade" not in action
            fame = self.npc.fame  # one ship shares it
            got = []
            for pk, damage, st2, r, routed in self.volley(st, action):
                h2 = h - damage
                if h2 <= 0:
                    got.append((pk, r + fame, ("abs", V_SUNK_ROUTED if routed else V_WIN)))
                elif routed:
                    got.append((pk, r, ("abs", V_ROUTED)))
                else:
                    got.append((pk, r, ("go", st2, h2, hand2, cf2)))
        self._ship_turns[key] = got
        return got

    def volley(self, st, action) -> list:
        """[(p, hull damage to the non-player ship, ship state after, fame, routed)] of a
        broadside with the volley cards ``action`` (its Powder keg hits both hulls, its Grapeshot
        hits its own cannons)."""
        key = (st, action)
        got = self._volleys.get(key)
        if got is not None:
            return got
        c = self.c
        grape = "grapeshot" in action
        keg = "powder_keg" in action
        side = self.side
        got = []
        for k, pk in enumerate(self.binom(self.dice(st), self.p_grape if grape else self.p_hit)):
            if not pk:
                continue
            st2, r, damage = st, 0, k
            if keg and k:  # every ship present: its own hull and the non-player ship's
                st2, died = side.hit(st2, [HULL], k)
                r -= c.parrot_death_fame_loss if died else 0
                damage += k
            if grape and c.grapeshot_self_hits:
                st2, died = side.hit(st2, [CANNONS], c.grapeshot_self_hits)
                r -= c.parrot_death_fame_loss if died else 0
            got.append((pk, damage, st2, r, min(st2[:4]) <= 0))
        self._volleys[key] = got
        return got

    def npc_turn(self, st) -> list:
        """[(p, fame, ship state | None for routed)] of the non-player ship's broadside."""
        got = self._npc_turns.get(st)
        if got is not None:
            return got
        secs = self.npc_secs
        if secs is None:
            _, section = self.rn_policy.target(self.view(st, 1, (0, 0, 0), True, 1, me=-1))
            secs = (SECTIONS.index(section),)
        got = []
        loss = self.c.parrot_death_fame_loss
        for k, pk in enumerate(self.binom(self.npc.dice, self.p_npc)):
            if not pk:
                continue
            st2, died = self.side.hit(st, secs, k)
            r = -loss if died else 0
            got.append((pk, r, None if min(st2[:4]) <= 0 else st2))
        self._npc_turns[st] = got
        return got

    def regen(self, h_start: int, h: int) -> int:
        """:func:`~simulator.cove.fast.core.regenerate` (the Flying Dutchman; others regain 0)."""
        return _regenerate(h, h_start, self.npc.regenerate_per_exchange, self.npc.hull)

    # ------------------------------------------------------------------ values
    def _zero(self) -> list:
        return [0 * self.one] * 6

    def _add(self, acc: list, p, r, res) -> tuple[Any, Any] | None:
        """Add an absorbing result; return None, or (p, r) when ``res`` is a state to expand."""
        acc[V_FAME] += p * r
        if res[0] == "abs":
            acc[res[1]] += p
            return None
        return p, r

    def _ship_option(self, s, st, h, hand, cf, action, then_npc: bool):
        """The ship's ``action`` at a decision point of state ``s``: (vector of the other
        results, self-loop probability, self-loop fame). ``then_npc``: stage 1 (the non-player
        ship fires after it)."""
        vec = self._zero()
        ps = rs = 0 * self.one
        for p, r, res in self.ship_turn(st, h, hand, cf, action):
            if self._add(vec, p, r, res) is None:
                continue
            _, st2, h2, hand2, cf2 = res
            nxts = self.npc_turn(st2) if then_npc else [(self.one, 0, st2)]
            for pn, rn, st3 in nxts:
                pp, rr = p * pn, r + rn
                if st3 is None:
                    vec[V_ROUTED] += pp
                    vec[V_FAME] += pp * rr
                    continue
                nxt = (st3, self.regen(h, h2), hand2, cf2)
                if nxt == s:
                    ps += pp
                    rs += pp * rr
                    continue
                v = self.value(nxt)
                for i in range(5):
                    vec[i] += pp * v[i]
                vec[V_FAME] += pp * (rr + v[V_FAME])
        return vec, ps, rs

    def _better(self, score, best) -> bool:
        return best is None or score > best + self.tol

    def value(self, s) -> list:
        """Value vector of exchange-start state ``s = (ship, hull, hand, can_fire)``."""
        got = self.memo.get(s)
        if got is not None:
            return got
        st, h, hand, cf = s
        one = self.one
        sa, sb = self.speed(st), self.npc.sails
        q1 = one if sa > sb else (0 * one if sa < sb else one / 2)
        q2 = one - q1
        opts1 = []
        if q1:
            for a in self.actions(st, h, hand, cf, 1):
                opts1.append((a, *self._ship_option(s, st, h, hand, cf, a, True)))
        const = self._zero()
        p0 = 0 * one
        opts2 = []
        if q2:
            for pn, rn, st2 in self.npc_turn(st):
                if st2 is None:
                    const[V_ROUTED] += pn
                    const[V_FAME] += pn * rn
                elif st2 == st:  # a miss: this state's own stage-2 decision point
                    p0 = pn
                else:
                    v2 = self.p2_value((st2, h, hand, cf))
                    for i in range(5):
                        const[i] += pn * v2[i]
                    const[V_FAME] += pn * (rn + v2[V_FAME])
            if p0:
                for a in self.actions(st, h, hand, cf, 2):
                    opts2.append((a, *self._ship_option(s, st, h, hand, cf, a, False)))
        zero_opt = (None, self._zero(), 0 * one, 0 * one)
        best = best_v = best_pair = None
        for o1 in opts1 or [zero_opt]:
            for o2 in opts2 or [zero_opt]:
                vec = [q1 * o1[1][i] + q2 * (const[i] + p0 * o2[1][i]) for i in range(6)]
                m = q1 * o1[2] + q2 * p0 * o2[2]
                rr = q1 * o1[3] + q2 * p0 * o2[3]
                vec[V_FAME] += rr
                if m:
                    if m == 1:
                        raise ValueError("this duel never ends (neither ship can hurt the other)")
                    vec = [x / (1 - m) for x in vec]
                score = vec[V_WIN] + vec[V_SUNK_ROUTED]
                if self._better(score, best):
                    best, best_v, best_pair = score, vec, (o1, o2)
        o1, o2 = best_pair
        if o1[0] is not None:
            self.decisions[(1, s)] = o1[0]
        if o2[0] is not None:
            self.decisions[(2, s)] = o2[0]
            self.p2_values[s] = self._complete(o2, best_v)
        self.memo[s] = best_v
        return best_v

    def _complete(self, opt, v_self) -> list:
        """Value of a decision point from its option and the value of its own state."""
        _, vec, ps, rs = opt
        out = [vec[i] + ps * v_self[i] for i in range(5)]
        out.append(vec[V_FAME] + rs + ps * v_self[V_FAME])
        return out

    def p2_value(self, s) -> list:
        """Value of state ``s``'s stage-2 decision point (the non-player ship has fired; the hull
        is still the exchange's starting hull)."""
        got = self.p2_values.get(s)
        if got is not None:
            return got
        v_self = self.value(s)
        got = self.p2_values.get(s)
        if got is not None:
            return got
        st, h, hand, cf = s
        best = best_v = best_a = None
        for a in self.actions(st, h, hand, cf, 2):
            full = self._complete((a, *self._ship_option(s, st, h, hand, cf, a, False)), v_self)
            score = full[V_WIN] + full[V_SUNK_ROUTED]
            if self._better(score, best):
                best, best_v, best_a = score, full, a
        self.decisions[(2, s)] = best_a
        self.p2_values[s] = best_v
        return best_v


# ----------------------------------------------------------------------------- battle plans
def heuristic_plan(
    rules: CoveRules,
    side: Any,
    npc_key: str,
    npc: NonPlayerShip,
    rule: HeuristicCardPolicy,
    counts: dict[str, int],
    chests: int,
) -> BattlePlan:
    """The card rounds as the heuristic rule plays them (one card per round until it passes)."""
    c = rules.combat
    hand = [name for name in COMBAT_CARDS for _ in range(counts.get(name, 0))]
    smoke = grapple = becalmed = False
    wind = overboard = 0
    played: list[str] = []
    r = 1
    st = side.start
    while not becalmed:
        playable = tuple(x for x in hand if x in BATTLE_CARDS)
        if not playable:
            break
        speed = side.speed(
            st, wind * c.favourable_wind_speed + overboard * c.overboard_speed_per_chest
        )
        sv = side.view(st)
        me = ShipView(
            seat=sv.seat,
            positions=sv.positions,
            start_positions=sv.start_positions,
            protection=sv.protection,
            parrot=sv.parrot,
            parrot_wounded=sv.parrot_wounded,
            speed=speed,
            present=True,
            was_hit=False,
            smoke=smoke,
            can_fire=True,
            hand_size=len(hand),
            chests=chests - overboard,
        )
        view = BattleView(
            me=side.seat,
            island="hull",
            exchange=0,
            ships=(me,),
            npc=NpcView(
                key=npc_key, hull=npc.hull, max_hull=npc.hull, sails=npc.sails, present=True
            ),
            grapple=grapple,
            becalmed=becalmed,
            card_round=r,
        )
        card = rule.battle_card(view, playable)
        if card is None:
            break
        if card not in playable:
            raise ValueError(f"the card rule played {card!r}, not a battle card in its hand")
        hand.remove(card)
        played.append(card)
        if card == "becalmed":
            becalmed = True
        elif card == "favourable_wind":
            wind += 1
        elif card == "grapple":
            grapple = True
        elif card == "smoke":
            smoke = True
        elif card == "overboard":
            overboard += max(
                0, min(int(rule.overboard_chests(view, chests - overboard)), chests - overboard)
            )
        r += 1
    return BattlePlan(tuple(played), smoke, wind, grapple, overboard, becalmed)


def candidate_plans(
    rules: CoveRules, side: Any, npc: NonPlayerShip, counts: dict[str, int], chests: int
) -> list[BattlePlan]:
    """Every battle plan worth solving for the optimal policy, fewest cards first.

    Becalmed is left out: against a non-player ship (which plays no cards) it only takes the
    ship's own later cards away, so it never raises P(sink). Chests thrown with Overboard only
    matter through the speed order, so one count per distinct order (the smallest) is tried.
    """
    c = rules.combat
    smokes = (False, True) if counts.get("smoke") else (False,)
    grapples = (False, True) if counts.get("grapple") else (False,)
    winds = range(counts.get("favourable_wind", 0) + 1)
    # the ship's possible speeds before bonuses: every sails ring position it can fall to, with
    # and without its (living) parrot's bonus
    base = {side.value((p, p, p, p, 0, 0, 0, 0, 0), SAILS) for p in range(1, side.start[SAILS] + 1)}
    bonus = side.parrot.speed_bonus if side.parrot is not None else 0
    speeds = sorted(base | {b + bonus for b in base})
    plans = []
    for smoke, grapple, wind in itertools.product(smokes, grapples, winds):
        throws = [0]
        if counts.get("overboard") and chests > 0 and c.overboard_speed_per_chest > 0:
            seen = {}
            for n in range(chests + 1):
                sig = tuple(
                    (
                        v + wind * c.favourable_wind_speed + n * c.overboard_speed_per_chest
                        > npc.sails
                    )
                    - (
                        v + wind * c.favourable_wind_speed + n * c.overboard_speed_per_chest
                        < npc.sails
                    )
                    for v in speeds
                )
                seen.setdefault(sig, n)
            throws = sorted(seen.values())
        for n in throws:
            played = (
                ("smoke",) * smoke
                + ("favourable_wind",) * wind
                + ("grapple",) * grapple
                + (("overboard",) if n else ())
            )
            plans.append(BattlePlan(played, smoke, wind, grapple, n, False))
    plans.sort(key=lambda p: (len(p.played), p.overboard))
    return plans


# ----------------------------------------------------------------------------- the solved play
@dataclass(frozen=True, eq=False)
class CardPlay:
    """The solved card policy of a duel: its battle plan and every volley decision."""

    plan: BattlePlan
    decisions: dict = field(repr=False)  # (stage, (ship, hull, hand, can_fire)) -> volley tuple
    parrot_section: int  # section index of the ship's parrot, -1 without one
    parrot_hits_to_kill: int
    parrot_absorbs_hits: bool
    # bound of each digit of a state's code (rings 0..positions, Artisan hits, parrot hits, hull,
    # each volley card's count, can fire, the NPC has fired): see table()
    radix: tuple[int, ...] = ()

    def table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The decisions as sorted int64 codes, their volley bits (bit k: VOLLEY_CARDS[k]) and
        the digits' radix: ``code = ((ring0 * r1 + ring1) * r2 + ...)`` over the digits
        ``ring0..3, artisan0..3, parrot, hull, grapeshot, powder_keg, cannonade, can_fire,
        npc_has_fired`` (what the compiled kernel looks up)."""
        if not self.radix:
            raise ValueError("this CardPlay has no code radix (built without the rules' bounds)")
        if math.prod(self.radix) >= 2**62:
            raise ValueError(f"state codes of radix {self.radix} do not fit in 64 bits")
        keys = list(self.decisions)
        codes = np.array([self.code_of(k) for k in keys], np.int64)
        bits = np.array(
            [
                sum(1 << j for j, c in enumerate(VOLLEY_CARDS) if c in self.decisions[k])
                for k in keys
            ],
            np.int64,
        )
        order = np.argsort(codes)
        return codes[order], bits[order], np.array(self.radix, np.int64)

    def code_of(self, key) -> int:
        stage, (st, h, hand, cf) = key
        digits = (*st, h, *hand, int(cf), stage - 1)
        code = 0
        for d, r in zip(digits, self.radix, strict=True):
            if not 0 <= d < r:
                raise ValueError(f"state digit {d} outside its radix {r}")
            code = code * r + int(d)
        return code

    def state_of(self, me: ShipView, hull: int, hand: Sequence[str]) -> tuple:
        """The chain's state from what the ship sees of itself in a battle view."""
        php = 0
        if me.parrot is not None:
            php = self.parrot_hits_to_kill - (1 if me.parrot_wounded else 0)
        art = list(me.protection)
        if php and self.parrot_absorbs_hits and self.parrot_section >= 0:
            art[self.parrot_section] -= php
        counts = tuple(sum(1 for c in hand if c == v) for v in VOLLEY_CARDS)
        return (tuple(me.positions) + tuple(art) + (php,), hull, counts, me.can_fire)

    def volley(self, view: BattleView, hand: Sequence[str]) -> tuple[str, ...]:
        me = view.ship(view.me)
        key = (2 if view.npc_has_fired else 1, self.state_of(me, view.npc.hull, hand))
        try:
            return self.decisions[key]
        except KeyError:
            raise ValueError(
                f"the solved duel has no decision for state {key} (the battle is not the duel "
                "that was solved)"
            ) from None

    def policy(self, flee: BattlePolicy) -> DuelCardPolicy:
        """A battle policy that plays this card policy (flight and aim from ``flee``)."""
        return DuelCardPolicy(self, flee)


class DuelCardPolicy(BattlePolicy):
    """Plays a solved :class:`CardPlay` in the engines (the scalar engine asks it at each
    decision; the compiled kernel looks its decisions up in ``CardPlay.table``)."""

    def __init__(self, play: CardPlay, flee: BattlePolicy):
        self.play, self.flee = play, flee

    def battle_card(self, view: BattleView, hand: Sequence[str]) -> str | None:
        r = view.card_round - 1
        played = self.play.plan.played
        if 0 <= r < len(played) and played[r] in hand:
            return played[r]
        return None

    def overboard_chests(self, view: BattleView, chests: int) -> int:
        return min(chests, self.play.plan.overboard)

    def broadside(self, view: BattleView, hand: Sequence[str]) -> Broadside:
        act = self.flee.broadside(view, ())
        if act.flee:
            return FLEE
        me = view.ship(view.me)
        if not me.can_fire or not view.npc_fighting:
            return Broadside(target=act.target, section=act.section)
        return Broadside(target=NPC_TARGET, section="hull", volley=self.play.volley(view, hand))


__all__ = [
    "CARD_POLICIES",
    "BattlePlan",
    "CardChain",
    "CardPlay",
    "DuelCardPolicy",
    "candidate_plans",
    "hand_counts",
    "heuristic_plan",
]
