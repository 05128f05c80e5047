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
    A_ANCH_ISLAND,
    A_ANCHOR,
    A_HOME,
    A_HOME_SQUARES,
    A_INTER,
    A_INTER_PTR,
    A_KIND,
    A_LEG_CARRIER,
    A_LEG_DEST,
    A_LEG_PTR,
    A_OWNER,
    A_SEAT_HI,
    A_SEAT_LO,
    A_Z_CARGO,
    A_Z_NODE,
    A_Z_TREASURE,
    P_FLEET,
    P_MAXL,
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
B_NODE = 3  # [depth, ship] ship nodes of the position at each depth
B_CARGO = 4  # [depth, ship] cargo at each depth
B_TREASURE = 5  # [depth, treasure] treasures at each depth
B_LEAF_NODE = 6  # [leaf, ship] ship nodes of each distinct outcome
B_LEAF_CARGO = 7  # [leaf, ship] cargo of each outcome
B_LEAF_TREASURE = 8  # [leaf, treasure] treasures of each outcome
B_LEAF_INFO = 9  # [leaf, L_*]
B_VISITED = 10  # hash table flags of (position, dice left) already expanded
B_VISITED_KEY = 11  # uint64 their keys
B_OCC_OWNER = 12  # [node] occupant seat (-1 free), filled per expansion then cleared
B_OCC_COUNT = 13  # [node] ships on it
B_USED = 14  # [depth] dice mask used to reach that depth
B_LOADS = 15  # [depth] treasures loaded to reach that depth
B_VISITED_SLOTS = 16  # visited slots (to clear)
B_LEAF_TABLE = 17  # hash table: leaf index + 1
B_LEAF_SLOTS = 18  # leaf slots (to clear)
B_FLAGS = 19  # [0] = 1 when the leaves overflowed (reported as error 9)
B_WRECK_ADDED = 20  # [depth] wreck node added by the step into that depth (-1 none)
B_HASH = 21  # uint64 [depth] Zobrist hash of the position at that depth


@njit(cache=True, inline="always")
def leg_ok(ldest, lcmask, iptr, inodes, pass_own, fleet, wreck, player, li, cbit, occ_owner):
    if cbit != 0 and (lcmask[li] & cbit) == 0:
        return False
    for k in range(iptr[li], iptr[li + 1]):
        n = inodes[k]
        if wreck[n]:
            return False
        o = occ_owner[n]
        if o >= 0 and (o != player or pass_own == 0):
            return False
    d = ldest[li]
    if wreck[d]:
        return False
    o = occ_owner[d]
    if o == player and fleet == 0:
        return False
    return True


@njit(cache=True)
def gen_steps(
    kind,
    ptr,
    ldest,
    lcmask,
    iptr,
    inodes,
    home,
    seat_lo,
    seat_hi,
    anch_isl,
    P,
    SN,
    SC,
    ST,
    row,
    wreck,
    player,
    dice,
    used,
    OUT,
    orow,
    occ_owner,
    occ_count,
):
    """Fill ``out[k] = (mode, ship, from, dest, dice_mask, load, boards)``; return the count.

    mode 0 moves ``ship`` alone, mode 1 moves every ship of ``player`` on ``from`` (a fleet).
    The static arrays come one by one (``A[A_KIND]``...), taken out of ``A`` once per roll by
    :func:`enumerate_options`: each ``A[...]`` in a function called per leg costs reference
    counts (measured: 0.3 of the 0.4 us of an :func:`apply_step` call).
    """
    pass_own, fleet = P[P_PASS_OWN], P[P_FLEET]
    maxl = P[P_MAXL]
    nd = dice.shape[0]
    n_out = 0
    lo, hi = seat_lo[player], seat_hi[player]
    for s in range(lo, hi):
        f = SN[row, s]
        if f < 0:
            continue
        # which units start at f: ship s alone (skip a ship identical to an earlier one on f),
        # and the whole fleet once (from its lowest ship)
        first_on_f = True
        dup = False
        for s2 in range(lo, s):
            if SN[row, s2] == f:
                first_on_f = False
                if home[s2] == home[s] and SC[row, s2] == SC[row, s]:
                    dup = True
        for mode in range(2):
            if mode == 0 and dup:
                continue
            if mode == 1 and (P[P_FLEET] == 0 or not first_on_f or occ_count[f] < 2):
                continue
            cbit = 0
            free = False
            if mode == 0:
                if SC[row, s] >= 0:
                    cbit = 1 << home[s]
                else:
                    free = True
            else:
                for s2 in range(lo, hi):
                    if SN[row, s2] == f:
                        if SC[row, s2] >= 0:
                            cbit = 1 << home[s2]
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
                base = (f * 2 + 0) * (maxl + 1) + v
                for li in range(ptr[base], ptr[base + 1]):
                    if leg_ok(
                        ldest,
                        lcmask,
                        iptr,
                        inodes,
                        pass_own,
                        fleet,
                        wreck,
                        player,
                        li,
                        cbit,
                        occ_owner,
                    ):
                        d = ldest[li]
                        OUT[orow, n_out, S_MODE] = mode
                        OUT[orow, n_out, S_SHIP] = s
                        OUT[orow, n_out, S_FROM] = f
                        OUT[orow, n_out, S_DEST] = d
                        OUT[orow, n_out, S_DICE] = 1 << i
                        OUT[orow, n_out, S_BOARDS] = (
                            1 if (occ_owner[d] >= 0 and occ_owner[d] != player) else 0
                        )
                        OUT[orow, n_out, S_LOAD] = 0
                        n_out += 1
                        if free and kind[d] == 4:
                            isl = anch_isl[d]
                            if isl < P[P_NTRE] and ST[row, isl] == isl:
                                for q in range(S_LEN):
                                    OUT[orow, n_out, q] = OUT[orow, n_out - 1, q]
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
                    base = (f * 2 + 1) * (maxl + 1) + a + bv
                    for li in range(ptr[base], ptr[base + 1]):
                        if leg_ok(
                            ldest,
                            lcmask,
                            iptr,
                            inodes,
                            pass_own,
                            fleet,
                            wreck,
                            player,
                            li,
                            cbit,
                            occ_owner,
                        ):
                            d = ldest[li]
                            OUT[orow, n_out, S_MODE] = mode
                            OUT[orow, n_out, S_SHIP] = s
                            OUT[orow, n_out, S_FROM] = f
                            OUT[orow, n_out, S_DEST] = d
                            OUT[orow, n_out, S_DICE] = (1 << i) | (1 << j)
                            OUT[orow, n_out, S_BOARDS] = (
                                1 if (occ_owner[d] >= 0 and occ_owner[d] != player) else 0
                            )
                            OUT[orow, n_out, S_LOAD] = 0
                            n_out += 1
                            if free and kind[d] == 4:
                                isl = anch_isl[d]
                                if isl < P[P_NTRE] and ST[row, isl] == isl:
                                    for q in range(S_LEN):
                                        OUT[orow, n_out, q] = OUT[orow, n_out - 1, q]
                                    OUT[orow, n_out, S_LOAD] = 1
                                    n_out += 1
    return n_out


@njit(cache=True)
def apply_step(
    owner,
    home,
    seat_lo,
    seat_hi,
    anchor,
    anch_isl,
    zn,
    zc,
    zt,
    squares,
    P,
    SN,
    SC,
    ST,
    r0,
    r1,
    player,
    STEPS,
    srow,
    spos,
    h,
    wreck,
):
    """Write the state after step ``STEPS[srow, spos]`` of state row ``r0`` into row ``r1``.

    (2-D buffers and row numbers rather than array views: views cost reference counting.)
    ``h`` is the Zobrist hash of the state before; returns ``(won, hash after)`` where ``won`` is
    1 when the step wins for ``player`` (its carrier reaches its home anchor, or no opponent
    ship is left). With fleet ``sink = "one"`` the rest of a boarded fleet flees home
    (:func:`home_square`). Static arrays as in :func:`gen_steps` (``squares`` is
    ``A[A_HOME_SQUARES]``).
    """
    ns = SN.shape[1]
    for i in range(ns):
        SN[r1, i] = SN[r0, i]
        SC[r1, i] = SC[r0, i]
    for i in range(ST.shape[1]):
        ST[r1, i] = ST[r0, i]
    mode, ms, f, d = (
        STEPS[srow, spos, S_MODE],
        STEPS[srow, spos, S_SHIP],
        STEPS[srow, spos, S_FROM],
        STEPS[srow, spos, S_DEST],
    )
    load, boards = STEPS[srow, spos, S_LOAD], STEPS[srow, spos, S_BOARDS]
    lo, hi = seat_lo[player], seat_hi[player]
    victim_one = -1
    if boards == 1:
        # the opponent's ships on d (one of them with fleet sink = one: the carrier first)
        if P[P_FLEET] == 1 and P[P_SINK_ALL] == 0:
            for v in range(ns):
                if SN[r1, v] == d and owner[v] != player:
                    if victim_one < 0 or (SC[r1, v] >= 0 and SC[r1, victim_one] < 0):
                        victim_one = v
        for v in range(ns):
            if SN[r1, v] != d or owner[v] == player:
                continue
            if victim_one >= 0 and v != victim_one:
                continue
            SN[r1, v] = -1
            h ^= zn[v, d + 1] ^ zn[v, 0]
            cargo = SC[r1, v]
            if cargo >= 0:
                SC[r1, v] = -1
                h ^= zc[v, cargo + 1] ^ zc[v, 0]
                taker = -1
                for m in range(lo, hi):
                    if SN[r1, m] == f and (mode == 1 or m == ms) and SC[r1, m] < 0:
                        taker = m
                        break
                if taker >= 0:
                    SC[r1, taker] = cargo
                    h ^= zc[taker, 0] ^ zc[taker, cargo + 1]
                else:
                    ST[r1, cargo] = cargo
                    h ^= zt[cargo, 0] ^ zt[cargo, cargo + 1]
    loader = -1
    won = 0
    for m in range(lo, hi):
        if SN[r1, m] == f and (mode == 1 or m == ms):
            SN[r1, m] = d
            h ^= zn[m, f + 1] ^ zn[m, d + 1]
            if SC[r1, m] >= 0:
                if d == anchor[home[m]]:
                    won = 1
            elif load == 1 and loader < 0:
                loader = m
    if boards == 1 and victim_one >= 0:  # the survivors of the boarded fleet flee home
        for v in range(ns):
            if SN[r1, v] != d or owner[v] == player:
                continue
            sq = home_square(owner, home, squares, SN, r1, wreck, v)
            SN[r1, v] = sq
            h ^= zn[v, d + 1] ^ zn[v, sq + 1]
            cargo = SC[r1, v]
            if cargo >= 0:  # a second treasure aboard goes back to its island
                SC[r1, v] = -1
                h ^= zc[v, cargo + 1] ^ zc[v, 0]
                ST[r1, cargo] = cargo
                h ^= zt[cargo, 0] ^ zt[cargo, cargo + 1]
    if load == 1:
        isl = anch_isl[d]
        SC[r1, loader] = isl
        h ^= zc[loader, 0] ^ zc[loader, isl + 1]
        ST[r1, isl] = -1
        h ^= zt[isl, isl + 1] ^ zt[isl, 0]
    if boards == 1 and won == 0:
        others = 0
        for m in range(ns):
            if SN[r1, m] >= 0 and owner[m] != player:
                others += 1
                break
        if others == 0:
            won = 1
    return won, h


@njit(cache=True)
def home_square(owner, home, squares, SN, row, wreck, ship):
    """Mirror of :func:`simulator.hunt.moves.home_square`: the survivor's home anchor, else the
    first of its port's berths, free of wrecks and of other seats' ships; -1 (sunk) if none."""
    me = owner[ship]
    port = home[ship]
    for k in range(squares.shape[1]):
        sq = squares[port, k]
        if sq < 0:
            break
        if wreck[sq]:
            continue
        free = True
        for x in range(SN.shape[1]):
            if x != ship and SN[row, x] == sq and owner[x] != me:
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
def zobrist(zn, zc, zt, node, carry, tre):
    h = np.uint64(0)
    for i in range(node.shape[0]):
        h ^= zn[i, node[i] + 1] ^ zc[i, carry[i] + 1]
    for k in range(tre.shape[0]):
        h ^= zt[k, tre[k] + 1]
    return h


@njit(cache=True)
def occupancy(owner, SN, row, occ_owner, occ_count):
    """Mark the ships' nodes (``occ_owner`` must be all -1 and ``occ_count`` 0 before)."""
    for s in range(SN.shape[1]):
        n = SN[row, s]
        if n >= 0:
            occ_owner[n] = owner[s]
            occ_count[n] += 1


@njit(cache=True)
def clear_occupancy(SN, row, occ_owner, occ_count):
    for s in range(SN.shape[1]):
        n = SN[row, s]
        if n >= 0:
            occ_owner[n] = -1
            occ_count[n] = 0


@njit(cache=True)
def enumerate_options(A, P, node, carry, tre, wreck, player, dice, WB):
    """Every distinct legal outcome of ``dice`` for ``player``, keeping those using the most dice.

    ``WB`` is the tuple of work buffers from :func:`work_buffers`. Returns the number of leaves;
    leaf ``k`` is ``WB[B_LEAF_NODE][k]`` (ship nodes), ``WB[B_LEAF_CARGO][k]`` (cargo),
    ``WB[B_LEAF_TREASURE][k]`` (treasures) and ``WB[B_LEAF_INFO][k, L_*]``. Dice used is
    ``len(dice) + 1`` for a win.
    """
    (
        steps,
        nsteps,
        pos,
        sn,
        sc,
        st_,
        leaf_n,
        leaf_c,
        leaf_t,
        leaf_i,
        vtab,
        vkeys,
        occ_o,
        occ_c,
        usedv,
        loadsv,
        vlist,
        ltab,
        lslots,
        flags,
        wadd,
        hs,
    ) = WB
    kind, ptr, ldest, lcmask, iptr, inodes = (
        A[A_KIND],
        A[A_LEG_PTR],
        A[A_LEG_DEST],
        A[A_LEG_CARRIER],
        A[A_INTER_PTR],
        A[A_INTER],
    )
    owner, home, seat_lo, seat_hi, anchor, anch_isl = (
        A[A_OWNER],
        A[A_HOME],
        A[A_SEAT_LO],
        A[A_SEAT_HI],
        A[A_ANCHOR],
        A[A_ANCH_ISLAND],
    )
    zn, zc, zt, squares = A[A_Z_NODE], A[A_Z_CARGO], A[A_Z_TREASURE], A[A_HOME_SQUARES]
    lo, hi = seat_lo[player], seat_hi[player]
    nd = dice.shape[0]
    ns = node.shape[0]
    full = (1 << nd) - 1
    sn[0, :] = node
    sc[0, :] = carry
    st_[0, :] = tre
    usedv[0] = 0
    loadsv[0] = 0
    hs[0] = zobrist(zn, zc, zt, node, carry, tre)
    occupancy(owner, sn, 0, occ_o, occ_c)
    # fmt: off
    nsteps[0] = gen_steps(
        kind, ptr, ldest, lcmask, iptr, inodes, home, seat_lo, seat_hi, anch_isl,
        P, sn, sc, st_, 0, wreck, player, dice, 0, steps, 0, occ_o, occ_c,
    )
    # fmt: on
    clear_occupancy(sn, 0, occ_o, occ_c)
    pos[0] = 0
    if nsteps[0] == 0:
        leaf_n[0, :] = node
        leaf_c[0, :] = carry
        leaf_t[0, :] = tre
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
                if sn[depth, m] == s_from and (s_mode == 1 or m == s_ship):
                    hq ^= zn[m, s_from + 1] ^ zn[m, s_dest + 1]
                    if sc[depth, m] >= 0 and s_dest == anchor[home[m]]:
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
        # fmt: off
        won, hnew = apply_step(
            owner, home, seat_lo, seat_hi, anchor, anch_isl, zn, zc, zt, squares,
            P, sn, sc, st_, depth, d1, player, steps, depth, sp, hs[depth], wreck,
        )
        # fmt: on
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
            occupancy(owner, sn, d1, occ_o, occ_c)
            # fmt: off
            nsub = gen_steps(
                kind, ptr, ldest, lcmask, iptr, inodes, home, seat_lo, seat_hi, anch_isl,
                P, sn, sc, st_, d1, wreck, player, dice, used, steps, d1, occ_o, occ_c,
            )
            # fmt: on
            clear_occupancy(sn, d1, occ_o, occ_c)
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
            for i in range(ns):
                leaf_n[n_leaves, i] = sn[d1, i]
                leaf_c[n_leaves, i] = sc[d1, i]
            for i in range(st_.shape[1]):
                leaf_t[n_leaves, i] = st_[d1, i]
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
                leaf_n[m, :] = leaf_n[k]
                leaf_c[m, :] = leaf_c[k]
                leaf_t[m, :] = leaf_t[k]
                leaf_i[m, :] = leaf_i[k]
            m += 1
    return m


def work_buffers(n_ships, n_tre, n_nodes):
    return (
        np.zeros(
            (MAX_DEPTH, MAX_STEPS, S_LEN), dtype=np.int64
        ),  # steps[depth, k]: mode, ship, from, dest, dice mask, load, boards
        np.zeros(MAX_DEPTH, dtype=np.int64),  # nsteps[depth]
        np.zeros(MAX_DEPTH, dtype=np.int64),  # pos[depth]
        np.zeros((MAX_DEPTH, n_ships), dtype=np.int64),  # ship nodes per depth
        np.zeros((MAX_DEPTH, n_ships), dtype=np.int64),  # cargo per depth
        np.zeros((MAX_DEPTH, n_tre), dtype=np.int64),  # treasures per depth
        np.zeros((MAX_LEAVES, n_ships), dtype=np.int64),  # leaf ship nodes
        np.zeros((MAX_LEAVES, n_ships), dtype=np.int64),  # leaf cargo
        np.zeros((MAX_LEAVES, n_tre), dtype=np.int64),  # leaf treasures
        np.zeros((MAX_LEAVES, 4), dtype=np.int64),  # leaf (dice used, won, loads, hash)
        np.zeros(HASH_SIZE, dtype=np.int64),  # visited flags
        np.zeros(HASH_SIZE, dtype=np.uint64),  # visited keys
        np.full(n_nodes, -1, dtype=np.int64),  # occupant seat per node (-1)
        np.zeros(n_nodes, dtype=np.int64),  # ships per node
        np.zeros(MAX_DEPTH, dtype=np.int64),  # dice mask used per depth
        np.zeros(MAX_DEPTH, dtype=np.int64),  # treasure loads per depth
        np.zeros(HASH_SIZE, dtype=np.int64),  # visited slots (to clear)
        np.zeros(HASH_SIZE, dtype=np.int64),  # leaf table: leaf index + 1
        np.zeros(HASH_SIZE, dtype=np.int64),  # leaf slots (to clear)
        np.zeros(1, dtype=np.int64),  # flags[0] = 1 when leaves overflowed (reported as error 9)
        np.full(MAX_DEPTH, -1, dtype=np.int64),  # wreck node added by the step into each depth
        np.zeros(MAX_DEPTH, dtype=np.uint64),  # Zobrist hash of the state at each depth
    )
