"""The readable engine's tests (``tests/cove_readable/``): the compiled Pirate's Cove source run by
Python with numba's JIT off, in a process started with ``NUMBA_DISABLE_JIT=1`` (numba reads the
flag when it is imported, so it cannot be switched inside this process).

The folder's own conftest collects nothing with the JIT on; this test runs it in a subprocess and
fails with its output when any of its tests fails, errors or is skipped.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "tests" / "cove_readable"


def run_readable(*args: str) -> subprocess.CompletedProcess:
    """``python -m pytest ARGS`` with the JIT off, from the checkout (only the folder's conftest:
    the suite's own compiles the engines, which the readable engine does not need)."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--confcutdir",
            str(FOLDER),
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_readable_engine_tests_pass():
    proc = run_readable(str(FOLDER))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    summary = out.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) > 0, out
    assert not re.search(r"failed|error|skipped|deselected|xfail|xpass", summary), out
