"""The players' battle odds (the oracle tests/cove_odds_oracle.py): the exact lone solver with
cards against the combat helper's exact duels and the combat engines, and the company estimate's
error.

Monte Carlo tests use fixed seeds and n = 40,000 battles: the standard error of a probability is
at most 0.5 / sqrt(40,000) = 0.0025, so at 4 SE a bias of 1 point fails.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios.loader import load_scenario
from simulator.cove.combat import simulate_battles
from simulator.cove.combat_kernel import WON, simulate_battles_kernel
from simulator.cove.combat_policies import NPC_TARGET, BattlePolicy, Broadside, RulePolicy
from simulator.cove.duel import DuelShip, LoneShipOdds, exact_duel
from simulator.cove.rules import CoveRules
from tests.cove_battle_oracle import BattleShip, resolve_battle
from tests.cove_odds_oracle import (
    COMPANY_TRIALS,
    PirateOdds,
    battle_ship_state,
    company_key,
    company_odds,
    lone_pirate_odds,
    ship_state,
)

RULES = load_scenario(None, CoveRules).rules
NO_ABSORB = dataclasses.replace(
    RULES, combat=dataclasses.replace(RULES.combat, parrot_absorbs_hits=False)
)
SECTIONS = ("hull", "crew", "cannons", "sails")
FIGHTERS = ("blackbeard", "flying_dutchman", "captain_hook", "bonny_and_read", "royal_navy")
N = 40_000


@pytest.mark.parametrize("rules", [RULES, NO_ABSORB], ids=["parrot-absorbs", "parrot-no-absorb"])
def test_without_cards_the_solver_is_the_combat_helpers_exact_duel(rules):
    po = PirateOdds(rules)
    for key in FIGHTERS:
        for ring in [(2, 2, 2, 2), (4, 5, 5, 3), (1, 3, 3, 8), (5, 8, 6, 6), (7, 2, 8, 5)]:
            for art in [{}, {"crew": 0}, {"hull": 1}]:
                for parrot in [
                    None,
                    "flint",
                    "long_john_silver",
                    "billy_bones",
                    "squire_trelawney",
                ]:
                    for wounded in [False, True] if parrot else [False]:
                        ship = DuelShip(ring, artisans=art, parrot=parrot, parrot_wounded=wounded)
                        arts = [(SECTIONS.index(k), v) for k, v in art.items()]
                        s = ship_state(rules, ring, arts, parrot, int(wounded))
                        got = po.p_sink(key, s, parrot=parrot)
                        assert got == pytest.approx(exact_duel(rules, ship, key).win, abs=1e-12)


@pytest.mark.parametrize("rules", [RULES, NO_ABSORB], ids=["parrot-absorbs", "parrot-no-absorb"])
def test_with_cards_the_solver_is_the_combat_helpers_exact_duel_with_cards(rules):
    """Two independent chains (the players' canonical memoised one, the combat helper's
    ``exact_duel(..., cards=..., card_policy="optimal")``) agree on P(sink) with every battle and
    volley card, Overboard's chests included (lone_pirate_odds with free chests)."""
    helper = LoneShipOdds(rules)
    po = PirateOdds(rules)
    hands = [
        ("smoke",),
        ("grapeshot", "powder_keg"),
        ("favourable_wind", "favourable_wind", "grapple"),
        ("smoke", "cannonade", "becalmed", "grapeshot"),
        ("overboard", "smoke"),
    ]
    for key in FIGHTERS:
        for ring, parrot in [
            ((4, 5, 5, 3), None),
            ((5, 7, 7, 8), "flint"),
            ((3, 3, 6, 6), "billy_bones"),
        ]:
            for hand in hands:
                chests = 4 if "overboard" in hand else 0
                s = ship_state(rules, ring, (), parrot)
                mine = lone_pirate_odds(
                    po, key, s, parrot, hand, chests, chest_value=0.0, stake=1e9
                )
                ship = DuelShip(ring, parrot=parrot, chests=chests)
                assert mine.p_sink == pytest.approx(helper.p_sink(ship, key, hand), abs=1e-12)


def test_parrot_absorbs_hits_switch_is_honoured_where_the_old_odds_ignored_it():
    """Issue 13: with the switch off, a Flint ship's odds against Hook are 0.258 exactly (the old
    players' chain said 0.574: ``tests/cove_readable/test_cove_players.py``, the v1 reading)."""
    ring = (4, 3, 3, 4)
    new = PirateOdds(NO_ABSORB).p_sink(
        "captain_hook", ship_state(NO_ABSORB, ring, (), "flint"), parrot="flint"
    )
    assert round(new, 3) == 0.258
    exact = exact_duel(NO_ABSORB, DuelShip(ring, parrot="flint"), "captain_hook").win
    assert new == pytest.approx(exact, abs=1e-12)


CARD_CASES = [
    ("captain_hook", (3, 5, 5, 3), None, ("smoke",), ()),
    ("blackbeard", (5, 7, 7, 4), None, ("smoke",), ("grapeshot",)),
    (
        "flying_dutchman",
        (4, 6, 6, 3),
        None,
        ("favourable_wind", "favourable_wind"),
        ("powder_keg",),
    ),
    ("bonny_and_read", (5, 5, 5, 5), "flint", ("grapple",), ("grapeshot", "powder_keg")),
    ("royal_navy", (3, 4, 4, 4), "long_john_silver", ("smoke",), ("powder_keg",)),
    ("captain_hook", (4, 6, 3, 3), None, ("grapple", "overboard"), ()),
]


@pytest.mark.parametrize(("npc", "ring", "parrot", "battle", "volley"), CARD_CASES)
def test_cards_match_the_compiled_kernel_within_4_se(npc, ring, parrot, battle, volley):
    """Each battle card as a battle parameter and volley cards in the state ("first": played at
    the first broadside, as RulePolicy plays them) against n battles of the compiled kernel (die
    for die the scalar engine: tests/test_cove_combat_kernel.py)."""
    chests = 3 if "overboard" in battle else 0
    extra = RULES.combat.favourable_wind_speed * battle.count("favourable_wind")
    extra += RULES.combat.overboard_speed_per_chest * chests
    p = PirateOdds(RULES).p_sink(
        npc,
        ship_state(RULES, ring, (), parrot),
        parrot=parrot,
        smoke="smoke" in battle,
        extra_speed=extra,
        grapple="grapple" in battle,
        grapeshot=volley.count("grapeshot"),
        powder_keg=volley.count("powder_keg"),
        volley="first",
    )
    res = simulate_battles(
        RULES,
        [BattleShip(0, list(ring), parrot=parrot, chests=chests, battle_cards=[*battle, *volley])],
        npc,
        [RulePolicy(battle_cards=battle, volley_cards=volley)],
        N,
        np.random.default_rng(13),
        island="hull",
        engine="kernel",
    )
    m = float(res.npc_sunk.mean())
    se = max(np.sqrt(p * (1 - p) / N), 1e-9)
    assert abs(m - p) < 4 * se, (m, p, se)


class _SolverPolicy(BattlePolicy):
    """Stands and plays the solver's optimal volley (the improved players' lone rule)."""

    def __init__(self, po: PirateOdds, npc: str, parrot, smoke: bool):
        self.po, self.npc, self.parrot, self.smoke = po, npc, parrot, smoke

    def battle_card(self, view, hand):
        return "smoke" if self.smoke and "smoke" in hand else None

    def broadside(self, view, hand):
        me = view.ship(view.me)
        names, _ = self.po.best_volley(
            self.npc,
            battle_ship_state(RULES, me),
            parrot=me.parrot,
            hull=view.npc.hull,
            grapeshot=hand.count("grapeshot"),
            powder_keg=hand.count("powder_keg"),
            smoke=me.smoke,
            pirate_to_fire=me.speed > view.npc.sails,
        )
        return Broadside(target=NPC_TARGET, section="hull", volley=names)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("npc", "ring", "hand"),
    [
        ("blackbeard", (5, 7, 7, 4), ("smoke", "grapeshot")),
        ("bonny_and_read", (5, 5, 5, 5), ("grapeshot", "powder_keg")),
    ],
)
def test_optimal_volleys_match_the_scalar_engine_within_4_se(npc, ring, hand):
    """The optimal policy read from the chain, played in the scalar engine (n = 10,000 battles:
    SE <= 0.005, a 2-point bias fails at 4 SE)."""
    po = PirateOdds(RULES)
    st0 = ship_state(RULES, ring)
    p = po.p_sink(
        npc,
        st0,
        smoke="smoke" in hand,
        grapeshot=hand.count("grapeshot"),
        powder_keg=hand.count("powder_keg"),
    )
    never = po.p_sink(npc, st0, smoke="smoke" in hand, volley="never")
    n = 10_000
    rng = np.random.default_rng(17)
    pol = _SolverPolicy(po, npc, None, "smoke" in hand)
    wins = 0
    for _ in range(n):
        r = resolve_battle(
            RULES,
            [BattleShip(0, list(ring), battle_cards=list(hand))],
            npc,
            [pol],
            rng,
            island="hull",
        )
        wins += r.npc_sunk
    se = np.sqrt(p * (1 - p) / n)
    assert abs(wins / n - p) < 4 * se
    assert p > never + 8 * se  # the cards are worth it here


@settings(max_examples=40, deadline=None)
@given(
    npc=st.sampled_from(FIGHTERS),
    ring=st.tuples(*[st.integers(1, 8)] * 4),
    g=st.integers(0, 1),
    k=st.integers(0, 1),
    smoke=st.booleans(),
)
def test_optimal_volleys_dominate_fixed_ones_and_smoke_never_hurts(npc, ring, g, k, smoke):
    po = PirateOdds(RULES)
    s = ship_state(RULES, ring)
    kw = {"grapeshot": g, "powder_keg": k, "smoke": smoke}
    opt = po.p_sink(npc, s, **kw)
    assert 0.0 <= opt <= 1.0
    assert opt >= po.p_sink(npc, s, volley="first", **kw) - 1e-12
    assert opt >= po.p_sink(npc, s, volley="never", **kw) - 1e-12
    assert po.p_sink(npc, s, grapeshot=g, powder_keg=k, smoke=True) >= (
        po.p_sink(npc, s, grapeshot=g, powder_keg=k, smoke=False) - 1e-12
    )


def test_lone_plan_plays_wind_and_overboard_only_when_they_change_the_order():
    po = PirateOdds(RULES)
    s = ship_state(RULES, (3, 5, 5, 3))  # speed 6: +6 never passes Hook (18)
    plan = lone_pirate_odds(po, "captain_hook", s, None, ("favourable_wind", "smoke"))
    assert plan.wind == 0 and plan.smoke
    fast = ship_state(RULES, (5, 7, 7, 8))  # speed 12 against Hook (18): +6 ties, +12 passes
    one = lone_pirate_odds(po, "captain_hook", fast, None, ("favourable_wind",))
    two = lone_pirate_odds(po, "captain_hook", fast, None, ("favourable_wind",) * 2)
    alone = po.p_sink("captain_hook", fast)
    assert one.wind == 1 and two.wind == 2 and alone < one.p_sink < two.p_sink
    quick = ship_state(RULES, (5, 7, 7, 8), (), "squire_trelawney")  # 32: already first
    assert (
        lone_pirate_odds(po, "captain_hook", quick, "squire_trelawney", ("favourable_wind",)).wind
        == 0
    )
    # Overboard: 4 chests take speed 12 to 20 > 18 (3 tie); worth it only if the stake pays
    cheap = lone_pirate_odds(
        po, "captain_hook", fast, None, ("overboard",), 5, chest_value=0.1, stake=8
    )
    dear = lone_pirate_odds(
        po, "captain_hook", fast, None, ("overboard",), 5, chest_value=5, stake=8
    )
    assert cheap.overboard == 4 and dear.overboard == 0
    assert cheap.p_sink == pytest.approx(two.p_sink) and dear.p_sink == pytest.approx(alone)
    short = lone_pirate_odds(
        po, "captain_hook", fast, None, ("overboard",), 3, chest_value=0.1, stake=8
    )
    assert short.overboard == 3 and short.p_sink == pytest.approx(one.p_sink)  # 3 chests tie


class _Facts(NamedTuple):
    """The public facts of a ship a company estimate reads (``odds.company_key``)."""

    ring: tuple[int, ...]
    artisans: tuple[tuple[int, int], ...]
    parrot: str | None
    parrot_wounds: int


def _sv(ring, parrot=None, artisans=()):
    return _Facts(tuple(ring), tuple(artisans), parrot, 0)


def test_company_estimate_is_a_pure_function_of_the_situation():
    k1 = company_key(_sv((5, 6, 6, 4)), [_sv((4, 4, 4, 4)), _sv((3, 5, 5, 3))], "blackbeard")
    k2 = company_key(_sv((5, 6, 6, 4)), [_sv((3, 5, 5, 3)), _sv((4, 4, 4, 4))], "blackbeard")
    assert k1 == k2 and company_odds(RULES, k1) == company_odds(RULES, k2)


COMPANY_CASES = [
    ("blackbeard", [(4, 4, 4, 4), (3, 5, 5, 3)]),
    ("blackbeard", [(5, 3, 3, 5), (4, 4, 4, 4), (4, 7, 7, 2)]),
    ("flying_dutchman", [(3, 5, 5, 3), (5, 3, 3, 5)]),
    ("captain_hook", [(3, 5, 5, 3), (6, 6, 6, 6)]),
    ("bonny_and_read", [(4, 4, 4, 4), (2, 2, 2, 2), (4, 4, 4, 4), (2, 2, 2, 2)]),
]


@pytest.mark.parametrize(("npc", "rings"), COMPANY_CASES)
def test_company_estimate_against_a_large_run_of_the_same_battle(npc, rings):
    """The estimate is COMPANY_TRIALS kernel battles (everyone standing, no cards): its only
    error against the same battle is sampling, SE <= 0.025; checked against N battles at 4
    combined SE. (Its error against battles with cards and fleeing players is measured in full
    games: docs/rules-cove.md.)"""
    est = company_odds(RULES, company_key(_sv(rings[0]), [_sv(r) for r in rings[1:]], npc))
    res = simulate_battles_kernel(
        RULES,
        [BattleShip(i, list(r)) for i, r in enumerate(rings)],
        npc,
        [BattlePolicy()] * len(rings),
        N,
        np.random.default_rng(99),
        island="treasure_island",
    )
    truth = float((res.npc_sunk & (res.outcome[:, 0] == WON)).mean())
    se = np.sqrt(max(truth * (1 - truth), 1e-4) * (1 / COMPANY_TRIALS + 1 / N))
    assert abs(est.p_sink - truth) < 4 * se
