"""numpy's ``SeedSequence`` and ``PCG64`` seeding, compiled: the runner's seed tree in numba.

The compiled players' company estimate (:mod:`simulator.cove.fast.company`) seeds a generator
from the situation, as the Python oracle (``company_odds`` in ``tests/cove_odds_oracle.py``)
does with :func:`simulator.runner.derive_seed` and ``Block(...).rng("sample")``. This module
reproduces, bit for bit, what numpy does there (``numpy/random/bit_generator.pyx``, ``_pcg64.pyx``):

* ``SeedSequence(entropy, spawn_key=key)``: the entropy as uint32 words, little-endian, padded
  with zero words to the pool size (4) when a spawn key follows, then the key's words appended;
  ``mix_entropy`` hashes them into the 4-word pool (``hashmix`` with its running constant, then
  ``mix`` every pool word with every other, then the words beyond the pool);
* ``generate_state(n, uint32)``: the pool cycled through the output hash; ``uint64`` output is
  two such words per value, low word first;
* ``PCG64(seed_seq)``: ``generate_state(4, uint64)`` as (state high, state low, increment high,
  increment low), then ``pcg_setseq_128_srandom_r`` (increment ``2 inc + 1``, one step, state
  added, one step), no buffered 32-bit value -- a :mod:`simulator.cove.fast.rng` state row.

Words are passed as int64 arrays of values below ``2**32`` (one word each: numpy turns each spawn
key element and the entropy into as many words as they need; the callers here only pass
elements below ``2**32``, and entropies as their words). ``tests/test_cove_fast_company.py``
checks every function against numpy on many entropies and keys.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator.cove.fast.rng import R_COLS, R_INC_HI, R_INC_LO, R_STATE_HI, R_STATE_LO, next64

POOL_SIZE = 4  # numpy's DEFAULT_POOL_SIZE
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_XSHIFT = np.uint64(16)
_M32 = np.uint64(0xFFFFFFFF)


def int_words(n: int) -> np.ndarray:
    """numpy's ``_int_to_uint32_array``: a non-negative int as uint32 words, low first (0: one
    zero word), as int64."""
    if n < 0:
        raise ValueError(f"a seed entropy must be non-negative, got {n}")
    words = [0] if n == 0 else []
    while n > 0:
        words.append(n & 0xFFFFFFFF)
        n >>= 32
    return np.array(words, np.int64)


@njit(cache=True, inline="always")
def _hashmix(value, hc):
    """numpy's ``hashmix``: ``hc[0]`` is the running hash constant (updated)."""
    value = (value ^ hc[0]) & _M32
    hc[0] = (hc[0] * _MULT_A) & _M32
    value = (value * hc[0]) & _M32
    return value ^ (value >> _XSHIFT)


@njit(cache=True, inline="always")
def _mix(x, y):
    """numpy's ``mix`` of two pool words."""
    r = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _M32
    return r ^ (r >> _XSHIFT)


@njit(cache=True)
def seed_pool(entropy, n_entropy, key, n_key, pool):
    """``SeedSequence(entropy, spawn_key=key).pool`` into ``pool`` (uint64[4]):
    ``entropy[:n_entropy]`` and ``key[:n_key]`` are uint32 words (int64 arrays)."""
    n_run = n_entropy
    if n_key > 0 and n_run < POOL_SIZE:
        n_run = POOL_SIZE
    total = n_run + n_key
    hc = np.empty(1, np.uint64)
    hc[0] = _INIT_A
    for i in range(POOL_SIZE):
        v = np.uint64(0)
        if i < total:
            if i < n_entropy:
                v = np.uint64(entropy[i])
            elif i >= n_run:
                v = np.uint64(key[i - n_run])
        pool[i] = _hashmix(v, hc)
    for i_src in range(POOL_SIZE):
        for i_dst in range(POOL_SIZE):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hc))
    for i_src in range(POOL_SIZE, total):
        if i_src < n_entropy:
            v = np.uint64(entropy[i_src])
        elif i_src < n_run:
            v = np.uint64(0)
        else:
            v = np.uint64(key[i_src - n_run])
        for i_dst in range(POOL_SIZE):
            pool[i_dst] = _mix(pool[i_dst], _hashmix(v, hc))


@njit(cache=True)
def generate_state32(pool, n_words, out):
    """``generate_state(n_words, np.uint32)`` of the pool into ``out[:n_words]`` (uint64)."""
    hc = _INIT_B
    for i in range(n_words):
        v = pool[i % POOL_SIZE]
        v = (v ^ hc) & _M32
        hc = (hc * _MULT_B) & _M32
        v = (v * hc) & _M32
        out[i] = v ^ (v >> _XSHIFT)


@njit(cache=True)
def pcg64_seed(pool, rs, k):
    """``PCG64(seed_seq)`` (seeded by ``generate_state(4, uint64)``) into row ``k`` of ``rs``."""
    w = np.empty(8, np.uint64)
    generate_state32(pool, np.int64(8), w)
    s_hi = w[0] | (w[1] << np.uint64(32))
    s_lo = w[2] | (w[3] << np.uint64(32))
    i_hi = w[4] | (w[5] << np.uint64(32))
    i_lo = w[6] | (w[7] << np.uint64(32))
    # pcg_setseq_128_srandom_r: inc = initseq << 1 | 1; step; state += initstate; step
    rs[k, R_INC_HI] = (i_hi << np.uint64(1)) | (i_lo >> np.uint64(63))
    rs[k, R_INC_LO] = (i_lo << np.uint64(1)) | np.uint64(1)
    rs[k, R_STATE_HI] = np.uint64(0)
    rs[k, R_STATE_LO] = np.uint64(0)
    next64(rs, k)
    lo = rs[k, R_STATE_LO] + s_lo
    carry = np.uint64(1) if lo < s_lo else np.uint64(0)
    rs[k, R_STATE_HI] = rs[k, R_STATE_HI] + s_hi + carry
    rs[k, R_STATE_LO] = lo
    next64(rs, k)
    for c in range(4, R_COLS):  # no buffered 32-bit value
        rs[k, c] = np.uint64(0)


def key_words(key: tuple[int, ...]) -> list[int]:
    """The words ``SeedSequence(entropy, spawn_key=key)`` assembles after the entropy's
    (:func:`int_words`; before the padding :func:`seed_pool` adds): each key element's, numpy's
    ``_coerce_to_uint32_array`` (an element below 2**32 is one word)."""
    return [w for k in key for w in ((k,) if 0 <= k < 1 << 32 else int_words(k).tolist())]


@njit(cache=True)
def stream_states(words, n_words, n_entropy, out):
    """Row ``i`` of ``out`` (uint64[rows, R_COLS]) := the state of
    ``PCG64(SeedSequence(entropy, spawn_key=key))``, row ``i`` of ``words`` holding
    ``n_words[i]`` words: the entropy's ``n_entropy[i]`` (:func:`int_words`), then the key's
    (:func:`key_words`)."""
    pool = np.empty(POOL_SIZE, np.uint64)
    for i in range(words.shape[0]):
        ne = n_entropy[i]
        seed_pool(words[i], ne, words[i, ne:], n_words[i] - ne, pool)
        pcg64_seed(pool, out, i)


__all__ = [
    "POOL_SIZE",
    "generate_state32",
    "int_words",
    "key_words",
    "pcg64_seed",
    "seed_pool",
    "stream_states",
]
