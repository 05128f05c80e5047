"""Legal moves, compiled: mirror of :mod:`simulator.hunt.moves` on the packed arrays.

Notes sections *Movement*, *Treasure*, *Boarding*, *Win* and variants 4 (wrecks) and 9 (fleet),
on the leg tables of :func:`simulator.hunt.board.compute_legs` packed by
:func:`simulator.hunt.fast.packed.pack`.

:func:`enumerate_options` walks every sequence of legs a roll allows (depth first, one depth per
leg), deduplicates positions by Zobrist hash and keeps the distinct outcomes using the most dice
(a winning outcome is always kept), like :func:`simulator.hunt.moves.turn_options`. Buffers are
2-D with row numbers (one row per depth) rather than array views: views cost reference counting
in the inner loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator.hunt.fast.packed import (
    A_ZOBRIST,
    P_AT_ANCH_ISLAND,
    P_AT_ANCHOR,
    P_AT_HOME,
    P_AT_HOME_SQUARES,
    P_AT_INTER,
    P_AT_INTER_PTR,
    P_AT_KIND,
    P_AT_LEG_CARRIER,
    P_AT_LEG_DEST,
    P_AT_LEG_PTR,
    P_AT_OWNER,
    P_AT_SEAT_HI,
    P_AT_SEAT_LO,
    P_AT_ZC,
    P_AT_ZN,
    P_AT_ZT,
    P_FLEET,
    P_HOME_SQUARES_WIDTH,
    P_MAXL,
    P_NISLANDS,
    P_NNODES,
    P_NSHIPS,
    P_NTRE,
    P_PASS_OWN,
    P_SINK_ALL,
    P_WRECKS,
)

MAX_DEPTH = 8
MAX_STEPS = 4096
MAX_LEAVES = 1 << 15
HASH_SIZE = 1 << 16  # twice the most leaves / visited states kept

# one step (a leg) in the steps buffer: STEPS[depth, k, S_*]
S_MODE = 0  # 0: the ship alone; 1: every ship of the mover on S_FROM (a fleet)
S_SHIP = 1  # the ship (mode 0) or the fleet's lowest ship (mode 1)
S_FROM = 2  # node the leg leaves
S_DEST = 3  # node the leg ends on
S_DICE = 4  # bit mask of the dice it uses
S_LOAD = 5  # 1: load the island's treasure on arrival
S_BOARDS = 6  # 1: the destination holds an opponent (boarding)
S_LEN = 7

# per leaf: LEAF_INFO[k, L_*]
L_USED = 0  # dice used (len(dice) + 1 for a win)
L_WON = 1  # 1: the outcome wins for the mover
L_LOADS = 2  # treasures loaded on the way
L_HASH = 3  # Zobrist hash of the outcome (63 bits)

# work buffers (the tuple from work_buffers(), WB[...])
B_STEPS = 0  # int64 [depth, k, S_*]: legs available at each depth
B_NSTEPS = 1  # [depth] legs at that depth
B_POS = 2  # [depth] next leg to try at that depth
B_STATE = 3  # [depth, W] the position at each depth (packed state rows, see packed.py)
B_LEAF = 4  # [leaf, W] each distinct outcome (packed state rows)
B_LEAF_INFO = 5  # [leaf, L_*]
B_VISITED = 6  # hash table flags of (position, dice left) already expanded
B_VISITED_KEY = 7  # uint64 their keys
B_OCC = 8  # [2, node]: row 0 occupant seat (-1 free), row 1 ships on it (filled, then cleared)
B_USED = 9  # [depth] dice mask used to reach that depth
B_LOADS = 10  # [depth] treasures loaded to reach that depth
B_VISITED_SLOTS = 11  # visited slots (to clear)
B_LEAF_TABLE = 12  # hash table: leaf index + 1
B_LEAF_SLOTS = 13  # leaf slots (to clear)
B_FLAGS = 14  # [0] = 1 when the leaves overflowed (reported as error 9)
B_WRECK_ADDED = 15  # [depth] wreck node added by the step into that depth (-1 none)
B_HASH = 16  # uint64 [depth] Zobrist hash of the position at that depth


@njit(cache=True, inline="always")
def leg_ok(P, at_dest, at_cmask, at_iptr, at_inter, wreck, OCC, player, li, cbit):
    """Can ``player``'s unit sail leg ``li``? (:func:`simulator.hunt.moves.leg_allowed`)"""
    if cbit != 0 and (P[at_cmask + li] & cbit) == 0:
        return False
    for k in range(P[at_iptr + li], P[at_iptr + li + 1]):
        n = P[at_inter + k]
        if wreck[n]:
            return False
        o = OCC[0, n]
        if o >= 0 and (o != player or P[P_PASS_OWN] == 0):
            return False
    d = P[at_dest + li]
    if wreck[d]:
        return False
    o = OCC[0, d]
    if o == player and P[P_FLEET] == 0:
        return False
    return True


@njit(cache=True, inline="always")
def _emit(OUT, orow, n_out, mode, s, f, d, mask, boards):
    OUT[orow, n_out, S_MODE] = mode
    OUT[orow, n_out, S_SHIP] = s
    OUT[orow, n_out, S_FROM] = f
    OUT[orow, n_out, S_DEST] = d
    OUT[orow, n_out, S_DICE] = mask
    OUT[orow, n_out, S_BOARDS] = boards
    OUT[orow, n_out, S_LOAD] = 0


@njit(cache=True)
def gen_steps(P, S, row, wreck, OCC, player, dice, used, OUT, orow):
    """Fill ``OUT[orow, k] = (mode, ship, from, dest, dice_mask, load, boards)``; return the count.

    Mirror of :func:`simulator.hunt.moves.unit_steps` on the position in state row ``row`` of
    ``S`` (``OCC`` must hold its occupancy): mode 0 moves ``ship`` alone, mode 1 moves every ship
    of ``player`` on ``from`` (a fleet).
    """
    ns = P[P_NSHIPS]
    at_kind, at_ptr, at_dest = P[P_AT_KIND], P[P_AT_LEG_PTR], P[P_AT_LEG_DEST]
    at_cmask, at_iptr, at_inter = P[P_AT_LEG_CARRIER], P[P_AT_INTER_PTR], P[P_AT_INTER]
    at_home, at_isl = P[P_AT_HOME], P[P_AT_ANCH_ISLAND]
    maxl = P[P_MAXL]
    n_tre = P[P_NTRE]
    nd = dice.shape[0]
    n_out = 0
    lo, hi = P[P[P_AT_SEAT_LO] + player], P[P[P_AT_SEAT_HI] + player]
    for s in range(lo, hi):
        f = S[row, s]
        if f < 0:
            continue
        # which units start at f: ship s alone (skip a ship identical to an earlier one on f),
        # and the whole fleet once (from its lowest ship)
        first_on_f = True
        dup = False
        for s2 in range(lo, s):
            if S[row, s2] == f:
                first_on_f = False
                if P[at_home + s2] == P[at_home + s] and S[row, ns + s2] == S[row, ns + s]:
                    dup = True
        for mode in range(2):
            if mode == 0 and dup:
                continue
            if mode == 1 and (P[P_FLEET] == 0 or not first_on_f or OCC[1, f] < 2):
                continue
            cbit = 0
            free = False
            if mode == 0:
                if S[row, ns + s] >= 0:
                    cbit = 1 << P[at_home + s]
                else:
                    free = True
            else:
                for s2 in range(lo, hi):
                    if S[row, s2] == f:
                        if S[row, ns + s2] >= 0:
                            cbit = 1 << P[at_home + s2]
                        else:
                            free = True
            for i in range(nd):
                if used & (1 << i):
                    continue
                v = dice[i]
                seen = False
                for j in range(i):
                    if not (used & (1 << j)) and dice[j] == v:
                        seen = True
                if seen:
                    continue
                base = at_ptr + (f * 2 + 0) * (maxl + 1) + v
                for li in range(P[base], P[base + 1]):
                    if leg_ok(
                        P, at_dest, at_cmask, at_iptr, at_inter, wreck, OCC, player, li, cbit
                    ):
                        d = P[at_dest + li]
                        boards = 1 if (OCC[0, d] >= 0 and OCC[0, d] != player) else 0
                        _emit(OUT, orow, n_out, mode, s, f, d, 1 << i, boards)
                        n_out += 1
                        if free and P[at_kind + d] == 4:
                            isl = P[at_isl + d]
                            if isl < n_tre and S[row, 2 * ns + isl] == isl:
                                _emit(OUT, orow, n_out, mode, s, f, d, 1 << i, boards)
                                OUT[orow, n_out, S_LOAD] = 1
                                n_out += 1
            for i in range(nd):
                if used & (1 << i):
                    continue
                for j in range(i + 1, nd):
                    if used & (1 << j):
                        continue
                    a, bv = dice[i], dice[j]
                    seen = False
                    for i2 in range(nd):
                        if used & (1 << i2):
                            continue
                        for j2 in range(i2 + 1, nd):
                            if used & (1 << j2):
                                continue
                            if (
                                (i2 < i or (i2 == i and j2 < j))
                                and dice[i2] == a
                                and dice[j2] == bv
                            ):
                                seen = True
                    if seen:
                        continue
                    base = at_ptr + (f * 2 + 1) * (maxl + 1) + a + bv
                    mask = (1 << i) | (1 << j)
                    for li in range(P[base], P[base + 1]):
                        if leg_ok(
                            P, at_dest, at_cmask, at_iptr, at_inter, wreck, OCC, player, li, cbit
                        ):
                            d = P[at_dest + li]
                            boards = 1 if (OCC[0, d] >= 0 and OCC[0, d] != player) else 0
                            _emit(OUT, orow, n_out, mode, s, f, d, mask, boards)
                            n_out += 1
                            if free and P[at_kind + d] == 4:
                                isl = P[at_isl + d]
                                if isl < n_tre and S[row, 2 * ns + isl] == isl:
                                    _emit(OUT, orow, n_out, mode, s, f, d, mask, boards)
                                    OUT[orow, n_out, S_LOAD] = 1
                                    n_out += 1
    return n_out


@njit(cache=True)
def apply_step(P, Z, S, r0, r1, player, STEPS, srow, spos, h, wreck):
    """Write the state after step ``STEPS[srow, spos]`` of state row ``r0`` into row ``r1``.

    Mirror of :func:`simulator.hunt.moves.apply_step`. ``Z`` is ``A[A_ZOBRIST]``; ``h`` the
    Zobrist hash of the state before; returns ``(won, hash after)`` where ``won`` is 1 when the
    step wins for ``player`` (its carrier reaches its home anchor, or no opponent ship is left).
    With fleet ``sink = "one"`` the rest of a boarded fleet flees home (:func:`home_square`).
    """
    ns = P[P_NSHIPS]
    n_tre = P[P_NTRE]
    at_owner, at_home, at_anchor = P[P_AT_OWNER], P[P_AT_HOME], P[P_AT_ANCHOR]
    zn, zc, zt = P[P_AT_ZN], P[P_AT_ZC], P[P_AT_ZT]
    wn, wc, wt = P[P_NNODES] + 1, n_tre + 1, P[P_NISLANDS] + 1  # key row widths
    c0, t0 = ns, 2 * ns  # cargo and treasure columns
    for i in range(S.shape[1]):
        S[r1, i] = S[r0, i]
    mode, ms, f, d = (
        STEPS[srow, spos, S_MODE],
        STEPS[srow, spos, S_SHIP],
        STEPS[srow, spos, S_FROM],
        STEPS[srow, spos, S_DEST],
    )
    load, boards = STEPS[srow, spos, S_LOAD], STEPS[srow, spos, S_BOARDS]
    lo, hi = P[P[P_AT_SEAT_LO] + player], P[P[P_AT_SEAT_HI] + player]
    victim_one = -1
    if boards == 1:
        # the opponent's ships on d (one of them with fleet sink = one: the carrier first)
        if P[P_FLEET] == 1 and P[P_SINK_ALL] == 0:
            for v in range(ns):
                if S[r1, v] == d and P[at_owner + v] != player:
                    if victim_one < 0 or (S[r1, c0 + v] >= 0 and S[r1, c0 + victim_one] < 0):
                        victim_one = v
        for v in range(ns):
            if S[r1, v] != d or P[at_owner + v] == player:
                continue
            if victim_one >= 0 and v != victim_one:
                continue
            S[r1, v] = -1
            h ^= Z[zn + v * wn + d + 1] ^ Z[zn + v * wn]
            cargo = S[r1, c0 + v]
            if cargo >= 0:
                S[r1, c0 + v] = -1
                h ^= Z[zc + v * wc + cargo + 1] ^ Z[zc + v * wc]
                taker = -1
                for m in range(lo, hi):
                    if S[r1, m] == f and (mode == 1 or m == ms) and S[r1, c0 + m] < 0:
                        taker = m
                        break
                if taker >= 0:
                    S[r1, c0 + taker] = cargo
                    h ^= Z[zc + taker * wc] ^ Z[zc + taker * wc + cargo + 1]
                else:
                    S[r1, t0 + cargo] = cargo
                    h ^= Z[zt + cargo * wt] ^ Z[zt + cargo * wt + cargo + 1]
    loader = -1
    won = 0
    for m in range(lo, hi):
        if S[r1, m] == f and (mode == 1 or m == ms):
            S[r1, m] = d
            h ^= Z[zn + m * wn + f + 1] ^ Z[zn + m * wn + d + 1]
            if S[r1, c0 + m] >= 0:
                if d == P[at_anchor + P[at_home + m]]:
                    won = 1
            elif load == 1 and loader < 0:
                loader = m
    if boards == 1 and victim_one >= 0:  # the survivors of the boarded fleet flee home
        for v in range(ns):
            if S[r1, v] != d or P[at_owner + v] == player:
                continue
            sq = home_square(P, S, r1, wreck, v)
            S[r1, v] = sq
            h ^= Z[zn + v * wn + d + 1] ^ Z[zn + v * wn + sq + 1]
            cargo = S[r1, c0 + v]
            if cargo >= 0:  # a second treasure aboard goes back to its island
                S[r1, c0 + v] = -1
                h ^= Z[zc + v * wc + cargo + 1] ^ Z[zc + v * wc]
                S[r1, t0 + cargo] = cargo
                h ^= Z[zt + cargo * wt] ^ Z[zt + cargo * wt + cargo + 1]
    if load == 1:
        isl = P[P[P_AT_ANCH_ISLAND] + d]
        S[r1, c0 + loader] = isl
        h ^= Z[zc + loader * wc] ^ Z[zc + loader * wc + isl + 1]
        S[r1, t0 + isl] = -1
        h ^= Z[zt + isl * wt + isl + 1] ^ Z[zt + isl * wt]
    if boards == 1 and won == 0:
        others = 0
        for m in range(ns):
            if S[r1, m] >= 0 and P[at_owner + m] != player:
                others += 1
                break
        if others == 0:
            won = 1
    return won, h


@njit(cache=True)
def home_square(P, S, row, wreck, ship):
    """Mirror of :func:`simulator.hunt.moves.home_square`: the survivor's home anchor, else the
    first of its port's berths, free of wrecks and of other seats' ships; -1 (sunk) if none."""
    at_owner = P[P_AT_OWNER]
    me = P[at_owner + ship]
    width = P[P_HOME_SQUARES_WIDTH]
    first = P[P_AT_HOME_SQUARES] + P[P[P_AT_HOME] + ship] * width
    for k in range(width):
        sq = P[first + k]
        if sq < 0:
            break
        if wreck[sq]:
            continue
        free = True
        for x in range(P[P_NSHIPS]):
            if x != ship and S[row, x] == sq and P[at_owner + x] != me:
                free = False
                break
        if free:
            return sq
    return -1


@njit(cache=True)
def mix(h, x):
    h = (h ^ np.uint64(x)) * np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(31))


@njit(cache=True)
def zobrist(P, Z, S, row):
    """The Zobrist hash of the position in state row ``row``."""
    ns, n_tre = P[P_NSHIPS], P[P_NTRE]
    zn, zc, zt = P[P_AT_ZN], P[P_AT_ZC], P[P_AT_ZT]
    wn, wc, wt = P[P_NNODES] + 1, n_tre + 1, P[P_NISLANDS] + 1
    h = np.uint64(0)
    for i in range(ns):
        h ^= Z[zn + i * wn + S[row, i] + 1] ^ Z[zc + i * wc + S[row, ns + i] + 1]
    for k in range(n_tre):
        h ^= Z[zt + k * wt + S[row, 2 * ns + k] + 1]
    return h


@njit(cache=True)
def occupancy(P, S, row, OCC):
    """Mark the ships' nodes (``OCC[0]`` must be all -1 and ``OCC[1]`` 0 before)."""
    at_owner = P[P_AT_OWNER]
    for s in range(P[P_NSHIPS]):
        n = S[row, s]
        if n >= 0:
            OCC[0, n] = P[at_owner + s]
            OCC[1, n] += 1


@njit(cache=True)
def clear_occupancy(P, S, row, OCC):
    for s in range(P[P_NSHIPS]):
        n = S[row, s]
        if n >= 0:
            OCC[0, n] = -1
            OCC[1, n] = 0


@njit(cache=True)
def enumerate_options(A, P, node, carry, tre, wreck, player, dice, WB):
    """Every distinct legal outcome of ``dice`` for ``player``, keeping those using the most dice.

    ``WB`` is the tuple of work buffers from :func:`work_buffers`. Returns the number of leaves;
    leaf ``k`` is the packed state row ``WB[B_LEAF][k]`` (:func:`leaf_state` splits it) with
    ``WB[B_LEAF_INFO][k, L_*]``. Dice used is ``len(dice) + 1`` for a win.
    """
    (
        steps,
        nsteps,
        pos,
        S,
        L,
        leaf_i,
        vtab,
        vkeys,
        OCC,
        usedv,
        loadsv,
        vlist,
        ltab,
        lslots,
        flags,
        wadd,
        hs,
    ) = WB
    Z = A[A_ZOBRIST]
    ns = P[P_NSHIPS]
    n_tre = P[P_NTRE]
    at_home, at_anchor, zn = P[P_AT_HOME], P[P_AT_ANCHOR], P[P_AT_ZN]
    wn = P[P_NNODES] + 1
    lo, hi = P[P[P_AT_SEAT_LO] + player], P[P[P_AT_SEAT_HI] + player]
    nd = dice.shape[0]
    width = S.shape[1]
    full = (1 << nd) - 1
    for i in range(ns):
        S[0, i] = node[i]
        S[0, ns + i] = carry[i]
    for k in range(n_tre):
        S[0, 2 * ns + k] = tre[k]
    usedv[0] = 0
    loadsv[0] = 0
    hs[0] = zobrist(P, Z, S, 0)
    occupancy(P, S, 0, OCC)
    nsteps[0] = gen_steps(P, S, 0, wreck, OCC, player, dice, 0, steps, 0)
    clear_occupancy(P, S, 0, OCC)
    pos[0] = 0
    if nsteps[0] == 0:
        for i in range(width):
            L[0, i] = S[0, i]
        leaf_i[0, L_USED] = 0
        leaf_i[0, L_WON] = 0
        leaf_i[0, L_LOADS] = 0
        leaf_i[0, L_HASH] = 0
        return 1
    n_leaves = 0
    n_visited = 0
    depth = 0
    make_wrecks = P[P_WRECKS] == 1
    wadd[0] = -1
    while depth >= 0:
        if pos[depth] >= nsteps[depth]:
            if wadd[depth] >= 0:  # leaving this depth: remove the wreck its step made
                wreck[wadd[depth]] -= 1
                wadd[depth] = -1
            depth -= 1
            continue
        sp = pos[depth]
        pos[depth] += 1
        d1 = depth + 1
        s_mode, s_ship, s_from, s_dest = (
            steps[depth, sp, S_MODE],
            steps[depth, sp, S_SHIP],
            steps[depth, sp, S_FROM],
            steps[depth, sp, S_DEST],
        )
        s_mask, s_load, s_boards = (
            steps[depth, sp, S_DICE],
            steps[depth, sp, S_LOAD],
            steps[depth, sp, S_BOARDS],
        )
        if (usedv[depth] | s_mask) == full and s_load == 0 and s_boards == 0:
            # a plain last leg (no boarding, no loading): hash the outcome without building it,
            # and build it only when it is a new leaf (most last legs repeat an earlier outcome)
            hq = hs[depth]
            quick_won = False
            for m in range(lo, hi):
                if S[depth, m] == s_from and (s_mode == 1 or m == s_ship):
                    hq ^= Z[zn + m * wn + s_from + 1] ^ Z[zn + m * wn + s_dest + 1]
                    if S[depth, ns + m] >= 0 and s_dest == P[at_anchor + P[at_home + m]]:
                        quick_won = True
            if not quick_won:
                hq_l = np.int64(hq & np.uint64(0x7FFFFFFFFFFFFFFF))
                qslot = hq_l & (HASH_SIZE - 1)
                qfound = -1
                while ltab[qslot] != 0:
                    if leaf_i[ltab[qslot] - 1, L_HASH] == hq_l:
                        qfound = ltab[qslot] - 1
                        break
                    qslot = (qslot + 1) & (HASH_SIZE - 1)
                if qfound >= 0:
                    if leaf_i[qfound, L_USED] < nd:
                        leaf_i[qfound, L_USED] = nd
                        leaf_i[qfound, L_WON] = 0
                        leaf_i[qfound, L_LOADS] = loadsv[depth]
                    continue
        won, hnew = apply_step(P, Z, S, depth, d1, player, steps, depth, sp, hs[depth], wreck)
        hs[d1] = hnew
        wadd[d1] = -1
        if make_wrecks and s_boards == 1:  # boarding leaves a wreck that later legs must respect
            wreck[s_dest] += 1
            wadd[d1] = s_dest
        used = usedv[depth] | s_mask
        usedv[d1] = used
        loadsv[d1] = loadsv[depth] + s_load
        n_used = 0
        rem = 0
        for i in range(nd):
            if used & (1 << i):
                n_used += 1
            else:
                rem += 1 << (4 * (dice[i] - 1))
        nsub = 0
        if won:
            n_used = nd + 1
        elif used != full:
            h = mix(hs[d1], rem + np.int64(1))
            slot = np.int64(h & np.uint64(HASH_SIZE - 1))
            seen = False
            while vtab[slot] != 0:
                if vkeys[slot] == h:
                    seen = True
                    break
                slot = (slot + 1) & (HASH_SIZE - 1)
            if seen:
                if wadd[d1] >= 0:
                    wreck[wadd[d1]] -= 1
                    wadd[d1] = -1
                continue
            if n_visited < HASH_SIZE // 2:
                vtab[slot] = 1
                vkeys[slot] = h
                vlist[n_visited] = slot
                n_visited += 1
            occupancy(P, S, d1, OCC)
            nsub = gen_steps(P, S, d1, wreck, OCC, player, dice, used, steps, d1)
            clear_occupancy(P, S, d1, OCC)
        if nsub > 0:
            nsteps[d1] = nsub
            pos[d1] = 0
            depth = d1
            continue
        if wadd[d1] >= 0:
            wreck[wadd[d1]] -= 1
            wadd[d1] = -1
        # a leaf: merge with the same final state if present
        hl = np.int64(hs[d1] & np.uint64(0x7FFFFFFFFFFFFFFF))
        found = -1
        lslot = hl & (HASH_SIZE - 1)
        while ltab[lslot] != 0:
            if leaf_i[ltab[lslot] - 1, L_HASH] == hl:
                found = ltab[lslot] - 1
                break
            lslot = (lslot + 1) & (HASH_SIZE - 1)
        if found >= 0:
            if leaf_i[found, L_USED] < n_used:
                leaf_i[found, L_USED] = n_used
                leaf_i[found, L_WON] = won
                leaf_i[found, L_LOADS] = loadsv[d1]
            continue
        if n_leaves >= HASH_SIZE // 2:
            flags[0] = 1
        else:
            ltab[lslot] = n_leaves + 1
            lslots[n_leaves] = lslot
            for i in range(width):
                L[n_leaves, i] = S[d1, i]
            leaf_i[n_leaves, L_USED] = n_used
            leaf_i[n_leaves, L_WON] = won
            leaf_i[n_leaves, L_LOADS] = loadsv[d1]
            leaf_i[n_leaves, L_HASH] = hl
            n_leaves += 1
    for i in range(n_visited):
        vtab[vlist[i]] = 0
    for i in range(n_leaves):
        ltab[lslots[i]] = 0
    best = 0
    for k in range(n_leaves):
        if leaf_i[k, L_WON] == 0 and leaf_i[k, L_USED] > best:
            best = leaf_i[k, L_USED]
    m = 0
    for k in range(n_leaves):
        if leaf_i[k, L_USED] == best or leaf_i[k, L_WON] == 1:
            if m != k:
                for i in range(width):
                    L[m, i] = L[k, i]
                for i in range(4):
                    leaf_i[m, i] = leaf_i[k, i]
            m += 1
    return m


def work_buffers(n_ships, n_tre, n_nodes):
    """The work buffers of :func:`enumerate_options` (``B_*`` above) for this table size."""
    width = 2 * n_ships + n_tre
    occ = np.zeros((2, n_nodes), dtype=np.int64)
    occ[0] = -1
    return (
        np.zeros((MAX_DEPTH, MAX_STEPS, S_LEN), dtype=np.int64),  # B_STEPS
        np.zeros(MAX_DEPTH, dtype=np.int64),  # B_NSTEPS
        np.zeros(MAX_DEPTH, dtype=np.int64),  # B_POS
        np.zeros((MAX_DEPTH, width), dtype=np.int64),  # B_STATE
        np.zeros((MAX_LEAVES, width), dtype=np.int64),  # B_LEAF
        np.zeros((MAX_LEAVES, 4), dtype=np.int64),  # B_LEAF_INFO
        np.zeros(HASH_SIZE, dtype=np.int64),  # B_VISITED
        np.zeros(HASH_SIZE, dtype=np.uint64),  # B_VISITED_KEY
        occ,  # B_OCC
        np.zeros(MAX_DEPTH, dtype=np.int64),  # B_USED
        np.zeros(MAX_DEPTH, dtype=np.int64),  # B_LOADS
        np.zeros(HASH_SIZE, dtype=np.int64),  # B_VISITED_SLOTS
        np.zeros(HASH_SIZE, dtype=np.int64),  # B_LEAF_TABLE
        np.zeros(HASH_SIZE, dtype=np.int64),  # B_LEAF_SLOTS
        np.zeros(1, dtype=np.int64),  # B_FLAGS
        np.full(MAX_DEPTH, -1, dtype=np.int64),  # B_WRECK_ADDED
        np.zeros(MAX_DEPTH, dtype=np.uint64),  # B_HASH
    )


def leaf_state(WB, n_ships: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Leaf ``k`` of the last :func:`enumerate_options` as (ship nodes, cargo, treasures)."""
    row = WB[B_LEAF][k]
    return row[:n_ships], row[n_ships : 2 * n_ships], row[2 * n_ships :]
