"""Wall time of ``broadside report`` at a size, cold (empty numba cache) and warm (cache filled).

Runs the real command line twice in fresh output folders with the same seed: first with
``NUMBA_CACHE_DIR`` pointing at an empty folder (every compiled engine is compiled: the first
run on a machine), then again with that folder filled (every later run). For each run it records
the wall time, the CPU time of the command and its workers, the CPU use (CPU seconds per wall
second per worker: 1.0 = every core busy the whole run), each section's wall time, and the
1-minute load average before the run (the machine is shared: quote the load beside the times).
The quick size must stay within 3 minutes warm and 5 minutes cold on 2 cores.

Prints a table, then as its last line one JSON object::

    {"size": "quick", "jobs": 2, "cold_s": ..., "warm_s": ..., "cold_cpu_use": ...,
     "warm_cpu_use": ..., "cold_limit_s": 300, "warm_limit_s": 180, "within_limits": true,
     "load_before": [...], "sections_warm_s": {...}, "sections_cold_s": {...}, "seed": "2026"}

Usage::

    python benchmarks/report.py [--size quick] [--jobs 2] [--seed 2026] [--game all] [--serial]
                                 [--no-cold]

``--serial`` also times a warm run with ``--jobs 1``: the ratio of the two warm wall times
(``speedup``) says whether the chunks keep the workers busy, whatever else loads the machine
(the CPU use alone cannot tell a busy machine from idle workers). ``--no-cold`` skips the cold
run and times one run on the project's own numba cache (its ``cold_*`` figures are null).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMITS = {"quick": (300, 180)}  # size -> (cold, warm) seconds on 2 cores


def run(size: str, jobs: int, seed: str, game: str, cache: Path | None, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if cache is not None:  # None: the project's own cache, as it stands
        env["NUMBA_CACHE_DIR"] = str(cache)
    cmd = [
        sys.executable,
        str(ROOT / "cli.py"),
        "report",
        "--size",
        size,
        "--seed",
        seed,
        "--jobs",
        str(jobs),
        "--game",
        game,
        "--out",
        str(out),
        "--quiet",
        "--format",
        "json",
    ]
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"report failed ({proc.returncode}): {proc.stderr[-2000:]}")
    summary = json.loads(proc.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "cpu_use": cpu / (wall * max(1, jobs)),
        "load_before": load,
        "sections": {
            s["key"]: round(s["wall_time_s"], 2)
            for s in summary["sections"]
            if s["wall_time_s"] is not None
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="quick")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", default="2026")
    ap.add_argument("--game", default="all")
    ap.add_argument("--serial", action="store_true", help="also a warm run with --jobs 1")
    ap.add_argument(
        "--no-cold",
        action="store_true",
        help="skip the cold run: one run on the project's own numba cache (warm once filled)",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="broadside-bench-") as tmp:
        tmp = Path(tmp)
        cache = None if args.no_cold else tmp / "numba-cache"
        if cache is not None:
            cache.mkdir()
        cold = (
            None
            if args.no_cold
            else run(args.size, args.jobs, args.seed, args.game, cache, tmp / "cold")
        )
        warm = run(args.size, args.jobs, args.seed, args.game, cache, tmp / "warm")
        serial = (
            run(args.size, 1, args.seed, args.game, cache, tmp / "serial") if args.serial else None
        )
    cold_limit, warm_limit = LIMITS.get(args.size, (None, None))
    print(f"{'run':6} {'wall s':>8} {'cpu s':>8} {'cpu use':>8} {'load':>6}  sections (s)")
    runs = ([("cold", cold)] if cold else []) + [("warm", warm)]
    runs += [("serial", serial)] if serial else []
    for name, r in runs:
        secs = ", ".join(f"{k} {v:.1f}" for k, v in r["sections"].items())
        print(
            f"{name:6} {r['wall_s']:>8.1f} {r['cpu_s']:>8.1f} {r['cpu_use']:>8.2f} "
            f"{r['load_before']:>6.2f}  {secs}"
        )
    within = (
        None
        if cold_limit is None or cold is None
        else bool(cold["wall_s"] <= cold_limit and warm["wall_s"] <= warm_limit)
    )
    if cold_limit is not None and cold is not None:
        print(f"limits on 2 cores: cold {cold_limit} s, warm {warm_limit} s; within: {within}")
    print(
        json.dumps(
            {
                "size": args.size,
                "jobs": args.jobs,
                "game": args.game,
                "seed": args.seed,
                "cold_s": None if cold is None else round(cold["wall_s"], 1),
                "warm_s": round(warm["wall_s"], 1),
                "cold_cpu_s": None if cold is None else round(cold["cpu_s"], 1),
                "warm_cpu_s": round(warm["cpu_s"], 1),
                "cold_cpu_use": None if cold is None else round(cold["cpu_use"], 3),
                "warm_cpu_use": round(warm["cpu_use"], 3),
                "cold_limit_s": cold_limit,
                "warm_limit_s": warm_limit,
                "within_limits": within,
                "load_before": [round(r["load_before"], 2) for r in (cold, warm) if r],
                "cores": os.cpu_count(),
                "sections_cold_s": None if cold is None else cold["sections"],
                "sections_warm_s": warm["sections"],
                **(
                    {
                        "serial_s": round(serial["wall_s"], 1),
                        "speedup": round(serial["wall_s"] / warm["wall_s"], 2),
                        "sections_serial_s": serial["sections"],
                        "load_serial": round(serial["load_before"], 2),
                    }
                    if serial
                    else {}
                ),
            }
        )
    )


if __name__ == "__main__":
    main()
