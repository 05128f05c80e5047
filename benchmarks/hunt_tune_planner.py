"""Coordinate search of the Les Pirates ``planner`` weights against hunter and guard tables.

How the planner defaults in ``scenarios/hunt/standard.toml`` were chosen (a small, seeded,
replayable search; the team's strategy search will do this properly). Each candidate plays two
seat-rotated 4-player tables on the same seeds (common random numbers): one planner against
three hunters, one planner against three guards; the objective is the planner's mean win share.
Every parameter in turn is multiplied by each factor (clipped to its declared range) and the
best candidate so far is kept. The search never sees the validation seeds; validate the result
with ``benchmarks/hunt_players.py`` (fresh seeds). Prints the trace, then one JSON object::

    python benchmarks/hunt_tune_planner.py [-n GAMES] [--passes 2] [--seed 1401] [--jobs 2]
        [--start key=value:key=value...]   # start point (default: the kind's defaults)

The shipped defaults came from ``-n 1000 --passes 2 --seed 1401 --start
sink=10:seek=8:threat=60:exposure=4:hunt=40`` (the first defaults).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scenarios.strategies import param_space
from simulator.hunt.api import load, play

FACTORS = (0.5, 2.0)
FIELDS = (["hunter"] * 3, ["guard"] * 3)


def spec(params: dict) -> str:
    return "planner:" + ":".join(f"{k}={str(v).lower()}" for k, v in params.items())


def objective(scenario, params, n, seed, jobs) -> float:
    shares = []
    for i, field in enumerate(FIELDS):
        summary = play(
            scenario,
            [spec(params), *field],
            n=n,
            seed=seed + i,
            jobs=jobs,
            rotate_seats=True,
            chunk_size=max(100, n // 400 * 100),
        ).summary
        shares.append(summary["strategies"][spec(params)]["win_rate"])
    return sum(shares) / len(shares)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1000, help="games per table per candidate")
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1401, help="tuning seeds: seed, seed + 1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--start", default="", help="key=value:... overriding the kind's defaults")
    args = ap.parse_args()
    sc = load()
    space = param_space(sc.rules.kinds, "planner")
    best = {k: d.default for k, d in space.items() if d.type == "float" and not d.fixed}
    fixed = {k: d.default for k, d in space.items() if k not in best}
    for item in filter(None, args.start.split(":")):
        key, _, value = item.partition("=")
        best[key] = space[key].coerce(float(value), f"--start {key}")
    t0 = time.perf_counter()
    best_v = objective(sc, {**best, **fixed}, args.n, args.seed, args.jobs)
    print(f"start {best_v:.4f} {best}")
    evaluated = 1
    for p in range(args.passes):
        for key in best:
            lo, hi = space[key].range
            for f in FACTORS:
                cand = dict(best)
                value = best[key] * f if best[key] else (hi - lo) / 10
                cand[key] = round(min(hi, max(lo, value)), 4)
                if cand[key] == best[key]:
                    continue
                v = objective(sc, {**cand, **fixed}, args.n, args.seed, args.jobs)
                evaluated += 1
                mark = "*" if v > best_v else " "
                print(f"pass {p} {key:9} {cand[key]:>9} -> {v:.4f} {mark}", flush=True)
                if v > best_v:
                    best, best_v = cand, v
    print(
        json.dumps(
            {
                "best": {**best, **fixed},
                "objective": round(best_v, 4),
                "candidates": evaluated,
                "games": evaluated * args.n * len(FIELDS),
                "seed": args.seed,
                "wall_s": round(time.perf_counter() - t0, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
