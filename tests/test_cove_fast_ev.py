"""The compiled expected-value players (simulator.cove.fast.players_ev) die for die.

The kinds of root ``heuristic`` (plunderer, brawler, tavern, balanced) on the compiled game
against the readable :class:`~simulator.cove.heuristic.HeuristicPlayer`: the same deal played by
both engines must give the same decisions (navigation by expected value, every phase decision,
the battle policy of ``players_ev_battle``), the same results and leave every random stream in
the same state. Every check is exact (decisions, integers, stream states; the floats behind the
decisions are compared through the decisions they make, ``==``).

The default mix plays on the compiled engine (``choose_engine``); the 10,000-table
script is ``python -m simulator.cove.fast.compare -n 10000`` (every compiled strategy).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios.loader import load_scenario
from simulator.cove.api import choose_engine
from simulator.cove.fast import packed
from simulator.cove.fast.compare import (
    SCENARIOS,
    compare_many,
    compiled_strategies,
    ev_strategies,
    fast_result,
    first_difference,
    python_result,
    random_tables,
)
from simulator.cove.fast.engine import FastGames
from simulator.cove.rules import CoveRules
from simulator.runner import Block

RULES = load_scenario(None, CoveRules).rules
EV = ("plunderer", "brawler", "tavern", "balanced")
SAMPLE_N, SAMPLE_SEED = 24, 1617


def test_ev_kinds_are_compiled():
    """The EV strategies are compiled (``packed.COMPILED_ROOTS``): the engine choice plays them
    on the compiled game."""
    assert set(ev_strategies(RULES)) == set(EV)
    assert packed.EV_ROOT in packed.COMPILED_ROOTS
    assert set(EV) <= set(compiled_strategies(RULES))
    assert choose_engine(None, RULES, EV) == ("fast", "every kind at the table is compiled")


def test_ev_rows_hold_the_parameters_and_the_start_state():
    """An EV seat's pp row: its parameters under the shared names, the opponent temperature,
    the readable player's starting state (_stake 0, _hv_chest = w_chest, _gold/_month 0)."""
    from simulator.cove.players import strategy_params

    row = packed.player_row(RULES, "brawler")
    p = strategy_params(RULES, "brawler")
    assert row[packed.PP_IS_EV] == 1.0 and row[packed.PP_IS_RANDOM] == 0.0
    for name in ("w_gold", "w_chest", "rout_cost", "fight_bias", "noise", "target_sails"):
        assert row[packed.PP[name]] == float(p[name])
    assert row[packed.PP_OPP_TEMP] == float(p["opp_temperature"])
    assert row[packed.PP_STAKE] == 0.0 and row[packed.PP_HV_CHEST] == float(p["w_chest"])
    assert row[packed.PP_GOLD_SEEN] == 0.0 and row[packed.PP_MONTH_SEEN] == 0.0
    assert packed.player_row(RULES, "random")[packed.PP_IS_EV] == 0.0


def test_ci_sample_of_ev_tables_is_die_for_die():
    """24 random tables of the EV kinds with random and two v1 kinds (3-5 players, both Artisan
    switches; the EV kinds seated more often than in the general sample): same decisions,
    results and stream states on both engines."""
    kinds = (*EV, "random", "tavern-v1", "brawler-v1")
    tables = list(random_tables(SAMPLE_N, SAMPLE_SEED, kinds))
    assert {len(names) for _, names in tables} == {3, 4, 5}
    assert {scen for scen, _ in tables} == set(range(len(SCENARIOS)))
    assert set(EV) <= {nm for _, names in tables for nm in names}
    rep = compare_many(SAMPLE_N, SAMPLE_SEED, kinds)
    assert rep.games == SAMPLE_N and rep.decisions > 50 * SAMPLE_N
    assert rep.mismatches == []


def test_an_ev_comparison_sees_one_changed_stream():
    """The check can fail: the same EV table dealt from the next block differs."""
    names = ("plunderer", "balanced", "tavern")
    eng = FastGames(RULES, names)
    deal = Block(index=5, start=5, size=1, entropy=99)
    py = python_result(RULES, names, deal)
    assert first_difference(py, fast_result(eng, names, deal)) is None
    other = Block(index=6, start=6, size=1, entropy=99)
    assert first_difference(py, fast_result(eng, names, other)) is not None


def test_the_compiled_navigation_makes_a_subset_of_the_estimates(monkeypatch):
    """The compiled navigation values an island that needs company estimates only when its upper
    bound (``players_ev.company_bound``) can still reach the best value: on the same deals it
    estimates no situation the readable players do not, and fewer of them (the decisions are
    the same: the die-for-die tests)."""
    from simulator.cove import heuristic
    from simulator.cove.api import play_one
    from simulator.cove.odds import company_key, company_seed_words

    seen: set[tuple[int, ...]] = set()
    company = heuristic.HeuristicPlayer.company

    def recording(self, ship, others, npc):
        seen.add(tuple(company_seed_words(RULES, company_key(ship, others, npc))))
        return company(self, ship, others, npc)

    monkeypatch.setattr(heuristic.HeuristicPlayer, "company", recording)
    names = ("plunderer", "brawler", "tavern", "balanced")
    deals = [Block(index=g, start=g, size=1, entropy=1618) for g in range(30)]
    eng = FastGames(RULES, names)
    for deal in deals:
        play_one(RULES, names, deal)
    eng.play([names] * len(deals), deals)
    keys, _vals, count = eng.oc[7]
    made = {tuple(int(w) for w in keys[h, 1 : 1 + keys[h, 0]]) for h in np.flatnonzero(keys[:, 0])}
    assert len(made) == count[0]  # the memo was never emptied: it holds every estimate made
    assert made <= seen
    assert len(made) < len(seen)


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
unit = st.floats(0.0, 1.0)


@settings(deadline=None)  # the first example loads the compiled function (0.3-1.3 s under load)
@given(after=finite, share_hi=st.floats(0.0, 100.0), rout=finite, p=unit, q=unit, r=unit)
def test_the_company_bound_bounds_every_estimate_as_floats(after, share_hi, rout, p, q, r):
    """``company_bound`` is at least the value of a company subset (``island_details``' float
    expression) for any estimate: P(sink) and P(routed) in [0, 1], the share in [0, share_hi]."""
    from simulator.cove.fast.players_ev import company_bound

    share = q * share_hi
    assert p * after + share - r * rout <= company_bound(after, share_hi, rout)
    for pe, se, re in ((1.0, share_hi, 0.0), (0.0, share_hi, 0.0), (1.0, share_hi, 1.0)):
        assert pe * after + se - re * rout <= company_bound(after, share_hi, rout)
