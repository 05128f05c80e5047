"""Pirate's Cove players: their parameters from the scenario, the strategy schema's errors, a
small exact odds case, and the decision records. Their behaviour, what they see and their odds
against the combat helper are the compiled players' (``tests/cove_readable/test_cove_players.py``,
``tests/cove_readable/test_cove_players_see.py``: readable mode).
"""

from __future__ import annotations

import pytest

from scenarios.loader import FrozenMap, ScenarioError, load_scenario
from scenarios.strategies import StrategyDecl, param_space, with_strategies
from simulator.cove.api import play_games
from simulator.cove.fast.packed import (
    COMPILED_ROOTS,
    OPPONENT_MODELS,
    PP,
    PP_CANDIDATES,
    PP_IS_EV,
    PP_IS_RANDOM,
    PP_OPP_MODEL,
    PP_OPP_TEMP,
    PP_PARROT0,
    PP_ROLLOUTS,
    compiled,
    player_row,
)
from simulator.cove.rules import PLAYER_ROOT_KINDS, CoveRules
from simulator.cove.tables import V1_BASE_PARAMS, kind_root, strategy_params
from simulator.errors import UserError
from tests.cove_odds_oracle import win_probability

SCEN = load_scenario(None, CoveRules)
#: the search player's own parameters and their columns
ROLLOUT_COLUMNS = {
    "rollouts": PP_ROLLOUTS,
    "rollout_candidates": PP_CANDIDATES,
    "rollout_opponents": PP_OPP_MODEL,
}
RULES = SCEN.rules
MAT = RULES.ship_mat
SECTIONS = ("hull", "crew", "cannons", "sails")


def _with(**strategies):
    """The standard scenario plus ``strategies`` (name -> (kind, params)), validated on the way."""
    extra = {
        k: StrategyDecl(kind=kind, params=FrozenMap(params))
        for k, (kind, params) in strategies.items()
    }
    return with_strategies(SCEN, extra).rules


def test_strategy_parameters_come_from_the_scenario_table():
    """A seat's parameter row (``packed.player_row``, what the compiled players read) holds its
    strategy's values: the kind's declared defaults overlaid with the strategy's own."""
    space = param_space(RULES.kinds, "plunderer-v1")
    row = player_row(RULES, "plunderer-v1")
    assert row[PP["target_hull"]] == space["target_hull"].default == 5
    rules = _with(hoarder=("plunderer-v1", {"bury_reserve": 30}))
    assert player_row(rules, "hoarder")[PP["bury_reserve"]] == 30
    assert strategy_params(rules, "hoarder")["bury_reserve"] == 30
    assert kind_root(rules, rules.strategies["hoarder"].kind) == "heuristic-v1"
    _, _, summ = play_games(load_scenario(None, CoveRules), "plunderer", 3, 2, seed=1)
    assert summ["n_games"] == 2


#: the issue-13 baselines' parameter tables as the old code held them (``players_v1.py``,
#: retired with the readable engine): the scenario's ``[kinds.*-v1]`` must resolve to them
V1_KIND_DEFAULTS: dict[str, dict[str, float]] = {
    "plunderer": {
        "w_chest": 1.0,
        "target_hull": 5,
        "target_sails": 5,
        "target_crew": 2,
        "target_cannons": 2,
        "prio_hull": 2.0,
        "prio_sails": 1.5,
        "fight_bias": -2.0,
        "pirate_odds_min": 0.9,
        "bury_reserve": 2,
        "flee_hits_left": 2,
        "parrot_flint": 3.0,
        "parrot_squire_trelawney": 2.0,
        "cove_cards": 0,
    },
    "brawler": {
        "target_cannons": 5,
        "target_crew": 5,
        "target_hull": 3,
        "target_sails": 3,
        "prio_cannons": 2.0,
        "prio_crew": 2.0,
        "fight_bias": 1.0,
        "opponent_model": 1,
        "pirate_odds_min": 0.55,
        "flee_hits_left": 0,
        "flee_pirate_odds": 0.0,
        "rout_cost": 1.5,
        "ti_upgrade": 1,
        "parrot_long_john_silver": 3.0,
        "parrot_billy_bones": 2.5,
        "buy_cards": 1,
    },
    "tavern": {
        "buy_last_month": 1,
        "buy_cards": 3,
        "card_gold_reserve": 0,
        "w_card": 1.0,
        "tavern_bias": 2.0,
        "target_hull": 3,
        "target_sails": 4,
        "fight_bias": -0.5,
        "bury_reserve": 6,
    },
    "balanced": {
        "opponent_model": 1,
        "fight_bias": 0.0,
        "pirate_odds_min": 0.7,
        "buy_cards": 1,
        "target_hull": 4,
        "target_sails": 5,
        "target_cannons": 4,
        "target_crew": 4,
        "w_chest": 0.9,
    },
}


def test_v1_kinds_resolve_to_the_old_codes_parameter_tables():
    """The baselines' declared defaults are exactly the old code's tables (with the recorded
    fingerprints of their games, this is what keeps the v1 players identical to the players
    before issue 13), and a seat's row holds them."""
    for kind in ("plunderer", "brawler", "tavern", "balanced"):
        want = {**V1_BASE_PARAMS, **V1_KIND_DEFAULTS[kind]}
        got = strategy_params(RULES, f"{kind}-v1")
        assert set(got) == set(want)
        for k, v in want.items():
            assert got[k] == v and (type(got[k]) is bool) == (k in _V1_BOOLS), k
        row = player_row(RULES, f"{kind}-v1")
        assert [row[PP[k]] for k in V1_BASE_PARAMS] == [float(want[k]) for k in V1_BASE_PARAMS]


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
        play_games(None, "taverm,brawler,plunderer", 3, 1, seed=0)


def test_every_declared_kind_is_implemented_and_named_by_a_strategy():
    """Every root kind is one the engine plays (the search player, ``rollout``, is its own
    root), and every kind of the standard table but the two roots is named by a strategy."""
    assert set(PLAYER_ROOT_KINDS) <= set(COMPILED_ROOTS) | {"rollout"}
    kinds = {s.kind for s in RULES.strategies.values()}
    assert kinds == set(RULES.kinds) - {"heuristic", "heuristic-v1"}


def test_every_standard_strategy_gets_its_kinds_full_parameter_vector():
    """Each compiled strategy's row holds every parameter its kind declares (the v1 names in
    their columns, ``opp_temperature``, one column per parrot), the random kind the base row."""
    for name, strat in RULES.strategies.items():
        if not compiled(RULES, name):
            continue
        row = player_row(RULES, name)
        root = kind_root(RULES, strat.kind)
        if root == "random":
            assert row[PP_IS_RANDOM] == 1.0
            assert [row[PP[k]] for k in V1_BASE_PARAMS] == list(V1_BASE_PARAMS.values())
            continue
        assert row[PP_IS_EV] == float(root in ("heuristic", "rollout")) and row[PP_IS_RANDOM] == 0.0
        params = strategy_params(RULES, name)
        assert set(params) == set(param_space(RULES.kinds, strat.kind))
        for k, v in params.items():
            if k == "opp_temperature":
                col = PP_OPP_TEMP
            elif k in ROLLOUT_COLUMNS:
                col = ROLLOUT_COLUMNS[k]
                if k == "rollout_opponents":
                    v = OPPONENT_MODELS.index(v)
            elif k.startswith("parrot_"):
                col = PP_PARROT0 + list(RULES.parrots).index(k.removeprefix("parrot_"))
            else:
                col = PP[k]
            assert row[col] == float(v), (name, k)


# ------------------------------------------------------------------ exact odds
def test_win_probability_small_case_by_hand():
    # one die each hitting on 5+, one hit sinks either side, we fire first:
    # P = p + (1-p)(1-p) P  =>  P = p / (1 - (1-p)^2)
    p = 1 / 3
    assert win_probability(1, p, 1, 1, p, 1, True) == pytest.approx(p / (1 - (1 - p) ** 2))
    assert win_probability(1, p, 1, 1, p, 1, False) == pytest.approx(
        (1 - p) * p / (1 - (1 - p) ** 2)
    )


# ------------------------------------------------------------------ decision records
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
