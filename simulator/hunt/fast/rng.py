"""SplitMix64 random streams for the compiled engine (state in a one-element uint64 array).

Each game gets two 64-bit seeds drawn from the chunk's ``numpy.random.Generator`` (one for the
dice, one for the players); inside the compiled code they drive these streams, so there is no
global or numba-internal random state.
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
    return (next_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def randint(s, n):
    return int(uniform(s) * n)
