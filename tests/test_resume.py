"""Checkpoints and resume: pickle-free chunk files, refusals, and real processes killed mid-run.

An interrupted-then-resumed run must equal an uninterrupted one bit for bit: chunk ``i`` always gets
the same seed, and the chunks on disk are read back exactly.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import click
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from runner_tasks import counts_chunk, interrupting_chunk, mixed_chunk, run_main

from simulator import checkpoint as ck
from simulator.checkpoint import CheckpointError, CheckpointJob, UnsupportedResult
from simulator.clitools import simulation_options
from simulator.runner import Interrupted, RunResult, execution, run_chunks

ROOT = Path(__file__).resolve().parent.parent
TASKS = ROOT / "tests" / "runner_tasks.py"


def _job(root: Path, resume: bool = False, **params) -> CheckpointJob:
    return CheckpointJob(root=root, command="test run", params=params or {"k": 1}, resume=resume)


def _same_results(a: list, b: list) -> bool:
    return len(a) == len(b) and all(ck.same(x, y) for x, y in zip(a, b))


# ---------------------------------------------------------------------------------------------
# Chunk files: every supported result type reads back identical, nothing else is accepted


ROUND_TRIP = [
    np.arange(12, dtype=np.int64).reshape(3, 4),
    np.array([0.1, np.nan, -np.inf, 5e-324]),
    np.array([True, False]),
    np.array(["navy", "pirate"]),
    np.zeros((0, 3), dtype=np.float32),
    np.int16(-7),
    np.float64(0.1),
    pd.DataFrame(
        {
            "a": [1, 2],
            "b": [0.5, np.nan],
            "c": ["x", None],
            "d": pd.Categorical(["u", "v"]),
            "e": [True, False],
        },
        index=[10, 20],
    ),
    pd.Series([1.5, 2.5], index=["hull", "sails"], name="damage"),
    {"counts": np.arange(4), "nested": [(1, 2.5), {"x": None}], 3: "int key", (1, 2): "tuple key"},
    [1, 2**80, -0.0, float("nan"), float("inf"), "ünïcode", True, None],
    (Fraction(1, 3), Fraction(-5, 7)),
    RunResult(
        results=[np.arange(3)],
        n=3,
        chunk_size=3,
        entropy=2**100,
        n_jobs=1,
        wall_time_s=0.5,
        meta={"k": "v"},
    ),
]


@pytest.mark.parametrize("value", ROUND_TRIP, ids=lambda v: type(v).__name__)
def test_chunk_file_round_trip_is_exact(tmp_path, value):
    path = tmp_path / "chunk-0000000.npz"
    ck.save_chunk(path, value, {"chunk": 0})
    header, back = ck.load_chunk(path)
    assert header == {"chunk": 0}
    assert ck.same(value, back), (value, back)


@pytest.mark.parametrize(
    "value",
    [
        np.array([object(), 1], dtype=object),
        {1, 2},
        object(),
        lambda c: c,
        pd.DataFrame({"mixed": [1, "a"]}),
        complex(1, 2),
    ],
)
def test_results_that_need_pickle_are_refused(tmp_path, value):
    with pytest.raises(UnsupportedResult):
        ck.save_chunk(tmp_path / "chunk-0000000.npz", value, {"chunk": 0})


def test_same_notices_differences():
    assert not ck.same(np.arange(3), np.arange(3).astype(np.int32))
    assert not ck.same([1, 2], (1, 2))
    assert not ck.same(pd.DataFrame({"a": [1.0]}), pd.DataFrame({"a": [1.0 + 1e-16 * 4]}))
    assert ck.same(float("nan"), float("nan"))
    assert not ck.same(0.0, -0.0)


def _write_raw_npz(path: Path, spec: object, **arrays) -> None:
    blob = json.dumps({"header": {"chunk": 0}, "result": spec}).encode()
    np.savez(path, __spec__=np.frombuffer(blob, dtype=np.uint8), **arrays)


@pytest.mark.parametrize(
    "name,maker",
    [
        (
            "pickled object array",
            lambda p: np.savez(
                p,
                __spec__=np.frombuffer(
                    json.dumps({"header": {}, "result": {"t": "ndarray", "a": "a0"}}).encode(),
                    dtype=np.uint8,
                ),
                a0=np.array([{"evil": 1}], dtype=object),
            ),
        ),
        (
            "class outside Broadside",
            lambda p: _write_raw_npz(p, {"t": "dataclass", "cls": "os:system", "fields": []}),
        ),
        (
            "enum outside Broadside",
            lambda p: _write_raw_npz(p, {"t": "enum", "cls": "signal:Signals", "v": "SIGKILL"}),
        ),
        ("not a zip", lambda p: p.write_bytes(b"\x80\x04\x95 pickle-looking bytes")),
        ("no structure", lambda p: np.savez(p, a0=np.arange(3))),
        ("unknown entry", lambda p: _write_raw_npz(p, {"t": "eval", "v": "__import__('os')"})),
        ("missing array", lambda p: _write_raw_npz(p, {"t": "ndarray", "a": "a9"})),
        (
            "deep nesting",
            lambda p: _write_raw_npz(
                p,
                functools.reduce(
                    lambda acc, _: {"t": "list", "items": [acc]}, range(200), {"t": "none"}
                ),
            ),
        ),
        (
            "bad parquet",
            lambda p: _write_raw_npz(
                p, {"t": "dataframe", "a": "a0"}, a0=np.frombuffer(b"PAR1garbage", dtype=np.uint8)
            ),
        ),
        ("huge int text", lambda p: _write_raw_npz(p, {"t": "int", "v": "9" * 100_000})),
    ],
)
def test_hostile_chunk_files_are_refused_without_running_code(tmp_path, name, maker):
    path = tmp_path / "chunk-0000000.npz"
    maker(path)
    with pytest.raises(CheckpointError) as info:
        ck.load_chunk(path)
    msg = str(info.value)
    assert "\n" not in msg and str(path) in msg


# ---------------------------------------------------------------------------------------------
# Resume in-process: identical results, refusals on mismatch


def test_interrupt_then_resume_equals_uninterrupted(tmp_path):
    marker = tmp_path / "interrupt"
    marker.touch()
    task = functools.partial(interrupting_chunk, marker=str(marker), at=4)
    with execution(checkpoint=_job(tmp_path)), pytest.raises(Interrupted) as info:
        run_chunks(task, 1000, seed=11, chunk_size=100, n_jobs=1)
    assert "4 of 10 chunks saved" in str(info.value)
    assert f"--resume {tmp_path}" in str(info.value)
    marker.unlink()
    with execution(checkpoint=_job(tmp_path, resume=True)):
        resumed = run_chunks(task, 1000, chunk_size=100, n_jobs=1)  # seed comes from the checkpoint
    plain = run_chunks(task, 1000, seed=11, chunk_size=100, n_jobs=1)
    assert resumed.entropy == 11 and resumed.meta["chunks_resumed"] == 4
    assert _same_results(resumed.results, plain.results)


def test_resumed_mixed_results_are_identical_and_only_missing_chunks_run(tmp_path):
    task = functools.partial(mixed_chunk, width=4)
    with execution(checkpoint=_job(tmp_path)):
        first = run_chunks(task, 950, seed=3, chunk_size=100, n_jobs=1)
    folder = tmp_path / "chunks" / "run-000"
    for i in (0, 5, 9):
        (folder / f"chunk-{i:07d}.npz").unlink()
    with execution(checkpoint=_job(tmp_path, resume=True)):
        again = run_chunks(task, 950, seed=3, chunk_size=100, n_jobs=1)
    assert again.meta["chunks_resumed"] == 7
    assert _same_results(first.results, again.results)
    assert sorted(p.name for p in folder.glob("chunk-*.npz")) == [
        f"chunk-{i:07d}.npz" for i in range(10)
    ]


@pytest.mark.parametrize(
    "change,fragment",
    [
        ({"n": 1200}, "n (1000 in the checkpoint, 1200 now)"),
        ({"chunk_size": 50}, "chunk_size"),
        ({"seed": 12}, "--seed 11, not 12"),
        ({"task": functools.partial(counts_chunk, dice=5)}, "task.arguments"),
        ({"manifest": {"scenario_hash": "other"}}, "meta.scenario_hash"),
    ],
)
def test_resume_refuses_a_different_run(tmp_path, change, fragment):
    base = {
        "task": functools.partial(counts_chunk, dice=3),
        "n": 1000,
        "seed": 11,
        "chunk_size": 100,
        "manifest": {"scenario_hash": "abc"},
    }
    with execution(checkpoint=_job(tmp_path)):
        run_chunks(
            base["task"], base["n"], seed=11, chunk_size=100, n_jobs=1, manifest=base["manifest"]
        )
    args = {**base, **change}
    with execution(checkpoint=_job(tmp_path, resume=True)), pytest.raises(CheckpointError) as info:
        run_chunks(
            args["task"],
            args["n"],
            seed=args["seed"],
            chunk_size=args["chunk_size"],
            n_jobs=1,
            manifest=args["manifest"],
        )
    assert fragment in str(info.value) and "refused" in str(info.value)
    assert "\n" not in str(info.value)


def test_resume_refuses_other_options_and_empty_folders(tmp_path):
    _job(tmp_path, k=1)._prepare_fresh()
    with pytest.raises(CheckpointError, match=r"option k \(1 in the checkpoint, 2 now\)"):
        _job(tmp_path, resume=True, k=2).check_resumable()
    with pytest.raises(CheckpointError, match="no checkpoint to resume"):
        _job(tmp_path / "elsewhere", resume=True).check_resumable()
    other = CheckpointJob(root=tmp_path, command="other cmd", params={"k": 1}, resume=True)
    with pytest.raises(CheckpointError, match="not `other cmd`"):
        other.check_resumable()


def test_symlinked_checkpoint_folder_is_refused(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "chunks").symlink_to(tmp_path / "real")
    with (
        execution(checkpoint=_job(tmp_path / "out")),
        pytest.raises(CheckpointError, match="symbolic"),
    ):
        run_chunks(counts_chunk, 10, seed=1, chunk_size=5, n_jobs=1)


def test_fresh_run_replaces_an_old_checkpoint(tmp_path):
    with execution(checkpoint=_job(tmp_path)):
        run_chunks(counts_chunk, 1000, seed=1, chunk_size=100, n_jobs=1)
    with execution(checkpoint=_job(tmp_path)):
        run_chunks(counts_chunk, 300, seed=2, chunk_size=100, n_jobs=1)
    assert len(list((tmp_path / "chunks" / "run-000").glob("chunk-*.npz"))) == 3


# ---------------------------------------------------------------------------------------------
# The command line: --out / --resume on `broadside odds volley`, and on a command that has no --out


def test_odds_volley_out_then_resume_gives_the_same_json(tmp_path):
    out = tmp_path / "volley"
    args = [
        "odds",
        "volley",
        "--dice",
        "4",
        "--hit-on",
        "5",
        "--mc",
        "60000",
        "--jobs",
        "1",
        "--format",
        "json",
        "--quiet",
    ]
    code, first, err = run_main([*args, "--seed", "21", "--out", str(out)])
    assert code == 0, err
    assert (out / "volley.csv").is_file() and (out / "volley.json").is_file()
    chunks = sorted((out / "chunks" / "run-000").glob("chunk-*.npz"))
    assert len(chunks) == 6
    for p in chunks[2:5]:
        p.unlink()
    code, again, err = run_main([*args, "--resume", str(out)])  # no --seed: the recorded one
    assert code == 0, err
    assert json.loads(first) == json.loads(again)
    assert json.loads(again)["seed"] == "21"
    code, _, err = run_main([*args[:5], "6", *args[6:], "--resume", str(out)])
    assert code == 2
    assert (
        "option hit_on (5 in the checkpoint, 6 now)" in err and len(err.strip().splitlines()) == 1
    )


@click.command("plain")
@click.option("-n", "n", type=int, default=500)
@simulation_options
def _plain(n, seed, jobs, quiet):
    run = run_chunks(counts_chunk, n, seed=seed, n_jobs=jobs, quiet=quiet, chunk_size=100)
    click.echo(json.dumps({"counts": np.sum(run.results, axis=0).tolist(), "seed": run.entropy}))


def test_command_without_out_checkpoints_with_checkpoint_option(tmp_path):
    runner = CliRunner()
    first = runner.invoke(_plain, ["--seed", "4", "--jobs", "1", "--checkpoint", str(tmp_path)])
    assert first.exit_code == 0, first.output
    (tmp_path / "chunks" / "run-000" / "chunk-0000002.npz").unlink()
    again = runner.invoke(_plain, ["--jobs", "1", "--resume", str(tmp_path)])
    assert again.exit_code == 0, again.output
    assert json.loads(first.output) == json.loads(again.output)
    both = runner.invoke(_plain, ["--checkpoint", str(tmp_path), "--resume", str(tmp_path)])
    assert both.exit_code == 2


# ---------------------------------------------------------------------------------------------
# A real process killed mid-run (SIGINT = Ctrl-C, SIGKILL = no chance to clean up)


def _default_sigint() -> None:
    """In the child before exec: Ctrl-C's default disposition, as a command run from a terminal
    has it. A test run started in the background by a non-interactive shell (``cmd &``, as a CI
    script may) ignores SIGINT, a child inherits an ignored signal, and Python then never raises
    KeyboardInterrupt: the run would finish instead of stopping."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _slow(args, sleep: str, **kw):
    env = {**os.environ, "BROADSIDE_TEST_SLEEP": sleep, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, str(TASKS), "slow", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_default_sigint,
        **kw,
    )


@pytest.mark.slow  # two real processes each (about 10 s on a busy machine)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_killed_process_resumes_to_the_uninterrupted_result(tmp_path, sig):
    out = tmp_path / "run"
    args = ["-n", "4000", "--dice", "5", "--quiet"]
    proc = _slow([*args, "--jobs", "2", "--seed", "77", "--out", str(out)], sleep="0.5")
    folder = out / "chunks" / "run-000"
    try:
        deadline = time.monotonic() + 40
        while len(list(folder.glob("chunk-*.npz"))) < 4:  # some chunks done, most still to run
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no chunk was saved in time"
            time.sleep(0.02)
        os.kill(proc.pid, sig)
        proc.wait(timeout=30)  # the main process ends: no hang
    finally:
        # A SIGKILLed parent cannot stop its loky workers (they exit when idle); clear them here,
        # they hold our pipes open.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.wait()
    stdout, stderr = proc.communicate(timeout=30)
    saved = len(list(folder.glob("chunk-*.npz")))
    # no result was printed from a partial run
    assert stdout == "" and 4 <= saved < 40, (saved, stdout, stderr[-2000:])
    assert not list(folder.glob(".*.tmp")) or sig == signal.SIGKILL
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        lines = stderr.strip().splitlines()
        assert lines[-1].startswith("broadside: interrupted:") and f"--resume {out}" in lines[-1]
        assert "Traceback" not in stderr
    else:
        assert proc.returncode == -signal.SIGKILL
    resumed = _slow([*args, "--jobs", "1", "--resume", str(out)], sleep="0")
    stdout, stderr = resumed.communicate(timeout=60)
    assert resumed.returncode == 0, stderr
    got = json.loads(stdout)
    assert got["seed"] == 77 and got["resumed"] == saved
    with execution():
        plain = run_chunks(
            functools.partial(counts_chunk, dice=5), 4000, seed=77, chunk_size=100, n_jobs=1
        )
    assert got["counts"] == np.sum(plain.results, axis=0).tolist()
