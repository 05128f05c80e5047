"""Les Pirates whole-turn rules (set-up, seats, stalemate, cyclone, fire ship, one-two, kingdoms),
the Python API and the CLI."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from cli import cli
from scenarios.loader import load_scenario
from simulator.hunt.api import play
from simulator.hunt.game import (
    END_STALEMATE,
    check_state,
    cyclone_victim,
    explosion_victims,
    initial_state,
    play_game,
)
from simulator.hunt.moves import State, build_tables
from simulator.hunt.players import RandomPlayer, make_player
from simulator.hunt.rules import HuntRules
from simulator.hunt.variants import load_hunt
from simulator.protocol import check_seats_table

STANDARD = load_scenario("standard", HuntRules)


class ScriptedDice:
    """Stands in for the dice generator: the given faces first, then 3, 4, 3, 4..."""

    def __init__(self, faces):
        self.faces = list(faces)

    def integers(self, lo, hi, size):
        out = self.faces[:size] + [3 + (i % 2) for i in range(size - len(self.faces[:size]))]
        self.faces = self.faces[size:]
        return np.array(out)


class Recorder:
    """A player that takes the first option and remembers what it saw."""

    name = "first"

    def __init__(self, fire=None):
        self.seen = []
        self.fire = fire

    def choose(self, obs, options, rng):
        self.seen.append((obs.seat, obs.state))
        return 0

    def fire_ship(self, obs, rng):
        ship, self.fire = self.fire, None
        return ship

    def fire_target(self, obs, ship, targets, radius, rng):
        return 0


def N(t, r, c):
    return t.board.cell_node[(r, c)]


def test_setup_three_ships_on_berths():
    t = build_tables(STANDARD.rules, 4)
    st = initial_state(t, STANDARD.rules)
    for seat, ships in enumerate(t.seat_ships):
        assert len(ships) == 3
        port = t.seat_ports[seat][0]
        assert sorted(st.ship_node[s] for s in ships) == sorted(t.board.berth_nodes[port])
    assert st.treasure_island == (0,)
    check_state(t, st)


def test_seat_order_and_first_player():
    t = build_tables(STANDARD.rules, 4)
    assert [t.board.port_numbers[p[0]] for p in t.seat_ports] == [1, 2, 4, 3]
    t2 = build_tables(STANDARD.rules, 2)
    assert [t2.board.port_numbers[p[0]] for p in t2.seat_ports] == [1, 4]
    players = [Recorder() for _ in range(4)]
    play_game(
        t,
        dataclasses.replace(STANDARD.rules, max_turns=8),
        players,
        ScriptedDice([]),
        np.random.default_rng(0),
    )
    order = [seat for p in players for (seat, _) in p.seen]
    assert players[0].seen and sorted(order)[:2] == [0, 0]
    firsts = [min(i for i, p in enumerate(players) if p.seen and p.seen[0][1] is not None)]
    assert firsts == [0]


def test_stalemate_at_max_turns():
    rules = dataclasses.replace(STANDARD.rules, max_turns=7)
    t = build_tables(rules, 2)
    rec = play_game(
        t, rules, [Recorder(), Recorder()], np.random.default_rng(1), np.random.default_rng(2)
    )
    assert rec.end == END_STALEMATE and rec.turns == 7 and rec.winner == -1


def test_eliminated_player_is_skipped():
    rules = dataclasses.replace(STANDARD.rules, max_turns=6)
    t = build_tables(rules, 3)
    seen = []

    def hook(state, seat, dice, option):
        seen.append(seat)

    # seat 1 has no ships: play goes 0, 2, 0, 2...
    class Start:
        pass

    st = initial_state(t, rules)
    sunk = tuple(-1 if t.ship_owner[s] == 1 else n for s, n in enumerate(st.ship_node))
    from simulator.hunt import game as game_mod

    original = game_mod.initial_state
    try:
        game_mod.initial_state = lambda tt, rr: st._replace(ship_node=sunk)
        play_game(
            t,
            rules,
            [Recorder(), Recorder(), Recorder()],
            ScriptedDice([]),
            np.random.default_rng(0),
            on_turn=hook,
        )
    finally:
        game_mod.initial_state = original
    assert seen and 1 not in seen and seen[:4] == [0, 2, 0, 2]


def test_cyclone_triple_loses_the_farthest_ship():
    sc = load_hunt(None, ["cyclone"])
    t = build_tables(sc.rules, 2)
    st = initial_state(t, sc.rules)
    far = N(t, 9, 9)
    st = st._replace(ship_node=(far,) + st.ship_node[1:])
    assert cyclone_victim(t, st, 0) == 0
    rules = dataclasses.replace(sc.rules, max_turns=1)
    from simulator.hunt import game as game_mod

    original = game_mod.initial_state
    try:
        game_mod.initial_state = lambda tt, rr: st
        rec = play_game(
            t,
            rules,
            [Recorder(), Recorder()],
            ScriptedDice([5, 5, 5]),
            np.random.default_rng(0),
            check=True,
        )
    finally:
        game_mod.initial_state = original
    assert rec.cyclone_losses == 1 and rec.lost[0] == 1
    rec2 = play_game(
        t, rules, [Recorder(), Recorder()], ScriptedDice([5, 5, 4]), np.random.default_rng(0)
    )
    assert rec2.cyclone_losses == 0


@pytest.mark.parametrize("radius_rule, low, expect_hit", [("half", 3, False), ("lowest", 3, True)])
def test_fire_ship_explosion(radius_rule, low, expect_hit):
    sc = load_hunt(None, ["fire-ship"])
    rules = dataclasses.replace(
        sc.rules, max_turns=1, fire_ship=dataclasses.replace(sc.rules.fire_ship, radius=radius_rule)
    )
    t = build_tables(rules, 2)
    st0 = initial_state(t, rules)
    # seat 0 ship 0 at (3,3); the fire ship sails east low+4 = 7 squares to (3,10);
    # an opponent carrier 3 columns further at (3,13): inside radius 3, outside radius 2
    nodes = list(st0.ship_node)
    nodes[0] = N(t, 3, 3)
    nodes[3] = N(t, 3, 13)
    st = State(
        tuple(nodes), tuple(0 if s == 3 else -1 for s in range(len(nodes))), (-1,), frozenset()
    )
    check_state(t, st)
    from simulator.hunt import game as game_mod

    original = game_mod.initial_state
    try:
        game_mod.initial_state = lambda tt, rr: st

        class Aim(Recorder):
            def fire_target(self, obs, ship, targets, radius, rng):
                return targets.index(N(t, 3, 10))

        rec = play_game(
            t,
            rules,
            [Aim(fire=0), Recorder()],
            ScriptedDice([low, 4]),
            np.random.default_rng(0),
            check=True,
        )
    finally:
        game_mod.initial_state = original
    assert rec.explosions == 1
    assert rec.exploded == (1 if expect_hit else 0)
    assert rec.lost[0] == 1  # the fire ship itself
    victims = explosion_victims(t, st, N(t, 3, 10), 3)
    assert 3 in victims and 0 not in victims


def test_one_two_rolls_again():
    sc = load_hunt(None, ["one-two"])
    rules = dataclasses.replace(sc.rules, max_turns=1)
    t = build_tables(rules, 2)
    hooks = []
    rec = play_game(
        t,
        rules,
        [Recorder(), Recorder()],
        ScriptedDice([1, 2, 2, 1, 5, 6]),
        np.random.default_rng(0),
        on_turn=lambda s, seat, dice, o: hooks.append(dice),
    )
    assert hooks == [(1, 2), (2, 1), (5, 6)] and rec.rerolls == 2 and rec.turns == 1
    base = dataclasses.replace(STANDARD.rules, max_turns=1)
    hooks.clear()
    play_game(
        build_tables(base, 2),
        base,
        [Recorder(), Recorder()],
        ScriptedDice([1, 2, 5, 6]),
        np.random.default_rng(0),
        on_turn=lambda s, seat, dice, o: hooks.append(dice),
    )
    assert hooks == [(1, 2)]


def test_devils_island_setup():
    sc = load_hunt(None, ["devils-island"])
    t = build_tables(sc.rules, 4)
    st = initial_state(t, sc.rules)
    anch = set(t.board.anchorage_nodes)
    for seat, ships in enumerate(t.seat_ships):
        where = [st.ship_node[s] for s in ships]
        assert sum(n in anch for n in where) == 2
        assert sum(n in t.board.berth_nodes[t.seat_ports[seat][0]] for n in where) == 1
    assert len(set(st.ship_node)) == 12
    check_state(t, st)


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
    from simulator.hunt.moves import has_won

    st = initial_state(t, sc.rules)
    second = t.board.anchor_node[t.seat_ports[0][1]]
    first = t.board.anchor_node[t.seat_ports[0][0]]
    carrying = tuple(0 if s == 3 else -1 for s in range(12))
    at_second = st._replace(
        ship_node=st.ship_node[:3] + (second,) + st.ship_node[4:],
        carrying=carrying,
        treasure_island=(-1,),
    )
    at_first = st._replace(
        ship_node=st.ship_node[:3] + (first,) + st.ship_node[4:],
        carrying=carrying,
        treasure_island=(-1,),
    )
    assert has_won(t, at_second, 0) and not has_won(t, at_first, 0)
    with pytest.raises(Exception, match="2 players"):
        build_tables(sc.rules, 4)


def test_double_board_two_treasures():
    sc = load_hunt(None, ["double-board"])
    t = build_tables(sc.rules, 8)
    st = initial_state(t, sc.rules)
    assert st.treasure_island == (0, 1) and len(st.ship_node) == 24
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


def test_same_seed_same_games_for_any_jobs():
    ra = play(
        STANDARD, ["runner", "hunter", "guard", "random"], n=120, seed=5, jobs=1, chunk_size=40
    )
    rb = play(
        STANDARD, ["runner", "hunter", "guard", "random"], n=120, seed=5, jobs=2, chunk_size=40
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
    assert p.sink == 20 and p.shadow == 1.5 and p.name == "hunter"
    assert p.threat == 40 and p.fire is True  # the hunter kind's defaults
    assert make_player(STANDARD.rules, "hunter:fire=0").fire is False
    assert isinstance(make_player(STANDARD.rules, "random:fire=0"), RandomPlayer)


def test_every_ship_gone_is_a_draw_on_both_engines():
    """Issue 14: a fire ship that destroys every ship left (its own included) ends the game as a
    draw on both engines (the readable one used to score it a win for the mover). Seat 0's only
    ship sits on its anchor (0,0), where no straight line of open sea starts, so it explodes in
    place whatever the dice and takes seat 1's only ship on the berth (0,1) with it."""
    from hunt_support import position

    from simulator.hunt.fast.game import END_CODES, O_END, O_WINNER, run_games

    rules = dataclasses.replace(
        STANDARD.rules, fire_ship=dataclasses.replace(STANDARD.rules.fire_ship, enabled=True)
    )
    t = build_tables(rules, 2)
    st = position(t, {0: (0, 0), 3: (0, 1)})
    check_state(t, st)
    fire = RandomPlayer(name="random", fire=1.0)
    rng = np.random.default_rng(3)
    for _ in range(5):
        rec = play_game(t, rules, [fire, fire], rng, rng, check=True, start=st)
        assert (rec.end, rec.winner, rec.explosions, rec.turns) == ("draw", -1, 1, 1)
    out = run_games(t, rules, st, [fire], np.zeros((5, 2), dtype=np.int64), rng, check=True)
    assert [END_CODES[e] for e in out[:, O_END]] == ["draw"] * 5
    assert (out[:, O_WINNER] == -1).all()


@pytest.mark.parametrize("engine, n", [("fast", 400), ("python", 40)])
def test_fleet_sink_one_games_keep_every_invariant(engine, n):
    """Issue 14: with ``fleet.sink = "one"`` both engines' invariant checks failed in the first
    games (survivors shared the boarder's square); now whole games run clean."""
    sc = load_hunt(None, ["fleet"])
    rules = dataclasses.replace(sc.rules, fleet=dataclasses.replace(sc.rules.fleet, sink="one"))
    sc = dataclasses.replace(sc, rules=rules)
    result = play(
        sc, ["hunter", "guard", "runner", "random"], n=n, seed=14, engine=engine, check=True
    )
    games, summary = result.seats, result.summary
    assert summary["n_games"] == n
    assert games["max_fleet"].max() >= 2 and games["ships_lost"].sum() > 0
