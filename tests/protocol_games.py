"""A synthetic game that speaks the game protocol (simulator/protocol.py), for the search tests.

No tests live here. The game "toy" has exact expected scores, so the strategy search and the
meta-game can be checked against known answers:

* a strategy of kind ``tuner`` has a *strength* that peaks at a planted optimum of its parameters
  (:func:`strength`); a table's winner is drawn from the softmax of ``beta * strength``;
* a strategy of kind ``matrix`` plays a row of a pairwise win-probability matrix (rock, paper,
  scissors and a dud); at ``P`` players each pair of seats shifts the win share by
  ``2 / (P (P - 1)) * (M[a][b] - 1/2)`` (pairwise-additive, so a table's shares add up to 1);
* with probability ``draw_rate`` a game is a draw (every seat scores ``1/P``);
* the first seat's strength is raised by ``seat_edge`` and the handicapped seat's (first or last,
  ``handicap_seat``) lowered by ``komi``: the balance search's planted optimum (its searchable
  numbers are declared in ``tests/data/toy/balance/searchable.toml``; ``seated.toml`` sets the
  edge, so ``komi = seat_edge`` on the first seat balances the seats exactly).

:func:`expected_scores` gives each seat's exact expected score; :func:`play` samples games with
the runner's block streams (``Block.rng("dice")``), seats rotated as the protocol says.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scenarios.loader import (  # noqa: E402
    RESERVED_KEYS,
    FrozenMap,
    Scenario,
    ScenarioError,
    content_hash,
    convert_dataclass,
    read_merged,
)
from scenarios.strategies import (  # noqa: E402
    KindDecl,
    StrategyDecl,
    resolve_params,
    root_kind,
    validate_strategies,
)
from simulator.protocol import (  # noqa: E402
    PlayResult,
    outcomes_from_scores,
    seated,
)
from simulator.runner import Chunk, run_chunks  # noqa: E402

GAME = "toy"
SCENARIOS = Path(__file__).resolve().parent / "data" / "toy"
BLOCK = 16  # games per block of random streams
IMPLEMENTED = ("tuner", "matrix")


@dataclass(frozen=True, slots=True)
class ToyRules:
    """The toy game's scenario schema."""

    kinds: Mapping[str, KindDecl] = field(default_factory=FrozenMap)
    strategies: Mapping[str, StrategyDecl] = field(default_factory=FrozenMap)
    default_mix: tuple[str, ...] = ()
    player_counts: tuple[int, ...] = (2, 3, 4)
    beta: float = field(default=1.0, metadata={"range": (0.0, 50.0)})
    draw_rate: float = field(default=0.0, metadata={"range": (0.0, 1.0)})
    x_star: float = 0.73  # the planted optimum of a tuner
    k_star: int = 6
    mode_star: str = "b"
    matrix_strength: float = -2.0  # strength of a matrix strategy at a table with tuners
    seat_edge: float = field(default=0.0, metadata={"range": (-5.0, 5.0)})  # the first seat's
    komi: float = field(default=0.0, metadata={"range": (-5.0, 5.0)})  # the handicapped seat's
    handicap_seat: str = field(default="first", metadata={"choices": ("first", "last")})
    #: row -> column -> probability that row beats column (two players)
    matrix: Mapping[str, Mapping[str, float]] = field(default_factory=FrozenMap)

    def validate(self) -> None:
        validate_strategies(self.kinds, self.strategies, IMPLEMENTED, self.default_mix)
        for a, row in self.matrix.items():
            for b, p in row.items():
                q = self.matrix.get(b, {}).get(a)
                if q is None or not math.isclose(p + q, 1.0):
                    raise ScenarioError(None, f"matrix.{a}.{b}", "M[a][b] + M[b][a] must be 1")


def load(scenario: Any = None) -> Scenario:
    """A toy scenario: a path, a name in tests/data/toy, a loaded Scenario, or None (standard)."""
    if isinstance(scenario, Scenario):
        return scenario
    path = Path(scenario) if scenario is not None else SCENARIOS / "standard.toml"
    if not path.suffix and not path.exists():
        path = SCENARIOS / f"{path}.toml"
    merged, chain = read_merged(path, GAME)
    if merged.get("game") != GAME:
        raise ScenarioError(path, "game", f"{merged.get('game')!r} given (allowed: 'toy')")
    body = {k: v for k, v in merged.items() if k not in RESERVED_KEYS}
    rules = convert_dataclass(body, ToyRules, str(path))
    return Scenario(
        game=GAME,
        name=str(merged.get("name", path.stem)),
        rules_version=str(merged["rules_version"]),
        content_hash=content_hash(merged),
        path=str(path),
        chain=tuple(str(p) for p in chain),
        rules=rules,
        raw=FrozenMap(merged),
    )


def strategies(scenario: Scenario) -> Mapping[str, StrategyDecl]:
    return scenario.rules.strategies


def kinds(scenario: Scenario) -> Mapping[str, KindDecl]:
    return scenario.rules.kinds


def default_mix(scenario: Scenario) -> tuple[str, ...]:
    return scenario.rules.default_mix


def player_counts(scenario: Scenario) -> tuple[int, ...]:
    return scenario.rules.player_counts


def strength(rules: ToyRules, params: Mapping[str, Any]) -> float:
    """A tuner's strength: 0 at the planted optimum, lower away from it."""
    return -(
        ((params["x"] - rules.x_star) / 0.3) ** 2
        + ((params["k"] - rules.k_star) / 1.5) ** 2
        + (0.0 if params["mode"] == rules.mode_star else 0.6)
        + (0.0 if params["flag"] else 0.3)
    )


def profile(rules: ToyRules, name: str) -> tuple[float, str | None]:
    """(strength, matrix row) of a strategy."""
    decl = rules.strategies[name]
    params = resolve_params(rules.kinds, decl)
    if root_kind(rules.kinds, decl.kind) == "tuner":
        return strength(rules, params), None
    return rules.matrix_strength, str(params["row"])


def win_shares(rules: ToyRules, table: Sequence[str]) -> np.ndarray:
    """Each seat's probability of winning a game of ``table`` that is not a draw."""
    p = len(table)
    prof = [profile(rules, n) for n in table]
    strengths = np.array([beta_s for beta_s, _ in prof])
    strengths[0] += rules.seat_edge
    strengths[0 if rules.handicap_seat == "first" else p - 1] -= rules.komi
    s = strengths * rules.beta
    e = np.exp(s - s.max())
    e /= e.sum()
    c = 2.0 / (p * (p - 1))
    for i, (_, ri) in enumerate(prof):
        for j, (_, rj) in enumerate(prof):
            if i != j and ri is not None and rj is not None:
                e[i] += c * (rules.matrix[ri][rj] - 0.5)
    if (e < -1e-12).any() or (e > 1 + 1e-12).any():
        raise ValueError(f"table {list(table)}: shares {e} leave [0, 1] (a scenario mistake)")
    return np.clip(e, 0.0, 1.0)


def expected_scores(rules: ToyRules, table: Sequence[str]) -> np.ndarray:
    """Exact expected score of each seat of ``table`` (strategy names by seat)."""
    return (1 - rules.draw_rate) * win_shares(rules, table) + rules.draw_rate / len(table)


def _chunk(chunk: Chunk, rules: ToyRules, names: tuple[str, ...], rotate: bool) -> pd.DataFrame:
    p = len(names)
    rotations = p if rotate else 1
    cums = np.array([np.cumsum(win_shares(rules, seated(names, r))) for r in range(rotations)])
    seats_by_rot = [seated(names, r) for r in range(rotations)]
    games, rots, scores = [], [], []
    for block in chunk.blocks():
        u = block.rng("dice").random((block.size, 2))
        g = np.arange(block.start, block.start + block.size)
        r = g % p if rotate else np.zeros(block.size, dtype=np.int64)
        cum = cums[r]  # (games, p)
        winner = np.minimum((u[:, 1:2] * cum[:, -1:] >= cum).sum(axis=1), p - 1)
        score = np.zeros((block.size, p))
        score[np.arange(block.size), winner] = 1.0
        score[u[:, 0] < rules.draw_rate] = 1.0 / p
        games.append(g)
        rots.append(r)
        scores.append(score)
    g = np.concatenate(games)
    r = np.concatenate(rots)
    score = np.concatenate(scores).ravel()
    return pd.DataFrame(
        {
            "game": np.repeat(g, p),
            "rotation": np.repeat(r, p),
            "seat": np.tile(np.arange(1, p + 1), len(g)),
            "strategy": [seats_by_rot[ri][k] for ri in r for k in range(p)],
            "outcome": outcomes_from_scores(score),
            "score": score,
        }
    )


def play(
    scenario: Scenario,
    strategies: Sequence[str],
    *,
    players: int | None = None,
    n: int,
    seed: int | None = None,
    jobs: int = 1,
    rotate_seats: bool = False,
    quiet: bool = True,
    check: bool = False,
    engine: str | None = None,
    out: Any = None,
) -> PlayResult:
    """Play ``n`` toy games (see the module docstring)."""
    rules = scenario.rules
    names = tuple(strategies)
    if players is not None and len(names) == 1:
        names = names * players
    if players is not None and len(names) != players:
        raise ValueError(f"{len(names)} strategies for {players} players")
    for nm in names:
        if nm not in rules.strategies:
            raise ValueError(f"unknown strategy {nm!r}")
    run = run_chunks(
        functools.partial(_chunk, rules=rules, names=names, rotate=rotate_seats),
        n,
        seed=seed,
        chunk_size=BLOCK * -(-min(max(n, 1), 4096) // BLOCK),  # block streams: any size gives
        block_size=BLOCK,  # the same games
        n_jobs=jobs,
        quiet=quiet,
        desc="toy games",
    )
    seats = pd.concat(run.results, ignore_index=True) if run.results else _chunk_empty()
    return PlayResult(
        game=GAME,
        seats=seats,
        summary={"n_games": n, "players": len(names), "provenance": scenario.provenance()},
        entropy=run.entropy,
        provenance=scenario.provenance(),
    )


def balance_roster(
    scenario: Scenario, *, seed: int, jobs: int = 1, effort: int = 0, start: Any = None
) -> tuple[dict[str, StrategyDecl], int]:
    """The toy's roster for a balance search's ``nation-spread`` (simulator/balance.py): its
    tuner strategies as declared (no race: ``seed`` and ``effort`` change nothing)."""
    rules = scenario.rules
    return {
        name: decl
        for name, decl in rules.strategies.items()
        if root_kind(rules.kinds, decl.kind) == "tuner"
    }, 0


def _chunk_empty() -> pd.DataFrame:
    return pd.DataFrame(
        {c: [] for c in ("game", "rotation", "seat", "strategy", "outcome", "score")}
    )


def main(argv: list[str] | None = None) -> None:
    """``python tests/protocol_games.py tune|metagame --game toy ...``: the broadside command line
    with the toy game registered beside the real ones (for demonstrations and the lead's reruns)."""
    import protocol_games as toy  # not __main__: worker processes import the game by this name

    import cli

    group = cli.cli
    group.main = functools.partial(type(group).main, group, obj={"game_apis": {"toy": toy}})
    cli.main(argv)


if __name__ == "__main__":
    main()
