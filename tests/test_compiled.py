"""Cold start of compiled engines: one line on stderr the first time, nothing once cached."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from runner_tasks import compile_probe, load_module

from simulator.compiled import CompiledEngine, ensure_compiled, is_cached

ROOT = Path(__file__).resolve().parent.parent

KERNEL = textwrap.dedent(
    """
    from numba import njit

    @njit(cache=True)
    def triple(x):
        return 3 * x
    """
)


def test_first_compile_is_announced_then_cached(tmp_path):
    src = tmp_path / "tiny_kernel.py"
    src.write_text(KERNEL)
    mod = load_module(src)
    engine = CompiledEngine("tiny engine", (mod.triple,), 5)
    assert not is_cached(mod.triple)
    err = io.StringIO()
    spent = ensure_compiled(engine, lambda: mod.triple(2), stream=err)
    lines = err.getvalue().splitlines()
    assert spent is not None and len(lines) == 2
    assert lines[0].startswith("compiling the tiny engine (first run on this machine; about 5 s")
    assert lines[1].startswith("compiled the tiny engine in ")
    assert is_cached(mod.triple)
    err = io.StringIO()
    assert ensure_compiled(engine, lambda: mod.triple(2), stream=err) is None
    assert err.getvalue() == ""
    # a new process finds the machine code on disk (numba's cache index) and says nothing
    probe = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('tiny_kernel', {str(src)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "from simulator.compiled import is_cached\n"
        "print(is_cached(m.triple))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "True"


def test_quiet_compiles_without_a_word(tmp_path):
    src = tmp_path / "tiny_kernel_quiet.py"
    src.write_text(KERNEL)
    mod = load_module(src)
    err = io.StringIO()
    engine = CompiledEngine("tiny engine", (mod.triple,), 5)
    assert ensure_compiled(engine, lambda: mod.triple(1), quiet=True, stream=err) is not None
    assert err.getvalue() == "" and is_cached(mod.triple)


def _callee_and_caller(constants):
    """A callee given three module-level ``constants`` and a variable by a compiled caller."""
    from numba import njit

    @njit
    def callee(g, x):
        g[0] += x

    a, b, c = constants

    @njit
    def caller(g):
        callee(g, a)
        callee(g, b)
        callee(g, c)
        callee(g, g[1])

    g = np.array([0, 10], np.int64)
    caller(g)
    return callee, int(g[0])


def test_codes_compile_a_callee_once_where_plain_ints_compile_it_once_per_value():
    """simulator.compiled.code / codes: numba types a plain ``int`` constant as a literal of its
    value and compiles a callee once per value passed (and once for a variable); a code is
    typed int64, so the callee compiles once. The values are the same."""
    from simulator.compiled import code, codes

    plain, total_plain = _callee_and_caller((1, 2, 3))
    coded, total_coded = _callee_and_caller((code(1), code(2), code(3)))
    assert len(plain.signatures) == 4
    assert len(coded.signatures) == 1 and str(coded.signatures[0][1]) == "int64"
    assert total_plain == total_coded == 16
    assert codes(3) == (0, 1, 2) and all(type(c) is np.int64 for c in codes(3))
    assert {code(3): "x"}[3] == "x"  # an int everywhere else: hashing, equality, indexing


#: plays games of every compiled engine and prints the house's compiled functions that were
#: compiled more than once for the same argument types up to a literal value (numba loads each
#: signature a call needs from its cache, or compiles it), and those this process compiled
#: instead of loading them from the cache (a cache miss)
ONE_SIGNATURE = textwrap.dedent(
    """
    import importlib, json, pkgutil
    from numba import types
    import simulator
    from simulator import api
    from simulator.compiled import State

    api.play("cove", n=2, seed=1)
    api.play("cove", ["random", "brawler-v1", "rollout", "tavern-v1"], n=2, seed=2)
    api.play("hunt", n=20, seed=3)
    api.play("hunt", n=20, seed=3, players=4)
    api.play("express", n=20, seed=4)
    api.duel("hull=2,crew=3,cannons=3,sails=2", "blackbeard", cards=["smoke", "grapeshot"])
    api.lethality(cards="smoke")
    again, compiled = {}, {}
    for info in pkgutil.walk_packages(simulator.__path__, "simulator."):
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            state = isinstance(obj, type) and issubclass(obj, State) and obj is not State
            if state and getattr(obj, "NEW", None) is None:
                compiled[info.name + "." + name] = "numba's own constructor, never cached"
            py = getattr(obj, "py_func", None)  # a numba dispatcher
            if py is None or py.__module__ != info.name:
                continue
            if obj.stats.cache_misses:
                compiled[info.name + "." + name] = [str(sig) for sig in obj.stats.cache_misses]
            plain = [tuple(types.unliteral(t) for t in sig) for sig in obj.signatures]
            if len(set(plain)) < len(plain):
                again[info.name + "." + name] = [str(sig) for sig in obj.signatures]
    print(json.dumps({"again": again, "compiled": compiled}))
    """
)


@pytest.mark.slow
def test_every_compiled_function_of_the_house_compiles_once_over_whole_games():
    """Over games of the three engines, the duel and the lethality table, no compiled function
    of the house is compiled twice for the same argument types: no literal value passed anywhere
    compiles a callee again (:func:`simulator.compiled.code`). A function may still hold one
    signature per genuinely different argument type (an int64 and a float64 table). Run in a
    process of its own, so the signatures are this run's. The conftest compiled the engines'
    warm-ups only (not every player, the duel or the lethality table), so a first process
    compiles what the cache still lacks; a second one, on the cache it filled, compiles none of
    the house's functions, the state objects' constructors included
    (:class:`simulator.compiled.State`)."""

    def probe() -> dict:
        run = subprocess.run(
            [sys.executable, "-c", ONE_SIGNATURE], capture_output=True, text=True, cwd=ROOT
        )
        assert run.returncode == 0, run.stderr[-3000:]
        return json.loads(run.stdout.strip().splitlines()[-1])

    assert probe()["again"] == {}
    assert probe() == {"again": {}, "compiled": {}}


def _probe_engine(tmp_path, waves):
    src = tmp_path / "tiny_kernel_waves.py"
    src.write_text(KERNEL)
    named = [[tuple(f"{src}::{label}" for label in group) for group in wave] for wave in waves]
    return src, CompiledEngine("tiny engine", (), 5, waves=named, build=compile_probe)


def test_waves_compile_side_by_side_into_the_cache(tmp_path):
    """simulator.compiled.compile_waves: a wave's groups run in different processes, the next
    wave after them, and what they compiled is in numba's cache for this process."""
    from simulator.compiled import compile_waves

    src, engine = _probe_engine(tmp_path, [[("a",), ("b",)], [("c",)]])
    assert compile_waves(engine, workers=2) == 2
    runs = {
        label: [float(x) for x in (tmp_path / f"{src.name}.{label}.txt").read_text().split()]
        for label in "abc"
    }
    assert runs["a"][0] != runs["b"][0]  # two processes
    assert all(pid != os.getpid() for pid, _, _ in runs.values())
    assert runs["c"][1] >= max(runs["a"][2], runs["b"][2])  # the second wave after the first
    mod = load_module(src)
    assert is_cached(mod.triple) and not mod.triple.signatures  # on disk, not compiled here


def test_waves_need_two_cores_and_raise_a_worker_failure(tmp_path):
    import pytest

    from simulator.compiled import compile_waves

    src, engine = _probe_engine(tmp_path, [[("a",), ("b",)]])
    assert compile_waves(engine, workers=1) == 0  # one core: the final compile does it all
    assert not list(tmp_path.glob("*.txt"))
    assert compile_waves(CompiledEngine("none", (), 5), workers=2) == 0
    _, failing = _probe_engine(tmp_path, [[("a",), ("fail",)]])
    with pytest.raises(ValueError, match="probe fail failed on purpose"):
        compile_waves(failing, workers=2)
