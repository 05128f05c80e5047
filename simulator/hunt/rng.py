"""SplitMix64 random streams of the engine (state in a one-element uint64 array).

Each game gets two 64-bit seeds drawn from its block's ``numpy.random.Generator`` (one for the
dice, one for the players); inside the engine they drive these streams, so there is no global or
numba-internal random state. With the JIT off the uint64 arithmetic wraps as compiled, with
numpy's overflow warning: :mod:`simulator.hunt.game` runs games under ``np.errstate``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def next_u64(s):
    s[0] += np.uint64(0x9E3779B97F4A7C15)
    z = s[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def uniform(s):
    """A float in [0, 1) from the top 53 bits."""
    return (next_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def randint(s, n):
    """An integer in [0, n). Compiled into its callers (``inline="always"``): some pass a count
    that numba types as a literal at first (``mine = 0``), which would compile it once more."""
    return int(uniform(s) * n)
