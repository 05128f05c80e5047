"""Python API of the Les Pirates engine (what the CLI, reports and comparisons call).

Example::

    from simulator.hunt.api import load, play_games
    scenario = load(variants=["cyclone"])                       # or load("my_board.toml")
    games, summary = play_games(scenario, ["runner", "hunter"], n=2000, seed=1, n_jobs=2)

``play_games(scenario, strategies, n, seed=None, n_jobs=1, rotate_seats=False, quiet=True,
players=None, chunk_size=500, check=False, engine="fast") -> (games_df, summary_dict)``

* ``engine``: ``"fast"`` (numba, :mod:`.fast.game`) or ``"python"`` (the reference, :mod:`.game`);
  both play by the same rules but draw dice from different streams, so a seed replays a run
  for one engine. ``check=True`` runs the invariant checker after every change; the first
  illegal state stops the run with :class:`InvariantBroken` (a ``UserError``: one line naming
  the game, its seed, the turn and the invariant of :data:`simulator.hunt.game.INVARIANTS`).

* ``strategies``: one spec per seat (``"runner"``, ``"hunter:sink=20"``...) or a single spec for
  every seat; names are the scenario's ``[strategies.*]``, values are checked against the
  declared ranges of their kind (:func:`simulator.hunt.players.make_player`); ``players``
  defaults to ``len(strategies)`` (or the scenario's default when one spec is given).
* ``rotate_seats``: game ``g`` gives seat ``k`` the spec ``strategies[(k + g) % players]``, so
  every strategy sits in every seat equally often.
* ``games_df`` is tidy, one row per game and seat: ``game_id, seat, strategy, ports, won,
  winner, end, stalemate, draw, turns, sinkings`` (ships sunk in the game by boarding or
  explosion), ``ships_sunk`` (by this seat), ``ships_lost`` (by this seat, any cause),
  ``boardings, explosions, exploded, cyclone_losses, rerolls, loads, wrecks, max_fleet``, plus
  the scenario provenance and the seed.
* ``summary_dict``: ``n_games``, ``players``, ``seats`` (per seat ``wins``, ``win_rate``,
  ``ci95`` Wilson, ``fair_share`` = 1/players), ``strategies`` (same per strategy, over the seats
  it played), ``first_player`` (seat 0 against 1/players), ``stalemate_rate`` (+ ``ci95``),
  ``draw_rate``, ``turns`` {mean, p50, p90}, ``sinkings_per_game``, ``seed``, ``provenance``.

Runs go through :func:`simulator.runner.run_chunks`: the same seed gives the same games for any
``n_jobs`` (the chunk size is fixed and part of the replay recipe).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from simulator.errors import UserError
from simulator.hunt.game import (
    END_DRAW,
    END_STALEMATE,
    INVARIANTS,
    IllegalState,
    initial_state,
    play_game,
)
from simulator.hunt.moves import build_tables
from simulator.hunt.players import make_player, needs_plan, strategy_names
from simulator.hunt.variants import load_hunt
from simulator.runner import Chunk, RunError, run_chunks
from simulator.stats import wilson_interval

DEFAULT_CHUNK_SIZE = 500


class InvariantBroken(UserError):
    """``--check``: a game reached a state the rules forbid (one line: game, turn, invariant)."""


def _broken(chunk: Chunk, game: int, turn: int, what: str) -> InvariantBroken:
    return InvariantBroken(
        f"--check: game {game} (seed {chunk.entropy}), turn {turn}: {what}; the engine or the "
        "scenario's rules let an illegal state happen"
    )


def load(scenario=None, variants: Sequence[str] = ()):
    """The base game or a user's scenario file, with variants applied (see :mod:`.variants`)."""
    return load_hunt(scenario, variants)


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


def _policy_rng(chunk: Chunk) -> np.random.Generator:
    seq = chunk.seed
    return np.random.default_rng(
        np.random.SeedSequence(seq.entropy, spawn_key=tuple(seq.spawn_key) + (1,))
    )


def _chunk(
    chunk: Chunk,
    rules,
    players: int,
    specs: tuple[str, ...],
    rotate: bool,
    check: bool = False,
    engine: str = "fast",
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
    start = initial_state(tables, rules)
    if engine == "fast":
        from simulator.hunt.fast import game as fast
        from simulator.hunt.fast.moves import HASH_SIZE

        out = fast.run_games(tables, rules, start, policies, seat_pols, chunk.rng(), check)
        errors = out[:, fast.O_ERROR]
        if errors.any():
            bad = int(np.flatnonzero(errors)[0])
            code, turn = int(errors[bad]), int(out[bad, fast.O_TURNS])
            if code == fast.ERR_BUFFERS:
                raise RunError(
                    f"game {chunk.start + bad}, turn {turn}: a roll has more distinct outcomes "
                    f"than the compiled engine holds ({HASH_SIZE // 2}); use --engine python"
                )
            raise _broken(
                chunk, chunk.start + bad, turn, f"invariant {code} broken: {INVARIANTS[code - 1]}"
            )
        rec = {
            "winner": out[:, fast.O_WINNER],
            "end": np.array(fast.END_CODES)[out[:, fast.O_END]],
            "turns": out[:, fast.O_TURNS],
            "boardings": out[:, fast.O_BOARDINGS],
            "explosions": out[:, fast.O_EXPLOSIONS],
            "exploded": out[:, fast.O_EXPLODED],
            "cyclone_losses": out[:, fast.O_CYCLONE],
            "rerolls": out[:, fast.O_REROLLS],
            "loads": out[:, fast.O_LOADS],
            "wrecks": out[:, fast.O_WRECKS],
            "max_fleet": out[:, fast.O_MAXFLEET],
        }
        sunk_by = out[:, fast.O_FIXED : fast.O_FIXED + players]
        lost = out[:, fast.O_FIXED + players : fast.O_FIXED + 2 * players]
    elif engine == "python":
        dice_rng = chunk.rng()
        pol_rng = _policy_rng(chunk)
        games = []
        for i in range(chunk.size):
            seated = [policies[j] for j in seat_pols[i]]
            try:
                games.append(
                    play_game(tables, rules, seated, dice_rng, pol_rng, check=check, start=start)
                )
            except IllegalState as exc:
                raise _broken(chunk, chunk.start + i, exc.turn, str(exc)) from None
        rec = {
            key: np.array([getattr(g, key) for g in games])
            for key in (
                "winner",
                "end",
                "turns",
                "boardings",
                "explosions",
                "exploded",
                "cyclone_losses",
                "rerolls",
                "loads",
                "wrecks",
                "max_fleet",
            )
        }
        sunk_by = np.array([g.sunk_by for g in games], dtype=np.int64).reshape(chunk.size, players)
        lost = np.array([g.lost for g in games], dtype=np.int64).reshape(chunk.size, players)
    else:
        raise UserError(f"engine {engine!r} (allowed: fast, python)")
    n = chunk.size
    port_labels = np.array(
        ["+".join(str(tables.board.port_numbers[p]) for p in ports) for ports in tables.seat_ports]
    )
    seat = np.tile(np.arange(players), n)
    game = np.repeat(np.arange(chunk.start, chunk.start + n), players)
    per_game = {k: np.repeat(np.asarray(v), players) for k, v in rec.items()}
    sinkings = np.repeat(sunk_by.sum(axis=1), players)
    df = pd.DataFrame(
        {
            "game_id": game,
            "seat": seat,
            "strategy": np.array(unique, dtype=object)[seat_pols.reshape(-1)]
            if n
            else np.array([], dtype=object),
            "ports": port_labels[seat],
            "won": per_game["winner"] == seat,
            "winner": per_game["winner"],
            "end": per_game["end"],
            "stalemate": per_game["end"] == END_STALEMATE,
            "draw": per_game["end"] == END_DRAW,
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


def summarise(games: pd.DataFrame, players: int) -> dict:
    """Summary dict (see the module docstring) from a tidy games table."""
    per_game = games[games["seat"] == 0]
    n = len(per_game)
    seats = []
    for seat, grp in games.groupby("seat", sort=True):
        entry = {
            "seat": int(seat),
            **_rate(int(grp["won"].sum()), len(grp)),
            "fair_share": 1.0 / players,
        }
        strategies = grp["strategy"].unique()
        entry["strategy"] = strategies[0] if len(strategies) == 1 else "rotated"
        seats.append(entry)
    strategies = {}
    for name, grp in games.groupby("strategy", sort=True):
        strategies[str(name)] = {
            **_rate(int(grp["won"].sum()), len(grp)),
            "seat_games": len(grp),
        }
    stale = int(per_game["stalemate"].sum())
    lo, hi = wilson_interval(stale, n)
    turns = per_game["turns"].to_numpy()
    first = seats[0] if seats else {}
    return {
        "n_games": n,
        "players": players,
        "seats": seats,
        "strategies": strategies,
        "first_player": {
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


def play_games(
    scenario,
    strategies: Sequence[str] | str,
    n: int,
    seed: int | None = None,
    n_jobs: int = 1,
    rotate_seats: bool = False,
    quiet: bool = True,
    players: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    check: bool = False,
    engine: str = "fast",
) -> tuple[pd.DataFrame, dict]:
    """Play ``n`` seeded games; returns the tidy per-game-and-seat table and the summary.

    ``engine``: ``"fast"`` (compiled, default) or ``"python"`` (the reference); ``check`` runs the
    invariant checker after every change (slower): an illegal state raises
    :class:`InvariantBroken`, one line naming the game, the turn and the invariant.
    """
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
        engine=engine,
    )
    run = run_chunks(
        task, n, seed=seed, n_jobs=n_jobs, quiet=quiet, chunk_size=chunk_size, desc="games"
    )
    games = pd.concat(run.results, ignore_index=True)
    prov = scenario.provenance()
    for key, value in prov.items():
        games[key] = value
    games["seed"] = str(run.entropy)
    summary = summarise(games, players)
    summary.update(
        strategies_by_seat=None if rotate_seats else list(specs),
        strategy_specs=list(dict.fromkeys(specs)),
        rotate_seats=rotate_seats,
        seed=run.entropy,
        chunk_size=chunk_size,
        engine=engine,
        wall_time_s=run.wall_time_s,
        provenance=prov,
    )
    return games, summary
