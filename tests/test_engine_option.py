"""``--engine fast|python`` on compare, tune, metagame and report (issue 16, "Deliver" 1).

A game's two engines play die for die the same games (Les Pirates: one source, compiled or run
with the JIT off), so the option changes the time and never a number: the same command under
both engines gives the same JSON (wall times aside). A game with one engine (Pirates express)
refuses ``--engine python`` in one line; the report applies the option to the games that have it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from runner_tasks import run_main

from reports.report import ReportContext
from simulator.express import api as express_api
from simulator.hunt import api as hunt_api

TIMES = ("wall_time_s",)


def _json(args: list[str]) -> dict:
    code, out, err = run_main([*args, "--format", "json", "--quiet"])
    assert code == 0, err
    return json.loads(out)


def _drop_times(obj):
    if isinstance(obj, dict):
        return {k: _drop_times(v) for k, v in obj.items() if k not in TIMES}
    if isinstance(obj, list):
        return [_drop_times(v) for v in obj]
    return obj


COVE_V1 = "plunderer-v1,brawler-v1,random"


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "standard", "standard", "--game", "cove", "--max-games", "12", "--looks", "1"]
        + ["--strategies", COVE_V1],
        # two strategies at three seats: four profiles (three strategies made ten, 8 s readable)
        ["metagame", "--game", "cove", "--population", "plunderer-v1,random"]
        + ["--players", "3", "-n", "6"],
        ["compare", "standard", "one-two", "--game", "hunt", "--max-games", "10", "--looks", "1"],
    ],
    ids=["compare-cove", "metagame-cove", "compare-hunt"],
)
def test_fast_and_python_give_the_same_numbers(args):
    """A game's engines play die for die: every number of the output is the same under both (a
    difference of one game anywhere would change a payoff, a look's statistic or a win rate);
    only the recorded engine differs."""
    fast = _json([*args, "--engine", "fast", "--seed", "7", "--jobs", "1"])
    slow = _json([*args, "--engine", "python", "--seed", "7", "--jobs", "1"])
    for out, name in ((fast, "fast"), (slow, "python")):
        where = out.get("provenance", out)
        assert where.pop("engine") == name
        if "provenance" in out:
            out["provenance"].pop("command")
    assert _drop_times(fast) == _drop_times(slow)


def test_the_search_plays_the_same_scores_under_both_engines():
    """``tune`` and ``metagame`` play every table through :class:`simulator.search.Player`, which
    hands its engine to the game's ``play``: the scores a search compares are the same under both
    engines (tune's smallest Pirate's Cove budget, 924 games, would take a minute readable; the
    search's own use of the scores is engine-blind)."""
    from simulator.cove import api as cove_api
    from simulator.search import Player, Unit, slice_seed

    units = [Unit(("plunderer-v1", "brawler-v1", "random"), slice_seed(3, 0))]
    scores = {}
    for engine in ("fast", "python"):
        player = Player(cove_api, cove_api.load(None), players=3, engine=engine)
        scores[engine] = player.run(units, "engines", entropy=3)
        assert player.games_played == player.games
    for fast, slow in zip(scores["fast"], scores["python"], strict=True):
        assert np.array_equal(fast, slow)


def test_without_engine_the_output_records_the_default():
    args = ["compare", "standard", "one-two", "--game", "hunt", "--max-games", "20", "--looks", "1"]
    assert _json([*args, "--seed", "7", "--jobs", "1"])["engine"] == "default"


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "standard", "standard", "--game", "express", "--max-games", "10"],
        ["metagame", "--game", "express", "--population", "admiral,patient", "-n", "10"],
        ["tune", "--game", "express", "--strategy", "admiral", "--budget", "100"],
    ],
)
def test_a_game_with_one_engine_refuses_python_in_one_line(args):
    code, out, err = run_main([*args, "--engine", "python", "--quiet"])
    assert code == 2 and out == ""
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "express has fast only" in lines[0], err


def test_report_applies_the_engine_to_the_games_that_have_it(tmp_path):
    ctx = ReportContext(size="test", entropy=1, jobs=1, quiet=True, out=tmp_path, engine="python")
    assert ctx.engine_for(hunt_api) == "python"
    assert ctx.engine_for(express_api) is None  # compiled only: its one engine
    assert ReportContext("test", 1, 1, True, tmp_path).engine_for(hunt_api) is None
