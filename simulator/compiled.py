"""Compiled engines: say so the first time one is built, and build it once, not once per worker.

numba compiles an ``@njit(cache=True)`` function on its first call and stores the machine code
in ``__pycache__``; later runs load it in a fraction of a second. The first run on a machine
therefore pays minutes of compilation. :func:`ensure_compiled` (called by the runner before a
run is dispatched, for tasks that declare a :class:`CompiledEngine`) checks whether the engine's
entry points are cached; if not, it prints one line on stderr saying that it is compiling and
roughly how long that takes, compiles in this process (so the worker processes find the cache
instead of each compiling its own copy), then says how long it took.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CompiledEngine:
    """What a compiled engine is called, its numba entry points, and its cold-compile time."""

    name: str  # e.g. "Les Pirates engine"
    dispatchers: Sequence[Any]  # the @njit(cache=True) entry points the task calls
    estimate_s: int  # measured cold compile on 2 cores (seconds, rounded up)


def is_cached(dispatcher: Any) -> bool:
    """True when ``dispatcher`` is compiled in this process or has machine code in the cache."""
    if getattr(dispatcher, "signatures", None):
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
    seconds spent, or ``None`` when everything was cached."""
    if all(is_cached(d) for d in engine.dispatchers):
        return None
    stream = stream or sys.stderr
    if not quiet:
        stream.write(
            f"compiling the {engine.name} (first run on this machine; about "
            f"{_minutes(engine.estimate_s)} on 2 cores, cached after) ...\n"
        )
        stream.flush()
    started = time.perf_counter()
    warm()
    spent = time.perf_counter() - started
    if not quiet:
        stream.write(f"compiled the {engine.name} in {spent:.0f} s\n")
        stream.flush()
    return spent


def _minutes(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} s"
    return f"{seconds / 60:.0f} min"
