"""Dice odds as tables: exact distributions (:mod:`simulator.dice`) with Monte Carlo beside them.

What ``broadside odds volley`` and ``broadside odds boarding`` print, as Python results: a tidy
table of every value with its exact probability and, with ``mc`` > 0, the Monte Carlo estimate,
its Wilson 95 % interval and its distance from the exact value in standard errors. The Monte
Carlo draws go through :func:`simulator.runner.run_chunks` in blocks of :data:`MC_BLOCK_SIZE`
(the seed tree: the same seed gives the same counts for any ``jobs`` and chunk size).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from simulator import dice
from simulator.errors import UserError
from simulator.runner import Chunk, run_chunks
from simulator.stats import proportion_se, wilson_interval

#: trials per block of random streams of the Monte Carlo estimates (part of the seed tree: what
#: a seed replays); chunks are whole blocks, and their size changes nothing in the numbers
MC_BLOCK_SIZE = 10_000
MC_CHUNK_SIZE = 10_000
#: the largest pools the commands accept (dice per side)
MAX_VOLLEY_DICE = 60
MAX_BOARDING_DICE = 30
#: columns of :attr:`DiceOdds.table` after its value column (``hits`` or ``difference``); the
#: Monte Carlo ones only when ``mc`` > 0
EXACT_COLUMNS = ("exact",)
MC_COLUMNS = ("mc", "mc_ci95_low", "mc_ci95_high", "z")


@dataclass(frozen=True)
class DiceOdds:
    """The distribution of a roll, exact and (optionally) estimated.

    Attributes:
        table: one row per value (``hits`` of a volley, ``difference`` of a boarding, every
            possible one), ``exact`` its probability; with Monte Carlo also ``mc`` (the share of
            trials), ``mc_ci95_low``, ``mc_ci95_high`` (Wilson 95 %) and ``z`` (the estimate's
            distance from ``exact`` in standard errors).
        exact: each value's probability as a :class:`~fractions.Fraction`.
        mean: the expected value (exact).
        method: ``"exact"`` or ``"exact+monte-carlo"``.
        n: Monte Carlo trials (0 without).
        seed: the Monte Carlo run's root seed (pass it back to replay it), None without.
        summary: the JSON object of the ``broadside odds`` command.
    """

    table: pd.DataFrame
    exact: Mapping[int, Fraction]
    mean: Fraction
    method: str
    n: int = 0
    seed: int | None = None
    summary: dict[str, Any] = field(default_factory=dict)


def _check(name: str, value: int, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise UserError(f"{name} {value!r} (allowed: an integer {lo}..{hi})")


def _volley_chunk(chunk: Chunk, dice_n: int, hit_on: int, reroll: int, extra: int) -> np.ndarray:
    counts = np.zeros(dice_n + extra + 1, dtype=np.int64)
    for block in chunk.blocks():
        hits = dice.sample_volley(block.rng("dice"), block.size, dice_n, hit_on, reroll, extra)
        counts += np.bincount(hits, minlength=counts.size)
    return counts


def _boarding_chunk(chunk: Chunk, a: int, b: int, ea: int, eb: int, ra: int, rb: int) -> np.ndarray:
    offset = b + eb
    counts = np.zeros(a + ea + b + eb + 1, dtype=np.int64)
    for block in chunk.blocks():
        diff = dice.sample_boarding(block.rng("dice"), block.size, a, b, ea, eb, 3, ra, rb)
        counts += np.bincount(diff + offset, minlength=counts.size)
    return counts


def _monte_carlo(
    task: Callable[[Chunk], np.ndarray], mc: int, *, seed, jobs, quiet, desc, command
) -> tuple[np.ndarray, int]:
    run = run_chunks(
        task,
        mc,
        seed=seed,
        n_jobs=jobs,
        quiet=quiet,
        desc=desc,
        chunk_size=MC_CHUNK_SIZE,
        block_size=MC_BLOCK_SIZE,
        manifest={"command": command},
    )
    return np.sum(run.results, axis=0), run.entropy


def _table(values: list[int], exact: list[Fraction], counts: np.ndarray | None, n: int):
    df = pd.DataFrame({"value": values, "exact": [float(p) for p in exact]})
    if counts is not None:
        lo, hi = wilson_interval(counts, n)
        se = proportion_se(counts, n)
        df["mc"] = counts / n
        df["mc_ci95_low"] = lo
        df["mc_ci95_high"] = hi
        df["z"] = (df["mc"] - df["exact"]) / np.where(se > 0, se, np.nan)
    return df


def _summary(df: pd.DataFrame, info: dict[str, Any], outcome: str) -> dict[str, Any]:
    out = dict(info)
    out["probabilities"] = {str(v): p for v, p in zip(df["value"], df["exact"])}
    out["mean"] = float((df["value"] * df["exact"]).sum())
    if "mc" in df:
        out["monte_carlo"] = {
            str(v): {"p": m, "ci95": [lo, hi]}
            for v, m, lo, hi in zip(df["value"], df["mc"], df["mc_ci95_low"], df["mc_ci95_high"])
        }
    out["outcome"] = outcome
    return out


def volley(
    dice_n: int,
    hit_on: int,
    *,
    reroll_misses: int = 0,
    extra_dice: int = 0,
    mc: int = 0,
    seed: int | None = None,
    jobs: int = 1,
    quiet: bool = True,
) -> DiceOdds:
    """Hits of a volley: ``dice_n`` d6 hitting on ``hit_on`` or more (7: never).

    Args:
        dice_n: dice rolled (0..60).
        hit_on: a die showing this or more hits (1..7).
        reroll_misses: missed dice that may be rerolled once (Pirates express's Captain).
        extra_dice: dice added to the roll (a Gunner's).
        mc: also estimate the distribution from this many simulated volleys (0: exact only).
        seed, jobs, quiet: the Monte Carlo run's root seed (None: fresh entropy, returned as
            ``seed``), worker processes and progress bar.

    Returns:
        :class:`DiceOdds` whose table's value column is ``hits``.

    Example:
        >>> odds = volley(3, 5)
        >>> odds.exact[0], odds.mean
        (Fraction(8, 27), Fraction(1, 1))
        >>> volley(3, 5, mc=20_000, seed=1).table.round(3)
           hits  exact     mc  mc_ci95_low  mc_ci95_high      z
        0     0  0.296  0.294        0.288         0.301 -0.635
        1     1  0.444  0.446        0.439         0.453  0.528
        2     2  0.222  0.224        0.218         0.230  0.637
        3     3  0.037  0.035        0.033         0.038 -1.292
    """
    _check("dice", dice_n, 0, MAX_VOLLEY_DICE)
    _check("hit_on", hit_on, 1, 7)
    _check("reroll_misses", reroll_misses, 0, MAX_VOLLEY_DICE)
    _check("extra_dice", extra_dice, 0, MAX_VOLLEY_DICE)
    _check("mc", mc, 0, 10**9)
    exact = dice.volley_pmf(dice_n, hit_on, reroll_misses, extra_dice)
    info: dict[str, Any] = {
        "dice": dice_n,
        "hit_on": hit_on,
        "reroll_misses": reroll_misses,
        "extra_dice": extra_dice,
        "method": "exact",
    }
    counts, entropy = None, None
    if mc:
        task = functools.partial(
            _volley_chunk, dice_n=dice_n, hit_on=hit_on, reroll=reroll_misses, extra=extra_dice
        )
        counts, entropy = _monte_carlo(
            task, mc, seed=seed, jobs=jobs, quiet=quiet, desc="volleys", command="odds volley"
        )
        info.update(method="exact+monte-carlo", n=mc, seed=entropy)
    df = _table(list(range(len(exact))), list(exact), counts, mc)
    summary = _summary(df, info, "hits")
    return DiceOdds(
        table=df.rename(columns={"value": "hits"}),
        exact=dict(enumerate(exact)),
        mean=dice.mean_of(exact),
        method=info["method"],
        n=mc,
        seed=entropy,
        summary=summary,
    )


def boarding(
    masts: int,
    vs: int,
    *,
    extra_dice: int = 0,
    vs_extra_dice: int = 0,
    reroll_misses: int = 0,
    vs_reroll_misses: int = 0,
    mc: int = 0,
    seed: int | None = None,
    jobs: int = 1,
    quiet: bool = True,
) -> DiceOdds:
    """A Pirates express boarding: the boarder's successes minus the defender's (3+ on a d6).

    Args:
        masts, vs: the boarding and the defending ship's masts (their dice, 0..30).
        extra_dice, vs_extra_dice: extra dice of each side (Viking, Musketeer).
        reroll_misses, vs_reroll_misses: misses each side rerolls once (Captain).
        mc, seed, jobs, quiet: as in :func:`volley`.

    Returns:
        :class:`DiceOdds` whose table's value column is ``difference``; its summary also holds
        ``boarder_wins``, ``tie`` and ``defender_wins``.

    Example:
        >>> odds = boarding(2, 1)
        >>> odds.exact[1], odds.exact[0], odds.exact[-1]
        (Fraction(4, 9), Fraction(1, 3), Fraction(2, 27))
        >>> list(odds.table.columns)
        ['difference', 'exact']
    """
    for name, value in (("masts", masts), ("vs", vs)):
        _check(name, value, 0, MAX_BOARDING_DICE)
    for name, value in (
        ("extra_dice", extra_dice),
        ("vs_extra_dice", vs_extra_dice),
        ("reroll_misses", reroll_misses),
        ("vs_reroll_misses", vs_reroll_misses),
    ):
        _check(name, value, 0, MAX_BOARDING_DICE)
    _check("mc", mc, 0, 10**9)
    exact = dice.boarding_pmf(
        masts, vs, extra_dice, vs_extra_dice, 3, reroll_misses, vs_reroll_misses
    )
    values = list(range(-(vs + vs_extra_dice), masts + extra_dice + 1))
    probs = [Fraction(exact.get(v, 0)) for v in values]
    info: dict[str, Any] = {
        "masts": masts,
        "vs": vs,
        "extra_dice": extra_dice,
        "vs_extra_dice": vs_extra_dice,
        "reroll_misses": reroll_misses,
        "vs_reroll_misses": vs_reroll_misses,
        "method": "exact",
    }
    counts, entropy = None, None
    if mc:
        task = functools.partial(
            _boarding_chunk,
            a=masts,
            b=vs,
            ea=extra_dice,
            eb=vs_extra_dice,
            ra=reroll_misses,
            rb=vs_reroll_misses,
        )
        counts, entropy = _monte_carlo(
            task, mc, seed=seed, jobs=jobs, quiet=quiet, desc="boardings", command="odds boarding"
        )
        info.update(method="exact+monte-carlo", n=mc, seed=entropy)
    df = _table(values, probs, counts, mc)
    summary = _summary(df, info, "difference")
    summary["boarder_wins"] = float(sum(p for v, p in exact.items() if v > 0))
    summary["tie"] = float(exact.get(0, 0))
    summary["defender_wins"] = float(sum(p for v, p in exact.items() if v < 0))
    return DiceOdds(
        table=df.rename(columns={"value": "difference"}),
        exact=dict(zip(values, probs)),
        mean=dice.mean_of(exact),
        method=info["method"],
        n=mc,
        seed=entropy,
        summary=summary,
    )
