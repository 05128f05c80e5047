"""Throughput of Les Pirates games (base game, 4 players, ``runner`` in every seat).

Measures in one run: the engine compiled with 1 and with 2 jobs (``runner`` in every seat), with
the best player (``planner`` in every seat) and with the mixed table runner, hunter, guard,
random (2 jobs); and the same source run uncompiled (numba's JIT off, ``--engine python``) on a
small sample, in a process started with ``NUMBA_DISABLE_JIT=1`` (its start-up not timed). The
compiled functions are loaded (or compiled, first time only) and both workers started before
timing. ``--cold-compile`` also times the engine's compile into an empty ``NUMBA_CACHE_DIR`` (a
fresh process: import, compile, one game). Prints a table (engine, strategies, jobs, games,
seconds, games/s), the 1-minute load average before and after, then as its last line one JSON
object: ``games_per_s_1core`` and ``games_per_s_2jobs`` (compiled, runner in every seat),
``python_games_per_s`` (uncompiled, 1 job), ``speedup_vs_python`` (compiled 1 job over
uncompiled), ``planner_games_per_s_2jobs``, ``mix_games_per_s_2jobs``, ``cold_compile_s`` (null
without ``--cold-compile``), ``load_1min``. Usage::

    python benchmarks/hunt_game.py [-n GAMES] [--python-games N] [--cold-compile]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simulator.engine_mode import READABLE_ENV  # noqa: E402
from simulator.hunt.api import BLOCK_SIZE, load, play  # noqa: E402

RUNNER = "runner"
PLANNER = "planner"
MIX = ["runner", "hunter", "guard", "random"]


def timed(strategies, n, jobs, engine="fast"):
    """Seconds to play ``n`` games, and the summary."""
    chunk = min(2000, -(-n // BLOCK_SIZE) * BLOCK_SIZE)  # whole blocks
    t0 = time.perf_counter()
    summary = play(
        load(), strategies, n=n, players=4, seed=2024, jobs=jobs, engine=engine, chunk_size=chunk
    ).summary
    return time.perf_counter() - t0, summary


def uncompiled_rate(n: int) -> float:
    """Games per second of the engine run uncompiled, in a process with the JIT off."""
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]); import hunt_game as b\n"
        "b.timed(b.RUNNER, 1, 1, 'python')\n"  # imports, first game
        "dt, _ = b.timed(b.RUNNER, int(sys.argv[2]), 1, 'python'); print(json.dumps(dt))\n"
    )
    env = {**os.environ, **READABLE_ENV}
    out = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent), str(n)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return n / json.loads(out.strip().splitlines()[-1])


def cold_compile_s() -> float:
    """Seconds for a fresh process to import, compile the engine into an empty cache, play."""
    with tempfile.TemporaryDirectory() as cache:
        code = "from simulator.hunt.api import load, play; play(load(), 'runner', n=1, seed=1)"
        t0 = time.perf_counter()
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)
        return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=20000, help="games per compiled measurement")
    ap.add_argument("--python-games", type=int, default=20, help="games run uncompiled")
    ap.add_argument("--cold-compile", action="store_true", help="also time a cold compile")
    args = ap.parse_args()
    cold = cold_compile_s() if args.cold_compile else None
    load_before = os.getloadavg()[0]
    for strategies in (RUNNER, PLANNER, MIX):  # load or compile the numba functions first
        timed(strategies, 100, 1)
        timed(strategies, 400, 2)  # start and warm both loky workers
    rows = []
    dt1, s1 = timed(RUNNER, args.n, 1)
    rows.append(("fast", RUNNER, 1, args.n, dt1))
    dt2, s2 = timed(RUNNER, args.n, 2)
    rows.append(("fast", RUNNER, 2, args.n, dt2))
    dt_pl, _ = timed(PLANNER, args.n, 2)
    rows.append(("fast", PLANNER, 2, args.n, dt_pl))
    dt_mix, _ = timed(MIX, args.n, 2)
    rows.append(("fast", ",".join(MIX), 2, args.n, dt_mix))
    py_rate = uncompiled_rate(args.python_games)
    rows.append(("python", RUNNER, 1, args.python_games, args.python_games / py_rate))
    load_after = os.getloadavg()[0]
    print(f"{'engine':7} {'strategies':28} {'jobs':>4} {'games':>7} {'seconds':>8} {'games/s':>9}")
    for engine, strategies, jobs, n, dt in rows:
        print(f"{engine:7} {strategies:28} {jobs:>4} {n:>7} {dt:>8.2f} {n / dt:>9.1f}")
    print(
        f"mean turns per game {s1['turns']['mean']:.1f}; "
        f"same results 1 vs 2 jobs: {s1['seats'] == s2['seats']}; "
        f"load average (1 min) {load_before:.2f} before, {load_after:.2f} after"
        + (f"; cold compile {cold:.1f} s" if cold is not None else "")
    )
    print(
        json.dumps(
            {
                "games_per_s_1core": round(args.n / dt1, 1),
                "games_per_s_2jobs": round(args.n / dt2, 1),
                "python_games_per_s": round(py_rate, 2),
                "speedup_vs_python": round(args.n / dt1 / py_rate, 1),
                "planner_games_per_s_2jobs": round(args.n / dt_pl, 1),
                "mix_games_per_s_2jobs": round(args.n / dt_mix, 1),
                "cold_compile_s": None if cold is None else round(cold, 1),
                "load_1min": [round(load_before, 2), round(load_after, 2)],
            }
        )
    )


if __name__ == "__main__":
    main()
