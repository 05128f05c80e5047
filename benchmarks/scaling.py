"""\
Scaling of one job across backends: loky with 1 and 2 jobs, and a local Dask cluster of 2 workers.

The same seeded job (by default Les Pirates games with the compiled engine, 4 scripted players; or
``--task volley``: Monte Carlo volleys of ``broadside odds volley``) runs three ways through
:func:`simulator.runner.run_chunks`:

* ``loky_1``  in-process, one core;
* ``loky_2``  two loky worker processes;
* ``dask_2``  a ``dask.distributed`` LocalCluster on 127.0.0.1, two worker processes of one thread,
  reached through joblib's Dask backend exactly as ``--backend dask --scheduler ADDRESS`` does.

Each pool is warmed up first (every worker has run a chunk: process start, imports, compiled
functions), then the three run interleaved ``--repeat`` times and the best time of each is kept, so
the figures are steady-state throughput even on a shared machine. Results must be identical
across the three (checked and printed). Prints a table, then as its last line one JSON object:
runs per second ``loky_1``, ``loky_2``, ``dask_2`` and the parallel efficiencies (throughput /
(workers x loky_1)), and ``pool_start_s``: what starting two loky workers costs before their
first chunks run (the runner's ``WORKER_START_S``, below which a run stays in its process).
Usage::

    python benchmarks/scaling.py [--task hunt|volley] [-n N] [--chunk-size C] [--repeat R]
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator import checkpoint
from simulator.runner import execution, run_chunks

SEED = 2024


def _job(task: str):
    """(chunk task, default n, default chunk size, unit) for a task name."""
    if task == "hunt":
        from simulator.hunt.api import _chunk, load, resolve_strategies

        rules = load().rules
        players, specs = resolve_strategies(rules, ["runner", "hunter", "guard", "random"], None)
        fn = functools.partial(
            _chunk,
            rules=rules,
            players=players,
            specs=specs,
            rotate=False,
            check=False,
        )
        return fn, 2_000, 100, "games"
    if task == "volley":
        from simulator.odds import _volley_chunk

        fn = functools.partial(_volley_chunk, dice_n=5, hit_on=5, reroll=2, extra=1)
        return fn, 4_000_000, 50_000, "volleys"
    raise SystemExit(f"unknown --task {task!r} (allowed: hunt, volley)")


def _pid_after(chunk, fn):
    fn(chunk)
    return os.getpid()


def _warm_up(fn, workers: int, chunk: int, **kw) -> None:
    """Run small chunks until every worker process has run at least one (imports, compiled code)."""
    task = functools.partial(_pid_after, fn=fn)
    for _ in range(20):
        pids = set(run_chunks(task, 8 * chunk, seed=1, chunk_size=chunk, quiet=True, **kw).results)
        if len(pids) >= workers:
            return


def _timed(fn, n: int, chunk: int, **kw) -> tuple[float, list]:
    t0 = time.perf_counter()
    run = run_chunks(fn, n, seed=SEED, chunk_size=chunk, quiet=True, **kw)
    return time.perf_counter() - t0, run.results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="hunt", choices=("hunt", "volley"))
    ap.add_argument("-n", type=int, default=None, help="runs (games or volleys) per measurement")
    ap.add_argument("--chunk-size", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per backend (best is kept)")
    args = ap.parse_args()
    fn, n, chunk, unit = _job(args.task)
    n = args.n or n
    chunk = args.chunk_size or chunk
    warm_chunk = max(1, chunk // 20)

    from dask.distributed import LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    configs = {  # name -> (workers, run_chunks keywords); dask: the command's client, kept open
        "loky_1": (1, {"n_jobs": 1, "backend": "loky"}),
        "loky_2": (2, {"n_jobs": 2, "backend": "loky"}),
        "dask_2": (2, {}),
    }
    best: dict[str, float] = {}
    warm_s: dict[str, float] = {}
    results: dict[str, list] = {}
    try:
        with execution(backend="dask", scheduler=cluster.scheduler_address):
            for name, (workers, kw) in configs.items():
                t0 = time.perf_counter()
                _warm_up(fn, workers, warm_chunk, **kw)  # processes started, imports, compiled code
                warm_s[name] = time.perf_counter() - t0
            for _ in range(args.repeat):  # interleaved, best of: the machine may be shared
                for name, (_, kw) in configs.items():
                    dt, res = _timed(fn, n, chunk, **kw)
                    best[name] = min(best.get(name, float("inf")), dt)
                    results[name] = res
    finally:
        cluster.close(timeout=30)
    t1, t2, td = best["loky_1"], best["loky_2"], best["dask_2"]
    r1, r2, rd = results["loky_1"], results["loky_2"], results["dask_2"]

    same = all(checkpoint.same(a, b) and checkpoint.same(a, c) for a, b, c in zip(r1, r2, rd))
    rows = [("loky", 1, t1), ("loky", 2, t2), ("dask", 2, td)]
    base = n / t1
    print(f"task {args.task}: {n} {unit}, chunks of {chunk}, seed {SEED}, best of {args.repeat}")
    print(f"{'backend':8} {'workers':>7} {'seconds':>8} {unit + '/s':>12} {'efficiency':>10}")
    for backend, workers, dt in rows:
        rate = n / dt
        print(f"{backend:8} {workers:>7} {dt:>8.2f} {rate:>12.1f} {rate / (workers * base):>10.2f}")
    print(f"identical results across the three: {same}")
    # starting two loky workers: the warm-up of loky_2 (its first chunks, on a pool started for
    # it) less that of loky_1 (the same chunks in this process, engine already loaded)
    pool_start = max(0.0, warm_s["loky_2"] - warm_s["loky_1"])
    print(
        f"starting 2 loky workers (imports, compiled engine loaded) and their first chunks: "
        f"{pool_start:.2f} s more than in this process (simulator.runner.WORKER_START_S)"
    )
    print(
        json.dumps(
            {
                "task": args.task,
                "n": n,
                "chunk_size": chunk,
                "repeat": args.repeat,
                "loky_1": round(n / t1, 1),
                "loky_2": round(n / t2, 1),
                "dask_2": round(n / td, 1),
                "efficiency_loky_2": round(t1 / (2 * t2), 3),
                "efficiency_dask_2": round(t1 / (2 * td), 3),
                "identical": bool(same),
                "pool_start_s": round(pool_start, 2),
                "cpu_count": os.cpu_count(),
            }
        )
    )


if __name__ == "__main__":
    main()
