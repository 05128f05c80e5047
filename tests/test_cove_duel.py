"""Exact duels (simulator.cove.duel) against a hand computation, a brute-force enumeration of
every die of the scalar engine, and Monte Carlo of the scalar engine (within 4 SE)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from scenarios import load_scenario
from simulator.cove.combat_policies import RulePolicy, policy_from_name
from simulator.cove.duel import DuelShip, exact_duel
from simulator.cove.rules import CoveRules, NonPlayerShip
from tests.cove_battle_oracle import BattleShip, resolve_battle

RULES = load_scenario(None, CoveRules).rules


def with_pirate(hit_on=5, **kw):
    tiny = NonPlayerShip(title="Tiny", **kw)
    return dataclasses.replace(
        RULES,
        pirates={**RULES.pirates, "tiny": tiny},
        combat=dataclasses.replace(RULES.combat, hit_on=hit_on),
    )


def test_hand_computed_duel_against_a_one_die_pirate():
    # Faster pirate, hull 1, 1 die on the hull; our ship on position 1 everywhere (one hit routs
    # it) rolls 2 dice. Per exchange: pirate hits 1/3 -> routed; else we hit with 1 - (2/3)^2.
    # P(win) = (2/3)(5/9) / (1 - (2/3)(4/9)) = 10/19.
    rules = with_pirate(dice=1, hull=1, sails=30, fame=5)
    d = exact_duel(rules, DuelShip((1, 1, 1, 1)), "tiny", fractions=True)
    assert d.win == Fraction(10, 19) and d.routed == Fraction(9, 19) and d.fled == 0
    assert d.expected_fame == 5 * Fraction(10, 19)


def test_fractions_and_floats_agree():
    ship = DuelShip((3, 3, 2, 3), {"hull": 0}, "flint")
    a = exact_duel(
        RULES, ship, "bonny_and_read", policy_from_name("flee-when-critical"), fractions=True
    )
    b = exact_duel(RULES, ship, "bonny_and_read", policy_from_name("flee-when-critical"))
    for k in ("win", "routed", "fled", "mutiny", "expected_fame"):
        assert float(getattr(a, k)) == pytest.approx(getattr(b, k), abs=1e-12)
    assert float(a.win + a.routed + a.fled) == pytest.approx(1.0, abs=1e-12)


# ---------------------------------------------------------------- brute force over the dice
class _NeedDie(Exception):
    pass


class _PrefixDice:
    # with hit_on = 2 and mutiny_on = 1 a die has two classes: {1} (miss, mutiny), {2..6} (hit)
    def __init__(self, prefix):
        self.prefix = prefix
        self.used = 0

    def integers(self, low, high=None, size=None, dtype=None):
        n = 1 if size is None else int(size)
        if self.used + n > len(self.prefix):
            raise _NeedDie
        out = np.array(self.prefix[self.used : self.used + n])
        self.used += n
        return out if size is not None else out[0]


FACE_CLASSES = ((1, Fraction(1, 6)), (5, Fraction(5, 6)))


def brute_force(rules, ships, npc, policies, eps=1e-7):
    """Enumerate every die class sequence of the scalar engine (depth-first), pruning branches
    below ``eps``; returns outcome probabilities of ship 0 and the pruned mass."""
    totals = {"win": 0.0, "routed": 0.0, "fled": 0.0, "mutiny": 0.0, "fame": 0.0}
    pruned = 0.0
    stack = [((), 1.0)]
    while stack:
        prefix, p = stack.pop()
        try:
            res = resolve_battle(
                rules, ships, npc, policies, _PrefixDice(list(prefix)), island="hull"
            )
        except _NeedDie:
            if p < eps:
                pruned += p
                continue
            for face, w in FACE_CLASSES:
                stack.append((prefix + (face,), p * float(w)))
            continue
        s = res.ships[0]
        o = {"won": "win", "routed": "routed", "fled": "fled", "mutiny": "mutiny"}[s.outcome]
        totals[o] += p
        if o == "mutiny":
            totals["fled"] += p
        totals["fame"] += p * s.fame_total
    return totals, pruned


@pytest.mark.parametrize("case", ["pirate", "pirate-flee", "royal-navy-ish", "pvp"])
def test_exact_matches_brute_force_enumeration(case):
    # hits on 2+ so that every die has two classes (speeds differ: a roll-off is a long tree)
    rules = with_pirate(dice=2, hull=3, sails=6, fame=4, hit_on=2)
    if case == "pirate":
        a, opp, pol = DuelShip((2, 1, 1, 2), {"hull": 1}), "tiny", RulePolicy()
    elif case == "pirate-flee":
        a, opp, pol = DuelShip((2, 1, 1, 2), parrot="flint"), "tiny", RulePolicy("when-hit")
    elif case == "royal-navy-ish":
        rules = with_pirate(dice=2, hull=3, sails=9, fame=4, damages="every_section", hit_on=2)
        a, opp, pol = DuelShip((2, 2, 2, 2), {"crew": 1}), "tiny", RulePolicy("when-critical")
    else:
        a, opp, pol = (
            DuelShip((2, 1, 1, 2), parrot="billy_bones"),
            DuelShip((2, 2, 1, 3), seat=1),
            RulePolicy(1),
        )
    exact = exact_duel(rules, a, opp, pol)
    ships = [BattleShip(0, list(a.positions), dict(a.artisans), a.parrot)]
    pols = [pol]
    npc = opp
    if isinstance(opp, DuelShip):
        ships.append(BattleShip(1, list(opp.positions), dict(opp.artisans), opp.parrot))
        pols.append(RulePolicy())
        npc = None
    bf, pruned = brute_force(rules, ships, npc, pols)
    assert pruned < 1e-4
    for k in ("win", "routed", "fled", "mutiny"):
        assert abs(getattr(exact, k) - bf[k]) <= pruned + 1e-9, (k, getattr(exact, k), bf[k])
    assert abs(exact.expected_fame - bf["fame"]) <= 10 * pruned + 1e-9


CASES = [
    ("blackbeard", "stand", DuelShip((5, 5, 5, 5), {"hull": 0})),
    ("flying_dutchman", "flee-when-hit", DuelShip((3, 3, 3, 3), {"hull": 0}, "billy_bones")),
    ("captain_hook", "stand", DuelShip((3, 3, 3, 3), parrot="long_john_silver")),
    ("bonny_and_read", "flee-when-critical", DuelShip((4, 4, 4, 4), {}, "flint")),
    ("royal_navy", "flee-after-2", DuelShip((2, 5, 5, 2), {"crew": 0})),
    (
        DuelShip((3, 2, 4, 2), {}, "squire_trelawney", seat=1),
        "flee-after-2",
        DuelShip((3, 3, 3, 3), {}, "long_john_silver"),
    ),
    (DuelShip((2, 2, 2, 2), seat=1), "stand", DuelShip((2, 2, 2, 2))),  # tied speeds: roll-offs
]


@pytest.mark.parametrize("opp,pol,ship", CASES)
def test_exact_matches_scalar_monte_carlo_within_4_se(opp, pol, ship):
    exact = exact_duel(RULES, ship, opp, policy_from_name(pol))
    rng = np.random.default_rng(20260601)
    n = 1000
    counts = dict.fromkeys(("won", "routed", "fled", "mutiny"), 0)
    fame = []
    for _ in range(n):
        ships = [BattleShip(0, list(ship.positions), dict(ship.artisans), ship.parrot)]
        pols = [policy_from_name(pol)]
        npc = opp
        if isinstance(opp, DuelShip):
            ships.append(BattleShip(1, list(opp.positions), dict(opp.artisans), opp.parrot))
            pols.append(RulePolicy())
            npc = None
        s = resolve_battle(RULES, ships, npc, pols, rng, island="hull").ships[0]
        counts[s.outcome] += 1
        fame.append(s.fame_total)
    mc = {
        "win": counts["won"],
        "routed": counts["routed"],
        "fled": counts["fled"] + counts["mutiny"],
        "mutiny": counts["mutiny"],
    }
    for k, c in mc.items():
        p = getattr(exact, k)
        se = max(np.sqrt(p * (1 - p) / n), 1 / n)
        assert abs(c / n - p) <= 4 * se, (k, c / n, p)
    fame = np.array(fame, float)
    assert abs(fame.mean() - exact.expected_fame) <= 4 * max(fame.std(ddof=1) / np.sqrt(n), 1e-3)


def test_bad_opponents_are_refused():
    with pytest.raises(ValueError, match="allowed"):
        exact_duel(RULES, DuelShip(), "kraken")
    with pytest.raises(ValueError, match="does not fight"):
        exact_duel(RULES, DuelShip(), "cacafuego")
