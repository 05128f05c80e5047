"""Seeded, chunked, parallel execution of Monte Carlo jobs.

A job of ``n`` trials is cut into fixed-size chunks (the last one may be shorter). One root
:class:`numpy.random.SeedSequence` is made from the user's ``--seed`` (or from fresh entropy, which
is recorded so the run can be replayed) and ``spawn`` is called once for all chunks, before any
work is dispatched. Chunk ``i`` always receives child ``i`` whatever the worker count, so results
do not depend on ``n_jobs`` or the backend. Chunks run through :class:`joblib.Parallel` and their
results are returned in chunk order.

A chunk task is any picklable callable ``task(chunk: Chunk) -> result``; it builds its own
``np.random.default_rng(chunk.seed)``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from joblib import Parallel, delayed

DEFAULT_CHUNK_SIZE = 10_000
MAX_TRIALS = 10**10  # refused above this up front: a bigger job should be split into studies
MAX_CHUNKS = 1_000_000


class RunError(RuntimeError):
    """A run could not be set up or did not finish (bad sizes, a dead worker...)."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """One unit of work: which trials it covers and the seed it must use."""

    index: int  # position of the chunk in the job (0-based)
    start: int  # index of its first trial in the job
    size: int  # number of trials in it
    seed: np.random.SeedSequence  # child ``index`` of the root SeedSequence

    def rng(self) -> np.random.Generator:
        """A fresh generator for this chunk (PCG64, the numpy default)."""
        return np.random.default_rng(self.seed)


@dataclass(frozen=True, slots=True)
class RunResult:
    """Results of every chunk, in chunk order, with what is needed to replay the run."""

    results: list[Any]
    n: int
    chunk_size: int
    entropy: int  # root SeedSequence entropy: pass it back as --seed to replay
    n_jobs: int
    wall_time_s: float
    meta: dict[str, Any] = field(default_factory=dict)


def fresh_entropy() -> int:
    """Draw fresh OS entropy for a root seed (an int that replays the run when passed as --seed)."""
    return int(np.random.SeedSequence().entropy)


def resolve_jobs(n_jobs: int | None) -> int:
    """``None``/``-1``/``0`` mean every core; a positive number is taken as is."""
    cores = os.cpu_count() or 1
    if n_jobs is None or n_jobs <= 0:
        return cores
    return int(n_jobs)


def plan_chunks(n: int, chunk_size: int, entropy: int) -> list[Chunk]:
    """Cut ``n`` trials into chunks and give each its child seed (spawned once, in order)."""
    if n < 0:
        raise RunError(f"number of trials must be >= 0, got {n}")
    if n > MAX_TRIALS:
        raise RunError(f"-n {n} is above the limit of {MAX_TRIALS:,} trials per run")
    if chunk_size <= 0:
        raise RunError(f"chunk size must be >= 1, got {chunk_size}")
    n_chunks = -(-n // chunk_size)
    if n_chunks > MAX_CHUNKS:
        raise RunError(f"{n_chunks:,} chunks is above the limit of {MAX_CHUNKS:,}; raise the chunk size")
    root = np.random.SeedSequence(entropy)
    children = root.spawn(n_chunks)
    return [
        Chunk(index=i, start=i * chunk_size, size=min(chunk_size, n - i * chunk_size), seed=children[i])
        for i in range(n_chunks)
    ]


def _progress(total: int, desc: str, quiet: bool):
    show = not quiet and sys.stderr.isatty()
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="trial", file=sys.stderr, dynamic_ncols=True, leave=False)


def run_chunks(
    task: Callable[[Chunk], Any],
    n: int,
    *,
    seed: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    n_jobs: int | None = None,
    quiet: bool = False,
    desc: str = "simulating",
    backend: str | None = None,
    manifest: dict[str, Any] | None = None,
) -> RunResult:
    """Run ``task`` over ``n`` trials in seeded chunks; results come back in chunk order.

    Args:
        task: picklable callable taking a :class:`Chunk` and returning that chunk's result.
        n: number of trials.
        seed: root seed; ``None`` draws fresh entropy (recorded in the result).
        chunk_size: trials per chunk. Results depend on it (it fixes the seed tree), never on
            ``n_jobs``.
        n_jobs: worker processes (``None``/``-1``: every core).
        quiet: no progress bar (it is also off when stderr is not a terminal).
        desc: progress-bar label.
        backend: joblib backend name; ``None`` follows ``joblib.parallel_config`` (loky by default).
        manifest: what identifies the job besides seed and size (scenario provenance, command
            options); recorded in the result and in checkpoints so a resume can refuse a mismatch.
    """
    entropy = fresh_entropy() if seed is None else int(seed)
    if entropy < 0:
        raise RunError(f"--seed must be >= 0, got {entropy}")
    chunks = plan_chunks(n, chunk_size, entropy)
    jobs = resolve_jobs(n_jobs)
    started = time.perf_counter()
    results = execute(task, chunks, n_jobs=jobs, quiet=quiet, desc=desc, backend=backend)
    return RunResult(
        results=results,
        n=n,
        chunk_size=chunk_size,
        entropy=entropy,
        n_jobs=jobs,
        wall_time_s=time.perf_counter() - started,
        meta=dict(manifest or {}),
    )


def execute(
    task: Callable[[Chunk], Any],
    chunks: Sequence[Chunk],
    *,
    n_jobs: int,
    quiet: bool = False,
    desc: str = "simulating",
    backend: str | None = None,
    on_result: Callable[[Chunk, Any], None] | None = None,
) -> list[Any]:
    """Run the given chunks (in parallel when ``n_jobs > 1``) and return results in chunk order."""
    bar = _progress(sum(c.size for c in chunks), desc, quiet)
    results: list[Any] = []
    try:
        if n_jobs == 1 or len(chunks) <= 1:
            gen = (task(c) for c in chunks)
        else:
            parallel = Parallel(n_jobs=min(n_jobs, len(chunks)), backend=backend, return_as="generator")
            gen = parallel(delayed(task)(c) for c in chunks)
        for chunk, res in zip(chunks, gen):
            results.append(res)
            if on_result is not None:
                on_result(chunk, res)
            if bar is not None:
                bar.update(chunk.size)
    finally:
        if bar is not None:
            bar.close()
    return results
