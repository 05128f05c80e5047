"""The expected-value players' decision records, compiled (simulator.cove.fast.records).

``FastGames.play(..., decisions=True)`` keeps, per navigation, one row per island weighed and, per
flee-or-stand choice, a stand and a flee row (``tables.RECORD_COLUMNS``). The pinned sample was
recorded from the readable ``HeuristicPlayer.record`` before the readable engine went (issue 28;
``tests/test_cove_readable_twins.py`` compares the two while both exist); recording must change
no decision, no result and no random stream. Every check is exact.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from scenarios.loader import load_scenario
from simulator.cove.fast.engine import FastGames
from simulator.cove.rules import CoveRules
from simulator.cove.tables import RECORD_COLUMNS
from simulator.runner import Block

RULES = load_scenario(None, CoveRules).rules
#: the pinned sample: one deal of this table, every seat's rows in seat order
RECORDS_CASE = {"strategies": ["brawler", "tavern", "balanced-v1", "plunderer"], "seed": 31}
RECORDS_DATA = Path(__file__).resolve().parent / "data" / "cove_decision_records.json"


def _same(a, b) -> bool:
    """Equal values: numbers by ``==`` (the readable record's empty sum is the int 0), text and
    None by value and type."""
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b and type(a) is type(b)


def test_the_pinned_records_are_written_again():
    """The compiled players' rows of the pinned deal are the recorded ones, float for float."""
    data = json.loads(RECORDS_DATA.read_text())
    names = tuple(RECORDS_CASE["strategies"])
    assert data["strategies"] == list(names) and data["seed"] == RECORDS_CASE["seed"]
    assert data["columns"] == list(RECORD_COLUMNS)
    eng = FastGames(RULES, names)
    ch = eng.play([names], [Block(0, 0, 1, RECORDS_CASE["seed"])], decisions=True)
    rows = eng.decision_rows(ch, [0], [0], [names])
    by_seat = sorted(rows, key=lambda r: r[4])  # stable: each seat's rows in decision order
    got = [list(r[3:]) for r in by_seat]
    assert len(got) == len(data["rows"]) > 200
    for a, b in zip(got, data["rows"], strict=True):
        assert all(_same(x, y) for x, y in zip(a, b, strict=True)), (a, b)


@pytest.mark.parametrize(
    "names",
    [
        ("plunderer", "brawler", "tavern", "balanced"),
        ("rollout", "random", "brawler-v1"),
        ("tavern", "balanced", "rollout", "plunderer-v1", "brawler"),
    ],
    ids=lambda t: ",".join(t),
)
def test_recording_changes_no_decision_result_or_stream(names):
    """The same deals with and without records: the same decisions, results, battles, card
    records and final stream states (the search player included)."""
    eng = FastGames(RULES, names)
    deals = [Block(index=i, start=i, size=1, entropy=99) for i in range(3)]
    a = eng.play([names] * 3, deals, trace=True, record=True)
    b = eng.play([names] * 3, deals, trace=True, record=True, decisions=True)
    for x, y in ((a.seats, b.seats), (a.win, b.win), (a.log, b.log), (a.rec, b.rec)):
        assert np.array_equal(x, y)
    assert np.array_equal(a.trace_rows, b.trace_rows)
    assert np.array_equal(a.final_rs, b.final_rs)
    assert len(a.decisions) == 0 and len(b.decisions) > 100


def test_every_navigation_is_recorded_once_with_its_choice():
    """Per EV seat and month: six navigation rows (islands 0..5), one chosen, the island the
    trace shows it sailed to; battle rows come in stand/flee pairs, one chosen."""
    names = ("balanced", "plunderer", "random", "rollout")
    eng = FastGames(RULES, names)
    deals = [Block(index=i, start=i, size=1, entropy=7) for i in range(2)]
    ch = eng.play([names] * 2, deals, trace=True, decisions=True)
    rows = eng.decision_rows(ch, [0, 1], [0, 0], [names] * 2)
    cols = {c: 3 + i for i, c in enumerate(RECORD_COLUMNS)}
    for gi in range(2):
        sailed = [d for d in ch.trace(gi) if d[1] == "navigate"]
        for seat, name in enumerate(names):
            nav = [r for r in rows if r[0] == gi and r[cols["seat"]] == seat]
            nav = [r for r in nav if r[cols["decision"]] == "navigate"]
            if name == "random":
                assert nav == []
                continue
            months = sorted({r[cols["month"]] for r in nav})
            assert months == list(range(1, 13))
            chosen = []
            for m in months:
                here = [r for r in nav if r[cols["month"]] == m]
                assert [r[cols["option"]] for r in here] == list(range(6))
                assert sum(r[cols["chosen"]] for r in here) == 1
                chosen += [r[cols["option"]] for r in here if r[cols["chosen"]]]
            assert chosen == [d[2] for d in sailed if d[0] == seat]
        fights = [r for r in rows if r[0] == gi and r[cols["decision"]] == "battle"]
        assert len(fights) % 2 == 0
        for stand, flee in zip(fights[::2], fights[1::2], strict=True):
            assert (stand[cols["option"]], flee[cols["option"]]) == ("stand", "flee")
            assert stand[cols["chosen"]] + flee[cols["chosen"]] == 1
