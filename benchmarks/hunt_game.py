"""Throughput of Les Pirates games (base game, 4 players, ``runner`` in every seat).

Measures in one run: the readable Python engine (1 job), the compiled engine with 1 and with 2
jobs (``runner`` in every seat), the compiled engine with the best player (``planner`` in every
seat) and with the mixed table runner, hunter, guard, random (2 jobs). The compiled functions
are loaded (or compiled, first time only) and both workers started before timing. Prints a
table (engine, strategies, jobs, games, seconds, games/s), the 1-minute load average before and
after, then as its last line one JSON object: ``games_per_s_1core`` and ``games_per_s_2jobs``
(compiled, runner in every seat), ``python_games_per_s``, ``speedup_1core_vs_python`` (same
run), ``planner_games_per_s_2jobs``, ``mix_games_per_s_2jobs``, ``load_1min``. Usage::

    python benchmarks/hunt_game.py [-n GAMES] [--python-games N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.hunt.api import load, play

RUNNER = "runner"
PLANNER = "planner"
MIX = ["runner", "hunter", "guard", "random"]


def timed(scenario, strategies, n, jobs, engine, chunk_size):
    t0 = time.perf_counter()
    summary = play(
        scenario,
        strategies,
        n=n,
        players=4,
        seed=2024,
        jobs=jobs,
        engine=engine,
        chunk_size=chunk_size,
    ).summary
    return time.perf_counter() - t0, summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=20000, help="games per compiled-engine measurement")
    ap.add_argument(
        "--python-games", type=int, default=200, help="games for the pure-Python reference"
    )
    args = ap.parse_args()
    sc = load()
    load_before = os.getloadavg()[0]
    for strategies in (RUNNER, PLANNER, MIX):  # load or compile the numba functions first
        timed(sc, strategies, 40, 1, "fast", 40)
        timed(sc, strategies, 400, 2, "fast", 100)  # start and warm both loky workers
    timed(sc, RUNNER, 10, 1, "python", 10)
    rows = []
    dt_py, _ = timed(sc, RUNNER, args.python_games, 1, "python", 50)
    rows.append(("python", RUNNER, 1, args.python_games, dt_py))
    dt1, s1 = timed(sc, RUNNER, args.n, 1, "fast", 2000)
    rows.append(("fast", RUNNER, 1, args.n, dt1))
    dt2, s2 = timed(sc, RUNNER, args.n, 2, "fast", 2000)
    rows.append(("fast", RUNNER, 2, args.n, dt2))
    dt_pl, _ = timed(sc, PLANNER, args.n, 2, "fast", 2000)
    rows.append(("fast", PLANNER, 2, args.n, dt_pl))
    dt_mix, _ = timed(sc, MIX, args.n, 2, "fast", 2000)
    rows.append(("fast", ",".join(MIX), 2, args.n, dt_mix))
    load_after = os.getloadavg()[0]
    print(f"{'engine':7} {'strategies':28} {'jobs':>4} {'games':>7} {'seconds':>8} {'games/s':>9}")
    for engine, strategies, jobs, n, dt in rows:
        print(f"{engine:7} {strategies:28} {jobs:>4} {n:>7} {dt:>8.2f} {n / dt:>9.1f}")
    print(
        f"mean turns per game {s1['turns']['mean']:.1f}; "
        f"same results 1 vs 2 jobs: {s1['seats'] == s2['seats']}; "
        f"load average (1 min) {load_before:.2f} before, {load_after:.2f} after"
    )
    py_rate = args.python_games / dt_py
    print(
        json.dumps(
            {
                "games_per_s_1core": round(args.n / dt1, 1),
                "games_per_s_2jobs": round(args.n / dt2, 1),
                "python_games_per_s": round(py_rate, 1),
                "speedup_1core_vs_python": round(args.n / dt1 / py_rate, 1),
                "planner_games_per_s_2jobs": round(args.n / dt_pl, 1),
                "mix_games_per_s_2jobs": round(args.n / dt_mix, 1),
                "load_1min": [round(load_before, 2), round(load_after, 2)],
            }
        )
    )


if __name__ == "__main__":
    main()
