"""The game protocol: what every game room offers the studies (report, compare, search).

Each game exposes, from ``simulator/<game>/api.py``, the same small interface (checked for every
game by ``tests/test_protocol.py``)::

    GAME: str                                    # "cove", "express", "hunt"
    load(scenario=None) -> Scenario              # a path, a built-in name, a Scenario, or None
    strategies(scenario) -> Mapping[str, StrategyDecl]   # the named strategies (scenario data)
    kinds(scenario) -> Mapping[str, KindDecl]    # the kinds and their parameter spaces
    default_mix(scenario) -> tuple[str, ...]     # strategy names, one per seat of the default table
    player_counts(scenario) -> tuple[int, ...]   # the table sizes the scenario allows
    play(scenario, strategies, *, n, players=None, seed=None, jobs=1, rotate_seats=False,
         quiet=True, check=False, engine=None) -> PlayResult
    ENGINES: tuple[str, ...]                     # play's engines ("fast", and "python" if any)

``play`` plays ``n`` games (``n`` is always the number of games played, rotations included) and
returns a :class:`PlayResult`. Its ``seats`` table has one row per game and seat, keyed by
:data:`SEAT_KEY`, starting with :data:`SEAT_COLUMNS`:

``game``      game id, 0-based within the run
``rotation``  seat rotation of the game (0: strategies in the order given; ``r``: shifted by r)
``seat``      1 = the first player
``strategy``  the strategy name that sat there
``outcome``   ``win``, ``loss`` or ``draw`` (a shared win or a game nobody won)
``score``     the share of the win: 1 for a sole winner, 1/k to each of k tied winners, 1/P to
              each of the P players of a game nobody won (0.5 each for a two-player draw), else 0

then the game's own columns. ``score`` is the one measure the strategy search and the meta-game
optimise; every seat of a game scores 1 in total.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from simulator.errors import UserError
from simulator.output import SCHEMA_VERSION  # noqa: F401  (re-exported for the rooms)
from simulator.stats import Z95, clustered_wilson_interval, wilson_interval

SEAT_KEY = ("game", "rotation", "seat")
#: what an output records as its engine when ``--engine`` was not given (each game chose its own)
ENGINE_DEFAULT = "default"
SEAT_COLUMNS = ("game", "rotation", "seat", "strategy", "outcome", "score")
OUTCOMES = ("win", "loss", "draw")
#: scenario provenance written as columns of every per-seat table (beside ``seed``)
TABLE_PROVENANCE = ("scenario", "rules_version", "scenario_hash")

#: the columns of :meth:`PlayResult.intervals` after the grouping column (docs/python.md)
INTERVAL_COLUMNS = ("measure", "games", "n_eff", "estimate", "ci95_low", "ci95_high")
#: its measures: ``score`` the win share (1/k of a k-way shared win), ``win`` an outright win
INTERVAL_MEASURES = ("score", "win")

#: what every game module must define (tests/test_protocol.py checks each one)
PROTOCOL_NAMES = ("GAME", "load", "strategies", "kinds", "default_mix", "player_counts", "play")


@dataclass(frozen=True)
class PlayResult:
    """The result of :func:`play` in every game.

    Attributes:
        game: the game's name.
        seats: tidy per-seat table (:data:`SEAT_COLUMNS` first, then the game's columns); empty of
            rows (columns kept) when the run streamed them to ``out`` only.
        summary: the JSON object of the game's ``play`` command (intervals included).
        tables: further tidy tables of the game (e.g. Pirate's Cove battles), by name.
        entropy: root seed of the run (pass it back as ``--seed`` to replay).
        provenance: scenario provenance plus the strategies' parameter hashes.
    """

    game: str
    seats: pd.DataFrame
    summary: dict[str, Any]
    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    entropy: int = 0
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def intervals(self, by: str = "strategy") -> pd.DataFrame:
        """Win share and outright win rate per group of seats, with 95 % intervals (tidy).

        Args:
            by: a column of :attr:`seats` to group by: ``"strategy"`` (the default),
                ``"seat"``, or a game's own column (Pirates express's ``nation``...).

        Returns:
            One row per group and measure (:data:`INTERVAL_MEASURES`), columns ``by`` then
            :data:`INTERVAL_COLUMNS`: ``games`` (seat rows in the group), ``n_eff`` (the rows'
            effective number, smaller when rows of one game, or of one deal's seat rotations,
            move together), ``estimate`` and its Wilson 95 % interval on ``n_eff``
            (:func:`simulator.stats.clustered_wilson_interval`; with one row per game it is the
            summary's interval). Groups in order of first appearance (seats ascending).

        Example:
            >>> import pandas as pd
            >>> seats = pd.DataFrame({"game": [0, 0, 1, 1], "rotation": 0, "seat": [1, 2, 1, 2],
            ...     "strategy": ["a", "b", "a", "b"], "outcome": ["win", "loss", "draw", "draw"],
            ...     "score": [1.0, 0.0, 0.5, 0.5]})
            >>> PlayResult("toy", seats, {}).intervals()[["strategy", "measure", "estimate"]]
              strategy measure  estimate
            0        a   score      0.75
            1        a     win      0.50
            2        b   score      0.25
            3        b     win      0.00
        """
        return play_intervals(self.seats, by)


def outcomes_from_scores(score: np.ndarray) -> np.ndarray:
    """``win`` / ``loss`` / ``draw`` per seat from its score share (1, 0, or a fraction)."""
    score = np.asarray(score, dtype=float)
    out = np.full(score.shape, "draw", dtype=object)
    out[score >= 1.0] = "win"
    out[score <= 0.0] = "loss"
    return out


def shares(winners: Sequence[int] | np.ndarray, players: int) -> np.ndarray:
    """Score shares of one game: 1/k to each of the k winners, 1/P to all when nobody won."""
    s = np.zeros(players)
    winners = list(winners)
    if winners:
        s[winners] = 1.0 / len(winners)
    else:
        s[:] = 1.0 / players
    return s


def seated(strategies: Sequence[str], rotation: int) -> list[str]:
    """Strategy at each seat (a 0-based list) under ``rotation``: strategies[(s + r) % P]."""
    p = len(strategies)
    return [strategies[(s + rotation) % p] for s in range(p)]


def check_seats_table(df: pd.DataFrame) -> None:
    """Raise ``AssertionError`` unless ``df`` follows the protocol (tests run it for each game)."""
    missing = [c for c in SEAT_COLUMNS if c not in df.columns]
    assert not missing, f"seats table lacks {missing}"
    assert list(df.columns[: len(SEAT_COLUMNS)]) == list(SEAT_COLUMNS), list(df.columns[:6])
    assert not df.duplicated(list(SEAT_KEY)).any(), "(game, rotation, seat) is not unique"
    assert set(df["outcome"].unique()) <= set(OUTCOMES), df["outcome"].unique()
    if len(df):
        assert df["seat"].min() >= 1, "seats are numbered from 1"
        totals = df.groupby(["game", "rotation"])["score"].sum().to_numpy()
        assert np.allclose(totals, 1.0), "scores of a game must add up to 1"


def score_summary(seats: pd.DataFrame, by: str = "strategy") -> dict[str, dict[str, Any]]:
    """Mean score, win rate (Wilson 95 %) and games per group of the seats table."""
    out: dict[str, dict[str, Any]] = {}
    for key, grp in seats.groupby(by, sort=False):
        n = len(grp)
        score = grp["score"].to_numpy(float)
        mean = float(score.mean()) if n else float("nan")
        se = float(score.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
        wins = float((grp["outcome"] == "win").sum())
        lo, hi = wilson_interval(wins, n)
        out[str(key)] = {
            "games": int(n),
            "score": mean,
            "score_ci95": [mean - Z95 * se, mean + Z95 * se],
            "win_rate": wins / n if n else float("nan"),
            "ci95": [lo, hi],
        }
    return out


def play_intervals(seats: pd.DataFrame, by: str = "strategy") -> pd.DataFrame:
    """:meth:`PlayResult.intervals` of a seats table (its ``deal`` column, where a game has one,
    groups the seat rotations that replay the same dice; else each ``game`` is a cluster)."""
    if by not in seats.columns:
        allowed = ", ".join(c for c in seats.columns if c not in ("score", "outcome"))
        raise UserError(
            f"intervals by {by!r}: not a column of the seats table (allowed: {allowed})"
        )
    cluster = "deal" if "deal" in seats.columns else "game"
    rows = []
    groups = seats.groupby(by, sort=by == "seat")
    for key, grp in groups:
        clusters = grp[cluster].to_numpy()
        values = {
            "score": grp["score"].to_numpy(float),
            "win": (grp["outcome"] == "win").to_numpy(float),
        }
        for measure in INTERVAL_MEASURES:
            m, n_eff, lo, hi = clustered_wilson_interval(values[measure], clusters)
            rows.append(
                {
                    by: key,
                    "measure": measure,
                    "games": len(grp),
                    "n_eff": n_eff,
                    "estimate": m,
                    "ci95_low": lo,
                    "ci95_high": hi,
                }
            )
    return pd.DataFrame(rows, columns=[by, *INTERVAL_COLUMNS])
