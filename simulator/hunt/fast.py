"""Compiled (numba) engine for Les Pirates: the same rules as :mod:`.moves` and :mod:`.game`.

Why: the pure-Python engine enumerates every outcome of a roll with immutable states (about
1 ms per turn), i.e. ~30 games/s; the issue asks for >= 2,000 games/s with two jobs. This module
runs whole games inside ``@njit(cache=True)`` functions on packed integer arrays built from the
same :class:`~simulator.hunt.moves.Tables` (same leg tables, same distances), so the terrain
rules exist once. The Python engine stays the readable reference; ``tests/test_hunt_fast.py``
checks that both give exactly the same set of legal outcomes on random positions and the same
statistics.

Randomness: each game gets two 64-bit seeds drawn from the chunk's ``numpy.random.Generator``
(one for dice, one for the players); inside the compiled code they drive a SplitMix64 stream
(no global or numba-internal random state).

Positions reached during a turn are deduplicated by 63-bit Zobrist hashes (fixed keys drawn once
from ``default_rng(0x5EED)`` in :func:`pack`); buffers are 2-D with row numbers rather than array
views (views cost reference counting in the inner loop).

Packed state (per game): ``node[ship]`` (-1 sunk), ``carry[ship]`` (treasure index or -1),
``tre[treasure]`` (island index or -1 aboard), ``wreck[node]`` (0/1).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# params vector indices (P[...])
(
    P_NSHIPS,
    P_NSEATS,
    P_NTRE,
    P_NNODES,
    P_MAXL,
    P_PASS_OWN,
    P_FLEET,
    P_SINK_ALL,
    P_WRECKS,
    P_NDICE,
    P_SIDES,
    P_CYC,
    P_CYC_EQ,
    P_CYC_PLAY,
    P_FIRE,
    P_FIRE_HALF,
    P_FIRE_ENDS,
    P_ONETWO,
    P_ONETWO_CHAIN,
    P_MAXTURNS,
    P_ROWS,
    P_COLS,
    P_CHECK,
    P_LEN,
) = range(24)

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

MAX_DEPTH = 8
MAX_STEPS = 4096
MAX_LEAVES = 1 << 15
HASH_SIZE = 1 << 16  # twice the most leaves / visited states kept
MASK64 = (1 << 64) - 1


def pack(t, rules):
    """Static arrays and the params vector for the compiled engine."""
    b = t.board
    n_nodes = b.num_nodes
    maxl = len(t.single[0]) - 1
    dests, cmask, iptr, inodes = [], [], [0], []
    ptr = np.zeros(n_nodes * 2 * (maxl + 1) + 1, dtype=np.int64)
    k = 0
    for n in range(n_nodes):
        for kind, table in enumerate((t.single, t.sum_)):
            for length in range(maxl + 1):
                ptr[(n * 2 + kind) * (maxl + 1) + length] = k
                for leg in table[n][length]:
                    dests.append(leg.dest)
                    cmask.append(leg.carrier_ok)
                    inodes.extend(leg.inter)
                    iptr.append(len(inodes))
                    k += 1
    ptr[-1] = k
    cell_ptr, cell_r, cell_c = [0], [], []
    for n in range(n_nodes):
        for r, c in b.cells[n]:
            cell_r.append(r)
            cell_c.append(c)
        cell_ptr.append(len(cell_r))
    grid = np.full((b.rows, b.cols), -1, dtype=np.int64)
    for (r, c), n in b.cell_node.items():
        grid[r, c] = n
    isl_ptr, isl_nodes = [0], []
    for anch in b.island_anchorages:
        isl_nodes.extend(anch)
        isl_ptr.append(len(isl_nodes))
    isl_dist = np.array(
        [[min(t.dist[a][n] for a in anch) for n in range(n_nodes)] for anch in b.island_anchorages],
        dtype=np.int16,
    )  # [island, node]
    # Zobrist keys (a fixed hash, not game randomness): ship x node, ship x cargo, treasure x place
    zrng = np.random.default_rng(0x5EED)
    n_ships = len(t.ship_owner)
    zn = zrng.integers(0, 2**63, size=(n_ships, n_nodes + 1), dtype=np.int64).astype(np.uint64)
    zc = zrng.integers(0, 2**63, size=(n_ships, t.num_treasures + 1), dtype=np.int64).astype(
        np.uint64
    )
    zt = zrng.integers(
        0, 2**63, size=(max(t.num_treasures, 1), len(b.islands) + 1), dtype=np.int64
    ).astype(np.uint64)
    seat_lo = np.array([min(s) for s in t.seat_ships], dtype=np.int64)
    seat_hi = np.array([max(s) + 1 for s in t.seat_ships], dtype=np.int64)
    P = np.zeros(P_LEN, dtype=np.int64)
    P[P_NSHIPS] = len(t.ship_owner)
    P[P_NSEATS] = t.num_players
    P[P_NTRE] = t.num_treasures
    P[P_NNODES] = n_nodes
    P[P_MAXL] = maxl
    P[P_PASS_OWN] = t.pass_own
    P[P_FLEET] = t.fleet
    P[P_SINK_ALL] = t.fleet_sink_all
    P[P_WRECKS] = t.wrecks
    P[P_NDICE] = rules.num_dice + (rules.cyclone.extra_dice if rules.cyclone.enabled else 0)
    P[P_SIDES] = rules.die_sides
    P[P_CYC] = rules.cyclone.enabled
    P[P_CYC_EQ] = rules.cyclone.equal_dice
    P[P_CYC_PLAY] = rules.cyclone.play_roll_after_loss
    P[P_FIRE] = rules.fire_ship.enabled
    P[P_FIRE_HALF] = rules.fire_ship.radius == "half"
    P[P_FIRE_ENDS] = rules.fire_ship.ends_turn
    P[P_ONETWO] = rules.one_two.enabled
    P[P_ONETWO_CHAIN] = rules.one_two.chain
    P[P_MAXTURNS] = rules.max_turns
    P[P_ROWS] = b.rows
    P[P_COLS] = b.cols
    arrays = (
        np.array(b.kind, dtype=np.int64),
        ptr,
        np.array(dests, dtype=np.int64),
        np.array(cmask, dtype=np.int64),
        np.array(iptr, dtype=np.int64),
        np.array(inodes + [0], dtype=np.int64),
        np.array(t.ship_owner, dtype=np.int64),
        np.array(t.ship_home, dtype=np.int64),
        seat_lo,
        seat_hi,
        np.array(b.anchor_node, dtype=np.int64),
        np.array(t.anchorage_island, dtype=np.int64),
        np.array(isl_ptr, dtype=np.int64),
        np.array(isl_nodes + [0], dtype=np.int64),
        np.array(t.dist, dtype=np.int16),  # small: stays in cache
        np.array(cell_ptr, dtype=np.int64),
        np.array(cell_r, dtype=np.int64),
        np.array(cell_c, dtype=np.int64),
        grid,
        isl_dist,
        zn,
        zc,
        zt,
    )
    return arrays, P


def initial_arrays(t, st):
    return (
        np.array(st.ship_node, dtype=np.int64),
        np.array(st.carrying, dtype=np.int64),
        np.array(st.treasure_island, dtype=np.int64),
        np.zeros(t.board.num_nodes, dtype=np.int64),
    )


# --------------------------------------------------------------------------------------------
# random numbers: SplitMix64 (state in a one-element uint64 array)


@njit(cache=True)
def _next(s):
    s[0] += np.uint64(0x9E3779B97F4A7C15)
    z = s[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _uniform(s):
    return (_next(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _randint(s, n):
    return int(_uniform(s) * n)


# --------------------------------------------------------------------------------------------
# moves


@njit(cache=True, inline="always")
def _leg_ok(ldest, lcmask, iptr, inodes, pass_own, fleet, wreck, player, li, cbit, occ_owner):
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
def _gen_steps(A, P, SN, SC, ST, row, wreck, player, dice, used, OUT, orow, occ_owner, occ_count):
    """Fill ``out[k] = (mode, ship, from, dest, dice_mask, load, boards)``; return the count.

    mode 0 moves ``ship`` alone, mode 1 moves every ship of ``player`` on ``from`` (a fleet).
    """
    kind, ptr, ldest = A[0], A[1], A[2]
    home, seat_lo, seat_hi, anch_isl = A[7], A[8], A[9], A[11]
    lcmask, iptr, inodes = A[3], A[4], A[5]
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
                    if _leg_ok(
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
                        OUT[orow, n_out, 0] = mode
                        OUT[orow, n_out, 1] = s
                        OUT[orow, n_out, 2] = f
                        OUT[orow, n_out, 3] = d
                        OUT[orow, n_out, 4] = 1 << i
                        OUT[orow, n_out, 6] = (
                            1 if (occ_owner[d] >= 0 and occ_owner[d] != player) else 0
                        )
                        OUT[orow, n_out, 5] = 0
                        n_out += 1
                        if free and kind[d] == 4:
                            isl = anch_isl[d]
                            if isl < P[P_NTRE] and ST[row, isl] == isl:
                                for q in range(7):
                                    OUT[orow, n_out, q] = OUT[orow, n_out - 1, q]
                                OUT[orow, n_out, 5] = 1
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
                        if _leg_ok(
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
                            OUT[orow, n_out, 0] = mode
                            OUT[orow, n_out, 1] = s
                            OUT[orow, n_out, 2] = f
                            OUT[orow, n_out, 3] = d
                            OUT[orow, n_out, 4] = (1 << i) | (1 << j)
                            OUT[orow, n_out, 6] = (
                                1 if (occ_owner[d] >= 0 and occ_owner[d] != player) else 0
                            )
                            OUT[orow, n_out, 5] = 0
                            n_out += 1
                            if free and kind[d] == 4:
                                isl = anch_isl[d]
                                if isl < P[P_NTRE] and ST[row, isl] == isl:
                                    for q in range(7):
                                        OUT[orow, n_out, q] = OUT[orow, n_out - 1, q]
                                    OUT[orow, n_out, 5] = 1
                                    n_out += 1
    return n_out


@njit(cache=True)
def _apply(A, P, SN, SC, ST, r0, r1, player, STEPS, srow, spos, h):
    """Write the state after step ``STEPS[srow, spos]`` of state row ``r0`` into row ``r1``.

    (2-D buffers and row numbers rather than array views: views cost reference counting.)
    ``h`` is the Zobrist hash of the state before; returns ``(won, hash after)`` where ``won`` is
    1 when the step wins for ``player`` (its carrier reaches its home anchor, or no opponent
    ship is left).
    """
    owner, home, seat_lo, seat_hi, anchor, anch_isl = A[6], A[7], A[8], A[9], A[10], A[11]
    zn, zc, zt = A[20], A[21], A[22]
    ns = SN.shape[1]
    for i in range(ns):
        SN[r1, i] = SN[r0, i]
        SC[r1, i] = SC[r0, i]
    for i in range(ST.shape[1]):
        ST[r1, i] = ST[r0, i]
    mode, ms, f, d = (
        STEPS[srow, spos, 0],
        STEPS[srow, spos, 1],
        STEPS[srow, spos, 2],
        STEPS[srow, spos, 3],
    )
    load, boards = STEPS[srow, spos, 5], STEPS[srow, spos, 6]
    lo, hi = seat_lo[player], seat_hi[player]
    if boards == 1:
        # the opponent's ships on d (one of them with fleet sink = one: the carrier first)
        victim_one = -1
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
def _mix(h, x):
    h = (h ^ np.uint64(x)) * np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(31))


@njit(cache=True)
def _zobrist(A, node, carry, tre):
    zn, zc, zt = A[20], A[21], A[22]
    h = np.uint64(0)
    for i in range(node.shape[0]):
        h ^= zn[i, node[i] + 1] ^ zc[i, carry[i] + 1]
    for k in range(tre.shape[0]):
        h ^= zt[k, tre[k] + 1]
    return h


@njit(cache=True)
def _occupancy(A, SN, row, occ_owner, occ_count):
    """Mark the ships' nodes (``occ_owner`` must be all -1 and ``occ_count`` 0 before)."""
    owner = A[6]
    for s in range(SN.shape[1]):
        n = SN[row, s]
        if n >= 0:
            occ_owner[n] = owner[s]
            occ_count[n] += 1


@njit(cache=True)
def _clear_occupancy(SN, row, occ_owner, occ_count):
    for s in range(SN.shape[1]):
        n = SN[row, s]
        if n >= 0:
            occ_owner[n] = -1
            occ_count[n] = 0


@njit(cache=True)
def enumerate_options(A, P, node, carry, tre, wreck, player, dice, W):
    """Every distinct legal outcome of ``dice`` for ``player``, keeping those using the most dice.

    ``W`` is the tuple of work buffers from :func:`work_buffers`. Returns the number of leaves;
    leaf ``k`` is ``W[6][k]`` (ship nodes), ``W[7][k]`` (cargo), ``W[8][k]`` (treasures) and
    ``W[9][k]`` = (dice used, won, loads, hash). Dice used is ``len(dice) + 1`` for a win.
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
    ) = W
    nd = dice.shape[0]
    ns = node.shape[0]
    full = (1 << nd) - 1
    sn[0, :] = node
    sc[0, :] = carry
    st_[0, :] = tre
    usedv[0] = 0
    loadsv[0] = 0
    hs[0] = _zobrist(A, node, carry, tre)
    _occupancy(A, sn, 0, occ_o, occ_c)
    nsteps[0] = _gen_steps(A, P, sn, sc, st_, 0, wreck, player, dice, 0, steps, 0, occ_o, occ_c)
    _clear_occupancy(sn, 0, occ_o, occ_c)
    pos[0] = 0
    if nsteps[0] == 0:
        leaf_n[0, :] = node
        leaf_c[0, :] = carry
        leaf_t[0, :] = tre
        leaf_i[0, 0] = 0
        leaf_i[0, 1] = 0
        leaf_i[0, 2] = 0
        leaf_i[0, 3] = 0
        return 1
    n_leaves = 0
    n_visited = 0
    depth = 0
    make_wrecks = P[P_WRECKS] == 1
    home, seat_lo, seat_hi, anchor, zn = A[7], A[8], A[9], A[10], A[20]
    lo, hi = seat_lo[player], seat_hi[player]
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
            steps[depth, sp, 0],
            steps[depth, sp, 1],
            steps[depth, sp, 2],
            steps[depth, sp, 3],
        )
        s_mask, s_load, s_boards = steps[depth, sp, 4], steps[depth, sp, 5], steps[depth, sp, 6]
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
                    if leaf_i[ltab[qslot] - 1, 3] == hq_l:
                        qfound = ltab[qslot] - 1
                        break
                    qslot = (qslot + 1) & (HASH_SIZE - 1)
                if qfound >= 0:
                    if leaf_i[qfound, 0] < nd:
                        leaf_i[qfound, 0] = nd
                        leaf_i[qfound, 1] = 0
                        leaf_i[qfound, 2] = loadsv[depth]
                    continue
        won, hnew = _apply(A, P, sn, sc, st_, depth, d1, player, steps, depth, sp, hs[depth])
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
            h = _mix(hs[d1], rem + np.int64(1))
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
            _occupancy(A, sn, d1, occ_o, occ_c)
            nsub = _gen_steps(
                A, P, sn, sc, st_, d1, wreck, player, dice, used, steps, d1, occ_o, occ_c
            )
            _clear_occupancy(sn, d1, occ_o, occ_c)
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
            if leaf_i[ltab[lslot] - 1, 3] == hl:
                found = ltab[lslot] - 1
                break
            lslot = (lslot + 1) & (HASH_SIZE - 1)
        if found >= 0:
            if leaf_i[found, 0] < n_used:
                leaf_i[found, 0] = n_used
                leaf_i[found, 1] = won
                leaf_i[found, 2] = loadsv[d1]
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
            leaf_i[n_leaves, 0] = n_used
            leaf_i[n_leaves, 1] = won
            leaf_i[n_leaves, 2] = loadsv[d1]
            leaf_i[n_leaves, 3] = hl
            n_leaves += 1
    for i in range(n_visited):
        vtab[vlist[i]] = 0
    for i in range(n_leaves):
        ltab[lslots[i]] = 0
    best = 0
    for k in range(n_leaves):
        if leaf_i[k, 1] == 0 and leaf_i[k, 0] > best:
            best = leaf_i[k, 0]
    m = 0
    for k in range(n_leaves):
        if leaf_i[k, 0] == best or leaf_i[k, 1] == 1:
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
            (MAX_DEPTH, MAX_STEPS, 7), dtype=np.int64
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


# --------------------------------------------------------------------------------------------
# players (mirror of players.Heuristic / players.RandomPlayer)


@njit(cache=True)
def _score(A, P, node, carry, tre, me, w):
    owner, home, anchor = A[6], A[7], A[10]
    dist = A[14]
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
        isl_dist = A[19]
        best = 1 << 30
        for k in range(tre.shape[0]):
            if tre[k] == k:
                for s in range(A[8][me], A[9][me]):
                    if node[s] >= 0 and isl_dist[k, node[s]] < best:
                        best = isl_dist[k, node[s]]
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
def _choose(A, P, W, n_leaves, me, ptype, w, prng):
    leaf_n, leaf_c, leaf_t, leaf_i = W[6], W[7], W[8], W[9]
    for k in range(n_leaves):
        if leaf_i[k, 1] == 1:
            return k
    if n_leaves == 1:
        return 0
    if ptype == 0:
        return _randint(prng, n_leaves)
    best_v = -1e300
    n_best = 0
    pick = 0
    for k in range(n_leaves):
        v = _score(A, P, leaf_n[k], leaf_c[k], leaf_t[k], me, w)
        if v > best_v + 1e-9:
            best_v = v
            n_best = 1
            pick = k
        elif v > best_v - 1e-9:
            # reservoir sampling: uniform among the tied best
            n_best += 1
            if _randint(prng, n_best) == 0:
                pick = k
    return pick


@njit(cache=True)
def _fire_choice(A, P, node, carry, me, ptype, w, prng):
    owner, seat_lo, seat_hi, cell_ptr, cell_r, cell_c = A[6], A[8], A[9], A[15], A[16], A[17]
    lo, hi = seat_lo[me], seat_hi[me]
    mine = 0
    for s in range(lo, hi):
        if node[s] >= 0:
            mine += 1
    if ptype == 0:
        if w[W_FIRE] <= 0.0 or _uniform(prng) >= w[W_FIRE] or mine == 0:
            return -1
        k = _randint(prng, mine)
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


@njit(cache=True)
def _hit(A, a, b, radius):
    cell_ptr, cell_r, cell_c = A[15], A[16], A[17]
    for i in range(cell_ptr[a], cell_ptr[a + 1]):
        for j in range(cell_ptr[b], cell_ptr[b + 1]):
            if max(abs(cell_r[i] - cell_r[j]), abs(cell_c[i] - cell_c[j])) <= radius:
                return True
    return False


@njit(cache=True)
def _fire_targets(A, P, node, wreck, ship, length, out):
    kind, cell_ptr, cell_r, cell_c, grid = A[0], A[15], A[16], A[17], A[18]
    rows, cols = P[P_ROWS], P[P_COLS]
    n_out = 0
    f = node[ship]
    for i in range(cell_ptr[f], cell_ptr[f + 1]):
        r, c = cell_r[i], cell_c[i]
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
                m = grid[rr, cc]
                if m < 0 or (kind[m] != 0 and kind[m] != 4) or wreck[m]:
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
def _remove(node, carry, tre, wreck, s, make_wreck):
    if node[s] < 0:
        return
    if make_wreck:
        wreck[node[s]] = 1
    node[s] = -1
    if carry[s] >= 0:
        tre[carry[s]] = carry[s]
        carry[s] = -1


@njit(cache=True)
def _alive_seats(A, P, node):
    n_alive = 0
    last = -1
    for seat in range(P[P_NSEATS]):
        for s in range(A[8][seat], A[9][seat]):
            if node[s] >= 0:
                n_alive += 1
                last = seat
                break
    return n_alive, last


@njit(cache=True)
def _check(A, P, node, carry, tre, wreck, before_node):
    """0 when the state keeps the invariants of game.check_state, else an error code."""
    owner = A[6]
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
                if owner[s] != owner[s2]:
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
    A, P, init_node, init_carry, init_tre, ptypes, weights, seat_pol, dice_seed, pol_seed, W, out
):
    """Play one game; write its record into ``out`` (see the O_* columns)."""
    owner, home, seat_lo, seat_hi, anchor, dist = A[6], A[7], A[8], A[9], A[10], A[14]
    n_seats = P[P_NSEATS]
    ns = init_node.shape[0]
    node = init_node.copy()
    carry = init_carry.copy()
    tre = init_tre.copy()
    wreck = np.zeros(P[P_NNODES], dtype=np.int64)
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
    while True:
        if turns >= P[P_MAXTURNS]:
            out[O_END] = 1
            out[O_WINNER] = -1
            break
        alive = False
        for s in range(seat_lo[seat], seat_hi[seat]):
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
            ship = _fire_choice(A, P, node, carry, seat, ptype, w, prng)
            if ship >= 0:
                a = 1 + _randint(drng, P[P_SIDES])
                b = 1 + _randint(drng, P[P_SIDES])
                low = min(a, b)
                radius = (low + 1) // 2 if P[P_FIRE_HALF] == 1 else low
                nt = _fire_targets(A, P, node, wreck, ship, a + b, targets)
                centre = node[ship]
                if nt > 0:
                    if ptype == 0:
                        centre = targets[_randint(prng, nt)]
                    else:
                        best_v = -1e300
                        for i in range(nt):
                            v = 0.0
                            for s in range(ns):
                                if node[s] < 0 or s == ship:
                                    continue
                                if _hit(A, node[s], targets[i], radius):
                                    worth = 3.0 if carry[s] >= 0 else 1.0
                                    v += worth if owner[s] != seat else -2.0 * worth
                            if v > best_v:
                                best_v = v
                                centre = targets[i]
                before[:] = node
                node[ship] = centre
                for s in range(ns):
                    if node[s] >= 0 and _hit(A, node[s], centre, radius):
                        _remove(node, carry, tre, wreck, s, P[P_WRECKS] == 1)
                out[O_EXPLOSIONS] += 1
                for s in range(ns):
                    if before[s] >= 0 and node[s] < 0:
                        out[O_FIXED + n_seats + owner[s]] += 1
                        if owner[s] != seat:
                            out[O_FIXED + seat] += 1
                            out[O_EXPLODED] += 1
                if check:
                    e = _check(A, P, node, carry, tre, wreck, before)
                    if e:
                        out[O_ERROR] = e
                        break
                n_alive, last = _alive_seats(A, P, node)
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
                dice[i] = 1 + _randint(drng, P[P_SIDES])
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
                    for s in range(seat_lo[seat], seat_hi[seat]):
                        if node[s] >= 0:
                            dd = dist[anchor[home[s]], node[s]]
                            if dd > best_d:
                                best_d = dd
                                victim = s
                    before[:] = node
                    _remove(node, carry, tre, wreck, victim, False)
                    out[O_CYCLONE] += 1
                    out[O_FIXED + n_seats + seat] += 1
                    if check:
                        e = _check(A, P, node, carry, tre, wreck, before)
                        if e:
                            out[O_ERROR] = e
                            done = True
                            break
                    n_alive, last = _alive_seats(A, P, node)
                    if n_alive <= 1:
                        out[O_END] = 0 if n_alive == 1 else 2
                        out[O_WINNER] = last if n_alive == 1 else -1
                        done = True
                        break
                    mine = 0
                    for s in range(seat_lo[seat], seat_hi[seat]):
                        if node[s] >= 0:
                            mine += 1
                    if P[P_CYC_PLAY] == 0 or mine == 0:
                        break
            # sorted dice (the enumeration deduplicates equal values in order)
            sd = np.sort(dice)
            n_leaves = enumerate_options(A, P, node, carry, tre, wreck, seat, sd, W)
            if W[19][0] != 0:
                out[O_ERROR] = 9  # more distinct outcomes than the buffers hold
                W[19][0] = 0
                done = True
                break
            k = _choose(A, P, W, n_leaves, seat, ptype, w, prng)
            before[:] = node
            won = W[9][k, 1]
            out[O_LOADS] += W[9][k, 2]
            node[:] = W[6][k]
            carry[:] = W[7][k]
            tre[:] = W[8][k]
            for s in range(ns):
                if before[s] >= 0 and node[s] < 0:
                    if P[P_WRECKS] == 1:
                        wreck[before[s]] = 1
                    out[O_BOARDINGS] += 1
                    out[O_FIXED + seat] += 1
                    out[O_FIXED + n_seats + owner[s]] += 1
            if P[P_FLEET] == 1:
                for s in range(seat_lo[seat], seat_hi[seat]):
                    if node[s] >= 0:
                        k2 = 0
                        for s2 in range(ns):
                            if node[s2] == node[s]:
                                k2 += 1
                        if k2 > out[O_MAXFLEET]:
                            out[O_MAXFLEET] = k2
            if check:
                e = _check(A, P, node, carry, tre, wreck, before)
                if e:
                    out[O_ERROR] = e
                    done = True
                    break
            if won == 1:
                out[O_END] = 0
                out[O_WINNER] = seat
                done = True
                break
            n_alive, last = _alive_seats(A, P, node)
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
def play_many(A, P, init_node, init_carry, init_tre, ptypes, weights, seat_pols, seeds, W, out):
    for g in range(seeds.shape[0]):
        play_one(
            A,
            P,
            init_node,
            init_carry,
            init_tre,
            ptypes,
            weights,
            seat_pols[g],
            seeds[g, 0],
            seeds[g, 1],
            W,
            out[g],
        )


def policy_arrays(players):
    """(ptypes, weights) for a list of player objects (0: random, 1: heuristic)."""
    ptypes = np.zeros(len(players), dtype=np.int64)
    weights = np.zeros((len(players), W_LEN), dtype=np.float64)
    for i, p in enumerate(players):
        if p.name == "random" and not hasattr(p, "ship"):
            ptypes[i] = 0
            weights[i, W_FIRE] = p.fire
        else:
            ptypes[i] = 1
            for j, f in enumerate(WEIGHT_FIELDS):
                weights[i, j] = getattr(p, f)
    return ptypes, weights


def run_games(t, rules, st0, players, seat_pols, rng, check=False):
    """Play ``len(seat_pols)`` games; returns the int64 record array
    (n_games, O_FIXED + 2*seats)."""
    A, P = pack(t, rules)
    P[P_CHECK] = 1 if check else 0
    ptypes, weights = policy_arrays(players)
    n = len(seat_pols)
    seeds = rng.integers(0, 2**63 - 1, size=(n, 2), dtype=np.int64).astype(np.uint64)
    init_node, init_carry, init_tre, _ = initial_arrays(t, st0)
    W = work_buffers(len(t.ship_owner), max(t.num_treasures, 1), t.board.num_nodes)
    out = np.zeros((n, O_FIXED + 2 * t.num_players), dtype=np.int64)
    play_many(
        A,
        P,
        init_node,
        init_carry,
        init_tre,
        ptypes,
        weights,
        np.asarray(seat_pols, dtype=np.int64),
        seeds,
        W,
        out,
    )
    return out
