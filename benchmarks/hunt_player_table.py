"""Les Pirates player table: every kind against every other, seat-rotated 4-player games.

Cell (A, B): one seat plays strategy A, the three others B, rotated so A sits in every seat
equally often; the cell is A's win share with its Wilson 95% interval (fair share 0.25). Also
the mixed table planner, hunter, guard, runner (rotated). Fresh seeds: 2026 + cell number (the
planner was tuned on 1401-1402). Prints the table, games/s per strategy mirror, then one JSON
object. Usage::

    python benchmarks/hunt_player_table.py [-n GAMES] [--jobs 2] [--kinds runner,hunter,...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.hunt.api import load, play

KINDS = ("runner", "hunter", "guard", "random", "planner")
MIX = ("planner", "hunter", "guard", "runner")
SEED = 2026


def cell(sc, table, n, seed, jobs):
    t0 = time.perf_counter()
    summary = play(
        sc,
        list(table),
        n=n,
        seed=seed,
        jobs=jobs,
        rotate_seats=True,
        chunk_size=max(100, n // 800 * 100),
    ).summary
    return summary, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2000, help="games per cell (a multiple of 4)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--kinds", default=",".join(KINDS))
    args = ap.parse_args()
    kinds = args.kinds.split(",")
    sc = load()
    out = {"n": args.n, "seed_base": SEED, "cells": [], "mix": {}}
    k = 0
    print(f"{'A (1 seat)':10} {'B (3 seats)':11} {'A win share':>11} {'95% CI':>17} {'games/s':>8}")
    for a in kinds:
        for b in kinds:
            if a == b:
                continue
            summary, dt = cell(sc, (a, b, b, b), args.n, SEED + k, args.jobs)
            k += 1
            s = summary["strategies"][a]
            lo, hi = s["ci95"]
            print(f"{a:10} {b:11} {s['win_rate']:>11.3f} [{lo:.3f}, {hi:.3f}] {args.n / dt:>8.0f}")
            out["cells"].append(
                {"a": a, "b": b, "win_share": s["win_rate"], "ci95": [lo, hi], "games": s["n"]}
            )
    summary, dt = cell(sc, MIX, args.n, SEED + k, args.jobs)
    print(f"mixed table {', '.join(MIX)} (rotated), {args.n} games:")
    for name in MIX:
        s = summary["strategies"][name]
        lo, hi = s["ci95"]
        print(f"  {name:8} {s['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]")
        out["mix"][name] = {"win_share": s["win_rate"], "ci95": [lo, hi]}
    out["stalemate_rate_mix"] = summary["stalemate_rate"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
