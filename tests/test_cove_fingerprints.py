"""The one Pirate's Cove engine still plays the games it played when the readable Python engine
was retired (``tests/cove_fingerprint.py``: 600 random tables, every compiled strategy, 3-5
players, both Artisan switches; the decisions, the results, the battle log, the card record and
the final stream states of each, fingerprinted part by part).

Compiled: every recorded table. Readable (the same source with the JIT off): a few tables in
``tests/cove_readable/test_cove_fingerprints_readable.py``.
"""

from __future__ import annotations

import json

from simulator.cove.fast.engine import FastGames
from simulator.cove.fast.packed import DECISIONS
from simulator.runner import Block
from tests.cove_fingerprint import DATA, PARTS, digest, game_parts, scenario_rules


def recorded() -> dict:
    return json.loads(DATA.read_text())


def engines() -> list[FastGames]:
    """One engine per scenario, seating every strategy the recorded tables name."""
    doc = recorded()
    names = sorted({nm for row in doc["games"] for nm in row["table"][1]})
    return [FastGames(rules, names) for rules in scenario_rules()]


def replay(
    engs: list[FastGames], doc: dict, i: int, deal: Block | None = None, trace: list | None = None
) -> dict:
    """Table ``i`` of the record played again (on its own deal unless ``deal``): its row (its
    decisions appended to ``trace``)."""
    scen, names = doc["games"][i]["table"]
    deal = deal or Block(index=i, start=i, size=1, entropy=doc["seed"])
    parts = game_parts(engs[scen], tuple(names), deal)
    if trace is not None:
        trace += parts["trace"]
    row = {"table": [scen, list(names)], "decisions": len(parts["trace"])}
    row.update({p: digest(parts[p]) for p in PARTS})
    return row


def differences(got: dict, want: dict) -> list[str]:
    return [k for k in want if got.get(k) != want[k]]


def test_the_compiled_engine_plays_every_recorded_game():
    """Every recorded table, every part; the record reaches every kind of decision, and
    broadsides of the expected-value players at the second of two non-player ships
    (``npc_target(1)`` = -2)."""
    doc = recorded()
    engs = engines()
    assert doc["n"] == len(doc["games"]) == 600
    bad = {}
    trace: list = []
    for i, want in enumerate(doc["games"]):
        diff = differences(replay(engs, doc, i, trace=trace), want)
        if diff:
            bad[i] = diff
    assert bad == {}
    assert {kind for _, kind, _ in trace} == set(DECISIONS)
    second = [c for _, kind, c in trace if kind == "broadside" and not c[0] and c[1] == -2]
    assert len(second) > 0


def test_a_game_played_on_another_deal_changes_every_part():
    """The check can fail: table 0 dealt from block 1 differs in every fingerprinted part."""
    doc = recorded()
    got = replay(engines(), doc, 0, deal=Block(index=1, start=1, size=1, entropy=doc["seed"]))
    assert set(differences(got, doc["games"][0])) >= set(PARTS)
