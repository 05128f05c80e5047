"""Python API of the Les Pirates engine (what the CLI, reports and comparisons call).

Example::

    from simulator.hunt.api import load, play
    scenario = load(variants=["cyclone"])                       # or load("my_board.toml")
    result = play(scenario, ["runner", "hunter"], n=2000, seed=1, jobs=2)
    result.seats, result.summary

``play(scenario, strategies, *, n, players=None, seed=None, jobs=1, rotate_seats=False,
quiet=True, check=False, engine="fast", chunk_size=None) -> PlayResult`` (the game protocol of
:mod:`simulator.protocol`).

* ``engine``: ``"fast"`` (the engine compiled by numba) or ``"python"`` (the same source run by
  Python with numba's JIT off, :mod:`simulator.engine_mode`): the same games die for die, only
  slower. ``check=True`` runs the invariant checker after every change; the first illegal
  state stops the run with :class:`InvariantBroken` (a ``UserError``: one line naming the game,
  its seed, the turn and the invariant of :data:`simulator.hunt.game.INVARIANTS`).

* ``strategies``: one spec per seat (``"runner"``, ``"hunter:sink=20"``...) or a single spec for
  every seat; names are the scenario's ``[strategies.*]``, values are checked against the
  declared ranges of their kind (:func:`simulator.hunt.players.make_player`); ``players``
  defaults to ``len(strategies)`` (or the scenario's default when one spec is given).
* ``rotate_seats``: game ``g`` gives seat ``k`` the spec ``strategies[(k + g) % players]``, so
  every strategy sits in every seat equally often.
* ``result.seats`` is tidy, one row per game and seat: ``game, rotation, seat`` (from 1),
  ``strategy, outcome, score, ports, winner`` (the winning seat, 0 for none), ``end, stalemate,
  draw, turns, sinkings`` (ships sunk in the game by boarding or
  explosion), ``ships_sunk`` (by this seat), ``ships_lost`` (by this seat, any cause),
  ``boardings, explosions, exploded, cyclone_losses, rerolls, loads, wrecks, max_fleet``, plus
  the scenario provenance and the seed.
* ``result.summary``: ``n_games``, ``players``, ``seats`` (per seat ``wins``, ``win_rate``,
  ``ci95`` Wilson, ``fair_share`` = 1/players), ``strategies`` (same per strategy, over the seats
  it played), ``first_player`` (seat 1 against 1/players), ``stalemate_rate`` (+ ``ci95``),
  ``draw_rate``, ``turns`` {mean, p50, p90}, ``sinkings_per_game``, ``seed``, ``provenance``.

Runs go through :func:`simulator.runner.run_chunks` with blocks of :data:`BLOCK_SIZE` games:
the games of a block draw their seeds from the block's ``dice`` stream, so the same seed gives
the same games for any ``jobs`` and chunk size, on either engine.
"""

from __future__ import annotations

import functools
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
from simulator.hunt.players import make_player, needs_plan, strategy_names
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
#: measured cold compile: 49 s wall (30 s CPU) on 2 busy cores
FAST_ENGINE_COMPILE_S = 60

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
            f"--strategies: empty strategy name (allowed: {', '.join(strategy_names(rules))})"
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
    chunk: Chunk,
    rules,
    players: int,
    specs: tuple[str, ...],
    rotate: bool,
    check: bool = False,
) -> pd.DataFrame:
    """Play the chunk's games; one row per game and seat."""
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
    out = np.concatenate(
        [
            game.run_games(
                tables,
                start,
                policies,
                seat_pols[b.start - chunk.start : b.start - chunk.start + b.size],
                b.rng("dice"),
                check,
            )
            for b in chunk.blocks()
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
    rec = {key: out[:, col] for key, col in game.RECORD.items()}
    rec["end"] = np.array(END_CODES)[rec["end"]]
    sunk_by = out[:, game.O_FIXED : game.O_FIXED + players]
    lost = out[:, game.O_FIXED + players : game.O_FIXED + 2 * players]
    n = chunk.size
    port_labels = np.array(
        ["+".join(str(tables.board.port_numbers[p]) for p in ports) for ports in tables.seat_ports]
    )
    seat = np.tile(np.arange(players), n)
    game_id = np.repeat(np.arange(chunk.start, chunk.start + n), players)
    per_game = {k: np.repeat(np.asarray(v), players) for k, v in rec.items()}
    sinkings = np.repeat(sunk_by.sum(axis=1), players)
    df = pd.DataFrame(
        {
            "game_id": game_id,
            "seat": seat,
            "strategy": np.array(unique, dtype=object)[seat_pols.reshape(-1)]
            if n
            else np.array([], dtype=object),
            "ports": port_labels[seat],
            "won": per_game["winner"] == seat,
            "winner": per_game["winner"],
            "end": per_game["end"],
            "stalemate": per_game["end"] == "stalemate",
            "draw": per_game["end"] == "draw",
            "turns": per_game["turns"],
            "sinkings": sinkings,
            "ships_sunk": sunk_by.reshape(-1),
            "ships_lost": lost.reshape(-1),
            **{
                k: per_game[k]
                for k in (
                    "boardings",
                    "explosions",
                    "exploded",
                    "cyclone_losses",
                    "rerolls",
                    "loads",
                    "wrecks",
                    "max_fleet",
                )
            },
        }
    )
    return df


def _rate(k: float, n: int) -> dict:
    lo, hi = wilson_interval(k, n)
    return {
        "wins": int(k),
        "n": int(n),
        "win_rate": (k / n) if n else float("nan"),
        "ci95": [lo, hi],
    }


def to_seats(games: pd.DataFrame, players: int, rotate: bool) -> pd.DataFrame:
    """The protocol's seats table (see :mod:`simulator.protocol`) from the engine's frame.

    Seats are numbered from 1; ``winner`` is the winning seat's number, 0 when nobody won;
    ``score`` is 1 for the winner, 1/players to everyone in a game nobody won (stalemate or
    draw), else 0.
    """
    seat0 = games["seat"].to_numpy()
    winner0 = games["winner"].to_numpy()
    nobody = winner0 < 0
    score = np.where(nobody, 1.0 / players, (winner0 == seat0).astype(float))
    gid = games["game_id"].to_numpy()
    out = pd.DataFrame(
        {
            "game": gid,
            "rotation": gid % players if rotate else np.zeros_like(gid),
            "seat": seat0 + 1,
            "strategy": games["strategy"].to_numpy(),
            "outcome": outcomes_from_scores(score),
            "score": score,
            "ports": games["ports"].to_numpy(),
            "winner": np.where(nobody, 0, winner0 + 1),
        }
    )
    rest = [c for c in games.columns if c not in ("game_id", "seat", "strategy", "ports", "won")]
    rest = [c for c in rest if c != "winner"]
    for c in rest:
        out[c] = games[c].to_numpy()
    return out


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
    import hashlib
    import json

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
        _chunk,
        rules=rules,
        players=players,
        specs=specs,
        rotate=rotate_seats,
        check=check,
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
    seats = to_seats(pd.concat(run.results, ignore_index=True), players, rotate_seats)
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
