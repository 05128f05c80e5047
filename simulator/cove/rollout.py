"""A search player for Pirate's Cove (kind ``rollout``, issue 13 point 3).

For navigation the player simulates the rest of the month ``rollouts`` (K) times for each
candidate island (the ``rollout_candidates`` best islands by the heuristic values of
:class:`~simulator.cove.heuristic.HeuristicPlayer`) and sails where its expected value at the end
of the month is highest. Every other decision is the heuristic player's (``kind = "rollout"``
extends ``balanced``: it has all its parameters).

One rollout (:func:`determinize`, :meth:`RolloutPlayer.simulate`):

* **Hidden information resampled from what the player can know.** Its own hand and the public
  board (ships, gold, chests, fame, parrots, Artisans, face-up Treasure cards, black ships and
  their cards, Treasure maps and Plunder cards in play, the bank, the sizes of hands and decks,
  the pirate discard) are copied; each opponent's hand is drawn from the cards the player has not
  seen (the scenario's Tavern deck minus its own hand and the parrots and Artisans on the table),
  the Tavern deck is the rest in random order, the Legendary Pirate deck the unseen pirate cards.
* **Opponents played by a model the player can have**: each opponent is a fresh player of one
  of the default mix's strategies (``rollout_opponents = "mix"``: drawn at random per rollout;
  ``"balanced"``: all balanced), never the opponent's true strategy object. Announced choices
  (Lookout) are kept; the others choose by their model on the determinized board.
* **The month is played by the game engine itself** (:class:`~simulator.cove.game.Game`: the
  end-of-navigation events, combat, plunder, island effects, black ships and cargo), our ship by
  a copy of this player's heuristic with its island forced.
* **Value at the end of the month**: fame, plus the fame cards in hand, plus gold and chests at
  the values :meth:`HeuristicPlayer.holding_values` gives them (nothing after the last safe
  burial), Tavern cards at ``w_card``, ring levels up to the targets at ``0.75 * prio``.

Randomness: one generator per game spawned from the player's own generator
(``Generator.spawn``: it does not advance the player's stream), from which each decision draws
one seed per rollout. A seed fixes the deal (hidden hands and decks), the opponents' models and
their (secret, simultaneous) island choices, and the dice of the rest of the month; every
candidate island is simulated on the same K seeds (common random numbers), so differences
between islands are not sampling noise of the deals and dice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from simulator.cove.dice import GameDice
from simulator.cove.game import NAV_ISLANDS, Game, ScenarioTables, Seat
from simulator.cove.heuristic import HeuristicPlayer
from simulator.cove.observation import Observation
from simulator.cove.rules import CoveRules

#: the opponent models of ``rollout_opponents``
OPPONENT_MODELS = ("mix", "balanced")
LEVEL_WEIGHT = 0.75  # value of a ring level up to the target, times its section's prio


class _Forced:
    """Our ship in a rollout: the heuristic copy of the player, with its island forced."""

    def __init__(self, inner: HeuristicPlayer, island: int):
        self.inner, self.island = inner, island

    def act(self, kind: str, obs: Observation, legal: tuple) -> Any:
        if kind == "navigate":
            return self.island
        return self.inner.act(kind, obs, legal)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def unseen_cards(tables: ScenarioTables, obs: Observation) -> list[str]:
    """Every Tavern card the player has not seen: the scenario's deck minus its own hand and the
    parrots and Artisans on the ships (sorted: the order is the rollout generator's to draw)."""
    pool: dict[str, int] = {}
    for c in tables.tavern_deck:
        pool[c] = pool.get(c, 0) + 1
    seen = list(obs.hand)
    for s in obs.ships:
        if s.parrot is not None:
            seen.append(f"parrot:{s.parrot}")
        seen += ["artisan"] * len(s.artisans)
    for c in seen:
        if pool.get(c, 0) > 0:
            pool[c] -= 1
    return sorted(c for c, k in pool.items() for _ in range(k))


def determinize(
    rules: CoveRules,
    tables: ScenarioTables,
    obs: Observation,
    players: list,
    rng: np.random.Generator,
) -> Game:
    """A game at the navigation of ``obs.month`` consistent with ``obs``; the hidden parts drawn
    from ``rng`` (see the module docstring)."""
    g = Game(rules, players, GameDice(rng), tables=tables)
    mat = rules.ship_mat
    g.month = obs.month
    if rules.decisions.first_player == "rotate_monthly":
        g.first = (obs.month - 1) % g.n
    pool = unseen_cards(tables, obs)
    pool = [pool[i] for i in rng.permutation(len(pool)).tolist()]
    parrots = [c for c in pool if c.startswith("parrot:")]  # never held: they sit on ships
    pool = [c for c in pool if not c.startswith("parrot:")]
    seats = []
    for sv in obs.ships:
        s = Seat(sv.seat, mat.start_position, sv.gold, sv.fame)
        s.ring = list(sv.ring)
        s.chests = sv.chests
        s.parrot = sv.parrot
        s.parrot_wounds = sv.parrot_wounds
        s.artisans = dict(sv.artisans)
        s.location = sv.location
        if sv.seat == obs.seat:
            s.hand = list(obs.hand)
        else:
            s.hand, pool = pool[: sv.hand_size], pool[sv.hand_size :]
        seats.append(s)
    pool += parrots
    pool = [pool[i] for i in rng.permutation(len(pool)).tolist()]
    g.seats = seats
    g._views = [None] * g.n
    g.face_up = list(obs.treasure)
    g.stacks = [[] for _ in range(5)]
    g.black_ships = [[isl, key, False] for isl, key in obs.black_ships]
    seen_pirates = {key for _isl, key in obs.black_ships if key is not None}
    seen_pirates |= set(obs.pirate_discard)
    deck = [k for k in tables.pirate_deck if k not in seen_pirates]
    deck = [deck[i] for i in rng.permutation(len(deck)).tolist()][: obs.pirate_deck_size]
    g.pirate_deck = deck
    g.pirate_discard = list(obs.pirate_discard)
    g.tavern_deck = pool[: obs.tavern_deck_size]
    g.tavern_discard = pool[obs.tavern_deck_size :]
    g.bank_gold, g.bank_chests = obs.bank_gold, obs.bank_chests
    g.total_gold = g.bank_gold + sum(s.gold for s in seats)
    g.total_chests = g.bank_chests + sum(s.chests for s in seats)
    g.map_islands = list(obs.treasure_maps)
    g.plunder = dict(obs.plunder)
    g.phase = "navigation"
    return g


class RolloutPlayer(HeuristicPlayer):
    """The search player (module docstring). Parameters: the heuristic's, plus ``rollouts``
    (K), ``rollout_candidates`` and ``rollout_opponents``."""

    def __init__(
        self,
        name: str,
        kind: str,
        params: Mapping[str, Any],
        rules: CoveRules,
        rng: np.random.Generator,
        odds_cache: dict | None = None,
    ):
        super().__init__(name, kind, params, rules, rng, odds_cache)
        self.k = int(self.p["rollouts"])
        self.n_candidates = int(self.p["rollout_candidates"])
        self.opponent_model = self.p["rollout_opponents"]
        self.tables = ScenarioTables(rules)
        self._self_model = HeuristicPlayer(name, kind, params, rules, rng, self._cache)
        from scenarios.strategies import kind_chain
        from simulator.cove.players import make_player

        names = [  # the default mix's heuristic kinds (a rollout never models a rollout)
            n
            for n in rules.default_mix
            if "rollout" not in kind_chain(rules.kinds, rules.strategies[n].kind)
        ]
        if self.opponent_model == "balanced":
            names = ["balanced"]
        self._model_names = tuple(names)
        self._models = {n: make_player(rules, n, rng, self._cache) for n in names}
        self._search_rng = rng.spawn(1)[0]

    def with_rng(self, rng: np.random.Generator) -> RolloutPlayer:
        twin = super().with_rng(rng)
        twin._search_rng = rng.spawn(1)[0]
        return twin

    # ------------------------------------------------------------------ navigation
    def _navigate(self, obs: Observation, legal: tuple) -> int:
        details = self.island_details(obs)
        order = sorted(legal, key=lambda i: -details[i]["value"])
        cands = order[: self.n_candidates]
        seeds = self._search_rng.integers(0, 2**63, size=self.k)
        values = dict.fromkeys(cands, 0.0)
        if len(cands) > 1:
            for seed in seeds:
                picks = self.opponent_picks(obs, int(seed))  # secret: the same for every island
                for c in cands:
                    values[c] += self.simulate(obs, c, int(seed), picks) / self.k
        best = max(cands, key=lambda c: values[c])  # the heuristic's order breaks ties
        hv_gold, hv_chest, last_bury = self.holding_values(obs)
        self._stake = self.alone_values(obs, hv_gold, hv_chest, last_bury)[best]
        self._hv_chest = hv_chest
        if self.record is not None:
            for d in details:
                i = d["island"]
                self.record.append(
                    (
                        obs.month,
                        obs.seat,
                        "navigate",
                        i,
                        values.get(i, d["value"]),
                        int(i == best),
                        d["npc"],
                        d["p_alone"],
                        d["p_sink_lone"],
                        d["p_sink_company"],
                        d["expected_opponents"],
                    )
                )
        return best

    def _rollout_players(self, obs: Observation, rng: np.random.Generator, island: int | None):
        """One rollout's players: our heuristic copy (island forced) and the opponents' models,
        each model drawn from ``rng``, each player with its own child generator."""
        kids = rng.spawn(len(obs.ships))
        players: list = []
        for sv in obs.ships:
            if sv.seat == obs.seat:
                players.append(_Forced(self._self_model.with_rng(kids[sv.seat]), island or 0))
            else:
                name = self._model_names[int(rng.integers(len(self._model_names)))]
                players.append(self._models[name].with_rng(kids[sv.seat]))
        return players

    def opponent_picks(self, obs: Observation, seed: int) -> list[int | None]:
        """The islands the opponents' models choose in rollout ``seed`` (navigation is secret and
        simultaneous, so this does not depend on our island; announced choices kept)."""
        deal, models, _month = np.random.default_rng(seed).spawn(3)
        g = determinize(
            self.rules, self.tables, obs, self._rollout_players(obs, models, None), deal
        )
        chosen = list(obs.chosen)
        g._open_board()
        try:
            for si in range(g.n):
                if si != obs.seat and chosen[si] is None:
                    chosen[si] = g.ask(si, "navigate", NAV_ISLANDS, {"lookout": False})
        finally:
            g._close_board()
        return chosen

    def simulate(self, obs: Observation, island: int, seed: int, picks=None) -> float:
        """One rollout of the month with our ship sent to ``island`` (module docstring): the
        same deal and models as :meth:`opponent_picks` for ``seed``, fresh generators for the
        rest of the month (the same for every island)."""
        if picks is None:
            picks = self.opponent_picks(obs, seed)
        deal, models, month = np.random.default_rng(seed).spawn(3)
        players = self._rollout_players(obs, models, island)
        for p, kid in zip(players, month.spawn(len(players))):
            if isinstance(p, _Forced):
                p.inner = p.inner.with_rng(kid)
            else:
                p.rng = kid
        g = determinize(self.rules, self.tables, obs, players, deal)
        chosen = list(picks)
        chosen[obs.seat] = island
        g.chosen = chosen
        for s in g.seats:
            s.location = chosen[s.index]
        g._end_of_navigation_events()
        g.phase_combat()
        g.phase_plunder()
        g.phase_island_effects()
        g.phase_black_ships_and_cargo()
        return self.state_value(obs, g.seats[obs.seat])

    def state_value(self, obs: Observation, s: Seat) -> float:
        """Our value at the end of the month (fame units; module docstring)."""
        hv_gold, hv_chest, _last = self.holding_values(obs)
        chests = s.chests
        if s.parrot is None or not self._parrots[s.parrot].unlimited_chests:
            chests = min(chests, self.value(s.ring, 0))
        v = s.fame + hv_gold * s.gold + hv_chest * chests
        for c in s.hand:
            v += int(c.split(":")[1]) if c.startswith("fame:") else self.p["w_card"]
        for sec in range(4):
            v += LEVEL_WEIGHT * self.prio[sec] * min(s.ring[sec], self.target[sec])
        return v
