"""The readable engine's tests: the compiled Pirate's Cove source run by Python with numba's JIT
off (``NUMBA_DISABLE_JIT=1``; the flag is read when numba is imported, so these files run in a
process started with it). There every engine function is a plain Python function: a test can
script the players' decisions and keep the shuffles' order (``tests/cove_table.py``).

``tests/test_cove_readable.py`` runs this folder in such a process (and fails with its output);
in a process with the JIT on nothing here is collected.
"""

import numba

if not numba.config.DISABLE_JIT:
    collect_ignore_glob = ["test_*.py"]
