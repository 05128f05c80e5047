"""Benchmark: the exact lone-pirate solver with cards, readable against compiled, on the queries
the expected-value players make.

Plays seeded default-mix games on the readable engine recording every query of the solver
(``lone_pirate_odds``, ``PirateOdds.p_sink`` and ``best_volley``, as
``tests/test_cove_fast_lone.py`` records them), then answers all of them again, in order, with a
fresh readable solver (``python_s``), with the compiled one called from Python on a fresh memo
(``compiled_s``, checking every answer is the same, ``==``; numba's call overhead included) and
from a compiled loop as the compiled players call it (``compiled_loop_s``, fresh memo; the
queries packed into arrays beforehand; ``compiled_loop_best_s``: the best of ``--repeat`` such
runs, each on a fresh memo, the figure to compare on a loaded machine). The last line is one
JSON object with the machine's load average beside the times.

    python benchmarks/cove_lone.py [--games 8] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from _pytest.monkeypatch import MonkeyPatch
from numba import njit

from simulator.cove.fast import lone
from simulator.cove.odds import PirateOdds, lone_pirate_odds
from tests.test_cove_fast_lone import RULES, Pair, check_recorded, record_queries


def python_answers(rec, po: PirateOdds) -> None:
    for q, _ in rec["lone"]:
        q = dict(q)
        solver = q.pop("solver")
        del solver
        lone_pirate_odds(po, **q)
    for q, _ in rec["p_sink"]:
        q = {k: v for k, v in q.items() if k != "self"}
        po.p_sink(**q)
    for q, _ in rec["best_volley"]:
        q = {k: v for k, v in q.items() if k != "self"}
        po.best_volley(**q)


def packed(rec):
    """The recorded queries as arrays (the form the compiled players pass)."""
    npcs = [*RULES.pirates, "royal_navy"]
    parrots = list(RULES.parrots)

    def par(p):
        return -1 if p is None else parrots.index(p)

    def hull(h):
        return -1 if h is None else h

    li, lf = [], []
    for q, _ in rec["lone"]:
        h = q["hand"]
        cv = q["chest_value"]
        li.append(
            [npcs.index(q["npc"]), *q["st"], par(q["parrot"]), "smoke" in h]
            + [h.count("favourable_wind"), "grapple" in h, "overboard" in h]
            + [h.count("grapeshot"), h.count("powder_keg"), q["chests"], cv is not None]
            + [hull(q["hull"]), q["extra_speed"], q["smoke_on"], q["grapple_on"]]
        )
        lf.append([0.0 if cv is None else cv, q["stake"]])
    pi = []
    for kind in ("p_sink", "best_volley"):
        for q, _ in rec[kind]:
            pi.append(
                [kind == "best_volley", npcs.index(q["npc"]), *q["st"], par(q["parrot"])]
                + [hull(q["hull"]), q["grapeshot"], q["powder_keg"], q["smoke"]]
                + [q["extra_speed"], q["grapple"], q.get("pirate_to_fire", True)]
            )
    return (
        np.array(li, np.int64).reshape(-1, 23),
        np.array(lf, np.float64).reshape(-1, 2),
        np.array(pi, np.int64).reshape(-1, 19),
    )


@njit
def answer_all(lt, memo, li, lf, pi):
    """Every recorded query through the compiled solver, from compiled code."""
    total = 0.0
    for r in range(li.shape[0]):
        q = li[r]
        got = lone.lone_plan(
            lt, memo, q[0], q[1:10], q[10], q[11], q[12], q[13], q[14], q[15], q[16], q[17],
            lf[r, 0], q[18], lf[r, 1], q[19], q[20], q[21], q[22],
        )  # fmt: skip
        total += got[0]
    for r in range(pi.shape[0]):
        q = pi[r]
        if q[0]:
            _bits, v = lone.best_volley(
                lt, memo, q[1], q[2:11], q[11], q[12], q[13], q[14], q[15], q[16], q[17], q[18]
            )
        else:
            v = lone.p_sink(
                lt, memo, q[1], q[2:11], q[11], q[12], q[13], q[14], q[15], q[16], q[17]
            )
        total += v
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5, help="compiled-loop runs (best kept)")
    a = ap.parse_args()
    games = [(3 + i % 3, 1601 + i) for i in range(a.games)]
    mp = MonkeyPatch()
    rec = record_queries(mp, games)
    n = sum(len(v) for v in rec.values())
    check_recorded(rec, Pair(RULES))  # compiles (or loads) and checks once
    t = time.perf_counter()
    python_answers(rec, PirateOdds(RULES))
    py_s = time.perf_counter() - t
    t = time.perf_counter()
    check_recorded(rec, Pair(RULES))
    fast_s = time.perf_counter() - t
    li, lf, pi = packed(rec)
    lt = lone.tables(RULES)
    answer_all(lt, lone.new_memo(), li, lf, pi)  # compile
    t = time.perf_counter()
    answer_all(lt, lone.new_memo(), li, lf, pi)
    loop_s = time.perf_counter() - t
    best_s = loop_s
    for _ in range(a.repeat - 1):
        t = time.perf_counter()
        answer_all(lt, lone.new_memo(), li, lf, pi)
        best_s = min(best_s, time.perf_counter() - t)
    out = {
        "bench": "cove_lone",
        "games": a.games,
        "queries": n,
        "lone": len(rec["lone"]),
        "p_sink": len(rec["p_sink"]),
        "best_volley": len(rec["best_volley"]),
        "python_s": round(py_s, 4),
        "compiled_s": round(fast_s, 4),
        "speedup": round(py_s / fast_s, 1),
        "compiled_loop_s": round(loop_s, 4),  # the same queries from compiled code, fresh memo
        "speedup_loop": round(py_s / loop_s, 1),
        "compiled_loop_best_s": round(best_s, 4),  # the best of --repeat runs, fresh memos
        "repeat": max(a.repeat, 1),
        "loadavg": os.getloadavg(),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
