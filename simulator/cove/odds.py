"""Exact duel odds used by the scripted players (rules section "Combat").

A player ship alone against a Legendary Pirate, or against one other player ship, is a small
Markov chain over (hits the opponent can still take, hits our ship can still take), one exchange
at a time, in speed order. The players' estimate stands both sides and fires every broadside at
the weakest point; it leaves out cards, flight and Captain Hook's misfires (one ship: nothing to
misfire on). Probabilities are float64, computed exactly by recursion with memoisation (binomial
volleys from :mod:`simulator.dice`).
"""

from __future__ import annotations

from functools import lru_cache
from math import comb


@lru_cache(maxsize=None)
def _pmf(n: int, p: float) -> tuple[float, ...]:
    q = 1.0 - p
    return tuple(comb(n, k) * p**k * q ** (n - k) for k in range(n + 1))


@lru_cache(maxsize=200_000)
def win_probability(my_dice: int, my_p: float, their_hits: int, their_dice: int, their_p: float,
                    my_hits: int, i_fire_first: bool, regen: int = 0, regen_cap: int = 99) -> float:
    """P(we sink / rout the opponent before it routs us), both standing and firing every exchange.

    Args:
        my_dice, my_p: our dice per broadside and the chance one hits.
        their_hits: hits that sink (hull) or rout the opponent.
        their_dice, their_p: the opponent's dice and hit chance.
        my_hits: hits on the section the opponent aims at that rout us.
        i_fire_first: our speed beats the opponent's.
        regen: hull the opponent regains per exchange (Flying Dutchman), never above ``regen_cap``.
    """
    if their_hits <= 0:
        return 1.0
    if my_hits <= 0:
        return 0.0
    if my_dice <= 0:
        return 0.0
    mine = _pmf(my_dice, my_p)
    theirs = _pmf(their_dice, their_p) if their_dice > 0 else (1.0,)
    total = 0.0
    loop = 0.0
    for x, px in enumerate(mine):
        if px == 0.0:
            continue
        for y, py in enumerate(theirs):
            if py == 0.0:
                continue
            p = px * py
            if i_fire_first:
                if x >= their_hits:
                    total += p
                    continue
                if y >= my_hits:
                    continue
            else:
                if y >= my_hits:
                    continue
                if x >= their_hits:
                    total += p
                    continue
            h = min(regen_cap, their_hits - x + min(x, regen))
            k = my_hits - y
            if h == their_hits and k == my_hits:
                loop += p
            else:
                total += p * win_probability(my_dice, my_p, h, their_dice, their_p, k, i_fire_first,
                                             regen, regen_cap)
    if loop >= 1.0:
        return 0.0
    return total / (1.0 - loop)
