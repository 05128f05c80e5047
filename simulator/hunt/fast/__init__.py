"""Compiled (numba) engine for Les Pirates: the same rules as the readable engine, module by module.

Why: the pure-Python engine enumerates every outcome of a roll with immutable states (about
1 ms per turn); this package runs whole games inside ``@njit(cache=True)`` functions on packed
integer arrays built from the same :class:`~simulator.hunt.moves.Tables` (same leg tables, same
distances), so the terrain rules exist once. The modules mirror the readable engine:

* :mod:`.packed` - the static arrays and the parameter vector (``pack``), with one named index
  constant per array (``A_*``, ``P_*``); the packed state of a game.
* :mod:`.rng` - SplitMix64 streams (no global or numba-internal random state).
* :mod:`.moves` - mirror of :mod:`simulator.hunt.moves`: legal legs, applying a step, Zobrist
  hashing and the enumeration of every distinct outcome of a roll.
* :mod:`.players` - mirror of :mod:`simulator.hunt.players`: position scores and choices.
* :mod:`.game` - mirror of :mod:`simulator.hunt.game`: the turn loop, variants acting on a whole
  turn, the invariant checker, and ``run_games`` (the entry point of :mod:`simulator.hunt.api`).

``tests/test_hunt_fast.py`` checks that both engines give exactly the same set of legal outcomes
and the same position scores on positions of every variant.

Numba caches each compiled function in ``__pycache__`` keyed on its own file: after editing one
of these modules, delete ``simulator/hunt/fast/__pycache__`` so callers in other modules are
recompiled too.
"""
