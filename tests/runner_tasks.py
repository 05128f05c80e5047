"""Chunk tasks shared by the runner, resume, dask and hostile-input tests (module level: picklable).

Also a tiny slow command (``python tests/runner_tasks.py ...``) that the resume tests run in a
real subprocess and kill mid-run. No tests live here.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from simulator.runner import Chunk  # noqa: E402


def _rolls(chunk: Chunk, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(die faces [trial, width], a normal variate per trial) from the chunk's block streams."""
    faces, normals = [], []
    for block in chunk.blocks():
        rng = block.rng("dice")
        faces.append(rng.integers(1, 7, size=(block.size, width)))
        normals.append(rng.normal(size=block.size))
    return np.concatenate(faces), np.concatenate(normals)


def mixed_chunk(chunk: Chunk, width: int = 3) -> dict:
    """Arrays, a DataFrame, scalars: the kinds of result the engines return."""
    rolls, normals = _rolls(chunk, width)
    hits = (rolls >= 5).sum(axis=1)
    frame = pd.DataFrame(
        {
            "trial": np.arange(chunk.start, chunk.start + chunk.size),
            "hits": hits,
            "score": normals,
            "side": pd.Categorical(
                np.where(hits % 2 == 0, "navy", "pirate"), categories=["navy", "pirate"]
            ),
        }
    )
    return {
        "counts": np.bincount(hits, minlength=width + 1),
        "frame": frame,
        "mean": float(normals.mean()),
        "index": chunk.index,
    }


def counts_chunk(chunk: Chunk, dice: int = 3) -> np.ndarray:
    """Small result (a histogram): memory of a run must not grow with n."""
    hits = (_rolls(chunk, dice)[0] >= 5).sum(axis=1)
    return np.bincount(hits, minlength=dice + 1)


def suicidal_chunk(chunk: Chunk, marker: str, victim: int = 3) -> np.ndarray:
    """Kills its own worker process on chunk ``victim`` while the file ``marker`` exists."""
    if chunk.index == victim and os.path.exists(marker):
        os.kill(os.getpid(), signal.SIGKILL)
    if chunk.index > victim:
        time.sleep(0.05)  # later chunks are still running when the victim dies
    return counts_chunk(chunk)


def interrupting_chunk(chunk: Chunk, marker: str, at: int = 4) -> np.ndarray:
    """Raises KeyboardInterrupt (as Ctrl-C would) on chunk ``at`` while ``marker`` exists
    (jobs=1)."""
    if chunk.index == at and os.path.exists(marker):
        raise KeyboardInterrupt
    return counts_chunk(chunk)


def slow_chunk(chunk: Chunk, dice: int = 4) -> np.ndarray:
    """A histogram that takes a while (BROADSIDE_TEST_SLEEP seconds per chunk, read at run time)."""
    time.sleep(float(os.environ.get("BROADSIDE_TEST_SLEEP", "0")))
    return counts_chunk(chunk, dice)


def pid_chunk(chunk: Chunk, sleep: float = 0.0) -> tuple[int, np.ndarray]:
    """(the process that ran the chunk, its histogram), after sleeping ``sleep`` seconds."""
    time.sleep(sleep)
    return os.getpid(), counts_chunk(chunk)


def load_module(path) -> object:
    """The Python module at ``path``, imported under its file name (tests' throwaway kernels).

    The module is registered in ``sys.modules`` before it runs, as an import would: numba names
    a compiled function's environment after its module, and a process that loads the function
    from the cache imports that module by name once the module object that compiled it has been
    collected (unregistered, numba called it ``<dynamic>``, which no process can import)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def compile_probe(group: tuple[str, ...]) -> None:
    """A :class:`simulator.compiled.CompiledEngine` ``build`` for tests/test_compiled.py: each
    entry ``"<module path>::<label>"`` loads the module (``triple`` compiled by numba with
    ``cache=True``), compiles ``triple`` for int64 and writes ``<pid> <start> <end>`` to
    ``<module path>.<label>.txt``; the label ``fail`` raises instead."""
    from numba.core import types

    for entry in group:
        path, label = entry.split("::")
        if label == "fail":
            raise ValueError(f"probe {label} failed on purpose")
        start = time.time()
        load_module(path).triple.compile((types.int64,))
        Path(f"{path}.{label}.txt").write_text(f"{os.getpid()} {start} {time.time()}")


def run_main(args: list[str]) -> tuple[int, str, str]:
    """Run ``cli.main`` in-process like the ``broadside`` command: (exit code, stdout, stderr)."""
    import contextlib
    import io

    import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def _slow_cli() -> None:
    """``python tests/runner_tasks.py slow -n N --out DIR ...``: a real command, killed by
    tests."""
    import functools
    import json

    import click

    import cli
    from simulator.clitools import simulation_options
    from simulator.runner import run_chunks

    @click.command("slow")
    @click.option("-n", "n", type=int, required=True)
    @click.option("--dice", type=int, default=4)
    @click.option("--out", type=click.Path(file_okay=False), default=None)
    @simulation_options
    def slow(n, dice, out, seed, jobs, quiet):
        run = run_chunks(
            functools.partial(slow_chunk, dice=dice),
            n,
            seed=seed,
            n_jobs=jobs,
            quiet=quiet,
            chunk_size=100,
            manifest={"test": "slow"},
        )
        total = np.sum(run.results, axis=0)
        click.echo(
            json.dumps(
                {
                    "counts": total.tolist(),
                    "seed": run.entropy,
                    "resumed": run.meta.get("chunks_resumed"),
                }
            )
        )

    cli.cli.add_command(slow)
    cli.main(sys.argv[1:])


if __name__ == "__main__":
    _slow_cli()
