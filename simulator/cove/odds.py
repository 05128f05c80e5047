"""Exact duel odds used by the scripted players (rules section "Combat").

A player ship alone against a Legendary Pirate, or against one other player ship, is a small
Markov chain over (hits the opponent can still take, hits our ship can still take), one exchange
at a time, in speed order. The players' estimate stands both sides and fires every broadside at
the weakest point; it leaves out cards, flight and Captain Hook's misfires (one ship: nothing to
misfire on). Probabilities are float64, computed exactly by recursion with memoisation (binomial
volleys from :mod:`simulator.dice`).
"""

from __future__ import annotations

from functools import cache, lru_cache
from math import comb


@cache
def _pmf(n: int, p: float) -> tuple[float, ...]:
    q = 1.0 - p
    return tuple(comb(n, k) * p**k * q ** (n - k) for k in range(n + 1))


def win_probability(
    my_dice,
    my_p: float,
    their_hits: int,
    their_dice: int,
    their_p: float,
    my_hits: int,
    i_fire_first: bool,
    regen: int = 0,
    regen_cap: int = 99,
) -> float:
    """P(we sink / rout the opponent before it routs us), both standing and firing every exchange.

    Args:
        my_dice: our dice per broadside: an int, or a tuple giving them after 0, 1, 2... hits
            taken (a pirate that damages crew or every section takes dice away).
        my_p: the chance one of our dice hits.
        their_hits: hits that sink (hull) or rout the opponent.
        their_dice, their_p: the opponent's dice and hit chance.
        my_hits: hits on the section the opponent aims at that rout us.
        i_fire_first: our speed beats the opponent's.
        regen: hull the opponent regains per exchange (Flying Dutchman), never above ``regen_cap``.
    """
    if isinstance(my_dice, int):
        my_dice = (my_dice,) * (my_hits + 1)
    return _win(
        tuple(my_dice),
        my_p,
        their_hits,
        their_dice,
        their_p,
        my_hits,
        i_fire_first,
        regen,
        regen_cap,
        my_hits,
    )


@lru_cache(maxsize=200_000)
def _win(
    dice_by_taken: tuple[int, ...],
    my_p: float,
    their_hits: int,
    their_dice: int,
    their_p: float,
    my_hits: int,
    i_fire_first: bool,
    regen: int,
    regen_cap: int,
    start_hits: int,
) -> float:
    if their_hits <= 0:
        return 1.0
    if my_hits <= 0:
        return 0.0
    taken = start_hits - my_hits
    last = len(dice_by_taken) - 1
    theirs = _pmf(their_dice, their_p) if their_dice > 0 else (1.0,)
    total = 0.0
    loop = 0.0
    for y, py in enumerate(theirs):
        if py == 0.0:
            continue
        # our dice: as we start the exchange if we fire first, else after their broadside
        d = dice_by_taken[min(taken if i_fire_first else taken + min(y, my_hits), last)]
        mine = _pmf(d, my_p) if d > 0 else (1.0,)
        for x, px in enumerate(mine):
            if px == 0.0:
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
                total += p * _win(
                    dice_by_taken,
                    my_p,
                    h,
                    their_dice,
                    their_p,
                    k,
                    i_fire_first,
                    regen,
                    regen_cap,
                    start_hits,
                )
    if loop >= 1.0:
        return 0.0
    return total / (1.0 - loop)
