"""Every Tavern card, event, parrot, Legendary Pirate and the Royal Navy forced into play on a
constructed position of the full game, with scripted dice and scripted decisions.

Mat (standard): hull/sails 4 5 6 7 8 9 10 12; crew/cannons 2 2 3 3 4 4 5 5; start position 2.
Islands: 0 Tavern, 1 Hull, 2 Sails, 3 Cannons, 4 Crew, 5 Treasure Island, 6 Cove.
"""

from __future__ import annotations

import pytest

from scenarios.loader import load_scenario
from simulator.cove import fight
from simulator.cove.combat_policies import BattlePolicy, RoyalNavyPolicy, RulePolicy, ScriptedPolicy
from simulator.cove.dice import GameDice
from simulator.cove.game import COVE, Game
from simulator.cove.rules import CoveRules

RULES = load_scenario(None, CoveRules).rules
PER_SECTION = load_scenario("scenarios/cove/artisan-per-section.toml", CoveRules).rules
HULL, CREW, CANNONS, SAILS = 0, 1, 2, 3


class ScriptedDice(GameDice):
    """Faces in order; identity permutations; fails when a die is missing."""

    def __init__(self, faces=()):
        super().__init__(rng=None)
        self.left = list(faces)
        self.used = 0

    def d6(self):
        assert self.left, "the engine asked for more dice than scripted"
        self.used += 1
        return self.left.pop(0)

    def permutation(self, n):
        return list(range(n))


class Script(BattlePolicy):
    """Scripted decisions: ``answers[kind]`` is a value or ``f(obs, legal)``; otherwise the first
    legal choice. Battle decisions go to ``battle`` (a combat policy)."""

    def __init__(self, battle=None, navy=None, **answers):
        self.answers = answers
        self.battle = battle or RulePolicy()
        self.navy = navy
        self.seen = []  # (kind, obs, legal)

    def act(self, kind, obs, legal):
        self.seen.append((kind, obs, legal))
        a = self.answers.get(kind, legal[0])
        if callable(a):
            a = a(obs, legal)
        return a

    def battle_card(self, view, hand):
        return self.battle.battle_card(view, hand)

    def overboard_chests(self, view, chests):
        return self.battle.overboard_chests(view, chests)

    def broadside(self, view, hand):
        return self.battle.broadside(view, hand)

    def navy_policy(self):
        return self.navy or RoyalNavyPolicy()


def table(players, faces=(), rules=RULES):
    g = Game(rules, players, ScriptedDice(faces), check_invariants=True)
    g.stacks = [[] for _ in range(5)]
    g.month = 1
    return g


def give(g, seat, card):
    g.tavern_deck.remove(card)
    g.seats[seat].hand.append(card)


def on_top(g, card):
    g.tavern_deck.remove(card)
    g.tavern_deck.append(card)


def put(g, seat, island, ring=None, **kw):
    s = g.seats[seat]
    s.location = island
    if ring is not None:
        s.ring = list(ring)
    for k, v in kw.items():
        if k == "gold":
            g.bank_gold -= v - s.gold
        if k == "chests":
            g.bank_chests -= v - s.chests
        setattr(s, k, v)
    return s


def done(g):
    assert not g.dice.left, f"{len(g.dice.left)} scripted dice unused"
    assert not g.invariant_errors()


# ------------------------------------------------------------------ parrots
def test_parrot_takes_effect_when_drawn_and_a_second_may_be_swapped_for_fame():
    g = table([Script(parrot_swap=True), Script(parrot_swap=False), Script()])
    s = put(g, 0, 0, fame=3)
    on_top(g, "parrot:flint")
    g.draw_tavern(s, 1)
    assert s.parrot == "flint" and "parrot:flint" not in s.hand
    on_top(g, "parrot:billy_bones")
    g.draw_tavern(s, 1)
    assert s.parrot == "billy_bones" and s.fame == 2 and s.fame_src["penalties"] == -1
    assert "parrot:flint" in g.tavern_deck  # the old parrot went back into the draw pile
    t = put(g, 1, 0, fame=3)
    on_top(g, "parrot:squire_trelawney")
    g.draw_tavern(t, 1)
    on_top(g, "parrot:long_john_silver")
    g.draw_tavern(t, 1)  # refused: put back, no replacement draw
    assert t.parrot == "squire_trelawney" and t.fame == 3 and len(t.hand) == 0
    assert "parrot:long_john_silver" in g.tavern_deck
    assert g.card_count() == g.num_tavern_cards


def test_parrot_swap_is_not_offered_without_the_fame_to_pay():
    p = Script(parrot_swap=True)
    g = table([p, Script(), Script()])
    s = put(g, 0, 0, fame=0, parrot="flint")
    on_top(g, "parrot:billy_bones")
    g.draw_tavern(s, 1)
    assert s.parrot == "flint" and not p.seen  # forced: only "keep" was legal


def test_flint_carries_any_number_of_chests_at_the_cargo_check():
    g = table([Script(), Script(), Script()])
    a = put(g, 0, 1, chests=9)  # hull position 2: capacity 5
    b = put(g, 1, 1, chests=9, parrot="flint")
    g.tavern_deck.remove("parrot:flint")
    bank = g.bank_chests
    g.phase_black_ships_and_cargo()
    assert a.chests == 5 and b.chests == 9 and g.bank_chests == bank + 4


def test_squire_trelawney_makes_its_ship_act_first_in_phase_5():
    g = table([Script(), Script(), Script()])
    a = put(g, 0, 0, ring=[2, 2, 2, 8])  # sails 12
    b = put(g, 1, 0, parrot="squire_trelawney")  # sails 5 + 20
    g.tavern_deck.remove("parrot:squire_trelawney")
    assert g.order_by_speed([a, b]) == [b, a]


@pytest.mark.parametrize(
    "parrot,ring,dice",
    [
        ("long_john_silver", [2, 2, 2, 3], 6),  # always 6 dice
        ("billy_bones", [2, 2, 7, 3], 5),  # dice = cannons (5) whatever the crew (2)
    ],
)
def test_dice_parrots_in_a_game_battle(parrot, ring, dice):
    g = table([Script(), Script(), Script()], faces=[5, 5] + [1] * (dice - 2))
    a = put(g, 0, 1, ring=ring, parrot=parrot)
    g.tavern_deck.remove(f"parrot:{parrot}")
    b = put(g, 1, 1)
    put(g, 2, 4)
    g.phase = "combat"
    fight.island_combat(g, 1, [a, b], None, False)
    assert b.location == COVE and b.routed == 1 and a.fame == 1  # routed in one broadside
    done(g)


def test_parrot_killed_costs_two_fame_and_goes_to_the_discard():
    g = table(
        [
            Script(battle=ScriptedPolicy(target=1, section="hull")),
            Script(battle=ScriptedPolicy(flee_at=(1,))),
            Script(),
        ],
        faces=[5, 5, 3],
    )
    a = put(g, 0, 1, ring=[2, 2, 2, 3])
    b = put(g, 1, 1, fame=5, parrot="flint")
    g.tavern_deck.remove("parrot:flint")
    put(g, 2, 4)
    g.phase = "combat"
    fight.island_combat(g, 1, [a, b], None, False)
    assert b.parrot is None and "parrot:flint" in g.tavern_discard
    assert b.fame == 3 and b.fame_src["penalties"] == -2 and b.ring[HULL] == 2  # parrot absorbed
    assert b.location == COVE and b.fled == 1 and a.fame == 1  # fled after a hit: +1 to a
    done(g)


def test_mutiny_on_a_voluntary_flight_loses_gold_chests_and_two_fame():
    g = table([Script(), Script(battle=ScriptedPolicy(flee_at=(1,))), Script()], faces=[1, 1, 1])
    a = put(g, 0, 1, ring=[2, 2, 2, 3])
    b = put(g, 1, 1, fame=4, gold=7, chests=3)
    put(g, 2, 4)
    bank = (g.bank_gold, g.bank_chests)
    g.phase = "combat"
    fight.island_combat(g, 1, [a, b], None, False)
    assert (b.gold, b.chests, b.fame, b.mutinies) == (0, 0, 2, 1)
    assert (g.bank_gold, g.bank_chests) == (bank[0] + 7, bank[1] + 3)
    assert a.fame == 0  # b was never hit: no flight fame
    done(g)


# ------------------------------------------------------------------ artisans
def test_artisan_played_from_any_island_one_per_ship():
    g = table([Script(artisan=HULL), Script(), Script()])
    s = put(g, 0, 5)
    give(g, 0, "artisan")
    give(g, 0, "artisan")
    g._any_island(s)
    assert s.artisans == {HULL: 0} and s.hand == ["artisan"]
    g._any_island(s)  # a second Artisan is not offered (one per ship)
    assert s.artisans == {HULL: 0} and s.hand == ["artisan"]
    assert g.card_count() == g.num_tavern_cards


def test_artisan_per_section_variant_allows_one_on_each_section():
    g = table([Script(artisan=lambda o, legal: legal[-1]), Script(), Script()], rules=PER_SECTION)
    s = put(g, 0, COVE)
    give(g, 0, "artisan")
    give(g, 0, "artisan")
    g._any_island(s)
    g._any_island(s)
    assert s.artisans == {SAILS: 0, CANNONS: 0}


def test_damaged_artisan_repaired_for_one_gold_and_absorbs_hits_in_battle():
    g = table(
        [
            Script(battle=ScriptedPolicy(target=1, section="hull")),
            Script(battle=ScriptedPolicy(flee_at=(1,)), artisan_repair=True),
            Script(),
        ],
        faces=[5, 1, 4],
    )
    a = put(g, 0, 1, ring=[2, 2, 2, 3])
    b = put(g, 1, 1, gold=3)
    g.tavern_deck.remove("artisan")
    b.artisans = {HULL: 0}
    put(g, 2, 4)
    g.phase = "combat"
    fight.island_combat(g, 1, [a, b], None, False)
    assert b.artisans == {HULL: 1} and b.ring[HULL] == 2  # absorbed one hit
    done(g)
    g.phase = "island_effects"
    g._any_island(b)
    assert b.artisans == {HULL: 0} and b.gold == 2


def test_artisan_destroyed_after_two_hits_goes_to_the_discard():
    g = table(
        [
            Script(battle=ScriptedPolicy(target=1, section="hull")),
            Script(battle=ScriptedPolicy(flee_at=(1,))),
            Script(),
        ],
        faces=[5, 6, 4],
    )
    a = put(g, 0, 1, ring=[2, 2, 2, 3])
    b = put(g, 1, 1)
    g.tavern_deck.remove("artisan")
    b.artisans = {HULL: 0}
    put(g, 2, 4)
    fight.island_combat(g, 1, [a, b], None, False)
    assert b.artisans == {} and g.tavern_discard == ["artisan"] and b.ring[HULL] == 2
    done(g)


# ------------------------------------------------------------------ battle and volley cards
def _duel(
    cards0=(),
    cards1=(),
    pol0=None,
    pol1=None,
    faces=(),
    ring0=(2, 2, 2, 2),
    ring1=(2, 2, 2, 3),
    **kw0,
):
    g = table([Script(battle=pol0), Script(battle=pol1), Script()], faces=faces)
    a = put(g, 0, 1, ring=list(ring0), **kw0)
    b = put(g, 1, 1, ring=list(ring1))
    put(g, 2, 4)
    for c in cards0:
        give(g, 0, c)
    for c in cards1:
        give(g, 1, c)
    g.phase = "combat"
    fight.island_combat(g, 1, [a, b], None, False)
    return g, a, b


def test_favourable_wind_lets_the_slower_ship_fire_first():
    g, a, b = _duel(
        ["favourable_wind"], pol0=RulePolicy(battle_cards=("favourable_wind",)), faces=[5, 6]
    )
    assert b.location == COVE and a.location == 1 and a.ring == [2, 2, 2, 2]
    assert "favourable_wind" in g.tavern_discard and a.hand == []
    done(g)


def test_smoke_lets_only_a_six_hit():
    # b is faster and fires first at a's hull: 5s miss because a played Smoke; then a routs b
    g, a, b = _duel(
        ["smoke"],
        pol0=RulePolicy(battle_cards=("smoke",)),
        faces=[5, 5, 6, 6],
        ring0=(2, 2, 2, 2),
        ring1=(2, 2, 2, 3),
    )
    assert a.ring == [2, 2, 2, 2] and b.location == COVE
    done(g)


def test_becalmed_stops_every_later_card():
    g, _a, b = _duel(
        ["becalmed"],
        ["smoke"],
        pol0=RulePolicy(battle_cards=("becalmed",)),
        pol1=RulePolicy(battle_cards=("smoke",)),
        faces=[5, 5],
        ring0=(2, 2, 2, 3),
        ring1=(2, 2, 2, 2),
    )
    assert b.location == COVE and b.hand == ["smoke"]  # could not play it
    assert g.tavern_discard == ["becalmed"]
    done(g)


def test_grapple_rolls_dice_equal_to_crew():
    g, a, b = _duel(
        ["grapple"],
        pol0=RulePolicy(battle_cards=("grapple",)),
        faces=[1, 1, 5, 5],
        ring0=(2, 5, 2, 4),
        ring1=(2, 2, 2, 3),
    )  # crew 4, cannons 2: 4 dice
    assert b.location == COVE and a.ring == [2, 5, 2, 4]
    done(g)


def test_overboard_throws_chests_for_speed_and_they_go_to_the_bank():
    bank_before = None
    g, a, b = _duel(
        ["overboard"], pol0=RulePolicy(battle_cards=("overboard",)), faces=[5, 5], chests=3
    )
    assert a.chests == 0 and b.location == COVE and a.ring == [2, 2, 2, 2]
    assert g.bank_chests == RULES.bank.chests  # the 3 chests are back in the bank
    assert bank_before is None
    done(g)


def test_grapeshot_hits_on_three_and_damages_own_cannons():
    g, a, b = _duel(
        ["grapeshot"],
        pol0=RulePolicy(volley_cards=("grapeshot",)),
        faces=[3, 4],
        ring0=(2, 2, 4, 4),
    )
    assert b.location == COVE and a.ring[CANNONS] == 2 and a.location == 1
    done(g)


def test_powder_keg_damages_every_hull_present():
    g, a, b = _duel(
        ["powder_keg"],
        pol0=ScriptedPolicy(target=1, section="crew", volleys={1: ("powder_keg",)}),
        pol1=ScriptedPolicy(flee_at=(1,)),
        faces=[5, 1, 3],
        ring0=(4, 2, 2, 4),
        ring1=(4, 3, 3, 3),
    )
    assert b.ring[:2] == [3, 2] and a.ring[HULL] == 3 and b.location == COVE
    done(g)


def test_cannonade_damages_every_section_of_the_target():
    g, _a, b = _duel(
        ["cannonade"],
        pol0=ScriptedPolicy(target=1, section="hull", volleys={1: ("cannonade",)}),
        pol1=ScriptedPolicy(flee_at=(1,)),
        faces=[5, 1, 4],
        ring0=(2, 2, 2, 4),
        ring1=(3, 3, 3, 3),
    )
    assert b.ring == [2, 2, 2, 2] and b.location == COVE and g.tavern_discard == ["cannonade"]
    done(g)


# ------------------------------------------------------------------ events
def test_sneak_away_moves_to_an_unoccupied_island_and_cancels_plunder():
    p0 = Script(sneak_away=4)
    g = table([p0, Script(), Script()])
    put(g, 0, 1)
    put(g, 1, 1)
    put(g, 2, 2)
    g.black_ships = [[3, "blackbeard", False]]
    g.pirate_deck.remove("blackbeard")
    give(g, 0, "sneak_away")
    g.plunder = {0: 1}
    g._end_of_navigation_events()
    legal = next(legal for kind, _, legal in p0.seen if kind == "sneak_away")
    assert set(legal) == {None, 0, 4, 5}  # not 1, 2 (players) nor 3 (black ship)
    assert g.seats[0].location == 4 and g.plunder == {} and "sneak_away" in g.in_play


def test_royal_navy_is_sent_by_its_card_controlled_by_the_sender_and_removed_after():
    target = Script(battle=RulePolicy())
    sender = Script(royal_navy=1, navy=None)
    g = table([target, Script(), sender], faces=[5, 5, 1, 1])
    put(g, 0, 1)
    put(g, 1, 3)
    put(g, 2, 2)
    give(g, 2, "royal_navy")
    g._end_of_navigation_events()
    legal = next(legal for kind, _, legal in sender.seen if kind == "royal_navy")
    assert set(legal) == {None, 0, 1, 3, 4}  # never Treasure Island nor its sender's island
    assert (g.rn_island, g.rn_controller) == (1, 2)
    g.phase_combat()
    s = g.seats[0]
    assert s.location == COVE and s.routed == 1  # 4 dice at speed 20: two hits rout the hull
    assert g.rn_island is None and g.battle_log[-1]["pirate"] == "royal_navy"
    done(g)


def test_sinking_the_royal_navy_gives_its_fame_to_the_ships_left():
    g = table([Script(), Script(royal_navy=1), Script()], faces=[1, 1, 1, 1, 5, 5, 5, 5, 5])
    s = put(g, 0, 1, ring=[8, 8, 8, 2])  # 5 dice, hull 12
    put(g, 1, 3)
    put(g, 2, 2)
    give(g, 1, "royal_navy")
    g._end_of_navigation_events()
    g.phase_combat()
    assert s.fame == 4 and s.fame_src["combat"] == 4 and g.battle_log[-1]["outcome"] == "sunk"
    done(g)


def test_letter_of_marque_redirects_the_royal_navy_and_takes_control():
    holder = Script(letter_of_marque=4)
    g = table([Script(), holder, Script(royal_navy=1), Script()])
    put(g, 0, 1)
    put(g, 1, 3)
    put(g, 2, 2)
    put(g, 3, 4)
    give(g, 2, "royal_navy")
    give(g, 1, "letter_of_marque")
    g._end_of_navigation_events()
    legal = next(legal for kind, _, legal in holder.seen if kind == "letter_of_marque")
    assert set(legal) == {None, 0, 4}  # not where it is, nor the sender's nor the holder's island
    assert (g.rn_island, g.rn_controller) == (4, 1)


def test_treasure_map_rerolls_six_and_doubles_the_chests_of_that_island():
    g = table([Script(treasure_map=True), Script(), Script()], faces=[6, 3])
    g.stacks[2] = [(1, 2, 3, 0)]
    give(g, 0, "treasure_map")
    g.phase_treasure()
    assert g.map_islands == [(0, 2)]
    put(g, 0, 2)
    put(g, 1, 1)
    put(g, 2, 5)
    g.phase_plunder()
    s = g.seats[0]
    assert (s.fame, s.gold, s.chests) == (1, 11, 6)
    done(g)


def test_plunder_takes_half_the_victims_loot_rounded_in_favour_including_burying():
    g = table([Script(plunder=1), Script(bury_chests=1, bury_gold=3), Script()])
    give(g, 0, "plunder")
    g.stacks[1] = [(3, 5, 3, 0)]
    g.phase_treasure()
    assert g.plunder == {1: 0}
    thief, victim = g.seats[0], g.seats[1]
    put(g, 0, 4)
    put(g, 1, 1)
    put(g, 2, 3)
    g.phase_plunder()
    assert (victim.fame, victim.gold, victim.chests) == (1, 9 + 2, 1)
    assert (thief.fame, thief.gold, thief.chests) == (2, 9 + 3, 2)
    victim.location = 5
    victim.chests = 1
    g._treasure_island(victim)  # 1 chest + 3 gold bags (11 gold -> keeps 2): 4 fame, thief gets 2
    assert victim.fame_src["burying"] == 2 and thief.fame_src["plunder"] == 2 + 2
    assert victim.gold == 2 and victim.chests == 0


def test_lookout_makes_choices_one_at_a_time_clockwise_from_the_named_player():
    order = []

    def nav(island):
        def f(obs, legal):
            order.append((obs.seat, obs.chosen))
            return island

        return f

    g = table(
        [
            Script(navigate=nav(1)),
            Script(lookout=2, navigate=nav(2)),
            Script(navigate=nav(3)),
            Script(navigate=nav(4)),
        ]
    )
    give(g, 1, "lookout")
    g.phase_navigation()
    assert [s for s, _ in order] == [2, 3, 0, 1]
    assert order[0][1] == (None, None, None, None)
    assert order[3][1] == (1, None, 3, 4)  # the last sees every earlier choice
    assert [s.location for s in g.seats] == [1, 2, 3, 4]


def test_without_lookout_choices_are_secret():
    seen = []

    def nav(obs, legal):
        seen.append(obs.chosen)
        return 1

    g = table([Script(navigate=nav) for _ in range(3)])
    g.phase_navigation()
    assert seen == [(None, None, None)] * 3


def test_shipwright_gives_one_free_level():
    g = table([Script(shipwright=SAILS), Script(), Script()])
    s = put(g, 0, 5, gold=0)
    give(g, 0, "shipwright")
    g._any_island(s)
    assert s.ring[SAILS] == 3 and s.gold == 0 and "shipwright" in g.in_play
    g.phase_black_ships_and_cargo()
    assert "shipwright" in g.tavern_discard


def test_fame_cards_count_only_at_the_end():
    g = table([Script(), Script(), Script()])
    for c in ("fame:3", "fame:2", "fame:1"):
        give(g, 0, c)
    g.month = 12
    g.seats[1].fame = 5
    res = g.finish()
    assert g.seats[0].fame == 6 and g.seats[0].fame_src["fame_cards"] == 6 and res.winners == (0,)


def test_tavern_deck_reshuffles_the_discards_when_empty():
    g = table([Script(buy_cards=2), Script(), Script()])
    s = put(g, 0, 0, gold=4)
    g.tavern_discard = g.tavern_deck[-5:]  # fame cards
    g.tavern_deck = g.tavern_deck[:-5]
    for c in list(g.tavern_deck):
        g.tavern_deck.remove(c)
        g.seats[2].hand.append(c)
    g._tavern(s)
    assert len(s.hand) == 2 and s.gold == 0 and len(g.tavern_deck) == 3 and g.tavern_discard == []
    assert g.card_count() == g.num_tavern_cards


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
    key, ring, faces, fame
):
    g = table([Script(), Script(), Script()], faces=faces)
    g.pirate_deck.remove(key)
    g.black_ships = [[1, key, False]]
    s = put(g, 0, 1, ring=ring)
    put(g, 1, 2)
    put(g, 2, 3)
    g.phase_combat()
    assert (
        s.fame == fame
        and s.fame_src["pirates"] == fame
        and s.pirates_fought == 1
        and s.pirates_sunk == 1
    )
    assert g.black_ships[0][2] and g.battle_log[-1]["outcome"] == "sunk"
    done(g)
    g.phase_black_ships_and_cargo()
    assert (
        g.black_ships[0][0] == 2
        and g.black_ships[0][1] not in (None, key)
        and key in g.pirate_discard
    )


def test_cacafuego_captured_by_a_lone_ship_for_a_die_of_fame():
    g = table([Script(), Script(), Script()], faces=[4])
    g.pirate_deck.remove("cacafuego")
    g.black_ships = [[2, "cacafuego", False]]
    s = put(g, 0, 2)
    put(g, 1, 1)
    put(g, 2, 3)
    g.phase_combat()
    assert s.fame == 4 and s.fame_src["pirates"] == 4 and g.black_ships[0][2]
    assert g.battle_log[-1]["outcome"] == "captured"
    done(g)


def test_cacafuego_at_treasure_island_goes_to_the_fastest_ship():
    g = table([Script(), Script(), Script()], faces=[2])
    g.pirate_deck.remove("cacafuego")
    g.black_ships = [[5, "cacafuego", False]]
    put(g, 0, 5)
    s = put(g, 1, 5, ring=[2, 2, 2, 4])
    put(g, 2, 3)
    g.phase_combat()
    assert s.fame == 2 and g.seats[0].fame == 0
    done(g)


def test_pirate_at_treasure_island_attacks_every_ship_and_players_do_not_fight_there():
    # Hook (speed 18) misses twice ([2,2,2]: no misfire on a 2 with one other ship), a and b hit
    g = table([Script(), Script(), Script()], faces=[2, 2, 2, 5, 5, 5, 5, 2, 2, 2, 5, 1])
    g.pirate_deck.remove("captain_hook")
    g.black_ships = [[5, "captain_hook", False]]
    a = put(g, 0, 5, ring=[3, 2, 2, 4])  # strongest hull: Hook's first target
    b = put(g, 1, 5)
    put(g, 2, 3)
    g.phase_combat()
    assert a.location == 5 and b.location == 5  # both still there: no fight between them
    assert a.fame == 1 and b.fame == 1  # Hook's 3 fame shared by 2, rounded down
    done(g)


def test_players_alone_at_treasure_island_never_fight():
    g = table([Script(), Script(), Script()])
    put(g, 0, 5)
    put(g, 1, 5)
    put(g, 2, 5)
    g.phase_combat()
    assert all(s.location == 5 and s.battles == 0 for s in g.seats)
    done(g)


def test_black_ships_move_one_island_and_skip_the_cove():
    g = table([Script(), Script(), Script()])
    g.pirate_deck.remove("blackbeard")
    g.black_ships = [[5, "blackbeard", False]]
    g.phase_black_ships_and_cargo()
    assert g.black_ships[0][:2] == [0, "blackbeard"]


# ------------------------------------------------------------------ islands, cove, bank
def test_upgrades_at_a_section_island_cost_the_cumulative_price():
    p = Script(upgrade=2)
    g = table([p, Script(), Script()])
    s = put(g, 0, 2, gold=3)
    g._shipyard(s, SAILS)
    assert s.ring[SAILS] == 4 and s.gold == 0  # 1 + 2
    assert p.seen[0][2] == (0, 1, 2)  # 3 gold: at most two levels


def test_treasure_island_burying_and_one_double_cost_level():
    g = table(
        [Script(bury_chests=4, bury_gold=2, treasure_island_upgrade=CREW), Script(), Script()]
    )
    s = put(g, 0, 5, gold=9, chests=4)
    g._treasure_island(s)  # 4 chests + 2 bags of 3 gold: 6 fame; then crew 2 -> 3 at 1 x 2 gold
    assert s.fame == 6 and s.fame_src["burying"] == 6 and s.gold == 1 and s.ring[CREW] == 3


def test_cove_repairs_then_rewards_or_repairs_anyway_without_reward():
    g = table([Script(cove_reward="cards"), Script(cove_reward="card_and_gold"), Script()])
    a = put(g, 0, COVE, ring=[0, 2, 2, 2], gold=3)
    g._cove(a)
    assert a.ring == [2, 2, 2, 2] and a.gold == 1 and len(a.hand) == 2
    b = put(g, 1, COVE, ring=[0, 0, 3, 2], gold=3, parrot="flint", parrot_wounds=1)
    g.tavern_deck.remove("parrot:flint")
    g._cove(b)  # 4 gold due, 3 paid, nothing received; the parrot heals
    assert b.ring == [2, 2, 3, 2] and b.gold == 0 and b.hand == [] and b.parrot_wounds == 0


def test_a_payment_the_empty_bank_cannot_make_is_lost():
    g = table([Script(), Script(), Script()])
    g.stacks[1] = [(0, 9, 3, 0)]
    g.phase_treasure()
    g.seats[2].gold += g.bank_gold - 4
    g.bank_gold = 4
    put(g, 0, 1)
    put(g, 1, 2)
    put(g, 2, 3)
    g.phase_plunder()
    assert g.seats[0].gold == 9 + 4 and g.bank_gold == 0


def test_secret_initial_arming_sees_the_untouched_board():
    seen = []

    def arm(obs, legal):
        seen.append([s.ring for s in obs.ships])
        return SAILS if SAILS in legal and not obs.extra["planned"] else None

    g = Game(
        RULES,
        [Script(arm=arm) for _ in range(3)],
        GameDice(__import__("numpy").random.default_rng(0)),
        check_invariants=True,
    )
    g.setup()
    assert all(rings == [(2, 2, 2, 2)] * 3 for rings in seen)
    assert [s.ring[SAILS] for s in g.seats] == [3, 3, 3] and [s.gold for s in g.seats] == [8, 8, 8]


# ------------------------------------------------------------------ end of game
def test_tie_is_settled_by_a_duel_with_the_combat_engine():
    g = table([Script(), Script(), Script()], faces=[5, 5])
    g.month = 12
    g.seats[0].ring = [2, 2, 2, 3]
    g.seats[0].fame = g.seats[1].fame = 7
    res = g.finish()
    assert res.tie and res.duel and res.winners == (0,)
    assert [s.win for s in res.seats] == [1.0, 0.0, 0.0]
    done(g)


def test_tie_shared_when_the_duel_switch_is_off():
    import dataclasses

    rules = dataclasses.replace(
        RULES, decisions=dataclasses.replace(RULES.decisions, tie_break="shared")
    )
    g = table([Script(), Script(), Script()], rules=rules)
    g.seats[0].fame = g.seats[2].fame = 7
    res = g.finish()
    assert res.tie and not res.duel and [s.win for s in res.seats] == [0.5, 0.0, 0.5]


def test_fame_never_below_zero():
    g = table([Script(), Script(), Script()])
    s = g.seats[0]
    s.fame = 1
    g.add_fame(s, -2, "penalties")
    assert s.fame == 0 and s.fame_src["penalties"] == -1


# ------------------------------------------------------------------ setup and month structure
def test_setup_start_gold_card_fame_and_five_treasure_stacks_of_twelve():
    import numpy as np

    g = Game(
        RULES,
        [Script() for _ in range(4)],
        GameDice(np.random.default_rng(1)),
        check_invariants=True,
    )
    g.setup()
    for s in g.seats:
        assert (s.gold, s.fame, s.chests, s.ring) == (9, 0, 0, [2, 2, 2, 2])
        assert len(s.hand) + (s.parrot is not None) == 1
    assert g.bank_gold == 124 - 4 * 9 and g.bank_chests == 50
    assert [len(st) for st in g.stacks] == [12] * 5
    assert sorted(c for st in g.stacks for c in st) == sorted(
        (c.fame, c.gold, c.chests, c.tavern) for c in RULES.treasure.cards for _ in range(c.copies)
    )
    assert g.card_count() == 42


def test_treasure_phase_turns_one_card_per_outer_island_and_unclaimed_ones_are_discarded():
    g = table([Script(), Script(), Script()])
    g.stacks = [[(0, i, 0, 0)] for i in range(5)]
    g.phase_treasure()
    assert g.face_up == [(0, i, 0, 0) for i in range(5)] and all(not st for st in g.stacks)
    put(g, 0, 1)
    put(g, 1, 1)
    put(g, 2, 5)
    g.phase_plunder()  # two ships at island 1 (no battle run here): nobody plunders
    g.phase_black_ships_and_cargo()
    assert g.face_up == [None] * 5 and len(g.treasure_discard) == 5


def test_navigation_offers_islands_1_to_6_never_the_cove():
    p = Script(navigate=3)
    g = table([p, Script(), Script()])
    g.phase_navigation()
    legal = next(legal for kind, _, legal in p.seen if kind == "navigate")
    assert legal == (0, 1, 2, 3, 4, 5) and g.seats[0].location == 3


def test_plunder_needs_exactly_one_ship_at_the_island():
    g = table([Script(), Script(), Script()])
    g.face_up = [None, (1, 2, 1, 1), None, None, None]
    put(g, 0, 1)
    put(g, 1, 2)
    put(g, 2, 2)
    g.phase_plunder()
    s = g.seats[0]
    assert (s.fame, s.gold, s.chests, len(s.hand)) == (1, 11, 1, 1) and g.face_up[1] is None


def test_doubled_event_title_switch():
    import dataclasses

    from simulator.cove.game import build_tavern_deck

    deck = build_tavern_deck(RULES)
    assert (deck.count("royal_navy"), deck.count("letter_of_marque"), len(deck)) == (2, 1, 42)
    rules = dataclasses.replace(
        RULES,
        decisions=dataclasses.replace(RULES.decisions, royal_navy_doubled_title="letter_of_marque"),
    )
    deck = build_tavern_deck(rules)
    assert (deck.count("royal_navy"), deck.count("letter_of_marque"), len(deck)) == (1, 2, 42)
