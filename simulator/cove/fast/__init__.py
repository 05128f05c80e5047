"""The compiled Pirate's Cove game (issue 16): see ``docs/rules-cove.md``, "Engines".

numba's on-disk cache (``@njit(cache=True)``, in ``__pycache__``) is keyed by each function's
own source file, not by the module constants it reads at compile time: the ``packed.py`` index
constants and the functions of the other modules it calls are frozen into the machine code. An
edit to ``packed.py`` alone would leave ``game.py``'s cached code reading the old columns. So
this package keeps a digest of all its compiled sources beside the cache, and when any of them
changed since the cache was written it deletes the package's cache files (the next run compiles
again, and says so on stderr: :func:`simulator.compiled.drop_stale_cache`). The same holds the
other way round for compiled code outside the package that calls the package's rules: the battle
kernel (``combat_kernel.py``) calls ``core.py``, so its cache files (in the parent package's
``__pycache__``) are deleted with the package's.
"""

from __future__ import annotations

from pathlib import Path

from simulator import compiled

#: the modules whose @njit(cache=True) code is cached (every one the compiled game calls)
COMPILED_MODULES = (
    "packed", "rng", "core", "odds", "seedseq", "lone", "company", "records", "players_ev",
    "players_ev_battle", "players", "battle", "game", "rollout",
)  # fmt: skip
#: sources outside the package that shape the package's cached machine code: company.py calls
#: the battle kernel's ``_run`` (and so freezes it into its code), and ``simulator/compiled.py``
#: makes the codes (numpy integers) the modules freeze into the machine code and the state
#: objects' types (as for Les Pirates, ``simulator.hunt.EXTERNAL_SOURCES``)
EXTERNAL_SOURCES = (
    Path(__file__).resolve().parent.parent / "combat_kernel.py",
    Path(__file__).resolve().parents[2] / "compiled.py",
)
#: modules of the parent package whose cached code calls the package's (and so freezes it into
#: its machine code): the battle kernel calls core.py's rules; their numba cache files
#: (``<module>.<function>-<line>.py<ver>.nbi`` / ``.nbc`` in ``../__pycache__``) go with ours
EXTERNAL_CALLERS = ("combat_kernel",)


def drop_stale_cache(here: Path | None = None) -> bool:
    """Delete the numba cache files of the package at ``here`` (default: this one), and those of
    its callers in the parent package (:data:`EXTERNAL_CALLERS`), when its compiled sources
    changed since they were written (:func:`simulator.compiled.drop_stale_cache`)."""
    here = here or Path(__file__).resolve().parent
    return compiled.drop_stale_cache(here, COMPILED_MODULES, EXTERNAL_SOURCES, EXTERNAL_CALLERS)


drop_stale_cache()
