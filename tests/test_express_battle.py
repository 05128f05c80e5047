"""Pirates express battles: invariants over random battles (replayed from the event trace,
hidden crews revealed at their first use included), hand-checked rule cases, seat symmetry and
run reproducibility."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scenarios.loader import load_scenario
from simulator.errors import UserError
from simulator.express import api, battle
from simulator.express.commanders import Admiral, Boarder, Gunline, RandomCommander, Skirmisher
from simulator.express.core import (
    CAPTAIN,
    CARPENTER,
    F_X,
    F_Y,
    GUNNER,
    HELMSMAN,
    MUSKETEER,
    S_MASTS,
    S_N,
    S_REVEALED,
    S_START,
    nation_array,
    pack_rules,
)
from simulator.express.fleets import parse_fleet, validate_fleet
from simulator.express.rules import CREW_ROLES, ExpressRules

SCEN_DIR = Path(__file__).resolve().parent.parent / "scenarios" / "express"
SCENARIOS = {p.stem: load_scenario(p, ExpressRules) for p in sorted(SCEN_DIR.glob("*.toml"))}
STD = SCENARIOS["standard"].rules
NATIONS = list(STD.matrix_nations)
COMMANDERS = [
    Gunline(),
    Gunline(0.5, 1, False),
    Boarder(),
    Boarder(-1.0, 1),
    Skirmisher(),
    RandomCommander(),
    Admiral(),
    Admiral(aggression=0.0, split_threat=False, board_bias=3.0),
    Admiral(exposure=0.0, opportunity=3.0, repair=5.0, margin_cm=10.0),
]


def expected_allowance(rules, fleet, ship, masts, repaired):
    """Movement allowance written out from the seed and notes (independent of core.allowance)."""
    s = fleet.ships[ship]
    nat = rules.nations[fleet.nation]
    if masts > 0:
        base = rules.ships.movement_cm[s.masts - 1] - rules.ships.movement_loss_per_mast_cm * (
            s.masts - masts
        )
    else:
        base = max(rules.ships.oars_mastless_move_cm if s.oars else 0, nat.mastless_move_cm)
    if base > 0 and s.crew == "helmsman":
        base += rules.crew.helmsman_bonus_cm
    if repaired:
        base = max(0, base - rules.crew.carpenter_move_penalty_cm)
    return base


def expected_hull(rules, nation, masts):
    """Chinese hull points (notes 5): one per ship, or one per two masts rounded up (switch)."""
    mode = rules.nations[nation].hull_points
    return {"none": 0, "one": 1, "per_two_masts": -(-masts // 2)}[mode]


def _crew_index(fleet, ship):
    c = fleet.ships[ship].crew
    return CREW_ROLES.index(c) if c else -1


def replay_and_check(rules, fleets, out, trace, si_final):
    """Check every invariant of one battle from its trace; returns counts of what happened.

    Hidden crews (decision D23): a crew is revealed once, by the event that used it (the event
    just before its ``EV_REVEAL``): a Gunner or Captain by its ship's volley, a Musketeer or
    Captain by a boarding its ship rolled in with its abilities, a Helmsman by a move longer than
    the ship's allowance without it, a Carpenter by its repair; every Gunner that fired, every
    Musketeer that rolled, every Helmsman that sailed beyond and every Carpenter that repaired is
    revealed; the final state's flags are the trace's."""
    starts = [[s.masts for s in f.ships] for f in fleets]
    hulls = [[expected_hull(rules, f.nation, s.masts) for s in f.ships] for f in fleets]
    masts = [list(x) for x in starts]
    hull = [list(x) for x in hulls]
    sunk = [[False] * len(f.ships) for f in fleets]
    vp_mast = [0, 0]
    vp_sink = [0, 0]
    vp_scen = [0, 0]
    seen = dict.fromkeys(range(1, 13), 0)
    last = 0  # last event that was not a loss (a sinking follows its fire or boarding)
    crews = [[_crew_index(f, i) for i in range(len(f.ships))] for f in fleets]
    revealed = [[False] * len(f.ships) for f in fleets]
    must_reveal = set()  # ships whose crew was used by an event already replayed
    cause = None  # the last event that was not a reveal
    helm_cm = rules.crew.helmsman_bonus_cm
    for ev in trace:
        kind = int(ev[0])
        seen[kind] += 1
        if kind == battle.EV_REVEAL:
            _, turn, side, ship, crew, *_ = ev
            side, ship, crew = int(side), int(ship), int(crew)
            assert crew == crews[side][ship] >= 0 and not revealed[side][ship]
            revealed[side][ship] = True
            ck = int(cause[0])
            c_side, c_ship = int(cause[2]), int(cause[3])
            if crew == HELMSMAN:
                assert ck == battle.EV_MOVE and (c_side, c_ship) == (side, ship)
                assert cause[4] > cause[7] - helm_cm + 1e-9
            elif crew == CARPENTER:
                assert ck == battle.EV_REPAIR and (c_side, c_ship) == (side, ship)
            elif crew == GUNNER:
                assert ck == battle.EV_FIRE and (c_side, c_ship) == (side, ship)
            else:  # Captain (a volley or a boarding) or Musketeer (a boarding)
                boarders = [(c_side, c_ship)]
                if rules.boarding.defender_uses_abilities:
                    boarders.append((1 - c_side, int(cause[4])))
                ok = ck == battle.EV_BOARD and (side, ship) in boarders
                if crew == CAPTAIN:
                    ok = ok or (ck == battle.EV_FIRE and (c_side, c_ship) == (side, ship))
                assert ok, (crew, cause)
            continue
        cause = ev
        for side, ship in must_reveal:
            assert revealed[side][ship], ("a used crew stayed hidden", side, ship)
        must_reveal = set()
        if kind == battle.EV_MOVE:
            side, ship = int(ev[2]), int(ev[3])
            if crews[side][ship] == HELMSMAN and ev[4] > ev[7] - helm_cm + 1e-9:
                must_reveal.add((side, ship))
        elif kind == battle.EV_REPAIR:
            must_reveal.add((int(ev[2]), int(ev[3])))
        elif kind == battle.EV_FIRE:
            side, ship = int(ev[2]), int(ev[3])
            if crews[side][ship] == GUNNER:
                must_reveal.add((side, ship))
        elif kind == battle.EV_BOARD:
            side, ship, target = int(ev[2]), int(ev[3]), int(ev[4])
            rolled = [(side, ship)]
            if rules.boarding.defender_uses_abilities:
                rolled.append((1 - side, target))
            for s_, i_ in rolled:
                if crews[s_][i_] == MUSKETEER and masts[s_][i_] > 0:
                    must_reveal.add((s_, i_))
        if kind not in (battle.EV_LOSS, battle.EV_SINK):
            last = kind
        if kind == battle.EV_MOVE:
            _, turn, side, ship, moved, m, repaired, allow = ev
            side, ship = int(side), int(ship)
            assert m == masts[side][ship]
            want = expected_allowance(rules, fleets[side], ship, int(m), bool(repaired))
            assert allow == want
            assert moved <= want + 1e-9, "a ship moved further than allowed"
        elif kind == battle.EV_LOSS:
            _, turn, side, ship, what, by, bonus, m_after = ev
            side, ship, by = int(side), int(ship), int(by)
            assert not sunk[side][ship]
            if what == 0:
                assert hull[side][ship] > 0
                hull[side][ship] -= 1
                vp_mast[by] += rules.victory.vp_per_hull_point
            else:
                assert hull[side][ship] == 0, "Chinese hull points are removed before masts"
                assert masts[side][ship] > 0
                masts[side][ship] -= 1
                vp_mast[by] += rules.victory.vp_per_mast
            assert m_after == masts[side][ship]
            vp_scen[by] += int(bonus)
        elif kind == battle.EV_SINK:
            _, turn, side, ship, by, v, *_ = ev
            side, ship, by = int(side), int(ship), int(by)
            if not (rules.boarding.sink_rule == "raw" and last == battle.EV_BOARD):
                assert masts[side][ship] == 0 and hull[side][ship] == 0, (
                    "sank a ship that still had masts"
                )
            sunk[side][ship] = True
            want = rules.victory.vp_per_sink + rules.nations[fleets[by].nation].extra_vp_per_sink
            assert v == want
            vp_sink[by] += int(v)
        elif kind == battle.EV_REPAIR:
            _, turn, side, ship, m_after, start, *_ = ev
            side, ship = int(side), int(ship)
            assert fleets[side].ships[ship].crew == "carpenter"
            assert m_after == masts[side][ship] + 1
            masts[side][ship] = int(m_after)
        elif kind == battle.EV_SCENARIO:
            _, turn, side, ship, v, what, *_ = ev
            want = {
                0: rules.treasure.vp_brought_home,
                1: rules.treasure.vp_held_at_end,
                2: rules.convoy.vp_per_exit,
            }[int(what)]
            assert v == want
            vp_scen[int(side)] += int(v)
        for s in range(2):
            for i, m in enumerate(masts[s]):
                assert 0 <= m <= starts[s][i], "masts above the start"
    for side, ship in must_reveal:
        assert revealed[side][ship], ("a used crew stayed hidden", side, ship)
    for s in range(2):
        for i in range(len(fleets[s].ships)):
            assert bool(si_final[s, i, S_REVEALED]) == revealed[s][i]
    for s in range(2):
        assert out[battle.O_MVP0 + s] == vp_mast[s]
        assert out[battle.O_SVP0 + s] == vp_sink[s]
        assert out[battle.O_CVP0 + s] == vp_scen[s]
        assert out[battle.O_VP0 + s] == vp_mast[s] + vp_sink[s] + vp_scen[s]
        for i in range(len(fleets[s].ships)):
            assert si_final[s, i, S_MASTS] == masts[s][i]
            assert si_final[s, i, S_MASTS] <= si_final[s, i, S_START]
    res = out[battle.O_RESULT]
    a, b = out[battle.O_VP0], out[battle.O_VP1]
    assert res == (0 if a > b else 1 if b > a else 2)
    convoy = out[battle.O_DEF] >= 0  # the convoy game has its own turn limit ([convoy])
    max_turns = rules.convoy.max_turns if convoy else rules.turns.max_turns
    assert 1 <= out[battle.O_TURNS] <= max_turns
    # the objective columns agree with the trace
    scen = [int(e[5]) for e in trace if int(e[0]) == battle.EV_SCENARIO]
    assert out[battle.O_EXITS] == scen.count(2) and (convoy or scen.count(2) == 0)
    if 1 in scen:
        assert out[battle.O_TREASURE] == 1 and 0 not in scen
    elif 0 in scen:
        assert out[battle.O_TREASURE] == 2
    else:
        assert out[battle.O_TREASURE] in (-1, 0)
    if seen[battle.EV_TREASURE]:
        assert out[battle.O_TREASURE] >= 0
    return seen


@st.composite
def battles(draw):
    scen = draw(st.sampled_from(sorted(SCENARIOS)))
    rules = SCENARIOS[scen].rules
    fleets = []
    for _ in range(2):
        nat = draw(st.sampled_from(NATIONS))
        masts = draw(st.lists(st.integers(1, 5), min_size=1, max_size=5))
        roles = draw(st.permutations(CREW_ROLES))[: draw(st.integers(0, len(masts)))]
        spec = (
            f"{nat}:"
            + ",".join(map(str, masts))
            + "".join(f" {r}@{i}" for i, r in enumerate(roles))
        )
        if draw(st.booleans()):  # sometimes oars on the first ship
            spec += " oars@0"
        try:
            f = parse_fleet(spec, rules)
        except UserError:
            assume(False)
        fleets.append(f)
    cmd = (draw(st.sampled_from(COMMANDERS)), draw(st.sampled_from(COMMANDERS)))
    name = draw(st.sampled_from(["pitched", "treasure", "convoy"]))
    seed = draw(st.integers(0, 2**32 - 1))
    return scen, fleets, cmd, name, seed


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(battles())
def test_invariants_over_random_battles(case):
    scen, fleets, cmd, name, seed = case
    rules = SCENARIOS[scen].rules
    for f in fleets:
        validate_fleet(f, rules)  # fleets legal
    pairing = api.make_pairing(fleets[0], fleets[1], rules, cmd, name)
    out, trace, si = api.play_traced(pairing, seed)
    replay_and_check(rules, fleets, out, trace, si)


def test_random_battles_exercise_every_rule():
    """The invariant test must see moves, losses, sinkings, repairs, boardings and objectives."""
    rng = np.random.default_rng(11)
    seen = dict.fromkeys(range(1, 13), 0)
    for k in range(240):
        nats = rng.choice(NATIONS, size=2)
        fleets = [api.mirrored_fleet(STD, n) for n in nats]
        cmd = (
            COMMANDERS[k % len(COMMANDERS)],
            COMMANDERS[(k // len(COMMANDERS)) % len(COMMANDERS)],
        )
        name = ["pitched", "treasure", "convoy"][k % 3]
        pairing = api.make_pairing(fleets[0], fleets[1], STD, cmd, name)
        out, trace, si = api.play_traced(pairing, k)
        for kind, c in replay_and_check(STD, fleets, out, trace, si).items():
            seen[kind] += c
    for kind in (
        battle.EV_MOVE,
        battle.EV_LOSS,
        battle.EV_SINK,
        battle.EV_REPAIR,
        battle.EV_FIRE,
        battle.EV_BOARD,
        battle.EV_DISENGAGE,
        battle.EV_SCENARIO,
        battle.EV_REVEAL,
    ):
        assert seen[kind] > 0, kind


# ---------------------------------------------------------------------------------------------
# Hand-checked rule cases on a built state (auto-hit range: no dice decide the outcome)


def _state(fleet_a, fleet_b, rules=STD, pos_a=(10.0, 30.0), pos_b=(13.0, 30.0)):
    fa, fb = parse_fleet(fleet_a, rules), parse_fleet(fleet_b, rules)
    pairing = api.make_pairing(fa, fb, rules, "gunline")
    n = pairing.fleets.shape[1]
    si = np.zeros((2, n, S_N), dtype=np.int64)
    sf = np.zeros((2, n, 2), dtype=np.float64)
    eng = np.zeros((n, n), dtype=np.bool_)
    tr = np.zeros(5)
    edges = np.array([0, 1])
    rng = np.random.default_rng(0)
    battle._setup(rng, si, sf, eng, tr, edges, pairing.fleets, pairing.ri, pairing.rf)
    edges[:] = [0, 1]
    sf[0, 0] = pos_a
    sf[1, 0] = pos_b
    vp = np.zeros((2, 3), dtype=np.int64)
    trace = np.zeros((100, 8))
    tn = np.zeros(1, dtype=np.int64)
    return pairing, si, sf, eng, tr, edges, vp, trace, tn, rng


def test_hits_one_at_a_time_sink_and_excess_lost():
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state("spain:5", "viking:2")
    battle._fire(
        rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, p.hit_on_cm, p.islands, trace, tn, 1
    )
    # 5 automatic hits: two masts, then the sinking hit, two hits lost; Spain +1 VP per sinking
    assert si[1, 0, S_MASTS] == 0 and si[1, 0, 6] == 1
    assert vp[0].tolist() == [2, 3, 0]


def test_chinese_hull_point_takes_the_first_hit():
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state("viking:1", "chinese:3")
    battle._fire(
        rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, p.hit_on_cm, p.islands, trace, tn, 1
    )
    assert si[1, 0, 2] == 0 and si[1, 0, S_MASTS] == 3  # hull point gone, masts intact
    assert vp[0].tolist() == [1, 0, 0]


def test_chinese_per_two_masts_switch():
    rules = SCENARIOS["chinese-hull-per-two-masts"].rules
    f = parse_fleet("chinese:5,3,2,1", rules)
    pairing = api.make_pairing(f, f, rules, "gunline")
    assert pairing.fleets[0, :4, 1].tolist() == [3, 2, 1, 1]


def test_gunner_adds_a_die_once_per_turn():
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state("spain:2 gunner@0", "viking:5")
    battle._fire(
        rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, p.hit_on_cm, p.islands, trace, tn, 1
    )
    assert si[1, 0, S_MASTS] == 2  # 2 masts + 1 gunner die, all automatic
    battle._fire(
        rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, p.hit_on_cm, p.islands, trace, tn, 1
    )
    assert si[1, 0, S_MASTS] == 0  # second shot the same turn: no gunner die


def test_carpenter_repairs_up_to_start_and_no_attack():
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state("spain:3 carpenter@0", "viking:5")
    si[0, 0, S_MASTS] = 1
    act = np.zeros(7)
    act[0] = 1  # repair
    act[1] = 1  # and (illegally) fire
    act[3] = 0
    act[4], act[5] = 40.0, 30.0
    battle.activate(
        rng,
        si,
        sf,
        p.nations,
        vp,
        tr,
        eng,
        edges,
        0,
        0,
        act,
        p.ri,
        p.rf,
        p.move_cm,
        p.hit_on_cm,
        p.islands,
        trace,
        tn,
        1,
    )
    assert si[0, 0, S_MASTS] == 2
    assert si[1, 0, S_MASTS] == 5  # no attack in a repair turn
    # 3-mast ship with 2 masts: 14 - 2 = 12 cm, minus 5 for the repair
    assert sf[0, 0, F_X] == pytest.approx(10.0 + 7.0)
    assert sf[0, 0, F_Y] == pytest.approx(30.0)


def test_mastless_ship_moves_only_with_oars_or_as_turk():
    for spec, want in (
        ("spain:3", 0),
        ("spain:3 oars@0", 5),
        ("turkish:3", 8),
        ("turkish:3 helmsman@0", 10),
    ):
        p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state(spec, "viking:1", pos_b=(80.0, 30.0))
        si[0, 0, S_MASTS] = 0
        act = np.zeros(7)
        act[4], act[5] = 60.0, 30.0
        battle.activate(
            rng,
            si,
            sf,
            p.nations,
            vp,
            tr,
            eng,
            edges,
            0,
            0,
            act,
            p.ri,
            p.rf,
            p.move_cm,
            p.hit_on_cm,
            p.islands,
            trace,
            tn,
            1,
        )
        assert sf[0, 0, F_X] == pytest.approx(10.0 + want), spec


def test_engaged_ship_cannot_move_without_disengaging():
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state(
        "spain:3", "viking:3", pos_b=(10.5, 30.0)
    )
    eng[0, 0] = True
    act = np.zeros(7)
    act[4], act[5] = 40.0, 30.0  # tries to sail off without disengaging
    battle.activate(
        rng,
        si,
        sf,
        p.nations,
        vp,
        tr,
        eng,
        edges,
        0,
        0,
        act,
        p.ri,
        p.rf,
        p.move_cm,
        p.hit_on_cm,
        p.islands,
        trace,
        tn,
        1,
    )
    assert sf[0, 0, F_X] == 10.0


def test_disengage_is_automatic_from_a_mastless_enemy():
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state(
        "spain:5", "viking:3", pos_b=(10.5, 30.0)
    )
    si[0, 0, S_MASTS] = 1  # difficulty would be 6+ (capped)
    si[1, 0, S_MASTS] = 0
    eng[0, 0] = True
    act = np.zeros(7)
    act[6] = 1
    act[4], act[5] = 40.0, 30.0
    battle.activate(
        rng,
        si,
        sf,
        p.nations,
        vp,
        tr,
        eng,
        edges,
        0,
        0,
        act,
        p.ri,
        p.rf,
        p.move_cm,
        p.hit_on_cm,
        p.islands,
        trace,
        tn,
        1,
    )
    assert not eng[0, 0]
    assert sf[0, 0, F_X] == pytest.approx(10.0 + 10.0)  # 18 - 4 x 2


def test_boarding_winner_removes_difference_and_sinks_on_net_excess():
    """Boarding with every die certain: success_on = 1 via an overlay-like rules copy."""
    rules = dataclasses.replace(STD, boarding=dataclasses.replace(STD.boarding, success_on=1))
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state(
        "viking:5", "spain:2", rules=rules, pos_b=(10.5, 30.0)
    )
    battle._board(rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, trace, tn, 1)
    # Viking 5 + 1 dice = 6 successes vs 2: net 4 > 2 masts -> both masts removed and sunk
    assert si[1, 0, S_MASTS] == 0 and si[1, 0, 6] == 1
    assert vp[0].tolist() == [2, 2, 0]
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state(
        "spain:3", "spain:2", rules=rules, pos_b=(10.5, 30.0)
    )
    battle._board(rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, trace, tn, 1)
    # net 1: one mast removed, not sunk, ships stay engaged
    assert si[1, 0, S_MASTS] == 1 and si[1, 0, 6] == 0 and eng[0, 0]
    raw = dataclasses.replace(rules, boarding=dataclasses.replace(rules.boarding, sink_rule="raw"))
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state(
        "spain:3", "spain:2", rules=raw, pos_b=(10.5, 30.0)
    )
    battle._board(rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, trace, tn, 1)
    # raw rule: 3 successes exceed 2 masts -> sunk after losing one mast
    assert si[1, 0, 6] == 1


def test_scenarios_score_their_objectives():
    f = api.mirrored_fleet(STD, "spain")
    pairing = api.make_pairing(f, f, STD, "gunline", "treasure")
    kinds = set()
    for seed in range(60):
        out, trace, si = api.play_traced(pairing, seed)
        kinds |= {int(e[5]) for e in trace if int(e[0]) == battle.EV_SCENARIO}
    assert kinds & {0, 1}
    # convoy: fleet A defends (switch "first"); 3-mast convoy ships (14 cm, 16 with the Helmsman)
    # cross the 80 cm to the far edge against a lone sloop
    # (the game goes on after the sloop sinks: end_when_side_idle off)
    rules = dataclasses.replace(
        STD,
        convoy=dataclasses.replace(STD.convoy, defender="first"),
        turns=dataclasses.replace(STD.turns, end_when_side_idle=False),
    )
    pairing = api.make_pairing("spain:3,3,3,3 helmsman@3", "viking:1", rules, "gunline", "convoy")
    exits = 0
    for seed in range(20):
        out, trace, si = api.play_traced(pairing, seed)
        assert out[battle.O_DEF] == 0
        exits += sum(1 for e in trace if int(e[0]) == battle.EV_SCENARIO and int(e[5]) == 2)
        replay_and_check(
            rules,
            [parse_fleet("spain:3,3,3,3 helmsman@3", rules), parse_fleet("viking:1", rules)],
            out,
            trace,
            si,
        )
    assert exits > 0


# ---------------------------------------------------------------------------------------------
# Runs: seat symmetry, reproducibility, jobs


def test_jobs_do_not_change_results():
    fa = "pirates:5,3,2,1,1 captain@0 gunner@1"
    fb = "chinese:4,3,3,2 carpenter@1 musketeer@0"
    d1, s1 = api.battle_stats(
        fa, fb, n=600, seed=99, jobs=1, chunk_size=100, commanders="gunline,boarder"
    )
    d2, s2 = api.battle_stats(
        fa, fb, n=600, seed=99, jobs=2, chunk_size=300, commanders="gunline,boarder"
    )
    pd_equal = d1.equals(d2)
    assert pd_equal
    assert s1["win"] == s2["win"] and s1["mean_vp"] == s2["mean_vp"]


def test_same_seed_same_result_and_different_seed_differs():
    fa, fb = "spain:5,3,2,1,1", "viking:5,3,2,1,1"
    a = api.battle_stats(fa, fb, n=300, seed=5)[0]
    b = api.battle_stats(fa, fb, n=300, seed=5)[0]
    c = api.battle_stats(fa, fb, n=300, seed=6)[0]
    assert a.equals(b) and not a.equals(c)


def _z(p1, n1, p2, n2):
    p = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = np.sqrt(max(p * (1 - p), 1e-9) * (1 / n1 + 1 / n2))
    return abs(p1 - p2) / se


def test_mirrored_matrix_seat_swap_consistency():
    """A vs B (A in seat A) and B vs A (seats swapped) agree within their intervals: win against
    the mirrored loss and draw against draw, each within 4 SE of a two-sample test (400 battles a
    cell: a seat effect of about 0.14 in a win rate near 0.5, or 0.05 in a draw rate near 0.02,
    fails)."""
    nations = ["spain", "chinese", "viking"]
    df, s = api.nation_matrix(n=400, seed=3, nations=nations, chunk_size=100)
    m = s["matrix"]
    for a in range(3):
        for b in range(3):
            ab, ba = m[a][b], m[b][a]
            lo, hi = ab["ci95"]["win"]
            lo2, hi2 = ba["ci95"]["loss"]
            assert lo <= hi2 and lo2 <= hi, (nations[a], nations[b])  # intervals overlap
            assert _z(ab["win"], ab["n"], ba["loss"], ba["n"]) < 4.0
            assert _z(ab["draw"], ab["n"], ba["draw"], ba["n"]) < 4.0
    for a in range(3):  # the diagonal is a fair mirror
        assert _z(m[a][a]["win"], 400, m[a][a]["loss"], 400) < 4.0


def test_seat_does_not_matter_in_expectation():
    """Same fleet both sides: win and loss rates equal within 4 SE (deployment and initiative
    fair)."""
    f = "turkish:4,3,2,2,1 helmsman@0 gunner@2"
    _, s = api.battle_stats(f, f, n=3000, seed=21, commanders="skirmisher")
    assert _z(s["win"]["p"], 3000, s["loss"]["p"], 3000) < 4.0


def test_crew_roles_listed_in_engine_order():
    assert CREW_ROLES.index("captain") == CAPTAIN and CREW_ROLES.index("gunner") == GUNNER
    assert nation_array(STD, "viking")[5] == 1
    assert pack_rules(STD).move_cm.tolist() == [0, 10, 12, 14, 16, 18]


def _activation_order(trace):
    """{turn: (initiative winner, [side of each activation])}"""
    order = {}
    for ev in trace:
        if int(ev[0]) == battle.EV_INITIATIVE:
            order[int(ev[1])] = (int(ev[2]), [])
        elif int(ev[0]) == battle.EV_ACTIVATE:
            order[int(ev[1])][1].append(int(ev[2]))
    return order


@pytest.mark.parametrize("scen", ["standard", "alternate-activation"])
def test_initiative_and_activation_order(scen):
    """Activation follows the initiative winner's side (or alternates); the winner is side 0 about
    half the time (two d6, ties rerolled, the higher leads: exactly 1/2): within 4 SE of 0.5 over
    every turn of 60 battles (several hundred rolls: a bias of about 0.1 fails)."""
    rules = SCENARIOS[scen].rules
    f = api.mirrored_fleet(rules, "spain")
    pairing = api.make_pairing(f, f, rules, "gunline")
    leads = []
    for seed in range(60):
        out, trace, si = api.play_traced(pairing, seed)
        for _turn, (lead, sides) in _activation_order(trace).items():
            leads.append(lead)
            if not sides:
                continue
            assert sides[0] == lead
            if rules.turns.activation == "side":
                # the winner activates all its ships, then the other side
                k = sides.count(lead)
                assert sides[:k] == [lead] * k and lead not in sides[k:]
            else:
                # one ship each, alternating while both sides have ships left
                n_short = min(sides.count(0), sides.count(1))
                assert all(
                    sides[2 * k] == lead and sides[2 * k + 1] == 1 - lead for k in range(n_short)
                )
        # every afloat ship activates once per turn (until the game ends early)
    assert abs(np.mean(leads) - 0.5) < 4 * np.sqrt(0.25 / len(leads)), (len(leads), np.mean(leads))


def test_game_ends_early_only_when_a_side_is_idle():
    f = api.mirrored_fleet(STD, "viking")
    pairing = api.make_pairing(f, api.mirrored_fleet(STD, "spain"), STD, "boarder,gunline")
    early = 0
    for seed in range(40):
        out, trace, si = api.play_traced(pairing, seed)
        if (
            out[battle.O_TURNS] < STD.turns.max_turns
            or out[battle.O_LEFT0] == 0
            or out[battle.O_LEFT1] == 0
        ):
            side_idle = [
                all(
                    si[s, i, 6] != 0 or (si[s, i, S_MASTS] == 0 and si[s, i, 4] != 4)
                    for i in range(si.shape[1])
                )
                for s in range(2)
            ]
            if out[battle.O_TURNS] < STD.turns.max_turns:
                early += 1
                assert any(side_idle)
    assert early > 0


def test_once_per_turn_captain_and_musketeer():
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state("pirates:3 captain@0", "viking:5")
    sf[0, 0] = (10.0, 30.0)
    sf[1, 0] = (38.0, 30.0)  # 28 cm: 6+, plenty of misses to reroll
    battle._fire(
        rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, p.hit_on_cm, p.islands, trace, tn, 1
    )
    assert si[0, 0, 7] == 1 and si[0, 0, 8] == 1  # captain and the Pirates reroll both used
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state(
        "spain:2 musketeer@0", "spain:5", pos_b=(10.5, 30.0)
    )
    from simulator.express.core import boarding_dice

    assert boarding_dice(si, p.nations, 0, 0, p.ri) == 3
    battle._board(rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, trace, tn, 1)
    assert si[0, 0, 9] == 1  # the Musketeer's bonus is used, however the boarding went
    si[0, 0, 6], si[0, 0, S_MASTS] = 0, 2  # afloat again with its masts: no bonus this turn
    assert boarding_dice(si, p.nations, 0, 0, p.ri) == 2


def test_mastless_ship_cannot_fire_even_with_a_gunner():
    """Decision D9: a mastless ship rolls no cannon dice, its Gunner adds nothing, and the volley
    is not fired (no event, no hit, the Gunner not used)."""
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state("spain:3 gunner@0", "viking:5")
    si[0, 0, S_MASTS] = 0
    battle._fire(
        rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, p.hit_on_cm, p.islands, trace, tn, 1
    )
    assert tn[0] == 0 and si[1, 0, S_MASTS] == 5 and si[0, 0, 10] == 0


def _activate(p, si, sf, eng, tr, edges, vp, trace, tn, rng, act):
    battle.activate(
        rng, si, sf, p.nations, vp, tr, eng, edges, 0, 0, act, p.ri, p.rf, p.move_cm,
        p.hit_on_cm, p.islands, trace, tn, 1,
    )  # fmt: skip


def test_crew_is_revealed_at_its_first_use_and_not_before():
    """Decision D23, case by case on built states (automatic range: no die decides)."""
    # Gunner: revealed by its ship's first volley
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state("spain:2 gunner@0", "viking:5")
    assert si[0, 0, S_REVEALED] == 0
    battle._fire(
        rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, p.hit_on_cm, p.islands, trace, tn, 1
    )
    assert si[0, 0, S_REVEALED] == 1 and si[1, 0, S_REVEALED] == 0
    kinds = [int(e[0]) for e in trace[: tn[0]]]
    k = kinds.index(battle.EV_FIRE)
    assert trace[k + 1].tolist()[:5] == [battle.EV_REVEAL, 1, 0, 0, GUNNER]  # then the losses
    # Captain: every die hits at automatic range, nothing to reroll: still hidden
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state("spain:3 captain@0", "viking:5")
    battle._fire(
        rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, p.hit_on_cm, p.islands, trace, tn, 1
    )
    assert si[0, 0, S_REVEALED] == 0
    # Helmsman: a 10 cm move of a 1-mast ship does not need it, 12 cm does
    for dest, want in ((20.0, 0), (40.0, 1)):
        p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state(
            "spain:1 helmsman@0", "viking:1", pos_b=(80.0, 30.0)
        )
        act = np.zeros(7)
        act[4], act[5] = dest, 30.0
        _activate(p, si, sf, eng, tr, edges, vp, trace, tn, rng, act)
        assert si[0, 0, S_REVEALED] == want, dest
    # Carpenter: revealed by its repair
    p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state("spain:3 carpenter@0", "viking:5")
    si[0, 0, S_MASTS] = 1
    act = np.zeros(7)
    act[0], act[4], act[5] = 1, 10.0, 30.0
    _activate(p, si, sf, eng, tr, edges, vp, trace, tn, rng, act)
    assert si[0, 0, S_REVEALED] == 1
    # Musketeer: revealed by a boarding it rolls in, on either side (decision D5)
    for side in (0, 1):
        fleets = (
            ("spain:2 musketeer@0", "spain:2") if side == 0 else ("spain:2", "spain:2 musketeer@0")
        )
        p, si, sf, eng, tr, edges, vp, trace, tn, rng = _state(*fleets, pos_b=(10.5, 30.0))
        battle._board(rng, si, sf, p.nations, vp, tr, eng, 0, 0, 0, p.ri, trace, tn, 1)
        assert si[side, 0, S_REVEALED] == 1 and si[1 - side, 0, S_REVEALED] == 0


def test_a_changed_compiled_source_drops_the_packages_numba_cache(tmp_path):
    """numba keys a cached function on its own file only, and the engine's modules call into
    each other: an edit to any of them must drop every numba cache file of the package (through
    the one ``simulator.compiled.drop_stale_cache``) and leave its other files."""
    from cache_support import check_drops_stale_cache

    import simulator.express.core as core

    check_drops_stale_cache(
        core.drop_stale_cache, Path(core.__file__).resolve().parent, core.COMPILED_MODULES,
        tmp_path, ("battle.play_battle-90.py311.nbi", "battle.play_battle-90.py311.1.nbc"),
        "battle.cpython-311.pyc", "admiral.py",
    )  # fmt: skip
