"""Players, compiled: mirror of :mod:`simulator.hunt.players` (``Heuristic``, ``Planner``,
``RandomPlayer``).

A policy is a type (:data:`PT_RANDOM`, :data:`PT_HEURISTIC`, :data:`PT_PLANNER`) and a weights
vector (``W_*`` the fields of :class:`simulator.hunt.players.Heuristic`, ``PW_*`` those of
:class:`~simulator.hunt.players.Planner`). :func:`score` and :func:`plan_score` value a position
exactly as ``Heuristic.score`` and ``Planner.score`` do; ``tests/test_hunt_fast.py`` compares
them position by position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator.hunt.fast.moves import B_LEAF, B_LEAF_INFO, L_WON
from simulator.hunt.fast.packed import (
    A_DIST,
    A_FLOAT,
    A_REACH,
    P_AT_ANCHOR,
    P_AT_CARRY_TURNS,
    P_AT_CELL_COL,
    P_AT_CELL_PTR,
    P_AT_CELL_ROW,
    P_AT_FETCH_TURNS,
    P_AT_HOME,
    P_AT_OWNER,
    P_AT_ROLL_P,
    P_AT_SEAT_HI,
    P_AT_SEAT_LO,
    P_NISLANDS,
    P_NNODES,
    P_NROLLS,
    P_NSEATS,
    P_NSHIPS,
    P_NTRE,
    P_ROW_ISL_DIST,
    P_ROW_ROLL_DIST,
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
    L = np.concatenate((node, carry, tre)).reshape(1, -1)
    return heuristic_value(P, A[A_DIST], L, 0, me, w)


@njit(cache=True)
def heuristic_value(P, D, L, row, me, w):
    """:func:`score` of the packed state row ``L[row]`` (``D`` is ``A[A_DIST]``): the arrays come
    one by one, since every array a per-leaf function takes out of a tuple costs reference
    counts (see :mod:`simulator.hunt.fast.packed`)."""
    ns = P[P_NSHIPS]
    c0, t0 = ns, 2 * ns
    n_tre = P[P_NTRE]
    at_owner, at_home, at_anchor = P[P_AT_OWNER], P[P_AT_HOME], P[P_AT_ANCHOR]
    isl_row = P[P_ROW_ISL_DIST]
    lo, hi = P[P[P_AT_SEAT_LO] + me], P[P[P_AT_SEAT_HI] + me]
    n_mine = 0
    n_opp = 0
    my_carrier = -1
    for s in range(ns):
        if L[row, s] < 0:
            continue
        if P[at_owner + s] == me:
            n_mine += 1
            if L[row, c0 + s] >= 0:
                my_carrier = s
        else:
            n_opp += 1
    v = w[W_SHIP] * n_mine - w[W_SINK] * n_opp
    if my_carrier >= 0:
        cn = L[row, my_carrier]
        v += w[W_CARRY] - w[W_HOME] * D[cn, P[at_anchor + P[at_home + my_carrier]]]
        if w[W_DANGER] != 0.0:
            k = 0
            for s in range(ns):
                n = L[row, s]
                if n >= 0 and P[at_owner + s] != me and D[cn, n] <= 6:
                    k += 1
            v -= w[W_DANGER] * k
    if w[W_SEEK] != 0.0:
        best = 1 << 30
        for k in range(n_tre):
            if L[row, t0 + k] == k:
                for s in range(lo, hi):
                    n = L[row, s]
                    if n >= 0:
                        d = D[isl_row + k, n]
                        if d < best:
                            best = d
        if best < (1 << 30) and (my_carrier < 0 or n_tre > 1):
            v -= w[W_SEEK] * best
    for c in range(ns):
        cn = L[row, c]
        if cn < 0 or P[at_owner + c] == me or L[row, c0 + c] < 0:
            continue
        v -= w[W_THREAT]
        if n_mine == 0:
            continue
        if w[W_SHADOW] != 0.0:
            best = 1 << 30
            for s in range(ns):
                n = L[row, s]
                if n >= 0 and P[at_owner + s] == me and D[cn, n] < best:
                    best = D[cn, n]
            v -= w[W_SHADOW] * best
        if w[W_GUARD] != 0.0:
            goal = P[at_anchor + P[at_home + c]]
            direct = D[cn, goal]
            bestf = 1e18
            for s in range(ns):
                n = L[row, s]
                if n >= 0 and P[at_owner + s] == me:
                    x = D[cn, n] + D[goal, n] - direct + 0.25 * D[goal, n]
                    if x < bestf:
                        bestf = x
            v -= w[W_GUARD] * bestf
    return v


@njit(cache=True)
def capture_chance(P, F, R, L, row, target, me):
    """Mirror of :func:`simulator.hunt.players.capture_chance` (``F`` = ``A[A_FLOAT]``, ``R`` =
    ``A[A_REACH]``)."""
    at_lo, at_hi, at_p = P[P_AT_SEAT_LO], P[P_AT_SEAT_HI], P[P_AT_ROLL_P]
    word = target >> 6
    bit = np.uint64(target & 63)
    one = np.uint64(1)
    survive = 1.0
    for seat in range(P[P_NSEATS]):
        if seat == me:
            continue
        q = 0.0
        for r in range(P[P_NROLLS]):
            for s in range(P[at_lo + seat], P[at_hi + seat]):
                n = L[row, s]
                if n >= 0 and (R[r, n, word] >> bit) & one:
                    q += F[at_p + r]
                    break
        survive *= 1.0 - q
    return 1.0 - survive


@njit(cache=True)
def strike_chance(P, F, R, L, row, target, me):
    """Mirror of :func:`simulator.hunt.players.strike_chance`."""
    at_p = P[P_AT_ROLL_P]
    lo, hi = P[P[P_AT_SEAT_LO] + me], P[P[P_AT_SEAT_HI] + me]
    word = target >> 6
    bit = np.uint64(target & 63)
    one = np.uint64(1)
    q = 0.0
    for r in range(P[P_NROLLS]):
        for s in range(lo, hi):
            n = L[row, s]
            if n >= 0 and (R[r, n, word] >> bit) & one:
                q += F[at_p + r]
                break
    return q


@njit(cache=True)
def plan_score(A, P, node, carry, tre, me, w):
    """Mirror of :meth:`simulator.hunt.players.Planner.score` (same operations, same order)."""
    L = np.concatenate((node, carry, tre)).reshape(1, -1)
    return planner_value(P, A[A_DIST], A[A_FLOAT], A[A_REACH], L, 0, me, w)


@njit(cache=True)
def planner_value(P, D, F, R, L, row, me, w):
    """:func:`plan_score` of the packed state row ``L[row]`` (arrays one by one, as
    :func:`heuristic_value`)."""
    ns = P[P_NSHIPS]
    c0, t0 = ns, 2 * ns
    n_tre, n_nodes, n_isl = P[P_NTRE], P[P_NNODES], P[P_NISLANDS]
    at_owner, at_home = P[P_AT_OWNER], P[P_AT_HOME]
    at_carry, at_fetch = P[P_AT_CARRY_TURNS], P[P_AT_FETCH_TURNS]
    roll_row = P[P_ROW_ROLL_DIST]
    lo, hi = P[P[P_AT_SEAT_LO] + me], P[P[P_AT_SEAT_HI] + me]
    n_mine = 0
    n_opp = 0
    has_carrier = False
    for s in range(ns):
        if L[row, s] < 0:
            continue
        if P[at_owner + s] == me:
            n_mine += 1
            if L[row, c0 + s] >= 0:
                has_carrier = True
        else:
            n_opp += 1
    v = w[PW_SHIP] * n_mine - w[PW_SINK] * n_opp
    best = NEVER
    for s in range(lo, hi):
        n = L[row, s]
        if n < 0:
            continue
        port = P[at_home + s]
        if L[row, c0 + s] >= 0:
            v += w[PW_CARRY] - w[PW_HOME] * F[at_carry + port * n_nodes + n]
            if w[PW_RISK] != 0.0:
                lost = capture_chance(P, F, R, L, row, n, me)
                v -= w[PW_RISK] * (w[PW_CARRY] + w[PW_THREAT]) * lost
            continue
        for k in range(n_tre):
            if L[row, t0 + k] == k:
                f = F[at_fetch + (port * n_isl + k) * n_nodes + n]
                if f < best:
                    best = f
        if w[PW_EXPOSURE] != 0.0:
            v -= w[PW_EXPOSURE] * capture_chance(P, F, R, L, row, n, me)
    if best < NEVER and (not has_carrier or n_tre > 1):
        v -= w[PW_SEEK] * best
    for c in range(ns):
        cn = L[row, c]
        if cn < 0 or P[at_owner + c] == me or L[row, c0 + c] < 0:
            continue
        v -= w[PW_THREAT]
        if n_mine == 0:
            continue
        if w[PW_HUNT] != 0.0:
            v += w[PW_HUNT] * strike_chance(P, F, R, L, row, cn, me)
        if w[PW_CHASE] != 0.0:
            d = NEVER
            for s in range(lo, hi):
                n = L[row, s]
                if n >= 0:
                    rd = D[roll_row + n, cn]
                    x = NEVER if rd < 0 else float(rd)
                    if x < d:
                        d = x
            v -= w[PW_CHASE] * d
    return v


@njit(cache=True)
def choose(A, P, WB, n_leaves, me, ptype, w, prng):
    """Mirror of the players' ``choose``: a win at once, else the best-scored leaf (ties uniform
    by reservoir sampling), or a uniform leaf for the random player."""
    L, leaf_i = WB[B_LEAF], WB[B_LEAF_INFO]
    for k in range(n_leaves):
        if leaf_i[k, L_WON] == 1:
            return k
    if n_leaves == 1:
        return 0
    if ptype == PT_RANDOM:
        return randint(prng, n_leaves)
    D, F, R = A[A_DIST], A[A_FLOAT], A[A_REACH]
    best_v = -1e300
    n_best = 0
    pick = 0
    for k in range(n_leaves):
        if ptype == PT_PLANNER:
            v = planner_value(P, D, F, R, L, k, me, w)
        else:
            v = heuristic_value(P, D, L, k, me, w)
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
    """Mirror of the players' ``fire_ship``: the ship to sacrifice, or -1."""
    at_owner, at_cell_ptr = P[P_AT_OWNER], P[P_AT_CELL_PTR]
    at_r, at_c = P[P_AT_CELL_ROW], P[P_AT_CELL_COL]
    lo, hi = P[P[P_AT_SEAT_LO] + me], P[P[P_AT_SEAT_HI] + me]
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
        if node[c] < 0 or P[at_owner + c] == me or carry[c] < 0:
            continue
        cell = P[at_cell_ptr + node[c]]
        cr, cc = P[at_r + cell], P[at_c + cell]
        for s in range(lo, hi):
            if node[s] < 0 or carry[s] >= 0:
                continue
            cell = P[at_cell_ptr + node[s]]
            r, col = P[at_r + cell], P[at_c + cell]
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
