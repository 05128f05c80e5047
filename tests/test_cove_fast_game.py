"""The compiled Pirate's Cove game (simulator.cove.fast) die for die against the readable engine.

Every check here is exact: the same deal (the runner's block streams) played by both engines
must give the same decisions, the same results and leave every random stream in the same state.
The 10,000-table run is ``python -m simulator.cove.fast.compare -n 10000`` (reported in
docs/rules-cove.md, "Engines"); this file runs a sample of it, the v1 golden playthroughs, the
``api.play(engine=...)`` wiring and the engine choice.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from cli import main
from scenarios.loader import load_scenario
from simulator.cove import fast, golden
from simulator.cove.api import choose_engine, play
from simulator.cove.fast import game as fg
from simulator.cove.fast.compare import (
    SCENARIOS,
    compare_many,
    compiled_strategies,
    fast_result,
    first_difference,
    python_result,
    random_tables,
)
from simulator.cove.fast.engine import FastGames
from simulator.cove.fast.packed import compiled_kinds
from simulator.cove.rules import CoveRules
from simulator.errors import UserError
from simulator.runner import Block

RULES = load_scenario(None, CoveRules).rules
V1 = ("plunderer-v1", "brawler-v1", "tavern-v1", "balanced-v1")
EV = ("plunderer", "brawler", "tavern", "balanced")  # root "heuristic" (fast/players_ev.py)
SAMPLE_N, SAMPLE_SEED = 60, 1616


def test_an_edited_source_drops_the_compiled_cache(tmp_path):
    """numba keys its cache by a function's own file: an edit to packed.py (whose constants are
    frozen into game.py's machine code) must drop every cache file of the package."""
    src = Path(fast.__file__).resolve().parent
    for name in fast.COMPILED_MODULES:
        shutil.copy(src / f"{name}.py", tmp_path / f"{name}.py")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    (cache / "game.play_chunk-1.py311.nbi").write_text("x")
    assert fast.drop_stale_cache(tmp_path)  # no stamp yet: dropped
    assert not (cache / "game.play_chunk-1.py311.nbi").exists()
    (cache / "game.play_chunk-1.py311.nbi").write_text("x")
    assert not fast.drop_stale_cache(tmp_path)  # same sources: kept
    assert (cache / "game.play_chunk-1.py311.nbi").exists()
    with open(tmp_path / "packed.py", "a") as f:
        f.write("\nG_NEW = 99\n")
    assert fast.drop_stale_cache(tmp_path)
    assert not (cache / "game.play_chunk-1.py311.nbi").exists()


def test_compiled_kinds_are_every_kind():
    """Every kind is compiled; the die-for-die comparison covers all but the search player
    (its rollouts draw their own numbers: tests/test_cove_fast_rollout.py)."""
    assert set(compiled_strategies(RULES)) == {*EV, *V1, "random"}
    assert set(compiled_kinds(RULES)) == {
        "heuristic", *EV, "heuristic-v1", *V1, "random", "rollout"
    }  # fmt: skip
    assert set(compiled_kinds(RULES)) == set(RULES.kinds)


def _without_rollout(monkeypatch):
    """The compiled roots before the search player was compiled: the refusals' paths."""
    from simulator.cove.fast import packed

    monkeypatch.setattr(packed, "COMPILED_ROOTS", ("heuristic-v1", "random", packed.EV_ROOT))


def test_ci_sample_of_random_tables_is_die_for_die():
    """60 random tables (the 10,000-table script's draw with another seed): same decisions,
    results and stream states on both engines. The sample covers what the script covers: the
    expected-value kinds, the v1 baselines and random, 3-5 players, both Artisan switches."""
    tables = list(random_tables(SAMPLE_N, SAMPLE_SEED, compiled_strategies(RULES)))
    assert {len(names) for _, names in tables} == {3, 4, 5}
    assert {scen for scen, _ in tables} == set(range(len(SCENARIOS)))
    assert {nm for _, names in tables for nm in names} == {*EV, *V1, "random"}
    rep = compare_many(SAMPLE_N, SAMPLE_SEED)
    assert rep.games == SAMPLE_N and rep.decisions > 100 * SAMPLE_N
    assert rep.mismatches == []


def test_the_comparison_sees_one_changed_stream():
    """The check can fail: the same table dealt from the next block differs from the readable
    engine's game (and the same block does not)."""
    names = ("tavern-v1", "random", "brawler-v1")
    deal = Block(index=3, start=3, size=1, entropy=99)
    eng = FastGames(RULES, names)
    py = python_result(RULES, names, deal)
    assert first_difference(py, fast_result(eng, names, deal)) is None
    other = Block(index=4, start=4, size=1, entropy=99)
    assert first_difference(py, fast_result(eng, names, other)) is not None


@pytest.mark.parametrize("name", list(golden.CASES))
def test_compiled_game_replays_the_goldens(name):
    """The golden playthroughs (the v1 ones, the improved players' ``four_players_improved`` and
    the search player's ``three_players_rollout``, recorded from the compiled game): the
    compiled game, seeded as the recording was, takes every recorded decision and ends in the
    recorded state."""
    data = json.loads(golden.path_for(name).read_text())
    rules = golden._rules(data["scenario"])
    names = tuple(data["strategies"])
    deal = Block(index=0, start=0, size=1, entropy=data["seed"])
    fast = fast_result(FastGames(rules, names), names, deal)
    assert fast["trace"] == data["decisions"]
    final = data["final"]
    assert fast["battles"] == [tuple(b.values()) for b in final["battles"]]
    assert (fast["tie"], fast["duel"]) == (final["tie"], final["duel"])
    for s, want in enumerate(final["seats"]):
        got = fast["seats"][s]
        assert got[0] == want["fame"]
        assert list(got[1:7]) == list(want["fame_src"].values())
        assert (got[fg.SR_GOLD], got[fg.SR_CHESTS]) == (want["gold"], want["chests"])
        assert (got[fg.SR_BATTLES], got[fg.SR_ROUTED], got[fg.SR_FLED]) == (
            want["battles"],
            want["routed"],
            want["fled"],
        )
        assert got[fg.SR_SUNK] == want["pirates_sunk"]
    winners = [s for s in range(len(names)) if fast["seats"][s][-1] > 0]
    assert winners == final["winners"]


def _frames(res):
    return [res.seats, *(res.tables[k] for k in sorted(res.tables))]


def test_play_fast_equals_python_at_any_jobs_and_chunk_size():
    """api.play: the same seed gives the same tables on both engines, with --check, rotated
    seats, the card record, two jobs and any chunk size."""
    mix = ["tavern-v1", "random", "balanced", "brawler-v1", "plunderer"]
    kw = {"n": 23, "seed": 7, "rotate_seats": True, "cards": True, "check": True}
    py = play(None, mix, engine="python", chunk_size=4, **kw)
    fast = play(None, mix, engine="fast", chunk_size=3, jobs=2, **kw)
    auto = play(None, mix, chunk_size=None, **kw)
    assert py.summary["engine"] == "python" and fast.summary["engine"] == "fast"
    assert auto.summary["engine"] == "fast" and auto.provenance["engine"] == "fast"
    assert len(py.seats) == 23 * 5
    for a, b in zip(_frames(py), _frames(fast), strict=True):
        pd.testing.assert_frame_equal(a, b)
    for a, b in zip(_frames(fast), _frames(auto), strict=True):
        pd.testing.assert_frame_equal(a, b)
    skip = {"wall_time_s", "engine", "engine_note", "battle_engine", "provenance"}
    assert {k: v for k, v in py.summary.items() if k not in skip} == {
        k: v for k, v in fast.summary.items() if k not in skip
    }


def test_engine_choice_and_refusal(monkeypatch):
    assert choose_engine(None, RULES, ("plunderer", "rollout", "tavern-v1"))[0] == "fast"
    _without_rollout(monkeypatch)
    assert choose_engine(None, RULES, V1)[0] == "fast"
    assert choose_engine(None, RULES, EV) == ("fast", "every kind at the table is compiled")
    eng, why = choose_engine(None, RULES, ("plunderer", "rollout", "tavern-v1"))
    assert (eng, why) == ("python", "kinds rollout are not compiled")
    assert choose_engine("python", RULES, V1) == ("python", "asked for")
    with pytest.raises(UserError, match=r"--engine fast: kinds rollout are not compiled"):
        choose_engine("fast", RULES, ("brawler", "random", "rollout"))
    with pytest.raises(UserError, match=r"allowed: fast, python"):
        choose_engine("numba", RULES, V1)


def _cli(capsys, *args):
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_engine_note_and_exit_2(capsys, monkeypatch):
    _without_rollout(monkeypatch)
    code, out, err = _cli(
        capsys, "cove", "play", "-n", "4", "--seed", "2", "--engine", "fast",
        "--strategies", "rollout,brawler,random",
    )  # fmt: skip
    assert code == 2 and out == ""
    line = err.strip().splitlines()
    assert len(line) == 1
    assert "kinds rollout are not compiled" in line[0]
    assert "compiled kinds: heuristic, plunderer, brawler, tavern, balanced, random" in line[0]
    args = ["cove", "play", "-n", "4", "--seed", "2", "--strategies", ",".join(V1)]
    code, out, _ = _cli(capsys, *args)
    assert code == 0
    assert "engine fast (every kind at the table is compiled)" in out
    code, out, _ = _cli(capsys, "cove", "play", "-n", "4", "--seed", "2", "--players", "3")
    assert code == 0
    assert "engine fast (every kind at the table is compiled)" in out  # the default mix
    code, out, _ = _cli(
        capsys, "cove", "play", "-n", "1", "--seed", "2", "--strategies", "rollout,random,random"
    )
    assert code == 0
    assert "engine python (kinds rollout are not compiled)" in out
    code, out, _ = _cli(capsys, *args, "--format", "json")
    summary = json.loads(out)
    assert summary["engine"] == "fast" and summary["provenance"]["engine"] == "fast"


def test_compiled_games_release_every_array_they_allocate():
    """The compiled game's own arrays (each decision's scratch, the lone solver's stacks, views
    and tuples of the buffers) are all released: numba's allocation counts balance over 64
    games (the improved kinds and the v1 baselines with trace and record, then three-player
    tables with ``random``, then with the search player, whose rollouts allocate game states of
    their own), and the engine's tables and memos keep their Python reference
    counts. The house's functions borrow their arguments (``simulator.compiled.
    borrow_arguments``): a missing release would leak, an extra one free a buffer in use."""
    import gc
    import sys

    from numba.core.runtime import _nrt_python, rtsys

    eng = FastGames(RULES, EV + V1 + ("random", "rollout"))
    deals = [Block(index=i, start=i, size=1, entropy=2026) for i in range(30)]
    eng.play([EV] * 2, deals[:2], trace=True, record=True)  # buffers made, memos started
    held = [*eng.oc, *eng.tables.arrays()]
    gc.collect()
    refs = [sys.getrefcount(x) for x in held]
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        res = eng.play([EV] * 15 + [V1] * 15, deals, trace=True, record=True)
        res3 = eng.play([("random", "tavern", "brawler-v1")] * 30, deals)
        res4 = eng.play([("rollout", "random", "brawler-v1")] * 4, deals[:4])
        del res, res3, res4
        gc.collect()
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    assert after.mi_alloc - before.mi_alloc > 1000  # the games allocated
    assert after.alloc - before.alloc == after.free - before.free
    assert after.mi_alloc - before.mi_alloc == after.mi_free - before.mi_free
    assert [sys.getrefcount(x) for x in held] == refs
