"""Scripted Pirate's Cove players: what they see, their parameters, their odds and behaviour."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scenarios.loader import FrozenMap, ScenarioError, load_scenario
from scenarios.strategies import StrategyDecl, param_space, with_strategies
from simulator.cove.api import play_games, play_one
from simulator.cove.dice import GameDice
from simulator.cove.duel import DuelShip, exact_duel
from simulator.cove.game import Game
from simulator.cove.observation import Observation, ShipView
from simulator.cove.odds import win_probability
from simulator.cove.players import KINDS, PLAYER_CLASSES, make_player, strategy_params
from simulator.cove.players_v1 import V1_BASE_PARAMS, V1_KIND_DEFAULTS, HeuristicPlayerV1
from simulator.cove.rules import PLAYER_ROOT_KINDS, CoveRules
from simulator.errors import UserError
from simulator.runner import Block

RULES = load_scenario(None, CoveRules).rules
MAT = RULES.ship_mat
SECTIONS = ("hull", "crew", "cannons", "sails")


def view(seat=0, ring=(2, 2, 2, 2), gold=9, chests=0, fame=0, parrot=None, artisans=(), location=6):
    values = tuple(getattr(MAT, s)[p - 1] for s, p in zip(SECTIONS, ring))
    speed = values[3] + (RULES.parrots[parrot].speed_bonus if parrot else 0)
    return ShipView(
        seat,
        tuple(ring),
        values,
        speed,
        gold,
        chests,
        fame,
        1,
        parrot,
        0,
        tuple(artisans),
        location,
    )


def obs(
    ships, seat=0, treasure=(None,) * 5, black_ships=(), month=3, kind="navigate", chosen=None, **kw
):
    return Observation(
        seat=seat,
        month=month,
        num_months=12,
        phase="navigation",
        kind=kind,
        hand=(),
        ships=tuple(ships),
        treasure=tuple(treasure),
        black_ships=tuple(black_ships),
        royal_navy=None,
        royal_navy_controller=None,
        treasure_maps=(),
        plunder=(),
        chosen=tuple(chosen or [None] * len(ships)),
        bank_gold=50,
        bank_chests=50,
        tavern_deck_size=30,
        pirate_discard=(),
        pirate_deck_size=3,
        extra=kw,
    )


# ------------------------------------------------------------------ what players see
class Spy:
    """Wraps a player; checks every observation against the engine's hidden state."""

    def __init__(self, inner, game_ref):
        self.inner, self.game_ref, self.n = inner, game_ref, 0

    def act(self, kind, o, legal):
        g = self.game_ref[0]
        assert isinstance(o, Observation)
        assert o.hand == tuple(g.seats[o.seat].hand)  # its own hand...
        names = set(Observation._fields) | set(ShipView._fields)
        assert not names & {
            "tavern_deck",
            "treasure_deck",
            "stacks",
            "pirate_deck",
            "hands",
            "dice",
            "rng",
        }
        for sv in o.ships:  # ...and only the sizes of the others
            assert sv.hand_size == len(g.seats[sv.seat].hand)
        assert o.tavern_deck_size == len(g.tavern_deck)
        cached = g._views
        g._views = [None] * len(g.seats)  # the per-seat view cache must never be stale
        assert o.ships == tuple(g._ship_view(s) for s in g.seats)
        g._views = cached
        with pytest.raises(AttributeError):
            o.seat = 3  # type: ignore[misc]  # immutable
        self.n += 1
        return self.inner.act(kind, o, legal)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_players_see_only_their_hand_and_the_public_board():
    ref = [None]
    players = [
        Spy(make_player(RULES, k, np.random.default_rng(i)), ref)
        for i, k in enumerate(RULES.default_mix)
    ]
    g = Game(RULES, players, GameDice(np.random.default_rng(3)), check_invariants=True)
    ref[0] = g
    g.play()
    assert all(p.n > 10 for p in players)


def test_players_get_their_own_generators_not_the_engines():
    game, _ = play_one(RULES, ("random",) * 3, Block(0, 0, 1, 5))
    gens = [p.rng for p in game.players] + [game.dice.rng]
    states = {str(g.bit_generator.state["state"]) for g in gens}
    assert len(states) == 4


# ------------------------------------------------------------------ parameters from the scenario
SCEN = load_scenario(None, CoveRules)


def _with(**strategies):
    """The standard scenario plus ``strategies`` (name -> (kind, params)), validated on the way."""
    extra = {
        k: StrategyDecl(kind=kind, params=FrozenMap(params))
        for k, (kind, params) in strategies.items()
    }
    return with_strategies(SCEN, extra).rules


def test_strategy_parameters_come_from_the_scenario_table():
    p = make_player(RULES, "plunderer-v1", np.random.default_rng(0))
    space = param_space(RULES.kinds, "plunderer-v1")
    assert p.kind == "plunderer-v1" and p.p["target_hull"] == space["target_hull"].default == 5
    rules = _with(hoarder=("plunderer-v1", {"bury_reserve": 30}))
    h = make_player(rules, "hoarder", np.random.default_rng(0))
    assert h.kind == "plunderer-v1" and h.p["bury_reserve"] == 30
    assert strategy_params(rules, "hoarder")["bury_reserve"] == 30
    _, _, summ = play_games(load_scenario(None, CoveRules), "plunderer", 3, 2, seed=1)
    assert summ["n_games"] == 2


def test_v1_kinds_resolve_to_the_old_codes_parameter_tables():
    """The baselines' declared defaults are exactly the old code's tables (with the goldens,
    this is what keeps the v1 players identical to the players before issue 13)."""
    for kind in ("plunderer", "brawler", "tavern", "balanced"):
        want = {**V1_BASE_PARAMS, **V1_KIND_DEFAULTS[kind]}
        got = strategy_params(RULES, f"{kind}-v1")
        assert set(got) == set(want)
        for k, v in want.items():
            assert got[k] == v and (type(got[k]) is bool) == (k in _V1_BOOLS), k


_V1_BOOLS = {
    "play_cards",
    "cove_cards",
    "use_navy",
    "use_plunder",
    "use_sneak",
    "opponent_model",
    "ti_upgrade",
    "buy_last_month",
}


def test_unknown_strategy_parameter_is_refused_with_its_name():
    with pytest.raises(ScenarioError, match=r"strategies.x.params.bravery: unknown parameter"):
        _with(x=("brawler-v1", {"bravery": 1.0}))
    with pytest.raises(ScenarioError, match=r"strategies.x.params.flee_hits_lef.*did you mean"):
        _with(x=("brawler-v1", {"flee_hits_lef": 1}))
    with pytest.raises(ScenarioError, match=r"strategies.x.kind.*did you mean 'brawler-v1'"):
        _with(x=("brawlr-v1", {}))
    with pytest.raises(ScenarioError, match=r"strategies.x.params.buy_cards.*out of range"):
        _with(x=("tavern-v1", {"buy_cards": 9}))


def test_unknown_strategy_names_get_did_you_mean():
    with pytest.raises(
        UserError, match=r"--strategies: unknown strategy 'brawlr'.*did you mean 'brawler'"
    ):
        play_games(None, "plunderer,brawlr,tavern", 3, 1, seed=0)
    with pytest.raises(UserError, match=r"did you mean 'tavern'"):
        make_player(RULES, "taverm", np.random.default_rng(0))


def test_every_declared_kind_is_implemented_and_named_by_a_strategy():
    assert set(PLAYER_ROOT_KINDS) >= set(PLAYER_CLASSES) - {"rollout"}
    assert {s.kind for s in RULES.strategies.values()} == set(KINDS)


def test_a_tuned_strategy_changes_play():
    rules = _with(shy=("tavern-v1", {"buy_cards": 0, "tavern_bias": -10.0}))
    p = make_player(rules, "shy", np.random.default_rng(0))
    o = obs([view(location=0), view(1), view(2)], kind="buy_cards")
    assert p.act("buy_cards", o, (0, 1, 2, 3)) == 0
    q = make_player(RULES, "tavern-v1", np.random.default_rng(0))
    assert q.act("buy_cards", o, (0, 1, 2, 3)) == 3


# ------------------------------------------------------------------ exact odds
def test_win_probability_small_case_by_hand():
    # one die each hitting on 5+, one hit sinks either side, we fire first:
    # P = p + (1-p)(1-p) P  =>  P = p / (1 - (1-p)^2)
    p = 1 / 3
    assert win_probability(1, p, 1, 1, p, 1, True) == pytest.approx(p / (1 - (1 - p) ** 2))
    assert win_probability(1, p, 1, 1, p, 1, False) == pytest.approx(
        (1 - p) * p / (1 - (1 - p) ** 2)
    )


@pytest.mark.parametrize("key", ["blackbeard", "flying_dutchman", "captain_hook", "bonny_and_read"])
def test_players_pirate_odds_equal_the_combat_engines_exact_duel(key):
    pl = make_player(RULES, "balanced-v1", np.random.default_rng(0))
    for ring in [(2, 2, 2, 2), (4, 5, 5, 3), (3, 7, 7, 3), (5, 8, 6, 6), (8, 8, 8, 8)]:
        for art in [{}, {"crew": 0}, {"hull": 1}]:
            for parrot in [None, "long_john_silver", "billy_bones"]:
                sv = view(
                    ring=ring,
                    parrot=parrot,
                    artisans=tuple((SECTIONS.index(k), v) for k, v in art.items()),
                )
                if sv.speed == RULES.pirates[key].sails:
                    continue
                exact = exact_duel(RULES, DuelShip(ring, artisans=art, parrot=parrot), key).win
                assert pl.pirate_odds(sv, key) == pytest.approx(exact, abs=1e-12)


# ------------------------------------------------------------------ behaviour
def test_plunderer_chases_the_richest_card_it_can_hold():
    p = make_player(RULES, "plunderer-v1", np.random.default_rng(0))
    treasure = [(0, 2, 5, 1), (0, 9, 3, 0), (2, 2, 1, 0), (0, 3, 0, 0), (0, 2, 0, 0)]
    o = obs([view(), view(1, location=6), view(2, location=6)], treasure=treasure)
    assert p.act("navigate", o, tuple(range(6))) == 1  # 9 gold, 3 chests
    full = obs([view(chests=5), view(1), view(2)], treasure=treasure)  # hold full: bury instead
    assert p.act("navigate", full, tuple(range(6))) == 5


def test_brawler_seeks_a_pirate_only_when_the_odds_favour_it():
    b = make_player(RULES, "brawler-v1", np.random.default_rng(0))
    treasure = [(0, 2, 1, 0), (1, 3, 1, 0), (0, 2, 1, 0), (0, 2, 1, 0), (0, 2, 1, 0)]
    strong = view(ring=(5, 8, 8, 2))  # 5 dice, speed 5: Hook (hull 5, 3 dice) is likely sunk
    o = obs([strong, view(1), view(2)], treasure=treasure, black_ships=[(1, "captain_hook")])
    assert b.pirate_odds(strong, "captain_hook") >= b.p["pirate_odds_min"]
    assert b.act("navigate", o, tuple(range(6))) == 1
    weak = view(ring=(2, 2, 2, 2))
    o = obs([weak, view(1), view(2)], treasure=treasure, black_ships=[(1, "captain_hook")])
    assert b.act("navigate", o, tuple(range(6))) != 1


def test_balanced_avoids_the_island_a_stronger_opponent_will_take():
    bal = make_player(RULES, "balanced-v1", np.random.default_rng(0))
    treasure = [(0, 2, 0, 0), (2, 6, 2, 0), (1, 5, 2, 0), (0, 2, 0, 0), (0, 2, 0, 0)]
    me = view(ring=(2, 2, 2, 2))
    bully = view(1, ring=(6, 8, 8, 8))  # will head for island 1, the best card, and would win
    o = obs([me, bully, view(2, ring=(2, 2, 2, 2), chests=6)], treasure=treasure)
    assert bal.act("navigate", o, tuple(range(6))) == 2


def test_tavern_player_buys_three_cards_and_takes_cards_at_the_cove():
    t = make_player(RULES, "tavern-v1", np.random.default_rng(0))
    o = obs([view(gold=9, location=0), view(1), view(2)], kind="buy_cards")
    assert t.act("buy_cards", o, (0, 1, 2, 3)) == 3
    poor = obs([view(gold=3, location=0), view(1), view(2)], kind="buy_cards")
    assert t.act("buy_cards", poor, (0, 1)) == 1
    assert t.act("cove_reward", o, ("cards", "card_and_gold")) == "cards"


def test_random_player_is_uniform_over_legal_choices():
    r = make_player(RULES, "random", np.random.default_rng(1))
    o = obs([view(), view(1), view(2)])
    n = 6000
    counts = np.bincount([r.act("navigate", o, tuple(range(6))) for _ in range(n)], minlength=6)
    # each count ~ Binomial(6000, 1/6): within 5 standard errors
    se = np.sqrt(n * (1 / 6) * (5 / 6))
    assert np.all(np.abs(counts - n / 6) < 5 * se)


def test_every_standard_strategy_gets_its_kinds_full_parameter_vector():
    for name, strat in RULES.strategies.items():
        p = make_player(RULES, name, np.random.default_rng(0))
        if strat.kind == "random":
            assert isinstance(p, HeuristicPlayerV1) and p.is_random
        else:
            assert set(p.p) == set(param_space(RULES.kinds, strat.kind))


def test_equal_opponents_are_picked_at_random_not_by_seat():
    p = make_player(RULES, "tavern-v1", np.random.default_rng(2))
    o = obs([view(), view(1, location=1), view(2, location=2), view(3, location=3)], kind="plunder")
    picks = np.bincount([p.act("plunder", o, (None, 1, 2, 3)) for _ in range(3000)], minlength=4)[
        1:
    ]
    se = np.sqrt(3000 * (1 / 3) * (2 / 3))
    assert np.all(np.abs(picks - 1000) < 5 * se)
    navy = np.bincount(
        [p.act("royal_navy", o, (None, 1, 2, 3, 4)) for _ in range(3000)], minlength=4
    )[1:4]
    assert np.all(np.abs(navy - 1000) < 5 * se)


# ------------------------------------------------------------------ the improved players
IMPROVED = ("plunderer", "brawler", "tavern", "balanced")
POOR = [(0, 2, 1, 0), (0, 3, 1, 0), (1, 2, 1, 0), (0, 2, 1, 0), (0, 2, 1, 0)]


def _pirate_position(hand, ring=(6, 8, 8, 5), pirate="blackbeard", at=2, chosen=(None, 3, 4, 0)):
    """Our ship alone can reach a pirate (the others have announced other islands)."""
    ships = [view(ring=ring), view(1), view(2), view(3)]
    o = obs(ships, treasure=POOR, black_ships=[(at, pirate)], chosen=list(chosen))
    return o._replace(hand=tuple(hand))


@pytest.mark.parametrize("kind", IMPROVED)
def test_improved_players_attack_a_pirate_when_it_is_the_best_option(kind):
    """A strong ship with Smoke and Grapeshot against Blackbeard (6 fame): P(sink) 0.73 with
    the cards (0.08 without); every improved kind sails at it, the old veto did not."""
    o = _pirate_position(("smoke", "grapeshot"))
    p = make_player(RULES, kind, np.random.default_rng(0))
    details = p.island_details(o)
    assert details[2]["p_sink_lone"] == pytest.approx(0.731, abs=1e-3)
    assert p.act("navigate", o, tuple(range(6))) == 2
    old = make_player(RULES, f"{kind}-v1", np.random.default_rng(0))
    assert old.act("navigate", o, tuple(range(6))) != 2


@pytest.mark.parametrize("kind", IMPROVED)
@pytest.mark.parametrize(
    ("hand", "ring"),
    [((), (6, 8, 8, 5)), (("smoke",), (3, 5, 5, 3)), (("smoke", "grapeshot"), (2, 2, 2, 2))],
)
def test_improved_players_leave_a_pirate_alone_when_it_is_not(kind, hand, ring):
    """The same Blackbeard with no cards (P(sink) 0.08), or a weak ship even with cards: the
    expected fame is below the rout cost, so nobody sails at it."""
    o = _pirate_position(hand, ring=ring)
    p = make_player(RULES, kind, np.random.default_rng(0))
    assert p.island_details(o)[2]["value"] < 0
    assert p.act("navigate", o, tuple(range(6))) != 2


def test_company_shares_the_pirate_fame_and_changes_the_value():
    """Two opponents announced at the pirate's island: the company estimate is used (the fame
    is shared, the survivors fight for the card)."""
    p = make_player(RULES, "balanced", np.random.default_rng(0))
    alone = p.island_details(_pirate_position(("smoke", "grapeshot")))[2]
    crowd = p.island_details(_pirate_position(("smoke", "grapeshot"), chosen=(None, 2, 2, 0)))[2]
    assert alone["p_alone"] == 1.0 and crowd["p_alone"] == 0.0
    assert crowd["expected_opponents"] == 2.0 and crowd["p_sink_company"] is not None
    assert crowd["value"] != alone["value"]


def test_fight_bias_acts_without_an_opponent_model_switch():
    """fight_bias values each expected opponent at an island: the opponent model is always on,
    so a brawler-minded and a peace-minded copy of one kind choose differently."""
    treasure = [(0, 2, 0, 0), (2, 6, 2, 0), (1, 5, 2, 0), (0, 2, 0, 0), (0, 2, 0, 0)]
    o = obs([view(ring=(4, 5, 5, 4)), view(1), view(2), view(3)], treasure=treasure)
    rules = _with(
        keen=("balanced", {"fight_bias": 3.0, "noise": 0.0}),
        shy=("balanced", {"fight_bias": -3.0, "noise": 0.0}),
    )
    keen = make_player(rules, "keen", np.random.default_rng(0))
    shy = make_player(rules, "shy", np.random.default_rng(0))
    a, b = keen.island_details(o), shy.island_details(o)
    exp = [d["expected_opponents"] for d in a]
    assert exp == [d["expected_opponents"] for d in b] and max(exp) > 0.5
    for i in range(6):
        assert a[i]["value"] - b[i]["value"] == pytest.approx(6.0 * exp[i])
    assert keen.act("navigate", o, tuple(range(6))) != shy.act("navigate", o, tuple(range(6)))


def test_the_black_ships_route_decides_the_last_safe_burial():
    """Four players: the black ship is on Treasure Island in month 12 (one island a month from
    the Tavern), so month 11 is the last safe burial: the player buries every coin then and
    values its holdings at nothing after; in month 10 it keeps its reserve."""
    p = make_player(RULES, "balanced", np.random.default_rng(0))
    me = view(gold=11, chests=4, location=5)
    ships = [me, view(1), view(2), view(3)]
    m11 = obs(ships, month=11, black_ships=[(4, "blackbeard")], kind="bury_gold")
    m10 = obs(ships, month=10, black_ships=[(3, "blackbeard")], kind="bury_gold")
    assert p.holding_values(m11) == (0.0, 0.0, True)
    assert p.holding_values(m10)[2] is False
    assert p.act("bury_gold", m11, (0, 1, 2, 3)) == 3
    assert p.act("bury_gold", m10, (0, 1, 2, 3)) == (11 - p.p["bury_reserve"]) // 3
    # sailing: in month 11 the burial is worth all of it, so Treasure Island wins
    nav = obs(ships, month=11, treasure=POOR, black_ships=[(4, "blackbeard")])
    assert p.act("navigate", nav, tuple(range(6))) == 5


def test_recorded_games_checkpoint_and_read_back_identical(tmp_path):
    """player_study.play_recorded's tables (what the report's engagement section plays) are
    storable by the checkpoint layer: ``option`` is text for both kinds of decision (an island
    index and "stand"/"flee" made a mixed column Parquet refused, so the run was not resumable)."""
    from simulator.checkpoint import load_chunk, same, save_chunk
    from simulator.cove import player_study

    seats, battles, decisions, _ = player_study.play_recorded(
        None, "brawler,plunderer,tavern", 3, 4, seed=11, npc_only=False
    )
    assert set(decisions["decision"]) == {"navigate", "battle"}  # both kinds in the sample
    assert {"stand", "flee"} <= set(decisions["option"])
    assert set(decisions.loc[decisions["decision"] == "navigate", "option"]) <= set("012345")
    result = (seats, battles, decisions)
    save_chunk(tmp_path / "chunk.npz", result, {"chunk": 0})
    _, back = load_chunk(tmp_path / "chunk.npz")
    assert same(result, back)


def test_decision_records_are_off_by_default_and_list_every_alternative():
    from simulator.cove.heuristic import RECORD_COLUMNS

    p = make_player(RULES, "brawler", np.random.default_rng(0))
    assert p.record is None
    p.act("navigate", _pirate_position(("smoke", "grapeshot")), tuple(range(6)))
    p.record = []
    choice = p.act("navigate", _pirate_position(("smoke", "grapeshot")), tuple(range(6)))
    assert len(p.record) == 6 and all(len(r) == len(RECORD_COLUMNS) for r in p.record)
    rows = [dict(zip(RECORD_COLUMNS, r)) for r in p.record]
    assert [r["option"] for r in rows if r["chosen"]] == [choice]
    assert rows[2]["npc"] == "blackbeard" and rows[2]["p_sink_lone"] > 0.7
    twin = p.with_rng(np.random.default_rng(1))
    assert twin.record is None  # a new game's copy records nothing unless asked


def _bview(me_ring, *, npc=None, npc_hull=None, others=(), chests=0, smoke=False):
    from simulator.cove.combat_policies import BattleView, NpcView
    from simulator.cove.combat_policies import ShipView as BShip

    def ship(seat, ring, chests=0, smoke=False):
        speed = MAT.sails[ring[3] - 1]
        return BShip(
            seat,
            tuple(ring),
            tuple(ring),
            (0, 0, 0, 0),
            None,
            False,
            speed,
            True,
            False,
            smoke,
            True,
            2,
            chests,
        )

    ships = [ship(0, me_ring, chests, smoke)] + [ship(i + 1, r) for i, r in enumerate(others)]
    nv = None
    if npc is not None:
        pr = RULES.pirates[npc]
        nv = NpcView(npc, pr.hull if npc_hull is None else npc_hull, pr.hull, pr.sails, True)
    return BattleView(0, "hull", 0, tuple(ships), nv, False, False, card_round=1)


def test_favourable_wind_only_when_it_changes_the_order():
    """Speed 6 against Captain Hook (18): +6 changes nothing, so the improved player keeps the
    card (the old one played it); against a player ship at 9 it puts us first, so it plays."""
    new = make_player(RULES, "balanced", np.random.default_rng(0))
    old = make_player(RULES, "balanced-v1", np.random.default_rng(0))
    hook = _bview((3, 5, 5, 3), npc="captain_hook")
    assert new.battle_card(hook, ("favourable_wind",)) is None
    assert old.battle_card(hook, ("favourable_wind",)) == "favourable_wind"
    pvp = _bview((3, 5, 5, 3), others=[(3, 3, 3, 5)])  # speeds 6 and 8
    assert new.battle_card(pvp, ("favourable_wind",)) == "favourable_wind"
    behind = _bview((3, 5, 5, 3), others=[(3, 3, 3, 8)])  # 12: out of reach of +6
    assert new.battle_card(behind, ("favourable_wind",)) is None


def test_overboard_when_it_puts_us_first_and_saves_the_battle():
    """Speed 12 against Hook (18): 4 chests overboard (+8) put us first and lift P(sink) from
    0.75 to 0.89. Worth it when the chests can no longer be buried (after the last safe burial
    month), not while each is worth w_chest; with only 3 chests it can tie (a coin flip for the
    first broadside, 0.82); the old player never played it."""
    new = make_player(RULES, "balanced", np.random.default_rng(0))
    new._stake = 4.0  # the island it came for
    v = _bview((5, 7, 7, 8), npc="captain_hook", chests=5)
    assert new.battle_card(v, ("overboard",)) is None  # 4 chests at 0.85 > 0.14 x (4 + 3 + 2.5)
    new._hv_chest = 0.0
    assert new.battle_card(v, ("overboard",)) == "overboard"
    assert new.overboard_chests(v, 5) == 4
    short = _bview((5, 7, 7, 8), npc="captain_hook", chests=3)
    assert new.battle_card(short, ("overboard",)) == "overboard"
    assert new.overboard_chests(short, 3) == 3
    new._hv_chest = new.p["w_chest"]
    assert new.battle_card(short, ("overboard",)) is None
    old = make_player(RULES, "balanced-v1", np.random.default_rng(0))
    assert old.battle_card(v, ("overboard",)) is None and old.overboard_chests(v, 5) == 0


def test_lone_battle_plays_smoke_then_the_solvers_volleys():
    p = make_player(RULES, "plunderer", np.random.default_rng(0))
    v = _bview((6, 8, 8, 5), npc="blackbeard")
    assert p.battle_card(v, ("smoke", "grapeshot")) == "smoke"
    smoked = _bview((6, 8, 8, 5), npc="blackbeard", smoke=True)
    assert p.battle_card(smoked, ("grapeshot",)) is None  # volley cards wait for broadsides
    b = p.broadside(smoked, ("grapeshot",))
    names, _ = p.solver.best_volley(
        "blackbeard",
        (6, 8, 8, 5, 0, 0, 0, 0, 0),
        grapeshot=1,
        smoke=True,
        pirate_to_fire=True,  # the view says Blackbeard has not fired yet this exchange
    )
    assert not b.flee and b.target == -1 and b.volley == names


def test_the_plunderer_stands_when_standing_pays():
    """The old plunderer fled at the first hit (a 1-in-6 mutiny each time); the new one stands
    in a battle it is likely to win and flees a hopeless one."""
    p = make_player(RULES, "plunderer", np.random.default_rng(0))
    p._stake = 3.0
    strong = _bview((5, 5, 5, 5), others=[(2, 2, 2, 2)])
    assert not p.broadside(strong, ()).flee
    hopeless = _bview((1, 2, 2, 2), others=[(8, 8, 8, 8)])
    assert p.broadside(hopeless, ()).flee


def test_galleon_switches_are_honoured():
    """The Cacafuego's fame is its die's mean (decisions.cacafuego_fame_die_sides), and a lone
    ship takes it only with decisions.cacafuego_lone_ship_captures."""
    o = _pirate_position((), pirate="cacafuego")
    base = make_player(RULES, "balanced", np.random.default_rng(0)).island_details(o)[2]["value"]
    d = RULES.decisions
    for sides, lone, gain in [(6, True, 3.5), (10, True, 5.5), (6, False, 0.0)]:
        rules = dataclasses.replace(
            RULES,
            decisions=dataclasses.replace(
                d, cacafuego_fame_die_sides=sides, cacafuego_lone_ship_captures=lone
            ),
        )
        v = make_player(rules, "balanced", np.random.default_rng(0)).island_details(o)[2]
        assert v["value"] - base == pytest.approx(gain - 3.5)
