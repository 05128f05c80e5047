"""Every figure of the report (the only module that imports matplotlib and seaborn).

Figures are drawn with the non-interactive Agg backend, labelled in plain words, with their
intervals drawn (hollow markers, so an interval shorter than the dot still shows), and saved as
PNG and SVG (atomically) beside the CSV that holds their numbers. Each function takes tidy
DataFrames (the same ones written as CSV) and returns a Figure.

Legible on a phone: a figure is at most :data:`WIDTH` inches wide and all its text at least
:data:`FONT` points, so on a 390 px screen (about :data:`PHONE_PX` px for the figure) no text is
below 9 px (:func:`save_figure` returns the smallest text size, which the page records and the
report tests check).
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
#: widest figure (inches) and smallest text (points): FONT / WIDTH * PHONE_PX / 72 >= 9 px
WIDTH = 6.0
FONT = 12.0
#: the width (px) a figure gets on a 390 px phone screen (margins and borders taken off)
PHONE_PX = 346
#: errorbar style: hollow markers, so the interval shows even when it is shorter than the dot
DOT = {"fmt": "o", "capsize": 4, "elinewidth": 1.6, "markersize": 6, "mfc": "none", "mew": 1.6}


def _style() -> None:
    sns.set_theme(style="whitegrid", context="notebook", palette=PALETTE)
    plt.rcParams.update(
        {
            "svg.fonttype": "path",
            "figure.dpi": DPI,
            "savefig.dpi": DPI,
            "font.size": FONT,
            "axes.titlesize": FONT + 1,
            "axes.labelsize": FONT,
            "xtick.labelsize": FONT,
            "ytick.labelsize": FONT,
            "legend.fontsize": FONT,
            "legend.title_fontsize": FONT,
            "figure.titlesize": FONT + 1,
        }
    )


def min_text_px(fig: Figure) -> float:
    """The smallest visible text of ``fig``, in pixels at the figure's dpi."""
    from matplotlib.text import Text

    sizes = [
        t.get_fontsize()
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0
    ]
    return min(sizes) * DPI / 72 if sizes else 0.0


def _fit_width(fig: Figure) -> None:
    """Narrow a figure whose labels reach beyond :data:`WIDTH` inches (the saved PNG is cut to
    its tight bounding box), keeping every text size: the axes give up the room."""
    for _ in range(4):
        renderer = fig.canvas.get_renderer()
        width = fig.get_tightbbox(renderer).width
        if width <= WIDTH + 0.02:
            return
        w, h = fig.get_size_inches()
        fig.set_size_inches(max(2.0, w - (width - WIDTH) - 0.05), h)
        try:
            fig.tight_layout()
        except (ValueError, RuntimeError):  # a layout that cannot shrink further stays
            return


def save_figure(fig: Figure, out_dir: str | Path, stem: str) -> tuple[bytes, float]:
    """Write ``stem.png`` and ``stem.svg`` atomically; return the PNG bytes for embedding and
    the figure's smallest text in PNG pixels."""
    out_dir = Path(out_dir)
    _fit_width(fig)
    small = min_text_px(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    png = buf.getvalue()
    atomic_write(out_dir / f"{stem}.png", lambda p: p.write_bytes(png))
    atomic_write(
        out_dir / f"{stem}.svg", lambda p: fig.savefig(p, format="svg", bbox_inches="tight")
    )
    plt.close(fig)
    return png, small


def _errorbars(ax, x, y, lo, hi, **kw) -> None:
    y = np.asarray(y, float)
    yerr = np.vstack([y - np.asarray(lo, float), np.asarray(hi, float) - y])
    ax.errorbar(x, y, yerr=np.clip(yerr, 0, None), **{**DOT, **kw})


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
        figsize=(WIDTH, 1.45 * len(thresholds) + 1.2),
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
                markersize=3.5,
                capsize=2,
                elinewidth=1.2,
                label="simulated (95% interval)",
            )
            ax.set_xticks([0, d])
            ax.set_xlim(-0.6, d + 0.6)
            ax.set_ylim(0, 1)
            ax.set_yticks([0, 0.5, 1])
            ax.set_yticklabels(["0", ".5", "1"])
            if i == 0:
                ax.set_title(f"{d} {'die' if d == 1 else 'dice'}")
            if j == 0:
                ax.set_ylabel(f"{h}+")
            if i == len(thresholds) - 1:
                ax.set_xlabel("hits")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=2, frameon=False)
    fig.supylabel("a die hits on ... (probability)")
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    return fig


def dice_at_least_one(df: pd.DataFrame) -> Figure:
    """Heatmap of the exact chance of at least one hit by dice rolled and threshold."""
    _style()
    table = df.pivot(index="hit_on", columns="dice", values="p_at_least_one")
    fig, ax = plt.subplots(figsize=(WIDTH, 3.8))
    sns.heatmap(
        table * 100,
        annot=True,
        fmt=".0f",
        annot_kws={"fontsize": FONT},
        cmap="Blues",
        vmin=0,
        vmax=100,
        ax=ax,
        cbar_kws={"label": "chance of at least one hit (%)"},
    )
    ax.set_xlabel("dice rolled")
    ax.set_ylabel("a die hits on")
    ax.set_yticklabels([f"{int(v)}+" for v in table.index], rotation=0)
    ax.set_title("At least one hit (exact, %)")
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
    fig, ax = plt.subplots(figsize=(WIDTH, 0.5 * len(rows) * max(1, len(groups)) ** 0.5 + 1.8))
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
            color=col,
            label=None if g is None else str(g),
            **DOT,
        )
    if reference is not None:
        ax.axvline(reference * scale, color="grey", ls="--", lw=1, label=reference_label)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([str(v) for v in rows])
    ax.invert_yaxis()
    ax.set_xlabel(xlabel + (" (%)" if percent else ""))
    ax.set_title(title)
    if len(groups) > 1 or reference_label:
        ax.legend(
            loc="upper center",
            bbox_to_anchor=(0.5, -0.18 - 0.6 / (len(rows) + 2)),
            ncol=2,
            frameon=False,
        )
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
    h = table.shape[0]
    fig, ax = plt.subplots(figsize=(WIDTH, max(3.0, 0.62 * h + 2.0)))
    labels = annot.to_numpy() if annot is not None else True
    sns.heatmap(
        table.astype(float) * scale,
        annot=labels,
        fmt="" if annot is not None else ".1f",
        cmap=cmap,
        center=None if center is None else center * scale,
        ax=ax,
        annot_kws={"fontsize": FONT},
        cbar_kws={"label": cbar},
    )
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", labelrotation=40)
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
    fig, ax = plt.subplots(figsize=(WIDTH, 4.6))
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
    ax.set_xticklabels([str(c) for c in cats], rotation=30, ha="right")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if hue is not None:
        ax.legend(ncol=2, frameon=False)
    fig.tight_layout()
    return fig


def histogram(
    values: pd.DataFrame, *, x: str, hue: str | None, title: str, xlabel: str, bins: int = 40
) -> Figure:
    """Distribution (share of games) of a per-game quantity, one outline per group."""
    _style()
    fig, ax = plt.subplots(figsize=(WIDTH, 3.8))
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
        figsize=(WIDTH, 0.42 * len(rows) + 1.9),
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
        ax.errorbar(e, y, xerr=err, color=sns.color_palette(PALETTE)[i % 10], **DOT)
        ax.axvline(0, color="grey", ls="--", lw=1)
        ax.set_xlabel(xlabel, wrap=True)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([str(r) for r in rows])
    axes[0][0].invert_yaxis()
    fig.suptitle(title)
    fig.tight_layout()
    return fig
