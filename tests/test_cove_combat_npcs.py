"""One battle with several non-player ships (a Legendary Pirate and the Royal Navy), and who did
what: every hit and rout attributed to the ship whose broadside or special caused it. Scripted
dice force each outcome (tests/cove_battle_oracle.py); the full game's side is checked on
constructed positions (tests/cove_readable/test_cove_npcs_game.py) and here on whole games.

Mat (standard): hull/sails 4 5 6 7 8 9 10 12; crew/cannons 2 2 3 3 4 4 5 5; start position 2.
Speeds: Royal Navy 20, Captain Hook 18.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scenarios import load_scenario
from simulator.cove.combat import dispatch, simulate_battles
from simulator.cove.combat_policies import RulePolicy, ScriptedPolicy, npc_target
from simulator.cove.rules import CoveRules
from tests.cove_battle_oracle import BattleShip, resolve_battle, simulate_scalar
from tests.test_cove_combat_support import ScriptedDice

RULES = load_scenario(None, CoveRules).rules
STAND = RulePolicy()
HOOK_AND_NAVY = ("captain_hook", "royal_navy")


def ship(seat, hull=2, crew=2, cannons=2, sails=2, **kw):
    return BattleShip(seat=seat, positions=[hull, crew, cannons, sails], **kw)


def battle(ships, policies, faces, npc, island="hull", **kw):
    dice = ScriptedDice(faces)
    res = resolve_battle(RULES, ships, npc, policies, dice, island=island, **kw)
    assert dice.done(), f"{len(faces) - dice.used} scripted dice unused"
    return res


def test_a_powder_keg_hits_both_non_player_hulls_and_its_own():
    # order RN, Hook, A. Ex1: RN and Hook miss; A fires at the weaker RN (hull 4) with a keg:
    # 2 hits -> RN 4-2-2 = 0, Hook 5-2 = 3, own hull 8 -> 6. Ex2: Hook misses, A sinks it.
    a = ship(0, hull=8, crew=4, cannons=4, sails=2, battle_cards=["powder_keg"])
    pa = ScriptedPolicy(volleys={1: ("powder_keg",)})
    faces = [1, 1, 1, 1, 1, 1, 1, 5, 5, 1] + [1, 1, 1, 6, 6, 6]
    res = battle([a], [pa], faces, HOOK_AND_NAVY)
    hook, navy = res.npcs
    assert navy.sunk and navy.hits_taken == {0: 4} and navy.sunk_by == 0
    assert hook.sunk and hook.hits_taken == {0: 2 + 3} and hook.sunk_by == 0
    ra = res.ships[0]
    assert ra.outcome == "won" and ra.positions == [6, 4, 4, 2] and ra.hits_taken == {0: 2}
    assert ra.fame["pirate_share"] == 4 + 3 and res.exchanges == 2
    assert res.npc == "captain_hook" and res.npc_sunk  # the single-NPC fields: the first one


def test_players_deal_with_both_before_they_fight_each_other():
    # A always aims at B (seat 1), but while a non-player ship is there the broadside goes to it.
    # Ex1: A sinks the Navy (shared by A and B: 2 each). Ex2-3: Hook sunk (3 // 2 = 1 each).
    # Ex4-5: only then does A's broadside reach B, who is routed by it.
    a = ship(0, hull=6, crew=6, cannons=6, sails=2)
    b = ship(1, hull=2, crew=2, cannons=2, sails=3)
    pa = ScriptedPolicy(target=1, section="hull")
    faces = (
        [1, 1, 1, 1, 3, 3, 3, 1, 1, 5, 5, 5, 5]  # ex1: RN, Hook at A, B at RN, A sinks RN
        + [3, 3, 3, 1, 1, 5, 5, 5, 1]  # ex2: Hook at B, B, A at Hook (3 hits)
        + [3, 3, 3, 1, 1, 5, 5, 1, 1]  # ex3: Hook at A again, B, A sinks Hook
        + [1, 1, 5, 1, 1, 1]  # ex4: B at A, A at B's hull
        + [1, 1, 5, 1, 1, 1]  # ex5: B routed by A
    )
    res = battle([a, b], [pa, STAND], faces, HOOK_AND_NAVY)
    ra, rb = res.ships
    hook, navy = res.npcs
    assert navy.sunk and navy.shared_by == [0, 1] and navy.fame_each == 2
    assert hook.sunk and hook.hits_taken == {0: 5} and hook.fame_each == 1
    assert rb.hits_taken == {0: 2} and rb.outcome == "routed" and rb.routed_by == 0
    assert ra.fame["pirate_share"] == 3 and ra.fame["rout"] == 1 and rb.fame["pirate_share"] == 3
    assert hook.routed == [] and navy.routed == [] and res.exchanges == 5


def test_was_hit_and_flight_fame_carry_across_both():
    # B is hit by Hook (its hull is the strongest) in exchange 1 and flees in exchange 2 while
    # the Navy is still there: A gains the flight fame of a hit ship.
    a = ship(0, hull=6, crew=6, cannons=6, sails=2)
    b = ship(1, hull=7, crew=2, cannons=2, sails=3)
    pb = ScriptedPolicy(flee_at=(2,))
    faces = (
        [1, 1, 1, 1, 5, 3, 3, 1, 1, 1, 1, 1, 1]  # ex1: RN misses A, Hook hits B once
        + [1, 1, 1, 1, 3, 3, 3, 2, 5, 5, 5, 5]  # ex2: Hook at A; B flees (no mutiny); A sinks RN
        + [3, 3, 3, 5, 5, 5, 5]  # ex3
        + [3, 3, 3, 5, 1, 1, 1]  # ex4: Hook sunk
    )
    res = battle([a, b], [STAND, pb], faces, HOOK_AND_NAVY)
    ra, rb = res.ships
    assert rb.outcome == "fled" and rb.was_hit and rb.hits_taken == {"captain_hook": 1}
    assert ra.fame["flight"] == 1 and ra.fame["pirate_share"] == 4 + 3 and rb.fame_total == 0
    assert all(n.sunk for n in res.npcs)


def test_routs_are_attributed_to_the_misfire_the_recoil_and_the_keg():
    # Hook aims at A (strongest hull); its missing die showing 1 hits B (the first ship clockwise
    # from A), who is routed by Captain Hook. C's own Grapeshot recoil destroys its cannons: C is
    # routed by itself. Hook then wears A down.
    a = ship(0, hull=8, sails=2)
    b = ship(1, hull=1, sails=3)
    c = ship(2, sails=4, battle_cards=["grapeshot"])
    pc = ScriptedPolicy(volleys={1: ("grapeshot",)})
    faces = [1, 3, 3, 1, 1, 1, 1] + [5, 5, 5, 1, 1] * 2 + [5, 5, 5]
    res = battle([a, b, c], [STAND, STAND, pc], faces, "captain_hook")
    ra, rb, rc = res.ships
    (hook,) = res.npcs
    assert rb.routed_by == "captain_hook" and rb.hits_taken == {"captain_hook": 1}
    assert rc.routed_by == 2 and rc.hits_taken == {2: 2}
    assert ra.routed_by == "captain_hook" and ra.hits_taken == {"captain_hook": 9}
    assert hook.routed == [1, 0] and not hook.sunk and hook.broadsides == 4
    # the keg: A's Powder keg on Hook also hits B's hull, routing B -- by A
    a = ship(0, hull=8, crew=4, cannons=4, sails=4, battle_cards=["powder_keg"])
    b = ship(1, hull=1, sails=3)
    pa = ScriptedPolicy(volleys={1: ("powder_keg",)})
    res = battle([a, b], [pa, STAND], [3, 3, 3, 5, 1, 1, 3, 3, 3, 5, 5, 5], "captain_hook")
    ra, rb = res.ships
    assert rb.routed_by == 0 and rb.hits_taken == {0: 1} and ra.hits_taken == {0: 1}
    assert res.npcs[0].routed == [] and res.npcs[0].hits_taken == {0: 5} and res.npc_sunk


def test_the_cacafuego_routs_nobody_and_goes_to_the_last_ship_after_the_navy():
    a = ship(0, hull=6, crew=6, cannons=6, sails=2)
    b = ship(1, hull=2, crew=2, cannons=2, sails=3)
    faces = [1, 1, 1, 1, 1, 1, 5, 5, 5, 5] + [1, 1, 5, 5, 1, 1] + [4]
    res = battle([a, b], [STAND, STAND], faces, ("cacafuego", "royal_navy"))
    galleon, navy = res.npcs
    assert not galleon.fights and galleon.routed == [] and galleon.captured_by == 0
    assert navy.sunk and navy.routed == [] and navy.shared_by == [0, 1]
    ra, rb = res.ships
    assert rb.routed_by == 0 and res.captured_by == 0 and ra.fame["capture"] == 4


def test_aiming_at_a_chosen_non_player_ship_and_bad_battles_are_refused():
    # A names Hook (index 0) although the Navy is weaker: its hits land on Hook
    a = ship(0, hull=8, crew=4, cannons=4, sails=2)

    class AimHook(RulePolicy):
        def broadside(self, view, hand):
            assert [n.key for n in view.npcs] == list(HOOK_AND_NAVY)
            return dataclasses.replace(super().broadside(view, hand), target=npc_target(0))

    # ex1: both miss, A hits Hook twice; ex2: the Navy destroys A's sails (2 hits) first
    res = battle([a], [AimHook()], [1, 1, 1, 1, 1, 1, 1, 5, 5, 1, 5, 5, 1, 1], HOOK_AND_NAVY)
    assert res.npcs[0].hits_taken == {0: 2} and res.npcs[1].hits_taken == {}
    assert res.ships[0].routed_by == "royal_navy" and res.npcs[1].routed == [0]

    class AimGone(RulePolicy):
        def broadside(self, view, hand):
            return dataclasses.replace(super().broadside(view, hand), target=npc_target(5))

    with pytest.raises(ValueError, match="not one present"):
        battle([a], [AimGone()], [1] * 10, HOOK_AND_NAVY)
    rng = np.random.default_rng(0)
    for npcs, needle in [
        (("cacafuego", "cacafuego"), "at most once"),
        (("royal_navy", "kraken"), "allowed"),
    ]:
        with pytest.raises(ValueError, match=needle):
            resolve_battle(RULES, [ship(0)], npcs, [STAND], rng, island="hull")
    with pytest.raises(ValueError, match="never goes to Treasure Island"):
        resolve_battle(RULES, [ship(0)], HOOK_AND_NAVY, [STAND], rng, island="treasure_island")
    # a batch records one non-player ship's fate: several are refused by the batch (the game
    # plays them, above), never silently cut to the first one
    for engine in ("auto", "kernel"):
        with pytest.raises(ValueError, match=r"2 non-player ships in one battle.*at most one"):
            simulate_battles(RULES, [ship(0)], HOOK_AND_NAVY, [STAND], 10, rng, engine=engine)
    assert dispatch(RULES, [ship(0)], "captain_hook", [STAND], "hull") == (
        "kernel",
        "the kernel covers it",
    )
    carded = [ship(0, battle_cards=["smoke"])]
    assert dispatch(RULES, carded, "captain_hook", [STAND], "hull")[0] == "kernel"
    res = simulate_battles(RULES, [ship(0)], "captain_hook", [STAND], 10, rng)
    assert (res.engine, res.engine_reason) == ("kernel", "the kernel covers it")
    # what the kernel does not play (a scripted policy) is refused, with the kernel's reason and
    # the allowed policies; the scalar oracle (a test module) plays it
    scripted = [ship(0, battle_cards=["smoke"])]
    pol = ScriptedPolicy(cards=("smoke",), flee_at=(2,))
    for call in (dispatch, simulate_battles):
        args = (RULES, scripted, "captain_hook", [pol]) + (
            ("hull",) if call is dispatch else (40, rng)
        )
        with pytest.raises(ValueError, match=r"policy ScriptedPolicy \(allowed policies: Rule"):
            call(*args)
    res = simulate_scalar(RULES, scripted, "captain_hook", [pol], 40, rng, "hull", None)
    assert res.engine == "scalar" and res.n == 40
    # its script in every battle: flight at its turn of the second exchange, so no battle lasts
    # longer and every flight (or mutiny) is in the second exchange
    fled = np.isin(res.outcome[:, 0], [2, 3])  # OUTCOMES: fled, mutiny
    assert fled.any() and (res.exchanges[fled] == 2).all() and (res.exchanges <= 2).all()
    assert dispatch(RULES, [ship(0)], "captain_hook", [STAND], "hull", engine="kernel") == (
        "kernel",
        "forced (engine='kernel')",
    )
    for retired in ("numpy", "gpu", "scalar"):
        with pytest.raises(ValueError, match=r"engine '\w+' \(allowed: auto, kernel\)"):
            dispatch(RULES, [ship(0)], "captain_hook", [STAND], "hull", engine=retired)


# ---------------------------------------------------------------- the full game's side
# (constructed positions: tests/cove_readable/test_cove_npcs_game.py)
def test_the_record_adds_up_over_whole_games():
    """400 four-player games of the default mix: per non-player ship, the routs attributed to it
    never exceed the ships that fought it, the Cacafuego routs nobody, and each battle's routs are
    those of its non-player ships plus those of player broadsides."""
    from simulator.cove.api import play_games

    _, battles, summary = play_games(None, list(RULES.default_mix), 4, 400, seed=7)
    assert len(battles) > 300
    assert (battles.player_ships_routed <= battles.ships).all()
    assert (battles[battles.pirate == "cacafuego"].player_ships_routed == 0).all()
    key = ["game", "rotation", "month", "island"]
    per_battle = battles.groupby(key).agg(
        npc_routs=("player_ships_routed", "sum"),
        players=("routed_by_players", "first"),
        total=("player_ships_routed_in_battle", "first"),
    )
    assert (per_battle.npc_routs + per_battle.players == per_battle.total).all()
    for name, row in summary["pirates"].items():
        fought = battles[battles.pirate == name].ships.sum()
        assert row["player_ships_routed"] <= fought, name
    assert summary["pirates"]["cacafuego"]["player_ships_routed"] == 0
