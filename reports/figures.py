"""Every figure of the report (the only module that imports matplotlib and seaborn).

Figures are drawn with the non-interactive Agg backend, labelled in plain words, with their
intervals drawn, and saved as PNG and SVG (atomically) beside the CSV that holds their numbers.
Each function takes tidy DataFrames (the same ones written as CSV) and returns a Figure.
"""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from simulator.output import atomic_write

PALETTE = "colorblind"
DPI = 110


def _style() -> None:
    sns.set_theme(style="whitegrid", context="notebook", palette=PALETTE)
    plt.rcParams.update({"svg.fonttype": "path", "figure.dpi": DPI, "savefig.dpi": DPI})


def save_figure(fig: Figure, out_dir: str | Path, stem: str) -> bytes:
    """Write ``stem.png`` and ``stem.svg`` atomically; return the PNG bytes for embedding."""
    out_dir = Path(out_dir)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    png = buf.getvalue()
    atomic_write(out_dir / f"{stem}.png", lambda p: p.write_bytes(png))
    atomic_write(
        out_dir / f"{stem}.svg", lambda p: fig.savefig(p, format="svg", bbox_inches="tight")
    )
    plt.close(fig)
    return png


def _errorbars(ax, x, y, lo, hi, **kw) -> None:
    y = np.asarray(y, float)
    yerr = np.vstack([y - np.asarray(lo, float), np.asarray(hi, float) - y])
    ax.errorbar(x, y, yerr=np.clip(yerr, 0, None), fmt="o", capsize=3, **kw)


# --------------------------------------------------------------------------------------------
# Dice odds


def dice_distributions(df: pd.DataFrame) -> Figure:
    """Grid of hit distributions: rows = hit threshold, columns = dice rolled.

    ``df`` columns: dice, hit_on, hits, p_exact, p_mc, mc_low, mc_high.
    """
    _style()
    thresholds = sorted(df["hit_on"].unique())
    dice_counts = sorted(df["dice"].unique())
    fig, axes = plt.subplots(
        len(thresholds),
        len(dice_counts),
        figsize=(2.1 * len(dice_counts), 1.7 * len(thresholds)),
        sharey=True,
        squeeze=False,
    )
    for i, h in enumerate(thresholds):
        for j, d in enumerate(dice_counts):
            ax = axes[i][j]
            sub = df[(df["hit_on"] == h) & (df["dice"] == d)].sort_values("hits")
            ax.bar(sub["hits"], sub["p_exact"], color="#9ecae1", width=0.8, label="exact")
            _errorbars(
                ax,
                sub["hits"],
                sub["p_mc"],
                sub["mc_low"],
                sub["mc_high"],
                color="#d62728",
                markersize=3,
                label="simulated (95% interval)",
            )
            ax.set_xticks(range(d + 1))
            ax.set_ylim(0, 1)
            if i == 0:
                ax.set_title(f"{d} {'die' if d == 1 else 'dice'}", fontsize=10)
            if j == 0:
                ax.set_ylabel(f"hit on {h}+\nprobability", fontsize=9)
            if i == len(thresholds) - 1:
                ax.set_xlabel("hits", fontsize=9)
            ax.tick_params(labelsize=8)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="upper center", ncol=2, bbox_to_anchor=(0.5, 1.03), frameon=False
    )
    fig.suptitle(
        "Number of hits: exact probability (bars) and simulation (dots with 95% intervals)",
        y=1.07,
        fontsize=12,
    )
    fig.tight_layout()
    return fig


def dice_at_least_one(df: pd.DataFrame) -> Figure:
    """Heatmap of the exact chance of at least one hit by dice rolled and threshold."""
    _style()
    table = df.pivot(index="hit_on", columns="dice", values="p_at_least_one")
    fig, ax = plt.subplots(figsize=(7, 3.6))
    sns.heatmap(
        table * 100,
        annot=True,
        fmt=".1f",
        cmap="Blues",
        vmin=0,
        vmax=100,
        ax=ax,
        cbar_kws={"label": "chance of at least one hit (%)"},
    )
    ax.set_xlabel("dice rolled")
    ax.set_ylabel("a die hits on")
    ax.set_yticklabels([f"{int(v)}+" for v in table.index], rotation=0)
    ax.set_title("Chance of at least one hit (exact, %)")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# Generic pieces used by the game sections


def rates_with_intervals(
    df: pd.DataFrame,
    *,
    label: str,
    rate: str = "win_rate",
    low: str = "ci_low",
    high: str = "ci_high",
    hue: str | None = None,
    title: str,
    xlabel: str,
    reference: float | None = None,
    reference_label: str | None = None,
    percent: bool = True,
) -> Figure:
    """Horizontal dot plot of rates with 95% interval whiskers, one row per ``label`` value."""
    _style()
    scale = 100.0 if percent else 1.0
    d = df.reset_index(drop=True)
    groups = [None] if hue is None else list(dict.fromkeys(d[hue]))
    rows = list(dict.fromkeys(d[label]))
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(rows) * max(1, len(groups)) ** 0.5 + 1.6))
    colors = sns.color_palette(PALETTE, max(1, len(groups)))
    offsets = np.linspace(-0.2, 0.2, len(groups)) if len(groups) > 1 else [0.0]
    for g, off, col in zip(groups, offsets, colors):
        sub = d if g is None else d[d[hue] == g]
        y = np.array([rows.index(v) for v in sub[label]]) + off
        r = sub[rate].to_numpy(float) * scale
        lo = sub[low].to_numpy(float) * scale
        hi = sub[high].to_numpy(float) * scale
        ax.errorbar(
            r,
            y,
            xerr=np.clip(np.vstack([r - lo, hi - r]), 0, None),
            fmt="o",
            capsize=3,
            color=col,
            label=None if g is None else str(g),
        )
    if reference is not None:
        ax.axvline(reference * scale, color="grey", ls="--", lw=1, label=reference_label)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([str(v) for v in rows])
    ax.invert_yaxis()
    ax.set_xlabel(xlabel + (" (%)" if percent else ""))
    ax.set_title(title)
    if len(groups) > 1 or reference_label:
        ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def heatmap(
    table: pd.DataFrame,
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    cbar: str,
    annot: pd.DataFrame | None = None,
    percent: bool = True,
    center: float | None = None,
    cmap: str = "vlag",
) -> Figure:
    """Annotated heatmap; ``annot`` (same shape, strings) overrides the printed cell text."""
    _style()
    scale = 100.0 if percent else 1.0
    h, w = table.shape
    fig, ax = plt.subplots(figsize=(max(5.5, 1.1 * w + 2.5), max(3.0, 0.55 * h + 1.6)))
    labels = annot.to_numpy() if annot is not None else True
    sns.heatmap(
        table.astype(float) * scale,
        annot=labels,
        fmt="" if annot is not None else ".1f",
        cmap=cmap,
        center=None if center is None else center * scale,
        ax=ax,
        annot_kws={"fontsize": 7},
        cbar_kws={"label": cbar},
    )
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", labelrotation=30)
    ax.tick_params(axis="y", labelrotation=0)
    fig.tight_layout()
    return fig


def bars_with_intervals(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    low: str,
    high: str,
    title: str,
    xlabel: str,
    ylabel: str,
    hue: str | None = None,
) -> Figure:
    """Vertical bars with 95% interval whiskers (e.g. mean fame by source)."""
    _style()
    fig, ax = plt.subplots(figsize=(8, 4))
    cats = list(dict.fromkeys(df[x]))
    groups = [None] if hue is None else list(dict.fromkeys(df[hue]))
    width = 0.8 / len(groups)
    colors = sns.color_palette(PALETTE, len(groups))
    for gi, (g, col) in enumerate(zip(groups, colors)):
        sub = df if g is None else df[df[hue] == g]
        pos = np.array([cats.index(v) for v in sub[x]]) - 0.4 + width * (gi + 0.5)
        vals = sub[y].to_numpy(float)
        err = np.clip(
            np.vstack([vals - sub[low].to_numpy(float), sub[high].to_numpy(float) - vals]), 0, None
        )
        ax.bar(
            pos,
            vals,
            width=width * 0.95,
            color=col,
            yerr=err,
            capsize=3,
            label=None if g is None else str(g),
        )
    ax.set_xticks(range(len(cats)))
    ax.set_xticklabels([str(c) for c in cats], rotation=20, ha="right")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if hue is not None:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def histogram(
    values: pd.DataFrame, *, x: str, hue: str | None, title: str, xlabel: str, bins: int = 40
) -> Figure:
    """Distribution (share of games) of a per-game quantity, one outline per group."""
    _style()
    fig, ax = plt.subplots(figsize=(8, 4))
    sns.histplot(
        values,
        x=x,
        hue=hue,
        bins=bins,
        stat="probability",
        common_norm=False,
        element="step",
        fill=False,
        ax=ax,
    )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of games")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def forest(
    df: pd.DataFrame,
    *,
    label: str,
    panels: list[tuple[str, str, str, str]],
    title: str,
    scale: list[float] | None = None,
) -> Figure:
    """Differences with 95% intervals against a zero line, one panel per measure.

    ``panels``: (column of the estimate, low column, high column, axis label) per panel.
    """
    _style()
    rows = list(dict.fromkeys(df[label]))
    fig, axes = plt.subplots(
        1,
        len(panels),
        figsize=(4.2 * len(panels) + 1.5, 0.42 * len(rows) + 1.8),
        sharey=True,
        squeeze=False,
    )
    for i, (est, lo, hi, xlabel) in enumerate(panels):
        ax = axes[0][i]
        s = (scale or [1.0] * len(panels))[i]
        y = np.array([rows.index(v) for v in df[label]])
        e = df[est].to_numpy(float) * s
        err = np.clip(
            np.vstack([e - df[lo].to_numpy(float) * s, df[hi].to_numpy(float) * s - e]), 0, None
        )
        ax.errorbar(e, y, xerr=err, fmt="o", capsize=3, color=sns.color_palette(PALETTE)[i % 10])
        ax.axvline(0, color="grey", ls="--", lw=1)
        ax.set_xlabel(xlabel)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([str(r) for r in rows])
    axes[0][0].invert_yaxis()
    fig.suptitle(title)
    fig.tight_layout()
    return fig
