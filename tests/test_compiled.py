"""Cold start of compiled engines: one line on stderr the first time, nothing once cached."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap

from runner_tasks import compile_probe, load_module

from simulator.compiled import CompiledEngine, ensure_compiled, is_cached

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


def _callee_and_caller(module: str):
    """A callee given three module-level constants and a variable by a compiled caller, both
    defined as functions of ``module``."""
    import numpy as np
    from numba import njit

    def add(g, x):
        g[0] += x

    add.__module__ = module
    callee = njit(add)
    a, b, c = 1, 2, 3

    def calls(g):
        callee(g, a)
        callee(g, b)
        callee(g, c)
        callee(g, g[1])

    calls.__module__ = module
    caller = njit(calls)
    g = np.array([0, 10], np.int64)
    caller(g)
    return callee, int(g[0])


def test_house_functions_compile_once_per_argument_type_not_per_constant():
    """simulator.compiled.compile_nested_calls_once (installed by ``import simulator``): a
    house function called with three constants and a variable compiles once (int64), where a
    function outside the house compiles once per literal value and once for int64; the values
    are the same."""
    import simulator  # noqa: F401  (installs it)
    from simulator.compiled import compile_nested_calls_once

    assert compile_nested_calls_once()  # idempotent, and installed
    house, total = _callee_and_caller("simulator.probe")
    other, total_other = _callee_and_caller("elsewhere.probe")
    assert [str(t) for t in house.signatures[0]][1] == "int64"
    assert len(house.signatures) == 1
    assert len(other.signatures) == 4
    assert total == total_other == 16


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
