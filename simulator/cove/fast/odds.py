"""The players' duel odds, compiled: :func:`simulator.cove.odds.win_probability`, the same floats.

A player ship against one opponent (a Legendary Pirate, or another player ship), both standing
and firing every exchange in speed order: a Markov chain over (hits the opponent can still take,
hits our ship can still take), as in :mod:`simulator.cove.odds`. The readable version recurses
with memoisation; here every state ``(h, k)`` is computed in an order in which its successors are
already known (``k`` ascending, then ``h`` ascending: a successor has fewer hits left on one side
and no more on the other). Each state's value is the same expression evaluated in the same order
as the recursion's, so the floats are identical (tested on every query of seeded games).

Binomial volleys come from the ``pmf`` table built by :func:`simulator.cove.odds._pmf` itself.
Answers are memoised per chunk of games in an open-addressing table keyed on every argument
(:func:`new_cache`): the memo changes no value, only the time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator import compiled
from simulator.cove.fast import core

#: win_probability's ``regen, regen_cap`` for an opponent that regains no hull (int64 codes)
NO_REGEN, NO_REGEN_CAP = compiled.code(0), compiled.code(99)
CACHE_BITS = 15
#: cache keys: uint64[slots, 2] (0, 0 = empty); values float64[slots]
MAX_PROBE = 32
MAX_STATES = 64  # hits per side the scratch table holds (more: a fresh table per call)


def new_cache() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty memo (keys, values) and the DP scratch table."""
    slots = 1 << CACHE_BITS
    return (
        np.zeros((slots, 2), np.uint64),
        np.zeros(slots, np.float64),
        np.zeros((MAX_STATES + 1, MAX_STATES + 1), np.float64),
    )


@njit(cache=True)
def _solve(track, tlen, their_hits, their_dice, my_hits, first, regen, regen_cap, pmf, V):
    """Fill ``V[h, k]`` for 1 <= h <= their_hits, 1 <= k <= my_hits (see the module docstring)
    and return ``V[their_hits, my_hits]``. ``track[t]``: our dice after ``t`` hits taken."""
    start = my_hits
    last = tlen - 1
    for k in range(1, my_hits + 1):
        taken = start - k
        for h in range(1, their_hits + 1):
            total = 0.0
            loop = 0.0
            ny = their_dice + 1 if their_dice > 0 else 1
            for y in range(ny):
                py = pmf[their_dice, y] if their_dice > 0 else 1.0
                if py == 0.0:
                    continue
                if first:
                    t = taken
                else:
                    t = taken + min(y, k)
                d = track[min(t, last)]
                nx = d + 1 if d > 0 else 1
                for x in range(nx):
                    px = pmf[d, x] if d > 0 else 1.0
                    if px == 0.0:
                        continue
                    p = px * py
                    if first:
                        if x >= h:
                            total += p
                            continue
                        if y >= k:
                            continue
                    else:
                        if y >= k:
                            continue
                        if x >= h:
                            total += p
                            continue
                    h2 = core.regenerate(h - x, h, regen, regen_cap)  # each exchange
                    k2 = k - y
                    if h2 == h and k2 == k:
                        loop += p
                    else:
                        total += p * V[h2, k2]
            if loop >= 1.0:
                V[h, k] = 0.0
            else:
                V[h, k] = total / (1.0 - loop)
    return V[their_hits, my_hits]


@njit(cache=True)
def win_probability(
    track, tlen, their_hits, their_dice, my_hits, first, regen, regen_cap, pmf, ck, cv, V
):
    """P(we sink or rout the opponent first): :func:`simulator.cove.odds.win_probability` with
    ``my_dice = track[:tlen]`` (our dice after 0, 1, ... hits), the players' hit chance on both
    sides (``pmf``), memoised in ``ck``/``cv`` (:func:`new_cache`)."""
    if their_hits <= 0:
        return 1.0
    if my_hits <= 0:
        return 0.0
    cacheable = (
        tlen <= 16
        and their_hits < 256
        and their_dice < 256
        and my_hits < 256
        and regen < 256
        and 0 <= regen_cap < 256
    )
    w1 = np.uint64(0)
    w2 = np.uint64(0)
    slot = 0
    if cacheable:
        for i in range(tlen):
            if track[i] < 0 or track[i] >= 16:
                cacheable = False
                break
            w1 |= np.uint64(track[i]) << np.uint64(4 * i)
    if cacheable:
        w2 = (
            np.uint64(their_hits)
            | (np.uint64(their_dice) << np.uint64(8))
            | (np.uint64(my_hits) << np.uint64(16))
            | (np.uint64(1 if first else 0) << np.uint64(24))
            | (np.uint64(regen) << np.uint64(25))
            | (np.uint64(regen_cap) << np.uint64(33))
            | (np.uint64(tlen) << np.uint64(41))
            | (np.uint64(1) << np.uint64(63))
        )
        hsh = (w1 * np.uint64(0x9E3779B97F4A7C15)) ^ (w2 * np.uint64(0xC2B2AE3D27D4EB4F))
        slot = np.int64(hsh >> np.uint64(64 - CACHE_BITS))
        mask = (1 << CACHE_BITS) - 1
        for _ in range(MAX_PROBE):
            if ck[slot, 1] == 0:
                break
            if ck[slot, 0] == w1 and ck[slot, 1] == w2:
                return cv[slot]
            slot = (slot + 1) & mask
    if their_hits <= MAX_STATES and my_hits <= MAX_STATES:
        got = _solve(track, tlen, their_hits, their_dice, my_hits, first, regen, regen_cap, pmf, V)
    else:
        big = np.zeros((their_hits + 1, my_hits + 1), np.float64)
        got = _solve(
            track, tlen, their_hits, their_dice, my_hits, first, regen, regen_cap, pmf, big
        )
    if cacheable and ck[slot, 1] == 0:
        ck[slot, 0] = w1
        ck[slot, 1] = w2
        cv[slot] = got
    return got


__all__ = ["new_cache", "win_probability"]
