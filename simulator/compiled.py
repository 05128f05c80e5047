"""Compiled engines: say so the first time one is built, and build it once, not once per worker.

numba compiles an ``@njit(cache=True)`` function on its first call and stores the machine code
in ``__pycache__``; later runs load it in a fraction of a second. The first run on a machine
therefore pays minutes of compilation. :func:`ensure_compiled` (called by the runner before a
run is dispatched, for tasks that declare a :class:`CompiledEngine`) checks whether the engine's
entry points are cached; if not, it prints one line on stderr saying that it is compiling and
roughly how long that takes, compiles in this process (so the worker processes find the cache
instead of each compiling its own copy), then says how long it took. An engine may name groups
of its functions to compile side by side first (:attr:`CompiledEngine.waves`): on a machine with
two cores or more, :func:`compile_waves` compiles them in worker processes, each group in one
process and each wave after the one before, into numba's on-disk cache; the final compile in this
process then loads them from the cache instead of compiling them one after the other. numba
compiles a function's callees before it (their machine code is linked into its own), so a wave
names functions whose callees are in earlier waves or in the same group.

A compiled function compiles once per argument *type*, and numba types a module's plain ``int``
constant (``E_CAPACITY = 3``) and an integer written in the code as a literal of its value
(``Literal[int](3)``): a function of the house called with 26 different such constants compiles
26 times, and each of those compiles again the callees it passes them on to. So the codes a
module passes to its compiled functions are numpy integers (:func:`code`, :func:`codes`), which
numba types as ``int64`` whatever their value; ``tests/test_compiled.py`` checks that every
compiled function of the house has one signature after whole games.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import types
from numba.experimental import structref


def code(value: int) -> np.int64:
    """A named integer a module passes to its compiled functions: typed ``int64`` by numba, not a
    literal of its value (see the module docstring); an ``int`` everywhere else (``range``,
    indexing, ``==``, dictionary keys: ``hash(code(3)) == hash(3)``)."""
    return np.int64(value)


def codes(n: int) -> tuple[np.int64, ...]:
    """``n`` consecutive codes from 0 (``A, B, C = codes(3)``): :func:`code` of ``range(n)``."""
    return tuple(np.int64(i) for i in range(n))


class StateType(types.StructRef):
    """numba's type of a :class:`State` subclass: its fields typed by their values (never as a
    literal value, which would compile each function again per value)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class State(structref.StructRefProxy):
    """A compiled engine's group of arrays (a state, its scratch) as one object with named fields
    (``FIELDS``, in the constructor's order), in place of a tuple of the arrays: numba counts a
    reference to every array a compiled function receives, so a tuple of 20 arrays costs 40
    atomic counts a call, this object 2 (and one per field a function reads). Compiled code reads
    ``state.field``; Python reads the same objects (kept beside the compiled struct at
    construction). Bind a subclass to its type with :func:`define_state`.

    numba's own constructor is compiled again in every process that makes a state (about a
    quarter of a second each, without a cache); a subclass's module therefore passes
    :func:`define_state` a constructor of its own, ``@njit(cache=True)`` and returning
    ``Cls(*values)``, which later processes load from numba's cache."""

    FIELDS: tuple[str, ...] = ()
    #: the cached compiled constructor (set by :func:`define_state`)
    NEW: Callable[..., Any]

    def __new__(cls, *values):
        self = cls.NEW(*values)
        for name, value in zip(cls.FIELDS, values, strict=True):
            self.__dict__[name] = value
        return self

    def __getattr__(self, name: str):
        """A field of a state that compiled code made and returned (no Python objects kept
        beside it): read from the struct by a compiled getter, then kept."""
        if name not in type(self).FIELDS:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        value = _field_getter(name)(self)
        self.__dict__[name] = value
        return value


_GETTERS: dict[str, Any] = {}


def _field_getter(name: str):
    """A compiled function returning field ``name`` of any :class:`State` (one per name)."""
    getter = _GETTERS.get(name)
    if getter is None:
        from numba import njit

        space: dict = {}
        exec(f"def get(state):\n    return state.{name}\n", space)
        getter = _GETTERS[name] = njit(space["get"])
    return getter


class ReadableState:
    """A :class:`State` with numba's JIT off (``--engine python``): the same fields on a plain
    object (a compiled struct's constructor is compiled code)."""

    FIELDS: tuple[str, ...] = ()
    __slots__ = ()

    def __init__(self, *values):
        for name, value in zip(self.FIELDS, values, strict=True):
            setattr(self, name, value)


def define_state(proxy: type, type_class: type, new: Callable[..., Any]) -> type:
    """Register ``type_class`` (a :class:`StateType` subclass defined at module level, so that
    numba's cache can name it) and bind ``proxy`` (a :class:`State` subclass) to it; returns the
    class the engine constructs: ``proxy``, or with the JIT off a :class:`ReadableState` with the
    same fields. ``new``: the cached constructor (:class:`State`), a module-level
    ``@njit(cache=True)`` function of ``*values`` returning ``proxy(*values)``."""
    from simulator.engine_mode import jit_disabled

    structref.register(type_class)
    structref.define_proxy(proxy, type_class, list(proxy.FIELDS))
    proxy.NEW = new
    if jit_disabled():
        attrs = {"FIELDS": proxy.FIELDS, "__slots__": proxy.FIELDS, "__module__": proxy.__module__}
        return type(proxy.__name__, (ReadableState,), attrs)
    return proxy


@dataclass(frozen=True)
class CompiledEngine:
    """What a compiled engine is called, its numba entry points, and its cold-compile time."""

    name: str  # e.g. "Les Pirates engine"
    dispatchers: Sequence[Any]  # the @njit(cache=True) entry points the task calls
    estimate_s: int  # measured cold compile on 2 cores (seconds, rounded up)
    #: waves of groups of function names compiled side by side before the final compile
    #: (:func:`compile_waves`); empty: everything compiles in the final compile
    waves: Sequence[Sequence[Sequence[str]]] = ()
    #: compiles one group of ``waves`` (a module-level function: it runs in a worker process)
    build: Callable[[Sequence[str]], Any] | None = None


def python(func: Callable[..., Any]) -> Callable[..., Any]:
    """The Python function behind a compiled one (``Dispatcher.py_func``; the function itself
    with numba's JIT off): the same source run by Python, for the Python side of the house
    (the exact duels) to apply a rule of the compiled core without compiling it."""
    return getattr(func, "py_func", func)


def is_cached(dispatcher: Any) -> bool:
    """True when ``dispatcher`` is compiled in this process or has machine code in the cache
    (always, with the JIT off: nothing is compiled, :mod:`simulator.engine_mode`)."""
    from simulator.engine_mode import jit_disabled

    if jit_disabled() or getattr(dispatcher, "signatures", None):
        return True
    cache = getattr(dispatcher, "_cache", None)
    impl = getattr(cache, "_cache_file", None)
    index = getattr(impl, "_index_path", None)
    if index is None:  # not a cached numba dispatcher (numba internals moved): say nothing wrong
        return bool(getattr(dispatcher, "signatures", None))
    return os.path.exists(index)


def ensure_compiled(
    engine: CompiledEngine, warm: Callable[[], Any], *, quiet: bool = False, stream=None
) -> float | None:
    """Compile ``engine`` here if it is not cached yet (``warm`` runs a tiny job); returns the
    seconds spent, or ``None`` when everything was cached (or the JIT is off)."""
    from simulator.engine_mode import jit_disabled

    if jit_disabled() or all(is_cached(d) for d in engine.dispatchers):
        return None
    stream = stream or sys.stderr
    if not quiet:
        stream.write(
            f"compiling the {engine.name} (first run on this machine; about "
            f"{_minutes(engine.estimate_s)} on 2 cores, cached after) ...\n"
        )
        stream.flush()
    started = time.perf_counter()
    workers = compile_waves(engine)
    warm()
    spent = time.perf_counter() - started
    if not quiet:
        how = f" ({workers} processes)" if workers else ""
        stream.write(f"compiled the {engine.name} in {spent:.0f} s{how}\n")
        stream.flush()
    return spent


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def compile_waves(engine: CompiledEngine, workers: int | None = None) -> int:
    """Compile ``engine.waves`` side by side into numba's on-disk cache; returns the number of
    worker processes used (0: nothing to do, or one core only, where the final compile does all
    of it in turn, as fast).

    Each wave's groups run in a pool of ``workers`` processes (default: the available cores, at
    most the largest wave's number of groups), a group's functions in order in one process
    (``engine.build(group)``); a wave starts when the one before has finished, so its functions
    load their callees of earlier waves from the cache. The processes are forked from this one
    where the system can and this process runs one thread (they start at once, with its modules
    imported and nothing compiled), else started fresh ("spawn", which imports the main module
    of a script again: guard it with ``if __name__ == "__main__"``); they stop at the end. A
    failure in a worker is raised here as it was raised there. Only the time changes: the
    machine code is the same whichever process compiled it (numba's cache is keyed by each
    function's source and argument types); nothing with the JIT off."""
    from simulator.engine_mode import jit_disabled

    if not engine.waves or engine.build is None or jit_disabled():
        return 0
    widest = max(len(wave) for wave in engine.waves)
    workers = min(workers or available_cores(), widest)
    if workers < 2:
        return 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=_start_method()) as pool:
        for wave in engine.waves:
            for _ in pool.map(engine.build, [tuple(group) for group in wave]):
                pass
    return workers


def _start_method():
    """ "fork" where the system has it and only this thread runs (a fork copies one thread: with
    others running, a lock one of them held could stay locked in the copy), else "spawn"."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _sources_digest(here: Path, modules: Sequence[str], external: Sequence[Path]) -> str:
    h = hashlib.sha256()
    for name in modules:
        h.update(name.encode())
        h.update((here / f"{name}.py").read_bytes())
    for path in external:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _is_cache_file(f: Path, modules: Sequence[str] | None = None) -> bool:
    """A numba cache file (index or data), of one of ``modules`` if given."""
    if f.suffix not in (".nbi", ".nbc"):
        return False
    return modules is None or f.name.split(".", 1)[0] in modules


def drop_stale_cache(
    here: Path,
    modules: Sequence[str],
    external_sources: Sequence[Path] = (),
    external_callers: Sequence[str] = (),
) -> bool:
    """Delete the numba cache files of the package at ``here`` when its compiled sources changed
    since they were written; True when it deleted (or started) it.

    numba's on-disk cache (``@njit(cache=True)``, in ``__pycache__``) is keyed by each function's
    own source file, not by the module constants it reads at compile time nor by the callees it
    freezes into its machine code: an edit to a module of index constants alone would leave the
    cached code of the modules that read them indexing the old layout (a crash, or wrong numbers).
    So a compiled package keeps a digest of ``modules`` (its ``<name>.py`` files) and of
    ``external_sources`` beside its cache (``numba-sources.sha256``), and on a change deletes
    its cache files, and those of ``external_callers`` (modules of the parent package whose cached
    code calls the package's) in the parent's ``__pycache__``. The next run compiles again, and
    says so on stderr. A read-only install is left alone (numba then caches elsewhere or not at
    all)."""
    cache = here / "__pycache__"
    stamp = cache / "numba-sources.sha256"
    digest = _sources_digest(here, modules, external_sources)
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for f in cache.iterdir():
            if _is_cache_file(f):
                f.unlink(missing_ok=True)
        callers = here.parent / "__pycache__"
        if external_callers and callers.is_dir():
            for f in callers.iterdir():
                if _is_cache_file(f, external_callers):
                    f.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass
    return True


def _minutes(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} s"
    return f"{seconds / 60:.0f} min"
