"""The one Pirate's Cove engine (simulator.cove.fast): the games it plays, compiled and readable.

The games themselves are checked against the recorded fingerprints
(``tests/test_cove_fingerprints.py``) and the goldens (``tests/test_cove_golden.py``); here: the
cache digest, the API's engine option (``--engine python`` is the same source with numba's JIT
off, run in worker processes started with ``NUMBA_DISABLE_JIT=1``: the same tables at any jobs
and chunk size), the engine choice and the compiled game's allocations.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest
from cache_support import check_drops_stale_cache

from cli import main
from scenarios.loader import load_scenario
from simulator.cove import fast
from simulator.cove.api import choose_engine, play
from simulator.cove.fast import players_ev
from simulator.cove.fast.engine import FastGames
from simulator.cove.fast.packed import TAB_FIELDS, compiled_kinds
from simulator.cove.rules import CoveRules
from simulator.errors import UserError
from simulator.runner import Block

ROOT = Path(__file__).resolve().parent.parent
RULES = load_scenario(None, CoveRules).rules
V1 = ("plunderer-v1", "brawler-v1", "tavern-v1", "balanced-v1")
EV = ("plunderer", "brawler", "tavern", "balanced")  # root "heuristic" (fast/players_ev.py)


def test_an_edited_source_drops_the_compiled_cache(tmp_path):
    """numba keys its cache by a function's own file: an edit to packed.py (whose constants are
    frozen into game.py's machine code) must drop every cache file of the package."""
    check_drops_stale_cache(
        fast.drop_stale_cache, Path(fast.__file__).resolve().parent, fast.COMPILED_MODULES,
        tmp_path, ("game.play_chunk-1.py311.nbi",), "game.cpython-311.pyc", "packed.py",
    )  # fmt: skip


def test_every_kind_is_played_by_the_engine_and_a_missing_one_is_refused(monkeypatch):
    from simulator.cove.fast import packed

    assert set(compiled_kinds(RULES)) == set(RULES.kinds)  # the search player included
    assert choose_engine(None, RULES, V1)[0] == "fast"
    assert choose_engine("fast", RULES, EV)[0] == "fast"
    assert choose_engine("python", RULES, (*EV, "random"))[0] == "python"
    with pytest.raises(UserError, match=r"allowed: fast, python"):
        choose_engine("numba", RULES, V1)
    monkeypatch.setattr(packed, "COMPILED_ROOTS", ("heuristic-v1", "random", packed.EV_ROOT))
    with pytest.raises(UserError, match=r"kinds rollout have no player in the engine"):
        choose_engine(None, RULES, ("brawler", "random", "rollout"))


def _frames(res):
    return [res.seats, *(res.tables[k] for k in sorted(res.tables))]


def test_play_fast_equals_python_at_any_jobs_and_chunk_size():
    """api.play: the same seed gives the same tables on both engines, with --check, rotated
    seats, the card record, two jobs and any chunk size."""
    mix = ["tavern-v1", "random", "balanced", "brawler-v1", "plunderer"]
    kw = {"n": 9, "seed": 7, "rotate_seats": True, "cards": True, "check": True}
    py = play(None, mix, engine="python", chunk_size=4, **kw)
    fast = play(None, mix, engine="fast", chunk_size=3, jobs=2, **kw)
    auto = play(None, mix, chunk_size=None, **kw)
    assert py.summary["engine"] == "python" and fast.summary["engine"] == "fast"
    assert auto.summary["engine"] == "fast" and auto.provenance["engine"] == "fast"
    assert len(py.seats) == 9 * 5
    for a, b in zip(_frames(py), _frames(fast), strict=True):
        pd.testing.assert_frame_equal(a, b)
    for a, b in zip(_frames(fast), _frames(auto), strict=True):
        pd.testing.assert_frame_equal(a, b)
    skip = {"wall_time_s", "engine", "engine_note", "battle_engine", "provenance"}
    assert {k: v for k, v in py.summary.items() if k not in skip} == {
        k: v for k, v in fast.summary.items() if k not in skip
    }


def _cli(capsys, *args):
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_engine_note_and_refusal(capsys):
    args = ["cove", "play", "-n", "4", "--seed", "2", "--strategies", ",".join(V1)]
    code, out, _ = _cli(capsys, *args)
    assert code == 0 and "engine fast (compiled)" in out
    code, out, err = _cli(capsys, *args, "--engine", "numba")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    code, out, _ = _cli(capsys, *args, "--format", "json")
    summary = json.loads(out)
    assert summary["engine"] == "fast" and summary["provenance"]["engine"] == "fast"
    assert summary["battle_engine"] == "compiled"


def test_compiled_games_release_every_array_they_allocate():
    """The compiled game's own arrays (each decision's scratch, the lone solver's stacks, views
    and tuples of the buffers) are all released: numba's allocation counts balance over 60
    games (the improved kinds and the v1 baselines with trace and record, then three-player
    tables with ``random``), and the engine's tables and memos keep their Python reference
    counts: a missing release would leak, an extra one free a buffer in use."""
    import gc

    from numba.core.runtime import _nrt_python, rtsys

    eng = FastGames(RULES, EV + V1 + ("random",))
    deals = [Block(index=i, start=i, size=1, entropy=2026) for i in range(30)]
    eng.play([EV] * 2, deals[:2], trace=True, record=True)  # buffers made, memos started
    eng.play([("random", "tavern", "brawler-v1")], deals[:1])  # the three-seat table's too
    tables = eng.tables.arrays()
    held = [getattr(eng.oc, k) for k in players_ev.OC_FIELDS]
    held += [getattr(tables, k) for k in TAB_FIELDS]
    gc.collect()
    refs = [sys.getrefcount(x) for x in held]
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        res = eng.play([EV] * 15 + [V1] * 15, deals, trace=True, record=True)
        res3 = eng.play([("random", "tavern", "brawler-v1")] * 30, deals)
        del res, res3
        gc.collect()
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    assert after.mi_alloc - before.mi_alloc > 1000  # the games allocated
    assert after.alloc - before.alloc == after.free - before.free
    assert after.mi_alloc - before.mi_alloc == after.mi_free - before.mi_free
    assert [sys.getrefcount(x) for x in held] == refs


def test_a_full_output_buffer_stops_the_chunk_naming_the_buffer():
    """play_chunk copies each game's log, card record, trace and decision rows behind the game's
    index (``game._append_rows``); a buffer without room copies nothing and stops the chunk at
    that game with E_CAPACITY and the buffer's CAP_* code (``game._out_of_room``), which
    FastGameError names."""
    import numpy as np

    from simulator.cove.fast import game as fg
    from simulator.cove.fast import packed as pk

    out = np.zeros((3, 3), np.int64)
    src = np.arange(6, dtype=np.int64).reshape(3, 2)
    assert fg._append_rows(out, 1, src, 2, 7)
    assert out.tolist() == [[0, 0, 0], [7, 0, 1], [7, 2, 3]]
    assert not fg._append_rows(out, 2, src, 2, 8)
    assert out.tolist() == [[0, 0, 0], [7, 0, 1], [7, 2, 3]]
    og = np.zeros((5, fg.GR_COLS), np.int64)
    assert fg._out_of_room(og, 4, pk.CAP_TRACE) == 4
    assert og[4, fg.GR_ERROR] == pk.E_CAPACITY and og[4, fg.GR_ERROR + 3] == pk.CAP_TRACE
    assert not og[:4].any()
