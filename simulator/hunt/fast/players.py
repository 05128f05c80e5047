"""Players, compiled: mirror of :mod:`simulator.hunt.players` (``Heuristic``, ``RandomPlayer``).

A policy is a type (:data:`PT_RANDOM`, :data:`PT_HEURISTIC`) and a weights vector (``W_*``, the
fields of :class:`simulator.hunt.players.Heuristic`). :func:`score` values a position exactly as
``Heuristic.score`` does; ``tests/test_hunt_fast.py`` compares them position by position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator.hunt.fast.moves import B_LEAF_CARGO, B_LEAF_INFO, B_LEAF_NODE, B_LEAF_TREASURE, L_WON
from simulator.hunt.fast.packed import (
    A_ANCHOR,
    A_CARRY_TURNS,
    A_CELL_COL,
    A_CELL_PTR,
    A_CELL_ROW,
    A_DIST,
    A_FETCH_TURNS,
    A_HOME,
    A_ISL_DIST,
    A_OWNER,
    A_REACH,
    A_ROLL_DIST,
    A_ROLL_P,
    A_SEAT_HI,
    A_SEAT_LO,
    P_NSEATS,
    P_NTRE,
)
from simulator.hunt.fast.rng import randint, uniform
from simulator.hunt.plan import NEVER
from simulator.hunt.players import Heuristic, Planner, RandomPlayer

# policy types
PT_RANDOM = 0  # players.RandomPlayer
PT_HEURISTIC = 1  # players.Heuristic
PT_PLANNER = 2  # players.Planner

# weights vector indices (same order as players.Heuristic fields)
W_SHIP, W_SINK, W_CARRY, W_HOME, W_SEEK, W_SHADOW, W_GUARD, W_THREAT, W_DANGER, W_FIRE, W_LEN = (
    range(11)
)
WEIGHT_FIELDS = (
    "ship",
    "sink",
    "carry",
    "home",
    "seek",
    "shadow",
    "guard",
    "threat",
    "danger",
    "fire",
)
# planner weights (same order as players.Planner fields; fire shares index W_FIRE)
(
    PW_SHIP,
    PW_SINK,
    PW_CARRY,
    PW_HOME,
    PW_SEEK,
    PW_THREAT,
    PW_RISK,
    PW_EXPOSURE,
    PW_HUNT,
    PW_FIRE,
    PW_CHASE,
    PW_LEN,
) = range(12)
PLANNER_FIELDS = (
    "ship",
    "sink",
    "carry",
    "home",
    "seek",
    "threat",
    "risk",
    "exposure",
    "hunt",
    "fire",
    "chase",
)
assert PW_FIRE == W_FIRE


@njit(cache=True)
def score(A, P, node, carry, tre, me, w):
    """Mirror of :meth:`simulator.hunt.players.Heuristic.score` (same operations, same order)."""
    return heuristic_value(
        A[A_OWNER],
        A[A_HOME],
        A[A_ANCHOR],
        A[A_DIST],
        A[A_ISL_DIST],
        A[A_SEAT_LO][me],
        A[A_SEAT_HI][me],
        node.reshape(1, -1),
        carry.reshape(1, -1),
        tre.reshape(1, -1),
        0,
        me,
        w,
    )


@njit(cache=True)
def heuristic_value(owner, home, anchor, dist, isl_dist, lo, hi, LN, LC, LT, row, me, w):
    """:func:`score` of the position in row ``row`` of ``LN, LC, LT`` (ship nodes, cargo,
    treasures), static arrays passed one by one: :func:`choose` takes them out of ``A`` once per
    roll (an ``A[...]`` per leaf, or inside a branch or a loop, costs reference counts: it made
    this function 9 times slower)."""
    node, carry, tre = LN[row], LC[row], LT[row]
    ns = node.shape[0]
    n_mine = 0
    n_opp = 0
    my_carrier = -1
    for s in range(ns):
        if node[s] < 0:
            continue
        if owner[s] == me:
            n_mine += 1
            if carry[s] >= 0:
                my_carrier = s
        else:
            n_opp += 1
    v = w[W_SHIP] * n_mine - w[W_SINK] * n_opp
    if my_carrier >= 0:
        cn = node[my_carrier]
        v += w[W_CARRY] - w[W_HOME] * dist[cn, anchor[home[my_carrier]]]
        if w[W_DANGER] != 0.0:
            k = 0
            for s in range(ns):
                if node[s] >= 0 and owner[s] != me and dist[cn, node[s]] <= 6:
                    k += 1
            v -= w[W_DANGER] * k
    if w[W_SEEK] != 0.0:
        best = 1 << 30
        for k in range(tre.shape[0]):
            if tre[k] == k:
                for s in range(lo, hi):
                    n = node[s]
                    if n >= 0:
                        d = isl_dist[k, n]
                        if d < best:
                            best = d
        if best < (1 << 30) and (my_carrier < 0 or tre.shape[0] > 1):
            v -= w[W_SEEK] * best
    for c in range(ns):
        if node[c] < 0 or owner[c] == me or carry[c] < 0:
            continue
        v -= w[W_THREAT]
        if n_mine == 0:
            continue
        cn = node[c]
        if w[W_SHADOW] != 0.0:
            best = 1 << 30
            for s in range(ns):
                if node[s] >= 0 and owner[s] == me and dist[cn, node[s]] < best:
                    best = dist[cn, node[s]]
            v -= w[W_SHADOW] * best
        if w[W_GUARD] != 0.0:
            goal = anchor[home[c]]
            direct = dist[cn, goal]
            bestf = 1e18
            for s in range(ns):
                if node[s] >= 0 and owner[s] == me:
                    x = (
                        dist[cn, node[s]]
                        + dist[goal, node[s]]
                        - direct
                        + 0.25 * dist[goal, node[s]]
                    )
                    if x < bestf:
                        bestf = x
            v -= w[W_GUARD] * bestf
    return v


@njit(cache=True)
def capture_chance(seat_lo, seat_hi, roll_p, reach, n_seats, node, target, me):
    """Mirror of :func:`simulator.hunt.players.capture_chance`."""
    word = target >> 6
    bit = np.uint64(target & 63)
    one = np.uint64(1)
    survive = 1.0
    for seat in range(n_seats):
        if seat == me:
            continue
        q = 0.0
        for r in range(roll_p.shape[0]):
            for s in range(seat_lo[seat], seat_hi[seat]):
                n = node[s]
                if n >= 0 and (reach[r, n, word] >> bit) & one:
                    q += roll_p[r]
                    break
        survive *= 1.0 - q
    return 1.0 - survive


@njit(cache=True)
def strike_chance(seat_lo, seat_hi, roll_p, reach, node, target, me):
    """Mirror of :func:`simulator.hunt.players.strike_chance`."""
    word = target >> 6
    bit = np.uint64(target & 63)
    one = np.uint64(1)
    q = 0.0
    for r in range(roll_p.shape[0]):
        for s in range(seat_lo[me], seat_hi[me]):
            n = node[s]
            if n >= 0 and (reach[r, n, word] >> bit) & one:
                q += roll_p[r]
                break
    return q


@njit(cache=True)
def plan_score(A, P, node, carry, tre, me, w):
    """Mirror of :meth:`simulator.hunt.players.Planner.score` (same operations, same order)."""
    # fmt: off
    return planner_value(
        A[A_OWNER], A[A_HOME], A[A_SEAT_LO], A[A_SEAT_HI], A[A_ROLL_P], A[A_REACH],
        A[A_CARRY_TURNS], A[A_FETCH_TURNS], A[A_ROLL_DIST], P[P_NSEATS], P[P_NTRE],
        node.reshape(1, -1), carry.reshape(1, -1), tre.reshape(1, -1), 0, me, w,
    )
    # fmt: on


@njit(cache=True)
def planner_value(
    owner,
    home,
    seat_lo,
    seat_hi,
    roll_p,
    reach,
    carry_turns,
    fetch_turns,
    roll_dist,
    n_seats,
    n_tre,
    LN,
    LC,
    LT,
    row,
    me,
    w,
):
    """:func:`plan_score` of row ``row`` of ``LN, LC, LT``, static arrays one by one (see
    :func:`heuristic_value`)."""
    node, carry, tre = LN[row], LC[row], LT[row]
    lo, hi = seat_lo[me], seat_hi[me]
    ns = node.shape[0]
    n_mine = 0
    n_opp = 0
    has_carrier = False
    for s in range(ns):
        if node[s] < 0:
            continue
        if owner[s] == me:
            n_mine += 1
            if carry[s] >= 0:
                has_carrier = True
        else:
            n_opp += 1
    v = w[PW_SHIP] * n_mine - w[PW_SINK] * n_opp
    best = NEVER
    for s in range(lo, hi):
        n = node[s]
        if n < 0:
            continue
        if carry[s] >= 0:
            v += w[PW_CARRY] - w[PW_HOME] * carry_turns[home[s], n]
            if w[PW_RISK] != 0.0:
                lost = capture_chance(seat_lo, seat_hi, roll_p, reach, n_seats, node, n, me)
                v -= w[PW_RISK] * (w[PW_CARRY] + w[PW_THREAT]) * lost
            continue
        for k in range(n_tre):
            if tre[k] == k:
                f = fetch_turns[home[s], k, n]
                if f < best:
                    best = f
        if w[PW_EXPOSURE] != 0.0:
            v -= w[PW_EXPOSURE] * capture_chance(
                seat_lo, seat_hi, roll_p, reach, n_seats, node, n, me
            )
    if best < NEVER and (not has_carrier or n_tre > 1):
        v -= w[PW_SEEK] * best
    for c in range(ns):
        cn = node[c]
        if cn < 0 or owner[c] == me or carry[c] < 0:
            continue
        v -= w[PW_THREAT]
        if n_mine == 0:
            continue
        if w[PW_HUNT] != 0.0:
            v += w[PW_HUNT] * strike_chance(seat_lo, seat_hi, roll_p, reach, node, cn, me)
        if w[PW_CHASE] != 0.0:
            d = NEVER
            for s in range(lo, hi):
                n = node[s]
                if n >= 0:
                    rd = roll_dist[n, cn]
                    x = NEVER if rd < 0 else float(rd)
                    if x < d:
                        d = x
            v -= w[PW_CHASE] * d
    return v


@njit(cache=True)
def choose(A, P, WB, n_leaves, me, ptype, w, prng):
    leaf_n, leaf_c, leaf_t, leaf_i = (
        WB[B_LEAF_NODE],
        WB[B_LEAF_CARGO],
        WB[B_LEAF_TREASURE],
        WB[B_LEAF_INFO],
    )
    for k in range(n_leaves):
        if leaf_i[k, L_WON] == 1:
            return k
    if n_leaves == 1:
        return 0
    if ptype == PT_RANDOM:
        return randint(prng, n_leaves)
    owner, home, anchor, dist, isl_dist = (
        A[A_OWNER],
        A[A_HOME],
        A[A_ANCHOR],
        A[A_DIST],
        A[A_ISL_DIST],
    )
    seat_lo, seat_hi, roll_p, reach = A[A_SEAT_LO], A[A_SEAT_HI], A[A_ROLL_P], A[A_REACH]
    carry_turns, fetch_turns, roll_dist = A[A_CARRY_TURNS], A[A_FETCH_TURNS], A[A_ROLL_DIST]
    lo, hi = seat_lo[me], seat_hi[me]
    n_seats, n_tre = P[P_NSEATS], P[P_NTRE]
    best_v = -1e300
    n_best = 0
    pick = 0
    for k in range(n_leaves):
        if ptype == PT_PLANNER:
            # fmt: off
            v = planner_value(
                owner, home, seat_lo, seat_hi, roll_p, reach, carry_turns, fetch_turns,
                roll_dist, n_seats, n_tre, leaf_n, leaf_c, leaf_t, k, me, w,
            )
            # fmt: on
        else:
            v = heuristic_value(
                owner, home, anchor, dist, isl_dist, lo, hi, leaf_n, leaf_c, leaf_t, k, me, w
            )
        if v > best_v + 1e-9:
            best_v = v
            n_best = 1
            pick = k
        elif v > best_v - 1e-9:
            # reservoir sampling: uniform among the tied best
            n_best += 1
            if randint(prng, n_best) == 0:
                pick = k
    return pick


@njit(cache=True)
def fire_choice(A, P, node, carry, me, ptype, w, prng):
    owner, seat_lo, seat_hi, cell_ptr, cell_r, cell_c = (
        A[A_OWNER],
        A[A_SEAT_LO],
        A[A_SEAT_HI],
        A[A_CELL_PTR],
        A[A_CELL_ROW],
        A[A_CELL_COL],
    )
    lo, hi = seat_lo[me], seat_hi[me]
    mine = 0
    for s in range(lo, hi):
        if node[s] >= 0:
            mine += 1
    if ptype == PT_RANDOM:
        if w[W_FIRE] <= 0.0 or uniform(prng) >= w[W_FIRE] or mine == 0:
            return -1
        k = randint(prng, mine)
        for s in range(lo, hi):
            if node[s] >= 0:
                if k == 0:
                    return s
                k -= 1
        return -1
    if w[W_FIRE] <= 0.0 or mine < 2:
        return -1
    for c in range(node.shape[0]):
        if node[c] < 0 or owner[c] == me or carry[c] < 0:
            continue
        cr, cc = cell_r[cell_ptr[node[c]]], cell_c[cell_ptr[node[c]]]
        for s in range(lo, hi):
            if node[s] < 0 or carry[s] >= 0:
                continue
            r, col = cell_r[cell_ptr[node[s]]], cell_c[cell_ptr[node[s]]]
            if (r == cr and 2 <= abs(col - cc) <= 12) or (col == cc and 2 <= abs(r - cr) <= 12):
                return s
    return -1


def policy_arrays(players):
    """(ptypes, weights) for a list of player objects (PT_* types, W_* weights)."""
    ptypes = np.zeros(len(players), dtype=np.int64)
    weights = np.zeros((len(players), max(W_LEN, PW_LEN)), dtype=np.float64)
    for i, p in enumerate(players):
        if isinstance(p, RandomPlayer):
            ptypes[i] = PT_RANDOM
            weights[i, W_FIRE] = p.fire
        elif isinstance(p, Heuristic):
            ptypes[i] = PT_HEURISTIC
            for j, f in enumerate(WEIGHT_FIELDS):
                weights[i, j] = float(getattr(p, f))
        elif isinstance(p, Planner):
            ptypes[i] = PT_PLANNER
            for j, f in enumerate(PLANNER_FIELDS):
                weights[i, j] = float(getattr(p, f))
        else:
            raise TypeError(f"no compiled player for {type(p).__name__}")
    return ptypes, weights
