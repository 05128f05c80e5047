"""``hunt play --check``: every game under the engine's invariant checker, compiled or with the
JIT off; an illegal state stops the run with one line naming the game, the turn and the
invariant (exit 2)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hunt_support import invariant_broken, position

from cli import main
from scenarios.loader import load_scenario
from simulator.engine_mode import READABLE_ENV
from simulator.hunt import api, game
from simulator.hunt.game import INVARIANTS
from simulator.hunt.packed import build_tables
from simulator.hunt.players import make_player
from simulator.hunt.rules import HuntRules

STANDARD = load_scenario("standard", HuntRules)
ROOT = Path(__file__).resolve().parent.parent


def _planted(t):
    """One position (and the one before it) per invariant 1-8, each breaking that invariant
    only (base game, 2 players: seat 0 owns ships 0-2, seat 1 ships 3-5)."""
    ok = position(t, {0: (3, 3), 3: (9, 16)})

    def edit(pos, **cols):
        row, wreck = pos[0].copy(), pos[1].copy()
        for col, value in cols.items():
            (wreck if col.startswith("w") else row)[int(col[1:])] = value
        return row, wreck

    return {
        1: (edit(ok, r0=t.board.num_nodes), None),
        2: (ok, edit(ok, r0=-1)),  # ship 0 was sunk before
        3: (edit(ok, r7=0, r12=-1), None),  # sunk ship 1 carries the treasure
        4: (position(t, {0: (3, 3), 3: (3, 3)}), None),
        5: (position(t, {0: (3, 3), 1: (3, 3), 3: (9, 16)}), None),
        6: (edit(ok, r12=-1), None),
        7: (edit(ok, w5=1), None),
        8: (ok, edit(ok, w5=1)),  # a wreck vanished (the shipwreck variant below)
    }


def test_the_checker_names_each_invariant():
    t = build_tables(STANDARD.rules, 2)
    wrecks = build_tables(dataclasses.replace(STANDARD.rules, shipwreck=dataclasses.replace(
        STANDARD.rules.shipwreck, enabled=True)), 2)  # fmt: skip
    for code, (pos, before) in _planted(t).items():
        assert invariant_broken(wrecks if code == 8 else t, pos, before) == code
    assert invariant_broken(t, position(t, {0: (3, 3), 3: (9, 16)})) == 0
    assert len(INVARIANTS) == 8


def _readable_main(patch: str, args: list[str]) -> tuple[int, str, str]:
    """``main(args)`` in a process with the JIT off (``--engine python`` runs there), after
    ``patch`` (Python code) has changed the engine's plain functions."""
    code = f"import sys\n{patch}\nfrom cli import main\nsys.exit(main({args!r}))\n"
    env = {**os.environ, **READABLE_ENV}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    return proc.returncode, proc.stdout, proc.stderr


def illegal_start(t):
    """The set-up with seat 1's first ship on seat 0's first ship."""
    row, wreck = game.initial_position(t)
    row[len(t.seat_ships[0])] = row[0]
    return row, wreck


@pytest.mark.parametrize("engine", ["fast", "python"])
def test_check_stops_on_a_seeded_illegal_state(tmp_path, capsys, monkeypatch, engine):
    """A start position with ships of two players on one square (what a broken house rule could
    make): --check stops the run at the set-up (turn 0) of game 0, exit 2, one line on stderr,
    nothing on stdout and no files written. Compiled here; with the JIT off in a process of its
    own (a patch made here would not reach a worker)."""
    out_dir = tmp_path / "o"
    args = ["hunt", "play", "--jobs", "1", "--seed", "4", "--check", "--engine", engine]
    args += ["-n", "3", "--format", "json", "--out", str(out_dir)]
    if engine == "python":
        patch = "sys.path.insert(0, 'tests')\nfrom test_hunt_check import illegal_start\n"
        patch += "from simulator.hunt import api\napi.initial_position = illegal_start"
        code, out, err = _readable_main(patch, args)
    else:
        monkeypatch.setattr(api, "initial_position", illegal_start)
        with pytest.raises(SystemExit) as exc:
            main(args)
        code, (out, err) = exc.value.code, capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert "--check: game 0 (seed 4), turn 0: invariant 4 broken: " + INVARIANTS[3] in err
    assert not list(out_dir.glob("games.*")) and not (out_dir / "summary.json").exists()


def test_check_stops_mid_game_when_a_rule_is_broken():
    """A deliberately broken boarding rule (the boarded ship is not sunk), patched into the
    engine run with the JIT off (plain Python functions): the first boarding leaves two players
    on one square and --check names that game and turn."""
    patch = "from simulator.hunt import moves\n"
    patch += "moves.board_ships = lambda P, Z, S, r1, player, mode, ship, f, d, h: (-1, h)"
    args = ["hunt", "play", "--check", "--engine", "python", "--jobs", "1", "--seed", "4"]
    code, out, err = _readable_main(patch, args + ["--strategies", "hunter", "-n", "20"])
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "invariant 4 broken: " + INVARIANTS[3] in err, err
    assert int(err.split(", turn ")[1].split(":")[0]) > 0


def test_check_passes_on_clean_runs_and_is_in_the_json(capsys):
    import json

    for engine in ("fast", "python"):
        code = main(
            ["hunt", "play", "--jobs", "1", "--seed", "4", "-n", "6", "--check"]
            + ["--engine", engine, "--variant", "fleet", "--format", "json"]
        )
        assert code == 0
        assert json.loads(capsys.readouterr().out)["checked"] is True


def test_the_engine_starts_from_the_given_wrecks():
    rules = dataclasses.replace(
        STANDARD.rules, shipwreck=dataclasses.replace(STANDARD.rules.shipwreck, enabled=True)
    )
    t = build_tables(rules, 2)
    start = position(t, {0: (3, 3), 3: (9, 16)}, wrecks=[(0, 5), (0, 6)])
    out = game.run_games(
        t, start, [make_player(rules, "runner")], [[0, 0]], np.random.default_rng(1)
    )
    assert out[0, game.O_WRECKS] >= 2
