"""The readable engine's tests: the compiled Pirate's Cove source run by Python with numba's JIT
off (``NUMBA_DISABLE_JIT=1``; the flag is read when numba is imported, so these files run in a
process started with it). There every engine function is a plain Python function: a test can
script the players' decisions and keep the shuffles' order (``tests/cove_table.py``).

``tests/test_cove_readable.py`` runs this folder in such a process (and fails with its output);
in a process with the JIT on nothing here is collected.
"""

import numba
import numpy as np
import pytest

if not numba.config.DISABLE_JIT:
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(autouse=True)
def _uint64_wraps():
    """The streams' and hashes' uint64 arithmetic wraps by design; numpy warns on it where numba
    does not. The engine's entry points run it under ``np.errstate(over="ignore")``
    (``simulator.cove.fast.engine``); so do these tests, which call its functions directly."""
    with np.errstate(over="ignore"):
        yield
