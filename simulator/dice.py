"""Exact dice odds (as ``Fraction``s) and vectorised d6 rolls.

Covers the dice mechanics shared by the games:

* a *volley*: N d6, each showing ``hit_on`` or more is a hit (Pirate's Cove broadsides hit on 5+;
  Pirates express gunnery hits on 1+ .. 6+ by range band, "7+" meaning impossible), with up to K
  missed dice rerolled once (Pirates express Captain and Pirates nation) and E extra dice (Gunner);
* a *boarding* (Pirates express): both sides roll d6 equal to masts (plus extra dice), success on
  3+; the result is the difference of successes.

Exact results are computed by convolution of binomials with :class:`fractions.Fraction`; tests
check them against brute-force enumeration of every face with ``itertools.product``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np

FACES = 6


def p_hit(hit_on: int) -> Fraction:
    """Probability that one d6 shows ``hit_on`` or more (``hit_on`` <= 1: always, >= 7: never)."""
    if hit_on <= 1:
        return Fraction(1)
    if hit_on > FACES:
        return Fraction(0)
    return Fraction(FACES + 1 - hit_on, FACES)


@lru_cache(maxsize=4096)
def binomial_pmf(n: int, p: Fraction) -> tuple[Fraction, ...]:
    """Exact Binomial(n, p) probabilities for 0..n successes."""
    if n < 0:
        raise ValueError(f"number of dice must be >= 0, got {n}")
    q = 1 - p
    return tuple(comb(n, k) * p**k * q ** (n - k) for k in range(n + 1))


def volley_pmf(
    dice: int, hit_on: int, reroll_misses: int = 0, extra_dice: int = 0
) -> tuple[Fraction, ...]:
    """Exact distribution of the number of hits of a volley.

    Args:
        dice: base number of d6 rolled.
        hit_on: a die showing this or more hits.
        reroll_misses: up to this many missed dice may be rerolled once (the roller always rerolls
            misses, which is optimal since a reroll cannot lose a hit).
        extra_dice: dice added to the roll (e.g. a Gunner's +1D6).

    Returns:
        Probabilities for 0..dice+extra_dice hits.
    """
    if dice < 0 or extra_dice < 0 or reroll_misses < 0:
        raise ValueError("dice, extra dice and rerolls must be >= 0")
    n = dice + extra_dice
    p = p_hit(hit_on)
    first = binomial_pmf(n, p)
    out = [Fraction(0)] * (n + 1)
    for hits, pr in enumerate(first):
        if pr == 0:
            continue
        rerolls = min(reroll_misses, n - hits)
        for extra, pr2 in enumerate(binomial_pmf(rerolls, p)):
            out[hits + extra] += pr * pr2
    return tuple(out)


def boarding_pmf(
    masts_a: int,
    masts_b: int,
    extra_a: int = 0,
    extra_b: int = 0,
    success_on: int = 3,
    reroll_a: int = 0,
    reroll_b: int = 0,
) -> dict[int, Fraction]:
    """Exact distribution of ``successes_a - successes_b`` in a boarding.

    Each side rolls its masts plus extra dice at ``success_on``+, rerolling up to ``reroll_*``
    misses once.
    """
    pa = volley_pmf(masts_a, success_on, reroll_a, extra_a)
    pb = volley_pmf(masts_b, success_on, reroll_b, extra_b)
    out: dict[int, Fraction] = {}
    for sa, qa in enumerate(pa):
        for sb, qb in enumerate(pb):
            d = sa - sb
            out[d] = out.get(d, Fraction(0)) + qa * qb
    return dict(sorted(out.items()))


def mean_of(pmf) -> Fraction:
    """Expected value of a pmf given as a sequence (index = value) or a ``{value: p}`` dict."""
    items = pmf.items() if isinstance(pmf, dict) else enumerate(pmf)
    return sum((Fraction(v) * p for v, p in items), Fraction(0))


# ----------------------------------------------------------------------------------------------
# Vectorised sampling (the Monte Carlo side of the same mechanics)


def roll_d6(rng: np.random.Generator, shape) -> np.ndarray:
    """Roll d6 as ``int8`` faces 1..6 with the given shape."""
    return rng.integers(1, FACES + 1, size=shape, dtype=np.int8)


def sample_volley(
    rng: np.random.Generator,
    n: int,
    dice: int,
    hit_on: int,
    reroll_misses: int = 0,
    extra_dice: int = 0,
) -> np.ndarray:
    """Sample ``n`` volleys by rolling every die (including rerolls); returns hits per volley."""
    total = dice + extra_dice
    faces = roll_d6(rng, (n, total))
    hit = faces >= max(hit_on, 1) if hit_on <= FACES else np.zeros((n, total), dtype=bool)
    hits = hit.sum(axis=1, dtype=np.int64)
    if reroll_misses and total:
        rerolls = np.minimum(reroll_misses, total - hits)
        k = min(reroll_misses, total)
        second = roll_d6(rng, (n, k))
        second_hit = (second >= max(hit_on, 1)) if hit_on <= FACES else np.zeros((n, k), dtype=bool)
        used = np.arange(k)[None, :] < rerolls[:, None]
        hits = hits + (second_hit & used).sum(axis=1)
    return hits


def sample_boarding(
    rng: np.random.Generator,
    n: int,
    masts_a: int,
    masts_b: int,
    extra_a: int = 0,
    extra_b: int = 0,
    success_on: int = 3,
    reroll_a: int = 0,
    reroll_b: int = 0,
) -> np.ndarray:
    """Sample ``n`` boardings; returns ``successes_a - successes_b``."""
    a = sample_volley(rng, n, masts_a, success_on, reroll_a, extra_a)
    b = sample_volley(rng, n, masts_b, success_on, reroll_b, extra_b)
    return a - b
