"""Every script in ``benchmarks/`` runs, at a tiny size (issue 28, "Benchmarks that run").

A benchmark prints a table and, as its last line, one JSON object; its figures are never asserted
(speed is measured by running the scripts, not by timed tests). Here each script runs once at a
size that exercises all of its code paths in a few seconds, so a benchmark that no longer runs
(a renamed function, a chunk size the runner refuses) fails CI instead of the next person who
measures.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: script -> the arguments of its tiny run
TINY = {
    # cold compile needs an empty cache: the battle kernel, the smallest engine (about 13 s)
    "compile_cold.py": ["--engines", "cove_kernel", "--no-warm"],
    "cove_combat.py": ["--batch", "2000", "--scalar", "50", "--repeat", "1"],
    "cove_company.py": ["--games", "2", "--repeat", "1"],
    "cove_game.py": ["--games", "1", "--fast-games", "40", "--v1-games", "40"]
    + ["--jobs", "1", "--rollout-games", "1"],
    "cove_lone.py": ["--games", "2", "--repeat", "1"],
    "cove_memory.py": ["--small", "20", "--large", "40"],
    "cove_profile.py": ["--games", "2", "--repeat", "1"],
    "express_battle.py": ["--n", "400"],
    "hunt_game.py": ["-n", "400", "--python-games", "2"],
    "hunt_player_table.py": ["-n", "8", "--jobs", "1", "--kinds", "runner,planner"],
    "hunt_tune_planner.py": ["-n", "8", "--passes", "1", "--jobs", "1"],
    # the smallest report on the project's cache (compile_cold.py above times a cold compile)
    "report.py": ["--size", "test", "--game", "hunt", "--jobs", "1", "--no-cold"],
    "scaling.py": ["-n", "400", "--repeat", "1"],
    "tune.py": ["--budgets", "2000", "--games", "toy"],
}


def test_every_benchmark_has_a_tiny_run():
    assert sorted(TINY) == sorted(p.name for p in (ROOT / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("script", sorted(TINY))
def test_the_benchmark_runs_and_ends_with_one_json_object(script, tmp_path):
    res = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *TINY[script]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    last = res.stdout.strip().splitlines()[-1]
    assert isinstance(json.loads(last), dict), last
