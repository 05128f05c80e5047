"""Benchmark: full 4-player Pirate's Cove games on the one engine, compiled and readable.

``games_per_s_1core`` and ``games_per_s_2jobs`` are the compiled game (``engine="fast"``) on one
core and with ``--jobs`` workers (default 2), playing the scenario's default mix.
``speedup_vs_python`` is the compiled rate over the same source run by Python with numba's JIT
off (``engine="python"``: worker processes started with ``NUMBA_DISABLE_JIT=1``), both on one
core in the same run (the readable rate is the mean of a timing before and one after the compiled
one: the load drifts; small samples, it is about 1,000 times slower). The same run times the v1
baselines (``baseline_*``), the cost of better players per CPU-second (``players_speed_ratio``)
and a table with one search player (``rollout``). The last line is one JSON object;
``--rollout-games 0`` skips the search player's table (its ``rollout_*`` keys are then null).
Where the time goes inside the compiled code: ``benchmarks/cove_profile.py``.

    python benchmarks/cove_game.py [--games 8] [--fast-games 4000] [--v1-games 20000]
        [--jobs 2] [--rollout-games 40]

The machine's load average is printed with the figures: on a shared machine the throughput
scales down with it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scenarios.loader import load_scenario
from simulator.cove.api import play_games
from simulator.cove.rules import CoveRules

TARGET = 3000.0  # compiled games per second with 2 jobs (issue 28; floor 2000)
TARGET_FLOOR = 2000.0


def _warm(mix) -> int:
    """Run in each worker before timing: imports both engines and loads the compiled one from
    numba's cache (what a worker pays once)."""
    play_games(None, mix, len(mix), 2, seed=1, n_jobs=1, quiet=True, engine="fast")
    return os.getpid()


def _rate(scen, mix, n, jobs, seed, engine) -> tuple[float, float, float]:
    """Games per wall-clock second, wall seconds, and games per CPU-second of the process that
    plays them (this one when compiled; with the JIT off the games run in a worker process, whose
    CPU time this process does not see: there the wall rate stands for it, on an idle core)."""
    t, c = time.perf_counter(), time.process_time()
    _, _, summ = play_games(scen, mix, len(mix), n, seed=seed, n_jobs=jobs, engine=engine)
    assert summ["engine"] == engine
    dt, dc = time.perf_counter() - t, time.process_time() - c
    return n / dt, dt, (n / dc if engine == "fast" else n / dt)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=8, help="games per readable timing (JIT off)")
    ap.add_argument("--fast-games", type=int, default=4000, help="games per compiled timing")
    ap.add_argument("--v1-games", type=int, default=20000, help="compiled v1-mix games")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--rollout-games", type=int, default=40)
    args = ap.parse_args(argv)
    if args.rollout_games < 0:
        ap.error(
            f"--rollout-games must be >= 0 (0 skips the search player), got {args.rollout_games}"
        )

    scen = load_scenario(None, CoveRules)
    mix = list(scen.rules.default_mix)
    v1_mix = [f"{k}-v1" for k in mix]
    t = time.perf_counter()
    play_games(scen, mix, len(mix), 20, seed=1, n_jobs=1, quiet=False, engine="fast")
    first_fast = time.perf_counter() - t  # compile (said on stderr) or load from the cache
    play_games(scen, mix, len(mix), 2, seed=1, n_jobs=1, engine="python")  # start its worker
    # interleaved on one core: readable default mix, compiled, readable again (the load drifts)
    py_a, _, py_cpu_a = _rate(scen, mix, args.games, 1, args.seed, "python")
    fast1, tf1, fast_cpu = _rate(scen, mix, args.fast_games, 1, args.seed, "fast")
    py_b, _, py_cpu_b = _rate(scen, mix, args.games, 1, args.seed, "python")
    py_rate, py_cpu = (py_a + py_b) / 2, (py_cpu_a + py_cpu_b) / 2
    v1_fast1, tv1, v1_fast_cpu = _rate(scen, v1_mix, args.v1_games, 1, args.seed, "fast")
    v1_py, _, v1_py_cpu = _rate(scen, v1_mix, args.games, 1, args.seed, "python")
    roll_mix = [*mix[:-1], "rollout"]
    roll = troll = roll_cpu = None
    if args.rollout_games > 0:
        roll, troll, roll_cpu = _rate(scen, roll_mix, args.rollout_games, 1, args.seed, "fast")
    # start the worker pool first (loky keeps it), so the figure is throughput, not start-up
    t = time.perf_counter()
    Parallel(n_jobs=args.jobs)(delayed(_warm)(mix) for _ in range(2 * args.jobs))
    startup = time.perf_counter() - t
    many, tj, _ = _rate(scen, mix, args.fast_games, args.jobs, args.seed, "fast")
    v1_many, tv1j, _ = _rate(scen, v1_mix, args.v1_games, args.jobs, args.seed, "fast")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    speedup = fast1 / py_rate
    print("Pirate's Cove full games, 4 players, scenario standard")
    print(f"compiled engine (fast), the default mix: {','.join(mix)}")
    print(f"{'jobs':>6} {'games':>7} {'seconds':>9} {'games/s':>9}")
    print(f"{1:>6} {args.fast_games:>7} {tf1:>9.2f} {fast1:>9.1f}")
    print(
        f"{args.jobs:>6} {args.fast_games:>7} {tj:>9.2f} {many:>9.1f}   "
        f"(pool already started and the engine loaded in it; start-up {startup:.1f} s)"
    )
    print(
        f"first compiled call: {first_fast:.1f} s (a cold compile is said on stderr above); "
        f"one core: {fast_cpu:.1f} compiled games per CPU-second"
    )
    print(
        f"readable (JIT off), same mix, one core: {py_rate:.2f} games/s ({py_a:.1f} "
        f"before, {py_b:.1f} after the compiled timing): speedup_vs_python {speedup:.1f}x"
    )
    print(
        f"the v1 baselines ({','.join(v1_mix)}), compiled: {v1_fast1:.1f} games/s on one core "
        f"({tv1:.1f} s), {v1_many:.1f} with {args.jobs} jobs ({tv1j:.1f} s); readable "
        f"{v1_py:.1f} games/s: {v1_fast1 / v1_py:.1f}x"
    )
    print(f"load average (1 min) during the run: {load:.2f} on {os.cpu_count()} cores")
    print(
        f"cost of the better players, per CPU-second, readable: default mix "
        f"{py_cpu:.1f}, baselines {v1_py_cpu:.1f} ({py_cpu / v1_py_cpu:.3f}x); compiled: "
        f"{fast_cpu:.1f} and {v1_fast_cpu:.1f} ({fast_cpu / v1_fast_cpu:.3f}x)"
    )
    if roll is None:
        print("a search player: skipped (--rollout-games 0)")
    else:
        print(
            f"compiled, one core: {args.rollout_games} games with a search player "
            f"({','.join(roll_mix)}) in {troll:.1f} s: {roll:.2f} "
            f"games/s, {roll_cpu:.2f} per CPU-second"
        )

    print(
        json.dumps(
            {
                "benchmark": "cove_game",
                "players": 4,
                "engine": "fast (simulator.cove.fast compiled; python: the same source, JIT off)",
                "strategies": mix,
                "games": args.fast_games,
                "games_per_s_1core": round(fast1, 1),
                "games_per_s_2jobs": round(many, 1),
                "jobs": args.jobs,
                "games_per_cpu_s_1core": round(fast_cpu, 1),
                "speedup_vs_python": round(speedup, 1),
                "python_games_per_s_1core": round(py_rate, 1),
                "python_games": args.games,
                "first_fast_call_s": round(first_fast, 1),
                "pool_startup_s": round(startup, 1),
                "target_games_per_s_2jobs": TARGET,
                "target_floor_games_per_s_2jobs": TARGET_FLOOR,
                "target_met": many >= TARGET,
                "floor_met": many >= TARGET_FLOOR,
                "load_avg_1min": round(load, 2),
                "baseline_strategies": v1_mix,
                "baseline_games": args.v1_games,
                "baseline_games_per_s_1core": round(v1_fast1, 1),
                "baseline_games_per_s_2jobs": round(v1_many, 1),
                "baseline_python_games_per_s_1core": round(v1_py, 1),
                "baseline_speedup_vs_python": round(v1_fast1 / v1_py, 1),
                "players_speed_ratio": round(py_cpu / v1_py_cpu, 3),  # per CPU-second, python
                "players_speed_ratio_compiled": round(fast_cpu / v1_fast_cpu, 3),
                "rollout_strategies": roll_mix,
                "rollout_engine": "fast",
                "rollout_games": args.rollout_games,
                "rollout_games_per_s_1core": None if roll is None else round(roll, 2),
                "rollout_games_per_cpu_s_1core": None if roll is None else round(roll_cpu, 2),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
