"""Paired games and the fleet race: common random numbers, results independent of chunking and
jobs, successive halving's bookkeeping, and the fleet search's summary."""

from __future__ import annotations

import numpy as np
import pytest

from scenarios.loader import load_scenario
from simulator.express import api, racing
from simulator.express.commanders import make_commander
from simulator.express.core import pack_rules
from simulator.express.fleets import parse_fleet
from simulator.express.rules import ExpressRules

RULES = load_scenario(None, ExpressRules).rules
PACKED = pack_rules(RULES)
ADM = make_commander("admiral", RULES)
FIELD = racing.make_seats(
    [(api.mirrored_fleet(RULES, n), ADM) for n in ("spain", "viking", "american")], RULES
)


def _seats(*specs):
    return racing.make_seats([(parse_fleet(s, RULES), ADM) for s in specs], RULES)


def test_identical_candidates_meet_identical_dice():
    """Common random numbers: two copies of one fleet get the same result in every game."""
    cands = _seats("none:5,3,2,1,1 captain@0", "none:5,3,2,1,1 captain@0", "none:5,4,3")
    codes, margins, _run = racing.paired_games(cands, FIELD, PACKED, 30, seed=5)
    assert np.array_equal(codes[0], codes[1]) and np.array_equal(margins[0], margins[1])
    assert not np.array_equal(margins[0], margins[2])  # a different fleet plays other battles


def test_results_do_not_depend_on_chunking_jobs_or_splitting(monkeypatch):
    cands = _seats("none:5,4,3 gunner@0", "none:3,3,3,3")
    whole = racing.paired_games(cands, FIELD, PACKED, 24, seed=9)
    monkeypatch.setattr(racing, "CHUNK_BATTLES", 2)  # 1 game per chunk
    small = racing.paired_games(cands, FIELD, PACKED, 24, seed=9)
    head = racing.paired_games(cands, FIELD, PACKED, 10, seed=9)
    tail = racing.paired_games(cands, FIELD, PACKED, 14, seed=9, offset=10)
    two = racing.paired_games(cands, FIELD, PACKED, 24, seed=9, jobs=2)
    for got in (small, two):
        assert np.array_equal(got[0], whole[0]) and np.array_equal(got[1], whole[1])
    assert np.array_equal(np.concatenate([head[0], tail[0]], axis=1), whole[0])
    assert np.array_equal(np.concatenate([head[1], tail[1]], axis=1), whole[1])


def test_results_are_from_the_candidates_side():
    """Whichever seat the candidate takes (A on even rounds of the field, B on odd ones), its
    result agrees with its own VP margin: a win has a positive margin, a draw none."""
    cands = _seats("none:5,3,2,1,1 captain@0", "none:3,3,3,3")
    codes, margins, _run = racing.paired_games(cands, FIELD, PACKED, 42, seed=3)
    sc = racing.scores(codes)
    assert codes.shape == (2, 42) and set(np.unique(codes)) <= {0, 1, 2}
    assert ((sc == 1) == (margins > 0)).all() and ((sc == 0.5) == (margins == 0)).all()


def test_race_halves_and_doubles_and_keeps_the_best_scores():
    """Bookkeeping of successive halving: rung sizes, games, battles, the survivors are the best
    scores of their rung, the winner the best of the last; and its games replay the race's own
    paired games (the scores are the games' scores)."""
    specs = ("none:1", "none:2", "none:5,4,3 gunner@0 captain@1 helmsman@2", "none:1,1", "none:4")
    cands = _seats(*specs)
    res = racing.race(cands, FIELD, PACKED, n0=5, eta=2, seed=11)
    step = 2 * len(FIELD)  # 5 rounded up to whole rounds of the field in both seats
    assert [r.candidates for r in res.rungs] == [5, 3, 2]
    assert [r.games_each for r in res.rungs] == [step, 2 * step, 4 * step]
    assert (
        res.battles == sum(r.new_battles for r in res.rungs) == 5 * step + 3 * step + 2 * 2 * step
    )
    codes, _m, _run = racing.paired_games(cands, FIELD, PACKED, 4 * step, seed=11)
    full = racing.scores(codes)
    for c in range(len(specs)):
        g = res.games[c]
        assert res.score[c] == pytest.approx(full[c, :g].mean())
    first = full[:, :step].mean(axis=1)
    kept = set(np.argsort(-first, kind="stable")[:3])
    assert {c for c in range(5) if res.games[c] > step} == kept
    assert res.winner == max(
        (c for c in kept if res.games[c] == 4 * step), key=lambda c: res.score[c]
    )
    assert np.isnan(res.rungs[-1].cut_score) and res.cpu_s > 0


def test_fleet_search_summary_and_validation():
    rungs, s = api.fleet_search(
        "american", rules=RULES, candidates=4, n0=1, validate_n=1, seed=2, opponents=["spain"]
    )
    assert s["pool"] == len(api.enumerate_fleets(RULES, "american", full_only=True))
    assert s["candidates"] == 4 and len(rungs) == len(s["rungs"]) == 2
    assert s["study_fleet"] == api.mirrored_fleet(RULES, "american").spec()
    assert s["study_fleet"].startswith("american:4,4,2,1,1")  # the power fleet (two 4-mast)
    v = s["validation"]
    assert v["n"] == 2  # rounded up to a round of the one-fleet field in both seats
    for key in ("score", "study_score", "gain_over_study"):
        lo, hi = v[key]["ci95"]
        assert lo <= v[key]["mean"] <= hi
    with pytest.raises(api.UserError, match="--eta"):
        api.fleet_search("spain", rules=RULES, eta=1)
