"""The compiled engine (simulator.hunt.fast) against the Python reference (moves/game/players):
the same legal outcomes and the same position scores, position by position."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.hunt.api import play_games
from simulator.hunt.fast import moves as fast_moves
from simulator.hunt.fast import packed
from simulator.hunt.fast import players as fast_players
from simulator.hunt.game import Observation, check_state, initial_state, play_game
from simulator.hunt.moves import State, build_tables, turn_options
from simulator.hunt.players import make_player
from simulator.hunt.variants import load_hunt, variant_names

CASES = (
    [((), 4), ((), 2)]
    + [((v,), None) for v in variant_names()]
    + [(("shipwreck", "fleet", "cyclone"), 3)]
)


def random_position(t, rng, st0):
    """Ships scattered on free squares (some sunk, some stacked in the fleet variant), maybe a
    carrier."""
    n_nodes = t.board.num_nodes
    ships = len(t.ship_owner)
    node = [-1] * ships
    taken = {}
    for s in range(ships):
        if rng.random() < 0.2:
            continue
        for _ in range(50):
            n = int(rng.integers(n_nodes))
            if n in taken and (not t.fleet or t.ship_owner[taken[n]] != t.ship_owner[s]):
                continue
            taken.setdefault(n, s)
            node[s] = n
            break
    carrying = [-1] * ships
    treasure = list(range(t.num_treasures))
    for k in range(t.num_treasures):
        alive = [s for s in range(ships) if node[s] >= 0 and carrying[s] < 0]
        if alive and rng.random() < 0.5:
            s = alive[int(rng.integers(len(alive)))]
            carrying[s] = k
            treasure[k] = -1
    wrecks = (
        frozenset(int(x) for x in rng.integers(n_nodes, size=3)) - set(node)
        if t.wrecks
        else frozenset()
    )
    return State(tuple(node), tuple(carrying), tuple(treasure), wrecks)


@pytest.mark.parametrize(
    "variants, players", CASES, ids=lambda x: "+".join(x) if isinstance(x, tuple) else str(x)
)
def test_same_legal_outcomes_as_the_python_engine(variants, players):
    sc = load_hunt(None, list(variants))
    players = players or (2 if sc.rules.kingdoms.mode != "none" else sc.rules.default_players)
    t = build_tables(sc.rules, players)
    A, P = packed.pack(t, sc.rules)
    WB = fast_moves.work_buffers(len(t.ship_owner), max(t.num_treasures, 1), t.board.num_nodes)
    n_dice = int(P[packed.P_NDICE])
    rng = np.random.default_rng(7)
    st0 = initial_state(t, sc.rules)
    positions = 25 if n_dice <= 3 else 6
    for i in range(positions):
        st = st0 if i == 0 else random_position(t, rng, st0)
        check_state(t, st)
        seat = int(rng.integers(players))
        alive = {t.ship_owner[s] for s, n in enumerate(st.ship_node) if n >= 0}
        home = any(
            c >= 0 and st.ship_node[s] == t.board.anchor_node[t.ship_home[s]]
            for s, c in enumerate(st.carrying)
        )
        if seat not in alive or len(alive) < 2 or home:
            continue  # positions no game reaches (already over)
        dice = tuple(sorted(int(x) for x in rng.integers(1, 7, size=n_dice)))
        py = {
            (
                o.state.ship_node,
                o.state.carrying,
                o.state.treasure_island,
                n_dice + 1 if o.won else o.dice_used,
            )
            for o in turn_options(t, st, seat, dice)
        }
        node, carry, tre, wreck = packed.initial_arrays(t, st)
        for n in st.wrecks:
            wreck[n] = 1
        k = fast_moves.enumerate_options(
            A, P, node, carry, tre, wreck, seat, np.array(dice, dtype=np.int64), WB
        )
        nb = {
            (
                *(tuple(x) for x in fast_moves.leaf_state(WB, len(t.ship_owner), j)),
                int(WB[fast_moves.B_LEAF_INFO][j, fast_moves.L_USED]),
            )
            for j in range(k)
        }
        assert nb == py, f"position {i}, seat {seat}, dice {dice}"


@pytest.mark.slow
def test_fast_engine_statistics_agree_with_python():
    sc = load_hunt(None, [])
    specs = ["runner", "hunter"]
    n_fast, n_py = 3000, 200
    _, fs = play_games(sc, specs, n_fast, seed=1, engine="fast", chunk_size=1000)
    _, ps = play_games(sc, specs, n_py, seed=1, engine="python", chunk_size=100)
    for seat in range(2):
        pf, pp = fs["seats"][seat]["win_rate"], ps["seats"][seat]["win_rate"]
        se = np.sqrt(pf * (1 - pf) / n_fast + pp * (1 - pp) / n_py)
        assert abs(pf - pp) < 4 * se, (seat, pf, pp)
    tf, tp = fs["turns"]["mean"], ps["turns"]["mean"]
    assert abs(tf - tp) < 0.15 * tp


def test_fast_runs_are_reproducible_and_check_invariants():
    sc = load_hunt(None, [])
    a, _ = play_games(sc, "random", 300, seed=9, engine="fast", check=True, chunk_size=100)
    b, _ = play_games(sc, "random", 300, seed=9, engine="fast", check=False, chunk_size=100)
    assert a.equals(b)


def reachable_positions(sc, players, n_games, seed):
    """(state, seat, dice) before every roll of ``n_games`` Python-engine games of a 4-strategy
    mix (positions real games reach: carriers, fleets, wrecks, lost ships)."""
    t = build_tables(sc.rules, players, plan=True)
    mix = ["runner", "hunter", "guard", "random"]
    seen = []
    rng = np.random.default_rng(seed)
    for g in range(n_games):
        policies = [make_player(sc.rules, mix[(k + g) % 4]) for k in range(players)]
        play_game(
            t,
            sc.rules,
            policies,
            rng,
            rng,
            on_turn=lambda st, seat, dice, _opt: seen.append((st, seat, dice)),
        )
    return t, seen


#: the planner's readable score is slow with 3 or 4 dice (56 or 126 rolls per chance): it is
#: compared on at most this many options of each position then (all of them with 2 dice)
PLANNER_OPTIONS_MANY_DICE = 8


@pytest.mark.parametrize(
    "variants, players", CASES, ids=lambda x: "+".join(x) if isinstance(x, tuple) else str(x)
)
def test_compiled_scores_equal_the_python_players(variants, players):
    """Every scoring strategy (runner, hunter, guard, planner) scores the options of reachable
    positions exactly as ``players.Heuristic.score`` / ``players.Planner.score`` do (float
    equality), so both engines choose among the same best options."""
    sc = load_hunt(None, list(variants))
    players = players or (2 if sc.rules.kingdoms.mode != "none" else sc.rules.default_players)
    many_dice = int(sc.rules.num_dice + sc.rules.cyclone.enabled * sc.rules.cyclone.extra_dice) > 2
    t, seen = reachable_positions(sc, players, 3 if many_dice else 6, seed=11)
    A, P = packed.pack(t, sc.rules)
    scorers = [make_player(sc.rules, n) for n in ("runner", "hunter", "guard", "planner")]
    ptypes, weights = fast_players.policy_arrays(scorers)
    compared = {p.name: 0 for p in scorers}
    for st, seat, dice in seen:
        options = turn_options(t, st, seat, dice)
        obs = Observation(t, st, seat, 1)
        for j, policy in enumerate(scorers):
            planner = ptypes[j] == fast_players.PT_PLANNER
            compiled = fast_players.plan_score if planner else fast_players.score
            some = options[:PLANNER_OPTIONS_MANY_DICE] if planner and many_dice else options
            py = [policy.score(obs, o.state) for o in some]
            nb = []
            for o in some:
                node, carry, tre, _ = packed.initial_arrays(t, o.state)
                nb.append(compiled(A, P, node, carry, tre, seat, weights[j]))
            assert nb == py, (policy.name, st, seat, dice)
            compared[policy.name] += len(some)
    assert min(compared.values()) > (100 if many_dice else 1000), compared
