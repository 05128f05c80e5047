"""The full game in readable mode: the setup's black ships, and legality -- every decision the
engine asks (``game._ask``) is one of the legal choices it offers, and a choice outside them
stops the game (``E_ILLEGAL``)."""

from __future__ import annotations

import pytest

from scenarios.loader import load_scenario
from simulator.cove.fast import game, players
from simulator.cove.fast.engine import FastGameError, FastGames
from simulator.cove.rules import CoveRules
from simulator.runner import Block
from tests.cove_table import Script, Table

RULES = load_scenario(None, CoveRules).rules
NAMES = ("plunderer", "brawler", "tavern", "balanced", "random")


@pytest.mark.parametrize(("n", "count"), [(3, 2), (4, 1), (5, 1)])
def test_three_players_have_two_black_ships_four_have_one(monkeypatch, n, count):
    t = Table(monkeypatch, n, scripts=[Script() for _ in range(n)], shuffle=True, seed=n)
    t.setup()
    ships = t.black_ships()
    assert len(ships) == count
    assert [isl for isl, _, _ in ships] == [0, 3][:count]  # Tavern, then Cannons
    assert len({key for _, key, _ in ships}) == count and None not in {k for _, k, _ in ships}
    assert len(t.pirate_deck()) == 5 - count  # the Royal Navy is not in the pirate deck
    t.done()


def test_illegal_action_is_refused(monkeypatch):
    monkeypatch.setattr(players, "navigate", lambda tab, gs, oc, seat, *scratch: 9)
    names = ("plunderer-v1", "random", "random", "tavern-v1")
    eng = FastGames(RULES, names)
    with pytest.raises(FastGameError, match=r"month 1, phase navigation: seat 0 chose 9 for"):
        eng.play([names], [Block(0, 0, 1, 0)])


def test_only_legal_actions_are_taken_by_every_strategy(monkeypatch):
    """Every decision of whole games of every kind (3, 4 and 5 players) is checked against the
    legal choices the engine offers, besides the engine's own check."""
    asked = {}
    ask = game._ask

    def checked(gs, seat, kind, legal, nl, choice):
        assert choice in [int(x) for x in legal[:nl]], (seat, kind, choice)
        asked[seat] = asked.get(seat, 0) + 1
        return ask(gs, seat, kind, legal, nl, choice)

    monkeypatch.setattr(game, "_ask", checked)
    for n in (3, 4, 5):
        names = NAMES[:n]
        asked.clear()
        FastGames(RULES, names).play([names], [Block(n, n, 1, 11)], check=True)
        assert sorted(asked) == list(range(n)) and min(asked.values()) > 12, asked
