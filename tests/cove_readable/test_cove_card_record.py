"""The card record (``cove play --out``'s cards table, the card value's first draws) follows each
Tavern card a seat drew: played, returned or held; a constructed position in readable mode
(``tests/cove_table.py``), the engine's own draw, play and end-of-game functions."""

from __future__ import annotations

from simulator.cove.fast import game
from simulator.cove.fast.packed import (
    G_NREC,
    PHASES,
    RC_CODE,
    RC_DRAW,
    RC_FATE,
    RC_MONTH,
    RC_MONTH_OUT,
    RC_PHASE,
    RC_PHASE_OUT,
    RC_SEAT,
)
from tests.cove_table import Script, Table

FATES = {0: "played", 1: "returned", 2: "held", -1: "open"}


def rows(t: Table) -> list[tuple]:
    rec = t.gs.rec
    out = []
    for r in rec[: t.g[G_NREC]]:
        out.append(
            (
                int(r[RC_SEAT]),
                int(r[RC_DRAW]),
                t.eng.tables.card_names[int(r[RC_CODE])],
                int(r[RC_MONTH]),
                PHASES[int(r[RC_PHASE])],
                FATES[int(r[RC_FATE])],
                int(r[RC_MONTH_OUT]),
                PHASES[int(r[RC_PHASE_OUT])] if r[RC_PHASE_OUT] >= 0 else None,
            )
        )
    return out


def test_the_record_follows_each_card_drawn_played_returned_and_held(monkeypatch):
    t = Table(monkeypatch, 3, scripts=[Script(parrot_swap=False), Script(), Script()], record=True)
    t.put(0, 0, fame=3)
    t.on_top("parrot:flint")
    t.draw(0, 1)  # taken on board: played
    t.on_top("parrot:billy_bones")
    t.draw(0, 1)  # refused: returned
    t.on_top("shipwright")
    t.draw(0, 1)
    game._play_card(t.gs, 0, t.code("shipwright"))  # played
    t.on_top("fame:3")
    t.draw(0, 1)  # held to the end
    assert rows(t)[-1][5] == "open"
    t.finish()
    assert rows(t) == [
        (0, 0, "flint", 1, "setup", "played", 1, "setup"),
        (0, 1, "billy_bones", 1, "setup", "returned", 1, "setup"),
        (0, 2, "shipwright", 1, "setup", "played", 1, "setup"),
        (0, 3, "fame_3", 1, "setup", "held", 1, "end"),
    ]
