"""Report section "Dice odds": exact hit distributions by dice count and threshold, MC overlaid.

Exact probabilities come from :func:`simulator.dice.volley_pmf` (Fractions); the simulated ones
from :func:`simulator.dice.sample_volley` in seeded chunks, with Wilson 95% intervals and the
z-score of each cell against the exact value.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from scipy import stats as sps

from reports.html import Section
from simulator import dice
from simulator.runner import Chunk, run_chunks
from simulator.stats import wilson_interval

DICE_COUNTS = tuple(range(1, 7))  # dice rolled
THRESHOLDS = tuple(range(2, 7))  # a die hits on this or more
ROLLS = {"test": 2_000, "quick": 20_000, "standard": 400_000, "full": 4_000_000}  # per cell


def _chunk(chunk: Chunk) -> np.ndarray:
    """Counts [dice index, threshold index, hits] for ``chunk.size`` volleys of every cell."""
    rng = chunk.rng()
    out = np.zeros((len(DICE_COUNTS), len(THRESHOLDS), max(DICE_COUNTS) + 1), dtype=np.int64)
    for i, d in enumerate(DICE_COUNTS):
        for j, h in enumerate(THRESHOLDS):
            hits = dice.sample_volley(rng, chunk.size, d, h)
            out[i, j, : d + 1] = np.bincount(hits, minlength=d + 1)
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
        chunk_size=max(1000, min(100_000, n // 4 or 1)),
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
    p_cell = 2 * float(sps.norm.sf(abs(worst["z"])))
    p_any = 1 - (1 - p_cell) ** informative  # Sidak: chance of a gap this large somewhere by luck
    sec.text(
        f"Simulation check: {len(dist)} cells, {n:,} simulated volleys per dice count and "
        f"threshold; the largest gap from the exact value is {abs(worst['z']):.2f} standard errors "
        f"(dice={int(worst['dice'])}, hit on {int(worst['hit_on'])}+, {int(worst['hits'])} hits). "
        "If the dice code is right, a gap at least this large somewhere among the "
        f"{informative} cells that can vary happens by chance with probability "
        f"about {p_any:.0%} (z-scores in dice_distribution.csv).",
        "note",
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
