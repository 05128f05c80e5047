"""Broadside's public Python API for the studies that play through ``reports/``: the house-rule
comparison (``docs/python.md``; the games, odds, duels and searches are in :mod:`simulator.api`,
which cannot import ``reports/``).

Everything here is public and listed in ``__all__`` (pinned by ``tests/test_contracts.py``).
As in :mod:`simulator.api`, a function returns a result whose tables are tidy DataFrames with
intervals, raises :class:`~simulator.errors.UserError` on bad input, and never prints or exits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from scenarios.loader import ScenarioError
from simulator.api import GAMES
from simulator.errors import UserError

__all__ = ["Comparison", "compare"]

#: columns of :attr:`Comparison.metrics`
METRIC_COLUMNS = (
    "name",
    "label",
    "base",
    "variant",
    "difference",
    "ci95_low",
    "ci95_high",
    "p_value",
    "p_holm",
    "decided",
    "n_games",
    "verdict",
)
#: columns of :attr:`Comparison.looks`
LOOK_COLUMNS = (
    "metric",
    "look",
    "n_games",
    "n_units",
    "difference",
    "se",
    "t",
    "z",
    "boundary",
    "crossed",
)


@dataclass(frozen=True)
class Comparison:
    """Does a house rule change the game? Both rule sets played on paired seeds, look by look,
    until the group-sequential test stops.

    Attributes:
        metrics: one row per metric (columns :data:`METRIC_COLUMNS`): its mean under the
            ``base`` and the ``variant`` rules, the ``difference`` (variant minus base) with its
            repeated 95 % confidence interval (valid whenever the run stopped), the stage-wise
            ``p_value``, its Holm correction across metrics ``p_holm``, whether the difference is
            ``decided`` at ``alpha``, the paired games behind it and a one-line ``verdict``
            that never says more than the interval.
        looks: every look of every metric (columns :data:`LOOK_COLUMNS`): the statistic ``z``
            against the look's ``boundary``.
        headline: one line: how many games, which differences were found (or "no detectable
            difference at this n").
        n_games: paired games played; ``stopped_early`` whether the test stopped before
            ``max_games``; ``seed`` the root seed; ``summary`` the JSON of ``broadside compare``.
    """

    metrics: pd.DataFrame
    looks: pd.DataFrame
    headline: str
    n_games: int
    stopped_early: bool
    seed: int
    summary: dict[str, Any] = field(default_factory=dict)


def compare(
    base: str,
    variant: str,
    *,
    game: str,
    metrics: Sequence[str] = (),
    max_games: int = 20_000,
    alpha: float = 0.05,
    looks: int = 5,
    players: int | None = None,
    strategies: Sequence[str] | str | None = None,
    population: str | None = None,
    seed: int | None = None,
    jobs: int = 1,
    engine: str | None = None,
) -> Comparison:
    """Play the ``base`` and ``variant`` rules on the same dice and test every metric's change.

    A group-sequential test with alpha spending (O'Brien-Fleming) looks ``looks`` times and may
    stop early; nothing is decided before 10 paired games (10 tables with ``population``);
    p-values are Holm-corrected across metrics. As ``broadside compare`` (``docs/report.md``).

    Args:
        base, variant: scenario files or built-in names (Les Pirates: printed variants too,
            several joined by ``+``).
        game: ``"cove"``, ``"express"`` or ``"hunt"``.
        metrics: ``win-rate:STRATEGY``, ``seat-advantage``, ``game-length``, ``stalemate``,
            ``fame:STRATEGY`` (the game's; default: each strategy's win rate, or seat advantage
            and game length).
        max_games: paired games at most.
        players, strategies: the table (default: the scenario's default mix).
        population: seats drawn from a saved equilibrium (``NAME`` or ``PATH.toml``) instead.

    Returns:
        :class:`Comparison`.

    Example:
        >>> c = compare("standard", "one-two", game="hunt", metrics=["game-length"],
        ...             max_games=200, seed=1)
        >>> list(c.metrics.columns[:7])
        ['name', 'label', 'base', 'variant', 'difference', 'ci95_low', 'ci95_high']
        >>> row = c.metrics.iloc[0]
        >>> bool(row["ci95_low"] <= row["difference"] <= row["ci95_high"]), c.n_games <= 200
        (True, True)
    """
    from reports.compare import run_compare, summary_table

    if game not in GAMES:
        raise UserError(f"game {game!r} (allowed: {', '.join(GAMES)})")
    if isinstance(metrics, str):
        metrics = [metrics]
    try:
        result = run_compare(
            base,
            variant,
            game=game,
            metrics=list(metrics),
            alpha=alpha,
            max_games=max_games,
            looks=looks,
            players=players,
            strategies=strategies,
            population=population,
            seed=seed,
            jobs=jobs,
            quiet=True,
            engine=engine,
        )
    except ScenarioError as exc:
        raise UserError(str(exc)) from exc
    table = summary_table(result)
    by_name = {r["name"]: r for r in result["metrics"]}
    table.insert(1, "label", [by_name[n]["label"] for n in table["name"]])
    table["verdict"] = [by_name[n]["verdict"] for n in table["name"]]
    return Comparison(
        metrics=table[list(METRIC_COLUMNS)],
        looks=pd.DataFrame(result["history"], columns=LOOK_COLUMNS),
        headline=result["headline"],
        n_games=int(result["n_games"]),
        stopped_early=bool(result["stopped_early"]),
        seed=int(result["seed_entropy"]),
        summary=result,
    )
