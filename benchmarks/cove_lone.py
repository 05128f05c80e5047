"""Benchmark: the exact lone-pirate solver with cards, readable against compiled.

The queries are a grid of what the expected-value players ask (the grid of
``tests/test_cove_fast_lone.py``: every fighting non-player ship x damage states x parrots, with a
rotating subset of held cards, speed bonuses and Smoke; ``lone_plan`` with a few hands, chests and
stakes; ``p_sink`` and ``best_volley``), ``--repeat-grid`` times over (later passes hit the memo,
as a game's repeated queries do). They are answered in order by the readable solver
(``python_s``, the oracle ``tests/cove_odds_oracle.py``), by the compiled one called from
Python on a fresh memo
(``compiled_s``, every answer checked equal, ``==``; numba's call overhead included) and from a
compiled loop as the compiled players call it (``compiled_loop_s``, fresh memo; the queries packed
into arrays beforehand; ``compiled_loop_best_s``: the best of ``--repeat`` such runs, each on a
fresh memo, the figure to compare on a loaded machine). The last line is one JSON object with the
machine's load average beside the times.

    python benchmarks/cove_lone.py [--games 8] [--repeat 5]

(``--games`` is the number of grid passes: the name kept from when queries were recorded from
that many games of the readable engine, which is gone.)
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
from numba import njit

from simulator.cove.fast import lone
from tests.cove_odds_oracle import PirateOdds, lone_pirate_odds
from tests.test_cove_fast_lone import (
    FIGHTERS,
    RULES,
    Pair,
    bits_of,
    compiled_best_volley,
    compiled_lone_plan,
    compiled_p_sink,
    plan_tuple,
    states,
)

#: hands of the lone_plan queries (cards a player holds when it weighs a lone fight)
HANDS = ((), ("smoke",), ("favourable_wind",), ("grapple", "grapeshot"), ("overboard",))


def grid_queries(passes: int) -> dict[str, list]:
    """The grid of queries, in the recorded form ``{kind: [(query, answer)]}`` (answers filled
    in by the readable solver)."""
    po = Pair(RULES).po
    rec: dict[str, list] = {"lone": [], "p_sink": [], "best_volley": []}
    for _ in range(passes):
        for npc in FIGHTERS:
            for i, (st, parrot) in enumerate(states(RULES)):
                g, k = (i // 2) % 2, i % 2
                smoke, grapple, extra = i % 3 == 0, i % 5 == 1, (0, 6, 21, -4)[i % 4]
                common = {"npc": npc, "st": st, "parrot": parrot, "hull": None, "grapeshot": g}
                common.update(powder_keg=k, smoke=smoke, extra_speed=extra, grapple=grapple)
                rec["p_sink"].append((common, None))
                fire = i % 7 != 3
                rec["best_volley"].append((dict(common, pirate_to_fire=fire), None))
                hand = HANDS[i % len(HANDS)]
                q = {"npc": npc, "st": st, "parrot": parrot, "hand": list(hand)}
                q.update(chests=i % 3, chest_value=(None, 0.5)[i % 2], stake=1.0 + i % 4)
                q.update(hull=None, extra_speed=0, smoke_on=False, grapple_on=False)
                rec["lone"].append((q, None))
    for kind in rec:
        rec[kind] = [(q, _answer(po, kind, q)) for q, _ in rec[kind]]
    return rec


def _answer(po: PirateOdds, kind: str, q: dict):
    """The readable solver's answer to one query."""
    if kind == "lone":
        return lone_pirate_odds(po, **q)
    return po.p_sink(**q) if kind == "p_sink" else po.best_volley(**q)


def check_recorded(rec: dict[str, list], p: Pair) -> int:
    """Each query asked of the compiled solver, its answer checked equal (``==``)."""
    for q, want in rec["lone"]:
        got = compiled_lone_plan(
            p, q["npc"], q["st"], q["parrot"], tuple(q["hand"]), q["chests"], q["chest_value"],
            q["stake"], q["hull"], q["extra_speed"], q["smoke_on"], q["grapple_on"],
        )  # fmt: skip
        assert got == plan_tuple(want), q
    for q, want in rec["p_sink"]:
        got = compiled_p_sink(
            p, q["npc"], q["st"], q["parrot"], q["hull"], q["grapeshot"], q["powder_keg"],
            q["smoke"], q["extra_speed"], q["grapple"],
        )  # fmt: skip
        assert got == want, q
    for q, (names, v) in rec["best_volley"]:
        got = compiled_best_volley(
            p, q["npc"], q["st"], q["parrot"], q["hull"], q["grapeshot"], q["powder_keg"],
            q["smoke"], q["extra_speed"], q["grapple"], q["pirate_to_fire"],
        )  # fmt: skip
        assert got == (bits_of(names), v), q
    return sum(len(v) for v in rec.values())


def python_answers(rec, po: PirateOdds) -> None:
    for kind, queries in rec.items():
        for q, _ in queries:
            _answer(po, kind, q)


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
    rec = grid_queries(a.games)
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
