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

from reports.figures import _errorbars, _style, save_figure


def balance_figure(summary: dict[str, Any], path: str | Path) -> Path:
    """Draw ``summary`` (the balance JSON) to ``path`` (a .png; an .svg beside it)."""
    import matplotlib.pyplot as plt

    _style()
    path = Path(path)
    cands = summary["candidates"]
    targets = list(summary["base"])
    metrics = list(cands[0]["side_effects"]) if cands else []
    fig, axes = plt.subplots(
        1,
        len(targets) + 1,
        figsize=(3.2 * len(targets) + 5.0, max(3.0, 0.28 * len(metrics) + 1.5)),
        squeeze=False,
        gridspec_kw={"width_ratios": [1] * len(targets) + [1.6]},
    )
    labels = ["base", *(f"candidate {k}" for k in range(1, len(cands) + 1))]
    for ax, name in zip(axes[0], targets):
        rows = [summary["base"][name], *(c["targets"][name] for c in cands)]
        y = [r["value"] for r in rows]
        lo = [r["ci95"][0] if r["ci95"][0] is not None else math.nan for r in rows]
        hi = [r["ci95"][1] if r["ci95"][1] is not None else math.nan for r in rows]
        _errorbars(ax, np.arange(len(rows)), y, lo, hi)
        ax.set_xticks(np.arange(len(rows)), labels, rotation=30, ha="right")
        ax.axhline(0.0, color="#444444", lw=0.8)
        ax.set_title(f"{name} (loss, 0 = met)", fontsize=10)
    ax = axes[0][-1]
    for k, c in enumerate(cands):
        d = [c["side_effects"][m]["difference"] for m in metrics]
        lo = [_num(c["side_effects"][m]["ci95"][0]) for m in metrics]
        hi = [_num(c["side_effects"][m]["ci95"][1]) for m in metrics]
        y = np.arange(len(metrics)) + (k - (len(cands) - 1) / 2) * 0.18
        d, lo, hi = (np.asarray(v, float) for v in (d, lo, hi))
        xerr = np.vstack([d - np.where(np.isnan(lo), d, lo), np.where(np.isnan(hi), d, hi) - d])
        ax.errorbar(d, y, xerr=np.clip(xerr, 0, None), fmt="o", capsize=2, label=labels[k + 1])
    ax.set_yticks(np.arange(len(metrics)), metrics, fontsize=8)
    ax.axvline(0.0, color="#444444", lw=0.8)
    ax.set_title("side effects (candidate - base, 95 % repeated CI)", fontsize=10)
    if cands:
        ax.legend(fontsize=8)
    fig.suptitle(
        f"balance {summary['game']} ({summary['players']} players): fresh-seed validation",
        fontsize=11,
    )
    save_figure(fig, path.parent, path.stem)
    return path


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)
