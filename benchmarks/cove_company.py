"""The company estimate per call: the Python oracle (``company_odds`` of
``tests/cove_odds_oracle.py``) vs compiled (``simulator.cove.fast.company.company_odds_art``),
on the same situations in the same run.

The situations are random companies (one to four other ships, random rings, Artisans and parrots)
against each fighting non-player ship, drawn from a fixed seed (``--games`` sets how many: 40 per
unit). Each is estimated by both, without any memo (a fresh
compiled memo per call), then by the compiled one through one shared memo (its hit time); the
compiled code is compiled (or loaded from numba's cache) before any timing. ``equal`` counts the
situations whose three floats are the same; ``kernel_run_ms_per_estimate`` is the time the Python
path spends inside the battle kernel's compiled ``_run`` (timed in a separate pass): the part of
an estimate both paths share, its floor. Prints a table, then as its last line one JSON
object.

    python benchmarks/cove_company.py [--games 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # one core

import numpy as np  # noqa: E402

from simulator.cove import combat_kernel  # noqa: E402
from simulator.cove.api import load  # noqa: E402
from simulator.cove.fast import company as fc  # noqa: E402
from tests import cove_odds_oracle as odds  # noqa: E402


def _record(rules, games: int) -> list[tuple]:
    """``40 * games`` distinct random situations (the company key's form)."""
    rng = np.random.default_rng(20261201)
    npcs = [k for k, p in rules.pirates.items() if p.fights] + ["royal_navy"]
    parrots = [None, *rules.parrots]
    top = rules.ship_mat.num_positions

    def view():
        ring = tuple(int(x) for x in rng.integers(1, top + 1, size=4))
        arts = ((int(rng.integers(4)), int(rng.integers(2))),) if rng.random() < 0.3 else ()
        return ring, arts, parrots[int(rng.integers(len(parrots)))], 0

    asked = []
    for _ in range(40 * games):
        others = tuple(sorted(view() for _ in range(int(rng.integers(1, 5)))))
        asked.append((npcs[int(rng.integers(len(npcs)))], view(), others))
    return list(dict.fromkeys(asked))


def _rows(rules, key):
    npc, mine, theirs = key
    parrots = list(rules.parrots)
    views = (mine, *theirs)
    ships = np.zeros((len(views), fc.SH_COLS), np.int64)
    art = np.full((len(views), 4), -1, np.int64)
    for i, (ring, arts, parrot, wounds) in enumerate(views):
        ships[i, :4] = ring
        ships[i, fc.SH_PARROT] = parrots.index(parrot) if parrot is not None else -1
        ships[i, fc.SH_WOUNDS] = wounds
        for sec, used in arts:
            art[i, sec] = used
    return [*rules.pirates, "royal_navy"].index(npc), ships, art, len(views)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rules = load(None).rules
    keys = _record(rules, a.games)
    ct = fc.tables(rules)
    args = [_rows(rules, k) for k in keys]
    t = time.perf_counter()
    fc.company_odds_art(ct, fc.new_memo(), *args[0])
    compile_s = time.perf_counter() - t
    best_py = best_c = best_hit = float("inf")
    equal = 0
    for _ in range(a.repeat):
        t = time.perf_counter()
        want = [tuple(odds.company_odds(rules, k)) for k in keys]
        best_py = min(best_py, time.perf_counter() - t)
        t = time.perf_counter()
        got = [fc.company_odds_art(ct, fc.new_memo(), *x) for x in args]
        best_c = min(best_c, time.perf_counter() - t)
        memo = fc.new_memo()
        for x in args:
            fc.company_odds_art(ct, memo, *x)
        t = time.perf_counter()
        for x in args:
            fc.company_odds_art(ct, memo, *x)
        best_hit = min(best_hit, time.perf_counter() - t)
        equal = sum(w == g for w, g in zip(want, got, strict=True))
    run = combat_kernel._run
    in_run = [0.0]

    def timed(*x):
        t = time.perf_counter()
        r = run(*x)
        in_run[0] += time.perf_counter() - t
        return r

    combat_kernel._run = timed
    try:
        for k in keys:
            odds.company_odds(rules, k)
    finally:
        combat_kernel._run = run
    n = len(keys)
    res = {
        "situations": n,
        "games": a.games,
        "equal": equal,
        "python_ms_per_estimate": round(1e3 * best_py / n, 4),
        "compiled_ms_per_estimate": round(1e3 * best_c / n, 4),
        "compiled_memo_hit_us": round(1e6 * best_hit / n, 3),
        "kernel_run_ms_per_estimate": round(1e3 * in_run[0] / n, 4),
        "speedup": round(best_py / best_c, 2),
        "compile_or_load_s": round(compile_s, 2),
        "load_1min": os.getloadavg()[0],
    }
    for k, v in res.items():
        print(f"{k:28s} {v}")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
