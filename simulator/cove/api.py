"""Public API of the Pirate's Cove full game, for the CLI and the report/compare work.

:func:`play_games` plays ``n`` seeded games (each under every seat rotation with
``rotate_seats``) through :func:`simulator.runner.run_chunks` and returns three things:

* ``seats_df`` -- one row per game and seat: ``game`` (game id), ``rotation``, ``seat``,
  ``strategy``, ``fame``, fame by source (``fame_plunder``, ``fame_burying``, ``fame_combat``,
  ``fame_pirates``, ``fame_fame_cards``, ``fame_penalties``), ``gold``, ``chests`` (left, unscored),
  ``battles``, ``routed``, ``fled``, ``mutinies``, ``pirates_fought``, ``pirates_sunk`` (Legendary
  Pirates sunk or the Cacafuego captured), ``win`` (1, or 1/k for a k-way shared win), ``tie`` and
  ``duel`` (the top fame was tied / a duel settled it);
* ``battles_df`` -- one row per non-player ship per battle (a Legendary Pirate, the Cacafuego or
  the Royal Navy; a pirate and the Royal Navy in one battle give two rows): ``game``,
  ``rotation``, ``month``, ``island``, ``pirate``, ``ships``, ``seats``, ``outcome`` (``sunk``,
  ``survived``, ``captured``, ``not_captured``), ``player_ships_routed`` (by this non-player
  ship's own broadsides and specials only), ``player_ships_fled`` (in the battle),
  ``exchanges``, ``battle_npcs`` (every non-player ship of the battle, ``+``-joined),
  ``routed_by_players`` (routs caused by player broadsides in the battle),
  ``player_ships_routed_in_battle``;
* ``summary`` -- the JSON object of ``broadside cove play --format json``: ``n_games`` (games
  played, rotations included), ``n_deals``, ``n_players``, ``strategies`` (per name: ``win_rate``,
  ``ci95``, ``mean_fame``, ``games``), ``seats`` (per seat index: ``win_rate``, ``ci95``),
  ``pirates`` (per pirate: ``battles``, ``player_ships_routed``, ``times_sunk``), ``ties``,
  ``duels``, ``provenance``, ``seed``, ``invariants_checked`` (``--check``), ``engine`` (which
  engine played the games: ``fast``, the compiled game of :mod:`simulator.cove.fast`, or
  ``python``, the readable one; see :func:`choose_engine`), ``engine_note`` (why) and
  ``battle_engine`` (which combat engine played the battles: the full game's own battle,
  ``compiled`` under ``fast``, ``readable`` under ``python``).

Results depend on the seed only (each deal is one block of the runner's seed tree), never on the
chunk size or ``n_jobs``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scenarios.loader import Scenario, load_scenario
from scenarios.strategies import strategy_hash
from simulator.cove.card_record import CARD_COLUMNS
from simulator.cove.rules import CoveRules
from simulator.cove.tables import FAME_SOURCES, check_strategies, unknown_strategy
from simulator.errors import UserError
from simulator.protocol import (
    SCHEMA_VERSION,
    SEAT_KEY,
    TABLE_PROVENANCE,
    PlayResult,
    outcomes_from_scores,
)
from simulator.runner import Chunk, auto_chunk_size, run_chunks
from simulator.stats import wilson_interval

#: deals per block of random streams: one (a deal's dice and players' streams are its own, so
#: results depend on neither the chunk size nor --jobs)
BLOCK_SIZE = 1
#: deals per chunk at most (the runner's choice otherwise): a chunk's rows are all a streamed
#: run (:func:`play_to`) holds at once, so its peak memory stops growing with n past 32 such
#: chunks; 250 deals are about 1,000 four-player games, under a second on the compiled engine
MAX_CHUNK_DEALS = 250
#: the engines of ``play(..., engine=...)`` / ``cove play --engine``: "fast" is the one engine
#: (:mod:`simulator.cove.fast`) compiled, "python" the same source run by Python with numba's JIT
#: off (:mod:`simulator.engine_mode`): the same games die for die, for reading and debugging
ENGINES = ("fast", "python")
#: the summary's battle_engine: the full game's own battle (:mod:`simulator.cove.fast.battle`),
#: compiled or run with the JIT off
BATTLE_ENGINES = {"fast": "compiled", "python": "readable"}
#: measured cold compile of the compiled game on 2 cores (seconds, rounded up): 116 s wall,
#: 177 s CPU in a fresh clone at load 1.4-1.9 (benchmarks/compile_cold.py, stop 40), in waves
#: of two processes (simulator/cove/fast/build.py); about 200 s one function after the other,
#: what a one-core machine takes
FAST_COMPILE_S = 120

SEAT_COLUMNS = (
    ["game", "rotation", "seat", "strategy", "fame"]
    + [f"fame_{s}" for s in FAME_SOURCES]
    + [
        "gold",
        "chests",
        "battles",
        "routed",
        "fled",
        "mutinies",
        "pirates_fought",
        "pirates_sunk",
        "win",
        "tie",
        "duel",
    ]
)
BATTLE_KEY = ("game", "battle", "pirate")  # key of the protocol's battles table (to_battles)
CARD_KEY = ("game", "seat", "draw")  # key of the protocol's cards table (to_cards)
BATTLE_COLUMNS = [
    "game",
    "rotation",
    "battle",
    "month",
    "island",
    "pirate",
    "ships",
    "seats",
    "outcome",
    "player_ships_routed",
    "player_ships_fled",
    "exchanges",
    "battle_npcs",
    "routed_by_players",
    "player_ships_routed_in_battle",
]


def choose_engine(engine: str | None, rules: CoveRules, names: Sequence[str]) -> tuple[str, str]:
    """The engine that plays ``names`` and why (the reason goes to the table's note): ``fast``
    unless ``python`` is asked for; a scenario the engine cannot hold, or a strategy whose kind
    it does not implement, is refused in one line."""
    from simulator.cove.fast.packed import UnsupportedScenario, compiled, pack_rules

    if engine is not None and engine not in ENGINES:
        raise UserError(f"--engine {engine!r} (allowed: {', '.join(ENGINES)})")
    missing = list(
        dict.fromkeys(rules.strategies[nm].kind for nm in names if not compiled(rules, nm))
    )
    if missing:
        raise UserError(f"kinds {', '.join(missing)} have no player in the engine")
    try:
        pack_rules(rules)
    except UnsupportedScenario as exc:
        raise UserError(f"the engine cannot hold this scenario: {exc}") from None
    if engine == "python":
        return "python", "asked for: the compiled source run with the JIT off"
    return "fast", "compiled"


def compiled_engine():
    """The compiled game as the runner announces it (``run_chunks(..., compiled=...)``)."""
    from simulator.compiled import CompiledEngine
    from simulator.cove.fast import build, seedseq
    from simulator.cove.fast import game as fast_game

    return CompiledEngine(
        "Pirate's Cove game engine",
        (fast_game.play_chunk, seedseq.stream_states),
        FAST_COMPILE_S,
        waves=build.WAVES,
        build=build.compile_group,
    )


class IllegalStateError(UserError):
    """``--check``: a game reached an illegal state (one line: game, month, phase, invariant)."""


#: the cards table: one row per Tavern card a seat drew; unique key (game, rotation, seat, draw)
CARD_TABLE_COLUMNS = ["game", "rotation", "strategy", *CARD_COLUMNS]


def strategies(scenario) -> Mapping[str, Any]:
    """The scenario's named strategies (``[strategies.*]``)."""
    return _rules(scenario).strategies


def kinds(scenario) -> Mapping[str, Any]:
    """The scenario's kinds of player and their parameter spaces (``[kinds.*]``)."""
    return _rules(scenario).kinds


def default_mix(scenario) -> tuple[str, ...]:
    """The scenario's default table: its ``default_mix`` names in order."""
    return tuple(_rules(scenario).default_mix)


def player_counts(scenario) -> tuple[int, ...]:
    s = _rules(scenario).setup
    return tuple(range(s.min_players, s.max_players + 1))


def mix_for(rules, n_players: int) -> list[str]:
    """The default mix for ``n_players`` seats: its names in order, cycled (3 players: the
    first three; 5 players: all four and the first again)."""
    mix = list(rules.default_mix)
    if not mix:
        raise UserError("the scenario has no default_mix (allowed: give --strategies)")
    return [mix[i % len(mix)] for i in range(n_players)]


def resolve_strategies(
    rules, strategies: Sequence[str] | str | None, n_players: int | None
) -> list[str]:
    """Check the player count and the strategy names; one name fills every seat; none gives
    the scenario's default mix (``n_players`` defaulting to its size)."""
    s = rules.setup
    if strategies is None or strategies == "" or strategies == []:
        if n_players is None:
            n_players = len(rules.default_mix)
        names = None
    else:
        names = (
            [x.strip() for x in strategies.split(",")]
            if isinstance(strategies, str)
            else list(strategies)
        )
        if n_players is None:
            n_players = len(names) if len(names) > 1 else len(rules.default_mix)
    if not s.min_players <= n_players <= s.max_players:
        raise UserError(f"--players {n_players} (allowed: {s.min_players}..{s.max_players})")
    if names is None:
        names = mix_for(rules, n_players)
    if len(names) == 1:
        names = names * n_players
    if len(names) != n_players:
        raise UserError(
            f"--strategies: {len(names)} names for {n_players} players "
            "(allowed: one per seat, or one for all)"
        )
    check_strategies(rules)
    for name in names:
        if name not in rules.strategies:
            raise unknown_strategy(rules, name)
    return names


def _chunk(
    chunk: Chunk,
    rules,
    names: tuple[str, ...],
    rotate: bool,
    check: bool,
    n_games: int | None = None,
    cards: bool = False,
):
    """One chunk of deals played by the engine (:func:`simulator.cove.fast.engine.fast_chunk`):
    the seats and battles tables, and with ``cards`` the card record."""
    from simulator.cove.fast.engine import fast_chunk

    return fast_chunk(chunk, rules, names, rotate, check, n_games, cards)


def summarise(
    seats_df: pd.DataFrame, battles_df: pd.DataFrame, names: Sequence[str], pirates: Sequence[str]
) -> dict[str, Any]:
    """The summary object (without provenance) from the two tables."""
    out: dict[str, Any] = {}
    games = int(seats_df.groupby(["game", "rotation"]).ngroups) if len(seats_df) else 0
    strat: dict[str, Any] = {}
    for name in dict.fromkeys(names):
        d = seats_df[seats_df["strategy"] == name]
        k, m = float(d["win"].sum()), len(d)
        lo, hi = wilson_interval(k, m)
        strat[name] = {
            "win_rate": k / m if m else None,
            "ci95": [lo, hi],
            "mean_fame": float(d["fame"].mean()) if m else None,
            "games": m,
            "fame_by_source": {
                s: float(d[f"fame_{s}"].mean()) if m else None for s in FAME_SOURCES
            },
        }
    seats: dict[str, Any] = {}
    for seat, d in seats_df.groupby("seat"):
        k, m = float(d["win"].sum()), len(d)
        lo, hi = wilson_interval(k, m)
        seats[str(int(seat))] = {
            "win_rate": k / m,
            "ci95": [lo, hi],
            "mean_fame": float(d["fame"].mean()),
            "games": m,
        }
    pir: dict[str, Any] = {}
    for key in pirates:
        d = battles_df[battles_df["pirate"] == key] if len(battles_df) else battles_df
        pir[key] = {
            "battles": len(d),
            "player_ships_routed": int(d["player_ships_routed"].sum()) if len(d) else 0,
            "times_sunk": int(d["outcome"].isin(["sunk", "captured"]).sum()) if len(d) else 0,
        }
    first = seats_df.drop_duplicates(["game", "rotation"]) if len(seats_df) else seats_df
    out.update(
        n_games=games,
        strategies=strat,
        seats=seats,
        pirates=pir,
        ties=int(first["tie"].sum()) if len(first) else 0,
        duels=int(first["duel"].sum()) if len(first) else 0,
    )
    return out


def play_games(
    scenario: Scenario | str | None,
    strategies: Sequence[str] | str,
    n_players: int,
    n: int,
    seed: int | None = None,
    n_jobs: int | None = 1,
    rotate_seats: bool = False,
    quiet: bool = True,
    check_invariants: bool = False,
    max_games: int | None = None,
    chunk_size: int | None = None,
    engine: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """Play ``n`` games of Pirate's Cove between scripted players.

    Args:
        scenario: a loaded :class:`~scenarios.loader.Scenario`, a path, or ``None`` (standard).
        strategies: one strategy name per seat (names of the scenario's ``[strategies.*]``), as a
            list or comma-separated string; a single name fills every seat.
        n_players: 3..5 (the scenario's ``setup`` range).
        n: number of deals; with ``rotate_seats`` each is played under every seat rotation
            (``n * n_players`` games, same dice, strategies shifted one seat per rotation).
        seed: root seed (``None``: fresh entropy, reported in ``summary["seed"]``).
        n_jobs: worker processes (results do not depend on it).
        quiet: no progress bar.
        check_invariants: check conservation and bounds after every phase (slower).
        max_games: with ``rotate_seats``, stop after this many games in all (the last deal is
            then played in fewer rotations); :func:`play` uses it so that ``-n`` counts games.
        chunk_size: deals per chunk (``None``: the runner's choice); never changes a number.
        engine: ``"fast"`` (compiled; ``None`` too) or ``"python"`` (the same source with the
            JIT off: the same games); the summary's ``engine`` says which played and
            ``engine_note`` why.

    Returns:
        ``(seats_df, battles_df, summary)`` as described in the module docstring.
    """
    tables, summary = play_games_tables(
        scenario,
        strategies,
        n_players,
        n,
        seed=seed,
        n_jobs=n_jobs,
        rotate_seats=rotate_seats,
        quiet=quiet,
        check_invariants=check_invariants,
        cards=False,
        max_games=max_games,
        chunk_size=chunk_size,
        engine=engine,
    )
    return tables["seats"], tables["battles"], summary


def _run_games(
    scenario: Scenario,
    names: tuple[str, ...],
    n: int,
    *,
    seed: int | None,
    n_jobs: int | None,
    rotate_seats: bool,
    quiet: bool,
    check_invariants: bool,
    cards: bool,
    max_games: int | None,
    chunk_size: int | None,
    engine: str | None,
    consume: Callable[[int, Any, int], Any] | None = None,
    engine_note: str | None = None,
):
    """Play ``n`` deals of ``names`` through the runner: (RunResult, engine, engine_note); with
    ``consume`` each chunk's engine tables go to it in chunk order (:func:`run_chunks`).
    ``engine_note``: the engine was already chosen (``engine`` is :func:`choose_engine`'s)."""
    rules = scenario.rules
    if n < 1:
        raise UserError(f"-n {n} (allowed: >= 1)")
    if engine_note is None:
        engine, engine_note = choose_engine(engine, rules, names)
    task = functools.partial(
        _chunk,
        rules=rules,
        names=names,
        rotate=rotate_seats,
        check=check_invariants,
        n_games=max_games,
        cards=cards,
    )
    manifest = {
        "scenario": scenario.provenance(),
        "strategies": list(names),
        "players": len(names),
        "rotate_seats": rotate_seats,
    }
    if chunk_size is None:  # whole deals, at most MAX_CHUNK_DEALS: memory flat in n
        chunk_size = auto_chunk_size(n, BLOCK_SIZE, max_size=MAX_CHUNK_DEALS)
    run = run_chunks(
        task,
        n,
        seed=seed,
        chunk_size=chunk_size,
        block_size=BLOCK_SIZE,
        n_jobs=n_jobs,
        quiet=quiet,
        desc="games",
        manifest=manifest,
        compiled=compiled_engine() if engine == "fast" else None,
        readable=engine == "python",
        consume=consume,
    )
    return run, engine, engine_note


def play_games_tables(
    scenario: Scenario | str | None,
    strategies: Sequence[str] | str,
    n_players: int,
    n: int,
    seed: int | None = None,
    n_jobs: int | None = 1,
    rotate_seats: bool = False,
    quiet: bool = True,
    check_invariants: bool = False,
    cards: bool = True,
    max_games: int | None = None,
    chunk_size: int | None = None,
    engine: str | None = None,
) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """:func:`play_games` with every table by name: ``seats``, ``battles`` and (``cards``) the
    per-seat Tavern card record, one row per card a seat drew (:data:`CARD_TABLE_COLUMNS`: game,
    rotation, strategy, seat, draw, card, month_drawn, phase_drawn, fate -- played, returned or
    held -- month_out, phase_out; unique key ``(game, rotation, seat, draw)``; see
    :mod:`simulator.cove.card_record`)."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario, CoveRules)
    rules = scenario.rules
    names = tuple(resolve_strategies(rules, strategies, n_players))
    run, engine, engine_note = _run_games(
        scenario,
        names,
        n,
        seed=seed,
        n_jobs=n_jobs,
        rotate_seats=rotate_seats,
        quiet=quiet,
        check_invariants=check_invariants,
        cards=cards,
        max_games=max_games,
        chunk_size=chunk_size,
        engine=engine,
    )
    seats_df = pd.concat([res[0] for res in run.results], ignore_index=True)
    battles_df = pd.concat([res[1] for res in run.results], ignore_index=True)
    if battles_df.empty:
        battles_df = pd.DataFrame(columns=BATTLE_COLUMNS)
    tables = {"seats": seats_df, "battles": battles_df}
    if cards:
        tables["cards"] = pd.concat([res[2] for res in run.results], ignore_index=True)
    pirates = [*rules.pirates, "royal_navy"]
    summary = summarise(seats_df, battles_df, names, pirates)
    summary.update(
        n_deals=n,
        n_players=n_players,
        rotate_seats=rotate_seats,
        seed=run.entropy,
        provenance=scenario.provenance(),
        block_size=BLOCK_SIZE,
        wall_time_s=run.wall_time_s,
        battle_engine=BATTLE_ENGINES[engine],
        invariants_checked=bool(check_invariants),
        engine=engine,
        engine_note=engine_note,
    )
    return tables, summary


# --------------------------------------------------------------------------------------------
# The game protocol (simulator/protocol.py): what the CLI, the report, compare and the search use

GAME = "cove"


def _rules(scenario):
    return load(scenario).rules


def load(scenario=None) -> Scenario:
    """A loaded Pirate's Cove scenario (a path, a built-in name, a Scenario, or None)."""
    if isinstance(scenario, Scenario):
        return scenario
    return load_scenario(scenario, CoveRules)


def to_seats(seats_df: pd.DataFrame, n_players: int, rotate: bool) -> pd.DataFrame:
    """The protocol's seats table from the engine's per-seat rows (seats from 1; ``game`` is the
    game id, ``deal`` the deal whose dice it replays)."""
    deal = seats_df["game"].to_numpy()
    rot = seats_df["rotation"].to_numpy()
    gid = deal * n_players + rot if rotate else deal
    score = seats_df["win"].to_numpy(float)
    out = pd.DataFrame(
        {
            "game": gid,
            "rotation": rot,
            "seat": seats_df["seat"].to_numpy() + 1,
            "strategy": seats_df["strategy"].to_numpy(),
            "outcome": outcomes_from_scores(score),
            "score": score,
            "deal": deal,
        }
    )
    for c in seats_df.columns:
        if c not in ("game", "rotation", "seat", "strategy", "win"):
            out[c] = seats_df[c].to_numpy()
    return out


def to_battles(battles_df: pd.DataFrame, n_players: int, rotate: bool) -> pd.DataFrame:
    """One row per battle and non-player ship in it, keyed by (game, battle, pirate): the game
    id as in the seats table, battles numbered from 1 in the order fought (a battle against a
    Legendary Pirate and the Royal Navy together has one row for each); ``seats`` lists seat
    numbers from 1."""
    df = battles_df.copy()
    deal = df["game"].to_numpy(dtype=np.int64)
    rot = df["rotation"].to_numpy(dtype=np.int64)
    df["game"] = deal * n_players + rot if rotate else deal
    df.insert(2, "deal", deal)
    df["seats"] = df["seats"].map(_seats_from_one)
    return df


def to_cards(cards_df: pd.DataFrame, n_players: int, rotate: bool) -> pd.DataFrame:
    """The per-seat card record keyed by (game, seat, draw): game ids as in the seats table,
    seats from 1."""
    df = cards_df.copy()
    deal = df["game"].to_numpy(dtype=np.int64)
    rot = df["rotation"].to_numpy(dtype=np.int64)
    df["game"] = deal * n_players + rot if rotate else deal
    df["seat"] = df["seat"].to_numpy() + 1
    df.insert(1, "deal", deal)
    return df


def _seats_from_one(value: Any) -> str:
    text = str(value)
    if not text:
        return text
    return ",".join(str(int(x) + 1) for x in text.replace("+", ",").split(",") if x.strip())


class SummaryTally:
    """The summary of :func:`play` accumulated chunk by chunk (:meth:`add` each chunk's protocol
    tables, :meth:`result` at the end), so a run need not keep its rows.

    Exact, whatever the chunks: scores (1/k shares) are summed as exact fractions of their float
    values and fame as integers, so the summary depends on the games only, never on the chunk
    size. Games never straddle two chunks (ties and duels are counted on each game's first row).
    """

    def __init__(self, names: Sequence[str], pirates: Sequence[str]):
        self.names = tuple(dict.fromkeys(names))
        self.pirates = tuple(pirates)
        cols = ["fame", *(f"fame_{s}" for s in FAME_SOURCES)]
        self._cols = cols
        self._strat = {n: [Fraction(0), 0, dict.fromkeys(cols, 0)] for n in self.names}
        self._seat: dict[int, list] = {}
        self._pir = {k: [0, 0, 0] for k in self.pirates}
        self._games = self._ties = self._duels = 0

    @staticmethod
    def _score_sum(scores: pd.Series) -> Fraction:
        counts = scores.value_counts(sort=False)
        return sum((Fraction(float(v)) * int(c) for v, c in counts.items()), Fraction(0))

    def add(self, seats: pd.DataFrame, battles: pd.DataFrame) -> None:
        cols = self._cols
        for name, d in seats.groupby("strategy", sort=False):
            acc = self._strat.get(name)
            if acc is None:
                continue
            acc[0] += self._score_sum(d["score"])
            acc[1] += len(d)
            for c in cols:
                acc[2][c] += int(d[c].sum())
        for seat, d in seats.groupby("seat", sort=False):
            acc = self._seat.setdefault(int(seat), [Fraction(0), 0, 0])
            acc[0] += self._score_sum(d["score"])
            acc[1] += len(d)
            acc[2] += int(d["fame"].sum())
        if len(battles):
            for key, d in battles.groupby("pirate", sort=False):
                acc = self._pir.get(key)
                if acc is None:
                    continue
                acc[0] += len(d)
                acc[1] += int(d["player_ships_routed"].sum())
                acc[2] += int(d["outcome"].isin(["sunk", "captured"]).sum())
        if len(seats):
            first = seats.drop_duplicates(["game"])
            self._games += len(first)
            self._ties += int(first["tie"].sum())
            self._duels += int(first["duel"].sum())

    def result(self) -> dict[str, Any]:
        """The summary object (without provenance)."""
        strat: dict[str, Any] = {}
        for name, (k, m, sums) in self._strat.items():
            lo, hi = wilson_interval(float(k), m)
            strat[name] = {
                "win_rate": float(k / m) if m else None,
                "ci95": [lo, hi],
                "mean_fame": sums["fame"] / m if m else None,
                "games": m,
                "fame_by_source": {s: sums[f"fame_{s}"] / m if m else None for s in FAME_SOURCES},
            }
        seat_summary: dict[str, Any] = {}
        for seat in sorted(self._seat):
            k, m, fame = self._seat[seat]
            lo, hi = wilson_interval(float(k), m)
            seat_summary[str(seat)] = {
                "win_rate": float(k / m),
                "ci95": [lo, hi],
                "mean_fame": fame / m,
                "games": m,
            }
        pir = {
            key: {"battles": b, "player_ships_routed": r, "times_sunk": t}
            for key, (b, r, t) in self._pir.items()
        }
        return {
            "n_games": self._games,
            "strategies": strat,
            "seats": seat_summary,
            "pirates": pir,
            "ties": self._ties,
            "duels": self._duels,
        }


def play(
    scenario=None,
    strategies: Sequence[str] | str | None = None,
    *,
    n: int,
    players: int | None = None,
    seed: int | None = None,
    jobs: int = 1,
    rotate_seats: bool = False,
    quiet: bool = True,
    check: bool = False,
    engine: str | None = None,
    chunk_size: int | None = None,
    cards: bool = False,
) -> PlayResult:
    """Play ``n`` games of Pirate's Cove (the protocol's ``play``).

    ``strategies``: names of the scenario's strategies, one per seat (one name fills every seat;
    ``None``: the default mix for ``players`` seats, cycled). ``n`` counts games: with
    ``rotate_seats`` the games come in deals of ``players`` rotations that replay the same dice
    (game ``g`` is deal ``g // players``, rotation ``g % players``; when ``n`` is not a multiple
    of ``players`` the last deal is played in its first ``n mod players`` rotations).

    Returns:
        :class:`~simulator.protocol.PlayResult` with ``seats`` (key game, rotation, seat),
        ``tables["battles"]`` (key game, battle), with ``cards`` also ``tables["cards"]`` (every
        Tavern card a seat drew and its fate; key game, seat, draw) and the summary of
        ``cove play --format json``.
    """
    parts: list[tuple[pd.DataFrame, dict[str, pd.DataFrame]]] = []

    def keep(seats: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> None:
        parts.append((seats, tables))

    summary = _play_chunks(
        scenario,
        strategies,
        keep,
        n=n,
        players=players,
        seed=seed,
        jobs=jobs,
        rotate_seats=rotate_seats,
        quiet=quiet,
        check=check,
        engine=engine,
        chunk_size=chunk_size,
        cards=cards,
    )
    seats = pd.concat([sp for sp, _ in parts], ignore_index=True)
    out_tables = {
        name: pd.concat([tp[name] for _, tp in parts], ignore_index=True) for name in parts[0][1]
    }
    prov = summary["provenance"]
    return PlayResult(
        game=GAME,
        seats=seats,
        summary=summary,
        tables=out_tables,
        entropy=summary["seed"],
        provenance=prov,
    )


def _play_chunks(
    scenario,
    strategies,
    consume: Callable[[pd.DataFrame, dict[str, pd.DataFrame]], None],
    *,
    n: int,
    players: int | None,
    seed: int | None,
    jobs: int,
    rotate_seats: bool,
    quiet: bool,
    check: bool,
    engine: str | None,
    chunk_size: int | None,
    cards: bool,
) -> dict[str, Any]:
    """Play the games of :func:`play` and hand each chunk's protocol tables (seats, and
    ``battles`` and with ``cards`` ``cards`` by name; provenance columns included) to
    ``consume`` in chunk order; returns the summary, tallied chunk by chunk
    (:class:`SummaryTally`), so nothing but what ``consume`` keeps stays in memory."""
    scen = load(scenario)
    rules = scen.rules
    names = resolve_strategies(rules, strategies, players)
    n_players = len(names)
    if n < 1:
        raise UserError(f"-n {n} (allowed: >= 1)")
    deals = -(-n // n_players) if rotate_seats else n
    pirates = [*rules.pirates, "royal_navy"]
    tally = SummaryTally(names, pirates)
    hashes = {k: strategy_hash(rules.strategies[k]) for k in dict.fromkeys(names)}
    chosen: dict[str, str] = {}

    def take(index: int, res: tuple, entropy: int) -> None:
        prov = {**scen.provenance(), "strategy_hashes": hashes, "engine": chosen["engine"]}
        seats = to_seats(res[0], n_players, rotate_seats)
        tables = {"battles": to_battles(res[1], n_players, rotate_seats)}
        if cards:
            tables["cards"] = to_cards(res[2], n_players, rotate_seats)
        for df in (seats, *tables.values()):
            for key in TABLE_PROVENANCE:
                df[key] = prov[key]
            df["seed"] = str(entropy)
        tally.add(seats, tables["battles"])
        consume(seats, tables)

    engine_used, engine_note = choose_engine(engine, rules, tuple(names))
    chosen["engine"] = engine_used
    run, engine_used, engine_note = _run_games(
        scen,
        tuple(names),
        deals,
        seed=seed,
        n_jobs=jobs,
        rotate_seats=rotate_seats,
        quiet=quiet,
        check_invariants=check,
        cards=cards,
        max_games=n if rotate_seats else None,
        chunk_size=chunk_size,
        engine=engine_used,
        consume=take,
        engine_note=engine_note,
    )
    prov = {**scen.provenance(), "strategy_hashes": hashes, "engine": engine_used}
    summary = tally.result()
    summary.update(
        schema_version=SCHEMA_VERSION,
        n_deals=deals,
        n_players=n_players,
        strategies_by_seat=list(names),
        rotate_seats=rotate_seats,
        seed=run.entropy,
        provenance=prov,
        block_size=BLOCK_SIZE,
        wall_time_s=run.wall_time_s,
        battle_engine=BATTLE_ENGINES[engine_used],
        invariants_checked=bool(check),
        engine=engine_used,
        engine_note=engine_note,
    )
    # schema_version first in every JSON output
    return {"schema_version": SCHEMA_VERSION, **summary}


#: the keys of the tables :func:`play_to` writes (docs/outputs.md)
TABLE_KEYS = {"seats": SEAT_KEY, "battles": BATTLE_KEY, "cards": CARD_KEY}


def play_to(
    out: str | Path | None,
    scenario=None,
    strategies: Sequence[str] | str | None = None,
    *,
    n: int,
    players: int | None = None,
    seed: int | None = None,
    jobs: int = 1,
    rotate_seats: bool = False,
    quiet: bool = True,
    check: bool = False,
    engine: str | None = None,
    chunk_size: int | None = None,
) -> dict[str, Any]:
    """:func:`play` for long runs: memory flat in ``n``. Each chunk's seats, battles and cards
    tables are appended to ``out/{seats,battles,cards}.csv|parquet`` as the chunk finishes and
    then dropped (the files appear, complete, when the run ends; a failed run leaves none);
    without ``out`` only the summary is kept. Returns the summary of :func:`play` (the same
    object, value for value)."""
    from simulator.output import TableStream

    streams = (
        {name: TableStream(out, name, key=key) for name, key in TABLE_KEYS.items()}
        if out is not None
        else {}
    )

    def write(seats: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> None:
        if streams:
            streams["seats"].write(seats)
            for name, df in tables.items():
                streams[name].write(df)

    try:
        summary = _play_chunks(
            scenario,
            strategies,
            write,
            n=n,
            players=players,
            seed=seed,
            jobs=jobs,
            rotate_seats=rotate_seats,
            quiet=quiet,
            check=check,
            engine=engine,
            chunk_size=chunk_size,
            cards=out is not None,
        )
        for stream in streams.values():
            stream.close()
    except BaseException:
        for stream in streams.values():
            stream.abort()
        raise
    return summary
