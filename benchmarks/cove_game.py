"""Benchmark: full 4-player Pirate's Cove games with the default strategy mix.

Prints games per second on one core and with ``--jobs`` workers (default 2), then a cProfile
summary of where the time goes (top functions by own time, and own time by module), and as its
last line one JSON object with ``games_per_s_1core`` and ``games_per_s_2jobs`` (the default
mix). The same run also times, on one core, the issue-13 baselines (the ``*-v1`` mix: the cost of
better players, ``players_speed_ratio``) and a table with one search player (``rollout`` in the
last seat: ``rollout_games_per_s_1core``).

    python benchmarks/cove_game.py [--games 2000] [--jobs 2] [--profile-games 200]
        [--rollout-games 40]

The machine's load average is printed with the figures: on a shared machine the throughput
scales down with it.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scenarios.loader import load_scenario
from simulator.cove.api import play_games
from simulator.cove.rules import CoveRules

TARGET = 1000.0  # games per second with 2 jobs (issue 4)


def _warm() -> int:
    """Run in each worker before timing: imports the engine (what a worker pays once)."""
    import simulator.cove.api  # noqa: F401

    return os.getpid()


def _rate(scen, mix, n, jobs, seed) -> tuple[float, float, float]:
    """Games per wall-clock second, wall seconds, and games per CPU-second of this process."""
    t, c = time.perf_counter(), time.process_time()
    play_games(scen, mix, len(mix), n, seed=seed, n_jobs=jobs, quiet=True)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    return n / dt, dt, n / dc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="games per throughput measurement")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--profile-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--rollout-games", type=int, default=40)
    args = ap.parse_args(argv)

    scen = load_scenario(None, CoveRules)
    mix = list(scen.rules.default_mix)
    play_games(scen, mix, len(mix), 20, seed=1, n_jobs=1)  # warm caches and imports

    v1_mix = [f"{k}-v1" for k in mix]
    play_games(scen, v1_mix, len(v1_mix), 20, seed=1, n_jobs=1)
    # interleaved on one core: baselines, default mix, baselines again (load drifts)
    v1_a, _, v1_cpu_a = _rate(scen, v1_mix, args.games, 1, args.seed)
    one, t1, one_cpu = _rate(scen, mix, args.games, 1, args.seed)
    v1_b, _, v1_cpu_b = _rate(scen, v1_mix, args.games, 1, args.seed)
    v1_rate, v1_cpu = (v1_a + v1_b) / 2, (v1_cpu_a + v1_cpu_b) / 2
    roll_mix = [*mix[:-1], "rollout"]
    roll, troll, roll_cpu = _rate(scen, roll_mix, args.rollout_games, 1, args.seed)
    # start the worker pool first (loky keeps it), so the figure is throughput, not start-up
    t = time.perf_counter()
    Parallel(n_jobs=args.jobs)(delayed(_warm)() for _ in range(2 * args.jobs))
    startup = time.perf_counter() - t
    many, tj, _ = _rate(scen, mix, args.games, args.jobs, args.seed)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Pirate's Cove full games, 4 players ({','.join(mix)}), scenario standard")
    print(f"{'jobs':>6} {'games':>7} {'seconds':>9} {'games/s':>9}")
    print(f"{1:>6} {args.games:>7} {t1:>9.2f} {one:>9.1f}")
    print(
        f"{args.jobs:>6} {args.games:>7} {tj:>9.2f} {many:>9.1f}   "
        f"(pool already started; start-up {startup:.1f} s)"
    )
    print(
        f"load average (1 min) during the run: {load:.2f} on {os.cpu_count()} cores; "
        f"one core: {one_cpu:.1f} games per CPU-second (what an idle core would give)"
    )
    print(
        f"one core, same run: baselines ({','.join(v1_mix)}) {v1_rate:.1f} games/s "
        f"({v1_a:.1f} before, {v1_b:.1f} after), {v1_cpu:.1f} per CPU-second; default mix "
        f"{one:.1f} games/s, {one_cpu:.1f} per CPU-second: {one_cpu / v1_cpu:.3f}x the "
        "baselines' rate per CPU-second"
    )
    print(
        f"one core: {args.rollout_games} games with a search player ({','.join(roll_mix)}) "
        f"in {troll:.1f} s: {roll:.2f} games/s, {roll_cpu:.2f} per CPU-second"
    )

    prof = cProfile.Profile()
    prof.enable()
    play_games(scen, mix, len(mix), args.profile_games, seed=args.seed, n_jobs=1, quiet=True)
    prof.disable()
    stats = pstats.Stats(prof)
    total = stats.total_tt
    by_module: dict[str, float] = defaultdict(float)
    for (file, _line, _fn), (_cc, _nc, tt, _ct, _callers) in stats.stats.items():
        name = Path(file).stem if file.startswith(("/", ".")) else file
        if "/simulator/cove/" in file:
            name = "cove." + Path(file).stem
        elif "numpy" in file:
            name = "numpy"
        elif file.startswith(("~", "<")):
            name = "builtins"
        by_module[name] += tt
    print(
        f"\nprofile of {args.profile_games} games on one core ({total:.2f} s under cProfile): "
        "own time by module"
    )
    for name, tt in sorted(by_module.items(), key=lambda kv: -kv[1])[:10]:
        print(f"  {name:<28} {tt:7.2f} s  {100 * tt / total:5.1f}%")
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(12)
    lines = [ln for ln in buf.getvalue().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls"))
    print("\ntop functions by own time:")
    for ln in lines[start : start + 13]:
        print("  " + ln.strip())

    print(
        json.dumps(
            {
                "benchmark": "cove_game",
                "players": 4,
                "strategies": mix,
                "games": args.games,
                "games_per_s_1core": round(one, 1),
                "games_per_s_2jobs": round(many, 1),
                "jobs": args.jobs,
                "games_per_cpu_s_1core": round(one_cpu, 1),
                "pool_startup_s": round(startup, 1),
                "target_games_per_s_2jobs": TARGET,
                "target_met": many >= TARGET,
                "engine": "scalar plain Python (game, players, battle.resolve_battle)",
                "load_avg_1min": round(load, 2),
                "baseline_strategies": v1_mix,
                "baseline_games_per_s_1core": round(v1_rate, 1),
                "baseline_games_per_cpu_s_1core": round(v1_cpu, 1),
                "players_speed_ratio": round(one_cpu / v1_cpu, 3),  # per CPU-second
                "rollout_strategies": roll_mix,
                "rollout_games": args.rollout_games,
                "rollout_games_per_s_1core": round(roll, 2),
                "rollout_games_per_cpu_s_1core": round(roll_cpu, 2),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
