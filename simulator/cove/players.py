"""Pirate's Cove players: policy objects whose kind and parameters come from the scenario.

A player answers the game's decisions through ``act(kind, obs, legal)`` (``obs`` is an
:class:`~simulator.cove.observation.Observation`: own hand and public board only) and the battle
engine's questions as a :class:`~simulator.cove.combat_policies.BattlePolicy` (``battle_card``,
``overboard_chests``, ``broadside``; they see a public ``BattleView`` and their own battle cards).
As the Royal Navy's controller it answers ``RoyalNavyPolicy.target``.

Kinds and parameters are scenario data in the shared schema of :mod:`scenarios.strategies`
(``[kinds.*]`` in ``scenarios/cove/standard.toml``: every parameter with its type, range, default
and doc; ``[strategies.*]``: a kind plus values). :func:`make_player` resolves a strategy's full
parameter vector with :func:`scenarios.strategies.resolve_params` and builds the class of the
nearest implemented kind of its ``extends`` chain (:data:`PLAYER_CLASSES`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from scenarios.strategies import kind_chain, resolve_params, unknown_name_message
from simulator.cove.combat_policies import BattlePolicy, Broadside, RoyalNavyPolicy
from simulator.cove.heuristic import HeuristicPlayer
from simulator.cove.players_v1 import V1_BASE_PARAMS, HeuristicPlayerV1
from simulator.cove.rollout import RolloutPlayer
from simulator.cove.rules import CoveRules, StrategyDecl
from simulator.errors import UserError

#: the kinds the standard scenario names in its strategies (docs/rules-cove.md, "Players")
KINDS = (
    "plunderer",
    "brawler",
    "tavern",
    "balanced",
    "rollout",
    "plunderer-v1",
    "brawler-v1",
    "tavern-v1",
    "balanced-v1",
    "random",
)


def _v1_player(name, kind, params, rules, rng, odds_cache):
    return HeuristicPlayerV1(name, kind, params, rules, rng, odds_cache)


def _random_player(name, kind, params, rules, rng, odds_cache):
    # the random kind is the old code's random branch (same draws, so the goldens replay)
    return HeuristicPlayerV1(name, "random", V1_BASE_PARAMS, rules, rng, odds_cache)


#: implemented kind -> constructor ``(name, kind, params, rules, rng, odds_cache)``; a declared
#: kind is played by the first kind of its extends chain found here
PLAYER_CLASSES: dict[str, Callable[..., Any]] = {
    "rollout": RolloutPlayer,
    "heuristic": HeuristicPlayer,
    "heuristic-v1": _v1_player,
    "random": _random_player,
}


def strategy_params(rules: CoveRules, name: str) -> dict[str, Any]:
    """The full parameter vector of strategy ``name`` (kind defaults overlaid with its values)."""
    return resolve_params(rules.kinds, rules.strategies[name], f"strategies.{name}")


def unknown_strategy(rules: CoveRules, name: str, where: str = "--strategies") -> UserError:
    """The one-line error for a strategy name the scenario does not have (with "did you mean")."""
    return UserError(f"{where}: {unknown_name_message('strategy', name, rules.strategies)}")


def make_player(
    rules: CoveRules, name: str, rng: np.random.Generator, odds_cache: dict | None = None
):
    """The strategy ``name`` of the scenario's ``[strategies.*]`` table.

    ``odds_cache``: a dict shared by players using the same rules (exact odds memo; optional).
    """
    strat = rules.strategies.get(name)
    if strat is None:
        raise unknown_strategy(rules, name)
    return _build(rules, name, strat, rng, odds_cache)


def _build(rules: CoveRules, name: str, strat: StrategyDecl, rng, odds_cache):
    params = resolve_params(rules.kinds, strat, f"strategies.{name}")
    for k in kind_chain(rules.kinds, strat.kind, f"strategies.{name}.kind"):
        ctor = PLAYER_CLASSES.get(k)
        if ctor is not None:
            return ctor(name, strat.kind, params, rules, rng, odds_cache)
    raise UserError(
        f"strategies.{name}.kind: {strat.kind!r} extends no implemented kind "
        f"(allowed roots: {', '.join(PLAYER_CLASSES)})"
    )


class PlayerFactory:
    """Makes the players of many games with the same rules: each strategy's parameters are read
    and checked once (:func:`make_player`), then every player is a copy with its own generator."""

    def __init__(self, rules: CoveRules, odds_cache: dict | None = None):
        self.rules = rules
        self.odds_cache: dict = {} if odds_cache is None else odds_cache
        self._models: dict[str, Any] = {}

    def __call__(self, name: str, rng: np.random.Generator):
        model = self._models.get(name)
        if model is None:
            model = self._models[name] = make_player(self.rules, name, rng, self.odds_cache)
        return model.with_rng(rng)


def check_strategies(rules: CoveRules) -> None:
    """Every ``[strategies.*]`` entry resolves to a player (kinds and values are validated when
    the scenario loads; this also checks that the code implements each kind)."""
    for name, strat in rules.strategies.items():
        resolve_params(rules.kinds, strat, f"strategies.{name}")
        if not any(k in PLAYER_CLASSES for k in kind_chain(rules.kinds, strat.kind)):
            raise UserError(f"strategies.{name}.kind: {strat.kind!r} extends no implemented kind")


# ---------------------------------------------------------------------- golden recording / replay
def _broadside_json(b: Broadside) -> list:
    return [bool(b.flee), b.target, b.section, list(b.volley)]


class RecordingBattlePolicy(BattlePolicy):
    """Wraps a player's battle policy and appends every answer to the game trace."""

    def __init__(self, player, seat: int, trace: list):
        self.player, self.seat, self.trace = player, seat, trace

    def battle_card(self, view, hand):
        c = self.player.battle_card(view, hand)
        self.trace.append([self.seat, "battle_card", c])
        return c

    def overboard_chests(self, view, chests):
        n = int(self.player.overboard_chests(view, chests))
        self.trace.append([self.seat, "overboard_chests", n])
        return n

    def broadside(self, view, hand):
        b = self.player.broadside(view, hand)
        self.trace.append([self.seat, "broadside", _broadside_json(b)])
        return b


class RecordingNavyPolicy(RoyalNavyPolicy):
    def __init__(self, player, seat: int, trace: list):
        self.inner, self.seat, self.trace = player.navy_policy(), seat, trace

    def target(self, view):
        t = self.inner.target(view)
        self.trace.append([self.seat, "navy_target", [t[0], t[1]]])
        return t


class ReplayCursor:
    """The recorded decisions of a golden game, consumed in order by every :class:`ReplayPlayer`."""

    def __init__(self, trace: list):
        self.trace = trace
        self.i = 0

    def next(self, seat: int, kind: str):
        if self.i >= len(self.trace):
            raise AssertionError(
                f"replay: seat {seat} asked for {kind} after the last recorded decision"
            )
        s, k, choice = self.trace[self.i]
        if (s, k) != (seat, kind):
            raise AssertionError(
                f"replay step {self.i}: recorded seat {s} {k}, engine asks seat {seat} {kind}"
            )
        self.i += 1
        return choice


def _tuple(x):
    return tuple(_tuple(v) for v in x) if isinstance(x, list) else x


class ReplayPlayer(BattlePolicy):
    """Answers every decision from a recorded trace (golden playthroughs)."""

    def __init__(self, seat: int, cursor: ReplayCursor):
        self.seat, self.cursor = seat, cursor

    def act(self, kind, obs, legal):
        return _tuple(self.cursor.next(self.seat, kind))

    def battle_card(self, view, hand):
        return self.cursor.next(self.seat, "battle_card")

    def overboard_chests(self, view, chests):
        return self.cursor.next(self.seat, "overboard_chests")

    def broadside(self, view, hand):
        flee, target, section, volley = self.cursor.next(self.seat, "broadside")
        return Broadside(flee=flee, target=target, section=section, volley=tuple(volley))

    def navy_policy(self):
        cursor, seat = self.cursor, self.seat

        class _P(RoyalNavyPolicy):
            def target(self, view):
                t = cursor.next(seat, "navy_target")
                return t[0], t[1]

        return _P()
