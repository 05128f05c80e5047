"""A balance run in pictures and words: ``broadside balance``'s before/after figure, and what the
report says of a balance run's candidates (``broadside report --balance DIR``).

The figure has one panel per target (the base and each kept candidate, value and 95 % interval
on fresh seeds; 0 is met) and one panel of side effects (each candidate's difference from the
base on every headline metric, with compare's repeated 95 % interval).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from reports.figures import DOT, WIDTH, _errorbars, _style, save_figure


def balance_figure(summary: dict[str, Any], path: str | Path) -> Path:
    """Draw ``summary`` (the balance JSON) to ``path`` (a .png; an .svg beside it)."""
    path = Path(path)
    save_figure(figure(summary), path.parent, path.stem)
    return path


def figure(summary: dict[str, Any]) -> Figure:
    """The before/after figure of a balance run (see the module docstring): one panel per
    target, then the side effects, stacked at the report's width and font size (legible on a
    phone)."""
    import matplotlib.pyplot as plt

    _style()
    cands = summary["candidates"]
    targets = list(summary["base"])
    metrics = list(cands[0]["side_effects"]) if cands else []
    heights = [2.4] * len(targets) + [max(2.0, 0.42 * len(metrics) + 0.8)]
    fig, axes = plt.subplots(
        len(heights),
        1,
        figsize=(WIDTH, sum(heights) + 0.8),
        squeeze=False,
        gridspec_kw={"height_ratios": heights},
    )
    labels = ["base", *(f"cand. {k}" for k in range(1, len(cands) + 1))]
    for ax, name in zip(axes[:, 0], targets):
        rows = [summary["base"][name], *(c["targets"][name] for c in cands)]
        y = [r["value"] for r in rows]
        lo = [_num(r["ci95"][0]) for r in rows]
        hi = [_num(r["ci95"][1]) for r in rows]
        _errorbars(ax, np.arange(len(rows)), y, lo, hi)
        ax.set_xticks(np.arange(len(rows)), labels)
        ax.axhline(0.0, color="#444444", lw=0.8)
        ax.set_title(f"{name}: loss (0 = met)")
    ax = axes[-1][0]
    for k, c in enumerate(cands):
        d = np.asarray([c["side_effects"][m]["difference"] for m in metrics], float)
        lo = np.asarray([_num(c["side_effects"][m]["ci95"][0]) for m in metrics], float)
        hi = np.asarray([_num(c["side_effects"][m]["ci95"][1]) for m in metrics], float)
        y = np.arange(len(metrics)) + (k - (len(cands) - 1) / 2) * 0.18
        xerr = np.vstack([d - np.where(np.isnan(lo), d, lo), np.where(np.isnan(hi), d, hi) - d])
        ax.errorbar(d, y, xerr=np.clip(xerr, 0, None), **{**DOT, "label": labels[k + 1]})
    ax.set_yticks(np.arange(len(metrics)), metrics)
    ax.axvline(0.0, color="#444444", lw=0.8)
    ax.set_title("side effects: candidate - base")
    if cands:
        ax.legend()
    fig.tight_layout()
    return fig


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)
