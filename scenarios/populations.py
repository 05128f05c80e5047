"""Populations as scenario data: a meta-game's equilibrium, saved so studies can reuse it.

``broadside metagame ... --save-population NAME`` writes ``scenarios/<game>/populations/NAME.toml``
(or any ``PATH.toml``)::

    format = "broadside-population/2"
    game = "hunt"
    scenario = "standard"               # the scenario it was measured on ...
    scenario_hash = "3f2a..."           # ... and its content hash
    players = 2
    population = ["runner", "hunter", "br1_hunter"]
    solver = "nash"                     # a symmetric Nash equilibrium (never a ranking)
    nash_gap = 1.2e-16                  # max_X u(X, σ) - u(σ, σ) on the measured table
    nash_gap_ci95 = [0.0004, 0.0123]    # its bootstrap interval (games resampled)
    games_per_table = 2016
    command = "broadside metagame --game hunt ..."   # the command that wrote it (replayable)
    verdict = "no dominant strategy; ..."

    [equilibrium]                       # weights, adding up to 1
    runner = 0.4
    hunter = 0.6

    [strategies.br1_hunter]             # members the scenario does not define (made by the search)
    kind = "hunter"
    params = { sink = 12.5 }

:func:`load_population` validates it strictly (unknown keys, weights, names, kinds and parameter
ranges: one line naming the file and key) and checks the scenario hash, so ``compare
--population FILE`` and the report play seats drawn from the equilibrium without searching again.
It refuses, in one line, a file of an older format (``broadside-population/1`` recorded
``method``, which could be ``alpha-rank``: a ranking saved as an equilibrium) and a file without
``solver``, ``nash_gap`` or ``command``, or whose gap exceeds :data:`MAX_NASH_GAP`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from scenarios import writer
from scenarios.loader import (
    SCENARIO_ROOT,
    FrozenMap,
    ScenarioError,
    _read_toml,
    convert_dataclass,
)
from scenarios.strategies import (
    StrategyDecl,
    seat_fields,
    unknown_name_message,
    with_strategies,
)

FORMAT = "broadside-population/2"
MAX_MEMBERS = 8
#: the largest Nash gap of an equilibrium (score units): the solver reports nothing above it and
#: a population file above it is refused
MAX_NASH_GAP = 1e-4


@dataclass(frozen=True, slots=True)
class PopulationFile:
    """The schema of a population file (see the module docstring)."""

    format: Literal["broadside-population/2"]
    game: str
    scenario_hash: str
    players: int = field(metadata={"range": (2, 64)})
    population: tuple[str, ...] = field(metadata={"min_len": 2, "max_len": MAX_MEMBERS})
    equilibrium: Mapping[str, float] = field(metadata={"value_meta": {"range": (0.0, 1.0)}})
    solver: Literal["nash"]
    nash_gap: float = field(metadata={"range": (0.0, MAX_NASH_GAP)})
    command: str
    nash_gap_ci95: tuple[float, ...] = field(default=(), metadata={"max_len": 2})
    scenario: str = ""
    games_per_table: int = field(default=0, metadata={"range": (0, None)})
    verdict: str = ""
    strategies: Mapping[str, StrategyDecl] = field(default_factory=FrozenMap)

    def validate(self) -> None:
        if not self.command.strip():
            raise ScenarioError(
                None, "command", "empty (allowed: the broadside metagame command that wrote it)"
            )
        if len(self.nash_gap_ci95) == 1:
            raise ScenarioError(None, "nash_gap_ci95", "one number (allowed: [low, high] or none)")
        if len(set(self.population)) != len(self.population):
            raise ScenarioError(None, "population", "a name is listed twice (allowed: distinct)")
        for name in self.equilibrium:
            if name not in self.population:
                raise ScenarioError(
                    None,
                    f"equilibrium.{name}",
                    unknown_name_message("population member", name, self.population),
                )
        for name in self.strategies:
            if name not in self.population:
                raise ScenarioError(
                    None,
                    f"strategies.{name}",
                    unknown_name_message("population member", name, self.population),
                )
        total = sum(self.equilibrium.values())
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise ScenarioError(
                None, "equilibrium", f"weights add up to {total:.9g} (allowed: 1 within 1e-6)"
            )


@dataclass(frozen=True)
class Population:
    """A loaded population: names, equilibrium weights, and the scenario holding them all."""

    names: tuple[str, ...]
    weights: tuple[float, ...]  # by name, 0 outside the support
    players: int
    scenario: Any  # the scenario given, with the file's own strategies added
    file: PopulationFile
    path: str

    def mixture(self) -> dict[str, float]:
        return {n: w for n, w in zip(self.names, self.weights) if w > 0}


def population_path(ref: str | Path, game: str) -> Path:
    """A path as given, or ``scenarios/<game>/populations/NAME.toml`` for a bare name."""
    path = Path(ref)
    if path.suffix or path.exists() or len(path.parts) > 1:
        return path
    return SCENARIO_ROOT / game / "populations" / f"{path}.toml"


def load_population(ref: str | Path, scenario: Any, *, check_hash: bool = True) -> Population:
    """Load and validate a population file against a loaded scenario.

    Args:
        ref: a path, or a bare name in ``scenarios/<game>/populations/``.
        scenario: the scenario the seats will be played on.
        check_hash: refuse a file measured on another scenario (``compare --population`` plays
            one population under two rule sets and passes False; the file's hash says where it
            was measured).

    Raises:
        ScenarioError: one line naming the file, the key and what is allowed.
    """
    path = population_path(ref, scenario.game)
    data = _read_toml(path)
    fmt = data.get("format")
    if fmt != FORMAT:
        raise ScenarioError(
            path,
            "format",
            f"{fmt!r} is not {FORMAT!r} (refused: an older file records no Nash gap and may hold a "
            "ranking instead of an equilibrium; re-run the broadside metagame command in its "
            "'command' key)",
        )
    pop = convert_dataclass(data, PopulationFile, str(path))
    if pop.game != scenario.game:
        raise ScenarioError(path, "game", f"a {pop.game!r} population, not {scenario.game!r}")
    if check_hash and pop.scenario_hash != scenario.content_hash:
        raise ScenarioError(
            path,
            "scenario_hash",
            f"measured on a scenario of hash {pop.scenario_hash}, not {scenario.content_hash} "
            "(refused: re-run broadside metagame on this scenario)",
        )
    known = scenario.rules.strategies
    for name in pop.population:
        if name in known and name in pop.strategies:
            raise ScenarioError(
                path, f"strategies.{name}", "the scenario already defines this strategy"
            )
        if name not in known and name not in pop.strategies:
            raise ScenarioError(
                path,
                "population",
                unknown_name_message("strategy", name, [*known, *pop.strategies]),
            )
    extra = _as_game_strategies(pop.strategies, known)
    try:
        full = with_strategies(scenario, extra) if extra else scenario
    except ScenarioError as exc:
        raise ScenarioError(path, exc.key, exc.problem) from None
    weights = tuple(float(pop.equilibrium.get(n, 0.0)) for n in pop.population)
    return Population(pop.population, weights, pop.players, full, pop, str(path))


def _as_game_strategies(
    extra: Mapping[str, StrategyDecl], known: Mapping[str, Any]
) -> dict[str, Any]:
    """The file's strategies as the game's own declaration class (Pirates express seats are
    ``ExpressStrategy``, with ``nation`` and ``fleet`` left at their defaults), so the game's
    ``validate`` reads them like its own."""
    cls = type(next(iter(known.values()))) if known else StrategyDecl
    if cls is StrategyDecl or not dataclasses.is_dataclass(cls):
        return dict(extra)
    return {
        name: cls(**{f.name: getattr(d, f.name) for f in dataclasses.fields(d)})
        for name, d in extra.items()
    }


def population_text(
    *,
    scenario: Any,
    players: int,
    population: list[str],
    equilibrium: Mapping[str, float],
    nash_gap: float,
    nash_gap_ci95: Sequence[float] = (),
    games_per_table: int,
    command: str,
    verdict: str,
    extra: Mapping[str, Any],
) -> str:
    """The TOML text of a population file (``extra``: the members the scenario lacks)."""
    from scenarios.overlays import _plain

    strategies = {}
    for name in population:
        if name in extra:
            decl = extra[name]
            seat = seat_fields(decl)
            if seat:  # never lose a seat's nation or fleet silently
                raise ScenarioError(
                    "--save-population",
                    f"strategies.{name}",
                    f"sets {', '.join(sorted(seat))}, which a population file cannot hold "
                    "(allowed: strategies given by kind and params; keep this one in a tuned "
                    "overlay, broadside tune --out)",
                )
            table: dict[str, Any] = {"kind": decl.kind}
            if decl.description:
                table["description"] = decl.description
            table["params"] = dict(decl.params)
            if decl.tuned is not None:
                table["tuned"] = _plain(decl.tuned)
            strategies[name] = table
    data: dict[str, Any] = {
        "format": FORMAT,
        "game": scenario.game,
        "scenario": scenario.name,
        "scenario_hash": scenario.content_hash,
        "players": players,
        "population": list(population),
        "solver": "nash",
        "nash_gap": float(nash_gap),
        **({"nash_gap_ci95": [float(v) for v in nash_gap_ci95]} if len(nash_gap_ci95) else {}),
        "games_per_table": games_per_table,
        "command": command,
        "verdict": verdict,
        "equilibrium": {n: float(w) for n, w in equilibrium.items() if w > 0},
        "strategies": strategies,
    }
    return writer.dumps(data, "written by broadside metagame; load with --population FILE")
