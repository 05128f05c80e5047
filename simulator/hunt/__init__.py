"""Les Pirates (the children's treasure race): one engine, compiled or run with the JIT off.

numba caches each compiled function keyed by its own file only, while the engine's functions read
index constants of other modules (``packed.P_*``, ``moves``' buffer layout, ``board``'s square
kinds, ``rules.MAX_DICE``) and freeze their callees into their machine code: the package drops its
cache when any of these sources changed (:func:`simulator.compiled.drop_stale_cache`).
"""

from __future__ import annotations

from pathlib import Path

from simulator import compiled

#: every module whose code or constants the cached machine code holds
COMPILED_MODULES = ("board", "rules", "packed", "rng", "moves", "plan", "players", "game")
#: simulator/compiled.py makes the codes (numpy integers) the modules freeze into the machine code
EXTERNAL_SOURCES = (Path(__file__).resolve().parent.parent / "compiled.py",)


def drop_stale_cache(here: Path | None = None) -> bool:
    """Delete this package's numba cache files when its compiled sources changed."""
    here = here or Path(__file__).resolve().parent
    return compiled.drop_stale_cache(here, COMPILED_MODULES, EXTERNAL_SOURCES)


drop_stale_cache()
