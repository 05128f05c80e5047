"""Pirates express commanders: the admiral's exact odds, its decisions in hand-built positions,
what it may see, the strategy schema of the commanders, and the legacy commanders' record."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import express_golden as golden
import numpy as np
import pytest

from scenarios.loader import ScenarioError, load_scenario
from scenarios.strategies import param_space
from simulator import dice
from simulator.errors import UserError
from simulator.express import admiral as adm
from simulator.express import api, battle
from simulator.express.commanders import (
    _CLASSES,
    Admiral,
    Boarder,
    Skirmisher,
    make_commander,
    parse_commanders,
)
from simulator.express.core import (
    A_ATTACK,
    A_DISENGAGE,
    A_DX,
    A_DY,
    A_N,
    A_REPAIR,
    A_TARGET,
    ATTACK_BOARD,
    ATTACK_CANNON,
    F_N,
    S_ACTED,
    S_CREW,
    S_MASTS,
    S_N,
    TR_SHIP,
    TR_SIDE,
    TR_STATE,
    TR_X,
    TR_Y,
)
from simulator.express.rules import COMMANDER_NAMES, KIND_PARAMS, ExpressRules

DATA = Path(__file__).resolve().parent / "data"
STD = load_scenario(None, ExpressRules)
RULES = STD.rules
TABLE = api.volley_table()


# ---------------------------------------------------------------------------------------------
# Exact odds the admiral uses


@pytest.mark.parametrize("n", [0, 1, 3, 6])
@pytest.mark.parametrize("hit_on", [1, 2, 4, 6, 7])
@pytest.mark.parametrize("rerolls", [0, 1, 2])
def test_pmf_table_is_exact(n, hit_on, rerolls):
    """The admiral's volley table equals the exact Fraction odds of ``simulator.dice``."""
    want = dice.volley_pmf(n, hit_on, rerolls) if n else (Fraction(1),)
    got = TABLE[n, hit_on, rerolls]
    for x in range(adm.PMF_DICE + 1):
        p = float(want[x]) if x < len(want) else 0.0
        assert got[x] == pytest.approx(p, abs=1e-13)


@pytest.mark.parametrize(
    ("da", "ra", "db", "rb", "hull_b"), [(3, 0, 2, 0, 0), (5, 1, 3, 0, 1), (2, 2, 4, 1, 0)]
)
def test_board_value_is_exact(da, ra, db, rb, hull_b):
    """Expected VP swing, win and loss odds and masts kept of a boarding, against the Fraction
    distribution of ``simulator.dice.boarding_pmf`` (net sink rule, winner sinks)."""
    ri = api.make_pairing("none:3", "none:3", RULES, "gunline").ri
    masts_a, hull_a, masts_b = da, 0, db
    sink = RULES.victory.vp_per_sink
    phi = 0.7
    ev, p_win, p_lose, left = adm._board_value(
        TABLE, ri, da, ra, db, rb, hull_a, masts_a, hull_b, masts_b, sink, sink, phi
    )
    want_ev = want_win = want_lose = want_left = Fraction(0)
    for d, p in dice.boarding_pmf(da, db, 0, 0, RULES.boarding.success_on, ra, rb).items():
        if d > 0:
            lost = min(d, hull_b + masts_b)
            lm = lost - min(lost, hull_b)
            want_ev += p * (min(lost, hull_b) + lm * (1 + Fraction(phi)))
            want_win += p
            if d > hull_b + masts_b:
                want_ev += p * sink
            else:
                want_left += p * Fraction(masts_b - lm, masts_b)
        elif d < 0:
            lost = min(-d, masts_a)
            want_ev -= p * lost * (1 + Fraction(phi))
            want_ev -= p * (sink if -d > masts_a else 0)
            want_lose += p
            want_left += p
        else:
            want_left += p
    assert ev == pytest.approx(float(want_ev), abs=1e-12)
    assert p_win == pytest.approx(float(want_win), abs=1e-12)
    assert p_lose == pytest.approx(float(want_lose), abs=1e-12)
    assert left == pytest.approx(float(want_left), abs=1e-12)


# ---------------------------------------------------------------------------------------------
# Decisions in built positions (no dice: the admiral never rolls)


def _position(fleet_a, fleet_b, rules=RULES, scenario="pitched", cmd=None):
    pairing = api.make_pairing(fleet_a, fleet_b, rules, cmd or (Admiral(), Admiral()), scenario)
    n = pairing.fleets.shape[1]
    si = np.zeros((2, n, S_N), dtype=np.int64)
    sf = np.zeros((2, n, F_N))
    eng = np.zeros((n, n), dtype=np.bool_)
    tr = np.zeros(5)
    edges = np.zeros(2, dtype=np.int64)
    battle._setup(
        np.random.default_rng(0), si, sf, eng, tr, edges, pairing.fleets, pairing.ri, pairing.rf
    )
    edges[:] = [0, 1]
    return pairing, si, sf, eng, tr, edges


def _decide(pairing, si, sf, eng, tr, edges, s, i, turn, params=None):
    act = np.zeros(A_N)
    p = pairing.params[s] if params is None else params
    adm.admiral(
        act, p, si, sf, eng, pairing.nations, s, i, pairing.ri, pairing.rf, pairing.hit_on_cm,
        pairing.islands, pairing.move_cm, tr, edges, turn, TABLE,
    )  # fmt: skip
    return act


def test_last_turn_closes_and_fires_on_a_ship_that_has_acted():
    """Last turn, the enemy has acted: nothing can answer, so the admiral closes to the automatic
    band and fires (its 5 dice, automatic: 5 expected hits on a 3-mast ship)."""
    pairing, si, sf, eng, tr, edges = _position("none:5", "none:3")
    sf[0, 0] = (20.0, 30.0)
    sf[1, 0] = (40.0, 30.0)
    si[1, :, S_ACTED] = 1
    act = _decide(pairing, si, sf, eng, tr, edges, 0, 0, RULES.turns.max_turns)
    assert act[A_ATTACK] == ATTACK_CANNON and act[A_TARGET] == 0
    qx = min(act[A_DX], 20.0 + 18.0)
    assert 40.0 - qx <= 5.0  # ends in the automatic band


def test_stays_out_of_reach_of_a_stronger_enemy_that_acts_next():
    """Turn 1, the enemy 5-mast ship has not acted and would fire first: the admiral's sloop does
    not sail into its reach (18 cm move + 30 cm range)."""
    pairing, si, sf, eng, tr, edges = _position("none:1", "none:5")
    sf[0, 0] = (10.0, 30.0)
    sf[1, 0] = (75.0, 30.0)
    act = _decide(pairing, si, sf, eng, tr, edges, 0, 0, 1)
    q = np.array([act[A_DX], act[A_DY]]) - sf[0, 0]
    step = min(np.hypot(*q), 10.0)
    x_end = 10.0 + (q[0] / max(np.hypot(*q), 1e-9)) * step
    assert 75.0 - x_end > 18.0 + 30.0


def test_carpenter_mends_a_mastless_ship():
    pairing, si, sf, eng, tr, edges = _position("none:3 carpenter@0", "none:3")
    sf[0, 0] = (10.0, 30.0)
    sf[1, 0] = (80.0, 30.0)
    si[0, 0, S_MASTS] = 0
    act = _decide(pairing, si, sf, eng, tr, edges, 0, 0, 2)
    assert act[A_REPAIR] == 1.0


def test_convoy_ship_disengages_to_leave():
    """A convoy sloop 4 cm from the far edge, engaged with an enemy 5-mast ship that acts next:
    staying means 5 automatic hits (sunk, its exit lost); disengaging is automatic for an
    undamaged 1-mast ship (difficulty 1+) and the move takes it off the table (exit VP)."""
    rules = dataclasses.replace(RULES, convoy=dataclasses.replace(RULES.convoy, defender="first"))
    pairing, si, sf, eng, tr, edges = _position("none:5,1", "none:5", rules, "convoy")
    sf[0, 1] = (85.0, 30.0)
    sf[1, 0] = (85.5, 30.0)
    eng[1, 0] = True
    act = _decide(pairing, si, sf, eng, tr, edges, 0, 1, 3)
    assert act[A_DISENGAGE] == 1.0 and act[A_DX] >= 89.0


def test_boards_the_treasure_carrier_it_can_reach():
    """A Viking 5-mast ship with a Musketeer (7 dice at 3+) beside the enemy's 1-mast carrier
    boards it: winning the boarding takes the treasure (notes 12)."""
    pairing, si, sf, eng, tr, edges = _position(
        "viking:5 musketeer@0", "none:1", scenario="treasure"
    )
    sf[0, 0] = (40.0, 30.0)
    sf[1, 0] = (48.0, 30.0)
    tr[TR_STATE], tr[TR_SIDE], tr[TR_SHIP], tr[TR_X], tr[TR_Y] = 1, 1, 0, 48.0, 30.0
    si[1, :, S_ACTED] = 1
    act = _decide(pairing, si, sf, eng, tr, edges, 0, 0, 4)
    assert act[A_ATTACK] == ATTACK_BOARD and act[A_TARGET] == 0


def test_carrier_sails_home_and_convoy_ship_runs_when_the_sea_is_clear():
    pairing, si, sf, eng, tr, edges = _position("none:3", "none:1", scenario="treasure")
    sf[0, 0] = (40.0, 30.0)
    sf[1, 0] = (88.0, 58.0)
    tr[TR_STATE], tr[TR_SIDE], tr[TR_SHIP], tr[TR_X], tr[TR_Y] = 1, 0, 0, 40.0, 30.0
    act = _decide(pairing, si, sf, eng, tr, edges, 0, 0, 3)
    assert act[A_DX] < 40.0 - 13.0  # a full 14 cm toward its own edge (x = 0)
    rules = dataclasses.replace(RULES, convoy=dataclasses.replace(RULES.convoy, defender="first"))
    pairing, si, sf, eng, tr, edges = _position("none:5,1", "none:1", rules, "convoy")
    sf[0, 1] = (10.0, 30.0)
    sf[1, 0] = (88.0, 2.0)
    act = _decide(pairing, si, sf, eng, tr, edges, 0, 1, 1)
    assert act[A_DX] >= 10.0 + 9.9  # the convoy ship heads for the far edge at full speed


def test_admiral_never_reads_the_enemys_crews():
    """Crews are assigned secretly (seed): the admiral's choice is the same whatever crews the
    enemy hides, in positions where the crews would change the enemy's dice and moves."""
    specs = [
        "none:5,3,2,1,1",
        "none:5,3,2,1,1 captain@0 gunner@1 carpenter@2 helmsman@3",
        "none:5,3,2,1,1 helmsman@0 musketeer@1 gunner@2 captain@4",
    ]
    rng = np.random.default_rng(7)
    for _trial in range(20):
        pos = rng.uniform([5, 5], [85, 55], size=(2, 5, 2))
        masts = rng.integers(0, 6, size=(2, 5))
        acted = rng.integers(0, 2, size=5)
        acts = []
        for spec in specs:
            pairing, si, sf, eng, tr, edges = _position(
                "none:5,3,2,1,1 captain@0 gunner@1", spec, scenario="treasure"
            )
            sf[:, :, :] = pos
            si[:, :, S_MASTS] = np.minimum(masts, si[:, :, 0])
            si[1, :, S_ACTED] = acted
            acts.append(_decide(pairing, si, sf, eng, tr, edges, 0, 0, 3))
            assert si[1, 1, S_CREW] == (-1 if spec == specs[0] else si[1, 1, S_CREW])
        assert all(np.array_equal(acts[0], a) for a in acts[1:])


# ---------------------------------------------------------------------------------------------
# Strength: the admiral beats gunline and boarder (fresh seeds, mirror, sides alternated)


@pytest.mark.parametrize("scenario_name", ["pitched", "treasure", "convoy"])
def test_admiral_beats_gunline_and_boarder_in_a_mirror(scenario_name):
    """Score share of the admiral over 600 battles per opponent (300 in each seat), no-power mirror
    fleet. Its score is about 0.95 against gunline and 0.8 against boarder; the assertion is that
    the 95 % interval lies above 1/2. At n = 600 the standard error is at most 0.02, so a commander
    no better than its opponent (score 0.5) passes with probability below 0.003 and any true score
    above 0.55 is detected with probability above 0.9."""
    f = api.mirrored_fleet(RULES, RULES.studies.mirror_nation)
    me = make_commander("admiral", RULES)
    for name in ("gunline", "boarder"):
        other = make_commander(name, RULES)
        df, s = api.commander_duel(
            me, other, f, rules=RULES, scenario_name=scenario_name, n=600, seed=31
        )
        lo, hi = s["score"]["ci95"]
        assert lo > 0.5, (scenario_name, name, s["score"])


# ---------------------------------------------------------------------------------------------
# The strategy schema of the commanders


def test_every_kind_declares_exactly_what_its_code_reads():
    assert set(COMMANDER_NAMES) == set(KIND_PARAMS) == set(_CLASSES)
    for kind in COMMANDER_NAMES:
        space = param_space(RULES.kinds, kind)
        assert set(space) == set(KIND_PARAMS[kind]), kind
        fields = [f.name for f in dataclasses.fields(_CLASSES[kind]) if f.name != "name"]
        assert fields == list(KIND_PARAMS[kind]), kind
        # the dataclass defaults are the standard scenario's (tests build commanders directly)
        made = _CLASSES[kind]()
        for p, decl in space.items():
            assert getattr(made, p) == decl.default, (kind, p)
        for decl in space.values():
            if decl.type in ("int", "float"):
                lo, hi = decl.range
                assert lo <= decl.default <= hi


def test_strategies_resolve_and_cli_names_stay():
    a, b = parse_commanders("boarder,skirmisher", RULES)
    assert isinstance(a, Boarder) and isinstance(b, Skirmisher)
    assert parse_commanders(None, RULES)[0].name == RULES.default_mix[0] == "admiral"
    patient = make_commander("patient", RULES)
    assert isinstance(patient, Admiral) and patient.aggression == 0.0
    with pytest.raises(UserError, match=r"unknown commander 'admiarl'.*did you mean 'admiral'"):
        parse_commanders("admiarl", RULES)


@pytest.mark.parametrize(
    ("overlay", "key", "words"),
    [
        ('[kinds.admiral.params]\nboldness = { type = "float", range = [0, 1], default = 0.5 }\n',
         "kinds.admiral.params.boldness", "no such parameter"),
        ('[strategies.x]\nkind = "admiral"\nparams = { exposure = 9.0 }\n',
         "strategies.x.params.exposure", "out of range"),
        ('[strategies.x]\nkind = "admiral"\nnation = "atlantis"\n', "strategies.x.nation",
         "unknown nation"),
        ('[strategies.x]\nkind = "gunline"\nfleet = "5,5,2"\n', "strategies.x.fleet",
         "at most 1 ship(s) of 5 masts"),
        ('[strategies.x]\nkind = "gunlin"\n', "strategies.x.kind", "did you mean 'gunline'"),
        ("[kinds.boarder.params]\n", None, None),
    ],
)  # fmt: skip
def test_bad_commander_declarations_name_the_key(tmp_path, overlay, key, words):
    f = tmp_path / "o.toml"
    f.write_text('game = "express"\nrules_version = "x"\nextends = "standard"\n' + overlay)
    if key is None:  # an empty table merges into the base: still valid
        load_scenario(f, ExpressRules)
        return
    with pytest.raises(ScenarioError) as info:
        load_scenario(f, ExpressRules)
    msg = str(info.value)
    assert key in msg and words in msg and "\n" not in msg, msg


def test_default_mix_must_name_two_seats(tmp_path):
    f = tmp_path / "o.toml"
    f.write_text(
        'game = "express"\nrules_version = "x"\nextends = "standard"\n'
        'default_mix = ["admiral", "admiral", "gunline"]\n'
    )
    with pytest.raises(ScenarioError, match=r"default_mix.*exactly 2"):
        load_scenario(f, ExpressRules)


def test_strategy_seat_defaults_to_the_study_mirror():
    seat = api.strategy_seat(RULES, "gunline")
    assert seat.fleet == api.mirrored_fleet(RULES, RULES.studies.mirror_nation)
    assert seat.commander == make_commander("gunline", RULES)


# ---------------------------------------------------------------------------------------------
# Legacy commanders: their numbers are those recorded before issue 14


def test_legacy_commanders_play_as_recorded():
    """Battle totals of gunline, boarder, skirmisher and random (every pair, three scenarios,
    fixed seeds) equal the record ``tests/data/express_legacy_golden.json`` (made before the
    admiral was added; regenerated on purpose with ``python tests/express_golden.py`` when
    gunline and boarder stopped reading the enemy's hidden crews, and when the convoy scenario got
    its own geometry, issue 27)."""
    gold = json.loads((DATA / "express_legacy_golden.json").read_text())
    assert (gold["n"], gold["seed"], gold["fleet"]) == (golden.N, golden.SEED, golden.FLEET)
    want = gold["cells"]
    got = golden.cells(RULES)
    assert [(c["a"], c["b"], c["scenario"]) for c in got] == [
        (c["a"], c["b"], c["scenario"]) for c in want
    ]
    for g, w in zip(got, want):
        assert g == w, (g["a"], g["b"], g["scenario"])
