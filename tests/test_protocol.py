"""The game protocol (simulator/protocol.py) for every game that speaks it: the same interface,
a tidy per-seat table (seats from 1, outcome and score), and results that depend on the seed
only: two chunk sizes and ``jobs`` 1 and 2 give identical tables."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

from simulator.cove import api as cove_api
from simulator.errors import UserError
from simulator.express import api as express_api
from simulator.hunt import api as hunt_api
from simulator.protocol import (
    INTERVAL_COLUMNS,
    PROTOCOL_NAMES,
    SEAT_COLUMNS,
    PlayResult,
    check_seats_table,
    outcomes_from_scores,
    shares,
)

GAMES = {"cove": cove_api, "express": express_api, "hunt": hunt_api}
#: a small run of each game: (strategies, players, n, two chunk sizes)
RUNS = {
    "cove": (["plunderer", "brawler", "tavern"], 3, 14, (2, 5)),
    "hunt": (["runner", "hunter", "guard", "random"], 4, 300, (100, 200)),
    "express": (["admiral", "boarder"], 2, 300, (100, 300)),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_offers_the_protocol(game):
    api = GAMES[game]
    for name in PROTOCOL_NAMES:
        assert hasattr(api, name), f"{game}: api.{name} missing"
    assert game == api.GAME
    params = inspect.signature(api.play).parameters
    for p in ("n", "players", "seed", "jobs", "rotate_seats", "quiet", "check", "engine"):
        assert p in params and params[p].kind is inspect.Parameter.KEYWORD_ONLY, (game, p)
    scen = api.load(None)
    mix = api.default_mix(scen)
    assert mix and set(mix) <= set(api.strategies(scen))
    kinds = api.kinds(scen)
    assert {s.kind for s in api.strategies(scen).values()} <= set(kinds)
    assert len(mix) in api.player_counts(scen)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_results_depend_on_the_seed_only(game):
    api = GAMES[game]
    strategies, players, n, (c1, c2) = RUNS[game]
    kw = {"players": players, "n": n, "seed": 2026, "rotate_seats": True}
    a = api.play(None, strategies, jobs=1, chunk_size=c1, **kw)
    b = api.play(None, strategies, jobs=2, chunk_size=c2, **kw)
    assert isinstance(a, PlayResult) and a.game == game
    check_seats_table(a.seats)
    assert list(a.seats.columns[: len(SEAT_COLUMNS)]) == list(SEAT_COLUMNS)
    assert a.seats["game"].nunique() == n and len(a.seats) == n * players
    pd.testing.assert_frame_equal(a.seats, b.seats)
    for name in a.tables:
        pd.testing.assert_frame_equal(a.tables[name], b.tables[name])
    other = api.play(None, strategies, jobs=1, chunk_size=c1, **{**kw, "seed": 2027})
    assert not other.seats["score"].equals(a.seats["score"])


def test_score_shares_and_outcomes():
    assert list(shares([2], 4)) == [0, 0, 1, 0]
    assert list(shares([0, 3], 4)) == [0.5, 0, 0, 0.5]
    assert list(shares([], 4)) == [0.25] * 4
    assert list(outcomes_from_scores(np.array([1.0, 0.0, 0.5, 0.25]))) == [
        "win",
        "loss",
        "draw",
        "draw",
    ]


@pytest.mark.parametrize("game", ["cove", "hunt"])
def test_intervals_are_the_summarys_when_games_are_independent(game):
    """Distinct strategies, no seat rotation: each strategy's rows are one per game, so the
    tidy intervals equal the summary's (Pirate's Cove: Wilson on the win shares; Les Pirates:
    Wilson on outright wins) to rounding."""
    api = GAMES[game]
    strategies, players, n, _ = RUNS[game]
    res = api.play(None, strategies, players=players, n=n, seed=7)
    iv = res.intervals()
    assert list(iv.columns) == ["strategy", *INTERVAL_COLUMNS]
    measure = "score" if game == "cove" else "win"
    for name in dict.fromkeys(strategies):
        row = iv[(iv["strategy"] == name) & (iv["measure"] == measure)].iloc[0]
        assert row["games"] == n and row["n_eff"] == n
        lo, hi = res.summary["strategies"][name]["ci95"]
        assert (row["ci95_low"], row["ci95_high"]) == pytest.approx((lo, hi), abs=1e-12)
    seats = res.intervals("seat")
    assert list(seats["seat"].unique()) == list(range(1, players + 1))


def test_intervals_widen_when_rotations_share_their_dice():
    """Pirate's Cove's seat rotations replay a deal's dice: a strategy's results across the
    rotations of one deal are one cluster, so its effective size is below its rows where they
    move together, and never above them."""
    res = cove_api.play(None, ["plunderer", "brawler", "tavern"], n=60, seed=5, rotate_seats=True)
    iv = res.intervals()
    assert (iv["n_eff"] <= iv["games"]).all() and (iv["n_eff"] < iv["games"]).any()
    assert ((iv["ci95_low"] <= iv["estimate"]) & (iv["estimate"] <= iv["ci95_high"])).all()
    with pytest.raises(UserError, match="not a column of the seats table"):
        res.intervals("colour")
