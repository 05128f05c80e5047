"""Report section "Dice odds": exact hit distributions by dice count and threshold, MC overlaid.

Exact probabilities come from :func:`simulator.dice.volley_pmf` (Fractions); the simulated ones
from :func:`simulator.dice.sample_volley` in seeded chunks, with Wilson 95% intervals and the
z-score of each cell against the exact value.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from reports.html import Section
from simulator import dice
from simulator.runner import Block, Chunk, derive_seed, run_chunks
from simulator.stats import wilson_interval

DICE_COUNTS = tuple(range(1, 7))  # dice rolled
THRESHOLDS = tuple(range(2, 7))  # a die hits on this or more
ROLLS = {"test": 2_000, "quick": 20_000, "standard": 400_000, "full": 4_000_000}  # per cell


#: volleys per block of random streams (part of the seed tree; chunks are whole blocks)
BLOCK_SIZE = 1000
#: simulated runs of exact dice behind the self-check's reference distribution of the largest |z|
NULL_RUNS = 2000


def null_max_z(df: pd.DataFrame, n: int, seed: int, runs: int = NULL_RUNS) -> np.ndarray:
    """The largest |z| over the cells that can vary, in ``runs`` simulated runs of a *correct*
    dice code: each panel's hit counts drawn from the exact multinomial (parametric bootstrap),
    z computed exactly as for the real run. Returns the ``runs`` maxima."""
    rng = Block(index=0, start=0, size=runs, entropy=derive_seed(seed, "dice-null")).rng("sample")
    best = np.zeros(runs)
    for (_, _), g in df.groupby(["dice", "hit_on"], sort=True):
        p = g["p_exact"].to_numpy(float)
        counts = rng.multinomial(n, p / p.sum(), size=runs)
        se = np.sqrt(p * (1 - p) / n)
        vary = se > 0
        z = (counts[:, vary] / n - p[vary]) / se[vary]
        best = np.maximum(best, np.abs(z).max(axis=1))
    return best


def _chunk(chunk: Chunk) -> np.ndarray:
    """Counts [dice index, threshold index, hits] for ``chunk.size`` volleys of every cell."""
    out = np.zeros((len(DICE_COUNTS), len(THRESHOLDS), max(DICE_COUNTS) + 1), dtype=np.int64)
    for block in chunk.blocks():
        rng = block.rng("dice")
        for i, d in enumerate(DICE_COUNTS):
            for j, h in enumerate(THRESHOLDS):
                hits = dice.sample_volley(rng, block.size, d, h)
                out[i, j, : d + 1] += np.bincount(hits, minlength=d + 1)
    return out


def tables(n: int, seed: int, jobs: int, quiet: bool) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """(distribution table, at-least-one table, entropy)."""
    # small runs stay in-process (starting workers costs more than the rolls); never changes results
    run = run_chunks(
        functools.partial(_chunk),
        n,
        seed=seed,
        n_jobs=jobs if n > 200_000 else 1,
        quiet=quiet,
        chunk_size=None,
        block_size=BLOCK_SIZE,
        desc="dice",
    )
    counts = np.sum(run.results, axis=0)
    rows = []
    for i, d in enumerate(DICE_COUNTS):
        for j, h in enumerate(THRESHOLDS):
            pmf = dice.volley_pmf(d, h)
            for k, p in enumerate(pmf):
                rows.append(
                    {
                        "dice": d,
                        "hit_on": h,
                        "hits": k,
                        "p_exact": float(p),
                        "p_exact_fraction": str(p),
                        "count": int(counts[i, j, k]),
                        "n": n,
                    }
                )
    df = pd.DataFrame(rows)
    df["p_mc"] = df["count"] / df["n"]
    lo, hi = wilson_interval(df["count"].to_numpy(), df["n"].to_numpy())
    df["mc_low"], df["mc_high"] = lo, hi
    se = np.sqrt(df["p_exact"] * (1 - df["p_exact"]) / n)  # exact-value standard error
    with np.errstate(divide="ignore", invalid="ignore"):
        df["z"] = np.where(se > 0, (df["p_mc"] - df["p_exact"]) / np.where(se > 0, se, 1), 0.0)
    atleast = (
        df[df["hits"] == 0][["dice", "hit_on", "p_exact", "count", "n"]]
        .assign(
            p_at_least_one=lambda t: 1 - t["p_exact"],
            mc_at_least_one=lambda t: 1 - t["count"] / t["n"],
        )
        .drop(columns=["p_exact", "count"])
        .reset_index(drop=True)
    )
    expected = (
        df.assign(w=df["hits"] * df["p_exact"])
        .groupby(["dice", "hit_on"], as_index=False)["w"]
        .sum()
    )
    atleast = atleast.merge(expected.rename(columns={"w": "expected_hits"}), on=["dice", "hit_on"])
    return df, atleast, run.entropy


def build(ctx, seed: int) -> Section:
    from reports import figures

    sec = Section("dice", "Dice odds")
    n = ROLLS[ctx.size]
    dist, atleast, _ = tables(n, seed, ctx.jobs, ctx.quiet)
    sec.text(
        "Every game here rolls six-sided dice and counts a hit for each die showing a threshold or "
        "more (Pirate's Cove broadsides hit on 5+; Pirates express gunnery hits on 2+ to 6+ by "
        "range). The bars are exact probabilities; the red dots are a simulation with the same "
        "dice code the games use, with 95% Wilson intervals. The simulation is a check of the dice "
        "code: the dots should sit on the bars."
    )
    worst = dist.loc[dist["z"].abs().idxmax()]
    informative = int((dist["p_exact"].between(0, 1, inclusive="neither")).sum())
    largest = float(abs(worst["z"]))
    ref = null_max_z(dist, n, seed)
    pct = float((ref < largest).mean())
    q50, q95, q99 = (float(np.quantile(ref, q)) for q in (0.5, 0.95, 0.99))
    check = pd.DataFrame(
        [
            {
                "statistic": "largest |z| over the cells that can vary",
                "cells": informative,
                "volleys_per_panel": n,
                "this_run": largest,
                "correct_dice_median": q50,
                "correct_dice_q95": q95,
                "correct_dice_q99": q99,
                "share_of_correct_runs_below": pct,
                "reference_runs": len(ref),
            }
        ]
    )
    verdict = (
        "within what correct dice give"
        if largest <= q99
        else "larger than 99% of runs of correct dice: worth a look at the dice code"
    )
    sec.text(
        f"Dice self-check: with {n:,} simulated volleys per panel, a correct dice code shows a "
        f"largest gap over the {informative} cells that can vary of about {q50:.2f} standard "
        f"errors (median of {len(ref):,} simulated runs of exact dice), below {q95:.2f} in 95% "
        f"and below {q99:.2f} in 99% of them. This run: {largest:.2f} (dice={int(worst['dice'])}, "
        f"hit on {int(worst['hit_on'])}+, {int(worst['hits'])} hits), larger than "
        f"{pct:.0%} of correct runs: {verdict}.",
        "note" if largest <= q99 else "warning",
        anchor="dice-self-check",
    )
    sec.table(
        "dice_self_check",
        check,
        "The dice self-check against the distribution a correct dice code gives.",
        key=("statistic",),
    )
    ctx.figure(
        sec,
        "dice_distribution",
        figures.dice_distributions(dist),
        caption="How many hits a volley scores, by number of dice (columns) and the score a die "
        "needs to hit (rows).",
        csv="dice_distribution",
        n=f"{n:,} simulated volleys per panel plus the exact values",
        n_value=n,
        method="exact + monte-carlo",
    )
    ctx.figure(
        sec,
        "dice_at_least_one",
        figures.dice_at_least_one(atleast),
        caption="Chance that a volley scores at least one hit (exact).",
        csv="dice_at_least_one",
        n="exact enumeration",
        n_value=None,
        method="exact",
    )
    sec.table(
        "dice_distribution",
        dist,
        "Hit distribution, exact and simulated (first rows; all cells in the file).",
        show=dist[
            [
                "dice",
                "hit_on",
                "hits",
                "p_exact_fraction",
                "p_exact",
                "p_mc",
                "mc_low",
                "mc_high",
                "z",
            ]
        ],
        key=("dice", "hit_on", "hits"),
    )
    sec.table(
        "dice_at_least_one",
        atleast,
        "Chance of at least one hit and expected hits (exact), with the simulated chance.",
        show=atleast[["dice", "hit_on", "p_at_least_one", "mc_at_least_one", "expected_hits", "n"]],
        key=("dice", "hit_on"),
    )
    return sec
