"""Readable mode: a game's compiled source run by Python, with numba's JIT off.

Each game has one engine, written for numba (``@njit``). Its readable reference is the same
source run as plain Python: with ``NUMBA_DISABLE_JIT=1`` numba's decorators return the Python
functions unchanged, so a debugger, ``print`` and coverage see every rule as written. That is
what ``--engine python`` means (``engine="python"``; ``"fast"``, the default, runs it compiled):
the same games die for die, only slower.

The flag is process-wide and read when numba is first imported, so it cannot be switched on in
a process that has compiled code: :func:`readable_results` runs the chunks of a readable run in
worker processes started with :data:`READABLE_ENV` (a loky executor of its own, which sets the
variables before any module is imported), or in this process when its JIT is already off
(``NUMBA_DISABLE_JIT=1 broadside ...``). The runner does it for a task when
``run_chunks(..., readable=True)``; :mod:`simulator.compiled` steps aside when the JIT is off.
Results depend on the seed and the block size only, in both modes, at any ``--jobs``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, wait
from typing import Any

from simulator.errors import UserError

#: the engines of a game with a readable mode: compiled, and the same source with the JIT off
ENGINES = ("fast", "python")
#: the environment of a worker process that runs the engines with the JIT off
READABLE_ENV = {"NUMBA_DISABLE_JIT": "1"}


def check_engine(engine: str | None, allowed: Iterable[str] = ENGINES) -> str:
    """``engine`` (``None``: ``"fast"``), or a one-line :class:`UserError` naming the allowed."""
    engine = engine or "fast"
    allowed = tuple(allowed)
    if engine not in allowed:
        raise UserError(f"--engine {engine!r} (allowed: {', '.join(allowed)})")
    return engine


def jit_disabled() -> bool:
    """Is numba's JIT off in this process (``NUMBA_DISABLE_JIT`` when numba was imported)?"""
    import numba

    return bool(numba.config.DISABLE_JIT)


def readable_results(
    call: Callable[[Any], Any], items: Iterable[Any], workers: int
) -> Iterator[Any]:
    """``call(item)`` for every item with the JIT off, yielded as each finishes (any order).

    In this process when its JIT is off and one worker is asked for; else in ``workers`` loky
    processes started with :data:`READABLE_ENV` for this call (at most ``2 * workers`` items in
    flight). An error in a worker is raised here as it was raised there.
    """
    if workers <= 1 and jit_disabled():
        yield from map(call, items)
        return
    from joblib.externals.loky import ProcessPoolExecutor

    # an executor of its own: joblib keeps loky's reusable one for its own arguments
    executor = ProcessPoolExecutor(max_workers=max(workers, 1), env=dict(READABLE_ENV))
    pending: set = set()
    try:
        for item in items:
            pending.add(executor.submit(call, item))
            if len(pending) >= 2 * max(workers, 1):
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                yield from (f.result() for f in done)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            yield from (f.result() for f in done)
    finally:
        executor.shutdown(wait=not pending, kill_workers=bool(pending))
