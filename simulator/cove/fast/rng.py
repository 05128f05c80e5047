"""numpy's ``Generator(PCG64)`` draws, compiled: the same numbers from the same runner streams.

The game takes every random number -- dice, shuffles, a player's noise -- from the runner's
streams (``Block.rng("dice")``, ``Block.rng("players", seat)``), which are numpy Generators.
Compiled code cannot call a Generator, so this module reproduces, bit for bit, the numpy calls on
a ``numpy.random.Generator`` backed by PCG64 (numpy's ``default_rng``) that the game makes (the
games recorded before the engine was one, drawn through numpy itself, replay exactly):

* the PCG64 step (128-bit LCG, XSL-RR output) and its buffered 32-bit draws (``next_uint32``
  keeps the high half of a 64-bit output for the next call);
* ``Generator.integers(n)`` and ``integers(low, high, size)`` for ranges below 2**32: Lemire's
  bounded method on 32-bit draws (``random_bounded_uint64`` / ``_fill`` with ``use_masked=False``);
* ``Generator.permutation(n)`` and ``shuffle``: Fisher-Yates from the last item, each index by
  masked rejection on 32-bit draws (``random_interval``);
* ``Generator.random()``: ``(next_uint64 >> 11) * 2**-53``.

A generator's state is an ``uint64[6]`` row (:data:`R_STATE_HI` ...): the 128-bit state and
increment as two words each, the buffered-32-bit flag and value. :func:`state_of` reads it from a
Generator, :func:`set_state` writes it back (so a test can check that a run leaves every stream
exactly where numpy would). ``tests/test_cove_fast_rng.py`` checks every function
against numpy on random call sequences, so a numpy release that changed its algorithms would fail
there first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# the uint64[6] state row of one generator
R_STATE_HI = 0  # PCG64 state, high 64 bits
R_STATE_LO = 1  # PCG64 state, low 64 bits
R_INC_HI = 2  # PCG64 increment, high 64 bits
R_INC_LO = 3  # PCG64 increment, low 64 bits
R_HAS32 = 4  # 1: a buffered 32-bit value is waiting (numpy's has_uint32)
R_U32 = 5  # the buffered 32-bit value (numpy's uinteger)
R_COLS = 6

_MULT_HI = np.uint64(2549297995355413924)  # PCG_DEFAULT_MULTIPLIER_128, high word
_MULT_LO = np.uint64(4865540595714422341)  # low word
_M32 = np.uint64(0xFFFFFFFF)
_MASK64 = (1 << 64) - 1

#: faces per refill of the game's d6 buffer (simulator.cove.dice.GameDice draws this many at once)
DICE_BLOCK = 256


def state_of(gen: np.random.Generator) -> np.ndarray:
    """The uint64[6] state row of a PCG64-backed Generator."""
    s = gen.bit_generator.state
    if s["bit_generator"] != "PCG64":
        raise ValueError(f"a {s['bit_generator']} generator (the compiled engine draws as PCG64)")
    st, inc = s["state"]["state"], s["state"]["inc"]
    return np.array(
        [st >> 64, st & _MASK64, inc >> 64, inc & _MASK64, s["has_uint32"], s["uinteger"]],
        dtype=np.uint64,
    )


def set_state(gen: np.random.Generator, row: np.ndarray) -> None:
    """Put a generator in the state ``row`` (the inverse of :func:`state_of`)."""
    r = [int(x) for x in row]
    gen.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": (r[0] << 64) | r[1], "inc": (r[2] << 64) | r[3]},
        "has_uint32": r[4],
        "uinteger": r[5],
    }


@njit(cache=True, inline="always")
def _mulhi(a, b):
    """High 64 bits of the 128-bit product of two uint64."""
    a_lo = a & _M32
    a_hi = a >> np.uint64(32)
    b_lo = b & _M32
    b_hi = b >> np.uint64(32)
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> np.uint64(32)) + (p1 & _M32) + (p2 & _M32)
    return p3 + (p1 >> np.uint64(32)) + (p2 >> np.uint64(32)) + (mid >> np.uint64(32))


@njit(cache=True)
def next64(rs, k):
    """numpy's ``pcg64_next64`` on generator row ``k`` of ``rs``."""
    sh = rs[k, R_STATE_HI]
    sl = rs[k, R_STATE_LO]
    lo = sl * _MULT_LO
    hi = _mulhi(sl, _MULT_LO) + sl * _MULT_HI + sh * _MULT_LO
    nlo = lo + rs[k, R_INC_LO]
    carry = np.uint64(1) if nlo < lo else np.uint64(0)
    nhi = hi + rs[k, R_INC_HI] + carry
    rs[k, R_STATE_HI] = nhi
    rs[k, R_STATE_LO] = nlo
    x = nhi ^ nlo
    r = nhi >> np.uint64(58)
    return (x >> r) | (x << ((np.uint64(64) - r) & np.uint64(63)))


@njit(cache=True)
def next32(rs, k):
    """numpy's ``pcg64_next32``: the low half of a fresh 64-bit draw, the high half kept."""
    if rs[k, R_HAS32] != 0:
        rs[k, R_HAS32] = 0
        return rs[k, R_U32]
    v = next64(rs, k)
    rs[k, R_HAS32] = 1
    rs[k, R_U32] = v >> np.uint64(32)
    return v & _M32


@njit(cache=True)
def _lemire32(rs, k, rng):
    """numpy's ``buffered_bounded_lemire_uint32``: uniform on 0..rng (rng < 2**32 - 1)."""
    rng_excl = rng + np.uint64(1)
    m = next32(rs, k) * rng_excl
    leftover = m & _M32
    if leftover < rng_excl:
        threshold = (_M32 - rng) % rng_excl
        while leftover < threshold:
            m = next32(rs, k) * rng_excl
            leftover = m & _M32
    return m >> np.uint64(32)


@njit(cache=True)
def integers(rs, k, n):
    """``int(Generator.integers(n))``: uniform on 0..n-1 (``n <= 1``: 0, nothing drawn)."""
    if n <= 1:
        return 0
    return np.int64(_lemire32(rs, k, np.uint64(n - 1)))


@njit(cache=True)
def d6(rs, k):
    """One face of ``Generator.integers(1, 7, size=...)`` (each item is one bounded draw)."""
    return np.int64(_lemire32(rs, k, np.uint64(5))) + 1


@njit(cache=True)
def random(rs, k):
    """``Generator.random()``: a double on [0, 1) from 53 bits."""
    return np.float64(next64(rs, k) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _interval(rs, k, mx):
    """numpy's ``random_interval``: uniform on 0..mx by masked rejection (mx < 2**32)."""
    if mx == 0:
        return np.int64(0)
    mask = np.uint64(mx)
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    while True:
        v = next32(rs, k) & mask
        if v <= np.uint64(mx):
            return np.int64(v)


@njit(cache=True)
def permutation(rs, k, n, out):
    """``Generator.permutation(n)`` into ``out[:n]`` (``n <= 1``: nothing drawn)."""
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        j = _interval(rs, k, i)
        t = out[i]
        out[i] = out[j]
        out[j] = t


@njit(cache=True)
def d6_bulk_int8(rs, k, out):
    """``Generator.integers(1, 7, size=len(out), dtype=np.int8)`` into ``out`` (int8): numpy's
    ``random_bounded_uint8_fill`` with Lemire's method on bytes of buffered 32-bit draws
    (``buffered_bounded_lemire_uint8``: a fresh 32-bit draw gives four bytes, low first; the
    bytes left at the end of the call are dropped)."""
    rng_excl = np.uint64(6)
    threshold = np.uint64((255 - 5) % 6)
    bcnt = 0
    buf = np.uint64(0)
    for i in range(out.shape[0]):
        while True:
            if bcnt == 0:
                buf = next32(rs, k)
                bcnt = 3
            else:
                buf >>= np.uint64(8)
                bcnt -= 1
            m = (buf & np.uint64(0xFF)) * rng_excl
            leftover = m & np.uint64(0xFF)
            if leftover >= threshold:  # numpy's test (leftover < rng_excl first: the same set)
                break
        out[i] = np.int8(1 + np.int64(m >> np.uint64(8)))


__all__ = [
    "DICE_BLOCK",
    "R_COLS",
    "d6",
    "d6_bulk_int8",
    "integers",
    "next32",
    "next64",
    "permutation",
    "random",
    "set_state",
    "state_of",
]
