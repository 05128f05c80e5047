"""Brute-force references: enumerate every face of every die with itertools.product."""

from __future__ import annotations

import itertools
from fractions import Fraction


def bf_volley(
    dice: int, hit_on: int, reroll_misses: int = 0, extra_dice: int = 0
) -> list[Fraction]:
    """Hits distribution by enumerating all faces, then all faces of the rerolled misses."""
    n = dice + extra_dice
    out = [Fraction(0)] * (n + 1)
    for faces in itertools.product(range(1, 7), repeat=n):
        hits = sum(f >= hit_on for f in faces)
        misses = n - hits
        k = min(reroll_misses, misses)
        p_first = Fraction(1, 6**n)
        for refaces in itertools.product(range(1, 7), repeat=k):
            extra = sum(f >= hit_on for f in refaces)
            out[hits + extra] += p_first * Fraction(1, 6**k)
    return out


def bf_boarding(
    masts_a: int, masts_b: int, extra_a: int = 0, extra_b: int = 0
) -> dict[int, Fraction]:
    """Difference of successes at 3+ by enumerating both sides' faces."""
    na, nb = masts_a + extra_a, masts_b + extra_b
    out: dict[int, Fraction] = {}
    p = Fraction(1, 6 ** (na + nb))
    for faces in itertools.product(range(1, 7), repeat=na + nb):
        d = sum(f >= 3 for f in faces[:na]) - sum(f >= 3 for f in faces[na:])
        out[d] = out.get(d, Fraction(0)) + p
    return dict(sorted(out.items()))
