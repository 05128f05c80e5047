"""``broadside cove play --check``: every game under the invariant checker; an illegal state stops
the run with one line naming the game, the month and phase, and the invariant (exit 2)."""

from __future__ import annotations

import json

from simulator.cove.game import Game
from simulator.cove.players import HeuristicPlayer
from tests.test_cove_combat_cli import run

ARGS = ("play", "--players", "4", "--strategies", "plunderer,brawler,tavern,balanced")
#: the tests that patch the readable engine or players run it (the default is the compiled one)
PY_ARGS = (*ARGS, "--engine", "python")


def test_a_clean_run_under_the_checker_says_so():
    obj = json.loads(run(*ARGS, "-n", "6", "--seed", "3", "--check", "--format", "json").stdout)
    assert obj["invariants_checked"] is True and obj["n_games"] == 6
    plain = json.loads(run(*ARGS, "-n", "6", "--seed", "3", "--format", "json").stdout)
    assert plain["invariants_checked"] is False
    assert plain["strategies"] == obj["strategies"]  # the checker changes no result


def test_a_broken_rule_is_stopped_with_one_line(monkeypatch, tmp_path):
    def leaky_take_gold(self, seat, gold):  # a "house rule" that pays gold out of nowhere
        seat.gold += gold
        return gold

    monkeypatch.setattr(Game, "take_gold", leaky_take_gold)
    # without --check the run ends as if nothing happened
    assert run(*PY_ARGS, "-n", "2", "--seed", "1", "--jobs", "1").returncode == 0
    out = tmp_path / "o"
    proc = run(
        *PY_ARGS,
        "-n",
        "2",
        "--seed",
        "1",
        "--jobs",
        "1",
        "--check",
        "--out",
        str(out),
        "--format",
        "json",
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("broadside: error: illegal state in game 0: month ")
    assert ", phase " in line and "gold " in line and "!= 124" in line
    assert not (out / "seats.csv").exists()


def test_an_illegal_choice_is_stopped_with_one_line(monkeypatch):
    monkeypatch.setattr(HeuristicPlayer, "_navigate", lambda self, obs, legal: 9)
    proc = run(
        *PY_ARGS, "-n", "1", "--seed", "1", "--jobs", "1", "--check", "--rotate-seats", check=False
    )
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "illegal state in game 0 (rotation 0):" in line and "chose 9 for navigate" in line
