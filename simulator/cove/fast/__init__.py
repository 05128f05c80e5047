"""The compiled Pirate's Cove game (issue 16): see ``docs/rules-cove.md``, "Engines".

numba's on-disk cache (``@njit(cache=True)``, in ``__pycache__``) is keyed by each function's
own source file, not by the module constants it reads at compile time: the ``packed.py`` index
constants and the functions of the other modules it calls are frozen into the machine code. An
edit to ``packed.py`` alone would leave ``game.py``'s cached code reading the old columns. So
this package keeps a digest of all its compiled sources beside the cache, and when any of them
changed since the cache was written it deletes the package's cache files (the next run compiles
again, and says so on stderr: ``simulator.compiled``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

#: the modules whose @njit(cache=True) code is cached (every one the compiled game calls)
COMPILED_MODULES = (
    "packed", "rng", "core", "odds", "seedseq", "lone", "company", "players_ev",
    "players_ev_battle", "players", "battle", "game",
)  # fmt: skip
#: compiled sources outside the package whose functions the package's cached code calls (and so
#: freezes into its machine code): company.py calls the battle kernel's ``_run``
EXTERNAL_SOURCES = (Path(__file__).resolve().parent.parent / "combat_kernel.py",)


def _sources_digest(here: Path) -> str:
    h = hashlib.sha256()
    for name in COMPILED_MODULES:
        h.update(name.encode())
        h.update((here / f"{name}.py").read_bytes())
    for path in EXTERNAL_SOURCES:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def drop_stale_cache(here: Path | None = None) -> bool:
    """Delete the numba cache files of the package at ``here`` (default: this one) when its
    compiled sources changed since they were written; True when it deleted (or started) it."""
    here = here or Path(__file__).resolve().parent
    cache = here / "__pycache__"
    stamp = cache / "numba-sources.sha256"
    digest = _sources_digest(here)
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for f in cache.iterdir():
            if f.suffix in (".nbi", ".nbc"):
                f.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: numba then caches elsewhere or not at all
        pass
    return True


drop_stale_cache()
