"""Adapters from each game engine's API to one tidy shape used by ``compare`` and the report.

Every adapter's ``play`` returns one row per game and seat with at least the columns ``game``
(0-based id within the batch), ``seat`` (0 moves first), ``strategy`` and ``won`` (1, 0, or a
fraction when a win is shared), plus what the game has: ``turns``, ``stalemate``, ``fame``.
Engines are imported lazily: a game whose engine is not in this build raises a one-line
:class:`UserError` here, and the report shows a note instead of numbers.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from scenarios.loader import SCENARIO_ROOT, Scenario, load_scenario
from simulator.errors import UserError


def _engine(module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            raise UserError(f"engine not available in this build: {module} is missing") from None
        raise


@dataclass(frozen=True)
class Engine:
    game: str
    metrics: tuple[str, ...]  # metric kinds this game supports
    default_players: int
    default_strategies: tuple[str, ...]

    def scenario_names(self) -> list[str]:
        names = sorted(p.stem for p in (SCENARIO_ROOT / self.game).glob("*.toml"))
        if self.game == "hunt":
            names += sorted(p.stem for p in (SCENARIO_ROOT / "hunt" / "variants").glob("*.toml"))
        return names

    def resolve(self, ref: str) -> Scenario:
        """A scenario file path, a built-in scenario name, or (hunt) a printed variant's name
        (several joined with ``+``, e.g. ``one-two+cyclone``)."""
        path = Path(ref)
        if self.game == "hunt" and "+" in ref and not path.exists():
            api = _engine("simulator.hunt.api")
            return api.load(None, [v for v in ref.split("+") if v and v != "standard"])
        if path.suffix == ".toml" or path.exists():
            scen = load_scenario(path, game=self.game)
            return scen
        builtin = SCENARIO_ROOT / self.game / f"{ref}.toml"
        if builtin.exists():
            return load_scenario(builtin, game=self.game)
        if self.game == "hunt":
            variant = SCENARIO_ROOT / "hunt" / "variants" / f"{ref}.toml"
            if variant.exists():
                return load_scenario(variant, game="hunt")
        names = self.scenario_names()
        close = difflib.get_close_matches(ref, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UserError(
            f"{ref}: no such scenario file or name for {self.game} (allowed: a .toml file or "
            f"{', '.join(names)}){hint}"
        )

    def play(
        self,
        scenario: Scenario,
        *,
        n: int,
        seed: int,
        jobs: int,
        quiet: bool,
        players: int | None = None,
        strategies: tuple[str, ...] | None = None,
    ) -> pd.DataFrame:
        players = players or self.default_players
        strategies = tuple(strategies) if strategies else self.default_strategies[:players]
        if len(strategies) == 1 and players > 1:
            strategies = strategies * players
        if len(strategies) != players:
            raise UserError(
                f"--strategies: {len(strategies)} given for {players} players "
                "(allowed: one per seat)"
            )
        return _PLAYERS[self.game](
            scenario, n=n, seed=seed, jobs=jobs, quiet=quiet, players=players, strategies=strategies
        )


# --------------------------------------------------------------------------------------------
# Per-game adapters (each reads that engine's documented API)


def _play_hunt(scenario, *, n, seed, jobs, quiet, players, strategies) -> pd.DataFrame:
    api = _engine("simulator.hunt.api")
    games, _summary = api.play_games(
        scenario, list(strategies), n, seed=seed, n_jobs=jobs, quiet=True, players=players
    )
    return _normalise(games)


def _play_cove(scenario, *, n, seed, jobs, quiet, players, strategies) -> pd.DataFrame:
    api = _engine("simulator.cove.api")
    seats, _battles, _summary = api.play_games(
        scenario, list(strategies), players, n, seed, jobs, False, True
    )
    return _normalise(seats)


def _play_express(scenario, *, n, seed, jobs, quiet, players, strategies) -> pd.DataFrame:
    raise UserError(
        "compare --game express: the express engine exposes battles, not seated games; "
        "compare supports cove and hunt"
    )


_PLAYERS = {"hunt": _play_hunt, "cove": _play_cove, "express": _play_express}

_COLUMN_ALIASES = {
    "game": ("game", "game_id"),
    "seat": ("seat", "seat_index"),
    "strategy": ("strategy", "player", "policy"),
    "won": ("won", "win", "winner", "is_winner"),
    "turns": ("turns", "num_turns", "game_length"),
    "stalemate": ("stalemate", "is_stalemate"),
    "fame": ("fame", "final_fame"),
}


def _normalise(df: pd.DataFrame) -> pd.DataFrame:
    """Rename an engine's seat table to the shared column names (unknown extras are kept)."""
    df = df.copy()
    if (
        "game_id" in df.columns
    ):  # hunt: ``game`` holds the game's name (provenance), ids are game_id
        df["game"] = df["game_id"]
    for name, aliases in _COLUMN_ALIASES.items():
        if name in df.columns:
            continue
        for alias in aliases:
            if alias in df.columns:
                df[name] = df[alias]
                break
    missing = [c for c in ("game", "seat", "strategy", "won") if c not in df.columns]
    if missing:
        raise UserError(
            f"engine result lacks column(s) {', '.join(missing)} "
            f"(have: {', '.join(map(str, df.columns))})"
        )
    df["won"] = df["won"].astype(float)
    return df


ENGINES = {
    "hunt": Engine(
        "hunt",
        ("win-rate", "seat-advantage", "game-length", "stalemate"),
        4,
        ("runner", "runner", "runner", "runner"),
    ),
    "cove": Engine(
        "cove",
        ("win-rate", "seat-advantage", "fame"),
        4,
        ("plunderer", "brawler", "tavern", "balanced"),
    ),
    "express": Engine("express", (), 2, ("gunline", "gunline")),
}


def engine(game: str) -> Engine:
    return ENGINES[game]
