"""Helpers shared by the game sections of the report."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.html import Section
from simulator.stats import Z95, wilson_interval


def rate_table(
    df: pd.DataFrame, by: list[str], success: str, weight: str | None = None
) -> pd.DataFrame:
    """Counts, n, rate and Wilson 95% interval of ``success`` (0..1, ties may be fractional) by
    group."""
    g = df.groupby(by, sort=False, observed=True)
    out = (
        g[success].agg(["sum", "count"]).reset_index().rename(columns={"sum": "wins", "count": "n"})
    )
    out["win_rate"] = out["wins"] / out["n"]
    lo, hi = wilson_interval(out["wins"].to_numpy(float), out["n"].to_numpy(float))
    out["ci_low"], out["ci_high"] = np.atleast_1d(lo), np.atleast_1d(hi)
    return out


def mean_table(df: pd.DataFrame, by: list[str], value: str) -> pd.DataFrame:
    """Mean of ``value`` by group with a normal 95% interval (n, mean, se, ci_low, ci_high)."""
    g = df.groupby(by, sort=False, observed=True)[value]
    out = g.agg(["mean", "std", "count"]).reset_index().rename(columns={"count": "n"})
    out["se"] = out["std"] / np.sqrt(out["n"].clip(lower=1))
    out["ci_low"] = out["mean"] - Z95 * out["se"]
    out["ci_high"] = out["mean"] + Z95 * out["se"]
    return out.drop(columns=["std"])


def scenario_row(scen) -> dict:
    return {
        "game": scen.game,
        "name": scen.name,
        "rules_version": scen.rules_version,
        "content_hash": scen.content_hash,
        "path": str(scen.path),
    }


def seat_advantage(
    ctx,
    sec: Section,
    df: pd.DataFrame,
    success: str,
    *,
    stem: str,
    n_players: int,
    n_games: int,
    title: str,
    caption: str,
    table_title: str,
) -> None:
    """Win rate by seat (numbered from 1 in turn order) against the fair share: figure and table."""
    from reports import figures

    seats = rate_table(df, ["seat"], success)
    seats["seat"] = seats["seat"].astype(int)
    seats = seats.rename(columns={"seat": "seat_in_turn_order"})
    ctx.figure(
        sec,
        stem,
        figures.rates_with_intervals(
            seats,
            label="seat_in_turn_order",
            title=title,
            xlabel="games won",
            reference=1 / n_players,
            reference_label=f"fair share (1 in {n_players})",
        ),
        caption=caption,
        csv=stem,
        n=f"{n_games:,} games",
        n_value=n_games,
    )
    sec.table(stem, seats, table_title, key=("seat_in_turn_order",))
