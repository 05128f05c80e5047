"""Broadside's public Python API: what a notebook imports (``docs/python.md``).

Everything here is public and listed in ``__all__`` (pinned by ``tests/test_contracts.py``);
everything else in the house may move between releases. Each function returns a result object
whose tables are tidy :class:`pandas.DataFrame` s (one row per observation, intervals as
``ci95_low``/``ci95_high`` columns), raises :class:`UserError` (a :class:`ValueError`) with one
line naming what is wrong and what is allowed, and never prints or exits. A Monte Carlo function
takes ``seed`` (``None``: fresh entropy, returned as the result's ``seed`` so the run can be
replayed) and ``jobs`` (worker processes; the numbers never depend on it).

This module is the one room that may see every game (``tests/test_layers.py``): the games are
imported from their ``api.py`` (the protocol of :mod:`simulator.protocol`) when first used, and
the house-rule comparison, which plays through ``reports/``, is in :mod:`reports.api`.

Concerns, in the order of ``docs/python.md``:

* games: :func:`load`, :func:`strategies`, :func:`kinds`, :func:`play` (a
  :class:`~simulator.protocol.PlayResult`; :meth:`~simulator.protocol.PlayResult.intervals`);
* dice odds: :func:`volley`, :func:`boarding` (exact, Monte Carlo beside them; defined in
  :mod:`simulator.odds`, which the ``broadside odds`` commands call);
* Pirate's Cove combat: :func:`duel`, :func:`lethality` (exact, with cards in hand);
* strategy search and the meta-game: :func:`tune`, :func:`metagame`,
  :func:`table_from_function`, :func:`equilibrium`;
* rules search: :func:`balance`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from scenarios.loader import Scenario, ScenarioError
from simulator.errors import UserError
from simulator.metagame import PayoffTable
from simulator.odds import DiceOdds, boarding, volley
from simulator.protocol import PlayResult

__all__ = [
    "GAMES",
    "BalanceSearch",
    "DiceOdds",
    "DuelOdds",
    "Equilibrium",
    "Lethality",
    "Metagame",
    "PayoffTable",
    "PlayResult",
    "Tuning",
    "UserError",
    "balance",
    "boarding",
    "duel",
    "equilibrium",
    "kinds",
    "lethality",
    "load",
    "metagame",
    "play",
    "strategies",
    "table_from_function",
    "tune",
    "volley",
]

#: the games, by the name every function takes
GAMES = ("cove", "express", "hunt")


def _user_errors(fn: Callable) -> Callable:
    """Turn a scenario file's error (:class:`scenarios.loader.ScenarioError`, which cannot
    subclass :class:`UserError`: ``scenarios/`` imports nothing of ``simulator/``) into a
    :class:`UserError` with the same one line (the original is its ``__cause__``)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ScenarioError as exc:
            raise UserError(str(exc)) from exc

    return wrapper


def _room(game: str) -> Any:
    """The protocol module of ``game`` (imported when first asked for)."""
    if game == "cove":
        from simulator.cove import api as room
    elif game == "express":
        from simulator.express import api as room
    elif game == "hunt":
        from simulator.hunt import api as room
    else:
        raise UserError(f"game {game!r} (allowed: {', '.join(GAMES)})")
    return room


def _scenario(game: str, scenario: Any) -> Scenario:
    room = _room(game)
    if isinstance(scenario, Scenario):
        if scenario.game != game:
            raise UserError(
                f"scenario {scenario.name!r} is a {scenario.game} scenario (allowed: a {game} "
                "scenario)"
            )
        return scenario
    return room.load(scenario)


# --------------------------------------------------------------------------------------------
# Games


@_user_errors
def load(game: str, scenario: str | Scenario | None = None, *, variants: Sequence[str] = ()):
    """A game's scenario: its rules, validated, with their provenance.

    Args:
        game: ``"cove"``, ``"express"`` or ``"hunt"``.
        scenario: a TOML file, a built-in scenario's name (``"artisan-per-section"``), a loaded
            scenario, or ``None`` for the game's ``standard`` rules.
        variants: Les Pirates' printed variants to apply (``["one-two", "cyclone"]``).

    Returns:
        A frozen :class:`scenarios.loader.Scenario` (``.rules``, ``.name``, ``.content_hash``,
        ``.provenance()``): pass it as any function's ``scenario``.

    Example:
        >>> sc = load("cove", "artisan-per-section")
        >>> sc.game, sc.name != load("cove").name
        ('cove', True)
        >>> load("chess")
        Traceback (most recent call last):
        simulator.errors.UserError: game 'chess' (allowed: cove, express, hunt)
    """
    room = _room(game)
    if variants:
        if game != "hunt":
            raise UserError(f"variants are Les Pirates' (allowed: game 'hunt'), not {game!r}")
        return room.load(scenario, list(variants))
    return _scenario(game, scenario)


@_user_errors
def strategies(game: str, scenario: str | Scenario | None = None) -> pd.DataFrame:
    """The scenario's named strategies, one row each.

    Returns:
        Columns ``strategy``, ``kind`` (the policy it plays), ``params`` (the values it sets,
        ``name=value`` joined by ``, ``; the kind's defaults otherwise), ``reference`` (a floor
        player such as ``random``, never in a default mix), ``default_seats`` (its seats at
        the scenario's default table) and ``description``.

    Example:
        >>> df = strategies("hunt")
        >>> list(df.columns)
        ['strategy', 'kind', 'params', 'reference', 'default_seats', 'description']
        >>> bool(df.loc[df["strategy"] == "random", "reference"].item())
        True
    """
    room = _room(game)
    sc = _scenario(game, scenario)
    mix = list(room.default_mix(sc))
    rows = [
        {
            "strategy": name,
            "kind": decl.kind,
            "params": ", ".join(f"{k}={v}" for k, v in sorted(decl.params.items())),
            "reference": bool(getattr(decl, "reference", False)),
            "default_seats": mix.count(name),
            "description": decl.description,
        }
        for name, decl in room.strategies(sc).items()
    ]
    return pd.DataFrame(rows, columns=STRATEGY_COLUMNS)


#: columns of :func:`strategies`
STRATEGY_COLUMNS = ("strategy", "kind", "params", "reference", "default_seats", "description")
#: columns of :func:`kinds`
KIND_COLUMNS = ("kind", "param", "type", "low", "high", "choices", "default", "searched", "doc")


@_user_errors
def kinds(game: str, scenario: str | Scenario | None = None) -> pd.DataFrame:
    """Each kind of player and its parameter space, one row per kind and parameter (what
    :func:`tune` searches).

    Returns:
        Columns ``kind``, ``param``, ``type`` (int, float, bool, choice), ``low``, ``high`` (a
        number's range), ``choices`` (a choice's, ``|``-joined), ``default``, ``searched``
        (False for a structural switch that :func:`tune` leaves alone) and ``doc``; a kind
        without parameters has one row with ``param`` empty.

    Example:
        >>> df = kinds("hunt")
        >>> "planner" in set(df["kind"]), list(df.columns) == list(KIND_COLUMNS)
        (True, True)
    """
    from scenarios.strategies import param_space

    room = _room(game)
    sc = _scenario(game, scenario)
    declared = room.kinds(sc)
    rows: list[dict[str, Any]] = []
    for kind in declared:
        space = param_space(declared, kind)
        if not space:
            rows.append(dict.fromkeys(KIND_COLUMNS, None) | {"kind": kind, "param": ""})
        for name, decl in space.items():
            lo, hi = decl.range if decl.range is not None else (None, None)
            rows.append(
                {
                    "kind": kind,
                    "param": name,
                    "type": decl.type,
                    "low": lo,
                    "high": hi,
                    "choices": "|".join(decl.choices),
                    "default": decl.default,
                    "searched": not decl.fixed,
                    "doc": decl.doc,
                }
            )
    return pd.DataFrame(rows, columns=KIND_COLUMNS)


@_user_errors
def play(
    game: str,
    strategies: Sequence[str] | str | None = None,
    *,
    n: int,
    scenario: str | Scenario | None = None,
    players: int | None = None,
    seed: int | None = None,
    jobs: int = 1,
    rotate_seats: bool = False,
    engine: str | None = None,
) -> PlayResult:
    """Play ``n`` seeded games of ``game``.

    Args:
        strategies: one strategy name per seat (one name fills every seat; ``None``: the
            scenario's default mix, cycled to ``players`` seats).
        n: games played (with ``rotate_seats`` the rotations are inside it).
        scenario: see :func:`load`.
        players: table size (default: the number of strategies, else the default mix's).
        seed: root seed (``None``: fresh entropy, returned as the result's ``entropy``).
        jobs: worker processes (the games never depend on it).
        rotate_seats: game ``g`` seats the strategies shifted by ``g mod players`` (every
            strategy sits in every seat equally often).
        engine: the game's engine (``None``: its default; ``"python"`` plays the readable
            reference where the game has one).

    Returns:
        :class:`~simulator.protocol.PlayResult`: ``seats``, the tidy per-seat table (``game,
        rotation, seat, strategy, outcome, score`` then the game's columns; ``score`` the win
        share), ``intervals(by)`` (each strategy's or seat's win share and win rate with
        Wilson 95 % intervals), ``summary`` (the JSON of the game's ``play`` command),
        ``tables`` (further tables: Pirate's Cove's ``battles``), ``entropy``, ``provenance``.

    Example:
        >>> res = play("hunt", ["runner", "hunter"], n=20, seed=1)
        >>> res.seats[["game", "seat", "strategy"]].head(2)
           game  seat strategy
        0     0     1   runner
        1     0     2   hunter
        >>> bool(res.seats.groupby("game")["score"].sum().eq(1).all())
        True
        >>> list(res.intervals().columns)
        ['strategy', 'measure', 'games', 'n_eff', 'estimate', 'ci95_low', 'ci95_high']
    """
    room = _room(game)
    sc = _scenario(game, scenario)
    if isinstance(strategies, str):
        strategies = [s.strip() for s in strategies.split(",")]
    if not strategies:
        mix = list(room.default_mix(sc))
        players = players or len(mix)
        strategies = [mix[i % len(mix)] for i in range(players)]
    if engine is not None and engine not in getattr(room, "ENGINES", ("fast",)):
        allowed = ", ".join(getattr(room, "ENGINES", ("fast",)))
        raise UserError(f"engine {engine!r}: {game} has {allowed} only")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise UserError(f"n {n!r} (allowed: a whole number of games, at least 1)")
    return room.play(
        sc,
        list(strategies),
        n=int(n),
        players=players,
        seed=seed,
        jobs=jobs,
        rotate_seats=rotate_seats,
        quiet=True,
        engine=engine,
    )


# --------------------------------------------------------------------------------------------
# Pirate's Cove combat, exact


@dataclass(frozen=True)
class DuelOdds:
    """The exact outcome of a Pirate's Cove duel, for the first ship.

    Attributes:
        table: one row per outcome (``win``: it sinks the opponent -- or, in a ship duel, the
            other ship is routed or flees --; ``routed``; ``fled``, mutinies included;
            ``mutiny``), columns ``outcome``, ``probability``.
        expected_fame: the first ship's expected fame from the battle.
        cards: the cards it held; ``card_policy`` how it played them; ``cards_played`` the
            battle cards of the solved plan (one per card round); ``overboard_chests`` the
            chests the plan throws.
        states: states of the Markov chain solved.
        summary: the JSON object of ``broadside cove duel`` (exact).
    """

    table: pd.DataFrame
    expected_fame: float
    cards: tuple[str, ...]
    card_policy: str
    cards_played: tuple[str, ...]
    overboard_chests: int
    states: int
    summary: dict[str, Any] = field(default_factory=dict)

    def probability(self, outcome: str) -> float:
        """The probability of ``outcome`` (``win``, ``routed``, ``fled`` or ``mutiny``)."""
        hit = self.table.loc[self.table["outcome"] == outcome, "probability"]
        if hit.empty:
            raise UserError(f"outcome {outcome!r} (allowed: {', '.join(self.table['outcome'])})")
        return float(hit.iloc[0])


def _cove_parse(fn: Callable, *args: Any) -> Any:
    """A Pirate's Cove command-line parser's value, its click error as a :class:`UserError`."""
    import click

    try:
        return fn(*args)
    except click.BadParameter as exc:
        where = f"{exc.param_hint}: " if isinstance(exc.param_hint, str) else ""
        raise UserError(where + exc.message) from None


def _policy(name: str, what: str) -> Any:
    from simulator.cove.combat_policies import policy_from_name

    try:
        return policy_from_name(name)
    except ValueError as exc:
        raise UserError(f"{what}: {exc}") from None


def _cards(spec: Sequence[str] | str | None, rules: Any) -> tuple[str, ...]:
    from simulator.cove.commands import parse_cards

    if spec is None or isinstance(spec, str):
        return _cove_parse(parse_cards, spec, rules, "cards")
    return _cove_parse(parse_cards, ",".join(spec), rules, "cards")


@_user_errors
def duel(
    ship: str,
    vs: str,
    *,
    cards: Sequence[str] | str | None = None,
    card_policy: str = "optimal",
    policy: str = "stand",
    vs_policy: str = "stand",
    scenario: str | Scenario | None = None,
) -> DuelOdds:
    """Exact odds of a Pirate's Cove duel (a Markov chain over the ships' damage states).

    Args:
        ship: the first ship, ``hull=P,crew=P,cannons=P,sails=P[,artisan=SECTION]
            [,parrot=NAME][,chests=N]`` (ship-mat positions 1-8, 2 the start; omitted ones
            start), as ``broadside cove duel --ship``.
        vs: a Legendary Pirate (``"blackbeard"``...), ``"royal-navy"``, or a second ship's
            spec (a ship duel).
        cards: battle and volley cards the lone ship holds (``["smoke", "powder-keg"]``, a
            name twice for two copies), against a non-player ship only.
        card_policy: ``"optimal"`` (maximise P(sink), exact dynamic programme) or
            ``"heuristic"`` (the scripted players' rule).
        policy, vs_policy: when a ship flees: ``stand``, ``flee-when-hit``,
            ``flee-when-critical`` or ``flee-after-N``.
        scenario: see :func:`load` (a Pirate's Cove scenario).

    Returns:
        :class:`DuelOdds`.

    Example:
        >>> plain = duel("hull=4,crew=4,cannons=4,sails=4", "blackbeard")
        >>> smoke = duel("hull=4,crew=4,cannons=4,sails=4", "blackbeard", cards=["smoke"])
        >>> round(plain.probability("win"), 4), round(smoke.probability("win"), 4)
        (0.0008, 0.0617)
        >>> smoke.cards_played
        ('smoke',)
        >>> duel("hull=9", "blackbeard")
        Traceback (most recent call last):
        simulator.errors.UserError: ship: hull='9' (allowed: a ship-mat position 1..8)
    """
    from simulator.cove.commands import parse_ship
    from simulator.cove.duel import exact_duel

    sc = _scenario("cove", scenario)
    rules = sc.rules
    first = _cove_parse(parse_ship, ship, rules, "ship")
    hand = _cards(cards, rules)
    if card_policy not in ("optimal", "heuristic"):
        raise UserError(f"card_policy {card_policy!r} (allowed: optimal, heuristic)")
    if "=" in vs:
        if hand:
            raise UserError("cards are for a lone ship against a non-player ship (allowed: vs a "
                            "Legendary Pirate or royal-navy)")  # fmt: skip
        second = _cove_parse(parse_ship, vs, rules, "vs")
        opponent: Any = second.duel_ship(seat=1)
        label = second.name
    else:
        key = vs.strip().lower().replace("-", "_")
        fighting = [k for k in rules.pirates if rules.pirates[k].fights] + ["royal_navy"]
        if key not in fighting:
            allowed = ", ".join(k.replace("_", "-") for k in fighting)
            raise UserError(f"vs {vs!r} (allowed: {allowed}, or a second ship's spec)")
        opponent, label = key, key.replace("_", "-")
    solved = exact_duel(
        rules,
        first.duel_ship(),
        opponent,
        _policy(policy, "policy"),
        _policy(vs_policy, "vs_policy"),
        cards=hand,
        card_policy=card_policy,
    )
    outcomes = {
        "win": float(solved.win),
        "routed": float(solved.routed),
        "fled": float(solved.fled),
        "mutiny": float(solved.mutiny),
    }
    summary = {
        **outcomes,
        "expected_fame": float(solved.expected_fame),
        "method": "exact",
        "states": solved.states,
        "ship": first.name,
        "vs": label,
        "policy": policy,
        **sc.provenance(),
        "cards": list(hand),
        "card_policy": card_policy,
        "battle_cards_played": list(solved.battle_cards_played),
        "overboard_chests": solved.overboard_chests,
    }
    return DuelOdds(
        table=pd.DataFrame({"outcome": list(outcomes), "probability": list(outcomes.values())}),
        expected_fame=float(solved.expected_fame),
        cards=hand,
        card_policy=card_policy,
        cards_played=tuple(solved.battle_cards_played),
        overboard_chests=int(solved.overboard_chests),
        states=int(solved.states),
        summary=summary,
    )


#: columns of :attr:`Lethality.table`
LETHALITY_COLUMNS = (
    "pirate",
    "build",
    "hull",
    "crew",
    "cannons",
    "sails",
    "artisan",
    "parrot",
    "policy",
    "chests",
    "cards",
    "card_policy",
    "p_sink",
    "p_routed",
    "p_fled",
    "p_mutiny",
    "expected_fame",
    "best_card",
    "p_sink_best_card",
    "best_pair",
    "p_sink_best_pair",
)


@dataclass(frozen=True)
class Lethality:
    """Every Legendary Pirate and the Royal Navy against a grid of builds, exact.

    Attributes:
        table: one row per (pirate, build), columns :data:`LETHALITY_COLUMNS`: the build's
            positions, Artisan, parrot and chests, the cards in hand, ``p_sink`` (P(the build
            sinks the pirate)), ``p_routed``, ``p_fled``, ``p_mutiny``, ``expected_fame``, and
            the extra card (``best_card``) and pair (``best_pair``, ``+``-joined) that raise
            ``p_sink`` most, with their ``p_sink`` (``""`` when none raises it).
        provenance: the scenario's.
    """

    table: pd.DataFrame
    provenance: dict[str, str] = field(default_factory=dict)


@_user_errors
def lethality(
    builds: Sequence[str] | None = None,
    *,
    cards: Sequence[str] | str | None = None,
    card_policy: str = "optimal",
    policy: str = "stand",
    scenario: str | Scenario | None = None,
) -> Lethality:
    """Exact lethality of every Legendary Pirate and the Royal Navy against builds.

    Args:
        builds: ship specs as in :func:`duel` (each row's ``build`` is its spec); ``None``: the
            standard grid (start, each section maxed, balanced ships at 9/15/24/36 gold, each
            with and without a hull Artisan).
        cards, card_policy, policy, scenario: as in :func:`duel`.

    Returns:
        :class:`Lethality`.

    Example:
        >>> t = lethality(["hull=2", "hull=8,crew=8,cannons=8,sails=8"]).table
        >>> t.pivot(index="build", columns="pirate", values="p_sink").shape
        (2, 5)
        >>> bool((t.groupby("pirate")["p_sink"].agg(lambda p: p.iloc[1] > p.iloc[0])).all())
        True
    """
    from simulator.cove.commands import parse_ship
    from simulator.cove.lethality import lethality_table

    sc = _scenario("cove", scenario)
    rules = sc.rules
    if isinstance(builds, str):
        raise UserError("builds: a list of ship specs (allowed: ['hull=4,crew=3', ...] or None)")
    grid = None
    if builds is not None:
        grid = [_cove_parse(parse_ship, spec, rules, "builds") for spec in builds]
        if not grid:
            raise UserError("builds: an empty list (allowed: at least one ship spec, or None)")
    hand = _cards(cards, rules)
    _policy(policy, "policy")
    if card_policy not in ("optimal", "heuristic"):
        raise UserError(f"card_policy {card_policy!r} (allowed: optimal, heuristic)")
    opponents = tuple(k for k in rules.pirates if rules.pirates[k].fights) + ("royal_navy",)
    df = lethality_table(
        sc, grid, policy=policy, opponents=opponents, cards=hand, card_policy=card_policy
    )
    return Lethality(table=df[list(LETHALITY_COLUMNS)].copy(), provenance=sc.provenance())


# --------------------------------------------------------------------------------------------
# Strategy search and the meta-game


#: columns of :attr:`Tuning.validation`
VALIDATION_COLUMNS = ("measure", "value", "ci95_low", "ci95_high")


@dataclass(frozen=True)
class Tuning:
    """A tuned strategy and how it validated on fresh games.

    Attributes:
        strategy: its name; ``kind`` the kind tuned; ``params`` the values found.
        validation: rows ``score`` (its mean score against the field on games the search never
            saw), ``baseline_score`` (the kind's defaults on the same games) and ``gain``, each
            with its 95 % interval (columns :data:`VALIDATION_COLUMNS`).
        validation_games: the games behind them.
        history: one row per candidate and rung of the search (key ``trial, rung``).
        players, field: the table size and the opponents it was tuned against.
        seed: the search's root seed; ``summary`` the JSON of ``broadside tune`` (without
            the overlay file it writes).
    """

    strategy: str
    kind: str
    params: dict[str, Any]
    validation: pd.DataFrame
    validation_games: int
    history: pd.DataFrame
    players: int
    field: tuple[str, ...]
    seed: int
    summary: dict[str, Any] = field(default_factory=dict)


@_user_errors
def tune(
    game: str,
    kind: str,
    *,
    budget: int,
    against: Sequence[str] | None = None,
    players: int | None = None,
    scenario: str | Scenario | None = None,
    validation_games: int | None = None,
    name: str | None = None,
    seed: int | None = None,
    jobs: int = 1,
    engine: str | None = None,
) -> Tuning:
    """Tune a kind's declared parameters for the best mean score against a field.

    The optimiser (optuna's TPE by ask and tell, with successive halving) proposes, the runner
    plays the candidates on paired seeds; the winner's score comes from fresh games.

    Args:
        kind: a kind of the scenario (see :func:`kinds`).
        budget: games the search may play (validation comes on top).
        against: the opponents: exactly ``players - 1`` names fill the other seats, otherwise
            each slice of games draws them from these names (``None``: the default mix).
        players: table size (default: the default mix's).
        validation_games: fresh games for the winner and the defaults (default: a quarter of
            the budget).
        name: the tuned strategy's name (default ``KIND_tuned``).

    Returns:
        :class:`Tuning`.

    Example:
        >>> t = tune("hunt", "hunter", budget=896, validation_games=64, against=["runner"],
        ...          players=2, seed=1)
        >>> t.strategy, list(t.validation["measure"])
        ('hunter_tuned', ['score', 'baseline_score', 'gain'])
        >>> set(t.params) <= set(kinds("hunt").query("kind == 'hunter'")["param"])
        True
    """
    from simulator.search import Field, resolve_players
    from simulator.search import tune as run_tune

    room = _room(game)
    sc = _scenario(game, scenario)
    n_players = resolve_players(room, sc, players)
    field_obj = None
    if against is not None:
        names = [against] if isinstance(against, str) else list(against)
        if not names:
            raise UserError("against: an empty list (allowed: strategy names, or None)")
        field_obj = Field.of(names, n_players)
    res = run_tune(
        room,
        sc,
        kind,
        budget=budget,
        field=field_obj,
        players=n_players,
        seed=seed,
        jobs=jobs,
        validation_games=validation_games,
        name=name or f"{kind}_tuned",
        engine=engine,
    )
    v = res.validation
    validation = pd.DataFrame(
        [
            {"measure": key, "value": v[key], "ci95_low": v[ci][0], "ci95_high": v[ci][1]}
            for key, ci in (
                ("score", "ci95"),
                ("baseline_score", "baseline_ci95"),
                ("gain", "gain_ci95"),
            )
        ],
        columns=VALIDATION_COLUMNS,
    )
    return Tuning(
        strategy=res.name,
        kind=res.kind,
        params=dict(res.params),
        validation=validation,
        validation_games=int(v["n"]),
        history=res.history,
        players=res.players,
        field=tuple(res.field.describe()),
        seed=res.entropy,
        summary={**res.summary(), "provenance": {**sc.provenance(), "seed": str(res.entropy)}},
    )


#: columns of :attr:`Equilibrium.weights`
WEIGHT_COLUMNS = ("strategy", "weight", "payoff", "regret")
#: columns of :attr:`Equilibrium.equilibria`
EQUILIBRIA_COLUMNS = ("equilibrium", "strategy", "weight", "reached", "nash_gap", "stable")


@dataclass(frozen=True)
class Equilibrium:
    """A symmetric Nash equilibrium of a payoff table, checked by its Nash gap.

    Attributes:
        weights: one row per strategy: its ``weight`` in the equilibrium, its ``payoff``
            ``u(X, σ)`` against it and its ``regret`` ``u(σ, σ) - u(X, σ)`` (0 inside the
            support, at least 0 outside).
        nash_gap: ``max_X u(X, σ) - u(σ, σ)``, the largest gain of any pure strategy against
            it (0 at an equilibrium; nothing above 1e-4 is ever reported).
        equilibria: every equilibrium the solver met, long form (``equilibrium`` numbered from
            1, the chosen one first: the most mixed of the stable ones), with how many solver
            starts ``reached`` it, its ``nash_gap`` and whether it is ``stable`` under the
            replicator dynamics.
        sigma: the chosen weights as an array (population order).
    """

    weights: pd.DataFrame
    nash_gap: float
    equilibria: pd.DataFrame
    sigma: np.ndarray


def _equilibrium(table: PayoffTable, found: Any) -> Equilibrium:
    pop = list(table.population)
    payoff = table.payoffs(found.sigma)
    weights = pd.DataFrame(
        {
            "strategy": pop,
            "weight": found.sigma,
            "payoff": payoff,
            "regret": table.regret(found.sigma),
        },
        columns=WEIGHT_COLUMNS,
    )
    rows = [
        {
            "equilibrium": i + 1,
            "strategy": name,
            "weight": float(w),
            "reached": point.reached,
            "nash_gap": point.nash_gap,
            "stable": point.stable,
        }
        for i, point in enumerate(found.equilibria)
        for name, w in zip(pop, point.sigma)
    ]
    return Equilibrium(
        weights=weights,
        nash_gap=float(found.nash_gap),
        equilibria=pd.DataFrame(rows, columns=EQUILIBRIA_COLUMNS),
        sigma=np.asarray(found.sigma, dtype=float),
    )


def table_from_function(
    population: Sequence[str], players: int, score: Callable[[str, tuple[str, ...]], float]
) -> PayoffTable:
    """An exact payoff table from a function: ``score(X, opponents)`` is strategy X's expected
    score at a table of ``players`` where the other seats hold ``opponents`` (a sorted tuple of
    names). For known games and checks; :func:`metagame` measures a real game's table.

    Returns:
        :class:`~simulator.metagame.PayoffTable` (``.population``, ``.players``, ``.matrix()``:
        the tidy table ``strategy, opponents, score``; ``.payoffs(sigma)``, ``.regret(sigma)``).

    Example:
        >>> beats = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
        >>> rps = table_from_function(
        ...     list(beats), 2, lambda x, o: 1.0 if beats[x] == o[0] else 0.0 if beats[o[0]] == x
        ...     else 0.5)
        >>> rps.matrix().head(3)
           strategy opponents  score
        0      rock      rock    0.5
        1     paper      rock    1.0
        2  scissors      rock    0.0
        >>> rps.payoffs([1, 0, 0])  # u(X, σ) with σ = always rock
        array([0.5, 1. , 0. ])
        >>> rps.regret([1, 0, 0])  # u(σ, σ) - u(X, σ): paper gains 0.5 against it
        array([ 0. , -0.5,  0.5])
    """
    from simulator.metagame import table_from_function as build

    if len(population) < 2 or len(set(population)) != len(population):
        raise UserError("population: at least 2 distinct strategy names")
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 8:
        raise UserError(f"players {players!r} (allowed: 2..8)")
    return build(list(population), players, score)


def equilibrium(table: PayoffTable, *, rng: np.random.Generator | None = None) -> Equilibrium:
    """The symmetric Nash equilibrium of a payoff table (support enumeration, every root
    checked by its Nash gap; see :mod:`simulator.metagame`).

    Args:
        table: from :func:`table_from_function` or a :class:`Metagame`'s ``table``.
        rng: the generator of the solver's random starts (``None``: a fixed one, seed 0, so the
            same table always gives the same answer).

    Returns:
        :class:`Equilibrium`.

    Raises:
        UserError: no mixture the solver tried has a Nash gap within 1e-4 (nothing is
            reported as an equilibrium without passing that check).

    Example:
        >>> beats = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
        >>> rps = table_from_function(
        ...     list(beats), 2, lambda x, o: 1.0 if beats[x] == o[0] else 0.0 if beats[o[0]] == x
        ...     else 0.5)
        >>> eq = equilibrium(rps)
        >>> eq.weights.round(3)
           strategy  weight  payoff  regret
        0      rock   0.333     0.5     0.0
        1     paper   0.333     0.5     0.0
        2  scissors   0.333     0.5     0.0
        >>> eq.nash_gap < 1e-9
        True
    """
    from simulator.metagame import NoEquilibriumFound
    from simulator.metagame import equilibrium as solve

    if not isinstance(table, PayoffTable):
        raise UserError(
            f"table: a {type(table).__name__} (allowed: a PayoffTable, from table_from_function "
            "or a Metagame's table)"
        )
    try:
        found = solve(table, rng if rng is not None else np.random.default_rng(0))
    except NoEquilibriumFound as exc:
        raise UserError(str(exc)) from None
    return _equilibrium(table, found)


#: columns of :attr:`Metagame.strategies` (the Nash solver)
METAGAME_COLUMNS = ("strategy", "weight", "regret", "regret_ci95_low", "regret_ci95_high")
#: columns of :attr:`Metagame.ranking` (α-Rank)
RANKING_COLUMNS = ("strategy", "rank", "mass")
#: columns of :attr:`Metagame.iterations`
ITERATION_COLUMNS = (
    "iteration",
    "best_response",
    "exploitability_lower_bound",
    "ci95_low",
    "ci95_high",
    "joined",
)


@dataclass(frozen=True)
class Metagame:
    """A population's measured payoff table and what the solver says of it.

    Attributes:
        strategies: with the Nash solver, one row per strategy: its equilibrium ``weight``, its
            ``regret`` and the regret's bootstrap 95 % interval (games resampled) (columns
            :data:`METAGAME_COLUMNS`); with α-Rank, the ranking (:data:`RANKING_COLUMNS`),
            which is never an equilibrium.
        equilibrium: the :class:`Equilibrium` (None with α-Rank).
        nash_gap_ci95: the Nash gap's bootstrap 95 % interval (what sampling noise allows).
        payoffs: the tidy payoff table ``strategy, opponents, score``.
        iterations: with ``iterate``, one row per best response tried
            (:data:`ITERATION_COLUMNS`).
        verdict: one line: the equilibrium's support, or "X dominates" only when it is shown.
        table: the :class:`~simulator.metagame.PayoffTable` (solve it again with
            :func:`equilibrium`).
        players, games_per_table, solver, seed; ``summary`` the JSON of ``broadside metagame``
            (without its provenance).
    """

    strategies: pd.DataFrame
    equilibrium: Equilibrium | None
    nash_gap_ci95: tuple[float, float] | None
    payoffs: pd.DataFrame
    iterations: pd.DataFrame
    verdict: str
    table: PayoffTable
    players: int
    games_per_table: int
    solver: str
    seed: int
    summary: dict[str, Any] = field(default_factory=dict)


@_user_errors
def metagame(
    game: str,
    population: Sequence[str],
    *,
    n: int,
    players: int | None = None,
    scenario: str | Scenario | None = None,
    solver: str = "nash",
    iterate: int = 0,
    tune_budget: int = 20_000,
    seed: int | None = None,
    jobs: int = 1,
    engine: str | None = None,
) -> Metagame:
    """Play every table of a population and solve its symmetric equilibrium.

    Args:
        population: 2 to 8 strategy names of the scenario.
        n: games per table (rounded up to whole seat-rotation slices: ``games_per_table``).
        players: table size (2..8; default: the default mix's).
        solver: ``"nash"`` (the equilibrium, checked by its Nash gap, with regrets) or
            ``"alpha-rank"`` (a ranking, never called an equilibrium).
        iterate: grow the population by up to this many best responses tuned against the
            equilibrium (each with ``tune_budget`` games per kind); one joins only when its gain
            is above 0 with 95 % confidence.

    Returns:
        :class:`Metagame`.

    Example:
        >>> m = metagame("hunt", ["runner", "hunter"], n=32, players=2, seed=1)
        >>> list(m.strategies.columns)
        ['strategy', 'weight', 'regret', 'regret_ci95_low', 'regret_ci95_high']
        >>> round(float(m.strategies["weight"].sum()), 9), m.equilibrium.nash_gap <= 1e-4
        (1.0, True)
    """
    from simulator.metagame import NoEquilibriumFound
    from simulator.metagame import metagame as run_metagame

    room = _room(game)
    sc = _scenario(game, scenario)
    if isinstance(population, str):
        population = [p.strip() for p in population.split(",")]
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise UserError(f"n {n!r} (allowed: games per table, at least 1)")
    try:
        res = run_metagame(
            room,
            sc,
            list(population),
            games=int(n),
            players=players,
            seed=seed,
            jobs=jobs,
            solver=solver,
            iterate=iterate,
            tune_budget=tune_budget,
            engine=engine,
        )
    except NoEquilibriumFound as exc:
        raise UserError(str(exc)) from None
    table = res.table
    pop = list(table.population)
    iterations = pd.DataFrame(
        [
            {
                "iteration": r["iteration"],
                "best_response": r["best_response"],
                "exploitability_lower_bound": r["exploitability_lower_bound"],
                "ci95_low": r["exploitability_lower_bound_ci95"][0],
                "ci95_high": r["exploitability_lower_bound_ci95"][1],
                "joined": r["joined"],
            }
            for r in res.iterations
        ],
        columns=ITERATION_COLUMNS,
    )
    if res.eq is None:
        strategies_df = pd.DataFrame(res.summary()["ranking"], columns=RANKING_COLUMNS)
        eq, gap_ci = None, None
    else:
        assert res.regret is not None
        strategies_df = pd.DataFrame(
            {
                "strategy": pop,
                "weight": res.eq.sigma,
                "regret": res.regret,
                "regret_ci95_low": [res.regret_ci[s][0] for s in pop],
                "regret_ci95_high": [res.regret_ci[s][1] for s in pop],
            },
            columns=METAGAME_COLUMNS,
        )
        eq = _equilibrium(table, res.eq)
        gap_ci = (float(res.gap_ci[0]), float(res.gap_ci[1])) if res.gap_ci else None
    summary = res.summary()
    if res.iterations:
        summary["iterations"] = res.iterations
    return Metagame(
        strategies=strategies_df,
        equilibrium=eq,
        nash_gap_ci95=gap_ci,
        payoffs=table.matrix(),
        iterations=iterations,
        verdict=res.verdict,
        table=table,
        players=table.players,
        games_per_table=table.games_per_table,
        solver=res.solver,
        seed=res.entropy,
        summary=summary,
    )


# --------------------------------------------------------------------------------------------
# Rules search


#: columns of :attr:`BalanceSearch.candidates`
CANDIDATE_COLUMNS = (
    "candidate",
    "target",
    "base",
    "value",
    "ci95_low",
    "ci95_high",
    "improvement",
    "improvement_low",
    "improvement_high",
    "params",
)


@dataclass(frozen=True)
class BalanceSearch:
    """Rules a balance search kept, each validated on fresh games.

    Attributes:
        candidates: one row per kept candidate and target (columns
            :data:`CANDIDATE_COLUMNS`): the base rules' value, the candidate's with its
            bootstrap 95 % interval, the improvement (the target's loss, base minus candidate)
            and its interval, and the numbers it changes (``key=value`` joined by ``, ``).
        before_after: the validation's measures under the base rules and each candidate (the
            table of ``broadside balance --out``, ``before_after.csv``).
        history: one row per candidate and rung of the search.
        note: why nothing was kept, when nothing was; ``seed`` the root seed; ``summary`` the
            JSON of ``broadside balance`` (each candidate's ``params`` make an overlay).
    """

    candidates: pd.DataFrame
    before_after: pd.DataFrame
    history: pd.DataFrame
    note: str | None
    seed: int
    summary: dict[str, Any] = field(default_factory=dict)


@_user_errors
def balance(
    game: str,
    targets: Sequence[str] | str,
    *,
    budget: int,
    params: Sequence[str] | None = None,
    players: int | None = None,
    scenario: str | Scenario | None = None,
    population: str | None = None,
    resolve: bool = False,
    validation_games: int | None = None,
    seed: int | None = None,
    jobs: int = 1,
    engine: str | None = None,
) -> BalanceSearch:
    """Search the game's own numbers (its declared searchable keys) for a more balanced game.

    Args:
        targets: ``seat-advantage[=X]``, ``strategy-spread[=X]``, ``nation-spread[=X]``,
            ``pirate-engagement=X``, ``game-length=LO..HI``, ``closeness[=X]``; several give a
            Pareto set.
        budget: games the search may play (validation comes on top).
        params: ``KEY[=LO..HI]`` of ``scenarios/<game>/balance/searchable.toml`` to change
            (``None``: every declared one).
        population: a saved population (``NAME`` or ``PATH.toml``) whose equilibrium seats the
            tables (default: the default mix).
        resolve: solve the population's equilibrium again under each kept candidate's rules.
        validation_games: fresh games per kept candidate (default: a quarter of the budget).

    Returns:
        :class:`BalanceSearch`.

    Example:
        >>> b = balance("express", "closeness", params=["boarding.success_on"], budget=896,
        ...             validation_games=320, seed=1)
        >>> list(b.candidates.columns) == list(CANDIDATE_COLUMNS)
        True
    """
    from scenarios.populations import load_population
    from simulator.balance import balance as run_balance
    from simulator.balance import parse_target

    room = _room(game)
    sc = _scenario(game, scenario)
    specs = [targets] if isinstance(targets, str) else list(targets)
    if not specs:
        raise UserError("targets: none given (allowed: one or more target specs)")
    parsed = [parse_target(t) for t in specs]
    pop = None
    if population is not None:
        pop = load_population(population, sc)
        sc = pop.scenario
    res = run_balance(
        room,
        sc,
        targets=parsed,
        budget=budget,
        params=list(params) if params is not None else [],
        players=players,
        population=pop,
        population_name=population,
        resolve=resolve,
        seed=seed,
        jobs=jobs,
        validation_games=validation_games,
        engine=engine,
    )
    return BalanceSearch(
        candidates=pd.DataFrame(res.candidate_rows(), columns=CANDIDATE_COLUMNS),
        before_after=res.before_after,
        history=res.history,
        note=res.note,
        seed=res.entropy,
        summary=res.summary(),
    )
