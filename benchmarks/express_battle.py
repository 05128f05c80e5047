"""Pirates express throughput: battles per second on one core and with --jobs 2.

Workload: the mirrored study fleets (Spain vs Chinese, gunline commanders, pitched battle), a
mixed set (boarder vs skirmisher, treasure), and the default commander (admiral against admiral,
the same fleets, pitched battle: what the studies and the fleet search play). The compiled engine
is warmed up first (numba compilation and the worker pool start are not counted; a cold start
costs a few seconds more). The target (issue 5): at least 2,000 battles/s with 2 jobs.
Prints a table, then as its last line one JSON object.

    python benchmarks/express_battle.py [--n 40000]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from scenarios.loader import load_scenario
from simulator.express import api
from simulator.express.rules import ExpressRules


def _rate(pairings, n, jobs, chunk):
    t = time.perf_counter()
    api.run_pairings(pairings, n, seed=1, jobs=jobs, chunk_size=chunk)
    dt = time.perf_counter() - t
    return n * len(pairings) / dt, dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40_000, help="battles per measurement")
    args = ap.parse_args()
    sc = load_scenario(None, ExpressRules)
    rules = sc.rules
    mirrored = api.make_pairing(
        api.mirrored_fleet(rules, "spain"),
        api.mirrored_fleet(rules, "chinese"),
        rules,
        "gunline",
        "pitched",
    )
    mixed = api.make_pairing(
        "viking:4,3,3,1,1 musketeer@0 captain@1 carpenter@2",
        "pirates:5,2,2,2,1 gunner@0 helmsman@1",
        rules,
        "boarder,skirmisher",
        "treasure",
    )
    admirals = api.make_pairing(
        api.mirrored_fleet(rules, "spain"),
        api.mirrored_fleet(rules, "chinese"),
        rules,
        "admiral",
        "pitched",
    )
    rows = []
    for label, pairing in (
        ("mirrored gunline pitched", mirrored),
        ("boarder vs skirmisher treasure", mixed),
        ("mirrored admiral pitched", admirals),
    ):
        _rate([pairing], 2_000, 1, 1_000)  # compile / load the cache
        _rate([pairing], 4_000, 2, 1_000)  # start the worker pool
        r1, t1 = _rate([pairing], args.n, 1, 2_000)
        r2, t2 = _rate([pairing], args.n, 2, 2_000)
        rows.append((label, args.n, r1, t1, r2, t2))
    print(
        f"{'workload':32s} {'battles':>8s} {'1 core b/s':>11s} {'s':>6s} "
        f"{'2 jobs b/s':>11s} {'s':>6s}"
    )
    for label, n, r1, t1, r2, t2 in rows:
        print(f"{label:32s} {n:8d} {r1:11.0f} {t1:6.2f} {r2:11.0f} {t2:6.2f}")
    print(
        f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f} "
        "(the machine is shared; figures drop under load)"
    )
    print(
        "engine: numba-compiled scalar battle loop per game (cache=True); commanders compiled too"
    )
    print(
        json.dumps(
            {
                "battles_per_s_1core": round(rows[0][2], 1),
                "battles_per_s_2jobs": round(rows[0][4], 1),
                "workload": rows[0][0],
                "mixed_battles_per_s_1core": round(rows[1][2], 1),
                "mixed_battles_per_s_2jobs": round(rows[1][4], 1),
                "admiral_battles_per_s_1core": round(rows[2][2], 1),
                "admiral_battles_per_s_2jobs": round(rows[2][4], 1),
                "target_battles_per_s_2jobs": 2000,
                "load_average": round(os.getloadavg()[0], 2),
                "n": args.n,
            }
        )
    )


if __name__ == "__main__":
    main()
