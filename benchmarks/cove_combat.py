"""Pirate's Cove combat throughput on one core (issue 3, "Benchmark"), and with cards (issue 13).

Measures (a) battles per second of the compiled kernel (simulator.cove.combat_kernel, what
``simulate_battles`` uses for the battles it covers) for a player-vs-player duel and for a ship
against Blackbeard, without cards -- the headline ``battles_per_s`` / ``rng_fraction`` -- (b) the
scalar oracle (tests/cove_battle_oracle.py) on the same battles, (c) numpy int8 d6 generation
per second, (d) the time of an exact duel table for one build (the five fighting opponents),
(e) battles with cards and parrots on the kernel (``cards_*`` keys: a lone ship playing its solved
optimal card policy against Captain Hook, three ships with parrots and the players' card rule
against Blackbeard, a ship duel with rule-played cards), (f) ``cove duel --cards`` as the command
runs it (seeded chunks through the runner) with 2 jobs (``duel_cards_2jobs_battles_per_s``). The
kernel is compiled (or loaded from numba's cache) before any timing; its compile/load time is
reported apart. Prints a table, then as its last line one JSON object.

The vectorised numpy engine was retired in issue 16 (stage C); its last figures on this benchmark
(kernel 4.28M battles/s against its 0.64M, 6.7x; with cards 1.94M against 0.17M, 11.1x; load
3.2) are in CHANGELOG.md.

    python benchmarks/cove_combat.py [--batch 200000] [--scalar 3000] [--repeat 3]
                                     [--duel-n 4000000]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the scalar oracle is in tests/

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # one core

import numpy as np  # noqa: E402

from scenarios import load_scenario  # noqa: E402
from simulator.cove import combat_kernel  # noqa: E402
from simulator.cove.combat import simulate_battles  # noqa: E402
from simulator.cove.combat_policies import HeuristicCardPolicy, RulePolicy  # noqa: E402
from simulator.cove.commands import MC_CHUNK  # noqa: E402
from simulator.cove.duel import DuelShip, exact_duel  # noqa: E402
from simulator.cove.lethality import (  # noqa: E402
    MC_BLOCK_SIZE,
    Build,
    duel_monte_carlo_chunk,
    lethality_table,
)
from simulator.cove.rules import CoveRules  # noqa: E402
from simulator.runner import run_chunks  # noqa: E402
from tests.cove_battle_oracle import BattleShip, resolve_battle  # noqa: E402


def battles(rules):
    return {
        "pvp-duel": (
            [BattleShip(0, [4, 4, 3, 3]), BattleShip(1, [3, 3, 4, 4], {"hull": 0})],
            None,
            [RulePolicy(), RulePolicy("when-critical")],
        ),
        "vs-blackbeard": ([BattleShip(0, [6, 5, 5, 5], {"hull": 0})], "blackbeard", [RulePolicy()]),
    }


DUEL_SHIP = DuelShip((5, 5, 5, 5), {"hull": 0})
DUEL_CARDS = ("smoke", "grapeshot", "powder_keg")
DUEL_CHUNK = 200_000  # battles per chunk of the 2-job run (the command's is MC_CHUNK)


def card_battles(rules):
    solved = exact_duel(rules, DUEL_SHIP, "captain_hook", cards=DUEL_CARDS)
    heur = HeuristicCardPolicy.from_rules(rules)
    every = RulePolicy(
        battle_cards=("smoke", "favourable_wind"), volley_cards=("grapeshot", "powder_keg")
    )
    return {
        "duel-solved-vs-hook": (
            [BattleShip(0, [5, 5, 5, 5], {"hull": 0}, battle_cards=list(DUEL_CARDS))],
            "captain_hook",
            [solved.card_play.policy(RulePolicy())],
        ),
        "parrots-heuristic-blackbeard": (
            [
                BattleShip(0, [6, 5, 5, 4], parrot="long_john_silver", battle_cards=["smoke"]),
                BattleShip(1, [4, 4, 4, 4], parrot="flint", battle_cards=["powder_keg"]),
                BattleShip(2, [3, 5, 3, 3], parrot="billy_bones", battle_cards=["grapeshot"]),
            ],
            "blackbeard",
            [heur, heur, heur],
        ),
        "pvp-rule-cards": (
            [
                BattleShip(0, [4, 4, 3, 3], battle_cards=["smoke", "grapeshot"]),
                BattleShip(
                    1, [3, 3, 4, 4], {"hull": 0}, battle_cards=["favourable_wind", "powder_keg"]
                ),
            ],
            None,
            [every, every],
        ),
    }


def duel_cards_task(rules):
    """The chunk task of ``cove duel --ship ... --vs captain-hook --cards smoke,grapeshot,powder-keg
    -n N``: the solved policy, the command's chunk function."""
    solved = exact_duel(rules, DUEL_SHIP, "captain_hook", cards=DUEL_CARDS)
    return functools.partial(
        duel_monte_carlo_chunk,
        scenario_path=None,
        ships=(Build("duel", (5, 5, 5, 5), "hull"),),
        npc="captain_hook",
        policies=(solved.card_play.policy(RulePolicy()),),
        cards=DUEL_CARDS,
    )


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
    ap.add_argument("--batch", type=int, default=200_000, help="battles per kernel run")
    ap.add_argument("--scalar", type=int, default=3000, help="battles per scalar run")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    ap.add_argument(
        "--duel-n", type=int, default=4_000_000, help="battles of the 2-job cove duel --cards run"
    )
    args = ap.parse_args()
    rules = load_scenario(None, CoveRules).rules
    t = time.perf_counter()
    combat_kernel.warm_up()  # numba compile or cache load: kept out of every timed section
    warm_s = time.perf_counter() - t
    rows = []
    tot = [0.0, 0.0, 0]  # kernel battles, seconds, dice
    # d6 generation is timed interleaved with the kernel runs (the machine's load drifts; the
    # fastest run of each is kept), and once more on its own below
    gen_rng = np.random.default_rng(3)
    n_dice = 50_000_000
    gen_best = float("inf")

    def timed_generation():
        nonlocal gen_best
        t = time.perf_counter()
        gen_rng.integers(1, 7, size=n_dice, dtype=np.int8)
        gen_best = min(gen_best, time.perf_counter() - t)

    tot_s = tot_st = 0.0
    for name, (ships, npc, pols) in battles(rules).items():
        row = {"name": name}
        rng = np.random.default_rng(1)
        tv, res = float("inf"), None
        for _ in range(args.repeat):
            t = time.perf_counter()
            res = simulate_battles(rules, ships, npc, pols, args.batch, rng, engine="kernel")
            tv = min(tv, time.perf_counter() - t)
            timed_generation()
        row["kernel"] = (args.batch / tv, res.dice_used / args.batch)
        tot[0] += args.batch
        tot[1] += tv
        tot[2] += res.dice_used

        srng = np.random.default_rng(2)

        def scalar(s=ships, p=pols, q=npc, g=srng):
            d = 0
            for _ in range(args.scalar):
                d += resolve_battle(rules, s, q, p, g, island="hull").dice_rolled
            return d

        ts, sdice = best_of(scalar, args.repeat)
        row["scalar"] = (args.scalar / ts, sdice / args.scalar)
        rows.append(row)
        tot_s += args.scalar
        tot_st += ts
    for _ in range(args.repeat):
        timed_generation()
    rng_dice_per_s = n_dice / gen_best
    build = Build("balanced-24+artisan-hull", (6, 5, 5, 5), "hull")
    times = []
    for _ in range(max(args.repeat, 5)):
        t = time.perf_counter()
        lethality_table(rules, [build], best_cards=False)
        times.append((time.perf_counter() - t) * 1000)
    exact_ms = float(np.median(times))
    t = time.perf_counter()
    lethality_table(rules, [build])
    best_cards_ms = (time.perf_counter() - t) * 1000

    scalar_per_s = tot_s / tot_st
    # (e) battles with cards and parrots on the kernel
    card_rows = []
    card_tot = [0.0, 0.0]
    for name, (ships, npc, pols) in card_battles(rules).items():
        rng = np.random.default_rng(4)
        tv = float("inf")
        for _ in range(args.repeat):
            t = time.perf_counter()
            simulate_battles(rules, ships, npc, pols, args.batch, rng, engine="kernel")
            tv = min(tv, time.perf_counter() - t)
        card_rows.append({"name": name, "kernel": args.batch / tv})
        card_tot[0] += args.batch
        card_tot[1] += tv
    cards_kernel = card_tot[0] / card_tot[1]
    # (f) cove duel --cards as the command runs it: seeded chunks, 2 worker processes
    duel_task, duel_n = duel_cards_task(rules), args.duel_n
    run_chunks(  # warm
        duel_task, 2 * MC_CHUNK, seed=1, n_jobs=2, quiet=True, chunk_size=MC_CHUNK,
        block_size=MC_BLOCK_SIZE,
    )  # fmt: skip
    t = time.perf_counter()
    run_chunks(
        duel_task, duel_n, seed=2, n_jobs=2, quiet=True, chunk_size=DUEL_CHUNK,
        block_size=MC_BLOCK_SIZE,
    )  # fmt: skip
    duel_2jobs = duel_n / (time.perf_counter() - t)

    battles_per_s, dice_per_battle = tot[0] / tot[1], tot[2] / tot[0]
    rng_fraction = battles_per_s * dice_per_battle / rng_dice_per_s
    print(
        f"{'battle':<16}{'kernel/s':>12}{'scalar/s':>12}{'speedup':>9}"
        f"{'dice/battle':>13}{'(scalar)':>10}"
    )
    for r in rows:
        k, sc = r["kernel"], r["scalar"]
        print(
            f"{r['name']:<16}{k[0]:>12,.0f}{sc[0]:>12,.0f}{k[0] / sc[0]:>9.1f}"
            f"{k[1]:>13.2f}{sc[1]:>10.2f}"
        )
    print(
        f"{'all':<16}{battles_per_s:>12,.0f}{scalar_per_s:>12,.0f}"
        f"{battles_per_s / scalar_per_s:>9.1f}{dice_per_battle:>13.2f}"
    )
    print(
        f"numpy int8 d6 generation: {rng_dice_per_s:,.0f} dice/s; "
        f"kernel rng_fraction {rng_fraction:.3f}"
    )
    print(f"\n{'battle with cards':<28}{'kernel/s':>12}")
    for r in card_rows:
        print(f"{r['name']:<28}{r['kernel']:>12,.0f}")
    print(f"{'all':<28}{cards_kernel:>12,.0f}")
    print(f"cove duel --cards (solved policy vs Captain Hook), 2 jobs: {duel_2jobs:,.0f} battles/s")
    print(f"kernel compile/cache load (untimed): {warm_s:.2f} s")
    print(f"exact duel table, one build x 5 opponents: {exact_ms:.1f} ms (median)")
    print(f"the same with the best card and pair per row: {best_cards_ms:.0f} ms")
    out = {
        "battles_per_s": round(battles_per_s, 1),
        "scalar_battles_per_s": round(scalar_per_s, 1),
        "speedup_vs_scalar": round(battles_per_s / scalar_per_s, 2),
        "dice_per_battle": round(dice_per_battle, 3),
        "rng_dice_per_s": round(rng_dice_per_s, 1),
        "rng_fraction": round(rng_fraction, 4),
        "engine": "kernel",
        "kernel_warmup_s": round(warm_s, 3),
        "exact_duel_table_ms": round(exact_ms, 2),
        "exact_duel_table_best_cards_ms": round(best_cards_ms, 1),
        "per_battle": {
            r["name"]: {
                "battles_per_s": round(r["kernel"][0], 1),
                "scalar_battles_per_s": round(r["scalar"][0], 1),
                "dice_per_battle": round(r["kernel"][1], 3),
            }
            for r in rows
        },
        "batch": args.batch,
        "scalar_n": args.scalar,
        "cores": 1,
        "cards_battles_per_s": round(cards_kernel, 1),
        "cards_per_battle": {
            r["name"]: {"battles_per_s": round(r["kernel"], 1)} for r in card_rows
        },
        "duel_cards_2jobs_battles_per_s": round(duel_2jobs, 1),
        "duel_n": duel_n,
        "load_1min": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
