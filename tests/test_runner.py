"""The seeded runner: bit-identical across --jobs, fixed seed tree, limits, dead workers, memory."""

from __future__ import annotations

import functools
import os
import time
import tracemalloc

import pytest
from runner_tasks import counts_chunk, mixed_chunk, pid_chunk, suicidal_chunk

from simulator import checkpoint as ck
from simulator.checkpoint import CheckpointJob
from simulator.runner import (
    MAX_CHUNKS,
    MAX_JOBS,
    MAX_TRIALS,
    WORKER_START_S,
    RunError,
    WorkerDied,
    execute,
    execution,
    iter_chunks,
    resolve_jobs,
    run_chunks,
    worth_workers,
)


def _identical(a, b) -> bool:
    return len(a) == len(b) and all(ck.same(x, y) for x, y in zip(a, b))


def test_jobs_1_and_jobs_2_are_bit_identical():
    task = functools.partial(mixed_chunk, width=5)
    one = run_chunks(task, 2_345, seed=2024, chunk_size=200, n_jobs=1)
    two = run_chunks(task, 2_345, seed=2024, chunk_size=200, n_jobs=2)
    assert one.entropy == two.entropy == 2024
    assert len(one.results) == 12
    assert [r["index"] for r in two.results] == list(
        range(12)
    )  # chunk order, whatever finished first
    assert _identical(one.results, two.results)
    assert two.results[-1]["frame"]["trial"].iloc[-1] == 2_344  # the short last chunk


def test_seed_tree_depends_on_seed_and_block_size_only():
    lazy = list(iter_chunks(1_050, 100, entropy=99, block_size=50))
    assert [c.size for c in lazy] == [100] * 10 + [50]
    assert [b.index for b in lazy[3].blocks()] == [6, 7] and lazy[3].blocks()[1].start == 350
    key = lazy[3].blocks()[1].seed("dice").spawn_key
    assert key == (0, 7, 1)  # (block tag, block 7, stream "dice")
    other = run_chunks(counts_chunk, 1_050, seed=100, chunk_size=100, n_jobs=1)
    same = run_chunks(counts_chunk, 1_050, seed=99, chunk_size=100, n_jobs=1)
    again = run_chunks(counts_chunk, 1_050, seed=99, chunk_size=100, n_jobs=1)
    assert _identical(same.results, again.results) and not _identical(same.results, other.results)


def test_fresh_entropy_is_recorded_and_replays():
    first = run_chunks(counts_chunk, 500, chunk_size=100, n_jobs=1)
    replay = run_chunks(counts_chunk, 500, seed=first.entropy, chunk_size=100, n_jobs=1)
    assert first.entropy > 2**64 and _identical(first.results, replay.results)


def test_execute_keeps_chunk_order():
    chunks = list(iter_chunks(700, 100, entropy=5))
    got = execute(counts_chunk, chunks, n_jobs=2)
    assert _identical(got, [counts_chunk(c) for c in chunks])


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        ({"n": 10**15}, f"above the limit of {MAX_TRIALS:,} trials"),
        ({"n": -1}, ">= 0"),
        ({"n": 10**9, "chunk_size": 1}, f"above the limit of {MAX_CHUNKS:,}"),
        ({"n": 10, "chunk_size": 0}, "chunk size must be >= 1"),
        ({"n": 10, "n_jobs": 10_000}, f"above the limit of {MAX_JOBS}"),
        ({"n": 10, "seed": -3}, "--seed must be >= 0"),
    ],
)
def test_absurd_sizes_are_refused_up_front(kwargs, fragment):
    ran = []

    def task(chunk):  # refused before any work: never called
        ran.append(chunk.index)
        return counts_chunk(chunk)

    with pytest.raises(RunError) as info:
        run_chunks(task, **kwargs)
    assert fragment in str(info.value) and "\n" not in str(info.value)
    assert ran == []


def test_resolve_jobs():
    assert resolve_jobs(None) == resolve_jobs(-1) == resolve_jobs(0) >= 1
    assert resolve_jobs(3) == 3


def test_workers_pay_off_when_the_rest_outlasts_their_start():
    # k workers finish rest_s in WORKER_START_S + rest_s / k: sooner exactly above k/(k-1) starts
    for k in (2, 3, 8):
        edge = WORKER_START_S * k / (k - 1)
        assert not worth_workers(edge, k)
        assert worth_workers(edge * 1.001, k)
    assert not worth_workers(1e9, 1)


def test_every_core_keeps_a_short_run_in_this_process():
    """--jobs -1 starts no worker for a run of a few milliseconds (each worker would first
    import the project and load its engines), and the numbers are those of --jobs 1 and 2."""
    runs = [run_chunks(pid_chunk, 800, seed=5, chunk_size=100, n_jobs=j) for j in (-1, 1, 2)]
    assert {pid for pid, _ in runs[0].results} == {os.getpid()}
    assert {pid for pid, _ in runs[2].results} != {os.getpid()}  # --jobs 2: workers, as asked
    for run in runs[1:]:
        assert _identical([c for _, c in runs[0].results], [c for _, c in run.results])


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="--jobs -1 is one worker on one core")
def test_every_core_hands_a_long_run_to_workers_after_two_chunks():
    """A chunk sleeps 0.5 s: after the first (not timed) and the second, the ten left project
    5 s here, more than WORKER_START_S * 2 / (2 - 1): they go to the workers, with the same
    numbers."""
    assert worth_workers(0.5 * 10, 2)
    task = functools.partial(pid_chunk, sleep=0.5)
    auto = run_chunks(task, 1_200, seed=5, chunk_size=100, n_jobs=-1, quiet=True)
    pids = [pid for pid, _ in auto.results]
    assert pids[:2] == [os.getpid()] * 2
    assert os.getpid() not in pids[2:]
    one = run_chunks(counts_chunk, 1_200, seed=5, chunk_size=100, n_jobs=1)
    assert _identical([c for _, c in auto.results], one.results)


def test_killed_worker_is_a_clear_error_and_the_run_resumes(tmp_path):
    marker = tmp_path / "kill-me"
    marker.touch()
    task = functools.partial(suicidal_chunk, marker=str(marker), victim=3)
    job = CheckpointJob(root=tmp_path / "out", command="test", params={})
    started = time.perf_counter()
    with execution(checkpoint=job), pytest.raises(WorkerDied) as info:
        run_chunks(task, 1_200, seed=8, chunk_size=100, n_jobs=2)
    assert time.perf_counter() - started < 60  # never a hang
    msg = str(info.value)
    assert msg.startswith("a worker process died while running chunks") and "\n" not in msg
    assert "SIGKILL" in msg and f"--resume {tmp_path / 'out'}" in msg and "chunks saved in" in msg
    saved = len(list((tmp_path / "out" / "chunks" / "run-000").glob("chunk-*.npz")))
    assert saved < 12  # the run did not pretend to finish
    marker.unlink()
    with execution(
        checkpoint=CheckpointJob(root=tmp_path / "out", command="test", params={}, resume=True)
    ):
        resumed = run_chunks(task, 1_200, chunk_size=100, n_jobs=2)
    plain = run_chunks(counts_chunk, 1_200, seed=8, chunk_size=100, n_jobs=1)
    assert resumed.meta["chunks_resumed"] == saved
    assert _identical(resumed.results, plain.results)


def test_killed_worker_without_checkpoint_says_how_to_make_runs_resumable(tmp_path):
    marker = tmp_path / "kill-me"
    marker.touch()
    task = functools.partial(suicidal_chunk, marker=str(marker), victim=0)
    with pytest.raises(WorkerDied, match=r"nothing was saved \(add --checkpoint DIR"):
        run_chunks(task, 400, seed=1, chunk_size=100, n_jobs=2)


def _peak_bytes(n: int) -> int:
    tracemalloc.start()
    try:
        run_chunks(counts_chunk, n, seed=1, chunk_size=10_000, block_size=10_000, n_jobs=1)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_is_flat_in_n():
    """Peak memory of a run depends on the chunk size, not on n (10x more trials, ~same peak)."""
    small = _peak_bytes(100_000)
    large = _peak_bytes(1_000_000)
    assert large < small * 1.3 + 200_000, (small, large)


def _block_draws(chunk):
    """Per-trial draws from the block streams (dice and a per-seat players sub-stream)."""
    out = []
    for block in chunk.blocks():
        dice = block.rng("dice").integers(0, 2**62, size=block.size)
        seat = block.rng("players", 3).integers(0, 2**62, size=block.size)
        out.extend(zip(block.trials, dice.tolist(), seat.tolist()))
    return out


def test_block_streams_do_not_depend_on_chunks_jobs_or_offset():
    from simulator.runner import run_chunks

    def flat(run):
        return [row for res in run.results for row in res]

    base = flat(run_chunks(_block_draws, 120, seed=7, chunk_size=10, block_size=10, n_jobs=1))
    assert [t for t, _, _ in base] == list(range(120))
    for chunk_size, jobs in ((30, 1), (120, 1), (20, 2), (None, 2)):
        run = run_chunks(
            _block_draws, 120, seed=7, chunk_size=chunk_size, block_size=10, n_jobs=jobs
        )
        assert flat(run) == base, (chunk_size, jobs)
    tail = run_chunks(_block_draws, 50, seed=7, chunk_size=10, block_size=10, offset=70)
    assert flat(tail) == base[70:]
    other = flat(run_chunks(_block_draws, 120, seed=8, chunk_size=10, block_size=10))
    assert all(a[1] != b[1] for a, b in zip(base, other))


def test_block_size_must_divide_chunks_and_streams_are_named():
    from simulator.runner import Block, RunError, derive_seed, run_chunks

    with pytest.raises(RunError, match="multiples of the block size"):
        run_chunks(_block_draws, 100, seed=1, chunk_size=15, block_size=10)
    with pytest.raises(RunError, match="unknown random stream 'dise'"):
        Block(0, 0, 1, 5).rng("dise")
    a, b = derive_seed(5, "look", 0), derive_seed(5, "look", 1)
    assert a != b and derive_seed(5, "look", 0) == a and a.bit_length() > 64
