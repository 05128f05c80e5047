"""One game, compiled: mirror of :mod:`simulator.hunt.game` (turn loop, variants, invariants).

Notes sections *Movement* (a turn), *Win* (end, stalemate) and the variants acting on a whole
turn: 2 cyclone, 5 fire ship, 6 one-two. :func:`run_games` is what :mod:`simulator.hunt.api`
calls: it packs the tables, draws two 64-bit seeds per game from the chunk's generator (dice,
players) and plays the games in one compiled loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator.hunt.fast.moves import (
    B_FLAGS,
    B_LEAF,
    B_LEAF_INFO,
    L_LOADS,
    L_WON,
    enumerate_options,
    work_buffers,
)
from simulator.hunt.fast.packed import (
    A_DIST,
    P_AT_ANCHOR,
    P_AT_CELL_COL,
    P_AT_CELL_PTR,
    P_AT_CELL_ROW,
    P_AT_GRID,
    P_AT_HOME,
    P_AT_KIND,
    P_AT_OWNER,
    P_AT_SEAT_HI,
    P_AT_SEAT_LO,
    P_CHECK,
    P_COLS,
    P_CYC,
    P_CYC_EQ,
    P_CYC_PLAY,
    P_FIRE,
    P_FIRE_ENDS,
    P_FIRE_HALF,
    P_FLEET,
    P_MAXTURNS,
    P_NDICE,
    P_NNODES,
    P_NSEATS,
    P_ONETWO,
    P_ONETWO_CHAIN,
    P_ROWS,
    P_SIDES,
    P_TRACE,
    P_WRECKS,
    initial_arrays,
    pack,
)
from simulator.hunt.fast.players import PT_RANDOM, choose, fire_choice, policy_arrays
from simulator.hunt.fast.rng import randint

# output columns per game
(
    O_WINNER,
    O_END,
    O_TURNS,
    O_BOARDINGS,
    O_EXPLOSIONS,
    O_EXPLODED,
    O_CYCLONE,
    O_REROLLS,
    O_LOADS,
    O_WRECKS,
    O_MAXFLEET,
    O_ERROR,
    O_FIXED,
) = range(13)  # then sunk_by[seat], lost[seat]
END_CODES = ("win", "stalemate", "draw")
# trace rows (play_one with P[P_TRACE] > 0): T_KIND, T_SEAT, then the data
T_KIND, T_SEAT, T_DATA = 0, 1, 2
T_ROLL = 0  # data: the chosen outcome as a packed state row (nodes, cargo, treasures)
T_FIRE = 1  # data: the fire ship, the node where it explodes
#: O_ERROR: 0 fine, 1..8 the broken invariant (numbers of simulator.hunt.game.INVARIANTS), or:
ERR_BUFFERS = 9  # a roll had more distinct outcomes than the buffers hold (MAX_LEAVES)


@njit(cache=True)
def hit(P, a, b, radius):
    """Is any square of node ``a`` within Chebyshev ``radius`` of a square of node ``b``?"""
    at_ptr, at_r, at_c = P[P_AT_CELL_PTR], P[P_AT_CELL_ROW], P[P_AT_CELL_COL]
    for i in range(P[at_ptr + a], P[at_ptr + a + 1]):
        for j in range(P[at_ptr + b], P[at_ptr + b + 1]):
            if max(abs(P[at_r + i] - P[at_r + j]), abs(P[at_c + i] - P[at_c + j])) <= radius:
                return True
    return False


@njit(cache=True)
def fire_targets(P, node, wreck, ship, length, out):
    """Mirror of :func:`simulator.hunt.game.fire_ship_targets`; returns the count in ``out``."""
    at_kind, at_ptr, at_grid = P[P_AT_KIND], P[P_AT_CELL_PTR], P[P_AT_GRID]
    at_r, at_c = P[P_AT_CELL_ROW], P[P_AT_CELL_COL]
    rows, cols = P[P_ROWS], P[P_COLS]
    n_out = 0
    f = node[ship]
    for i in range(P[at_ptr + f], P[at_ptr + f + 1]):
        r, c = P[at_r + i], P[at_c + i]
        for d in range(4):
            dr = -1 if d == 0 else (1 if d == 2 else 0)
            dc = 1 if d == 1 else (-1 if d == 3 else 0)
            ok = True
            m = -1
            for k in range(1, length + 1):
                rr, cc = r + dr * k, c + dc * k
                if rr < 0 or rr >= rows or cc < 0 or cc >= cols:
                    ok = False
                    break
                m = P[at_grid + rr * cols + cc]
                if m < 0 or (P[at_kind + m] != 0 and P[at_kind + m] != 4) or wreck[m]:
                    ok = False
                    break
                if k < length:
                    for s in range(node.shape[0]):
                        if node[s] == m:
                            ok = False
                            break
                    if not ok:
                        break
            if ok:
                dup = False
                for j in range(n_out):
                    if out[j] == m:
                        dup = True
                if not dup:
                    out[n_out] = m
                    n_out += 1
    return n_out


@njit(cache=True)
def remove_ship(node, carry, tre, wreck, s, make_wreck):
    if node[s] < 0:
        return
    if make_wreck:
        wreck[node[s]] = 1
    node[s] = -1
    if carry[s] >= 0:
        tre[carry[s]] = carry[s]
        carry[s] = -1


@njit(cache=True)
def alive_seats(P, node):
    """How many seats have a ship afloat, and the last of them."""
    at_lo, at_hi = P[P_AT_SEAT_LO], P[P_AT_SEAT_HI]
    n_alive = 0
    last = -1
    for seat in range(P[P_NSEATS]):
        for s in range(P[at_lo + seat], P[at_hi + seat]):
            if node[s] >= 0:
                n_alive += 1
                last = seat
                break
    return n_alive, last


@njit(cache=True)
def check_state(A, P, node, carry, tre, wreck, before_node):
    """0 when the state keeps the invariants of :func:`simulator.hunt.game.check_state`, else the
    number of the first one broken (1-based, as in :data:`simulator.hunt.game.INVARIANTS`; 8, a
    wreck disappearing, cannot happen here: the wreck array only grows)."""
    at_owner = P[P_AT_OWNER]
    ns = node.shape[0]
    n_nodes = P[P_NNODES]
    for s in range(ns):
        if node[s] < -1 or node[s] >= n_nodes:
            return 1
        if before_node[s] < 0 and node[s] >= 0:
            return 2
        if node[s] < 0 and carry[s] >= 0:
            return 3
        for s2 in range(s + 1, ns):
            if node[s] >= 0 and node[s2] == node[s]:
                if P[at_owner + s] != P[at_owner + s2]:
                    return 4
                if P[P_FLEET] == 0:
                    return 5
    for k in range(tre.shape[0]):
        aboard = 0
        for s in range(ns):
            if carry[s] == k:
                aboard += 1
        on_isl = 1 if tre[k] == k else 0
        if aboard + on_isl != 1 or (tre[k] != k and tre[k] != -1):
            return 6
    if P[P_WRECKS] == 0:
        for n in range(n_nodes):
            if wreck[n]:
                return 7
    return 0


@njit(cache=True)
def play_one(
    A,
    P,
    init_node,
    init_carry,
    init_tre,
    init_wreck,
    ptypes,
    weights,
    seat_pol,
    dice_seed,
    pol_seed,
    WB,
    out,
    trace,
):
    """Play one game; write its record into ``out`` (see the O_* columns).

    With ``P[P_TRACE]`` > 0 every decision is also written to ``trace`` (``T_*`` rows: each
    roll's chosen outcome, each fire ship), for the die-for-die comparison with the readable
    engine (:func:`trace_game`).
    """
    dist = A[A_DIST]
    at_owner, at_home, at_anchor = P[P_AT_OWNER], P[P_AT_HOME], P[P_AT_ANCHOR]
    at_lo, at_hi = P[P_AT_SEAT_LO], P[P_AT_SEAT_HI]
    leaf, leaf_info, flags = WB[B_LEAF], WB[B_LEAF_INFO], WB[B_FLAGS]
    n_seats = P[P_NSEATS]
    ns = init_node.shape[0]
    node = init_node.copy()
    carry = init_carry.copy()
    tre = init_tre.copy()
    wreck = init_wreck.copy()
    before = np.zeros(ns, dtype=np.int64)
    drng = np.zeros(1, dtype=np.uint64)
    drng[0] = dice_seed
    prng = np.zeros(1, dtype=np.uint64)
    prng[0] = pol_seed
    nd = P[P_NDICE]
    dice = np.zeros(nd, dtype=np.int64)
    targets = np.zeros(16, dtype=np.int64)
    out[:] = 0
    out[O_WINNER] = -1
    out[O_END] = 1
    out[O_MAXFLEET] = 1
    seat = 0
    turns = 0
    check = P[P_CHECK]
    n_trace = 0
    if check:
        e = check_state(A, P, node, carry, tre, wreck, node)
        if e:
            out[O_ERROR] = e
            return
    while True:
        if turns >= P[P_MAXTURNS]:
            out[O_END] = 1
            out[O_WINNER] = -1
            break
        alive = False
        for s in range(P[at_lo + seat], P[at_hi + seat]):
            if node[s] >= 0:
                alive = True
        if not alive:
            seat = (seat + 1) % n_seats
            continue
        turns += 1
        pol = seat_pol[seat]
        ptype = ptypes[pol]
        w = weights[pol]
        done = False
        if P[P_FIRE] == 1:
            ship = fire_choice(A, P, node, carry, seat, ptype, w, prng)
            if ship >= 0:
                a = 1 + randint(drng, P[P_SIDES])
                b = 1 + randint(drng, P[P_SIDES])
                low = min(a, b)
                radius = (low + 1) // 2 if P[P_FIRE_HALF] == 1 else low
                nt = fire_targets(P, node, wreck, ship, a + b, targets)
                centre = node[ship]  # no line: it explodes where it is
                if nt > 0:
                    if ptype == PT_RANDOM:
                        centre = targets[randint(prng, nt)]
                    else:
                        best_v = -1e300
                        for i in range(nt):
                            v = 0.0
                            for s in range(ns):
                                if node[s] < 0 or s == ship:
                                    continue
                                if hit(P, node[s], targets[i], radius):
                                    worth = 3.0 if carry[s] >= 0 else 1.0
                                    v += worth if P[at_owner + s] != seat else -2.0 * worth
                            if v > best_v:
                                best_v = v
                                centre = targets[i]
                if n_trace < P[P_TRACE]:
                    trace[n_trace, T_KIND] = T_FIRE
                    trace[n_trace, T_SEAT] = seat
                    trace[n_trace, T_DATA] = ship
                    trace[n_trace, T_DATA + 1] = centre
                    n_trace += 1
                before[:] = node
                node[ship] = centre
                for s in range(ns):
                    if node[s] >= 0 and hit(P, node[s], centre, radius):
                        remove_ship(node, carry, tre, wreck, s, P[P_WRECKS] == 1)
                out[O_EXPLOSIONS] += 1
                for s in range(ns):
                    if before[s] >= 0 and node[s] < 0:
                        out[O_FIXED + n_seats + P[at_owner + s]] += 1
                        if P[at_owner + s] != seat:
                            out[O_FIXED + seat] += 1
                            out[O_EXPLODED] += 1
                if check:
                    e = check_state(A, P, node, carry, tre, wreck, before)
                    if e:
                        out[O_ERROR] = e
                        break
                n_alive, last = alive_seats(P, node)
                if n_alive <= 1:
                    out[O_END] = 0 if n_alive == 1 else 2
                    out[O_WINNER] = last if n_alive == 1 else -1
                    break
                if P[P_FIRE_ENDS] == 1:
                    seat = (seat + 1) % n_seats
                    continue
        extra = True
        first_roll = True
        while extra:
            extra = False
            for i in range(nd):
                dice[i] = 1 + randint(drng, P[P_SIDES])
            if P[P_CYC] == 1:
                most = 0
                for i in range(nd):
                    k = 0
                    for j in range(nd):
                        if dice[j] == dice[i]:
                            k += 1
                    if k > most:
                        most = k
                if most >= P[P_CYC_EQ]:
                    victim = -1
                    best_d = -1
                    for s in range(P[at_lo + seat], P[at_hi + seat]):
                        if node[s] >= 0:
                            dd = dist[P[at_anchor + P[at_home + s]], node[s]]
                            if dd > best_d:
                                best_d = dd
                                victim = s
                    before[:] = node
                    remove_ship(node, carry, tre, wreck, victim, False)
                    out[O_CYCLONE] += 1
                    out[O_FIXED + n_seats + seat] += 1
                    if check:
                        e = check_state(A, P, node, carry, tre, wreck, before)
                        if e:
                            out[O_ERROR] = e
                            done = True
                            break
                    n_alive, last = alive_seats(P, node)
                    if n_alive <= 1:
                        out[O_END] = 0 if n_alive == 1 else 2
                        out[O_WINNER] = last if n_alive == 1 else -1
                        done = True
                        break
                    mine = 0
                    for s in range(P[at_lo + seat], P[at_hi + seat]):
                        if node[s] >= 0:
                            mine += 1
                    if P[P_CYC_PLAY] == 0 or mine == 0:
                        break
            # sorted dice (the enumeration deduplicates equal values in order)
            sd = np.sort(dice)
            n_leaves = enumerate_options(A, P, node, carry, tre, wreck, seat, sd, WB)
            if flags[0] != 0:
                out[O_ERROR] = ERR_BUFFERS
                flags[0] = 0
                done = True
                break
            k = choose(A, P, WB, n_leaves, seat, ptype, w, prng)
            before[:] = node
            won = leaf_info[k, L_WON]
            out[O_LOADS] += leaf_info[k, L_LOADS]
            for i in range(ns):
                node[i] = leaf[k, i]
                carry[i] = leaf[k, ns + i]
            for i in range(tre.shape[0]):
                tre[i] = leaf[k, 2 * ns + i]
            if n_trace < P[P_TRACE]:
                trace[n_trace, T_KIND] = T_ROLL
                trace[n_trace, T_SEAT] = seat
                for i in range(leaf.shape[1]):
                    trace[n_trace, T_DATA + i] = leaf[k, i]
                n_trace += 1
            for s in range(ns):
                if before[s] >= 0 and node[s] < 0:
                    if P[P_WRECKS] == 1:
                        wreck[before[s]] = 1
                    out[O_BOARDINGS] += 1
                    out[O_FIXED + seat] += 1
                    out[O_FIXED + n_seats + P[at_owner + s]] += 1
            if P[P_FLEET] == 1:
                for s in range(P[at_lo + seat], P[at_hi + seat]):
                    if node[s] >= 0:
                        k2 = 0
                        for s2 in range(ns):
                            if node[s2] == node[s]:
                                k2 += 1
                        if k2 > out[O_MAXFLEET]:
                            out[O_MAXFLEET] = k2
            if check:
                e = check_state(A, P, node, carry, tre, wreck, before)
                if e:
                    out[O_ERROR] = e
                    done = True
                    break
            if won == 1:
                out[O_END] = 0
                out[O_WINNER] = seat
                done = True
                break
            n_alive, last = alive_seats(P, node)
            if n_alive <= 1:
                out[O_END] = 0 if n_alive == 1 else 2
                out[O_WINNER] = last if n_alive == 1 else -1
                done = True
                break
            if P[P_ONETWO] == 1 and (first_roll or P[P_ONETWO_CHAIN] == 1):
                has1 = False
                has2 = False
                for i in range(nd):
                    if dice[i] == 1:
                        has1 = True
                    if dice[i] == 2:
                        has2 = True
                if has1 and has2:
                    extra = True
                    first_roll = False
                    out[O_REROLLS] += 1
        if done:
            break
        seat = (seat + 1) % n_seats
    out[O_TURNS] = turns
    k = 0
    for n in range(wreck.shape[0]):
        k += wreck[n]
    out[O_WRECKS] = k


@njit(cache=True)
def play_many(
    A, P, init_node, init_carry, init_tre, init_wreck, ptypes, weights, seat_pols, seeds, WB, out
):
    trace = np.zeros((1, 1), dtype=np.int64)  # (P[P_TRACE] == 0: nothing is traced)
    for g in range(seeds.shape[0]):
        play_one(
            A,
            P,
            init_node,
            init_carry,
            init_tre,
            init_wreck,
            ptypes,
            weights,
            seat_pols[g],
            seeds[g, 0],
            seeds[g, 1],
            WB,
            out[g],
            trace,
        )


def run_games(t, rules, st0, players, seat_pols, rng, check=False):
    """Play ``len(seat_pols)`` games; returns the int64 record array
    (n_games, O_FIXED + 2*seats)."""
    A, P = pack(t, rules)
    P[P_CHECK] = 1 if check else 0
    ptypes, weights = policy_arrays(players)
    n = len(seat_pols)
    seeds = rng.integers(0, 2**63 - 1, size=(n, 2), dtype=np.int64).astype(np.uint64)
    init_node, init_carry, init_tre, init_wreck = initial_arrays(t, st0)
    WB = work_buffers(len(t.ship_owner), max(t.num_treasures, 1), t.board.num_nodes)
    out = np.zeros((n, O_FIXED + 2 * t.num_players), dtype=np.int64)
    play_many(
        A,
        P,
        init_node,
        init_carry,
        init_tre,
        init_wreck,
        ptypes,
        weights,
        np.asarray(seat_pols, dtype=np.int64),
        seeds,
        WB,
        out,
    )
    return out


def trace_game(t, rules, st0, players, seat_pol, dice_seed: int, pol_seed: int, check=True):
    """Play one game with the given seeds and return ``(record, trace rows)``: the ``O_*`` record
    and every decision (``T_*`` rows), for the die-for-die comparison with the readable engine
    (``tests/test_hunt_fast.py``)."""
    A, P = pack(t, rules)
    P[P_CHECK] = 1 if check else 0
    width = 2 * len(t.ship_owner) + max(t.num_treasures, 1)
    rows = 8 * rules.max_turns + 64
    P[P_TRACE] = rows
    ptypes, weights = policy_arrays(players)
    init_node, init_carry, init_tre, init_wreck = initial_arrays(t, st0)
    WB = work_buffers(len(t.ship_owner), max(t.num_treasures, 1), t.board.num_nodes)
    out = np.zeros(O_FIXED + 2 * t.num_players, dtype=np.int64)
    trace = np.full((rows, T_DATA + max(width, 2)), -9, dtype=np.int64)
    play_one(
        A,
        P,
        init_node,
        init_carry,
        init_tre,
        init_wreck,
        ptypes,
        weights,
        np.asarray(seat_pol, dtype=np.int64),
        np.uint64(dice_seed),
        np.uint64(pol_seed),
        WB,
        out,
        trace,
    )
    used = int((trace[:, T_KIND] != -9).sum())
    if used >= rows:
        raise RuntimeError(f"trace buffer full ({rows} rows)")
    return out, trace[:used]
