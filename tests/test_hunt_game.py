"""Les Pirates whole-turn rules (set-up, seats, stalemate, cyclone, fire ship, one-two, kingdoms),
the Python API and the CLI. Each rule of a whole turn is one function of
:mod:`simulator.hunt.game`, tested here with explicit dice; ``tests/test_hunt_engine.py`` replays
whole games against them."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hunt_support import N, after_step, invariant_broken, leg, position

from cli import cli
from scenarios.loader import load_scenario
from simulator.hunt import game, moves
from simulator.hunt.api import play
from simulator.hunt.game import initial_position, run_games, trace_game
from simulator.hunt.packed import build_tables
from simulator.hunt.players import make_player
from simulator.hunt.rules import HuntRules
from simulator.hunt.variants import load_hunt
from simulator.protocol import check_seats_table

STANDARD = load_scenario("standard", HuntRules)


def with_(rules, **tables):
    """``rules`` with fields of its sub-tables replaced (``max_turns=...`` for a plain field)."""
    plain = {k: v for k, v in tables.items() if not isinstance(v, dict)}
    nested = {k: dataclasses.replace(getattr(rules, k), **v) for k, v in tables.items()
              if isinstance(v, dict)}  # fmt: skip
    return dataclasses.replace(rules, **plain, **nested)


def seats_played(t, players, seed, start=None):
    """The seat of every roll of a traced game (random players, no fire ships)."""
    pols = [make_player(t.rules, p) for p in players]
    start = initial_position(t) if start is None else start
    _, trace = trace_game(t, start, pols, list(range(len(pols))), seed, seed + 1)
    return [int(r[game.T_SEAT]) for r in trace if r[game.T_KIND] == game.T_ROLL]


def test_setup_three_ships_on_berths():
    t = build_tables(STANDARD.rules, 4)
    pos = initial_position(t)
    for seat, ships in enumerate(t.seat_ships):
        assert len(ships) == 3
        port = t.seat_ports[seat][0]
        assert sorted(pos[0][list(ships)]) == sorted(t.board.berth_nodes[port])
    assert pos[0][-1] == 0 and not pos[1].any()  # the treasure on its island, no wrecks
    assert invariant_broken(t, pos) == 0


def test_seat_order_and_first_player():
    t = build_tables(STANDARD.rules, 4)
    assert [t.board.port_numbers[p[0]] for p in t.seat_ports] == [1, 2, 4, 3]
    t2 = build_tables(STANDARD.rules, 2)
    assert [t2.board.port_numbers[p[0]] for p in t2.seat_ports] == [1, 4]
    short = build_tables(with_(STANDARD.rules, max_turns=8), 4)
    assert seats_played(short, ["random:fire=0"] * 4, 3) == [0, 1, 2, 3, 0, 1, 2, 3]


def test_opening_handicap_rolls_fewer_dice_on_the_first_players_first_turns():
    """House rule ``opening`` (``game.handicap_dice``): the first player's first
    ``handicap_turns`` turns roll ``handicap_dice`` dice; every other turn, and every turn of the
    other seats, the full roll. With ``handicap_turns = 0`` (as printed) every roll has two dice."""

    def dice_per_roll(rules, seed):
        t = build_tables(rules, 2)
        pols = [make_player(t.rules, "random:fire=0")] * 2
        _, trace = trace_game(t, initial_position(t), pols, [0, 1], seed, seed + 1)
        cols = slice(game.T_DICE, game.T_DICE + 2)  # two dice per roll (unused: -1)
        rolls = [r for r in trace if r[game.T_KIND] == game.T_ROLL]
        return [(int(r[game.T_SEAT]), int((r[cols] >= 1).sum())) for r in rolls]

    rules = with_(STANDARD.rules, max_turns=10, opening={"handicap_turns": 3, "handicap_dice": 1})
    for seed in range(5):
        rolls = dice_per_roll(rules, seed)
        assert [s for s, _ in rolls] == [0, 1] * 5
        assert [n for _, n in rolls] == [1, 2, 1, 2, 1, 2, 2, 2, 2, 2]
        printed = dice_per_roll(with_(STANDARD.rules, max_turns=10), seed)
        assert [n for _, n in printed] == [2] * 10


def test_opening_handicap_and_dice_per_roll_are_checked_on_load():
    from scenarios.loader import ScenarioError

    with pytest.raises(ScenarioError, match=r"opening\.handicap_dice.*allowed: 1\.\.2"):
        with_(STANDARD.rules, opening={"handicap_turns": 1, "handicap_dice": 3}).validate()
    cyclone = {"enabled": True, "extra_dice": 3}
    with pytest.raises(ScenarioError, match=r"num_dice.*9 dice per roll.*allowed: at most 8"):
        with_(STANDARD.rules, num_dice=6, cyclone=cyclone).validate()


def test_stalemate_at_max_turns():
    t = build_tables(with_(STANDARD.rules, max_turns=7), 2)
    pols = [make_player(t.rules, "random")]
    out = run_games(t, initial_position(t), pols, np.zeros((20, 2)), np.random.default_rng(1))
    assert (out[:, game.O_END] == game.END_STALEMATE).all()
    assert (out[:, game.O_TURNS] == 7).all() and (out[:, game.O_WINNER] == -1).all()


def test_eliminated_player_is_skipped():
    t = build_tables(with_(STANDARD.rules, max_turns=6), 3)
    row, wreck = initial_position(t)
    row[list(t.seat_ships[1])] = -1  # seat 1 has no ships: play goes 0, 2, 0, 2...
    assert seats_played(t, ["random:fire=0"] * 3, 5, (row, wreck)) == [0, 2, 0, 2, 0, 2]


def test_cyclone_triple_loses_the_farthest_ship():
    sc = load_hunt(None, ["cyclone"])
    t = build_tables(sc.rules, 2)
    row, _ = initial_position(t)
    row[0] = N(t, 9, 9)
    G = np.stack([row, row])
    assert game.cyclone_victim(t.A, t.P, G, 0) == 0
    row[0], row[1], row[2] = N(t, 0, 1), N(t, 0, 5), N(t, 5, 0)  # 1 and 2 are as far: the lower
    assert t.dist[N(t, 0, 0), N(t, 0, 5)] == t.dist[N(t, 0, 0), N(t, 5, 0)] == 5
    assert game.cyclone_victim(t.A, t.P, np.stack([row, row]), 0) == 1
    for dice, strikes in [((5, 5, 5), True), ((5, 5, 4), False), ((1, 2, 3), False)]:
        assert bool(game.cyclone_strikes(t.P, np.array(dice))) is strikes


@pytest.mark.parametrize("radius_rule, expect_hit", [("half", False), ("lowest", True)])
def test_fire_ship_explosion(radius_rule, expect_hit):
    """Ship 0 on (3,3) rolls 3 and 4: it sails east 7 squares to (3,10); an opponent carrier
    3 columns further, on (3,13), is inside radius 3 (lowest die) and outside radius 2 (half)."""
    rules = with_(load_hunt(None, ["fire-ship"]).rules, fire_ship={"radius": radius_rule})
    t = build_tables(rules, 2)
    pos = position(t, {0: (3, 3), 1: (0, 1), 3: (3, 13), 4: (11, 16)}, carrying={3: 0})
    assert invariant_broken(t, pos) == 0
    targets = np.zeros(16, dtype=np.int64)
    n = moves.fire_targets(t.P, np.stack([pos[0]] * 2), 0, pos[1], 0, 7, targets)
    assert N(t, 3, 10) in targets[:n] and N(t, 3, 13) not in targets[:n]
    radius = game.fire_radius(t.P, np.array([3, 4]))
    assert radius == (3 if radius_rule == "lowest" else 2)
    assert bool(moves.within_radius(t.P, N(t, 3, 13), N(t, 3, 10), radius)) is expect_hit
    assert not moves.within_radius(t.P, N(t, 0, 1), N(t, 3, 10), radius)


def test_one_two_rolls_again():
    t = build_tables(load_hunt(None, ["one-two"]).rules, 2)
    for dice, first, again in [((1, 2), True, True), ((2, 1), False, True), ((5, 6), True, False)]:
        assert bool(game.rolls_again(t.P, np.array(dice), first)) is again
    no_chain = build_tables(with_(t.rules, one_two={"chain": False}), 2)
    assert game.rolls_again(no_chain.P, np.array([1, 2]), True)
    assert not game.rolls_again(no_chain.P, np.array([1, 2]), False)
    assert not game.rolls_again(build_tables(STANDARD.rules, 2).P, np.array([1, 2]), True)


def test_devils_island_setup():
    sc = load_hunt(None, ["devils-island"])
    t = build_tables(sc.rules, 4)
    row, wreck = initial_position(t)
    anch = set(t.board.anchorage_nodes)
    for seat, ships in enumerate(t.seat_ships):
        where = [row[s] for s in ships]
        assert sum(n in anch for n in where) == 2
        assert sum(n in t.board.berth_nodes[t.seat_ports[seat][0]] for n in where) == 1
    assert len(set(row[:12])) == 12
    assert invariant_broken(t, (row, wreck)) == 0


def test_devils_island_needs_a_berth_for_every_ship_in_port(tmp_path):
    """More ships in port than berths used to start the extra ships sunk, silently."""
    from scenarios.loader import ScenarioError

    f = tmp_path / "devil.toml"
    f.write_text(
        'game = "hunt"\nrules_version = "x"\nextends = "standard"\nstart = "devil"\n'
        "ships_per_port = 5\ndevil_ships_in_port = 4\n"
    )
    with pytest.raises(ScenarioError) as exc:
        load_scenario(f, HuntRules)
    assert "devil_ships_in_port" in str(exc.value) and "allowed: 0..3" in str(exc.value)


@pytest.mark.parametrize(
    "variant, ports", [("enemy-kingdoms", [[1, 2], [4, 3]]), ("contrary-winds", [[1, 3], [2, 4]])]
)
def test_kingdoms_ports_and_goal(variant, ports):
    sc = load_hunt(None, [variant])
    t = build_tables(sc.rules, 2)
    assert [[t.board.port_numbers[p] for p in seat] for seat in t.seat_ports] == ports
    assert [len(s) for s in t.seat_ships] == [6, 6]
    # ship 3 of seat 0 started in its second port: carrying, it wins at that port's anchor only
    second, first = (t.board.anchor_node[p] for p in t.seat_ports[0][::-1])
    for anchor, wins in [(second, 1), (first, 0)]:
        berth = t.board.cells[t.board.berth_nodes[t.seat_ports[0][anchor == first]][0]][0]
        pos = position(t, {3: berth, 6: (9, 9)}, carrying={3: 0})
        assert after_step(t, pos, 0, leg(t, pos, 3, t.board.cells[anchor][0]))[1] == wins
    with pytest.raises(Exception, match="2 players"):
        build_tables(sc.rules, 4)


def test_double_board_two_treasures():
    sc = load_hunt(None, ["double-board"])
    t = build_tables(sc.rules, 8)
    row, _ = initial_position(t)
    assert list(row[48:]) == [0, 1] and len(t.ship_owner) == 24
    summary = play(sc, "runner", n=20, seed=3, players=6, check=True).summary
    assert summary["n_games"] == 20 and summary["players"] == 6


def test_api_tidy_table_and_summary():
    result = play(STANDARD, ["runner", "hunter"], n=20, seed=11, engine="python", check=True)
    games, summary = result.seats, result.summary
    check_seats_table(games)
    assert len(games) == 40 and set(games["seat"]) == {1, 2}
    assert games.groupby("game")["outcome"].apply(lambda o: (o == "win").sum()).le(1).all()
    for key in (
        "game",
        "rotation",
        "seat",
        "strategy",
        "outcome",
        "score",
        "stalemate",
        "turns",
        "sinkings",
        "ships_lost",
        "scenario_hash",
        "seed",
    ):
        assert key in games.columns
    assert summary["n_games"] == 20 and len(summary["seats"]) == 2
    assert set(summary["strategies"]) == {"runner", "hunter"}


def test_rotate_seats_balances_strategies():
    games = play(
        STANDARD, ["runner", "random"], n=10, seed=2, rotate_seats=True, engine="python"
    ).seats
    counts = games.groupby(["seat", "strategy"]).size()
    assert (counts == 5).all()


def test_same_seed_same_games_for_any_jobs_and_chunk_size():
    ra = play(
        STANDARD, ["runner", "hunter", "guard", "random"], n=250, seed=5, jobs=1, chunk_size=100
    )
    rb = play(
        STANDARD, ["runner", "hunter", "guard", "random"], n=250, seed=5, jobs=2, chunk_size=200
    )
    a, sa, b, sb = ra.seats, ra.summary, rb.seats, rb.summary
    pd.testing.assert_frame_equal(a, b)
    assert sa["seats"] == sb["seats"]


def test_cli_play_json_keys(tmp_path):
    r = CliRunner().invoke(
        cli,
        [
            "hunt",
            "play",
            "--players",
            "4",
            "--strategies",
            "runner,hunter,guard,random",
            "-n",
            "30",
            "--seed",
            "1",
            "--jobs",
            "1",
            "--format",
            "json",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert r.exit_code == 0, r.output
    obj = json.loads(r.output)
    for key in (
        "n_games",
        "seats",
        "strategies",
        "stalemate_rate",
        "turns",
        "sinkings_per_game",
        "seed",
        "provenance",
    ):
        assert key in obj
    assert obj["n_games"] == 30 and len(obj["seats"]) == 4
    assert {"win_rate", "ci95"} <= set(obj["seats"][0]) and {"win_rate", "ci95"} <= set(
        obj["strategies"]["hunter"]
    )
    assert set(obj["turns"]) == {"mean", "p50", "p90"}
    df = pd.read_parquet(tmp_path / "o" / "games.parquet")
    assert len(df) == 120 and (tmp_path / "o" / "games.csv").exists()


def test_cli_table_and_errors(capsys):
    from cli import main

    assert main(["hunt", "play", "-n", "5", "--seed", "1", "--jobs", "1"]) == 0
    assert "win_rate" in capsys.readouterr().out
    for args, needle in [
        (["--strategies", "runer"], "did you mean 'runner'"),
        (["--players", "6"], "allowed: 2, 3, 4"),
        (["--variant", "cyclon"], "did you mean 'cyclone'"),
        (["--strategies", "hunter:zeal=3"], "unknown parameter 'zeal'"),
        (["--players", "4", "--strategies", "runner,hunter,guard"], "3 given for 4 players"),
    ]:
        with pytest.raises(SystemExit) as exc:
            main(["hunt", "play", "-n", "2", "--jobs", "1", *args])
        out = capsys.readouterr()
        assert exc.value.code == 2 and out.out == "", args
        assert out.err.count("\n") == 1 and needle in out.err, (args, out.err)


def test_strategy_parameters_parse():
    p = make_player(STANDARD.rules, "hunter:sink=20:shadow=1.5")
    assert p.params["sink"] == 20 and p.params["shadow"] == 1.5 and p.name == "hunter"
    assert p.params["threat"] == 40 and p.params["fire"] is True  # the hunter kind's defaults
    assert make_player(STANDARD.rules, "hunter:fire=0").params["fire"] is False
    assert make_player(STANDARD.rules, "random:fire=0").kind == "random"


def test_every_ship_gone_is_a_draw():
    """Issue 14: a fire ship that destroys every ship left (its own included) ends the game as a
    draw ("all others are out" wins only for a player with a ship afloat). Seat 0's only ship
    sits on its anchor (0,0), where no straight line of open sea starts, so it explodes in
    place whatever the dice and takes seat 1's only ship on the berth (0,1) with it."""
    rules = with_(STANDARD.rules, fire_ship={"enabled": True})
    t = build_tables(rules, 2)
    pos = position(t, {0: (0, 0), 3: (0, 1)})
    assert invariant_broken(t, pos) == 0
    fire = make_player(rules, "random:fire=1")
    out = run_games(t, pos, [fire], np.zeros((5, 2)), np.random.default_rng(3), check=True)
    assert [game.END_CODES[e] for e in out[:, game.O_END]] == ["draw"] * 5
    assert (out[:, game.O_WINNER] == -1).all() and (out[:, game.O_EXPLOSIONS] == 1).all()
    assert (out[:, game.O_TURNS] == 1).all()


@pytest.mark.parametrize("engine, n", [("fast", 400), ("python", 20)])
def test_fleet_sink_one_games_keep_every_invariant(engine, n):
    """Issue 14: with ``fleet.sink = "one"`` the invariant checks failed in the first games
    (survivors shared the boarder's square); now whole games run clean, compiled and JIT off."""
    sc = load_hunt(None, ["fleet"])
    sc = dataclasses.replace(sc, rules=with_(sc.rules, fleet={"sink": "one"}))
    result = play(
        sc, ["hunter", "guard", "runner", "random"], n=n, seed=14, engine=engine, check=True
    )
    games, summary = result.seats, result.summary
    assert summary["n_games"] == n
    assert games["max_fleet"].max() >= 2 and games["ships_lost"].sum() > 0
