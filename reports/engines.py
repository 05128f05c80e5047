"""What ``compare`` needs of each game: its metrics, default table, scenario names, and seated
games through the game protocol (``simulator/<game>/api.py``'s ``play``; see
:mod:`simulator.protocol`): one row per game and seat with ``game``, ``rotation``, ``seat``
(1 = first player), ``strategy``, ``outcome``, ``score`` (the win share), then the game's own
columns (``turns``, ``stalemate``, ``fame``...).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from scenarios.loader import SCENARIO_ROOT, Scenario, load_scenario
from simulator.cove import api as cove_api
from simulator.cove.rules import CoveRules
from simulator.errors import UserError
from simulator.express import api as express_api
from simulator.express.rules import ExpressRules
from simulator.hunt import api as hunt_api
from simulator.hunt.rules import HuntRules


@dataclass(frozen=True)
class Engine:
    game: str
    metrics: tuple[str, ...]  # metric kinds this game supports

    def api(self):
        """The game's protocol module (simulator/<game>/api.py)."""
        return GAME_APIS[self.game]

    def defaults(self, scenario: Scenario, players: int | None) -> tuple[int, tuple[str, ...]]:
        """(players, one strategy per seat) of the scenario's default table: its
        ``default_mix`` in order, cycled to ``players`` seats."""
        mix = list(self.api().default_mix(scenario))
        players = players or len(mix)
        return players, tuple(mix[i % len(mix)] for i in range(players))

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
            return hunt_api.load(None, [v for v in ref.split("+") if v and v != "standard"])
        if path.suffix == ".toml" or path.exists():
            scen = load_scenario(path, SCHEMAS[self.game])
            return scen
        builtin = SCENARIO_ROOT / self.game / f"{ref}.toml"
        if builtin.exists():
            return load_scenario(builtin, SCHEMAS[self.game])
        if self.game == "hunt":
            variant = SCENARIO_ROOT / "hunt" / "variants" / f"{ref}.toml"
            if variant.exists():
                return load_scenario(variant, HuntRules)
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
        rotate_seats: bool = False,
        engine: str | None = None,
    ) -> pd.DataFrame:
        """The protocol's seats table of ``n`` games (seats from 1, ``score`` the win share);
        ``engine``: the game's engine (``None``: its default)."""
        if not strategies:
            players, strategies = self.defaults(scenario, players)
        strategies = tuple(strategies)
        players = players or len(strategies)
        if len(strategies) == 1 and players > 1:
            strategies = strategies * players
        if len(strategies) != players:
            raise UserError(
                f"--strategies: {len(strategies)} given for {players} players "
                "(allowed: one per seat)"
            )
        result = self.api().play(
            scenario,
            list(strategies),
            n=n,
            players=players,
            seed=seed,
            jobs=jobs,
            quiet=True,
            rotate_seats=rotate_seats,
            engine=engine,
        )
        return result.seats


GAME_APIS = {"hunt": hunt_api, "cove": cove_api, "express": express_api}
#: each game's rules class, for files whose ``game`` key decides (``report --scenario FILE``)
SCHEMAS = {"cove": CoveRules, "express": ExpressRules, "hunt": HuntRules}

ENGINES = {
    "hunt": Engine("hunt", ("win-rate", "seat-advantage", "game-length", "stalemate")),
    "cove": Engine("cove", ("win-rate", "seat-advantage", "fame")),
    "express": Engine("express", ("win-rate", "seat-advantage", "game-length")),
}


def engine(game: str) -> Engine:
    return ENGINES[game]
