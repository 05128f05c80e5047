"""Readable mode (simulator/engine_mode.py): ``run_chunks(..., readable=True)`` runs a task with
numba's JIT off, in worker processes started with ``NUMBA_DISABLE_JIT=1`` when this process
compiles, in this process when its JIT is already off; same seed, same numbers at any ``--jobs``
and chunk size; the compiled-engine helpers step aside with the JIT off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from simulator.engine_mode import READABLE_ENV, check_engine, jit_disabled
from simulator.errors import UserError
from simulator.runner import RunError, execution, run_chunks

ROOT = Path(__file__).resolve().parent.parent


@njit(cache=False)
def _doubled(x):
    return 2 * x


def probe_chunk(chunk) -> dict:
    """What the process running the chunk sees, and numbers from the block streams."""
    import numba

    draws = [b.rng("dice").integers(0, 1000, size=b.size) for b in chunk.blocks()]
    return {
        "jit_off": bool(numba.config.DISABLE_JIT),
        "compiled": hasattr(_doubled, "signatures"),
        "pid": os.getpid(),
        "draws": np.concatenate(draws).tolist(),
        "doubled": int(_doubled(chunk.size)),
    }


def _run(n, **kw):
    return run_chunks(probe_chunk, n, seed=5, block_size=10, quiet=True, **kw).results


def test_readable_runs_in_workers_with_the_jit_off_and_the_same_numbers():
    assert not jit_disabled()  # the test process compiles
    compiled = _run(60, chunk_size=20, n_jobs=1)
    assert all(not r["jit_off"] and r["pid"] == os.getpid() for r in compiled)
    draws = [x for r in compiled for x in r["draws"]]
    for jobs, chunk_size in [(1, 20), (2, 30), (2, 10)]:
        readable = _run(60, chunk_size=chunk_size, n_jobs=jobs, readable=True)
        assert all(r["jit_off"] and not r["compiled"] for r in readable)
        assert all(r["pid"] != os.getpid() for r in readable)
        assert [x for r in readable for x in r["draws"]] == draws, (jobs, chunk_size)
    assert not jit_disabled()  # still compiling here


def test_readable_runs_in_this_process_when_its_jit_is_off():
    """A process started with the JIT off runs a readable job itself (one job), and the
    compiled-engine helpers step aside: nothing is cached, nothing to compile."""
    code = (
        "import os, sys; sys.path.insert(0, 'tests')\n"
        "from test_engine_mode import _run, _doubled\n"
        "from simulator.compiled import CompiledEngine, compile_waves, ensure_compiled, is_cached\n"
        "r = _run(20, chunk_size=10, n_jobs=1, readable=True)\n"
        "assert all(x['jit_off'] and x['pid'] == os.getpid() for x in r), r\n"
        "engine = CompiledEngine('probe', (_doubled,), 1, waves=((('a',),),), build=print)\n"
        "assert is_cached(_doubled) and compile_waves(engine) == 0\n"
        "assert ensure_compiled(engine, lambda: 1 / 0) is None\n"
        "print('ok')\n"
    )
    env = {**os.environ, **READABLE_ENV}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_a_readable_worker_error_is_raised_here():
    with pytest.raises(ZeroDivisionError):
        run_chunks(_failing_chunk, 20, seed=1, block_size=10, chunk_size=10, quiet=True,
                   n_jobs=2, readable=True)  # fmt: skip


def _failing_chunk(chunk):
    return 1 // (chunk.index - 1)


def test_engine_names_and_the_dask_backend_are_checked():
    assert check_engine(None) == "fast" and check_engine("python") == "python"
    with pytest.raises(UserError, match=r"--engine 'jit' \(allowed: fast, python\)"):
        check_engine("jit")
    with pytest.raises(UserError, match=r"allowed: fast\)"):
        check_engine("python", ("fast",))
    with execution(backend="dask"), pytest.raises(RunError, match="runs on this machine"):
        run_chunks(probe_chunk, 20, seed=1, block_size=10, quiet=True, readable=True)
