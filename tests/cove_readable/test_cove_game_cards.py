"""Every Tavern card, event, parrot, Legendary Pirate and the Royal Navy forced into play on a
constructed position of the full game, with scripted dice and scripted decisions.

The engine is the compiled one's source run readable (``NUMBA_DISABLE_JIT=1``,
``tests/cove_readable/conftest.py``); positions, dice and decisions are set through
``tests/cove_table.py`` and the engine's own functions are called (``game._phase_combat``,
``game._island_combat``, ``game._any_island``, ...), each test ending with every scripted die used
and the invariant checker (``game._check``) clean.

Mat (standard): hull/sails 4 5 6 7 8 9 10 12; crew/cannons 2 2 3 3 4 4 5 5; start position 2.
Islands: 0 Tavern, 1 Hull, 2 Sails, 3 Cannons, 4 Crew, 5 Treasure Island, 6 Cove.
"""

from __future__ import annotations

import dataclasses

import pytest

from scenarios.loader import load_scenario
from simulator.cove.fast import game
from simulator.cove.fast.packed import (
    C_LETTER,
    C_ROYAL_NAVY,
    G_DUEL,
    G_MONTH,
    G_TIE,
    S_CHOSEN,
    S_RING,
    pack_rules,
)
from simulator.cove.rules import CoveRules
from simulator.cove.tables import build_treasure_deck
from tests.cove_table import Battle, Script, Table

RULES = load_scenario(None, CoveRules).rules
PER_SECTION = load_scenario("scenarios/cove/artisan-per-section.toml", CoveRules).rules
HULL, CREW, CANNONS, SAILS = 0, 1, 2, 3
COVE = 6


def table(monkeypatch, scripts, dice=(), rules=RULES) -> Table:
    return Table(monkeypatch, len(scripts), rules=rules, scripts=scripts, dice=dice)


# ------------------------------------------------------------------ parrots
def test_parrot_takes_effect_when_drawn_and_a_second_may_be_swapped_for_fame(monkeypatch):
    t = table(monkeypatch, [Script(parrot_swap=True), Script(parrot_swap=False), Script()])
    t.put(0, 0, fame=3)
    t.on_top("parrot:flint")
    t.draw(0, 1)
    s = t.seat(0)
    assert s.parrot == "flint" and "parrot:flint" not in s.hand
    t.on_top("parrot:billy_bones")
    t.draw(0, 1)
    s = t.seat(0)
    assert s.parrot == "billy_bones" and s.fame == 2 and s.src["penalties"] == -1
    assert "parrot:flint" in t.deck()  # the old parrot went back into the draw pile
    t.put(1, 0, fame=3)
    t.on_top("parrot:squire_trelawney")
    t.draw(1, 1)
    t.on_top("parrot:long_john_silver")
    t.draw(1, 1)  # refused: put back, no replacement draw
    s = t.seat(1)
    assert s.parrot == "squire_trelawney" and s.fame == 3 and s.hand == []
    assert "parrot:long_john_silver" in t.deck()
    assert t.seen("parrot_swap") == [(0, 1), (0, 1)]
    t.done()  # the Tavern cards are conserved


def test_parrot_swap_is_not_offered_without_the_fame_to_pay(monkeypatch):
    t = table(monkeypatch, [Script(parrot_swap=True), Script(), Script()])
    t.put(0, 0, fame=0, parrot="flint")
    t.on_top("parrot:billy_bones")
    t.draw(0, 1)
    assert t.seat(0).parrot == "flint" and t.seen("parrot_swap") == []  # only "keep" was legal
    assert "parrot:billy_bones" in t.deck()
    t.done()


def test_flint_carries_any_number_of_chests_at_the_cargo_check(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()])
    t.put(0, 1, chests=9)  # hull position 2: capacity 5
    t.put(1, 1, chests=9, parrot="flint")
    bank = t.bank[1]
    t.black_ships_phase()
    assert t.seat(0).chests == 5 and t.seat(1).chests == 9 and t.bank[1] == bank + 4
    t.done()


def test_squire_trelawney_makes_its_ship_act_first_in_phase_5(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()])
    t.put(0, 0, ring=[2, 2, 2, 8])  # sails 12
    t.put(1, 0, parrot="squire_trelawney")  # sails 5 + 20
    assert t.order_by_speed([0, 1]) == [1, 0]
    t.done()  # no roll-off: no die


@pytest.mark.parametrize(
    "parrot,ring,dice",
    [
        ("long_john_silver", [2, 2, 2, 3], 6),  # always 6 dice
        ("billy_bones", [2, 2, 7, 3], 5),  # dice = cannons (5) whatever the crew (2)
    ],
)
def test_dice_parrots_in_a_game_battle(monkeypatch, parrot, ring, dice):
    t = table(monkeypatch, [Script(), Script(), Script()], dice=[5, 5] + [1] * (dice - 2))
    t.put(0, 1, ring=ring, parrot=parrot)
    t.put(1, 1)
    t.put(2, 4)
    t.island_combat(1)
    b = t.seat(1)
    assert b.location == COVE and b.routed == 1 and t.seat(0).fame == 1  # routed in one broadside
    t.done()


def test_parrot_killed_costs_two_fame_and_goes_to_the_discard(monkeypatch):
    t = table(
        monkeypatch,
        [Script(Battle(target=1, section="hull")), Script(Battle(flee_at=(1,))), Script()],
        dice=[5, 5, 3],
    )
    t.put(0, 1, ring=[2, 2, 2, 3])
    t.put(1, 1, fame=5, parrot="flint")
    t.put(2, 4)
    t.island_combat(1)
    b = t.seat(1)
    assert b.parrot is None and "parrot:flint" in t.discard()
    assert b.fame == 3 and b.src["penalties"] == -2 and b.ring[HULL] == 2  # the parrot absorbed
    assert b.location == COVE and b.fled == 1 and t.seat(0).fame == 1  # fled after a hit: +1
    t.done()


def test_mutiny_on_a_voluntary_flight_loses_gold_chests_and_two_fame(monkeypatch):
    t = table(monkeypatch, [Script(), Script(Battle(flee_at=(1,))), Script()], dice=[1, 1, 1])
    t.put(0, 1, ring=[2, 2, 2, 3])
    t.put(1, 1, fame=4, gold=7, chests=3)
    t.put(2, 4)
    bank = t.bank
    t.island_combat(1)
    b = t.seat(1)
    assert (b.gold, b.chests, b.fame, b.mutinies) == (0, 0, 2, 1)
    assert t.bank == (bank[0] + 7, bank[1] + 3)
    assert t.seat(0).fame == 0  # b was never hit: no flight fame
    t.done()


# ------------------------------------------------------------------ artisans
def test_artisan_played_from_any_island_one_per_ship(monkeypatch):
    t = table(monkeypatch, [Script(artisan=HULL), Script(), Script()])
    t.put(0, 5)
    t.give(0, "artisan")
    t.give(0, "artisan")
    t.any_island(0)
    assert t.seat(0).artisans == {HULL: 0} and t.seat(0).hand == ["artisan"]
    t.any_island(0)  # a second Artisan is not offered (one per ship)
    assert t.seat(0).artisans == {HULL: 0} and t.seat(0).hand == ["artisan"]
    assert t.seen("artisan") == [(None, HULL, CREW, CANNONS, SAILS)]
    t.done()


def test_artisan_per_section_variant_allows_one_on_each_section(monkeypatch):
    last = Script(artisan=lambda ask: ask.legal[-1])
    t = table(monkeypatch, [last, Script(), Script()], rules=PER_SECTION)
    t.put(0, COVE)
    t.give(0, "artisan")
    t.give(0, "artisan")
    t.any_island(0)
    t.any_island(0)
    assert t.seat(0).artisans == {SAILS: 0, CANNONS: 0}
    t.done()


def test_damaged_artisan_repaired_for_one_gold_and_absorbs_hits_in_battle(monkeypatch):
    t = table(
        monkeypatch,
        [
            Script(Battle(target=1, section="hull")),
            Script(Battle(flee_at=(1,)), artisan_repair=True),
            Script(),
        ],
        dice=[5, 1, 4],
    )
    t.put(0, 1, ring=[2, 2, 2, 3])
    t.put(1, 1, gold=3, artisans={HULL: 0})
    t.put(2, 4)
    t.island_combat(1)
    assert t.seat(1).artisans == {HULL: 1} and t.seat(1).ring[HULL] == 2  # absorbed one hit
    t.done()
    t.any_island(1)
    assert t.seat(1).artisans == {HULL: 0} and t.seat(1).gold == 2
    t.done()


def test_artisan_destroyed_after_two_hits_goes_to_the_discard(monkeypatch):
    t = table(
        monkeypatch,
        [Script(Battle(target=1, section="hull")), Script(Battle(flee_at=(1,))), Script()],
        dice=[5, 6, 4],
    )
    t.put(0, 1, ring=[2, 2, 2, 3])
    t.put(1, 1, artisans={HULL: 0})
    t.put(2, 4)
    t.island_combat(1)
    b = t.seat(1)
    assert b.artisans == {} and t.discard() == ["artisan"] and b.ring[HULL] == 2
    t.done()


# ------------------------------------------------------------------ battle and volley cards
def _duel(
    monkeypatch,
    cards0=(),
    cards1=(),
    pol0=None,
    pol1=None,
    dice=(),
    ring0=(2, 2, 2, 2),
    ring1=(2, 2, 2, 3),
    **kw0,
) -> Table:
    t = table(monkeypatch, [Script(pol0), Script(pol1), Script()], dice=dice)
    t.put(0, 1, ring=list(ring0), **kw0)
    t.put(1, 1, ring=list(ring1))
    t.put(2, 4)
    for c in cards0:
        t.give(0, c)
    for c in cards1:
        t.give(1, c)
    t.island_combat(1)
    return t


def test_favourable_wind_lets_the_slower_ship_fire_first(monkeypatch):
    t = _duel(
        monkeypatch, ["favourable_wind"], pol0=Battle(cards=("favourable_wind",)), dice=[5, 6]
    )
    a = t.seat(0)
    assert t.seat(1).location == COVE and a.location == 1 and a.ring == [2, 2, 2, 2]
    assert "favourable_wind" in t.discard() and a.hand == []
    t.done()


def test_smoke_lets_only_a_six_hit(monkeypatch):
    # b is faster and fires first at a's hull: 5s miss because a played Smoke; then a routs b
    t = _duel(
        monkeypatch,
        ["smoke"],
        pol0=Battle(cards=("smoke",)),
        dice=[5, 5, 6, 6],
        ring0=(2, 2, 2, 2),
        ring1=(2, 2, 2, 3),
    )
    assert t.seat(0).ring == [2, 2, 2, 2] and t.seat(1).location == COVE
    t.done()


def test_becalmed_stops_every_later_card(monkeypatch):
    t = _duel(
        monkeypatch,
        ["becalmed"],
        ["smoke"],
        pol0=Battle(cards=("becalmed",)),
        pol1=Battle(cards=("smoke",)),
        dice=[5, 5],
        ring0=(2, 2, 2, 3),
        ring1=(2, 2, 2, 2),
    )
    b = t.seat(1)
    assert b.location == COVE and b.hand == ["smoke"]  # could not play it
    assert t.discard() == ["becalmed"]
    t.done()


def test_grapple_rolls_dice_equal_to_crew(monkeypatch):
    t = _duel(
        monkeypatch,
        ["grapple"],
        pol0=Battle(cards=("grapple",)),
        dice=[1, 1, 5, 5],
        ring0=(2, 5, 2, 4),
        ring1=(2, 2, 2, 3),
    )  # crew 4, cannons 2: 4 dice
    assert t.seat(1).location == COVE and t.seat(0).ring == [2, 5, 2, 4]
    t.done()


def test_overboard_throws_chests_for_speed_and_they_go_to_the_bank(monkeypatch):
    t = _duel(monkeypatch, ["overboard"], pol0=Battle(cards=("overboard",)), dice=[5, 5], chests=3)
    a = t.seat(0)
    assert a.chests == 0 and t.seat(1).location == COVE and a.ring == [2, 2, 2, 2]
    assert t.bank[1] == RULES.bank.chests  # the 3 chests are back in the bank
    t.done()


def test_grapeshot_hits_on_three_and_damages_own_cannons(monkeypatch):
    t = _duel(
        monkeypatch,
        ["grapeshot"],
        pol0=Battle(volley_cards=("grapeshot",)),
        dice=[3, 4],
        ring0=(2, 2, 4, 4),
    )
    a = t.seat(0)
    assert t.seat(1).location == COVE and a.ring[CANNONS] == 2 and a.location == 1
    t.done()


def test_powder_keg_damages_every_hull_present(monkeypatch):
    t = _duel(
        monkeypatch,
        ["powder_keg"],
        pol0=Battle(target=1, section="crew", volleys={1: ("powder_keg",)}),
        pol1=Battle(flee_at=(1,)),
        dice=[5, 1, 3],
        ring0=(4, 2, 2, 4),
        ring1=(4, 3, 3, 3),
    )
    b = t.seat(1)
    assert b.ring[:2] == [3, 2] and t.seat(0).ring[HULL] == 3 and b.location == COVE
    t.done()


def test_cannonade_damages_every_section_of_the_target(monkeypatch):
    t = _duel(
        monkeypatch,
        ["cannonade"],
        pol0=Battle(target=1, section="hull", volleys={1: ("cannonade",)}),
        pol1=Battle(flee_at=(1,)),
        dice=[5, 1, 4],
        ring0=(2, 2, 2, 4),
        ring1=(3, 3, 3, 3),
    )
    b = t.seat(1)
    assert b.ring == [2, 2, 2, 2] and b.location == COVE and t.discard() == ["cannonade"]
    t.done()


# ------------------------------------------------------------------ events
def test_sneak_away_moves_to_an_unoccupied_island_and_cancels_plunder(monkeypatch):
    t = table(monkeypatch, [Script(sneak_away=4), Script(), Script()])
    t.put(0, 1)
    t.put(1, 1)
    t.put(2, 2)
    t.black_ship(3, "blackbeard")
    t.give(0, "sneak_away")
    t.set_plunder(0, 1)
    t.end_of_navigation_events()
    (legal,) = t.seen("sneak_away", 0)
    assert set(legal) == {None, 0, 4, 5}  # not 1, 2 (players) nor 3 (black ship)
    assert t.seat(0).location == 4 and t.plunder() == {} and "sneak_away" in t.in_play()
    t.done()


def test_royal_navy_is_sent_by_its_card_controlled_by_the_sender_and_removed_after(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script(royal_navy=1)], dice=[5, 5, 1, 1])
    t.put(0, 1)
    t.put(1, 3)
    t.put(2, 2)
    t.give(2, "royal_navy")
    t.end_of_navigation_events()
    (legal,) = t.seen("royal_navy", 2)
    assert set(legal) == {None, 0, 1, 3, 4}  # never Treasure Island nor its sender's island
    assert t.navy == (1, 2)
    t.combat()
    s = t.seat(0)
    assert s.location == COVE and s.routed == 1  # 4 dice at speed 20: two hits rout the hull
    assert t.navy == (-1, -1) and t.battle_log()[-1]["pirate"] == "royal_navy"
    t.done()


def test_sinking_the_royal_navy_gives_its_fame_to_the_ships_left(monkeypatch):
    t = table(
        monkeypatch,
        [Script(), Script(royal_navy=1), Script()],
        dice=[1, 1, 1, 1, 5, 5, 5, 5, 5],
    )
    t.put(0, 1, ring=[8, 8, 8, 2])  # 5 dice, hull 12
    t.put(1, 3)
    t.put(2, 2)
    t.give(1, "royal_navy")
    t.end_of_navigation_events()
    t.combat()
    s = t.seat(0)
    assert s.fame == 4 and s.src["combat"] == 4 and t.battle_log()[-1]["outcome"] == "sunk"
    t.done()


def test_letter_of_marque_redirects_the_royal_navy_and_takes_control(monkeypatch):
    t = table(monkeypatch, [Script(), Script(letter_of_marque=4), Script(royal_navy=1), Script()])
    t.put(0, 1)
    t.put(1, 3)
    t.put(2, 2)
    t.put(3, 4)
    t.give(2, "royal_navy")
    t.give(1, "letter_of_marque")
    t.end_of_navigation_events()
    (legal,) = t.seen("letter_of_marque", 1)
    assert set(legal) == {None, 0, 4}  # not where it is, nor the sender's nor the holder's island
    assert t.navy == (4, 1)
    t.done()


def test_treasure_map_rerolls_six_and_doubles_the_chests_of_that_island(monkeypatch):
    # the v1 player always plays its Treasure map
    t = table(monkeypatch, [Script(), Script(), Script()], dice=[6, 3])
    t.stack(2, [(1, 2, 3, 0)])
    t.give(0, "treasure_map")
    t.treasure()
    assert t.maps() == [(0, 2)] and t.seen("treasure_map", 0) == [(0, 1)]
    t.put(0, 2)
    t.put(1, 1)
    t.put(2, 5)
    t.plunder_phase()
    s = t.seat(0)
    assert (s.fame, s.gold, s.chests) == (1, 11, 6)
    t.done()


def test_plunder_takes_half_the_victims_loot_rounded_in_favour_including_burying(monkeypatch):
    t = table(monkeypatch, [Script(plunder=1), Script(bury_gold=3), Script()])
    t.give(0, "plunder")
    t.stack(1, [(3, 5, 3, 0)])
    t.treasure()
    assert t.plunder() == {1: 0} and t.seen("plunder", 0) == [(None, 1, 2)]
    t.put(0, 4)
    t.put(1, 1)
    t.put(2, 3)
    t.plunder_phase()
    thief, victim = t.seat(0), t.seat(1)
    assert (victim.fame, victim.gold, victim.chests) == (1, 9 + 2, 1)
    assert (thief.fame, thief.gold, thief.chests) == (2, 9 + 3, 2)
    t.put(1, 5)
    # 1 chest (the v1 player buries every chest) + 3 gold bags (11 gold -> keeps 2): 4 fame,
    # the thief gets 2
    t.treasure_island(1)
    thief, victim = t.seat(0), t.seat(1)
    assert victim.src["burying"] == 2 and thief.src["plunder"] == 2 + 2
    assert victim.gold == 2 and victim.chests == 0
    t.done()


def test_lookout_makes_choices_one_at_a_time_clockwise_from_the_named_player(monkeypatch):
    order = []

    def nav(island):
        def f(ask):
            chosen = ask.table.st[:, S_CHOSEN]
            order.append((ask.seat, tuple(None if c < 0 else int(c) for c in chosen)))
            return island

        return f

    # the v1 player names the next seat: seat 1's Lookout starts with seat 2
    t = table(monkeypatch, [Script(navigate=nav(i)) for i in (1, 2, 3, 4)])
    t.give(1, "lookout")
    t.navigation()
    assert t.seen("lookout") == [(None, 0, 1, 2, 3)]
    assert [s for s, _ in order] == [2, 3, 0, 1]
    assert order[0][1] == (None, None, None, None)
    assert order[3][1] == (1, None, 3, 4)  # the last sees every earlier choice
    assert [t.seat(s).location for s in range(4)] == [1, 2, 3, 4]
    t.done()


def test_without_lookout_choices_are_secret(monkeypatch):
    seen = []

    def nav(ask):
        seen.append(tuple(int(c) for c in ask.table.st[:, S_CHOSEN]))
        return 1

    t = table(monkeypatch, [Script(navigate=nav) for _ in range(3)])
    t.navigation()
    assert seen == [(-1, -1, -1)] * 3
    assert [t.seat(s).location for s in range(3)] == [1, 1, 1]


def test_shipwright_gives_one_free_level(monkeypatch):
    t = table(monkeypatch, [Script(shipwright=SAILS), Script(), Script()])
    t.put(0, 5, gold=0)
    t.give(0, "shipwright")
    t.any_island(0)
    s = t.seat(0)
    assert s.ring[SAILS] == 3 and s.gold == 0 and "shipwright" in t.in_play()
    t.black_ships_phase()
    assert "shipwright" in t.discard() and t.in_play() == []
    t.done()


def test_fame_cards_count_only_at_the_end(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()], dice=[])
    for c in ("fame:3", "fame:2", "fame:1"):
        t.give(0, c)
    t.g[G_MONTH] = 12
    t.put(1, COVE, fame=5)
    assert t.seat(0).fame == 0
    win = t.finish()
    s = t.seat(0)
    assert s.fame == 6 and s.src["fame_cards"] == 6 and win == [1.0, 0.0, 0.0]
    t.done()


def test_tavern_deck_reshuffles_the_discards_when_empty(monkeypatch):
    t = table(monkeypatch, [Script(buy_cards=2), Script(), Script()])
    t.put(0, 0, gold=4)
    t.discard_from_deck(5)  # the last 5 cards: fame cards
    for c in t.deck():
        t.give(2, c)
    t.tavern(0)
    s = t.seat(0)
    assert len(s.hand) == 2 and s.gold == 0 and len(t.deck()) == 3 and t.discard() == []
    assert t.shuffles == 1
    t.done()


# ------------------------------------------------------------------ Legendary Pirates
@pytest.mark.parametrize(
    "key,ring,faces,fame",
    [
        # Captain Hook (sails 18, 3 dice, hull 5): fires first and misses; 5 dice sink it
        ("captain_hook", [2, 7, 7, 2], [1, 1, 1, 5, 5, 5, 5, 5], 3),
        # Blackbeard (6 dice, hull 8): two exchanges
        ("blackbeard", [2, 7, 7, 2], [1] * 6 + [5] * 5 + [1] * 6 + [5, 5, 5, 1, 1], 6),
        # Flying Dutchman (4 dice on crew, regains up to 2 hull lost per exchange)
        ("flying_dutchman", [2, 7, 7, 2], [1] * 4 + [5, 5, 5, 5, 1] + [1] * 4 + [5, 5, 5, 1, 1], 6),
        # Anne Bonny & Mary Read: one hit damages every section
        ("bonny_and_read", [5, 7, 7, 5], [5, 1, 1] + [5, 5, 5, 1] + [1, 1, 1] + [5, 5, 1, 1], 6),
    ],
)
def test_each_legendary_pirate_sunk_gives_its_fame_and_is_replaced_in_phase_6(
    monkeypatch, key, ring, faces, fame
):
    t = table(monkeypatch, [Script(), Script(), Script()], dice=faces)
    t.black_ship(1, key)
    t.put(0, 1, ring=ring)
    t.put(1, 2)
    t.put(2, 3)
    t.combat()
    s = t.seat(0)
    assert (s.fame, s.src["pirates"], s.fought, s.sunk) == (fame, fame, 1, 1)
    assert t.black_ships()[0][2] and t.battle_log()[-1]["outcome"] == "sunk"
    t.done()
    t.black_ships_phase()
    island, pirate, gone = t.black_ships()[0]
    assert island == 2 and pirate not in (None, key) and not gone
    assert t.pirate_discard() == [key]
    t.done()


def test_cacafuego_captured_by_a_lone_ship_for_a_die_of_fame(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()], dice=[4])
    t.black_ship(2, "cacafuego")
    t.put(0, 2)
    t.put(1, 1)
    t.put(2, 3)
    t.combat()
    s = t.seat(0)
    assert s.fame == 4 and s.src["pirates"] == 4 and t.black_ships()[0][2]
    assert t.battle_log()[-1]["outcome"] == "captured"
    t.done()


def test_cacafuego_at_treasure_island_goes_to_the_fastest_ship(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()], dice=[2])
    t.black_ship(5, "cacafuego")
    t.put(0, 5)
    t.put(1, 5, ring=[2, 2, 2, 4])
    t.put(2, 3)
    t.combat()
    assert t.seat(1).fame == 2 and t.seat(0).fame == 0
    t.done()


def test_pirate_at_treasure_island_attacks_every_ship_and_players_do_not_fight_there(monkeypatch):
    # Hook (speed 18) misses twice ([2,2,2]: no misfire on a 2 with one other ship), a and b hit
    faces = [2, 2, 2, 5, 5, 5, 5, 2, 2, 2, 5, 1]
    t = table(monkeypatch, [Script(), Script(), Script()], dice=faces)
    t.black_ship(5, "captain_hook")
    t.put(0, 5, ring=[3, 2, 2, 4])  # strongest hull: Hook's first target
    t.put(1, 5)
    t.put(2, 3)
    t.combat()
    a, b = t.seat(0), t.seat(1)
    assert a.location == 5 and b.location == 5  # both still there: no fight between them
    assert a.fame == 1 and b.fame == 1  # Hook's 3 fame shared by 2, rounded down
    t.done()


def test_players_alone_at_treasure_island_never_fight(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()])
    for s in range(3):
        t.put(s, 5)
    t.combat()
    assert all(t.seat(s).location == 5 and t.seat(s).battles == 0 for s in range(3))
    t.done()


def test_black_ships_move_one_island_and_skip_the_cove(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()])
    t.black_ship(5, "blackbeard")
    t.black_ships_phase()
    assert t.black_ships() == [(0, "blackbeard", False)]
    t.done()


# ------------------------------------------------------------------ islands, cove, bank
def test_upgrades_at_a_section_island_cost_the_cumulative_price(monkeypatch):
    t = table(monkeypatch, [Script(upgrade=2), Script(), Script()])
    t.put(0, 2, gold=3)
    t.shipyard(0, SAILS)
    assert t.seat(0).ring[SAILS] == 4 and t.seat(0).gold == 0  # 1 + 2
    assert t.seen("upgrade", 0) == [(0, 1, 2)]  # 3 gold: at most two levels
    t.done()


def test_treasure_island_burying_and_one_double_cost_level(monkeypatch):
    t = table(
        monkeypatch,
        [Script(bury_gold=2, treasure_island_upgrade=CREW), Script(), Script()],
    )
    t.put(0, 5, gold=9, chests=4)
    # 4 chests + 2 bags of 3 gold: 6 fame; then crew 2 -> 3 at 1 x 2 gold
    t.treasure_island(0)
    s = t.seat(0)
    assert s.fame == 6 and s.src["burying"] == 6 and s.gold == 1 and s.ring[CREW] == 3
    assert t.seen("bury_chests", 0) == [(0, 1, 2, 3, 4)]  # the v1 player buries every chest
    t.done()


def test_cove_repairs_then_rewards_or_repairs_anyway_without_reward(monkeypatch):
    t = table(
        monkeypatch,
        [Script(cove_reward="cards"), Script(cove_reward="card_and_gold"), Script()],
    )
    t.put(0, COVE, ring=[0, 2, 2, 2], gold=3)
    t.cove(0)
    a = t.seat(0)
    assert a.ring == [2, 2, 2, 2] and a.gold == 1 and len(a.hand) == 2
    t.put(1, COVE, ring=[0, 0, 3, 2], gold=3, parrot="flint", wounds=1)
    t.cove(1)  # 4 gold due, 3 paid, nothing received; the parrot heals
    b = t.seat(1)
    assert b.ring == [2, 2, 3, 2] and b.gold == 0 and b.hand == [] and b.wounds == 0
    assert t.seen("cove_reward") == [(0, 1)]  # offered to the ship that paid only
    t.done()


def test_a_payment_the_empty_bank_cannot_make_is_lost(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()])
    t.stack(1, [(0, 9, 3, 0)])
    t.treasure()
    t.set_bank_gold(4, to_seat=2)
    t.put(0, 1)
    t.put(1, 2)
    t.put(2, 3)
    t.plunder_phase()
    assert t.seat(0).gold == 9 + 4 and t.bank[0] == 0
    t.done()


def test_secret_initial_arming_sees_the_untouched_board(monkeypatch):
    seen = []

    def arm(ask):
        seen.append([tuple(int(x) for x in r) for r in ask.table.st[:, S_RING : S_RING + 4]])
        planned = ask.info["ring"][SAILS] != RULES.ship_mat.start_position
        return SAILS if SAILS in ask.legal and not planned else None

    t = Table(monkeypatch, 3, scripts=[Script(arm=arm) for _ in range(3)], shuffle=True, seed=0)
    t.setup()
    assert len(seen) == 6 and all(rings == [(2, 2, 2, 2)] * 3 for rings in seen)
    assert [t.seat(s).ring[SAILS] for s in range(3)] == [3, 3, 3]
    assert [t.seat(s).gold for s in range(3)] == [8, 8, 8]
    t.done()


# ------------------------------------------------------------------ end of game
def test_tie_is_settled_by_a_duel_with_the_combat_engine(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()], dice=[5, 5])
    t.g[G_MONTH] = 12
    t.put(0, COVE, ring=[2, 2, 2, 3], fame=7)
    t.put(1, COVE, fame=7)
    win = t.finish()
    assert t.g[G_TIE] == 1 and t.g[G_DUEL] == 1 and win == [1.0, 0.0, 0.0]
    assert t.seat(1).ring == [2, 2, 2, 2] and t.seat(1).fame == 7  # the duel changes nothing
    t.done()


def test_tie_shared_when_the_duel_switch_is_off(monkeypatch):
    rules = dataclasses.replace(
        RULES, decisions=dataclasses.replace(RULES.decisions, tie_break="shared")
    )
    t = table(monkeypatch, [Script(), Script(), Script()], rules=rules)
    t.put(0, COVE, fame=7)
    t.put(2, COVE, fame=7)
    win = t.finish()
    assert t.g[G_TIE] == 1 and t.g[G_DUEL] == 0 and win == [0.5, 0.0, 0.5]
    t.done()


def test_fame_never_below_zero(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()])
    t.put(0, COVE, fame=1)
    assert t.add_fame(0, -2, "penalties") == -1
    s = t.seat(0)
    assert s.fame == 0 and s.src["penalties"] == -1


# ------------------------------------------------------------------ setup and month structure
def test_setup_start_gold_card_fame_and_five_treasure_stacks_of_twelve(monkeypatch):
    t = Table(monkeypatch, 4, scripts=[Script() for _ in range(4)], shuffle=True, seed=1)
    t.setup()
    for s in range(4):
        v = t.seat(s)
        assert (v.gold, v.fame, v.chests, v.ring) == (9, 0, 0, [2, 2, 2, 2])
        assert len(v.hand) + (v.parrot is not None) == 1
    assert t.bank == (124 - 4 * 9, 50)
    stacks = t.stacks()
    assert [len(s) for s in stacks] == [12] * 5
    assert sorted(c for s in stacks for c in s) == sorted(build_treasure_deck(RULES))
    assert game._card_count(t.gs) == 42
    t.done()


def test_treasure_phase_turns_one_card_per_outer_island_and_unclaimed_ones_are_discarded(
    monkeypatch,
):
    t = table(monkeypatch, [Script(), Script(), Script()])
    for i in range(5):
        t.stack(i, [(0, i, 0, 0)])
    t.treasure()
    assert t.face_up() == [(0, i, 0, 0) for i in range(5)] and all(not s for s in t.stacks())
    t.put(0, 1)
    t.put(1, 1)
    t.put(2, 5)
    t.plunder_phase()  # two ships at island 1 (no battle run here): nobody plunders
    assert t.face_up() == [(0, i, 0, 0) for i in range(5)]
    assert [t.seat(s).gold for s in range(3)] == [9, 9, 9]
    t.black_ships_phase()
    assert t.face_up() == [None] * 5
    t.done()


def test_navigation_offers_islands_1_to_6_never_the_cove(monkeypatch):
    t = table(monkeypatch, [Script(navigate=3), Script(), Script()])
    t.navigation()
    assert t.seen("navigate", 0) == [(0, 1, 2, 3, 4, 5)] and t.seat(0).location == 3
    t.done()


def test_plunder_needs_exactly_one_ship_at_the_island(monkeypatch):
    t = table(monkeypatch, [Script(), Script(), Script()])
    t.set_face_up([None, (1, 2, 1, 1), None, None, None])
    t.put(0, 1)
    t.put(1, 2)
    t.put(2, 2)
    t.plunder_phase()
    s = t.seat(0)
    assert (s.fame, s.gold, s.chests, len(s.hand)) == (1, 11, 1, 1) and t.face_up()[1] is None
    t.done()


def test_doubled_event_title_switch():
    def counts(rules):
        deck = list(pack_rules(rules).tdeck)
        return deck.count(C_ROYAL_NAVY), deck.count(C_LETTER), len(deck)

    assert counts(RULES) == (2, 1, 42)
    rules = dataclasses.replace(
        RULES,
        decisions=dataclasses.replace(RULES.decisions, royal_navy_doubled_title="letter_of_marque"),
    )
    assert counts(rules) == (1, 2, 42)
