"""The compiled players' behaviour on constructed positions (readable mode): the issue-13
baselines (``*-v1``, :mod:`simulator.cove.fast.players`), the expected-value kinds
(:mod:`simulator.cove.fast.players_ev`, :mod:`simulator.cove.fast.players_ev_battle`) and
``random``, each asked through the function the engine calls (``players.navigate``,
``players.battle_card``, ...) on a table of ``tests/cove_table.py``.

Positions: every ship at the Cove unless placed, month 3, no card face up unless given.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scenarios.loader import FrozenMap, load_scenario
from scenarios.strategies import StrategyDecl, with_strategies
from simulator.cove.fast import game, players, players_ev
from simulator.cove.fast.packed import (
    BG_CARD_ROUND,
    BT_SMOKE,
    G_BLACK,
    G_MONTH,
    G_NBLACK,
    NONE,
    NS_HULL,
    PP_HV_CHEST,
    PP_STAKE,
    S_ART,
    S_CHOSEN,
    S_PARROT,
    S_RING,
)
from simulator.cove.fast.rng import set_state, state_of
from simulator.cove.rules import CoveRules
from simulator.cove.tables import strategy_params
from tests.cove_odds_oracle import PirateOdds, lone_pirate_odds, ship_state
from tests.cove_table import Table, random_position

SCEN = load_scenario(None, CoveRules)
RULES = SCEN.rules
COVE = 6
HULL, CREW, CANNONS, SAILS = 0, 1, 2, 3
POOR = [(0, 2, 1, 0), (0, 3, 1, 0), (1, 2, 1, 0), (0, 2, 1, 0), (0, 2, 1, 0)]
IMPROVED = ("plunderer", "brawler", "tavern", "balanced")


def _with(**strategies):
    """The standard scenario plus ``strategies`` (name -> (kind, params))."""
    extra = {
        k: StrategyDecl(kind=kind, params=FrozenMap(params))
        for k, (kind, params) in strategies.items()
    }
    return with_strategies(SCEN, extra).rules


def position(
    me: str,
    ships=({}, {}, {}),
    *,
    treasure=(None,) * 5,
    black=(),
    month: int = 3,
    chosen=None,
    hand=(),
    rules=RULES,
    others: str = "balanced-v1",
) -> Table:
    """Seat 0 plays ``me``; ``ships[i]`` are seat ``i``'s ``Table.put`` arguments (``location``
    the island, the Cove by default); ``chosen``: the islands announced (``None``: not yet)."""
    n = len(ships)
    t = Table(
        None, n, rules=rules, strategies=(me,) + (others,) * (n - 1), month=month, shuffle=True
    )
    for s, kw in enumerate(ships):
        kw = dict(kw)
        t.put(s, kw.pop("location", COVE), **kw)
    t.set_face_up(treasure)
    for isl, key in black:
        t.black_ship(isl, key)
    for s, c in enumerate(chosen or ()):
        t.st[s, S_CHOSEN] = -1 if c is None else c
    for card in hand:
        t.give(0, card)
    return t


def navigate(t: Table, seat: int = 0) -> int:
    return int(players.navigate(t.tab, t.gs, t.oc, seat, t.sc.scores, t.sc.pir, t.sc.opp))


def values(t: Table, seat: int = 0) -> np.ndarray:
    """``players_ev.island_values`` of every island, exact (not the navigation's lazy bounds)."""
    out = np.empty(6, np.float64)
    players_ev.island_values(
        t.tab, t.gs, t.oc, seat, out, False, np.empty((6, players_ev.DET_COLS), np.float64)
    )
    return out


def expected_opponents(t: Table, seat: int = 0) -> np.ndarray:
    """The opponent model's expected number of opponents at each island."""
    tab, oc = t.tab, t.oc
    pir = np.empty(6, np.int64)
    players_ev.black_pirates(t.g, pir)
    opp = np.zeros((t.n, 6), np.float64)
    players_ev.opponent_odds(
        tab.prm, tab.val, tab.tcard, tab.npc, tab.par, t.g, t.st, t.pp, oc.lt, oc.lmemo, oc.ct,
        oc.cmemo, oc.et, seat, pir, opp,
    )  # fmt: skip
    return np.delete(opp, seat, axis=0).sum(axis=0)


def lone_p_sink(t: Table, pirate: str, seat: int = 0) -> float:
    """The expected-value player's P(sink) of ``pirate`` alone, with its hand."""
    row = t.npc_keys.index(pirate)
    plan = players_ev.lone_plan(t.tab.prm, t.st, t.oc.lt, t.oc.lmemo, seat, row, True, 10.0, 0.8)
    return float(plan[0])


def pirate_position(
    hand,
    ring=(6, 8, 8, 5),
    pirate="blackbeard",
    at=2,
    chosen=(None, 3, 4, 0),
    me="balanced",
    rules=RULES,
):
    """Our ship alone can reach a pirate (the others have announced other islands)."""
    return position(
        me, [{"ring": ring}, {}, {}, {}], treasure=POOR, black=[(at, pirate)], chosen=chosen,
        hand=hand, rules=rules,
    )  # fmt: skip


# ------------------------------------------------------------------ the v1 baselines
def test_plunderer_chases_the_richest_card_it_can_hold():
    treasure = [(0, 2, 5, 1), (0, 9, 3, 0), (2, 2, 1, 0), (0, 3, 0, 0), (0, 2, 0, 0)]
    assert navigate(position("plunderer-v1", treasure=treasure)) == 1  # 9 gold, 3 chests
    full = position("plunderer-v1", [{"chests": 5}, {}, {}], treasure=treasure)
    assert navigate(full) == 5  # the hold is full: bury instead


def test_brawler_seeks_a_pirate_only_when_the_odds_favour_it():
    treasure = [(0, 2, 1, 0), (1, 3, 1, 0), (0, 2, 1, 0), (0, 2, 1, 0), (0, 2, 1, 0)]
    hook = [(1, "captain_hook")]
    # 5 dice, speed 5: Hook (hull 5, 3 dice) is likely sunk
    strong = position("brawler-v1", [{"ring": (5, 8, 8, 2)}, {}, {}], treasure=treasure, black=hook)
    odds = players.pirate_odds(
        strong.tab, strong.st, strong.oc, 0, strong.npc_keys.index("captain_hook")
    )
    assert odds >= strategy_params(RULES, "brawler-v1")["pirate_odds_min"]
    assert navigate(strong) == 1
    weak = position("brawler-v1", treasure=treasure, black=hook)
    assert navigate(weak) != 1


def test_balanced_avoids_the_island_a_stronger_opponent_will_take():
    treasure = [(0, 2, 0, 0), (2, 6, 2, 0), (1, 5, 2, 0), (0, 2, 0, 0), (0, 2, 0, 0)]
    # the bully will head for island 1, the best card, and would win
    ships = [{}, {"ring": (6, 8, 8, 8)}, {"chests": 6}]
    assert navigate(position("balanced-v1", ships, treasure=treasure)) == 2


def test_tavern_player_buys_three_cards_and_takes_cards_at_the_cove():
    t = position("tavern-v1", [{"location": 0}, {}, {}])
    assert players.buy_cards(t.tab, t.gs, 0, 3) == 3
    poor = position("tavern-v1", [{"location": 0, "gold": 3}, {}, {}])
    assert players.buy_cards(poor.tab, poor.gs, 0, 1) == 1
    t.put(0, COVE, ring=(0, 2, 2, 2), gold=5)
    t.cove(0)  # repaired for 2 gold: the reward is two cards, not a card and 2 gold
    assert len(t.seat(0).hand) == 2 and t.seat(0).gold == 3


def test_random_player_picks_legal_choices_uniformly_from_its_own_stream():
    """``random``: ``legal[Generator.integers(len(legal))]`` of the seat's players stream, exactly
    as numpy draws it (uniform), and no other stream moves."""
    t = position("random", [{}, {}, {}])
    legal = np.array([7, 3, 5, 0, 4, 1], np.int64)
    gen = np.random.default_rng(0)
    set_state(gen, t.gs.rs[2])
    before = t.gs.rs.copy()
    picks = [int(game._random_pick(t.gs, 1, legal, 6)) for _ in range(300)]
    assert picks == [int(legal[gen.integers(6)]) for _ in range(300)]
    assert (t.gs.rs[2] == state_of(gen)).all()
    assert (np.delete(t.gs.rs, 2, axis=0) == np.delete(before, 2, axis=0)).all()


def test_equal_opponents_are_picked_at_random_not_by_seat():
    """Equal fame (Plunder's victim, the Royal Navy's target) is broken by the player's own
    generator: ``Generator.integers(number of equals)``, exactly, whatever the seats."""
    ships = [{}, {"location": 1}, {"location": 2}, {"location": 3}]
    t = position("tavern-v1", ships)
    gen = np.random.default_rng(0)
    set_state(gen, t.gs.rs[1])
    cands = np.array([1, 2, 3], np.int64)
    picks = [int(players.most_famous(t.st, t.gs.rs, 0, cands, 3)) for _ in range(200)]
    assert picks == [1 + int(gen.integers(3)) for _ in range(200)]
    legal = np.array([NONE, 1, 2, 3, 4], np.int64)
    navy = [int(players.royal_navy(t.gs, 0, legal, 5, t.sc.cands)) for _ in range(200)]
    assert navy == [1 + int(gen.integers(3)) for _ in range(200)]  # at the leaders' islands
    t.put(2, 2, fame=1)  # one leader: no draw
    state = t.gs.rs[1].copy()
    assert players.most_famous(t.st, t.gs.rs, 0, cands, 3) == 2
    assert (t.gs.rs[1] == state).all()


def test_a_tuned_strategy_changes_play():
    rules = _with(shy=("tavern-v1", {"buy_cards": 0, "tavern_bias": -10.0}))
    t = position("shy", [{"location": 0}, {}, {}], rules=rules)
    assert players.buy_cards(t.tab, t.gs, 0, 3) == 0
    q = position("tavern-v1", [{"location": 0}, {}, {}])
    assert players.buy_cards(q.tab, q.gs, 0, 3) == 3


# ------------------------------------------------------------------ the expected-value players
@pytest.mark.parametrize("kind", IMPROVED)
def test_improved_players_attack_a_pirate_when_it_is_the_best_option(kind):
    """A strong ship with Smoke and Grapeshot against Blackbeard (6 fame): P(sink) 0.731 with
    the cards (the exact chain of ``odds.lone_pirate_odds``; 0.08 without); every improved kind
    sails at it, the v1 veto did not."""
    t = pirate_position(("smoke", "grapeshot"), me=kind)
    p = lone_p_sink(t, "blackbeard")
    exact = lone_pirate_odds(
        PirateOdds(RULES), "blackbeard", ship_state(RULES, (6, 8, 8, 5)), None,
        ("smoke", "grapeshot"),
    ).p_sink  # fmt: skip
    assert p == pytest.approx(exact, abs=1e-12) and round(p, 3) == 0.731
    assert navigate(t) == 2
    old = pirate_position(("smoke", "grapeshot"), me=f"{kind}-v1")
    assert navigate(old) != 2


@pytest.mark.parametrize("kind", IMPROVED)
@pytest.mark.parametrize(
    ("hand", "ring"),
    [((), (6, 8, 8, 5)), (("smoke",), (3, 5, 5, 3)), (("smoke", "grapeshot"), (2, 2, 2, 2))],
)
def test_improved_players_leave_a_pirate_alone_when_it_is_not(kind, hand, ring):
    """The same Blackbeard with no cards (P(sink) 0.08), or a weak ship even with cards: the
    expected fame is below the rout cost, so nobody sails at it."""
    t = pirate_position(hand, ring=ring, me=kind)
    assert values(t)[2] < 0
    t = pirate_position(hand, ring=ring, me=kind)
    assert navigate(t) != 2


def test_company_shares_the_pirate_fame_and_changes_the_value():
    """Two opponents announced at the pirate's island: the company estimate is used (the fame
    is shared, the survivors fight for the card)."""
    alone = pirate_position(("smoke", "grapeshot"))
    a = values(alone)[2]
    assert expected_opponents(alone)[2] == 0.0 and alone.oc.cmemo.count[0] == 0  # no estimate
    crowd = pirate_position(("smoke", "grapeshot"), chosen=(None, 2, 2, 0))
    c = values(crowd)[2]
    assert expected_opponents(crowd)[2] == 2.0 and crowd.oc.cmemo.count[0] > 0  # estimated
    assert c != a


def test_fight_bias_acts_without_an_opponent_model_switch():
    """fight_bias values each expected opponent at an island: the opponent model is always on,
    so a brawler-minded and a peace-minded copy of one kind choose differently."""
    treasure = [(0, 2, 0, 0), (2, 6, 2, 0), (1, 5, 2, 0), (0, 2, 0, 0), (0, 2, 0, 0)]
    rules = _with(
        keen=("balanced", {"fight_bias": 3.0, "noise": 0.0}),
        shy=("balanced", {"fight_bias": -3.0, "noise": 0.0}),
    )
    ships = [{"ring": (4, 5, 5, 4)}, {}, {}, {}]
    keen = position("keen", ships, treasure=treasure, rules=rules)
    shy = position("shy", ships, treasure=treasure, rules=rules)
    a, b = values(keen), values(shy)
    exp = expected_opponents(keen)
    assert (exp == expected_opponents(shy)).all() and exp.max() > 0.5
    assert a - b == pytest.approx(6.0 * exp)
    keen = position("keen", ships, treasure=treasure, rules=rules)
    shy = position("shy", ships, treasure=treasure, rules=rules)
    assert navigate(keen) != navigate(shy)


def test_the_black_ships_route_decides_the_last_safe_burial():
    """Four players: the black ship is on Treasure Island in month 12 (one island a month from
    the Tavern), so month 11 is the last safe burial: the player buries every coin then and
    values its holdings at nothing after; in month 10 it keeps its reserve."""
    ships = [{"gold": 11, "chests": 4, "location": 5}, {}, {}, {}]
    m11 = position("balanced", ships, month=11, black=[(4, "blackbeard")])
    m10 = position("balanced", ships, month=10, black=[(3, "blackbeard")])

    def holding(t):
        return players_ev.holding_values(t.tab.prm, t.tab.npc, t.g, t.pp, 0)

    assert holding(m11) == (0.0, 0.0, True)
    assert holding(m10)[2] is False
    assert players.bury_gold(m11.tab, m11.gs, 0, 3) == 3
    reserve = strategy_params(RULES, "balanced")["bury_reserve"]
    assert players.bury_gold(m10.tab, m10.gs, 0, 3) == (11 - reserve) // 3
    # sailing: in month 11 the burial is worth all of it, so Treasure Island wins
    nav = position("balanced", ships, month=11, black=[(4, "blackbeard")], treasure=POOR)
    assert nav.g[G_MONTH] == 11 and navigate(nav) == 5


def test_galleon_switches_are_honoured():
    """The Cacafuego's fame is its die's mean (decisions.cacafuego_fame_die_sides), and a lone
    ship takes it only with decisions.cacafuego_lone_ship_captures."""
    base = values(pirate_position((), pirate="cacafuego"))[2]
    d = RULES.decisions
    for sides, alone, gain in [(6, True, 3.5), (10, True, 5.5), (6, False, 0.0)]:
        rules = dataclasses.replace(
            RULES,
            decisions=dataclasses.replace(
                d, cacafuego_fame_die_sides=sides, cacafuego_lone_ship_captures=alone
            ),
        )
        v = values(pirate_position((), pirate="cacafuego", rules=rules))[2]
        assert v - base == pytest.approx(gain - 3.5)


# ------------------------------------------------------------------ the expected-value battle
def battle_position(
    me: str, ring, *, npc=None, npc_hull=None, others=(), chests=0, smoke=False, hand=()
):
    """Our ship (seat 0, ``ring``) in battle at the Hull island against ``npc`` and player ships
    ``others`` (their rings), in the first card round."""
    ships = [{"ring": ring, "chests": chests, "location": 1}] + [
        {"ring": r, "location": 1} for r in others
    ]
    ships += [{}] * max(0, 3 - len(ships))
    t = position(me, ships, hand=hand)
    bt = t.start_battle(list(range(1 + len(others))), [npc] if npc else ())
    if npc is not None and npc_hull is not None:
        bt.nst[0, NS_HULL] = npc_hull
    bt.bst[0, BT_SMOKE] = int(smoke)
    bt.bg[BG_CARD_ROUND] = 1
    return t, bt


def battle_card(t: Table, bt, playable) -> str | None:
    codes = np.array([t.code(c) for c in playable] + [0], np.int64)
    got = players.battle_card(t.tab, t.gs, t.oc, bt, 0, codes, len(playable))
    return None if got == NONE else t.card(got)


def test_favourable_wind_only_when_it_changes_the_order():
    """Speed 6 against Captain Hook (18): +6 changes nothing, so the improved player keeps the
    card (the old one played it); against a player ship at 9 it puts us first, so it plays."""
    wind = ("favourable_wind",)
    t, bt = battle_position("balanced", (3, 5, 5, 3), npc="captain_hook", hand=wind)
    assert battle_card(t, bt, wind) is None
    t, bt = battle_position("balanced-v1", (3, 5, 5, 3), npc="captain_hook", hand=wind)
    assert battle_card(t, bt, wind) == "favourable_wind"
    t, bt = battle_position("balanced", (3, 5, 5, 3), others=[(3, 3, 3, 5)], hand=wind)
    assert battle_card(t, bt, wind) == "favourable_wind"  # speeds 6 and 8
    t, bt = battle_position("balanced", (3, 5, 5, 3), others=[(3, 3, 3, 8)], hand=wind)
    assert battle_card(t, bt, wind) is None  # 12: out of reach of +6


def test_overboard_when_it_puts_us_first_and_saves_the_battle():
    """Speed 12 against Hook (18): 4 chests overboard (+8) put us first and lift P(sink) from
    0.75 to 0.89. Worth it when the chests can no longer be buried (after the last safe burial
    month), not while each is worth w_chest; with only 3 chests it can tie (a coin flip for the
    first broadside, 0.82); the old player never played it."""
    ob = ("overboard",)
    w_chest = strategy_params(RULES, "balanced")["w_chest"]

    def case(chests, hv_chest, me="balanced"):
        t, bt = battle_position(me, (5, 7, 7, 8), npc="captain_hook", chests=chests, hand=ob)
        t.pp[0, PP_STAKE] = 4.0  # the island it came for
        if hv_chest is not None:
            t.pp[0, PP_HV_CHEST] = hv_chest
        return t, bt

    t, bt = case(5, w_chest)
    assert battle_card(t, bt, ob) is None  # 4 chests at 0.85 > 0.14 x (4 + 3 + 2.5)
    t, bt = case(5, 0.0)
    assert battle_card(t, bt, ob) == "overboard"
    assert players.overboard_chests(t.tab, t.gs, t.oc, bt, 0, 5) == 4
    t, bt = case(3, 0.0)
    assert battle_card(t, bt, ob) == "overboard"
    assert players.overboard_chests(t.tab, t.gs, t.oc, bt, 0, 3) == 3
    t, bt = case(3, w_chest)
    assert battle_card(t, bt, ob) is None
    t, bt = case(5, None, me="balanced-v1")
    assert battle_card(t, bt, ob) is None
    assert players.overboard_chests(t.tab, t.gs, t.oc, bt, 0, 5) == 0


def test_lone_battle_plays_smoke_then_the_solvers_volleys():
    """Alone against a pirate: Smoke in the card round, then at each broadside the volley the
    exact chain (``odds.PirateOdds.best_volley``) says: against Blackbeard the strong ship
    (6, 8, 8, 5) keeps its Grapeshot; against Anne Bonny & Mary Read a weaker one (2, 5, 5, 2)
    fires Grapeshot and Powder keg."""
    hand = ("smoke", "grapeshot")
    t, bt = battle_position("plunderer", (6, 8, 8, 5), npc="blackbeard", hand=hand)
    assert battle_card(t, bt, ("smoke",)) == "smoke"  # the card rounds offer battle cards only
    for npc, ring, volley_hand, want in [
        ("blackbeard", (6, 8, 8, 5), ("grapeshot",), ()),
        ("bonny_and_read", (2, 5, 5, 2), ("grapeshot", "powder_keg"), ("grapeshot", "powder_keg")),
    ]:
        t, bt = battle_position("plunderer", ring, npc=npc, smoke=True, hand=volley_hand)
        volley = np.full(3, -1, np.int64)
        flee, target, _ = players.broadside(t.tab, t.gs, t.oc, bt, 0, volley)
        names, _ = PirateOdds(RULES).best_volley(
            npc,
            (*ring, 0, 0, 0, 0, 0),
            grapeshot=1,
            powder_keg=volley_hand.count("powder_keg"),
            smoke=True,
            pirate_to_fire=True,  # the pirate has not fired yet this exchange
        )
        assert not flee and target == -1
        assert tuple(t.card(c) for c in volley if c >= 0) == tuple(names) == want


def test_the_plunderer_stands_when_standing_pays():
    """The old plunderer fled at the first hit (a 1-in-6 mutiny each time); the new one stands
    in a battle it is likely to win and flees a hopeless one."""
    volley = np.full(3, -1, np.int64)
    t, bt = battle_position("plunderer", (5, 5, 5, 5), others=[(2, 2, 2, 2)])
    t.pp[0, PP_STAKE] = 3.0
    assert not players.broadside(t.tab, t.gs, t.oc, bt, 0, volley)[0]
    t, bt = battle_position("plunderer", (1, 2, 2, 2), others=[(8, 8, 8, 8)])
    t.pp[0, PP_STAKE] = 3.0
    assert players.broadside(t.tab, t.gs, t.oc, bt, 0, volley)[0]


def test_of_two_non_player_ships_the_least_hull_is_aimed_at():
    """Against a pirate and the Royal Navy together the expected-value kinds fire at the one with
    the least hull left (the second, ``npc_target(1)`` = -2, when it is the weaker); the v1 kinds
    name no ship (-1: the engine fires at the first present)."""
    for me in ("balanced", "balanced-v1"):
        t = position(me, [{"ring": (5, 5, 5, 5), "location": 1}, {}, {}])
        bt = t.start_battle([0], ["captain_hook", "royal_navy"])
        volley = np.full(3, -1, np.int64)
        bt.nst[1, NS_HULL] = 2  # the Royal Navy down to 2 hull (Hook: 5)
        flee, target, _ = players.broadside(t.tab, t.gs, t.oc, bt, 0, volley)
        assert not flee and target == (-2 if me == "balanced" else -1)


@pytest.mark.parametrize("key", ["blackbeard", "flying_dutchman", "captain_hook", "bonny_and_read"])
def test_players_pirate_odds_equal_the_combat_engines_exact_duel(key):
    """The v1 player's odds of sinking a pirate alone (``players.pirate_odds``, read from the
    table) are the combat helper's exact duel (``duel.exact_duel``), to 1e-12."""
    from simulator.cove.duel import DuelShip, exact_duel

    t = position("balanced-v1")
    row = t.npc_keys.index(key)
    sections = ("hull", "crew", "cannons", "sails")
    n = 0
    for ring in [(2, 2, 2, 2), (4, 5, 5, 3), (3, 7, 7, 3), (5, 8, 6, 6), (8, 8, 8, 8)]:
        for art in [{}, {"crew": 0}, {"hull": 1}]:
            for parrot in [None, "long_john_silver", "billy_bones"]:
                t.st[0, S_RING : S_RING + 4] = ring
                t.st[0, S_ART : S_ART + 4] = -1
                for sec, used in art.items():
                    t.st[0, S_ART + sections.index(sec)] = used
                t.st[0, S_PARROT] = t.parrots.index(parrot) if parrot else -1
                speed = RULES.ship_mat.sails[ring[SAILS] - 1]
                speed += RULES.parrots[parrot].speed_bonus if parrot else 0
                if speed == RULES.pirates[key].sails:
                    continue  # a roll-off: the v1 player's odds read it as not first
                exact = exact_duel(RULES, DuelShip(ring, artisans=art, parrot=parrot), key).win
                got = players.pirate_odds(t.tab, t.st, t.oc, 0, row)
                assert got == pytest.approx(exact, abs=1e-12), (ring, art, parrot)
                n += 1
    assert n >= 40


def _company_estimates(t: Table) -> set[tuple[int, ...]]:
    """The situations (seed words) of every company estimate made on the table (its memo)."""
    keys, count = t.oc.cmemo.keys, t.oc.cmemo.count
    made = {tuple(int(w) for w in keys[h, 1 : 1 + keys[h, 0]]) for h in np.flatnonzero(keys[:, 0])}
    assert len(made) == count[0]  # the memo was never emptied: it holds every estimate made
    return made


def _with_a_pirate(seed: int) -> Table:
    """A random position (an expected-value kind at seat 0) with a fighting pirate on the first
    black ship and no island announced."""
    t = random_position(seed, IMPROVED[seed % 4])
    island = int(np.random.default_rng(seed).integers(0, 6))
    pirate = ("blackbeard", "captain_hook", "flying_dutchman", "bonny_and_read")[seed % 4]
    t.g[G_BLACK : G_BLACK + 3] = (island, t.npc_keys.index(pirate), 0)  # afloat
    t.g[G_NBLACK] = max(t.g[G_NBLACK], 1)
    t.st[:, S_CHOSEN] = -1
    return t


def test_the_compiled_navigation_makes_a_subset_of_the_estimates():
    """The navigation values an island that needs company estimates only when its upper bound
    (``players_ev.company_bound``) can still reach the best value: on random positions with a
    fighting pirate (no island announced), it sails where the exact values say (the first best)
    and estimates no situation the exact values do not, and fewer of them."""
    lazy_n = exact_n = 0
    for seed in range(10):
        lazy = _with_a_pirate(seed)
        island = int(players_ev.navigate(lazy.tab, lazy.gs, lazy.oc, 0))
        exact = _with_a_pirate(seed)
        out = values(exact)
        assert island == int(np.argmax(out))  # the first best of the exact values
        assert _company_estimates(lazy) <= _company_estimates(exact)
        lazy_n += len(_company_estimates(lazy))
        exact_n += len(_company_estimates(exact))
    assert lazy_n < exact_n


def test_the_v1_players_odds_read_the_parrot_as_always_protecting():
    """Issue 13: the v1 player's chain (kept as the baselines' reading) says 0.574 for a Flint
    ship against Hook with ``combat.parrot_absorbs_hits`` off, where the exact value is 0.258
    (``tests/test_cove_odds.py``)."""
    no_absorb = dataclasses.replace(
        RULES, combat=dataclasses.replace(RULES.combat, parrot_absorbs_hits=False)
    )
    t = position(
        "balanced-v1", [{"ring": (4, 3, 3, 4), "parrot": "flint"}, {}, {}], rules=no_absorb
    )
    row = t.npc_keys.index("captain_hook")
    assert round(players.pirate_odds(t.tab, t.st, t.oc, 0, row), 3) == 0.574
