"""The compiled expected-value players (simulator.cove.fast.players_ev) die for die.

The kinds of root ``heuristic`` (plunderer, brawler, tavern, balanced) on the compiled game
against the readable :class:`~simulator.cove.heuristic.HeuristicPlayer`: the same deal played by
both engines must give the same decisions (navigation by expected value, every phase decision,
the battle policy of ``players_ev_battle``), the same results and leave every random stream in
the same state. Every check is exact (decisions, integers, stream states; the floats behind the
decisions are compared through the decisions they make, ``==``).

The compiled engine seats these kinds when asked (``FastGames``); ``choose_engine`` offers them
only with ``BROADSIDE_COMPILED_EV=1`` (``packed.COMPILED_ROOTS``) until the 10,000-table script
(``python -m simulator.cove.fast.compare -n 10000 --with-ev``) finds no game that differs.
"""

from __future__ import annotations

import json

import pytest

from scenarios.loader import load_scenario
from simulator.cove import golden
from simulator.cove.api import choose_engine
from simulator.cove.fast import game as fg
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


def test_ev_strategies_and_the_flag():
    """The EV strategies are packable; the engine choice offers them only behind the flag."""
    assert set(ev_strategies(RULES)) == set(EV)
    assert packed.EV_ROOT in packed.PACKABLE_ROOTS
    if packed.EV_ENABLED:
        assert set(EV) <= set(compiled_strategies(RULES))
        assert choose_engine(None, RULES, EV)[0] == "fast"
    else:
        assert not set(EV) & set(compiled_strategies(RULES))
        assert choose_engine(None, RULES, EV) == (
            "python",
            "kinds plunderer, brawler, tavern, balanced are not compiled",
        )


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
    """24 random tables of the EV kinds with random and the v1 kinds (3-5 players, both Artisan
    switches): same decisions, results and stream states on both engines."""
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


@pytest.mark.parametrize(
    "name", [n for n, (_, names, _) in golden.CASES.items() if set(names) <= set(EV)]
)
def test_compiled_game_replays_the_improved_goldens(name):
    """The golden playthrough of the improved players: the compiled game, seeded as the
    recording was, takes every recorded decision and ends in the recorded state."""
    data = json.loads(golden.path_for(name).read_text())
    rules = golden._rules(data["scenario"])
    names = tuple(data["strategies"])
    deal = Block(index=0, start=0, size=1, entropy=data["seed"])
    fast = fast_result(FastGames(rules, names), names, deal)
    assert fast["trace"] == data["decisions"]
    final = data["final"]
    assert fast["battles"] == [tuple(b.values()) for b in final["battles"]]
    assert (fast["tie"], fast["duel"]) == (final["tie"], final["duel"])
    for s, want in enumerate(final["seats"]):
        got = fast["seats"][s]
        assert got[0] == want["fame"]
        assert list(got[1:7]) == list(want["fame_src"].values())
        assert (got[fg.SR_GOLD], got[fg.SR_CHESTS]) == (want["gold"], want["chests"])
        assert got[fg.SR_SUNK] == want["pirates_sunk"]
    winners = [s for s in range(len(names)) if fast["seats"][s][-1] > 0]
    assert winners == final["winners"]
