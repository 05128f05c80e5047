"""``broadside cove play --check`` on a broken engine: the readable engine patched (a "house
rule" that pays gold out of nowhere, a player answering an illegal island) is stopped with one
line naming the game, the month and phase, and the invariant or the illegal choice (exit 2, no
tables written). The clean run: ``tests/test_cove_play_check.py``."""

from __future__ import annotations

import pytest

from simulator.cove import api
from simulator.cove.fast import game, players
from simulator.cove.fast.packed import S_GOLD
from tests.test_cove_combat_cli import run

ARGS = ("play", "--players", "4", "--strategies", "plunderer,brawler,tavern,balanced")


@pytest.fixture(autouse=True)
def _no_compile(monkeypatch):
    """The readable engine has nothing to compile: the run skips the compile step (the api's own
    stepping aside with the JIT off makes this a no-op)."""
    monkeypatch.setattr(api, "compiled_engine", lambda: None)


def test_a_broken_rule_is_stopped_with_one_line(monkeypatch, tmp_path):
    def leaky_take_gold(g, st, seat, gold):  # gold paid out of nowhere: the bank keeps it all
        st[seat, S_GOLD] += gold
        return gold

    monkeypatch.setattr(game, "_take_gold", leaky_take_gold)
    # without --check the run ends as if nothing happened
    assert run(*ARGS, "-n", "2", "--seed", "1", "--jobs", "1").returncode == 0
    out = tmp_path / "o"
    proc = run(
        *ARGS, "-n", "2", "--seed", "1", "--jobs", "1", "--check", "--out", str(out),
        "--format", "json", check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("broadside: error: illegal state in game 0: month ")
    assert ", phase " in line and "gold " in line and "!= 124" in line
    assert not (out / "seats.csv").exists()


def test_an_illegal_choice_is_stopped_with_one_line(monkeypatch):
    monkeypatch.setattr(players, "navigate", lambda tab, gs, oc, seat, *scratch: 9)
    proc = run(
        *ARGS, "-n", "1", "--seed", "1", "--jobs", "1", "--check", "--rotate-seats", check=False
    )
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "illegal state in game 0 (rotation 0):" in line and "chose 9 for navigate" in line
