"""Seeded, chunked, parallel execution of Monte Carlo jobs.

The seed tree. The root entropy is the user's ``--seed`` (or fresh entropy, recorded so the run
can be replayed). A job's ``n`` trials are grouped into fixed **blocks** of ``block_size``
consecutive trials, a size the task fixes once (part of the seed tree); block ``b`` hands out
named streams (:data:`STREAMS`: ``dice``, ``players``...), each
``SeedSequence(entropy, spawn_key=(0, b, stream id, *sub))``. Work is cut into **chunks** of
whole blocks (the unit of dispatch, checkpoint and progress), sized freely
(:func:`auto_chunk_size`): since every random number comes from a block stream, results depend on
the seed and the block size only, never on the chunk size, ``n_jobs`` or the backend.
:func:`derive_seed` gives sub-runs (report sections, sequential looks, search rungs) roots of
their own. Chunks run through :class:`joblib.Parallel` and come back in chunk order.

A chunk task is any picklable callable ``task(chunk: Chunk) -> result``; it draws only from
``block.rng(name)`` for the blocks of ``chunk.blocks()`` (never a generator built by hand).

Execution settings that are not the engine's business come from the command line through
:func:`execution` (a :class:`contextvars.ContextVar` set by ``simulation_options``), so every
command gets them without passing anything:

* the backend: ``loky`` (local processes) or ``dask`` (a ``dask.distributed`` cluster, through
  joblib's Dask backend; ``--scheduler local`` starts a ``LocalCluster`` on loopback);
* checkpoints: every finished chunk is written to ``DIR/chunks`` (see
  :mod:`simulator.checkpoint`); a resumed run loads the chunks on disk and runs only the missing
  ones. A chunk's blocks get the same streams either way, so a resumed run equals an
  uninterrupted one.

A dead worker process (loky's ``TerminatedWorkerError``, Dask's ``KilledWorker``) becomes a
one-line :class:`RunError` saying how many chunks are saved and how to resume.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from joblib import Parallel, delayed

from simulator.compiled import CompiledEngine, ensure_compiled
from simulator.engine_mode import readable_results

DEFAULT_CHUNK_SIZE = 10_000
MAX_TRIALS = 10**10  # refused above this up front: a bigger job should be split into studies
MAX_CHUNKS = 1_000_000
MAX_JOBS = 256  # worker processes on one machine (--jobs); a cluster is sized by its workers
BACKENDS = ("loky", "dask")
SCHEDULER_CONNECT_TIMEOUT_S = 15


class RunError(RuntimeError):
    """A run could not be set up or did not finish (bad sizes, a dead worker...)."""


class WorkerDied(RunError):
    """A worker process died while running chunks (killed, out of memory, crashed)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run; the message says what was saved and how to resume."""


#: Named random streams a task may draw from, with their fixed ids (part of the seed tree: never
#: renumber one). Add a name at the end when a game needs a new kind of randomness.
STREAMS: Mapping[str, int] = MappingProxyType(
    {
        "dice": 1,  # the game's chance: dice, shuffles, draws
        "players": 2,  # the players' own randomness (noise, tie-breaks), one sub-stream per seat
        "commanders": 3,  # Pirates express commanders' randomness
        "sample": 4,  # study-level sampling (random builds, random fleets, random opponents)
        "search": 5,  # an optimiser's own proposals
        "rollout": 6,  # a search player's look-ahead (never the engine's dice)
    }
)
#: Spawn-key tags of the three kinds of node in the seed tree (blocks, derived roots, chunks)
_BLOCK_TAG, _DERIVED_TAG = 0, 1


def stream_id(name: str) -> int:
    """The fixed id of a named stream (a one-line error for an unknown name)."""
    try:
        return STREAMS[name]
    except KeyError:
        raise RunError(f"unknown random stream {name!r} (allowed: {', '.join(STREAMS)})") from None


@dataclass(frozen=True, slots=True)
class Block:
    """A fixed block of consecutive trials and its named random streams.

    The streams of block ``b`` are ``SeedSequence(entropy, spawn_key=(0, b, stream_id, *sub))``:
    they depend only on the root entropy, the block size and the block's number, never on how
    trials are grouped into chunks, on ``--jobs`` or on the backend.
    """

    index: int  # block number in the run: start // block_size
    start: int  # first trial of the block
    size: int  # trials in it (the last block of a run may be shorter)
    entropy: int

    def key(self, stream: str, *sub: int) -> tuple[int, ...]:
        """The spawn key of stream ``stream`` of this block (``sub`` picks a sub-stream): its seed
        is ``SeedSequence(self.entropy, spawn_key=self.key(stream, *sub))``."""
        return (_BLOCK_TAG, self.index, stream_id(stream), *(int(k) for k in sub))

    def seed(self, stream: str, *sub: int) -> np.random.SeedSequence:
        """The seed of stream ``stream`` (``sub`` picks a sub-stream, e.g. a seat or a deal)."""
        return np.random.SeedSequence(self.entropy, spawn_key=self.key(stream, *sub))

    def rng(self, stream: str, *sub: int) -> np.random.Generator:
        """A generator on stream ``stream`` of this block (PCG64)."""
        return np.random.default_rng(self.seed(stream, *sub))

    @property
    def trials(self) -> range:
        return range(self.start, self.start + self.size)


@dataclass(frozen=True, slots=True)
class Chunk:
    """One unit of work: which trials it covers (whole blocks) and how to get their streams."""

    index: int  # position of the chunk in the job (0-based)
    start: int  # index of its first trial in the job (a multiple of block_size)
    size: int  # number of trials in it
    entropy: int  # root entropy of the run
    block_size: int = 1  # trials per block of random streams

    def blocks(self) -> list[Block]:
        """The blocks of trials of this chunk, in order, each with its named streams."""
        b = self.block_size
        out = []
        for start in range(self.start, self.start + self.size, b):
            size = min(b, self.start + self.size - start)
            out.append(Block(index=start // b, start=start, size=size, entropy=self.entropy))
        return out

    @property
    def trials(self) -> range:
        return range(self.start, self.start + self.size)


def derive_seed(entropy: int, name: str, *index: int) -> int:
    """A 128-bit root seed for a sub-run (a report section, a look of a sequential test, a search
    rung, a validation run), fixed by the parent entropy, a name and indices.

    Sub-runs never share streams with their parent's blocks or with each other.
    """
    tag = int.from_bytes(name.encode()[:8].ljust(8, b"\0"), "little")
    key = (_DERIVED_TAG, tag, *(int(i) for i in index))
    words = np.random.SeedSequence(int(entropy), spawn_key=key).generate_state(4, np.uint32)
    return sum(int(w) << (32 * k) for k, w in enumerate(words))


def auto_chunk_size(
    n: int, block_size: int, *, target_chunks: int = 32, max_size: int = 10_000
) -> int:
    """Trials per chunk: whole blocks, about ``target_chunks`` chunks (every core busy, progress
    and checkpoints often), at most ``max_size`` trials. Independent of ``--jobs`` (so a run
    resumes with any worker count) and of no consequence for the numbers."""
    per = -(-max(n, 1) // target_chunks)
    per = max(block_size, -(-per // block_size) * block_size)
    cap = max(block_size, (max_size // block_size) * block_size)
    return min(per, cap)


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


#: what starting local worker processes costs before their first chunk (importing the project,
#: loading its compiled engines from numba's cache), in wall seconds: on 2 cores,
#: ``broadside cove play -n 400`` (0.45 s of games) took 2.7-2.9 s with ``--jobs 2`` and
#: 1.9-2.0 s with ``--jobs 1``; ``benchmarks/scaling.py`` prints it for Les Pirates
#: (``pool_start_s``)
WORKER_START_S = 1.0


def worth_workers(rest_s: float, n_jobs: int) -> bool:
    """Whether ``rest_s`` seconds of work left (in this process) end sooner on ``n_jobs`` new
    workers: ``WORKER_START_S + rest_s / n_jobs < rest_s``."""
    return n_jobs > 1 and rest_s > WORKER_START_S * n_jobs / (n_jobs - 1)


def resolve_jobs(n_jobs: int | None) -> int:
    """``None``/``-1``/``0`` mean every core; a positive number is taken as is (up to MAX_JOBS)."""
    cores = os.cpu_count() or 1
    if n_jobs is None or n_jobs <= 0:
        return cores
    if n_jobs > MAX_JOBS:
        raise RunError(f"--jobs {n_jobs} is above the limit of {MAX_JOBS} worker processes")
    return int(n_jobs)


def check_sizes(n: int, chunk_size: int) -> int:
    """Refuse absurd job sizes up front (naming the limit); return the number of chunks."""
    if n < 0:
        raise RunError(f"number of trials must be >= 0, got {n}")
    if n > MAX_TRIALS:
        raise RunError(f"-n {n} is above the limit of {MAX_TRIALS:,} trials per run")
    if chunk_size <= 0:
        raise RunError(f"chunk size must be >= 1, got {chunk_size}")
    n_chunks = -(-n // chunk_size)
    if n_chunks > MAX_CHUNKS:
        raise RunError(
            f"{n_chunks:,} chunks is above the limit of {MAX_CHUNKS:,}; raise the chunk size"
        )
    return n_chunks


def iter_chunks(
    n: int,
    chunk_size: int,
    entropy: int,
    skip: frozenset[int] = frozenset(),
    *,
    block_size: int = 1,
    offset: int = 0,
) -> Iterator[Chunk]:
    """Chunks of a job, made one at a time (memory does not grow with ``n``).

    Chunk ``i`` covers trials ``offset + i * chunk_size`` onwards (whole blocks of
    ``block_size``); its blocks' streams depend only on ``entropy`` and the trial numbers.
    """
    n_chunks = check_sizes(n, chunk_size)
    if chunk_size % block_size or offset % block_size:
        raise RunError(
            f"chunk size {chunk_size} and offset {offset} must be multiples of the block size "
            f"{block_size}"
        )
    for i in range(n_chunks):
        if i in skip:
            continue
        yield Chunk(
            index=i,
            start=offset + i * chunk_size,
            size=min(chunk_size, n - i * chunk_size),
            entropy=entropy,
            block_size=block_size,
        )


def _progress(total: int, desc: str, quiet: bool, initial: int = 0):
    show = not quiet and sys.stderr.isatty()
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        desc=desc,
        unit="trial",
        file=sys.stderr,
        dynamic_ncols=True,
        leave=False,
    )


# --------------------------------------------------------------------------------------------
# Execution settings from the command line (backend, cluster, checkpoints)

_SCHEDULER_RE = re.compile(r"^(tcp|tls|ucx|ws|wss)://[A-Za-z0-9_.\-\[\]:]+:\d{1,5}/?$")


def check_scheduler(address: str | None) -> str | None:
    """``None``, ``"local"`` or a ``scheme://host:port`` address, else a one-line RunError."""
    if address is None or address == "local":
        return address
    if not isinstance(address, str) or not _SCHEDULER_RE.match(address):
        raise RunError(
            f"--scheduler {address!r} is not a scheduler address "
            "(allowed: local, or tcp://HOST:PORT as printed by `dask scheduler`)"
        )
    return address


@dataclass(slots=True)
class Execution:
    """How this command's runs execute: backend, Dask cluster, checkpoint folder."""

    backend: str | None = None  # "loky", "dask" or None (joblib's parallel_config decides)
    scheduler: str | None = None  # "local" (a LocalCluster) or a scheduler address
    local_workers: int | None = None  # worker processes of a local Dask cluster
    checkpoint: Any = None  # a simulator.checkpoint.CheckpointJob, or None
    quiet: bool = False
    _client: Any = None
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    def dask_client(self) -> Any:
        """The ``dask.distributed.Client`` of this command (started on first use, closed at
        exit)."""
        if self._client is not None:
            return self._client
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise RunError(
                "--backend dask needs dask.distributed (allowed: pip install 'broadside[dask]', "
                "or --backend loky)"
            ) from None
        import logging

        try:
            if self.scheduler in (None, "local"):
                cluster = self._stack.enter_context(
                    LocalCluster(
                        n_workers=self.local_workers or resolve_jobs(None),
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=None,
                        silence_logs=logging.CRITICAL,  # our one-line error says it
                    )
                )
                client = self._stack.enter_context(Client(cluster, set_as_default=False))
            else:
                client = self._stack.enter_context(
                    Client(
                        self.scheduler, timeout=SCHEDULER_CONNECT_TIMEOUT_S, set_as_default=False
                    )
                )
        except (OSError, TimeoutError, ValueError) as exc:
            where = self.scheduler or "local"
            raise RunError(
                f"cannot start or reach the dask scheduler {where} ({_first_line(exc)})"
            ) from None
        self._client = client
        return client

    def close(self) -> None:
        """Shut the Dask client (and a local cluster) down."""
        self._client = None
        self._stack.close()


_EXECUTION: contextvars.ContextVar[Execution | None] = contextvars.ContextVar(
    "broadside_execution", default=None
)


def current_execution() -> Execution | None:
    """The execution settings of the running command (``None`` outside one)."""
    return _EXECUTION.get()


@contextlib.contextmanager
def execution(
    *,
    backend: str | None = None,
    scheduler: str | None = None,
    local_workers: int | None = None,
    checkpoint: Any = None,
    quiet: bool = False,
) -> Iterator[Execution]:
    """Run the enclosed code (a command) with these execution settings; every
    :func:`run_chunks` call inside follows them. A Dask cluster started here is shut down on exit.

    Args:
        backend: ``"loky"``, ``"dask"`` or ``None`` (joblib's ``parallel_config``, loky by default).
        scheduler: with ``dask``: ``"local"`` (default) starts a ``LocalCluster`` of
            ``local_workers`` processes on 127.0.0.1; ``tcp://HOST:PORT`` joins a running scheduler.
        checkpoint: a :class:`simulator.checkpoint.CheckpointJob` (write / resume chunks), or None.
    """
    if backend is not None and backend not in BACKENDS:
        raise RunError(f"--backend {backend!r} is not known (allowed: {', '.join(BACKENDS)})")
    check_scheduler(scheduler)
    if scheduler is not None and backend is None:
        backend = "dask"
    if scheduler is not None and backend != "dask":
        raise RunError(
            "--scheduler needs --backend dask (allowed: drop --scheduler, or use --backend dask)"
        )
    settings = Execution(
        backend=backend,
        scheduler=scheduler,
        local_workers=local_workers,
        checkpoint=checkpoint,
        quiet=quiet,
    )
    token = _EXECUTION.set(settings)
    try:
        yield settings
    finally:
        _EXECUTION.reset(token)
        settings.close()


def _first_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return (lines[0] if lines else type(exc).__name__)[:300]


# --------------------------------------------------------------------------------------------
# Running chunks


class _Indexed:
    """Wraps a chunk task so that results can come back in any order: ``(index, size, result)``."""

    __slots__ = ("task",)

    def __init__(self, task: Callable[[Chunk], Any]):
        self.task = task

    def __getstate__(self):
        return self.task

    def __setstate__(self, state):
        self.task = state

    def __call__(self, chunk: Chunk) -> tuple[int, int, Any]:
        return chunk.index, chunk.size, self.task(chunk)

    def __repr__(self) -> str:  # names the Dask tasks
        func = self.task
        while isinstance(func, functools.partial):
            func = func.func
        return f"broadside-chunk-{getattr(func, '__name__', type(func).__name__)}"


@functools.cache
def _dask_backend_class() -> type:
    """joblib's Dask backend, fixed so that a task the scheduler gives up on (``KilledWorker``: its
    workers died) reaches ``Parallel`` as an error. joblib 1.3-1.6 only set the error on a future
    nobody reads and never call Parallel's callback, so the run would wait forever."""
    import asyncio

    from joblib._dask import DaskDistributedBackend

    class _DaskBackend(DaskDistributedBackend):
        async def _collect(self):
            while self._continue:
                async for future, result in self.waiting_futures:
                    cf_future = self._results.pop(future)
                    callback = self._callbacks.pop(future)
                    if future.status == "error":
                        _, exc, _ = result
                        cf_future.set_exception(exc)
                        if callback is not None:
                            callback(exc)  # Parallel registers the task as failed and raises exc
                    else:
                        cf_future.set_result(result)
                        callback(result)
                await asyncio.sleep(0.01)

    required = ("waiting_futures", "_results", "_callbacks", "_continue")
    probe = (
        DaskDistributedBackend.__init__.__code__.co_names
        + DaskDistributedBackend.start_call.__code__.co_names
    )
    if not all(
        name in probe for name in required
    ):  # pragma: no cover - a joblib that changed inside
        return DaskDistributedBackend
    return _DaskBackend


def _dask_backend(client: Any) -> Any:
    """A joblib Dask backend instance on ``client`` (``None``: dask's default client)."""
    return _dask_backend_class()(client=client) if client is not None else _dask_backend_class()()


def _dead_worker(exc: BaseException) -> WorkerDied | None:
    name = type(exc).__name__
    if name == "TerminatedWorkerError":
        codes = re.search(r"exit codes of the workers are (\{[^}]*\})", str(exc))
        detail = f"exit codes {codes.group(1)}" if codes else "killed or crashed"
        return WorkerDied(f"a worker process died while running chunks ({detail})")
    if name == "BrokenProcessPool":
        return WorkerDied(f"the worker pool broke while running chunks ({_first_line(exc)})")
    if name == "KilledWorker":
        text = str(exc)
        tries = re.search(r"on (\d+) different workers", text)
        last = re.search(r"was (\S+?)\.? ", text)
        detail = (
            ", ".join(
                filter(
                    None,
                    [
                        f"tried on {tries.group(1)} worker(s)" if tries else None,
                        f"last {last.group(1).rstrip('.')}" if last else None,
                    ],
                )
            )
            or "the scheduler gave up on it"
        )
        return WorkerDied(
            f"dask workers died while running a chunk ({detail}; see the worker logs)"
        )
    if name in ("CommClosedError", "FutureCancelledError") or (
        name == "CancelledError" and type(exc).__module__.startswith("distributed")
    ):
        return WorkerDied(f"lost the dask cluster while running chunks ({_first_line(exc)})")
    return None


def _iter_results(
    task: Callable[[Chunk], Any],
    chunks: Iterable[Chunk],
    n_chunks: int,
    *,
    n_jobs: int,
    backend: str | None,
    readable: bool = False,
    auto_jobs: bool = False,
) -> Iterator[tuple[int, int, Any]]:
    """``(index, size, result)`` for every chunk, as each finishes (any order).

    ``auto_jobs`` (``--jobs -1``, every core, on the loky backend): the chunks run in this
    process, one by one, until the time they took (the first one's aside) projects the rest as
    long enough to gain from ``n_jobs`` workers (:func:`worth_workers`); the rest then go to the
    workers. A short run (a few seconds of work) never starts a worker, each of which would
    first import the project and load its compiled engines. The numbers do not change: they
    depend on the seed and the block size only."""
    settings = _EXECUTION.get()
    chosen = backend if backend is not None else (settings.backend if settings else None)
    wrapped = _Indexed(task)
    try:
        if readable:  # the JIT off, in worker processes of its own (simulator.engine_mode)
            if chosen == "dask":
                raise RunError("--engine python runs on this machine (allowed: --backend loky)")
            yield from readable_results(wrapped, chunks, min(n_jobs, n_chunks))
        elif chosen == "dask":
            from joblib import parallel_config

            client = settings.dask_client() if settings is not None else None
            with parallel_config(backend=_dask_backend(client)):
                parallel = Parallel(n_jobs=-1, return_as="generator_unordered")
                yield from parallel(delayed(wrapped)(c) for c in chunks)
        elif n_jobs == 1 or n_chunks <= 1:
            for c in chunks:
                yield wrapped(c)
        else:
            todo = iter(chunks)
            left = n_chunks
            spent = 0.0  # by the chunks run here after the first (which pays this process's
            # one-off costs: building the engine's tables, the compiled functions' first calls)
            while auto_jobs and left:  # here while the rest is too short to pay for workers
                ran = n_chunks - left  # chunks run here before this one
                t = time.perf_counter()
                res = wrapped(next(todo))
                if ran:
                    spent += time.perf_counter() - t
                left -= 1
                yield res
                if ran and worth_workers(spent / ran * left, n_jobs):
                    break
            if left:  # joblib runs a single chunk (n_jobs=1) in this process
                parallel = Parallel(
                    n_jobs=min(n_jobs, left), backend=chosen, return_as="generator_unordered"
                )
                yield from parallel(delayed(wrapped)(c) for c in todo)
    except Exception as exc:
        dead = _dead_worker(exc)
        if dead is None:
            raise
        raise dead from None


def run_chunks(
    task: Callable[[Chunk], Any],
    n: int,
    *,
    seed: int | None = None,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    block_size: int = 1,
    offset: int = 0,
    n_jobs: int | None = None,
    quiet: bool = False,
    desc: str = "simulating",
    backend: str | None = None,
    manifest: dict[str, Any] | None = None,
    compiled: CompiledEngine | None = None,
    consume: Callable[[int, Any, int], Any] | None = None,
    readable: bool = False,
) -> RunResult:
    """Run ``task`` over ``n`` trials in seeded chunks; results come back in chunk order.

    Inside a command (see :func:`execution`), the backend, the Dask cluster and the checkpoint
    folder come from the command line: with a checkpoint every finished chunk is saved, and a
    resumed run loads the chunks already saved and runs only the others (same seeds, same result).

    Args:
        task: picklable callable taking a :class:`Chunk` and returning that chunk's result.
        n: number of trials.
        seed: root seed; ``None`` draws fresh entropy (recorded in the result), or on a resume
            takes the entropy recorded in the checkpoint.
        chunk_size: trials per chunk, a multiple of ``block_size`` (``None``: chosen by
            :func:`auto_chunk_size`). Tasks draw only from ``chunk.blocks()`` streams, so results
            depend on neither the chunk size, ``n_jobs`` nor the backend.
        block_size: trials per block of random streams (see :class:`Block`); part of the seed
            tree, so a game fixes it once.
        offset: number of the first trial (a multiple of ``block_size``): a run of trials
            ``offset .. offset + n - 1`` replays exactly those trials of a longer run.
        n_jobs: worker processes (``None``/``-1``: every core, once the chunks run so far in
            this process show the rest worth starting them, see :func:`worth_workers`).
        quiet: no progress bar (it is also off when stderr is not a terminal).
        desc: progress-bar label.
        backend: joblib backend name; ``None`` follows the command's ``--backend``, else
            ``joblib.parallel_config`` (loky by default).
        compiled: the numba engine the task runs, if any: when it is not cached yet, one line on
            stderr says it is being compiled (and how long that takes), and it is compiled once
            here before the workers start (see :mod:`simulator.compiled`).
        readable: run the task with numba's JIT off (``--engine python``), in worker processes
            started so when this one's JIT is on (:mod:`simulator.engine_mode`).
        manifest: what identifies the job besides seed and size (scenario provenance, command
            options); recorded in the result and in checkpoints so a resume can refuse a mismatch.
        consume: ``consume(index, result, entropy)`` is called once per chunk in chunk order
            (results that finish early wait for the ones before them), chunks loaded from a
            checkpoint included; what it returns is kept in ``RunResult.results`` instead of
            the chunk's result. A caller that writes each chunk out and returns ``None`` keeps
            memory flat in ``n``: only the chunks waiting for an earlier one are held.

    Raises:
        RunError: absurd sizes (before any work), a dead worker (with what was saved), a
            checkpoint that does not match.
        Interrupted: Ctrl-C (a KeyboardInterrupt saying what was saved).
    """
    if seed is not None and int(seed) < 0:
        raise RunError(f"--seed must be >= 0, got {seed}")
    if block_size < 1:
        raise RunError(f"block size must be >= 1, got {block_size}")
    if chunk_size is None:
        chunk_size = auto_chunk_size(n, block_size)
    n_chunks = check_sizes(n, chunk_size)
    jobs = resolve_jobs(n_jobs)
    settings = _EXECUTION.get()
    ckpt = settings.checkpoint if settings is not None else None
    saved = None
    if ckpt is not None:
        saved = ckpt.open_run(
            task=task,
            n=n,
            chunk_size=chunk_size,
            seed=seed,
            manifest=manifest,
            fresh_entropy=fresh_entropy,
        )
        entropy = saved.entropy
        results: dict[int, Any] = dict(saved.done)
    else:
        entropy = fresh_entropy() if seed is None else int(seed)
        results = {}
    done = frozenset(results)
    if compiled is not None and not readable and len(done) < n_chunks and n > 0:
        first = next(
            iter_chunks(
                min(n, block_size), block_size, entropy, block_size=block_size, offset=offset
            )
        )
        ensure_compiled(
            compiled, lambda: task(first), quiet=settings.quiet if settings is not None else quiet
        )
    started = time.perf_counter()
    bar = _progress(n, desc, quiet, initial=sum(min(chunk_size, n - i * chunk_size) for i in done))
    pending: dict[int, Any] = {}  # finished chunks waiting for an earlier one (consume only)
    consumed = 0  # chunks 0 .. consumed - 1 have been handed to consume

    def hand_over() -> None:
        nonlocal consumed
        while consumed in pending:
            results[consumed] = consume(consumed, pending.pop(consumed), entropy)
            consumed += 1

    if consume is not None:
        pending.update(results)
        hand_over()
    try:
        todo = iter_chunks(n, chunk_size, entropy, skip=done, block_size=block_size, offset=offset)
        for index, size, res in _iter_results(
            task,
            todo,
            n_chunks - len(done),
            n_jobs=jobs,
            backend=backend,
            readable=readable,
            auto_jobs=n_jobs is None or n_jobs <= 0,
        ):
            if saved is not None:
                saved.save(index, size, res)
            if consume is None:
                results[index] = res
            else:
                pending[index] = res
                hand_over()
            if bar is not None:
                bar.update(size)
    except WorkerDied as exc:
        raise WorkerDied(f"{exc}; {_saved_hint(ckpt)}") from None
    except KeyboardInterrupt:
        raise Interrupted(_saved_hint(ckpt)) from None
    finally:
        if bar is not None:
            bar.close()
    if len(results) != n_chunks:  # pragma: no cover - a backend that drops results
        raise RunError(f"only {len(results)} of {n_chunks} chunks came back (no result was made)")
    meta = dict(manifest or {})
    if ckpt is not None:
        meta.setdefault("checkpoint", str(ckpt.folder))
        meta.setdefault("chunks_resumed", len(done))
    return RunResult(
        results=[results[i] for i in range(n_chunks)],
        n=n,
        chunk_size=chunk_size,
        entropy=entropy,
        n_jobs=jobs,
        wall_time_s=time.perf_counter() - started,
        meta=meta,
    )


def _saved_hint(ckpt: Any) -> str:
    if ckpt is None:
        return "nothing was saved (add --checkpoint DIR or --out DIR to make the run resumable)"
    return f"{ckpt.summary()}; resume with --resume {ckpt.root}"


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
    chunks = list(chunks)
    by_index = {c.index: c for c in chunks}
    bar = _progress(sum(c.size for c in chunks), desc, quiet)
    results: dict[int, Any] = {}
    try:
        for index, size, res in _iter_results(
            task, chunks, len(chunks), n_jobs=n_jobs, backend=backend
        ):
            results[index] = res
            if on_result is not None:
                on_result(by_index[index], res)
            if bar is not None:
                bar.update(size)
    finally:
        if bar is not None:
            bar.close()
    return [results[c.index] for c in chunks]
