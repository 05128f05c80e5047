"""The search player (kind ``rollout``, simulator/cove/rollout.py): what it may know, where its
randomness comes from, and that its rollouts play the real month."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from scenarios.loader import FrozenMap, load_scenario
from scenarios.strategies import StrategyDecl, param_space, with_strategies
from simulator.cove.api import play_one
from simulator.cove.dice import GameDice
from simulator.cove.game import Game, ScenarioTables
from simulator.cove.players import make_player
from simulator.cove.rollout import RolloutPlayer, determinize, unseen_cards
from simulator.cove.rules import CoveRules
from simulator.runner import Block

SCEN = load_scenario(None, CoveRules)
RULES = SCEN.rules
TABLES = ScenarioTables(RULES)


def _game_at_navigation(seed: int, months: int = 3) -> Game:
    """A real game (default mix) played up to the navigation of month ``months + 1``."""
    players = [
        make_player(RULES, n, np.random.default_rng(seed + i))
        for i, n in enumerate(RULES.default_mix)
    ]
    g = Game(RULES, players, GameDice(np.random.default_rng(seed)))
    g.setup()
    for m in range(1, months + 1):
        g.play_month(m)
    g.month = months + 1
    g.first = (g.month - 1) % g.n
    g.phase_treasure()
    g.phase = "navigation"
    return g


def test_rollout_kind_is_declared_with_k_and_extends_balanced():
    space = param_space(RULES.kinds, "rollout")
    assert space["rollouts"].type == "int" and space["rollouts"].default == 8
    assert {"rollout_candidates", "rollout_opponents", "fight_bias"} <= set(space)
    assert isinstance(make_player(RULES, "rollout", np.random.default_rng(0)), RolloutPlayer)


def test_determinized_games_show_the_same_public_board_and_conserve_cards():
    g = _game_at_navigation(5)
    obs = g.observe(0, "navigate", {"lookout": False})
    pl = make_player(RULES, "rollout", np.random.default_rng(1))
    for seed in range(5):
        players = pl._rollout_players(obs, np.random.default_rng(seed), 2)
        d = determinize(RULES, TABLES, obs, players, np.random.default_rng(seed))
        seen = d.observe(0, "navigate", {"lookout": False})
        for field in ("ships", "treasure", "black_ships", "bank_gold", "bank_chests", "hand"):
            assert getattr(seen, field) == getattr(obs, field), field
        assert seen.tavern_deck_size == obs.tavern_deck_size
        assert d.card_count() == g.num_tavern_cards  # every card somewhere, none invented
        hands = [sorted(s.hand) for s in d.seats[1:]]
        assert [len(h) for h in hands] == [len(s.hand) for s in g.seats[1:]]
        assert not any(c.startswith("parrot:") for h in hands for c in h)


def test_unseen_cards_leave_out_only_what_the_player_can_see():
    g = _game_at_navigation(7)
    obs = g.observe(1, "navigate", {"lookout": False})
    pool = Counter(unseen_cards(TABLES, obs))
    full = Counter(TABLES.tavern_deck)
    seen = Counter(obs.hand)
    for s in obs.ships:
        if s.parrot:
            seen[f"parrot:{s.parrot}"] += 1
        seen["artisan"] += len(s.artisans)
    assert pool == full - seen
    # the opponents' true hands are not known: they are still in the pool
    others = Counter(c for s in g.seats if s.index != 1 for c in s.hand)
    assert not others - pool


def test_decisions_depend_on_the_observation_and_the_players_own_stream_only():
    """The same observation and the same player seed give the same island, whatever the hidden
    state behind it; the engine's dice are never drawn (the search has its own generator)."""
    g = _game_at_navigation(11)
    obs = g.observe(2, "navigate", {"lookout": False})
    a = make_player(RULES, "rollout", np.random.default_rng(3))
    b = make_player(RULES, "rollout", np.random.default_rng(3))
    state = g.dice.rng.bit_generator.state
    pick = a.act("navigate", obs, tuple(range(6)))
    assert g.dice.rng.bit_generator.state == state
    # another hidden state behind the same board: opponents' hands swapped with deck cards
    for s in g.seats:
        if s.index != 2 and s.hand and g.tavern_deck:
            s.hand[0], g.tavern_deck[-1] = g.tavern_deck[-1], s.hand[0]
    g.tavern_deck.reverse()
    g._views = [None] * g.n
    other = g.observe(2, "navigate", {"lookout": False})
    assert other == obs
    assert b.act("navigate", other, tuple(range(6))) == pick
    # the player's own stream is not advanced by the search (spawned child generator)
    c = make_player(RULES, "rollout", np.random.default_rng(3))
    before = c.rng.bit_generator.state
    c.act("navigate", obs, tuple(range(6)))
    after_one = c.rng.bit_generator.state
    d = make_player(RULES, "rollout", np.random.default_rng(3))
    d.island_details(obs)  # the heuristic values alone draw the same noise
    assert after_one == d.rng.bit_generator.state != before


def test_every_candidate_sees_the_same_rollouts():
    """Common random numbers: for one seed the opponents' picks are the same whatever our
    island, and simulating one island twice gives the same value."""
    g = _game_at_navigation(13)
    obs = g.observe(0, "navigate", {"lookout": False})
    p = make_player(RULES, "rollout", np.random.default_rng(4))
    picks = p.opponent_picks(obs, 99)
    assert picks[0] is None and all(x is not None for x in picks[1:])
    assert p.simulate(obs, 3, 99, picks) == p.simulate(obs, 3, 99)


@pytest.mark.parametrize("k", [1, 2])
def test_rollout_games_are_legal_and_conserve_everything(k):
    rules = with_strategies(
        SCEN, {"quick": StrategyDecl(kind="rollout", params=FrozenMap({"rollouts": k}))}
    ).rules
    game, res = play_one(rules, ["quick", "brawler", "tavern"], Block(0, 0, 1, k), check=True)
    assert game.month == 12 and sum(s.win for s in res.seats) == pytest.approx(1.0)
    assert game.players[0].k == k
