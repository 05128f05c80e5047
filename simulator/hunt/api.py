"""Python API of Les Pirates (what the CLI, reports and comparisons call): the game protocol of
:mod:`simulator.protocol`.

Example::

    from simulator.hunt.api import load, play
    scenario = load(variants=["cyclone"])                       # or load("my_board.toml")
    result = play(scenario, ["runner", "hunter"], n=2000, seed=1, jobs=2)
    result.seats, result.summary

* ``engine``: ``"fast"`` (the engine compiled by numba) or ``"python"`` (the same source run by
  Python with numba's JIT off, :mod:`simulator.engine_mode`): the same games, only slower.
  ``check=True`` runs the invariant checker after every change; the first illegal state stops
  the run with :class:`InvariantBroken` (one line: the game, its seed, the turn, the invariant).
* ``strategies``: one spec per seat (``"runner"``, ``"hunter:sink=20"``...) or one for every
  seat (:func:`simulator.hunt.players.make_player`); ``players`` defaults to their number (or
  the scenario's default for one spec). ``rotate_seats``: game ``g`` gives seat ``k`` the spec
  ``strategies[(k + g) % players]``.
* ``result.seats``: one row per game and seat (:func:`_chunk`; ``docs/outputs.md``), plus the
  scenario provenance and the seed; ``result.summary``: win rates with Wilson intervals per
  seat and strategy, the first player's, stalemate and draw rates, turns, sinkings, the seed.

Runs go through :func:`simulator.runner.run_chunks` with blocks of :data:`BLOCK_SIZE` games:
the games of a block draw their seeds from the block's ``dice`` stream, so the same seed gives
the same games for any ``jobs`` and chunk size, on either engine.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from scenarios.loader import Scenario
from scenarios.strategies import KindDecl, StrategyDecl
from simulator import engine_mode
from simulator.compiled import CompiledEngine
from simulator.errors import UserError
from simulator.hunt import game
from simulator.hunt.game import END_CODES, INVARIANTS, initial_position
from simulator.hunt.moves import HASH_SIZE
from simulator.hunt.packed import build_tables
from simulator.hunt.players import make_player, needs_plan
from simulator.hunt.variants import load_hunt
from simulator.protocol import (
    SCHEMA_VERSION,
    TABLE_PROVENANCE,
    PlayResult,
    outcomes_from_scores,
    score_summary,
)
from simulator.runner import Chunk, RunError, run_chunks
from simulator.stats import wilson_interval

GAME = "hunt"
#: play's engines: compiled (the default) and the same source with numba's JIT off
ENGINES = engine_mode.ENGINES
#: measured cold compile (seconds, rounded up): 25 s wall and CPU in a fresh clone on 2 busy
#: cores (benchmarks/compile_cold.py, stop 40)
FAST_ENGINE_COMPILE_S = 30

#: games per block of random streams (part of the seed tree: a block's games draw their seeds
#: from the block's "dice" stream in order)
BLOCK_SIZE = 100
DEFAULT_CHUNK_SIZE = None  # chosen by the runner (whole blocks); the numbers do not depend on it


class InvariantBroken(UserError):
    """``--check``: a game reached a state the rules forbid (one line: game, turn, invariant)."""


def _broken(chunk: Chunk, index: int, turn: int, what: str) -> InvariantBroken:
    return InvariantBroken(
        f"--check: game {index} (seed {chunk.entropy}), turn {turn}: {what}; the engine or the "
        "scenario's rules let an illegal state happen"
    )


def load(scenario=None, variants: Sequence[str] = ()):
    """The base game or a user's scenario file, with variants applied (see :mod:`.variants`)."""
    if isinstance(scenario, Scenario) and not variants:
        return scenario
    return load_hunt(scenario, variants)


def strategies(scenario) -> Mapping[str, StrategyDecl]:
    """The scenario's named strategies (``[strategies.*]``)."""
    return load(scenario).rules.strategies


def kinds(scenario) -> Mapping[str, KindDecl]:
    """The scenario's kinds of player and their parameter spaces (``[kinds.*]``)."""
    return load(scenario).rules.kinds


def default_mix(scenario) -> tuple[str, ...]:
    return tuple(load(scenario).rules.default_mix)


def player_counts(scenario) -> tuple[int, ...]:
    return tuple(load(scenario).rules.player_counts)


def resolve_strategies(
    rules, strategies: Sequence[str] | str, players: int | None
) -> tuple[int, tuple[str, ...]]:
    """Check the player count and the per-seat strategy specs; returns ``(players, specs)``."""
    if isinstance(strategies, str):
        strategies = list(strategies.split(","))
    specs = tuple(s.strip() for s in strategies)
    if not specs or any(not s for s in specs):
        raise UserError(
            f"--strategies: empty strategy name (allowed: {', '.join(rules.strategies)})"
        )
    for s in specs:
        make_player(rules, s)  # validates
    if players is None:
        players = (
            len(specs)
            if len(specs) > 1
            else (2 if rules.kingdoms.mode != "none" else rules.default_players)
        )
    if players not in rules.player_counts:
        allowed = ", ".join(map(str, rules.player_counts))
        raise UserError(
            f"--players {players}: not possible with this scenario (allowed: {allowed})"
        )
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise UserError(
            f"--strategies: {len(specs)} given for {players} players (allowed: 1 or {players})"
        )
    return players, specs


def _chunk(
    chunk: Chunk, rules, players: int, specs: tuple[str, ...], rotate: bool, check: bool = False
) -> pd.DataFrame:
    """Play the chunk's games: the protocol's seats table (see :mod:`simulator.protocol`), one
    row per game and seat, seats from 1; ``winner`` is the winning seat, 0 when nobody won;
    ``score`` is 1 for the winner, 1/players to everyone in a game nobody won (stalemate or
    draw), else 0."""
    unique = list(dict.fromkeys(specs))
    policies = [make_player(rules, s) for s in unique]
    tables = build_tables(rules, players, plan=any(needs_plan(p) for p in policies))
    seat_pols = np.array(
        [
            [
                unique.index(specs[(k + chunk.start + i) % players if rotate else k])
                for k in range(players)
            ]
            for i in range(chunk.size)
        ],
        dtype=np.int64,
    ).reshape(chunk.size, players)
    start = initial_position(tables)
    blocks = chunk.blocks()
    pols = [seat_pols[b.start - chunk.start :][: b.size] for b in blocks]
    out = np.concatenate(
        [
            game.run_games(tables, start, policies, p, b.rng("dice"), check)
            for b, p in zip(blocks, pols)
        ]
    )
    errors = out[:, game.O_ERROR]
    if errors.any():
        bad = int(np.flatnonzero(errors)[0])
        code, turn = int(errors[bad]), int(out[bad, game.O_TURNS])
        if code == game.ERR_BUFFERS:
            raise RunError(
                f"game {chunk.start + bad}, turn {turn}: a roll has more distinct outcomes "
                f"than the engine holds ({HASH_SIZE // 2})"
            )
        raise _broken(
            chunk, chunk.start + bad, turn, f"invariant {code} broken: {INVARIANTS[code - 1]}"
        )
    rec = {key: out[:, col] for col, key in enumerate(game.RECORD)}
    rec["end"] = np.array(END_CODES)[rec["end"]]
    sunk_by = out[:, game.O_FIXED : game.O_FIXED + players]
    lost = out[:, game.O_FIXED + players : game.O_FIXED + 2 * players]
    n = chunk.size
    seat = np.tile(np.arange(players), n)
    game_id = np.repeat(np.arange(chunk.start, chunk.start + n), players)
    per_game = {k: np.repeat(v, players) for k, v in rec.items()}
    winner = per_game["winner"]
    score = np.where(winner < 0, 1.0 / players, (winner == seat).astype(float))
    ports = ["+".join(str(tables.board.port_numbers[p]) for p in ps) for ps in tables.seat_ports]
    columns = {
        "game": game_id,
        "rotation": game_id % players if rotate else np.zeros_like(game_id),
        "seat": seat + 1,
        "strategy": np.array(unique, dtype=object)[seat_pols.reshape(-1)],
        "outcome": outcomes_from_scores(score),
        "score": score,
        "ports": np.array(ports)[seat],
        "winner": np.where(winner < 0, 0, winner + 1),
        "end": per_game["end"],
        "stalemate": per_game["end"] == "stalemate",
        "draw": per_game["end"] == "draw",
        "turns": per_game["turns"],
        "sinkings": np.repeat(sunk_by.sum(axis=1), players),
        "ships_sunk": sunk_by.reshape(-1),
        "ships_lost": lost.reshape(-1),
    }
    return pd.DataFrame(columns | {k: per_game[k] for k in game.RECORD[3:]})


def _rate(k: float, n: int) -> dict:
    lo, hi = wilson_interval(k, n)
    return {
        "wins": int(k),
        "n": int(n),
        "win_rate": (k / n) if n else float("nan"),
        "ci95": [lo, hi],
    }


def summarise(seats: pd.DataFrame, players: int) -> dict:
    """Summary dict (see the module docstring) from the protocol's seats table."""
    per_game = seats[seats["seat"] == 1]
    n = len(per_game)
    won = seats["outcome"] == "win"
    seat_rows = []
    for seat, grp in seats.groupby("seat", sort=True):
        entry = {
            "seat": int(seat),
            **_rate(int(won[grp.index].sum()), len(grp)),
            "fair_share": 1.0 / players,
        }
        strategies = grp["strategy"].unique()
        entry["strategy"] = strategies[0] if len(strategies) == 1 else "rotated"
        seat_rows.append(entry)
    scores = score_summary(seats)
    strategies = {}
    for name, grp in seats.groupby("strategy", sort=True):
        sc = scores[str(name)]
        strategies[str(name)] = {
            **_rate(int(won[grp.index].sum()), len(grp)),
            "seat_games": len(grp),
            "score": sc["score"],
            "score_ci95": sc["score_ci95"],
        }
    stale = int(per_game["stalemate"].sum())
    lo, hi = wilson_interval(stale, n)
    turns = per_game["turns"].to_numpy()
    first = seat_rows[0] if seat_rows else {}
    return {
        "n_games": n,
        "players": players,
        "seats": seat_rows,
        "strategies": strategies,
        "first_player": {
            "seat": 1,
            "win_rate": first.get("win_rate"),
            "ci95": first.get("ci95"),
            "fair_share": 1.0 / players,
            "advantage": (first.get("win_rate") - 1.0 / players) if n else None,
        },
        "stalemate_rate": stale / n if n else float("nan"),
        "stalemate_ci95": [lo, hi],
        "draw_rate": float(per_game["draw"].mean()) if n else float("nan"),
        "turns": {
            "mean": float(turns.mean()) if n else float("nan"),
            "p50": float(np.percentile(turns, 50)) if n else float("nan"),
            "p90": float(np.percentile(turns, 90)) if n else float("nan"),
        },
        "sinkings_per_game": float(per_game["sinkings"].mean()) if n else float("nan"),
        "cyclone_losses_per_game": float(per_game["cyclone_losses"].mean()) if n else float("nan"),
        "explosions_per_game": float(per_game["explosions"].mean()) if n else float("nan"),
    }


def _spec_hashes(rules, specs) -> dict[str, str]:
    """A hash per strategy spec of what it plays (the player's full weights)."""
    out = {}
    for spec in dict.fromkeys(specs):
        player = make_player(rules, spec)
        blob = json.dumps({"name": player.name, **player.params}, sort_keys=True, default=str)
        out[spec] = hashlib.sha256(blob.encode()).hexdigest()[:12]
    return out


def _compiled_engine() -> CompiledEngine:
    return CompiledEngine("Les Pirates engine", (game.play_many,), FAST_ENGINE_COMPILE_S)


def play(
    scenario,
    strategies: Sequence[str] | str,
    *,
    n: int,
    players: int | None = None,
    seed: int | None = None,
    jobs: int = 1,
    rotate_seats: bool = False,
    quiet: bool = True,
    check: bool = False,
    engine: str | None = None,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
) -> PlayResult:
    """Play ``n`` seeded games (the protocol's ``play``; see :mod:`simulator.protocol`).

    ``engine``: ``"fast"`` (compiled, the default) or ``"python"`` (the same source, JIT off:
    the same games); ``check`` runs the invariant checker after every change (slower): an
    illegal state raises :class:`InvariantBroken`, one line naming the game, the turn and the
    invariant. With ``rotate_seats`` game ``g`` is played under rotation ``g mod players``.
    """
    engine = engine_mode.check_engine(engine, ENGINES)
    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    rules = scenario.rules
    if n < 1:
        raise UserError(f"-n {n}: at least one game (allowed: 1..)")
    players, specs = resolve_strategies(rules, strategies, players)
    task = functools.partial(
        _chunk, rules=rules, players=players, specs=specs, rotate=rotate_seats, check=check
    )
    prov = {**scenario.provenance(), "strategy_hashes": _spec_hashes(rules, specs)}
    run = run_chunks(
        task,
        n,
        seed=seed,
        n_jobs=jobs,
        quiet=quiet,
        chunk_size=chunk_size,
        block_size=BLOCK_SIZE,
        desc="games",
        manifest={"scenario": prov, "strategies": list(specs), "players": players},
        compiled=_compiled_engine(),
        readable=engine == "python",
    )
    seats = pd.concat(run.results, ignore_index=True)
    for key in TABLE_PROVENANCE:
        seats[key] = prov[key]
    seats["seed"] = str(run.entropy)
    summary = summarise(seats, players)
    summary.update(
        schema_version=SCHEMA_VERSION,
        strategies_by_seat=None if rotate_seats else list(specs),
        strategy_specs=list(dict.fromkeys(specs)),
        rotate_seats=rotate_seats,
        seed=run.entropy,
        block_size=BLOCK_SIZE,
        engine=engine,
        wall_time_s=run.wall_time_s,
        provenance=prov,
    )
    return PlayResult(game=GAME, seats=seats, summary=summary, entropy=run.entropy, provenance=prov)
