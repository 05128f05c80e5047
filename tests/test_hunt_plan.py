"""The planning tables (simulator/hunt/plan.py): reach sets against the move oracle,
expected rolls against plain value iteration and a hand-computed value, roll distances."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest
from hunt_support import N, lone_reach

from scenarios.loader import load_scenario
from simulator.hunt import plan as compiled
from simulator.hunt.packed import build_tables
from simulator.hunt.plan import NEVER, dice_rolls
from simulator.hunt.rules import HuntRules
from simulator.hunt.variants import load_hunt

STANDARD = load_scenario("standard", HuntRules)


def build_plan(rules, players=4):
    return build_tables(rules, players, plan=True).plan


def bits(plan, r, a):
    """The nodes in the reach set of roll ``r`` from ``a``."""
    return {
        m for m in range(plan.reach.shape[1]) if (int(plan.reach[r, a, m >> 6]) >> (m & 63)) & 1
    }


@pytest.mark.parametrize("variants", [(), ("cyclone",)])
def test_reach_sets_are_what_the_move_generator_allows(variants):
    sc = load_hunt(None, list(variants))
    t = build_tables(sc.rules, 4, plan=True)
    plan = t.plan
    rng = np.random.default_rng(5)
    nodes = [N(t, 0, 8), N(t, 5, 3), N(t, 4, 8), N(t, 0, 1)] + list(
        rng.choice(t.board.num_nodes, size=6, replace=False)
    )
    for r, roll in enumerate(plan.rolls.tolist()):
        for a in nodes:
            assert bits(plan, r, a) == lone_reach(t, int(a), roll), (roll, a)
    assert abs(plan.roll_p.sum() - 1.0) < 1e-12


def test_dice_roll_probabilities_are_exact():
    rolls, p = dice_rolls(2, 6)
    assert len(rolls) == 21
    got = {tuple(r): Fraction(x).limit_denominator(36) for r, x in zip(rolls.tolist(), p)}
    assert got[(1, 1)] == Fraction(1, 36) and got[(1, 2)] == Fraction(2, 36)
    rolls3, p3 = dice_rolls(3, 6)
    assert len(rolls3) == 56 and abs(p3.sum() - 1) < 1e-12


def value_iteration(plan, terminal, cbit_reach=None, sweeps=400):
    """Plain value iteration of x = 1 + sum_r p_r min(x, min reach value), from infinity."""
    reach = plan.reach if cbit_reach is None else cbit_reach
    n = reach.shape[1]
    sets = [[[m for m in range(n) if (int(reach[r, a, m >> 6]) >> (m & 63)) & 1] for a in range(n)]
            for r in range(reach.shape[0])]  # fmt: skip
    v = np.where(np.isfinite(terminal), terminal, 1e9)
    for _ in range(sweeps):
        new = v.copy()
        for a in range(n):
            best = [min(v[m] for m in sets[r][a]) for r in range(reach.shape[0])]
            lo, hi = 0.0, 1e9
            for _ in range(200):  # the fixed point of x = 1 + sum p min(x, b): bisection
                x = (lo + hi) / 2
                f = 1 + sum(p * min(x, b) for p, b in zip(plan.roll_p, best))
                lo, hi = (x, hi) if f > x else (lo, x)
            new[a] = min(terminal[a], hi)
        if np.allclose(new, v, rtol=0, atol=1e-12):
            break
        v = new
    return v


def test_expected_rolls_match_value_iteration_and_a_hand_value():
    t = build_tables(STANDARD.rules, 4, plan=True)
    plan = t.plan
    # a carrier of port 1 on the berth (0,1) next to its anchor (0,0) may only sail west or
    # east along row 0: it arrives with a 1, or with dice differing by one (east a, west a + 1)
    assert plan.carry_turns[0, N(t, 0, 1)] == pytest.approx(36 / 19, rel=1e-15)
    goal = np.full(t.board.num_nodes, np.inf)
    goal[N(t, 4, 8)] = 0.0
    start, pairs = compiled.reverse_index(plan.reach)
    got = np.empty(t.board.num_nodes)
    compiled.expected_turns(start, pairs, len(plan.rolls), plan.roll_p, goal, got)
    want = value_iteration(plan, goal)
    assert np.allclose(got, want, rtol=1e-9, atol=0), np.abs(got - want).max()
    load = np.full(t.board.num_nodes, np.inf)
    for a in t.board.island_anchorages[0]:
        load[a] = plan.carry_turns[0, a]
    want = value_iteration(plan, load)
    assert np.allclose(plan.fetch_turns[0, 0], want, rtol=1e-9, atol=0)


def test_expected_rolls_see_the_exact_count_rules():
    """Step distance says a trade-wind square two steps away is as near as open sea two steps
    away; under the rules it is entered only by the exact sum of both dice."""
    t = build_tables(STANDARD.rules, 4, plan=True)
    plan = t.plan
    start, pairs = compiled.reverse_index(plan.reach)
    out = np.empty(t.board.num_nodes)
    for target, source in [((5, 4), (3, 4)), ((3, 3), (3, 5))]:  # trade wind vs open sea
        goal = np.full(t.board.num_nodes, np.inf)
        goal[N(t, *target)] = 0.0
        compiled.expected_turns(start, pairs, len(plan.rolls), plan.roll_p, goal, out)
        if target == (5, 4):
            trade = out[N(t, *source)]
        else:
            sea = out[N(t, *source)]
    assert t.dist[N(t, 5, 4)][N(t, 3, 4)] == t.dist[N(t, 3, 3)][N(t, 3, 5)] == 2
    assert trade > sea  # the exact sum 2 (1/36) vs any 2, 1+1, 1 then 1...


def test_carrier_tables_follow_the_direction_rule_switch():
    """Under the stricter "anchor" rule the trip home can only be longer; from (0,10) a carrier
    of port 1 can never get home (west is over the strait (0,9)): NEVER rolls."""
    anchor_rules = dataclasses.replace(
        STANDARD.rules, movement=dataclasses.replace(STANDARD.rules.movement, carrier_rule="anchor")
    )
    t = build_tables(STANDARD.rules, 4)
    side = build_plan(STANDARD.rules).carry_turns
    strict = build_plan(anchor_rules).carry_turns
    assert side[0, t.board.anchor_node[0]] == strict[0, t.board.anchor_node[0]] == 0.0
    assert (side < NEVER).all()
    assert strict[0, N(t, 0, 10)] == NEVER
    assert (strict >= side - 1e-12).all() and (strict > side + 1e-9).any()


def test_roll_distances_are_breadth_first_over_the_reach_sets():
    t = build_tables(STANDARD.rules, 4, plan=True)
    plan = t.plan
    n = t.board.num_nodes
    for a in (0, N(t, 5, 3), N(t, 0, 8)):
        dist = {a: 0}
        frontier = [a]
        while frontier:
            nxt = []
            for x in frontier:
                for r in range(len(plan.rolls)):
                    for m in bits(plan, r, x):
                        if m not in dist:
                            dist[m] = dist[x] + 1
                            nxt.append(m)
            frontier = nxt
        assert [dist.get(m, -1) for m in range(n)] == plan.roll_dist[a].tolist()
