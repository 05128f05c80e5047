"""``broadside cove play --check``: every game under the invariant checker; an illegal state stops
the run with one line naming the game, the month and phase, and the invariant (exit 2): the
broken engines are the readable one patched (``tests/cove_readable/test_cove_play_check.py``)."""

from __future__ import annotations

import json

from tests.test_cove_combat_cli import run

ARGS = ("play", "--players", "4", "--strategies", "plunderer,brawler,tavern,balanced")


def test_a_clean_run_under_the_checker_says_so():
    obj = json.loads(run(*ARGS, "-n", "6", "--seed", "3", "--check", "--format", "json").stdout)
    assert obj["invariants_checked"] is True and obj["n_games"] == 6
    plain = json.loads(run(*ARGS, "-n", "6", "--seed", "3", "--format", "json").stdout)
    assert plain["invariants_checked"] is False
    assert plain["strategies"] == obj["strategies"]  # the checker changes no result
