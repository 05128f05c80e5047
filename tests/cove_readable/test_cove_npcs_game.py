"""The full game's side of a battle with several non-player ships (a Legendary Pirate and the
Royal Navy) and who did what: the engine's combat phase (``game._phase_combat``) on constructed
positions with scripted dice (``tests/cove_table.py``, readable mode). The battle's rules
themselves: ``tests/test_cove_combat_npcs.py``.

Mat (standard): hull/sails 4 5 6 7 8 9 10 12; crew/cannons 2 2 3 3 4 4 5 5; start position 2.
Speeds: Royal Navy 20, Captain Hook 18.
"""

from __future__ import annotations

import dataclasses

from scenarios.loader import load_scenario
from simulator.cove.fast.packed import G_NTRACE, TK_BROADSIDE, TR_B, TR_KIND
from simulator.cove.rules import CoveRules
from tests.cove_table import Script, Table

RULES = load_scenario(None, CoveRules).rules
HOOK_AND_NAVY = ("captain_hook", "royal_navy")
COVE = 6


def _pirate_and_navy(monkeypatch, order: str, faces) -> Table:
    rules = dataclasses.replace(
        RULES, decisions=dataclasses.replace(RULES.decisions, pirate_and_navy_order=order)
    )
    t = Table(monkeypatch, 3, rules=rules, scripts=[Script(), Script(), Script()], dice=faces)
    t.put(0, 1, ring=[8, 8, 8, 2])  # 5 dice, hull 12, speed 5
    t.put(1, 3)
    t.put(2, 2)
    t.black_ship(1, "captain_hook")
    t.royal_navy(1, controller=2)
    t.combat()
    return t


def test_the_game_fights_a_pirate_and_the_navy_as_one_battle_by_default(monkeypatch):
    assert RULES.decisions.pirate_and_navy_order == "one_battle"
    # RN, Hook, A: RN and Hook miss; A sinks the Navy, then Hook
    faces = [1, 1, 1, 1, 3, 3, 3, 5, 5, 5, 5, 1, 3, 3, 3, 5, 5, 5, 5, 5]
    t = _pirate_and_navy(monkeypatch, "one_battle", faces)
    rows = t.battle_log()
    assert [r["pirate"] for r in rows] == list(HOOK_AND_NAVY)
    assert all(r["battle_npcs"] == "captain_hook+royal_navy" for r in rows)
    assert all(r["outcome"] == "sunk" and r["player_ships_routed"] == 0 for r in rows)
    s = t.seat(0)
    assert (s.battles, s.fought, s.sunk) == (1, 1, 1)
    assert s.src["combat"] == 4 and s.src["pirates"] == 3
    assert t.black_ships()[0][2] and t.navy == (-1, -1) and s.location == 1
    # A aimed at the least hull: the Navy (hull 4, the second non-player ship: -2), then Hook
    tr = t.gs.tr[: t.g[G_NTRACE]]
    shots = tr[tr[:, TR_KIND] == TK_BROADSIDE]
    assert shots[:, TR_B].tolist() == [-2, -1]
    t.done()
    # the old reading: two battles, the pirate first
    faces = [3, 3, 3, 5, 5, 5, 5, 5] + [1, 1, 1, 1, 5, 5, 5, 5, 1]
    t = _pirate_and_navy(monkeypatch, "pirate_first", faces)
    assert [r["battle_npcs"] for r in t.battle_log()] == ["captain_hook", "royal_navy"]
    assert t.seat(0).battles == 2 and t.seat(0).fame == 7
    t.done()


def test_routs_by_players_at_the_cacafuegos_island_are_not_the_cacafuegos(monkeypatch):
    t = Table(monkeypatch, 3, scripts=[Script(), Script(), Script()], dice=[5, 6, 4])
    t.put(0, 2, ring=[2, 2, 2, 3])
    t.put(1, 2)
    t.put(2, 3)
    t.black_ship(2, "cacafuego")
    t.combat()
    (row,) = t.battle_log()
    assert row["pirate"] == "cacafuego" and row["outcome"] == "captured"
    assert row["player_ships_routed"] == 0 and row["routed_by_players"] == 1
    assert row["player_ships_routed_in_battle"] == 1
    a = t.seat(0)
    assert t.seat(1).location == COVE and a.sunk == 1 and a.src["pirates"] == 4
    t.done()
