"""Throughput of Les Pirates games (base game, 4 players: runner, hunter, guard, random).

Prints a table (engine, jobs, games, seconds, games/s), then as its last line one JSON object
``{"games_per_s_1core": ..., "games_per_s_2jobs": ...}`` for the compiled engine. The compiled
functions are loaded (or compiled, first time only) and both workers started before timing. Usage::

    python benchmarks/hunt_game.py [-n GAMES] [--python-games N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.hunt.api import load, play

STRATEGIES = ["runner", "hunter", "guard", "random"]


def timed(scenario, n, jobs, engine, chunk_size):
    t0 = time.perf_counter()
    summary = play(
        scenario, STRATEGIES, n=n, seed=2024, jobs=jobs, engine=engine, chunk_size=chunk_size
    ).summary
    dt = time.perf_counter() - t0
    return dt, summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=20000, help="games per compiled-engine measurement")
    ap.add_argument(
        "--python-games", type=int, default=100, help="games for the pure-Python reference"
    )
    args = ap.parse_args()
    sc = load()
    timed(sc, 50, 1, "fast", 50)  # load or compile the numba functions first
    timed(sc, 400, 2, "fast", 100)  # start and warm both loky workers (they are reused)
    rows = []
    dt_py, _ = timed(sc, args.python_games, 1, "python", 50)
    rows.append(("python", 1, args.python_games, dt_py))
    dt1, s1 = timed(sc, args.n, 1, "fast", 2000)
    rows.append(("fast", 1, args.n, dt1))
    dt2, s2 = timed(sc, args.n, 2, "fast", 2000)
    rows.append(("fast", 2, args.n, dt2))
    print(f"{'engine':8} {'jobs':>4} {'games':>7} {'seconds':>8} {'games/s':>9}")
    for engine, jobs, n, dt in rows:
        print(f"{engine:8} {jobs:>4} {n:>7} {dt:>8.2f} {n / dt:>9.1f}")
    print(
        f"mean turns per game {s1['turns']['mean']:.1f}; "
        f"same results 1 vs 2 jobs: {s1['seats'] == s2['seats']}"
    )
    print(
        json.dumps(
            {
                "games_per_s_1core": round(args.n / dt1, 1),
                "games_per_s_2jobs": round(args.n / dt2, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
