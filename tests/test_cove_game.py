"""Pirate's Cove full game: invariants over many seeded games, determinism, goldens, CLI.

Invariants (checked after every phase by the engine's checker, ``check=True``: ``game._check``):
gold and chests conserved between bank and players, Tavern cards conserved (deck + discard +
hands + in play, parrots and Artisans on ships included), nothing negative, rings on the mat,
destroyed sections only at the Cove and repaired by the end of phase 5, one Artisan per ship
(standard rules); a broken invariant stops the game with an error (``FastGameError``). The
setup, legality and the refusal of an illegal choice are checked in readable mode
(``tests/cove_readable/test_cove_game_positions.py``).
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenarios.loader import load_scenario
from simulator.cove.api import play_games
from simulator.cove.fast import game as fg
from simulator.cove.fast.engine import FastGames
from simulator.cove.fast.packed import G_MONTH, G_PHASE, PH_END
from simulator.cove.game_commands import play_command as play
from simulator.cove.rules import CoveRules
from simulator.cove.tables import FAME_SOURCES
from simulator.protocol import check_seats_table
from simulator.runner import Block

SCEN = load_scenario(None, CoveRules)
RULES = SCEN.rules
PER_SECTION = load_scenario("scenarios/cove/artisan-per-section.toml", CoveRules).rules
NAMES = ("plunderer", "brawler", "tavern", "balanced", "random")
_ENGINES: dict = {}


def _engine(rules, names) -> FastGames:
    key = (id(rules), tuple(sorted(set(names))))
    if key not in _ENGINES:
        _ENGINES[key] = FastGames(rules, key[1])
    return _ENGINES[key]


def _play(rules, names, deal):
    """One game of ``names`` on ``deal`` under the invariant checker: the engine's results and
    its game scalars at the end (``g``, read from the engine's buffers)."""
    eng = _engine(rules, names)
    ch = eng.play([tuple(names)], [deal], check=True)
    g = eng._buffers(len(names), False, False)[0].g.copy()
    return ch, g


def _games(rules, names, n, seed):
    return [_play(rules, names, Block(i, i, 1, seed)) for i in range(n)]


def _check_end(ch, g, names):
    assert g[G_MONTH] == RULES.setup.num_months  # ends after month 12, never earlier or later
    assert g[G_PHASE] == PH_END
    seats = ch.seats[0]
    assert seats.shape[0] == len(names) and ch.win.shape == (1, len(names))
    assert ch.win[0].sum() == pytest.approx(1.0)
    src = seats[:, fg.SR_SRC : fg.SR_SRC + len(FAME_SOURCES)]
    assert (seats[:, fg.SR_FAME] == src.sum(axis=1)).all()
    assert (seats[:, [fg.SR_FAME, fg.SR_GOLD, fg.SR_CHESTS]] >= 0).all()
    assert (src[:, FAME_SOURCES.index("penalties")] <= 0).all()


@pytest.mark.parametrize("n_players", [3, 4, 5])
@pytest.mark.parametrize("kind", NAMES)
def test_invariants_single_strategy_tables(n_players, kind):
    names = (kind,) * n_players
    for ch, g in _games(RULES, names, 6, seed=10 * n_players + NAMES.index(kind)):
        _check_end(ch, g, names)


@pytest.mark.parametrize("n_players", [3, 4, 5])
def test_invariants_every_mix_of_distinct_strategies(n_players):
    for i, names in enumerate(itertools.combinations(NAMES, n_players)):
        for ch, g in _games(RULES, names, 3, seed=1000 * n_players + i):
            _check_end(ch, g, names)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.integers(3, 5).flatmap(
        lambda n: st.lists(st.sampled_from(NAMES), min_size=n, max_size=n)
    ),
    seed=st.integers(0, 2**32 - 1),
    per_section=st.booleans(),
)
def test_invariants_hypothesis(names, seed, per_section):
    rules = PER_SECTION if per_section else RULES
    ch, g = _play(rules, names, Block(0, 0, 1, seed))
    _check_end(ch, g, names)


@pytest.mark.slow
def test_invariants_thousands_of_games():
    rng = np.random.default_rng(7)
    for i in range(700):
        n = int(rng.integers(3, 6))
        names = tuple(rng.choice(NAMES, size=n))
        ch, g = _play(RULES, names, Block(i, i, 1, 7))
        _check_end(ch, g, names)


def test_a_broken_invariant_stops_the_game():
    """The checker can fail: with a start fame below the fame floor the first phase's check
    stops the game; unchecked, the same game plays on."""
    from simulator.cove.fast.engine import FastGameError
    from simulator.cove.fast.packed import P_START_FAME

    names = ("random",) * 3
    eng = FastGames(RULES, names)
    eng.tables.prm[P_START_FAME] = -1
    with pytest.raises(FastGameError, match=r"month 0, phase arming: seat 0 negative"):
        eng.play([names], [Block(0, 0, 1, 1)], check=True)
    eng.play([names], [Block(0, 0, 1, 1)], check=False)


# ------------------------------------------------------------------ determinism and API
def test_jobs_and_chunk_size_change_nothing():
    mix = "plunderer,brawler,tavern,balanced"
    a = play_games(None, mix, 4, 45, seed=11, n_jobs=1, chunk_size=7)
    b = play_games(None, mix, 4, 45, seed=11, n_jobs=2, chunk_size=None)
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_frame_equal(a[1], b[1])
    assert a[2]["strategies"] == b[2]["strategies"]


def test_rotate_seats_plays_every_rotation_with_the_same_dice():
    seats, _battles, summ = play_games(
        None, ["brawler", "plunderer", "tavern"], 3, 5, seed=3, rotate_seats=True
    )
    assert summ["n_games"] == 15 and summ["n_deals"] == 5
    for (_g, r), d in seats.groupby(["game", "rotation"]):
        assert list(d["strategy"]) == [
            ["brawler", "plunderer", "tavern"][(s + r) % 3] for s in range(3)
        ]
    # every strategy sits at every seat equally often
    counts = seats.groupby(["strategy", "seat"]).size()
    assert (counts == 5).all()


def test_rotations_of_a_deal_replay_the_same_dice():
    """With the same strategy at every seat, every rotation of a deal must be the same game."""
    seats, battles, _ = play_games(None, ["balanced"] * 3, 3, 4, seed=11, rotate_seats=True)
    cols = ["seat", "fame", "gold", "chests", "battles", "routed", "win"]
    for _g, d in seats.groupby("game"):
        per_rot = [d[d["rotation"] == r][cols].reset_index(drop=True) for r in range(3)]
        for other in per_rot[1:]:
            pd.testing.assert_frame_equal(per_rot[0], other)
    deal = Block(0, 0, 1, 5)
    eng = FastGames(load_scenario(None, CoveRules).rules, ["brawler"])
    first = eng.play([["brawler"] * 3], [deal], trace=True)
    again = eng.play([["brawler"] * 3], [deal], trace=True)
    assert first.trace(0) == again.trace(0) and (first.seats == again.seats).all()


def test_summary_fields_and_win_shares():
    seats, battles, summ = play_games(None, "balanced,brawler,random", 3, 40, seed=5)
    assert set(summ) >= {"n_games", "strategies", "seats", "pirates", "provenance", "seed"}
    assert summ["n_games"] == 40
    assert sum(v["win_rate"] * v["games"] for v in summ["strategies"].values()) == pytest.approx(40)
    for v in summ["strategies"].values():
        lo, hi = v["ci95"]
        assert lo <= v["win_rate"] <= hi
    assert set(summ["pirates"]) == {*RULES.pirates, "royal_navy"}
    wins = seats.groupby("game")["win"].sum()
    assert np.allclose(wins, 1.0)
    assert set(battles["pirate"]) <= {*RULES.pirates, "royal_navy"}
    assert (battles["month"].between(1, 12)).all()


def test_bad_strategy_and_player_count_are_one_line_errors():
    from simulator.errors import UserError

    with pytest.raises(UserError, match="unknown strategy 'pirate'"):
        play_games(None, "pirate,brawler,tavern", 3, 1, seed=0)
    with pytest.raises(UserError, match="2 names for 3 players"):
        play_games(None, "brawler,tavern", 3, 1, seed=0)


# ------------------------------------------------------------------ CLI
def test_cli_json_and_out(tmp_path):
    r = CliRunner().invoke(
        play,
        [
            "--players",
            "4",
            "--strategies",
            "plunderer,brawler,tavern,balanced",
            "-n",
            "30",
            "--seed",
            "9",
            "--jobs",
            "1",
            "--format",
            "json",
            "-q",
            "--out",
            str(tmp_path),
        ],
    )
    assert r.exit_code == 0, r.output
    obj = json.loads(r.output)
    assert obj["n_games"] == 30 and obj["seed"] == "9"
    assert set(obj["strategies"]["brawler"]) >= {"win_rate", "ci95", "mean_fame"}
    assert set(obj["seats"]) == {"1", "2", "3", "4"}
    assert obj["provenance"]["scenario"] == "standard"
    seats = pd.read_parquet(tmp_path / "seats.parquet")
    assert len(seats) == 120
    for col in (
        "game",
        "seat",
        "strategy",
        "fame",
        "fame_plunder",
        "fame_burying",
        "fame_combat",
        "fame_pirates",
        "fame_fame_cards",
        "fame_penalties",
        "gold",
        "chests",
        "battles",
        "routed",
        "pirates_fought",
        "pirates_sunk",
        "outcome",
        "score",
        "scenario_hash",
        "seed",
    ):
        assert col in seats.columns
    check_seats_table(seats)
    assert all(tuple(sorted(g)) == (1, 2, 3, 4) for _, g in seats.groupby("game")["seat"])
    assert sorted(seats["game"].unique()) == list(range(30))
    battles = pd.read_csv(tmp_path / "battles.csv")
    assert {"month", "pirate", "ships", "outcome"} <= set(battles.columns)
    assert (tmp_path / "summary.json").exists()


def test_cli_table_and_csv():
    r = CliRunner().invoke(
        play,
        ["--players", "3", "--strategies", "random", "-n", "5", "--seed", "1", "--jobs", "1", "-q"],
    )
    assert r.exit_code == 0 and "strategies" in r.output and "pirates" in r.output
    r = CliRunner().invoke(
        play,
        [
            "--players",
            "3",
            "--strategies",
            "random",
            "-n",
            "5",
            "--seed",
            "1",
            "--jobs",
            "1",
            "-q",
            "--format",
            "csv",
        ],
    )
    assert r.exit_code == 0 and r.output.startswith("table,name,")


def test_cli_bad_input_exit_2():
    import subprocess
    import sys

    p = subprocess.run(
        [
            sys.executable,
            "-c",
            "import cli; cli.main()",
            "cove",
            "play",
            "--players",
            "4",
            "--strategies",
            "plunderer,nobody,tavern,balanced",
            "-n",
            "2",
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "unknown strategy 'nobody'" in p.stderr


def test_every_kind_is_in_the_standard_strategy_table():
    """Every declared kind but the two roots the others extend is named by a strategy."""
    assert {s.kind for s in RULES.strategies.values()} == set(RULES.kinds) - {
        "heuristic",
        "heuristic-v1",
    }
    assert set(RULES.default_mix) <= set(RULES.strategies)


def test_cli_scenario_overlay_and_bad_scenario():
    r = CliRunner().invoke(
        play,
        [
            "--scenario",
            "scenarios/cove/artisan-per-section.toml",
            "--players",
            "5",
            "--strategies",
            "balanced",
            "-n",
            "3",
            "--seed",
            "2",
            "--jobs",
            "1",
            "-q",
            "--format",
            "json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["provenance"]["scenario"] == "artisan-per-section"
    from scenarios.loader import ScenarioError

    with pytest.raises(ScenarioError):
        CliRunner().invoke(
            play,
            [
                "--scenario",
                "scenarios/cove/nope.toml",
                "--players",
                "3",
                "--strategies",
                "random",
                "-n",
                "1",
            ],
            catch_exceptions=False,
        )
