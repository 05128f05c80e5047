"""What moved from the readable Pirate's Cove engine onto the compiled one, checked against it.

These tests compare the compiled engine with the readable Python engine (``simulator.cove.game``,
``heuristic.py``) while it exists; they go with it (issue 28). What stays is pinned by
``tests/test_cove_card_value.py`` and ``tests/test_cove_fast_records.py`` from data recorded here
(``tests/data/cove_card_value_pairs.json``, ``tests/data/cove_decision_records.json``):

* the card value by paired replays (:mod:`simulator.cove.card_value`): the readable
  implementation's pairs (the Python game with ``card_swap``) and the compiled one's
  (``FastGames.play(..., swap=...)``) are the same table;
* the expected-value players' decision records: the compiled players' rows
  (``FastGames.play(..., decisions=True)``) are the readable ``HeuristicPlayer.record`` rows,
  value for value (every float ``==``).
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from scenarios.loader import load_scenario
from simulator.cove.fast.engine import FastGames
from simulator.cove.rules import CoveRules
from simulator.runner import Block
from tests.test_cove_card_value import CARD_VALUE_CASE, PAIRS_DATA
from tests.test_cove_fast_records import RECORDS_CASE, RECORDS_DATA

RULES = load_scenario(None, CoveRules).rules
#: tables of the records comparison: every EV kind, with v1 and random seats, 3 to 5 players
TABLES = (
    ("plunderer", "brawler", "tavern", "balanced"),
    ("balanced", "random", "tavern-v1"),
    ("brawler", "plunderer", "balanced-v1", "tavern", "random"),
    ("tavern", "balanced", "brawler"),
)


# ------------------------------------------------------------------ the readable references
def readable_card_value(rules, n, *, seed, strategies=None, n_players=None):
    """The card value as the readable engine computed it (the module before issue 28): the
    Python game with ``card_swap``, one deal per block, seats rotating with the deal."""
    from simulator.cove import card_value as cv
    from simulator.cove.api import resolve_strategies
    from simulator.cove.card_record import tavern_card_names
    from simulator.cove.dice import GameDice
    from simulator.cove.game import Game, ScenarioTables
    from simulator.cove.players import PlayerFactory
    from simulator.runner import run_chunks

    mix = list(strategies) if strategies else list(rules.default_mix)
    players = n_players or len(mix)
    if len(mix) != players:
        mix = [mix[i % len(mix)] for i in range(players)]
    mix = tuple(resolve_strategies(rules, mix, players))
    cards = tavern_card_names(rules)

    def play(factory, tables, names, block, swap):
        seated = [factory(names[s], block.rng("players", s)) for s in range(len(names))]
        game = Game(rules, seated, GameDice(block.rng("dice")), tables=tables, card_swap=swap)
        return game, game.play()

    def chunk(ch):
        factory, tables, rows = PlayerFactory(rules, {}), ScenarioTables(rules), []
        for block in ch.blocks():
            for deal in block.trials:
                seated = tuple(mix[(s + deal) % len(mix)] for s in range(len(mix)))
                _, base = play(factory, tables, seated, block, None)
                first: dict = {}
                for row in base.cards:
                    first.setdefault(row[2], row)
                for card in cards:
                    row = first.get(card)
                    if row is None:
                        continue
                    holder = row[0]
                    game, alt = play(factory, tables, seated, block, (holder, card))
                    assert game.card_swaps_done == 1
                    rows.append(
                        (deal, card, holder, seated[holder], row[3], base.seats[holder].win,
                         alt.seats[holder].win, base.seats[holder].fame, alt.seats[holder].fame)
                    )  # fmt: skip
        return pd.DataFrame(rows, columns=list(cv.PAIR_COLUMNS))

    run = run_chunks(chunk, n, seed=seed, block_size=cv.BLOCK_SIZE, n_jobs=1, quiet=True)
    pairs = pd.concat(run.results, ignore_index=True)
    summary = {"cards": cv.summarise(pairs, cards), "n_deals": n, "games": int(n + len(pairs))}
    return pairs, summary


def readable_records(rules, names, deal: Block) -> list[list[tuple]]:
    """Per seat, the readable ``HeuristicPlayer.record`` rows of the game on ``deal``."""
    from simulator.cove.api import play_one
    from simulator.cove.players import PlayerFactory

    made: list = []

    class Recording(PlayerFactory):
        def __call__(self, name, rng):
            player = super().__call__(name, rng)
            if hasattr(player, "record"):
                player.record = []
            made.append(player)
            return player

    play_one(rules, names, deal, factory=Recording(rules, {}))
    return [list(getattr(p, "record", None) or ()) for p in made]


def _same(a, b) -> bool:
    """Equal values: numbers by ``==`` (the readable record's empty sum is the int 0), text and
    None by value and type."""
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b and type(a) is type(b)


def test_card_value_pairs_equal_the_readable_implementation():
    """3 seat-rotated deals of the default mix and 2 of a five-seat table of every root: the
    pairs table and the summary of the compiled card value are the readable one's."""
    from simulator.cove.card_value import card_value

    five = ["tavern-v1", "random", "brawler", "balanced-v1", "plunderer"]
    for kw in (CARD_VALUE_CASE, {"n": 2, "seed": 7, "strategies": five}):
        want_pairs, want_summary = readable_card_value(RULES, **kw)
        pairs, summary = card_value(None, **kw)
        pd.testing.assert_frame_equal(pairs, want_pairs)
        assert {k: summary[k] for k in want_summary} == want_summary
        assert len(pairs) > 10 * kw["n"]


def test_the_pinned_pairs_are_the_readable_implementations():
    data = json.loads(PAIRS_DATA.read_text())
    want, _ = readable_card_value(RULES, **CARD_VALUE_CASE)
    assert data["case"] == CARD_VALUE_CASE
    assert [list(r) for r in want.itertuples(index=False)] == data["pairs"]


@pytest.mark.parametrize("names", TABLES, ids=lambda t: f"{len(t)}seats")
def test_decision_records_equal_the_readable_players(names):
    """Two deals per table: every seat's decision rows, in order, equal the readable player's
    record (floats compared with ``==``, None as NaN); recording changes no decision."""
    eng = FastGames(RULES, names)
    deals = [Block(index=i, start=i, size=1, entropy=2718) for i in range(2)]
    plain = eng.play([names] * 2, deals, trace=True)
    got = eng.play([names] * 2, deals, trace=True, decisions=True)
    assert (plain.seats == got.seats).all() and (plain.final_rs == got.final_rs).all()
    assert (plain.trace_rows == got.trace_rows).all()
    rows = eng.decision_rows(got, [0, 1], [0, 0], [names] * 2)
    assert len(rows) > 100
    for gi, deal in enumerate(deals):
        want = readable_records(RULES, names, deal)
        for seat in range(len(names)):
            mine = [r[3:] for r in rows if r[0] == gi and r[4] == seat]
            theirs = [tuple(r) for r in want[seat]]
            assert len(mine) == len(theirs), (gi, seat)
            for a, b in zip(mine, theirs, strict=True):
                assert all(_same(x, y) for x, y in zip(a, b, strict=True)), (a, b)


def test_the_pinned_records_are_the_readable_players():
    """The pinned sample kept when the readable engine goes is the readable players' record."""
    data = json.loads(RECORDS_DATA.read_text())
    names, seed = tuple(RECORDS_CASE["strategies"]), RECORDS_CASE["seed"]
    assert data["strategies"] == list(names) and data["seed"] == seed
    want = readable_records(RULES, names, Block(index=0, start=0, size=1, entropy=seed))
    rows = [list(r) for seat in want for r in seat]
    pinned = [list(r) for r in data["rows"]]
    assert len(rows) == len(pinned)
    for a, b in zip(rows, pinned, strict=True):
        assert all(_same(x, y) for x, y in zip(a, b, strict=True)), (a, b)
