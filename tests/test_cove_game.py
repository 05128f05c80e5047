"""Pirate's Cove full game: invariants over many seeded games, legality, determinism, goldens, CLI.

Invariants (checked after every phase by ``Game(check_invariants=True)``): gold and chests
conserved between bank and players, Tavern cards conserved (deck + discard + hands + in play,
parrots and Artisans on ships included), nothing negative, rings on the mat, destroyed sections
only at the Cove and repaired by the end of phase 5, one Artisan per ship (standard rules).
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
from simulator.cove import golden
from simulator.cove.api import play_games, play_one
from simulator.cove.game import Game, IllegalAction
from simulator.cove.game_commands import play_command as play
from simulator.cove.players import KINDS, make_player
from simulator.cove.rules import CoveRules
from simulator.protocol import check_seats_table

SCEN = load_scenario(None, CoveRules)
RULES = SCEN.rules
PER_SECTION = load_scenario("scenarios/cove/artisan-per-section.toml", CoveRules).rules
NAMES = ("plunderer", "brawler", "tavern", "balanced", "random")


def _games(rules, names, n, seed):
    out = []
    for ss in np.random.SeedSequence(seed).spawn(n):
        game, res = play_one(rules, names, ss, check=True)
        out.append((game, res))
    return out


def _check_end(game, res, names):
    assert game.month == RULES.setup.num_months  # ends after month 12, never earlier or later
    assert game.phase == "end"
    assert not game.invariant_errors()
    assert len(res.seats) == len(names)
    assert sum(s.win for s in res.seats) == pytest.approx(1.0)
    for s in res.seats:
        assert s.fame == sum(s.fame_src.values())
        assert s.fame >= 0 and s.gold >= 0 and s.chests >= 0
        assert s.fame_src["penalties"] <= 0


@pytest.mark.parametrize("n_players", [3, 4, 5])
@pytest.mark.parametrize("kind", NAMES)
def test_invariants_single_strategy_tables(n_players, kind):
    names = (kind,) * n_players
    for game, res in _games(RULES, names, 6, seed=[n_players, NAMES.index(kind)]):
        _check_end(game, res, names)


@pytest.mark.parametrize("n_players", [3, 4, 5])
def test_invariants_every_mix_of_distinct_strategies(n_players):
    for i, names in enumerate(itertools.combinations(NAMES, n_players)):
        for game, res in _games(RULES, names, 3, seed=1000 * n_players + i):
            _check_end(game, res, names)


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
    game, res = play_one(rules, names, np.random.SeedSequence(seed), check=True)
    _check_end(game, res, names)
    if per_section:
        assert all(len(s.artisans) <= 4 for s in game.seats)


@pytest.mark.slow
def test_invariants_thousands_of_games():
    rng = np.random.default_rng(7)
    for i in range(700):
        n = int(rng.integers(3, 6))
        names = tuple(rng.choice(NAMES, size=n))
        game, res = play_one(RULES, names, np.random.SeedSequence([7, i]), check=True)
        _check_end(game, res, names)


def test_three_players_have_two_black_ships_four_have_one():
    for n, count in ((3, 2), (4, 1), (5, 1)):
        game = Game(
            RULES,
            [make_player(RULES, "random", np.random.default_rng(i)) for i in range(n)],
            __import__("simulator.cove.dice", fromlist=["GameDice"]).GameDice(
                np.random.default_rng(0)
            ),
        )
        game.setup()
        assert len(game.black_ships) == count
        assert [b[0] for b in game.black_ships] == [0, 3][:count]  # Tavern, then Cannons
        assert len({b[1] for b in game.black_ships}) == count


class _Cheat:
    """A player that returns something illegal."""

    def act(self, kind, obs, legal):
        return "not-a-choice"


def test_illegal_action_is_refused():
    players = [make_player(RULES, "random", np.random.default_rng(i)) for i in range(3)] + [
        _Cheat()
    ]
    from simulator.cove.dice import GameDice

    with pytest.raises(IllegalAction):
        Game(RULES, players, GameDice(np.random.default_rng(0))).play()


def test_only_legal_actions_are_taken_by_every_strategy():
    """A player proxy asserts that each answer is in the legal tuple offered (engine checks too)."""

    class Checked:
        def __init__(self, inner):
            self.inner = inner
            self.asked = 0

        def act(self, kind, obs, legal):
            c = self.inner.act(kind, obs, legal)
            assert c in legal
            assert obs.hand == obs.hand  # own hand only (other hands are sizes)
            self.asked += 1
            return c

        def __getattr__(self, name):
            return getattr(self.inner, name)

    for n in (3, 4, 5):
        players = [
            Checked(make_player(RULES, NAMES[i], np.random.default_rng(i))) for i in range(n)
        ]
        from simulator.cove.dice import GameDice

        Game(RULES, players, GameDice(np.random.default_rng(n)), check_invariants=True).play()
        assert all(p.asked > 12 for p in players)


# ------------------------------------------------------------------ determinism and API
def test_jobs_1_equals_jobs_2():
    # 3 chunks of CHUNK_SIZE games would be slow; a smaller chunk size keeps several chunks
    from simulator.cove import api

    old = api.CHUNK_SIZE
    api.CHUNK_SIZE = 20
    try:
        a = play_games(None, "plunderer,brawler,tavern,balanced", 4, 45, seed=11, n_jobs=1)
        b = play_games(None, "plunderer,brawler,tavern,balanced", 4, 45, seed=11, n_jobs=2)
    finally:
        api.CHUNK_SIZE = old
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
    rng = np.random.SeedSequence(5).spawn(1)[0]
    first = play_one(load_scenario(None, CoveRules).rules, ["brawler"] * 3, rng)[1]
    again = play_one(load_scenario(None, CoveRules).rules, ["brawler"] * 3, rng)[1]
    assert [s.fame for s in first.seats] == [s.fame for s in again.seats]


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


# ------------------------------------------------------------------ goldens
@pytest.mark.parametrize("name", list(golden.CASES))
def test_golden_playthrough_replays_exactly(name):
    data = json.loads(golden.path_for(name).read_text())
    final, dice, cursor = golden.replay(data)
    assert final == data["final"]
    assert dice.fully_used  # every recorded die and shuffle was used, no more
    assert cursor.i == len(data["decisions"])


def test_golden_replay_detects_a_changed_shuffle_and_a_missing_decision():
    from simulator.cove.dice import DiceExhausted
    from simulator.cove.game import build_tavern_deck

    data = json.loads(golden.path_for("four_players").read_text())
    deck = build_tavern_deck(RULES)
    perm = list(data["perms"][0])  # the Tavern deck shuffle: its last item is the first card drawn
    j = next(i for i in range(len(perm)) if deck[perm[i]] != deck[perm[-1]])
    perm[-1], perm[j] = perm[j], perm[-1]
    changed = dict(data, perms=[perm] + data["perms"][1:])
    final = None
    try:
        final, _, _ = golden.replay(changed)
    except AssertionError as exc:  # the replay noticed the recorded decisions no longer fit
        assert str(exc).startswith("replay")
    except (DiceExhausted, IllegalAction):  # a divergence was detected
        pass
    assert final != data["final"]
    short = dict(data, decisions=data["decisions"][:-1])
    with pytest.raises(AssertionError, match="replay"):
        golden.replay(short)


def test_golden_recording_is_reproducible_from_its_seed():
    data = golden.record("three_players")
    stored = json.loads(golden.path_for("three_players").read_text())
    assert data["faces"] == stored["faces"] and data["decisions"] == stored["decisions"]


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
    assert {s.kind for s in RULES.strategies.values()} == set(KINDS)
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
