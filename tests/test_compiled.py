"""Cold start of compiled engines: one line on stderr the first time, nothing once cached."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap

import pytest
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


BORROW_PROBES = textwrap.dedent(
    """
    import numpy as np

    def unpack(t, i):  # a tuple argument unpacked, an item, a view of an item
        a, b = t
        c = t[1]
        row = b[1:]
        return a[i] + c[i] + row[0]

    def view_back(t):  # a view of a borrowed item, returned
        a = t[0]
        return a[1:]

    def item_back(t):  # a borrowed item, returned
        return t[1]

    def arg_back(a):  # the argument itself, returned
        return a

    def pick(t, u, k):  # one variable, a borrowed item of either tuple
        if k:
            x = t[0]
        else:
            x = u[0]
        return x.sum()

    def mixed(t, k):  # one variable, a borrowed item or a new array: it owns its reference
        if k:
            x = t[0]
        else:
            x = np.zeros(3)
        return x

    def in_list(t):  # borrowed items kept in a list that outlives the call
        out = [t[0]]
        out.append(t[1])
        return out

    def rows(m, n):  # views reassigned in a loop
        s = 0
        for i in range(n):
            r = m[i]
            s += r[0]
        return s

    def through(t):  # a callee's return handed on
        return item_back(t)

    def retuple(t):  # borrowed items in a new tuple that outlives the call
        a, b = t
        return (b, a)
    """
)


def _borrow_probes(module: str) -> dict:
    """The probes compiled as functions of ``module``; each variable set the lowering found
    borrowable is recorded in the returned dict under ``"_borrowed"``."""
    from numba import njit

    import simulator.compiled as compiled

    space: dict = {"__name__": module}
    exec(BORROW_PROBES, space)
    found: dict = {}
    original = compiled._borrowed_variables

    def record(lower):
        got = original(lower)
        found[lower.func_ir.func_id.func_name] = got
        return got

    compiled._borrowed_variables = record
    funcs = {}
    for name in ("item_back", "unpack", "view_back", "arg_back", "pick", "mixed", "in_list",
                 "rows", "through", "retuple"):  # fmt: skip
        py = space[name]
        py.__module__ = module
        funcs[name] = space[name] = njit(py)
    funcs["_borrowed"] = found
    funcs["_restore"] = lambda: setattr(compiled, "_borrowed_variables", original)
    return funcs


def test_house_functions_borrow_their_arguments_and_keep_counts_balanced():
    """simulator.compiled.borrow_arguments (installed by ``import simulator``): in a house
    function the arguments, their items, views and tuples unpacked hold borrowed references (a
    variable that may hold a new array does not), and every call leaves numba's allocation
    counts and the arguments' Python reference counts as it found them, results returned or
    kept in containers included -- a missing release would leak a meminfo and keep a reference
    to the array, an extra one would free it early."""
    import gc

    import numpy as np
    from numba.core.runtime import _nrt_python, rtsys

    import simulator  # noqa: F401  (installs it)
    from simulator.compiled import borrow_arguments

    assert borrow_arguments()  # idempotent, and installed
    f = _borrow_probes("simulator.probe_borrow")
    try:
        a, b = np.arange(6.0), np.arange(10.0, 16.0)
        m = np.arange(12.0).reshape(4, 3)
        t, u = (a, b), (b, a)
        calls = [
            ("unpack", (t, 2), 2.0 + 12.0 + 11.0),
            ("view_back", (t,), [1.0, 2.0, 3.0, 4.0, 5.0]),
            ("item_back", (t,), list(b)),
            ("arg_back", (a,), list(a)),
            ("pick", (t, u, True), a.sum()),
            ("pick", (t, u, False), b.sum()),
            ("mixed", (t, True), list(a)),
            ("mixed", (t, False), [0.0, 0.0, 0.0]),
            ("in_list", (t,), [list(a), list(b)]),
            ("rows", (m, 4), 0.0 + 3.0 + 6.0 + 9.0),
            ("through", (t,), list(b)),
            ("retuple", (t,), [list(b), list(a)]),
        ]
        for name, args, _ in calls:  # compile first: compiling allocates too
            f[name](*args)
        _nrt_python.memsys_enable_stats()
        for name, args, want in calls:
            gc.collect()
            refs = [sys.getrefcount(x) for x in (a, b, m)]
            before = rtsys.get_allocation_stats()
            for _ in range(3):
                got = f[name](*args)
                if isinstance(got, (list, tuple)):
                    got = [list(x) for x in got]
                elif isinstance(got, np.ndarray):
                    got = list(got)
                assert got == want, name
                del got
            gc.collect()
            after = rtsys.get_allocation_stats()
            assert after.alloc - before.alloc == after.free - before.free, name
            assert after.mi_alloc - before.mi_alloc == after.mi_free - before.mi_free, name
            assert after.mi_alloc > before.mi_alloc, name  # the arguments' meminfos came and went
            assert [sys.getrefcount(x) for x in (a, b, m)] == refs, name
        borrowed = f["_borrowed"]
        assert {"t", "a", "b", "c", "row"} <= borrowed["unpack"]
        assert {"t", "a"} <= borrowed["view_back"]
        assert {"t", "u", "x.2"} <= borrowed["pick"]  # SSA: x.2 = x or x.1 where the branches join
        assert "t" in borrowed["mixed"] and not {"x.1", "x.2"} & borrowed["mixed"]
        assert {"m", "r"} <= borrowed["rows"]
    finally:
        f["_restore"]()
        _nrt_python.memsys_disable_stats()


def test_functions_outside_the_house_count_their_references():
    """The same probes outside the house (``HOUSE_PREFIX``) are lowered as numba lowers them:
    no variable is even considered for borrowing."""
    import numpy as np

    f = _borrow_probes("elsewhere.probe_borrow")
    try:
        assert f["unpack"]((np.arange(6.0), np.arange(10.0, 16.0)), 2) == 25.0
        assert f["_borrowed"] == {}
    finally:
        f["_restore"]()


NONNEGATIVE_PROBES = textwrap.dedent(
    """
    def get(a, i):
        return a[i]

    def last(a):
        return a[-1]

    def put(m, i, j, v):
        m[i, j] = v
        return m[i, j]
    """
)


def _compile_probes(source: str, module: str, declarations: dict, check: bool, examples: dict):
    """The functions of ``source`` compiled now, in this check mode, as functions of ``module``
    whose globals hold ``declarations``; ``examples`` names each function with arguments of the
    types to compile it for."""
    from numba import njit, typeof

    import simulator.compiled as compiled

    space: dict = {"__name__": module, **declarations}
    exec(source, space)
    saved = compiled.CHECK_PROMISES
    compiled.CHECK_PROMISES = check
    try:
        funcs = {}
        for name, args in examples.items():
            space[name].__module__ = module
            funcs[name] = njit(space[name])
            funcs[name].compile(tuple(typeof(x) for x in args))
    finally:
        compiled.CHECK_PROMISES = saved
    return funcs


def _index_probes(module: str, declared: bool, check: bool) -> dict:
    """The probes compiled (now, in this mode) as functions of ``module``, which declares
    ``NONNEGATIVE_INDICES`` or not."""
    import numpy as np

    a, m = np.arange(5), np.zeros((2, 3), np.int64)
    examples = {"get": (a, 1), "last": (a,), "put": (m, 1, 2, 7)}
    declarations = {"NONNEGATIVE_INDICES": declared}
    return _compile_probes(NONNEGATIVE_PROBES, module, declarations, check, examples)


def test_declared_modules_index_without_wraparound_and_the_check_catches_a_negative_index():
    """simulator.compiled.index_without_wraparound (installed by ``import simulator``): in a
    module that declares ``NONNEGATIVE_INDICES = True`` an index is used as it is (no select of
    ``i + len`` in the machine code) while a negative constant keeps Python's meaning; in the
    checked mode a negative variable index raises IndexError; a module that does not declare it
    keeps Python's wraparound."""
    import re

    import numpy as np

    import simulator  # noqa: F401  (installs it)
    from simulator.compiled import index_without_wraparound

    assert index_without_wraparound()  # idempotent, and installed
    a = np.arange(10, 15)
    m = np.zeros((2, 3), np.int64)

    def body(dispatcher):
        ir = dispatcher.inspect_llvm(dispatcher.signatures[0])
        return re.split(r"\ndefine ", ir)[1]

    trusted = _index_probes("simulator.probe_nonnegative", True, False)
    assert trusted["get"](a, 3) == 13 and trusted["last"](a) == 14
    assert trusted["put"](m, 1, 2, 7) == 7 and m[1, 2] == 7
    assert " select " not in body(trusted["get"])
    wrapped = _index_probes("simulator.probe_wraparound", False, False)
    assert wrapped["get"](a, -2) == 13 and wrapped["last"](a) == 14
    assert " select " in body(wrapped["get"])
    checked = _index_probes("simulator.probe_nonnegative_checked", True, True)
    assert checked["get"](a, 3) == 13 and checked["last"](a) == 14
    with pytest.raises(IndexError, match="NONNEGATIVE_INDICES"):
        checked["get"](a, -1)
    with pytest.raises(IndexError, match="NONNEGATIVE_INDICES"):
        checked["put"](m, 0, -1, 5)
    assert m[0].tolist() == [0, 0, 0]


def test_the_checked_mode_needs_a_cache_of_its_own():
    """``BROADSIDE_CHECK_PROMISES=1`` without ``NUMBA_CACHE_DIR`` stops at import with one
    message: numba's cache would mix checked and unchecked machine code."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["BROADSIDE_CHECK_PROMISES"] = "1"
    run = subprocess.run(
        [sys.executable, "-c", "import simulator"], capture_output=True, text=True, env=env
    )
    assert run.returncode != 0
    assert "BROADSIDE_CHECK_PROMISES=1 needs NUMBA_CACHE_DIR" in run.stderr


NOALIAS_PROBES = textwrap.dedent(
    """
    def add_into(out, a, b):
        for i in range(out.shape[0]):
            out[i] = a[i] + b[i]
        return out[0]
    """
)


def _noalias_probe(module: str, declared: bool, check: bool):
    """The probe compiled (now, in this mode) as a function of ``module``, named in its
    ``NOALIAS_ARGUMENTS`` or not."""
    import numpy as np

    v = np.zeros(4)
    declarations = {"NOALIAS_ARGUMENTS": ("add_into",) if declared else ()}
    examples = {"add_into": (v, v, v)}
    return _compile_probes(NOALIAS_PROBES, module, declarations, check, examples)["add_into"]


def test_declared_functions_take_unaliased_arguments_and_the_check_catches_an_overlap():
    """simulator.compiled.arguments_without_aliases (installed by ``import simulator``): a
    function named in its module's ``NOALIAS_ARGUMENTS`` has ``noalias`` pointer arguments in
    its machine code, one that is not named has none; in the checked mode the declared function
    raises ValueError when two array arguments overlap (the same array twice, or overlapping
    views) and runs when they are disjoint views of one array or empty."""
    import re

    import numpy as np

    import simulator  # noqa: F401  (installs it)
    from simulator.compiled import arguments_without_aliases

    assert arguments_without_aliases()  # idempotent, and installed

    def header(dispatcher):
        ir = dispatcher.inspect_llvm(dispatcher.signatures[0])
        return next(line for line in ir.splitlines() if line.startswith("define "))

    trusted = _noalias_probe("simulator.probe_noalias", True, False)
    out, a, b = np.zeros(4), np.arange(4.0), np.arange(10.0, 14.0)
    assert trusted(out, a, b) == 10.0 and out.tolist() == [10.0, 12.0, 14.0, 16.0]
    assert len(re.findall(r"\bnoalias\b", header(trusted))) > 3  # the arrays' pointers, not only
    plain = _noalias_probe("simulator.probe_aliased", False, False)  # retptr and excinfo
    assert len(re.findall(r"\bnoalias\b", header(plain))) == 2
    outside = _noalias_probe("elsewhere.probe_noalias", True, False)
    assert len(re.findall(r"\bnoalias\b", header(outside))) == 2
    checked = _noalias_probe("simulator.probe_noalias_checked", True, True)
    buf = np.arange(12.0)
    assert checked(buf[0:4], buf[4:8], buf[8:12]) == 12.0  # disjoint views of one array
    with pytest.raises(ValueError, match="arguments 0 and 1 overlap"):
        checked(buf[0:4], buf[3:7], buf[8:12])
    with pytest.raises(ValueError, match="arguments 1 and 2 overlap"):
        checked(out, a, a)
