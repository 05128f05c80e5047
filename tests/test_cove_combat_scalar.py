"""The scalar oracle battle (tests/cove_battle_oracle.py): every card, parrot and pirate special in
a constructed battle whose dice are scripted, so each outcome is forced and checked by hand.

Mat (standard): hull/sails 4 5 6 7 8 9 10 12; crew/cannons 2 2 3 3 4 4 5 5; start position 2.
"""

from __future__ import annotations

import numpy as np
import pytest

from scenarios import load_scenario
from simulator.cove.combat_policies import RoyalNavyPolicy, RulePolicy, ScriptedPolicy
from simulator.cove.rules import CoveRules
from tests.cove_battle_oracle import BattleShip, resolve_battle
from tests.test_cove_combat_support import ScriptedDice

RULES = load_scenario(None, CoveRules).rules
STAND = RulePolicy()


def ship(seat, hull=2, crew=2, cannons=2, sails=2, **kw):
    return BattleShip(seat=seat, positions=[hull, crew, cannons, sails], **kw)


def battle(ships, policies, faces, npc=None, island="hull", **kw):
    dice = ScriptedDice(faces)
    res = resolve_battle(RULES, ships, npc, policies, dice, island=island, **kw)
    assert dice.done(), f"{len(faces) - dice.used} scripted dice unused"
    return res


def test_rout_gives_fame_to_the_ships_left():
    res = battle([ship(0, sails=3), ship(1)], [STAND, STAND], [5, 6])
    a, b = res.ships
    assert (a.outcome, b.outcome) == ("won", "routed")
    assert b.positions == [0, 2, 2, 2] and b.destroyed == ["hull"]
    assert a.fame["rout"] == 1 and b.fame_total == 0
    assert res.exchanges == 1 and res.dice_rolled == 2


def test_artisan_absorbs_two_hits_then_flight_and_mutiny():
    a = ship(0, sails=3)
    b = ship(1, artisans={"hull": 0}, gold=5, chests=3)
    pa = ScriptedPolicy(target=1, section="hull")
    pb = ScriptedPolicy(flee_at=(1,))
    res = battle([a, b], [pa, pb], [5, 6, 1])  # two hits on the Artisan; mutiny die 1
    ra, rb = res.ships
    assert rb.positions == [2, 2, 2, 2] and rb.artisans == {} and rb.artisans_lost == ["hull"]
    assert rb.was_hit and rb.outcome == "mutiny"
    assert (rb.gold_lost, rb.chests_lost, rb.gold, rb.chests) == (5, 3, 0, 0)
    assert rb.fame["mutiny"] == -2 and ra.fame["flight"] == 1 and ra.outcome == "won"


def test_flight_without_mutiny_and_unhit_flight_gives_no_fame():
    a = ship(0, sails=3)
    b = ship(1, gold=5)
    res = battle([a, b], [STAND, ScriptedPolicy(flee_at=(1,))], [1, 1, 2])
    ra, rb = res.ships
    assert rb.outcome == "fled" and rb.gold == 5 and rb.gold_lost == 0
    assert ra.fame_total == 0 and not rb.was_hit


def test_once_hit_artisan_absorbs_one_more():
    a = ship(0, sails=3)
    b = ship(1, artisans={"hull": 1})
    res = battle([a, b], [ScriptedPolicy(target=1), ScriptedPolicy(flee_at=(1,))], [5, 6, 6])
    assert res.ships[1].positions == [1, 2, 2, 2] and res.ships[1].artisans_lost == ["hull"]


def test_flint_parrot_is_wounded_then_killed_and_absorbs_the_hits():
    a = ship(0, sails=3)
    b = ship(1, parrot="flint")
    pa = ScriptedPolicy(target=1, section="hull")
    faces = [5, 5, 1, 1, 6, 1, 1, 1, 5, 1]
    res = battle([a, b], [pa, STAND], faces)
    rb = res.ships[1]
    assert rb.parrot_died and rb.parrot is None and rb.fame["parrot_death"] == -2
    assert rb.outcome == "routed" and rb.positions[0] == 0
    assert res.ships[0].fame["rout"] == 1


def test_artisan_protects_the_parrot_first_and_wounded_parrot_is_reported():
    a = ship(0, sails=3)
    b = ship(1, parrot="flint", artisans={"hull": 0})
    pa = ScriptedPolicy(target=1, section="hull")
    pb = ScriptedPolicy(flee_at=(2,))
    faces = [5, 6, 1, 1, 5, 1, 6]  # Artisan takes 2; next hit wounds Flint; B flees (die 6)
    rb = battle([a, b], [pa, pb], faces).ships[1]
    assert rb.artisans_lost == ["hull"] and rb.parrot == "flint" and rb.parrot_wounded
    assert rb.positions == [2, 2, 2, 2] and rb.fame_total == 0


def test_wounded_parrot_dies_at_the_first_hit():
    a = ship(0, sails=3)
    b = ship(1, parrot="billy_bones", parrot_wounded=True)
    res = battle(
        [a, b], [ScriptedPolicy(target=1, section="crew"), ScriptedPolicy(flee_at=(1,))], [5, 1, 6]
    )
    rb = res.ships[1]
    assert rb.parrot_died and rb.positions == [2, 2, 2, 2] and rb.fame["parrot_death"] == -2


def first_volley_dice(a: BattleShip, pa=STAND, b: BattleShip | None = None, pb=None) -> int:
    """Dice A rolls in its first broadside (A faster; all miss; B then flees with die 6)."""
    b = b or ship(1)
    dice = ScriptedDice([2] * 13)  # every die misses; B's mutiny die (2) spares it
    res = resolve_battle(
        RULES, [a, b], None, [pa, pb or ScriptedPolicy(flee_at=(1,))], dice, island="hull"
    )
    assert res.ships[1].outcome == "fled"
    return res.dice_rolled - 1


def test_dice_counts_min_crew_cannons_and_parrots_and_grapple():
    assert first_volley_dice(ship(0, crew=5, cannons=2, sails=3)) == 2
    assert first_volley_dice(ship(0, crew=5, cannons=7, sails=3)) == 4
    assert first_volley_dice(ship(0, sails=3, parrot="long_john_silver")) == 6
    assert first_volley_dice(ship(0, crew=1, cannons=8, sails=3, parrot="billy_bones")) == 5
    grapple = RulePolicy(battle_cards=("grapple",))
    assert (
        first_volley_dice(ship(0, crew=8, cannons=2, sails=3, battle_cards=["grapple"]), grapple)
        == 5
    )
    # Long John Silver overrides Grapple
    assert (
        first_volley_dice(
            ship(0, crew=8, sails=3, parrot="long_john_silver", battle_cards=["grapple"]), grapple
        )
        == 6
    )


def test_squire_trelawney_fires_first():
    a = ship(0, parrot="squire_trelawney")  # speed 5 + 20
    b = ship(1, sails=8)  # speed 12
    res = battle([a, b], [STAND, STAND], [5, 6])
    assert res.ships[0].outcome == "won" and res.ships[1].outcome == "routed"


def test_favourable_wind_changes_the_order():
    a = ship(0, battle_cards=["favourable_wind"])  # 5 + 6 = 11
    b = ship(1, sails=3)  # 6
    res = battle([a, b], [RulePolicy(battle_cards=("favourable_wind",)), STAND], [5, 6])
    assert res.ships[0].outcome == "won" and res.ships[0].cards_played == ["favourable_wind"]


def test_overboard_throws_chests_for_speed():
    a = ship(0, chests=3, battle_cards=["overboard"])  # 5 + 3 x 2 = 11
    b = ship(1, sails=3)
    res = battle([a, b], [RulePolicy(battle_cards=("overboard",)), STAND], [5, 6])
    ra = res.ships[0]
    assert ra.outcome == "won" and ra.chests_overboard == 3 and ra.chests == 0


def test_smoke_only_sixes_hit():
    a = ship(0, sails=3)
    b = ship(1, battle_cards=["smoke"])
    res = battle([a, b], [STAND, ScriptedPolicy(cards=("smoke",), flee_at=(1,))], [5, 5, 6])
    assert not res.ships[1].was_hit and res.ships[0].fame_total == 0
    assert res.ships[1].cards_played == ["smoke"]


def test_grapeshot_hits_on_three_beats_smoke_and_hurts_own_cannons():
    a = ship(0, cannons=3, sails=3, battle_cards=["grapeshot"])
    b = ship(1, battle_cards=["smoke"])
    pa = ScriptedPolicy(target=1, section="hull", volleys={1: ("grapeshot",)})
    res = battle([a, b], [pa, ScriptedPolicy(cards=("smoke",))], [3, 4])
    ra, rb = res.ships
    assert rb.outcome == "routed" and rb.positions[0] == 0
    assert ra.outcome == "won" and ra.positions == [2, 2, 1, 3] and ra.cards_played == ["grapeshot"]


def test_grapeshot_recoil_kills_an_unprotected_long_john_silver():
    a = ship(0, cannons=3, sails=3, parrot="long_john_silver", battle_cards=["grapeshot"])
    b = ship(1)
    pa = ScriptedPolicy(target=1, section="crew", volleys={1: ("grapeshot",)})
    res = battle([a, b], [pa, ScriptedPolicy(flee_at=(1,))], [1] * 6 + [6])
    ra = res.ships[0]
    assert ra.parrot_died and ra.positions[2] == 3 and ra.fame["parrot_death"] == -2


def test_powder_keg_damages_every_hull():
    a = ship(0, hull=3, sails=4, battle_cards=["powder_keg"])
    b = ship(1)
    c = ship(2, hull=4, sails=3)
    pa = ScriptedPolicy(target=1, section="crew", volleys={1: ("powder_keg",)})
    res = battle([a, b, c], [pa, STAND, ScriptedPolicy(flee_at=(1,))], [5, 6, 6])
    ra, rb, rc = res.ships
    assert rb.outcome == "routed" and rb.positions == [0, 0, 2, 2]
    assert ra.positions[0] == 1 and rc.positions[0] == 2
    assert ra.fame == {**ra.fame, "rout": 1, "flight": 1} and rc.fame["rout"] == 1
    assert rc.outcome == "fled" and ra.outcome == "won"


def test_powder_keg_against_a_pirate_hits_its_hull_too():
    a = ship(0, hull=8, parrot="long_john_silver", battle_cards=["powder_keg"])
    pa = ScriptedPolicy(volleys={1: ("powder_keg",)})
    # Captain Hook (speed 18) misses [4, 4, 4]; A: 3 hits + 3 keg = 6 >= hull 5 -> sunk
    res = battle([a], [pa], [4, 4, 4, 5, 5, 5, 1, 1, 1], npc="captain_hook")
    assert (
        res.npc_sunk and res.ships[0].positions[0] == 5 and res.ships[0].fame["pirate_share"] == 3
    )


def test_cannonade_hits_every_section_and_skips_the_next_broadside():
    a = ship(0, sails=4, battle_cards=["cannonade"])
    b = ship(1, hull=3, crew=3, cannons=3, sails=3)
    pa = ScriptedPolicy(target=1, section="hull", volleys={1: ("cannonade",)})
    pb = ScriptedPolicy(target=0, flee_at=(3,))
    faces = [5, 1, 1, 1, 1, 1, 1, 1, 6]  # ex1 A, B; ex2 only B; ex3 A, B flees
    res = battle([a, b], [pa, pb], faces)
    ra, rb = res.ships
    assert rb.positions == [2, 2, 2, 2] and rb.outcome == "fled"
    assert ra.cards_played == ["cannonade"] and ra.hand == [] and res.exchanges == 3


def test_becalmed_stops_every_later_card_but_earlier_ones_stay():
    a = ship(0, sails=3, battle_cards=["becalmed", "grapeshot"])
    b = ship(1, battle_cards=["smoke"])
    pa = RulePolicy(battle_cards=("becalmed",), volley_cards=("grapeshot",))
    pb = RulePolicy(battle_cards=("smoke",))
    res = battle([a, b], [pa, pb], [5, 6])
    ra, rb = res.ships
    assert ra.cards_played == ["becalmed"] and ra.hand == ["grapeshot"] and rb.cards_played == []
    assert rb.outcome == "routed"
    # B is faster: its Smoke is played before Becalmed and stays in force
    a = ship(0, battle_cards=["becalmed"])
    b = ship(1, sails=3, battle_cards=["smoke"])
    res = battle(
        [a, b],
        [RulePolicy(battle_cards=("becalmed",)), ScriptedPolicy(cards=("smoke",), flee_at=(2,))],
        [1, 1, 5, 5, 6],
    )
    assert res.ships[1].cards_played == ["smoke"] and not res.ships[1].was_hit


def test_blackbeard_works_down_its_targets_by_cannons():
    a = ship(0, cannons=4, sails=3)  # 3 cannons: first target
    b = ship(1)
    pb = ScriptedPolicy(flee_at=(4,))
    bb_hit1 = [5, 1, 1, 1, 1, 1]
    faces = (
        (bb_hit1 + [1, 1] + [1, 1])
        + (bb_hit1 + [1, 1] + [1, 1])
        + (bb_hit1 + [1, 1])
        + ([1] * 6 + [6])
    )
    res = battle([a, b], [STAND, pb], faces, npc="blackbeard")
    ra, rb = res.ships
    assert ra.outcome == "routed" and ra.positions[0] == 0  # hit in exchanges 1 and 3
    assert rb.positions[0] == 1  # hit in exchange 2 (the cycle moves on)
    assert rb.fame["rout"] == 1 and rb.outcome == "fled" and not res.npc_sunk


def test_flying_dutchman_regains_up_to_two_hull_lost_in_the_exchange():
    a = ship(0, parrot="long_john_silver")
    faces = (
        ([1] * 4 + [5, 5, 5, 1, 1, 1])
        + ([1] * 4 + [5, 1, 1, 1, 1, 1])
        + ([1] * 4 + [5, 5, 5, 5, 1, 1])
    )
    res = battle([a], [STAND], faces, npc="flying_dutchman")
    # hull 5 -> 2 -> +2 = 4 -> 3 -> +1 = 4 -> 0 sunk
    assert res.npc_sunk and res.exchanges == 3 and res.ships[0].fame["pirate_share"] == 6


def test_flying_dutchman_damages_crew():
    a = ship(0)
    res = battle([a], [STAND], [5, 6, 1, 1], npc="flying_dutchman")
    assert res.ships[0].outcome == "routed" and res.ships[0].positions == [2, 0, 2, 2]


def test_captain_hook_misfires_hit_ships_clockwise_from_the_target():
    s0, s1, s2 = ship(0, sails=4), ship(1, hull=4, sails=3), ship(2)
    flee = ScriptedPolicy(flee_at=(1,))
    res = battle([s0, s1, s2], [flee, flee, flee], [5, 1, 2, 6, 6, 6], npc="captain_hook")
    r0, r1, r2 = res.ships
    assert (r0.positions[0], r1.positions[0], r2.positions[0]) == (1, 3, 1)
    assert (r0.fame["flight"], r1.fame["flight"], r2.fame["flight"]) == (0, 1, 2)


def test_smoke_blocks_hook_misfires():
    s0, s1, s2 = ship(0, sails=4), ship(1, hull=4, sails=3), ship(2, battle_cards=["smoke"])
    flee = ScriptedPolicy(flee_at=(1,))
    p2 = ScriptedPolicy(cards=("smoke",), flee_at=(1,))
    res = battle([s0, s1, s2], [flee, flee, p2], [5, 1, 2, 6, 6, 6], npc="captain_hook")
    assert res.ships[2].positions[0] == 2 and not res.ships[2].was_hit


def test_bonny_and_read_hit_every_section_of_the_fastest():
    a, b = ship(0), ship(1, sails=5)
    flee = ScriptedPolicy(flee_at=(1,))
    res = battle([a, b], [flee, flee], [5, 1, 1, 6, 6], npc="bonny_and_read")
    ra, rb = res.ships
    assert rb.positions == [1, 1, 1, 4] and ra.positions == [2, 2, 2, 2]
    assert ra.fame["flight"] == 1  # B was hit and fled first (still faster: 7 > 5)


class AimAtSeatOneCannons(RoyalNavyPolicy):
    def target(self, view):
        if view.ship(1).present:
            return 1, "cannons"
        return super().target(view)


def test_royal_navy_fires_where_its_controller_says_and_its_fame_goes_to_the_sinker():
    a, b = ship(0, sails=3), ship(1)
    res = battle(
        [a, b],
        [STAND, STAND],
        [5, 5, 1, 1, 5, 6, 1, 1, 1, 1, 5, 5],
        npc="royal_navy",
        royal_navy_controller=3,
        royal_navy_policy=AimAtSeatOneCannons(),
    )
    ra, rb = res.ships
    assert rb.outcome == "routed" and rb.positions == [2, 2, 0, 2]
    assert res.npc_sunk and res.npc_fame_shared_by == [0] and ra.fame["pirate_share"] == 4
    assert ra.fame["rout"] == 1 and ra.outcome == "won"


def test_pirate_fame_is_shared_rounded_down_then_the_survivors_fight_on():
    a = ship(0, hull=3, sails=3, parrot="long_john_silver")
    b = ship(1)
    res = battle(
        [a, b],
        [STAND, ScriptedPolicy(flee_at=(1,))],
        [4, 4, 4, 5, 5, 5, 5, 5, 1, 6],
        npc="captain_hook",
    )
    ra, rb = res.ships
    assert res.npc_sunk and res.npc_fame_shared_by == [0, 1] and res.npc_fame_each == 1
    assert ra.fame["pirate_share"] == 1 and rb.fame["pirate_share"] == 1
    assert ra.outcome == "won" and rb.outcome == "fled"


def test_no_fight_between_players_at_treasure_island():
    a = ship(0, hull=3, sails=3, parrot="long_john_silver")
    b = ship(1)
    res = battle(
        [a, b],
        [STAND, STAND],
        [4, 4, 4, 5, 5, 5, 5, 5, 1],
        npc="captain_hook",
        island="treasure_island",
    )
    assert res.npc_sunk and [s.outcome for s in res.ships] == ["won", "won"]
    assert battle([a, b], [STAND, STAND], [], island="treasure_island").exchanges == 0


def test_cacafuego_is_captured_by_the_last_ship_or_the_fastest_at_treasure_island():
    res = battle([ship(0)], [STAND], [4], npc="cacafuego")
    assert res.captured_by == 0 and res.ships[0].fame["capture"] == 4
    res = battle(
        [ship(0), ship(1, sails=3)], [STAND, STAND], [3], npc="cacafuego", island="treasure_island"
    )
    assert res.captured_by == 1 and res.ships[1].fame["capture"] == 3 and res.exchanges == 0
    res = battle([ship(0, sails=3), ship(1)], [STAND, STAND], [5, 6, 2], npc="cacafuego")
    assert res.captured_by == 0 and res.ships[0].fame == {
        **res.ships[0].fame,
        "capture": 2,
        "rout": 1,
    }


def test_speed_ties_are_settled_by_die_rolls():
    # equal speeds: A rolls 2, B rolls 5 -> B fires first and routs A
    res = battle([ship(0), ship(1)], [STAND, STAND], [2, 5, 5, 6])
    assert res.ships[0].outcome == "routed" and res.ships[1].outcome == "won"
    # tie on the roll too: re-rolled (3, 3 then 6, 1) -> A first
    res = battle([ship(0), ship(1)], [STAND, STAND], [3, 3, 6, 1, 5, 6])
    assert res.ships[0].outcome == "won"


def test_exchange_cap_leaves_ships_stayed():
    import dataclasses

    rules = dataclasses.replace(RULES, combat=dataclasses.replace(RULES.combat, max_exchanges=1))
    dice = ScriptedDice([1, 1, 1, 1])
    res = resolve_battle(
        rules, [ship(0, sails=3), ship(1)], None, [STAND, STAND], dice, island="hull"
    )
    assert res.capped and [s.outcome for s in res.ships] == ["stayed", "stayed"]


def test_inputs_are_not_mutated_and_bad_input_is_refused():
    a = ship(0, battle_cards=["smoke"])
    before = (list(a.positions), list(a.battle_cards))
    resolve_battle(
        RULES, [a, ship(1)], None, [STAND, STAND], np.random.default_rng(1), island="hull"
    )
    assert (a.positions, a.battle_cards) == before
    with pytest.raises(ValueError, match="policies"):
        resolve_battle(RULES, [a], None, [], np.random.default_rng(1), island="hull")
    with pytest.raises(ValueError, match="Artisans"):
        resolve_battle(
            RULES,
            [ship(0, artisans={"hull": 0, "crew": 0})],
            None,
            [STAND],
            np.random.default_rng(1),
            island="hull",
        )
    with pytest.raises(ValueError, match="Royal Navy"):
        resolve_battle(
            RULES, [a], "royal_navy", [STAND], np.random.default_rng(1), island="treasure_island"
        )


def test_same_seed_same_battle():
    def run(seed):
        ships = [
            ship(0, battle_cards=["smoke", "grapeshot"]),
            ship(1, parrot="flint"),
            ship(2, artisans={"crew": 0}),
        ]
        pol = [
            RulePolicy(battle_cards=("smoke",), volley_cards=("grapeshot",)),
            RulePolicy("when-hit"),
            STAND,
        ]
        r = resolve_battle(
            RULES, ships, "blackbeard", pol, np.random.default_rng(seed), island="sails"
        )
        return [(s.outcome, s.positions, s.fame) for s in r.ships]

    assert run(7) == run(7)


def _rules_with(**combat):
    import dataclasses

    return dataclasses.replace(RULES, combat=dataclasses.replace(RULES.combat, **combat))


@pytest.mark.parametrize("absorbs", [True, False])
def test_parrot_absorbs_hits_switch(absorbs):
    # A (faster) lands 2 hits on B's hull where Flint sits: Flint is wounded, then killed either
    # way.
    # combat.parrot_absorbs_hits = true: the ring stays on 2, B flees (mutiny die 2);
    # false: the ring moves too (2 -> 0), B is routed before its turn.
    rules = _rules_with(parrot_absorbs_hits=absorbs)
    a, b = ship(0, sails=3), ship(1, parrot="flint")
    faces = [5, 5, 2] if absorbs else [5, 5]
    dice = ScriptedDice(faces)
    res = resolve_battle(
        rules,
        [a, b],
        None,
        [ScriptedPolicy(target=1), ScriptedPolicy(flee_at=(1,))],
        dice,
        island="hull",
    )
    assert dice.done()
    rb = res.ships[1]
    assert rb.parrot_died and rb.fame["parrot_death"] == -2
    if absorbs:
        assert rb.outcome == "fled" and rb.positions == [2, 2, 2, 2]
    else:
        assert (
            rb.outcome == "routed"
            and rb.positions == [0, 2, 2, 2]
            and res.ships[0].fame["rout"] == 1
        )


@pytest.mark.parametrize("blocks", [True, False])
def test_smoke_blocks_misfire_switch(blocks):
    # as test_smoke_blocks_hook_misfires: Hook's die 1 misfires at the smoked seat 2
    rules = _rules_with(smoke_blocks_misfire=blocks)
    s0, s1, s2 = ship(0, sails=4), ship(1, hull=4, sails=3), ship(2, battle_cards=["smoke"])
    flee = ScriptedPolicy(flee_at=(1,))
    p2 = ScriptedPolicy(cards=("smoke",), flee_at=(1,))
    dice = ScriptedDice([5, 1, 2, 6, 6, 6])
    res = resolve_battle(rules, [s0, s1, s2], "captain_hook", [flee, flee, p2], dice, island="hull")
    assert dice.done()
    assert res.ships[0].positions[0] == 1  # the unsmoked seat 0 takes its misfire either way
    assert res.ships[2].positions[0] == (2 if blocks else 1)
    assert res.ships[2].was_hit == (not blocks)
