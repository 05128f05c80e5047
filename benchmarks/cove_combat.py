"""Pirate's Cove combat throughput on one core (issue 3, "Benchmark").

Measures (a) vectorised battles per second (simulator.cove.combat) for a player-vs-player duel and
for a ship against Blackbeard, (b) the scalar reference engine (simulator.cove.battle) on the same
battles, (c) numpy int8 d6 generation per second, and (d) the time of an exact duel table for one
build (the five fighting opponents). Prints a table, then as its last line one JSON object.

    python benchmarks/cove_combat.py [--batch 200000] [--scalar 3000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # one core

import numpy as np

from scenarios import load_scenario
from simulator.cove.battle import BattleShip, resolve_battle
from simulator.cove.combat import simulate_battles
from simulator.cove.combat_policies import RulePolicy
from simulator.cove.lethality import Build, lethality_table


def battles(rules):
    return {
        "pvp-duel": ([BattleShip(0, [4, 4, 3, 3]), BattleShip(1, [3, 3, 4, 4], {"hull": 0})], None,
                     [RulePolicy(), RulePolicy("when-critical")]),
        "vs-blackbeard": ([BattleShip(0, [6, 5, 5, 5], {"hull": 0})], "blackbeard", [RulePolicy()]),
    }


def best_of(fn, repeat):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=200_000, help="battles per vectorised run")
    ap.add_argument("--scalar", type=int, default=3000, help="battles per scalar run")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    args = ap.parse_args()
    rules = load_scenario(None, game="cove").rules
    rows = []
    tot_v = tot_vt = tot_s = tot_st = 0.0
    dice_total = 0
    for name, (ships, npc, pols) in battles(rules).items():
        rng = np.random.default_rng(1)
        tv, res = best_of(lambda s=ships, p=pols, q=npc, g=rng: simulate_battles(rules, s, q, p, args.batch, g),
                          args.repeat)

        srng = np.random.default_rng(2)

        def scalar(s=ships, p=pols, q=npc, g=srng):
            d = 0
            for _ in range(args.scalar):
                d += resolve_battle(rules, s, q, p, g, island="hull").dice_rolled
            return d

        ts, sdice = best_of(scalar, args.repeat)
        rows.append((name, args.batch / tv, args.scalar / ts, res.dice_used / args.batch, sdice / args.scalar))
        tot_v += args.batch
        tot_vt += tv
        tot_s += args.scalar
        tot_st += ts
        dice_total += res.dice_used
    rng = np.random.default_rng(3)
    n_dice = 50_000_000
    tr, _ = best_of(lambda: rng.integers(1, 7, size=n_dice, dtype=np.int8), args.repeat)
    rng_dice_per_s = n_dice / tr
    build = Build("balanced-24+artisan-hull", (6, 5, 5, 5), "hull")
    times = []
    for _ in range(max(args.repeat, 5)):
        t = time.perf_counter()
        lethality_table(rules, [build])
        times.append((time.perf_counter() - t) * 1000)
    exact_ms = float(np.median(times))

    battles_per_s = tot_v / tot_vt
    scalar_per_s = tot_s / tot_st
    dice_per_battle = dice_total / tot_v
    print(f"{'battle':<16}{'vectorised/s':>14}{'scalar/s':>12}{'speedup':>9}{'dice/battle':>13}{'(scalar)':>10}")
    for name, v, s, d, sd in rows:
        print(f"{name:<16}{v:>14,.0f}{s:>12,.0f}{v / s:>9.1f}{d:>13.2f}{sd:>10.2f}")
    print(f"{'all':<16}{battles_per_s:>14,.0f}{scalar_per_s:>12,.0f}{battles_per_s / scalar_per_s:>9.1f}"
          f"{dice_per_battle:>13.2f}")
    print(f"numpy int8 d6 generation: {rng_dice_per_s:,.0f} dice/s")
    print(f"exact duel table, one build x 5 opponents: {exact_ms:.1f} ms (median)")
    out = {
        "battles_per_s": round(battles_per_s, 1),
        "scalar_battles_per_s": round(scalar_per_s, 1),
        "speedup_vs_scalar": round(battles_per_s / scalar_per_s, 2),
        "dice_per_battle": round(dice_per_battle, 3),
        "rng_dice_per_s": round(rng_dice_per_s, 1),
        "rng_fraction": round(battles_per_s * dice_per_battle / rng_dice_per_s, 4),
        "exact_duel_table_ms": round(exact_ms, 2),
        "per_battle": {name: {"battles_per_s": round(v, 1), "scalar_battles_per_s": round(s, 1),
                              "dice_per_battle": round(d, 3)} for name, v, s, d, _ in rows},
        "batch": args.batch, "scalar_n": args.scalar, "cores": 1,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
