"""Dask backend: a real dask.distributed cluster (two worker processes on loopback) gives results
bit-identical to loky; a dead Dask worker is a clear error; the cluster always shuts down."""

from __future__ import annotations

import functools
import json
import logging
import time

import pytest
from runner_tasks import counts_chunk, mixed_chunk, run_main, suicidal_chunk

from simulator import checkpoint as ck
from simulator import runner
from simulator.runner import RunError, WorkerDied, execution, run_chunks

distributed = pytest.importorskip("dask.distributed")

import dask  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes on 127.0.0.1; a worker that dies is not retried (allowed-failures 0)."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cl = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
    try:
        yield cl
    finally:
        cl.close(timeout=20)


def _identical(a, b) -> bool:
    return len(a) == len(b) and all(ck.same(x, y) for x, y in zip(a, b))


def test_dask_cluster_is_bit_identical_to_loky(cluster):
    task = functools.partial(mixed_chunk, width=4)
    loky = run_chunks(task, 1_730, seed=606, chunk_size=100, n_jobs=2)
    with execution(backend="dask", scheduler=cluster.scheduler_address) as ex:
        on_dask = run_chunks(task, 1_730, seed=606, chunk_size=100, n_jobs=2)
        client = ex.dask_client()
        assert len(client.scheduler_info()["workers"]) == 2
        assert all(
            addr.startswith("tcp://127.0.0.1:") for addr in client.scheduler_info()["workers"]
        )
    assert client.status == "closed"  # the command's client is shut down on exit
    assert _identical(loky.results, on_dask.results)


def test_cli_backend_dask_matches_loky(cluster):
    args = [
        "odds",
        "volley",
        "--dice",
        "5",
        "--hit-on",
        "4",
        "--reroll-misses",
        "2",
        "--mc",
        "50000",
        "--seed",
        "13",
        "--format",
        "json",
        "--quiet",
    ]
    code, loky, err = run_main(
        [*args, "--backend", "loky", "--jobs", "1"]
    )  # jobs: no effect on results
    assert code == 0, err
    code, on_dask, err = run_main(
        [*args, "--backend", "dask", "--scheduler", cluster.scheduler_address]
    )
    assert code == 0, err
    assert json.loads(loky) == json.loads(on_dask)


def test_dask_with_checkpoint_resumes_on_loky(cluster, tmp_path):
    job = ck.CheckpointJob(root=tmp_path, command="t", params={})
    with execution(backend="dask", scheduler=cluster.scheduler_address, checkpoint=job):
        first = run_chunks(counts_chunk, 900, seed=5, chunk_size=100)
    (tmp_path / "chunks" / "run-000" / "chunk-0000004.npz").unlink()
    with execution(
        backend="loky",
        checkpoint=ck.CheckpointJob(root=tmp_path, command="t", params={}, resume=True),
    ):
        again = run_chunks(counts_chunk, 900, chunk_size=100, n_jobs=1)
    assert again.meta["chunks_resumed"] == 8 and _identical(first.results, again.results)


@pytest.mark.slow
def test_scheduler_local_starts_and_stops_a_loopback_cluster():
    task = functools.partial(counts_chunk, dice=2)
    with execution(backend="dask", scheduler="local", local_workers=1) as ex:
        got = run_chunks(task, 500, seed=9, chunk_size=100)
        client = ex.dask_client()
        workers = list(client.scheduler_info()["workers"])
        assert len(workers) == 1 and workers[0].startswith("tcp://127.0.0.1:")
    assert client.status == "closed"
    assert _identical(got.results, run_chunks(task, 500, seed=9, chunk_size=100, n_jobs=1).results)


def test_unreachable_scheduler_is_one_line_error(monkeypatch):
    monkeypatch.setattr(runner, "SCHEDULER_CONNECT_TIMEOUT_S", 1)
    started = time.perf_counter()
    code, out, err = run_main(
        [
            "odds",
            "volley",
            "--dice",
            "2",
            "--hit-on",
            "5",
            "--mc",
            "100",
            "--quiet",
            "--scheduler",
            "tcp://127.0.0.1:9",
        ]
    )
    assert code == 2 and out == ""
    assert err.startswith(
        "broadside: error: cannot start or reach the dask scheduler tcp://127.0.0.1:9"
    )
    assert len(err.strip().splitlines()) == 1
    assert time.perf_counter() - started < 30


@pytest.mark.parametrize(
    "address", ["127.0.0.1", "tcp://", "http://x:80", "tcp://h:1; rm -rf /", "loca"]
)
def test_bad_scheduler_address_is_refused_before_connecting(address):
    with pytest.raises(RunError, match="is not a scheduler address"), execution(scheduler=address):
        pass


def test_dead_dask_worker_is_a_clear_error(cluster, tmp_path):
    """Runs last in this module: it kills one worker of the shared cluster (its nanny restarts
    it)."""
    marker = tmp_path / "kill-me"
    marker.touch()
    task = functools.partial(suicidal_chunk, marker=str(marker), victim=2)
    job = ck.CheckpointJob(root=tmp_path / "out", command="t", params={})
    started = time.perf_counter()
    with (
        execution(backend="dask", scheduler=cluster.scheduler_address, checkpoint=job),
        pytest.raises(WorkerDied) as info,
    ):
        run_chunks(task, 600, seed=3, chunk_size=100)
    assert time.perf_counter() - started < 60
    msg = str(info.value)
    assert msg.startswith("dask workers died while running a chunk") and "\n" not in msg
    assert f"--resume {tmp_path / 'out'}" in msg
