"""``hunt play --check``: every game under the invariant checker, on either engine; an illegal
state stops the run with one line naming the game, the turn and the invariant (exit 2)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hunt_support import position

from cli import main
from scenarios.loader import load_scenario
from simulator.hunt import api, moves
from simulator.hunt.fast import game as fast_game
from simulator.hunt.fast import packed
from simulator.hunt.game import INVARIANTS, IllegalState, check_state
from simulator.hunt.moves import State, build_tables
from simulator.hunt.rules import HuntRules

STANDARD = load_scenario("standard", HuntRules)


def _planted(t):
    """One state per invariant 1-7, each breaking that invariant only (base game, 2 players:
    seat 0 owns ships 0-2, seat 1 ships 3-5)."""
    ok = position(t, {0: (3, 3), 3: (9, 16)})
    bad_node = ok._replace(ship_node=(t.board.num_nodes,) + ok.ship_node[1:])
    return {
        1: (bad_node, None),
        2: (ok, ok._replace(ship_node=(-1,) + ok.ship_node[1:])),  # ship 0 was sunk before
        3: (ok._replace(carrying=(-1, 0) + ok.carrying[2:], treasure_island=(-1,)), None),
        4: (position(t, {0: (3, 3), 3: (3, 3)}), None),
        5: (position(t, {0: (3, 3), 1: (3, 3), 3: (9, 16)}), None),
        6: (ok._replace(treasure_island=(-1,)), None),
        7: (ok._replace(wrecks=frozenset({5})), None),
    }


def test_both_checkers_name_the_same_invariant():
    t = build_tables(STANDARD.rules, 2)
    A, P = packed.pack(t, STANDARD.rules)
    for code, (st, before) in _planted(t).items():
        with pytest.raises(IllegalState) as exc:
            check_state(t, st, before)
        assert exc.value.code == code and INVARIANTS[code - 1] in str(exc.value)
        node, carry, tre, wreck = packed.initial_arrays(t, st)
        prev = node if before is None else np.array(before.ship_node, dtype=np.int64)
        assert fast_game.check_state(A, P, node, carry, tre, wreck, prev) == code
    good = position(t, {0: (3, 3), 3: (9, 16)})
    check_state(t, good)
    node, carry, tre, wreck = packed.initial_arrays(t, good)
    assert fast_game.check_state(A, P, node, carry, tre, wreck, node) == 0
    with pytest.raises(IllegalState) as exc:  # python only: the compiled wreck array only grows
        check_state(t, good, good._replace(wrecks=frozenset({5})))
    assert exc.value.code == 8


def _run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(["hunt", "play", "--jobs", "1", "--seed", "4", *args])
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


@pytest.mark.parametrize("engine", ["fast", "python"])
def test_check_stops_on_a_seeded_illegal_state(monkeypatch, capsys, tmp_path, engine):
    """A start position with ships of two players on one square (what a broken house rule could
    make): --check stops the run at the set-up (turn 0) of game 0, exit 2, one line on stderr,
    nothing on stdout and no files written."""

    def illegal_start(t, rules):
        st = api.__dict__["_real_initial_state"](t, rules)
        node = list(st.ship_node)
        node[len(t.seat_ships[0])] = node[0]  # seat 1's first ship onto seat 0's first ship
        return st._replace(ship_node=tuple(node))

    monkeypatch.setattr(api, "_real_initial_state", api.initial_state, raising=False)
    monkeypatch.setattr(api, "initial_state", illegal_start)
    out_dir = tmp_path / "o"
    code, out, err = _run(
        capsys, "--check", "--engine", engine, "-n", "3", "--format", "json", "--out", str(out_dir)
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert "--check: game 0 (seed 4), turn 0: invariant 4 broken: " + INVARIANTS[3] in err
    assert not list(out_dir.glob("games.*")) and not (out_dir / "summary.json").exists()


def test_check_stops_mid_game_when_a_rule_is_broken(monkeypatch, capsys):
    """A deliberately broken boarding rule (the boarded ship is not sunk) in the readable engine:
    the first boarding leaves two players on one square and --check names that game and turn."""
    real = moves.apply_step

    def no_sinking(t, st, player, step):
        after = real(t, st, player, step)
        lost = [s for s in range(len(st.ship_node)) if st.ship_node[s] >= 0 > after.ship_node[s]]
        if not lost:
            return after
        node = list(after.ship_node)
        for s in lost:
            node[s] = st.ship_node[s]
        return after._replace(ship_node=tuple(node), carrying=st.carrying)

    monkeypatch.setattr(moves, "apply_step", no_sinking)
    code, out, err = _run(
        capsys, "--check", "--engine", "python", "--strategies", "hunter", "-n", "20"
    )
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "invariant 4 broken: " + INVARIANTS[3] in err or "invariant 6" in err, err
    turn = int(err.split(", turn ")[1].split(":")[0])
    assert turn > 0


def test_check_passes_on_clean_runs_and_is_in_the_json(capsys):
    import json

    for engine in ("fast", "python"):
        code = main(
            ["hunt", "play", "--jobs", "1", "--seed", "4", "-n", "6", "--check"]
            + ["--engine", engine, "--variant", "fleet", "--format", "json"]
        )
        assert code == 0
        assert json.loads(capsys.readouterr().out)["checked"] is True


def test_compiled_engine_starts_from_the_given_wrecks():
    rules = dataclasses.replace(
        STANDARD.rules, shipwreck=dataclasses.replace(STANDARD.rules.shipwreck, enabled=True)
    )
    t = build_tables(rules, 2)
    st = State(*position(t, {0: (3, 3), 3: (9, 16)})[:3], frozenset({7, 8}))
    out = fast_game.run_games(
        t, rules, st, [api.make_player(rules, "runner")], [[0, 0]], np.random.default_rng(1)
    )
    assert out[0, fast_game.O_WRECKS] >= 2
