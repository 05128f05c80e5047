"""Legal moves of Les Pirates: the legs a roll allows, what a leg does, every outcome of a roll.

Rules (``shared/rules/les-pirates.md``), *Movement*, *Treasure*, *Boarding*, *Win*, variants 4
(wrecks) and 9 (fleet). The terrain part of a leg (straight lines, trade winds and straits
entered by the exact sum, the carrier's direction rule) is :func:`simulator.hunt.board.
compute_legs`, packed in ``P``; here the ships are checked (:func:`leg_ok`), steps listed
(:func:`gen_steps`) and applied (:func:`apply_step`), and :func:`enumerate_options` walks every
sequence of legs of a roll, keeping each distinct outcome once (so a uniform choice is uniform
over distinct outcomes) and only those using the most dice (a win always). Buffers are 2-D with
row numbers rather than views, gathered in a few arrays (:func:`work_buffers`): views and arrays
taken out of a tuple cost reference counts in the inner loop. With the JIT off the uint64 hashes
wrap with numpy's overflow warning: callers run under ``np.errstate(over="ignore")``.

Arguments that start as constants are ``np.int64`` (not literals: one compile per function,
docs/DEVELOPING.md); the two-line :func:`occupancy` is inlined into its callers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator.hunt import packed as pk
from simulator.hunt.board import ANCHORAGE, DIRS, SEA
from simulator.hunt.rules import MAX_DICE

MAX_DEPTH = MAX_DICE  # legs in one turn (one per die, at most; the rules refuse more dice)
MAX_STEPS = 4096  # legs available from one position
MAX_LEAVES = 1 << 15  # distinct outcomes of one roll
HASH_SIZE = 1 << 16  # hash table slots: twice the most outcomes / positions kept

# one step (one leg of a unit): STEPS[depth, k, S_*]
S_MODE = 0  # 0: the ship alone; 1: every ship of the mover on S_FROM (a fleet, variant 9)
S_SHIP = 1  # the ship (mode 0) or the fleet's lowest ship (mode 1)
S_FROM = 2  # node the leg leaves
S_DEST = 3  # node the leg ends on
S_DICE = 4  # bit mask of the dice it uses (one die, or two for a sum leg)
S_LOAD = 5  # 1: load the island's treasure on arrival
S_BOARDS = 6  # 1: the destination holds an opponent (boarding)
S_LEN = 7

# per outcome: INFO[k, L_*]
L_USED = 0  # dice used (len(dice) + 1 for a win)
L_WON = 1  # 1: the outcome wins for the mover
L_LOADS = 2  # treasures loaded on the way
L_HASH = 3  # Zobrist hash of the outcome (63 bits)
L_LEN = 4

# per depth of the walk: DEPTH[D_*, depth]
D_NSTEPS = 0  # legs available at that depth
D_POS = 1  # next leg to try at that depth
D_USED = 2  # mask of the dice used to reach that depth
D_LOADS = 3  # treasures loaded to reach that depth
D_WRECK = 4  # node of the wreck the step into that depth made (-1: none)
D_LEN = 5

# hash tables: TABLE[X_*, slot]
X_VISITED = 0  # 1: (position, dice left) already expanded (its key in KEYS[slot])
X_VISITED_SLOTS = 1  # [i]: slot of the i-th visited entry (to clear them)
X_LEAF = 2  # outcome index + 1 at the slot of its hash (0: free)
X_LEAF_SLOTS = 3  # [k]: slot of outcome k (to clear them)
X_LEN = 4

# occupancy of the position being expanded: OCC[OC_*, node]
OC_SEAT = 0  # seat of the ships on the node (-1: free)
OC_COUNT = 1  # ships on the node

# the work buffers of enumerate_options: WB[B_*]
B_STEPS = 0  # int64 [depth, k, S_*]: legs available at each depth
B_DEPTH = 1  # int64 [D_*, depth]
B_HASH = 2  # uint64 [depth] Zobrist hash of the position at each depth
B_STATE = 3  # int64 [depth, width] the position at each depth
B_LEAF = 4  # int64 [outcome, width] each distinct outcome
B_INFO = 5  # int64 [outcome, L_*]
B_TABLE = 6  # int64 [X_*, slot]
B_KEYS = 7  # uint64 [slot] keys of the visited table
B_OCC = 8  # int64 [OC_*, node] (all free between calls)


def work_buffers(t) -> tuple:
    """The work buffers of :func:`enumerate_options` (``B_*`` above) for the tables ``t``."""
    occ = np.zeros((2, t.board.num_nodes), dtype=np.int64)
    occ[OC_SEAT] = -1
    width = t.width
    return (
        np.zeros((MAX_DEPTH, MAX_STEPS, S_LEN), dtype=np.int64),
        np.zeros((D_LEN, MAX_DEPTH), dtype=np.int64),
        np.zeros(MAX_DEPTH, dtype=np.uint64),
        np.zeros((MAX_DEPTH, width), dtype=np.int64),
        np.zeros((MAX_LEAVES, width), dtype=np.int64),
        np.zeros((MAX_LEAVES, L_LEN), dtype=np.int64),
        np.zeros((X_LEN, HASH_SIZE), dtype=np.int64),
        np.zeros(HASH_SIZE, dtype=np.uint64),
        occ,
    )


# ---------------------------------------------------------------------------- Zobrist hashing


@njit(cache=True, _nrt=False)
def zobrist(P, Z, S, row):
    """The Zobrist hash of the position in row ``row`` of ``S`` (``Z`` is ``A[A_ZOBRIST]``)."""
    h = np.uint64(0)
    for col in range(Z.shape[0]):
        h ^= Z[col, S[row, col] + 1]
    return h


@njit(cache=True, inline="always")
def set_col(Z, S, row, col, value, h):
    """Set column ``col`` of position ``row`` to ``value``; returns its hash ``h`` updated."""
    h ^= Z[col, S[row, col] + 1] ^ Z[col, value + 1]
    S[row, col] = value
    return h


@njit(cache=True, _nrt=False)
def mix(h, x):
    """A hash of the pair (``h``, ``x``)."""
    h = (h ^ np.uint64(x)) * np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(31))


# ---------------------------------------------------------------------------- legs and steps


@njit(cache=True, inline="always")
def occupancy(P, S, row, OCC, sign):
    """Mark (``sign`` 1) or clear (``sign`` 0) the ships of row ``row`` in ``OCC``."""
    for s in range(P[pk.P_NSHIPS]):
        n = S[row, s]
        if n >= 0:
            OCC[OC_SEAT, n] = P[P[pk.P_AT_OWNER] + s] if sign else -1
            OCC[OC_COUNT, n] = OCC[OC_COUNT, n] + 1 if sign else 0


@njit(cache=True, inline="always")
def leg_ok(P, wreck, OCC, player, li, cbit, at):
    """Can ``player``'s unit sail terrain-legal leg ``li`` past the ships and wrecks? Rules,
    *Movement*: no passing over an opponent (nor an own ship with ``pass_own_ships`` false);
    variant 4: nothing passes over or ends on a wreck; no ending on an own ship outside the
    fleet variant (decision). *Treasure*: a carrier (``cbit``: its home port's bit) sails only
    legs its direction rule allows. ``at``: :func:`leg_tables`."""
    at_dest, at_carrier, at_iptr, at_inter, pass_own, fleet = at
    if cbit != 0 and (P[at_carrier + li] & cbit) == 0:
        return False
    for k in range(P[at_iptr + li], P[at_iptr + li + 1]):
        n = P[at_inter + k]
        seat = OCC[OC_SEAT, n]
        if wreck[n] or (seat >= 0 and (seat != player or pass_own == 0)):
            return False
    d = P[at_dest + li]
    return wreck[d] == 0 and (OCC[OC_SEAT, d] != player or fleet == 1)


@njit(cache=True, inline="always")
def leg_tables(P):
    """Where :func:`leg_ok` finds the legs in ``P`` and its two switches, read once per call of
    :func:`gen_steps` (a load from ``P`` after a store to another int64 array is repeated: the
    compiler cannot tell that they do not overlap)."""
    return (P[pk.P_AT_LEG_DEST], P[pk.P_AT_LEG_CARRIER], P[pk.P_AT_INTER_PTR], P[pk.P_AT_INTER],
            P[pk.P_PASS_OWN], P[pk.P_FLEET])  # fmt: skip


@njit(cache=True, _nrt=False)
def dice_choices(dice, used):
    """The distinct ways to use the dice not in the mask ``used``, as a bit mask over ``i * nd +
    j`` (``nd`` dice, at most :data:`MAX_DEPTH`): one die ``i`` (``j == i``: a single leg), or two
    dice ``i < j`` (a sum leg); a value or pair of values offered by earlier dice is left out."""
    nd = dice.shape[0]
    out = 0
    for i in range(nd):
        for j in range(i, nd):
            if used & (1 << i) or used & (1 << j):
                continue
            repeated = False
            for i2 in range(i + 1):
                for j2 in range(i2 + (j > i), nd):
                    earlier = i2 < i or j2 < j
                    if earlier and (j2 == i2) == (j == i) and not used & (1 << i2 | 1 << j2):
                        repeated = repeated or (dice[i2] == dice[i] and dice[j2] == dice[j])
            if not repeated:
                out |= 1 << (i * nd + j)
    return out


@njit(cache=True, _nrt=False)
def unit_cargo(P, S, row, mode, s, f):
    """``(carrier bit, free)`` of the unit: the home-port bit of a carrier in it (0: none) and
    whether it has a ship without cargo (which may load a treasure)."""
    ns, lo, hi = P[pk.P_NSHIPS], s, s + 1
    if mode == 1:  # the fleet: every ship of the mover on f
        seat = P[P[pk.P_AT_OWNER] + s]
        lo, hi = P[P[pk.P_AT_SEAT_LO] + seat], P[P[pk.P_AT_SEAT_HI] + seat]
    cbit, free = 0, False
    for m in range(lo, hi):
        if S[row, m] == f:
            if S[row, ns + m] >= 0:
                cbit = 1 << P[P[pk.P_AT_HOME] + m]
            else:
                free = True
    return cbit, free


@njit(cache=True, _nrt=False)
def gen_steps(P, S, row, wreck, OCC, player, dice, used, OUT, orow):
    """Fill ``OUT[orow, k, S_*]`` with every legal step of ``player`` from row ``row`` of ``S``
    (``OCC`` holding its occupancy) with the dice not in the mask ``used``; returns the count.

    Rules, *Movement*: each die moves one ship one straight leg of exactly its value (a single
    leg); two dice together move one ship one leg of their sum when it enters a trade wind or a
    strait or leaves the trade-wind zone (a sum leg). Variant 9: a fleet moves as one unit, or
    one ship leaves it. *Treasure*: a ship ending a leg on an island anchorage may load the
    treasure if it lies there (a second step, the same leg with loading). Each unit tries the
    single legs (die by die), then the sum legs; equal dice, equal pairs and identical ships on
    one square (same home port and cargo) are tried once. The loop writes the steps itself: a
    helper taking arrays there costs reference counts for every leg.
    """
    ns, nd, n_out = P[pk.P_NSHIPS], dice.shape[0], 0
    at_ptr, width, at_dest = P[pk.P_AT_LEG_PTR], P[pk.P_MAXL] + 1, P[pk.P_AT_LEG_DEST]
    at_kind, at_isl, n_tre = P[pk.P_AT_KIND], P[pk.P_AT_ANCH_ISLAND], P[pk.P_NTRE]
    choices, at = dice_choices(dice, used), leg_tables(P)
    at_home = P[pk.P_AT_HOME]
    lo, hi = P[P[pk.P_AT_SEAT_LO] + player], P[P[pk.P_AT_SEAT_HI] + player]
    for s in range(lo, hi):
        f = S[row, s]
        if f < 0:
            continue
        first_on_f, same_as_earlier = True, False
        for s2 in range(lo, s):
            if S[row, s2] == f:
                first_on_f = False
                same_home = P[at_home + s2] == P[at_home + s]
                if same_home and S[row, ns + s2] == S[row, ns + s]:
                    same_as_earlier = True
        for mode in range(2):
            if mode == 0 and same_as_earlier:
                continue
            if mode == 1 and (P[pk.P_FLEET] == 0 or not first_on_f or OCC[OC_COUNT, f] < 2):
                continue
            cbit, free = unit_cargo(P, S, row, mode, s, f)
            for kind in range(2):  # 0: single legs, 1: sum legs
                for i in range(nd):
                    for j in range(i + kind, nd if kind else i + 1):
                        if not choices & (1 << (i * nd + j)):
                            continue
                        length = dice[i] if kind == 0 else dice[i] + dice[j]
                        base = at_ptr + (f * 2 + kind) * width + length
                        for li in range(P[base], P[base + 1]):
                            if not leg_ok(P, wreck, OCC, player, li, cbit, at):
                                continue
                            d = P[at_dest + li]
                            boards = (
                                1 if (OCC[OC_SEAT, d] >= 0 and OCC[OC_SEAT, d] != player) else 0
                            )
                            isl = P[at_isl + d] if P[at_kind + d] == ANCHORAGE else n_tre
                            loads = 1 if free and isl < n_tre and S[row, 2 * ns + isl] == isl else 0
                            for load in range(loads + 1):
                                OUT[orow, n_out, S_MODE], OUT[orow, n_out, S_SHIP] = mode, s
                                OUT[orow, n_out, S_FROM], OUT[orow, n_out, S_DEST] = f, d
                                OUT[orow, n_out, S_DICE] = (1 << i) | (1 << j)
                                OUT[orow, n_out, S_LOAD], OUT[orow, n_out, S_BOARDS] = load, boards
                                n_out += 1
    return n_out


# ---------------------------------------------------------------------------- applying a step


@njit(cache=True, _nrt=False)
def home_square(P, S, row, wreck, ship):
    """Where a survivor of a boarded fleet flees (variant 9, ``sink = "one"``, decision): its home
    anchor, else the first of its home port's berths, free of wrecks and of other seats' ships;
    -1 (sunk) when there is none."""
    me = P[P[pk.P_AT_OWNER] + ship]
    width = P[pk.P_HOME_SQUARES_WIDTH]
    first = P[pk.P_AT_HOME_SQUARES] + P[P[pk.P_AT_HOME] + ship] * width
    for k in range(width):
        sq = P[first + k]
        if sq < 0:
            break
        free = wreck[sq] == 0
        for x in range(P[pk.P_NSHIPS]):
            if x != ship and S[row, x] == sq and P[P[pk.P_AT_OWNER] + x] != me:
                free = False
        if free:
            return sq
    return -1


@njit(cache=True, _nrt=False)
def board_ships(P, Z, S, r1, player, mode, ship, f, d, h):
    """Boarding (rules, *Boarding*): sink the opponent's ships on ``d`` (variant 9 with
    ``sink = "one"``: one of a fleet, the carrier first); a sunk carrier's treasure goes aboard
    a free ship of the boarding unit (decision: none free, it goes back to its island). Returns
    ``(the one victim or -1, hash)``."""
    ns = P[pk.P_NSHIPS]
    at_owner = P[pk.P_AT_OWNER]
    victim_one = -1
    if P[pk.P_FLEET] == 1 and P[pk.P_SINK_ALL] == 0:
        for v in range(ns):
            carrier_first = victim_one < 0 or (S[r1, ns + v] >= 0 and S[r1, ns + victim_one] < 0)
            if S[r1, v] == d and P[at_owner + v] != player and carrier_first:
                victim_one = v
    lo, hi = P[P[pk.P_AT_SEAT_LO] + player], P[P[pk.P_AT_SEAT_HI] + player]
    for v in range(ns):
        if S[r1, v] != d or P[at_owner + v] == player or (victim_one >= 0 and v != victim_one):
            continue
        h = set_col(Z, S, r1, v, -1, h)
        cargo = S[r1, ns + v]
        if cargo < 0:
            continue
        h = set_col(Z, S, r1, ns + v, -1, h)
        taker = -1
        for m in range(lo, hi):
            if S[r1, m] == f and (mode == 1 or m == ship) and S[r1, ns + m] < 0:
                taker = m
                break
        if taker >= 0:
            h = set_col(Z, S, r1, ns + taker, cargo, h)
        else:
            h = set_col(Z, S, r1, 2 * ns + cargo, cargo, h)
    return victim_one, h


@njit(cache=True, _nrt=False)
def flee_home(P, Z, S, r1, wreck, player, d, h):
    """The survivors of a boarded fleet on ``d`` flee home (:func:`home_square`); a second
    treasure aboard one of them goes back to its island. Returns the hash."""
    ns = P[pk.P_NSHIPS]
    for v in range(ns):
        if S[r1, v] != d or P[P[pk.P_AT_OWNER] + v] == player:
            continue
        h = set_col(Z, S, r1, v, home_square(P, S, r1, wreck, v), h)
        cargo = S[r1, ns + v]
        if cargo >= 0:
            h = set_col(Z, S, r1, ns + v, -1, h)
            h = set_col(Z, S, r1, 2 * ns + cargo, cargo, h)
    return h


@njit(cache=True, _nrt=False)
def apply_step(P, Z, S, r0, r1, player, STEPS, srow, spos, h, wreck):
    """Write the position after step ``STEPS[srow, spos]`` of row ``r0`` into row ``r1``; ``h``
    is the hash of ``r0``. Returns ``(won, hash of r1)``, ``won`` 1 when the step wins for
    ``player``: rules, *Win*, a carrier reaches its own home anchor (variants 7-8: the anchor of
    the port the carrying ship started from), or no opponent ship is left."""
    # the tables' starts are read before the first store: a load from P after a store to S is
    # repeated (the compiler cannot tell that two int64 arrays do not overlap)
    ns, at_owner, at_home = P[pk.P_NSHIPS], P[pk.P_AT_OWNER], P[pk.P_AT_HOME]
    at_anchor, at_isl = P[pk.P_AT_ANCHOR], P[pk.P_AT_ANCH_ISLAND]
    lo, hi = P[P[pk.P_AT_SEAT_LO] + player], P[P[pk.P_AT_SEAT_HI] + player]
    for col in range(S.shape[1]):
        S[r1, col] = S[r0, col]
    mode, ship = STEPS[srow, spos, S_MODE], STEPS[srow, spos, S_SHIP]
    f, d = STEPS[srow, spos, S_FROM], STEPS[srow, spos, S_DEST]
    boards = STEPS[srow, spos, S_BOARDS] == 1
    victim_one = -1
    if boards:
        victim_one, h = board_ships(P, Z, S, r1, player, mode, ship, f, d, h)
    loader = -1
    won = 0
    for m in range(lo, hi):
        if S[r1, m] == f and (mode == 1 or m == ship):
            h = set_col(Z, S, r1, m, d, h)
            if S[r1, ns + m] >= 0:
                if d == P[at_anchor + P[at_home + m]]:
                    won = 1
            elif STEPS[srow, spos, S_LOAD] == 1 and loader < 0:
                loader = m
    if boards and victim_one >= 0:
        h = flee_home(P, Z, S, r1, wreck, player, d, h)
    if loader >= 0:  # rules, *Treasure*: the ship ending its leg on the anchorage loads it
        isl = P[at_isl + d]
        h = set_col(Z, S, r1, ns + loader, isl, h)
        h = set_col(Z, S, r1, 2 * ns + isl, -1, h)
    if boards and won == 0:
        won = 1
        for m in range(ns):
            if S[r1, m] >= 0 and P[at_owner + m] != player:
                won = 0
                break
    return won, h


# ---------------------------------------------------------------------------- a whole roll


@njit(cache=True, _nrt=False)
def steps_at(P, S, row, wreck, OCC, player, dice, used, STEPS):
    """:func:`gen_steps` of row ``row`` into ``STEPS[row]`` (occupancy marked, then cleared)."""
    occupancy(P, S, row, OCC, 1)
    n = gen_steps(P, S, row, wreck, OCC, player, dice, used, STEPS, row)
    occupancy(P, S, row, OCC, 0)
    return n


@njit(cache=True, _nrt=False)
def find_leaf(TABLE, INFO, hl):
    """``(outcome index or -1, its slot)`` of the outcome hash ``hl`` in the leaf table."""
    slot = hl & (HASH_SIZE - 1)
    while TABLE[X_LEAF, slot] != 0:
        if INFO[TABLE[X_LEAF, slot] - 1, L_HASH] == hl:
            return TABLE[X_LEAF, slot] - 1, slot
        slot = (slot + 1) & (HASH_SIZE - 1)
    return -1, slot


@njit(cache=True, _nrt=False)
def merge_leaf(INFO, k, n_used, won, loads):
    """An outcome reached again: keep the way using the most dice."""
    if INFO[k, L_USED] < n_used:
        INFO[k, L_USED], INFO[k, L_WON], INFO[k, L_LOADS] = n_used, won, loads


@njit(cache=True, _nrt=False)
def first_visit(TABLE, KEYS, n_visited, h):
    """Mark (position, dice left) of hash ``h`` expanded; returns ``(seen before, n_visited)``
    (the table stops recording at half full: a position may then be expanded twice)."""
    slot = np.int64(h & np.uint64(HASH_SIZE - 1))
    while TABLE[X_VISITED, slot] != 0:
        if KEYS[slot] == h:
            return True, n_visited
        slot = (slot + 1) & (HASH_SIZE - 1)
    if n_visited < HASH_SIZE // 2:
        TABLE[X_VISITED, slot] = 1
        KEYS[slot] = h
        TABLE[X_VISITED_SLOTS, n_visited] = slot
        n_visited += 1
    return False, n_visited


@njit(cache=True, _nrt=False)
def add_leaf(S, DEPTH, HASH, LEAF, INFO, TABLE, d1, n_leaves, n_used, won):
    """Record the position at depth ``d1`` as an outcome (merged with an equal one); returns the
    number of outcomes, -1 when the buffers are full."""
    hl = np.int64(HASH[d1] & np.uint64(0x7FFFFFFFFFFFFFFF))
    found, slot = find_leaf(TABLE, INFO, hl)
    if found >= 0:
        merge_leaf(INFO, found, n_used, won, DEPTH[D_LOADS, d1])
        return n_leaves
    if n_leaves >= HASH_SIZE // 2:
        return -1
    TABLE[X_LEAF, slot] = n_leaves + 1
    TABLE[X_LEAF_SLOTS, n_leaves] = slot
    for col in range(S.shape[1]):
        LEAF[n_leaves, col] = S[d1, col]
    INFO[n_leaves, L_USED], INFO[n_leaves, L_WON] = n_used, won
    INFO[n_leaves, L_LOADS], INFO[n_leaves, L_HASH] = DEPTH[D_LOADS, d1], hl
    return n_leaves + 1


@njit(cache=True, _nrt=False)
def drop_wreck(DEPTH, wreck, depth):
    """Leaving ``depth``: remove the wreck its step made."""
    if DEPTH[D_WRECK, depth] >= 0:
        wreck[DEPTH[D_WRECK, depth]] -= 1
        DEPTH[D_WRECK, depth] = -1


@njit(cache=True, _nrt=False)
def keep_most_dice(LEAF, INFO, n_leaves):
    """Rules, *Movement*: use both dice if any legal way exists, else one, else the turn passes
    (a winning outcome ends the turn at once and is always kept). Compacts the outcomes kept to
    the front; returns their number."""
    best = 0
    for k in range(n_leaves):
        if INFO[k, L_WON] == 0 and INFO[k, L_USED] > best:
            best = INFO[k, L_USED]
    m = 0
    for k in range(n_leaves):
        if INFO[k, L_USED] == best or INFO[k, L_WON] == 1:
            if m != k:
                for col in range(LEAF.shape[1]):
                    LEAF[m, col] = LEAF[k, col]
                for col in range(L_LEN):
                    INFO[m, col] = INFO[k, col]
            m += 1
    return m


@njit(cache=True, _nrt=False)
def enumerate_options(A, P, G, row, wreck, player, dice, WB):
    """Every distinct legal outcome of the sorted ``dice`` for ``player`` from position ``G[row]``
    (``wreck``: the wrecks, restored on return), keeping those using the most dice.

    Returns the number of outcomes, -1 when a roll has more than the buffers hold; outcome ``k``
    is the position ``WB[B_LEAF][k]`` with ``WB[B_INFO][k, L_*]`` (dice used ``len(dice) + 1``
    for a win). A depth-first walk, one depth per leg; a (position, dice left) pair is expanded
    once, and a step that boards leaves its wreck for the later legs (variant 4).
    """
    STEPS, DEPTH, HASH, S, LEAF = WB[B_STEPS], WB[B_DEPTH], WB[B_HASH], WB[B_STATE], WB[B_LEAF]
    INFO, TABLE, KEYS, OCC = WB[B_INFO], WB[B_TABLE], WB[B_KEYS], WB[B_OCC]
    Z = A[pk.A_ZOBRIST]
    ns, at_anchor, at_home = P[pk.P_NSHIPS], P[pk.P_AT_ANCHOR], P[pk.P_AT_HOME]
    make_wrecks = P[pk.P_WRECKS] == 1
    lo, hi = P[P[pk.P_AT_SEAT_LO] + player], P[P[pk.P_AT_SEAT_HI] + player]
    nd = dice.shape[0]
    full = (1 << nd) - 1
    for col in range(G.shape[1]):
        S[0, col] = G[row, col]
    for k in range(D_LEN):
        DEPTH[k, 0] = 0
    DEPTH[D_WRECK, 0] = -1
    zero = np.int64(0)  # depth 0, no dice used (int64, not a literal: see the module docstring)
    HASH[0] = zobrist(P, Z, S, zero)
    DEPTH[D_NSTEPS, 0] = steps_at(P, S, zero, wreck, OCC, player, dice, zero, STEPS)
    if DEPTH[D_NSTEPS, 0] == 0:  # no die can be used: the turn passes
        for col in range(S.shape[1]):
            LEAF[0, col] = S[0, col]
        for k in range(L_LEN):
            INFO[0, k] = 0
        return 1
    n_leaves, n_visited, depth = zero, zero, zero
    while depth >= 0 and n_leaves >= 0:
        sp = DEPTH[D_POS, depth]
        if sp >= DEPTH[D_NSTEPS, depth]:
            drop_wreck(DEPTH, wreck, depth)
            depth -= 1
            continue
        DEPTH[D_POS, depth] += 1
        if (DEPTH[D_USED, depth] | STEPS[depth, sp, S_DICE]) == full and STEPS[
            depth, sp, S_LOAD
        ] == 0:
            # a plain last leg (no loading): when it cannot win or board, hash its outcome
            # without building it and merge it with an equal outcome found before (most last
            # legs repeat one); written here, not in a function, as it runs for every leg
            f, d = STEPS[depth, sp, S_FROM], STEPS[depth, sp, S_DEST]
            mode, ship = STEPS[depth, sp, S_MODE], STEPS[depth, sp, S_SHIP]
            h, plain = HASH[depth], STEPS[depth, sp, S_BOARDS] == 0
            for m in range(lo, hi):
                if S[depth, m] == f and (mode == 1 or m == ship):
                    h ^= Z[m, f + 1] ^ Z[m, d + 1]
                    home = P[at_anchor + P[at_home + m]]
                    plain = plain and (S[depth, ns + m] < 0 or d != home)
            if plain:
                found, _ = find_leaf(TABLE, INFO, np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF)))
                if found >= 0:
                    merge_leaf(INFO, found, nd, zero, DEPTH[D_LOADS, depth])
                    continue
        d1 = depth + 1
        won, h = apply_step(P, Z, S, depth, d1, player, STEPS, depth, sp, HASH[depth], wreck)
        HASH[d1] = h
        DEPTH[D_WRECK, d1] = -1
        if make_wrecks and STEPS[depth, sp, S_BOARDS] == 1:
            wreck[STEPS[depth, sp, S_DEST]] += 1  # later legs must respect it
            DEPTH[D_WRECK, d1] = STEPS[depth, sp, S_DEST]
        used = DEPTH[D_USED, depth] | STEPS[depth, sp, S_DICE]
        DEPTH[D_USED, d1] = used
        DEPTH[D_LOADS, d1] = DEPTH[D_LOADS, depth] + STEPS[depth, sp, S_LOAD]
        n_used, left = 0, 0  # left: the dice left as a multiset, 4 bits per face
        for i in range(nd):
            if used & (1 << i):
                n_used += 1
            else:
                left += 1 << (4 * (dice[i] - 1))
        if won:
            n_used = nd + 1
        elif used != full:
            seen, n_visited = first_visit(TABLE, KEYS, n_visited, mix(HASH[d1], left + 1))
            if seen:
                drop_wreck(DEPTH, wreck, d1)
                continue
            nsub = steps_at(P, S, d1, wreck, OCC, player, dice, used, STEPS)
            if nsub > 0:
                DEPTH[D_NSTEPS, d1], DEPTH[D_POS, d1] = nsub, 0
                depth = d1
                continue
        drop_wreck(DEPTH, wreck, d1)
        n_leaves = add_leaf(S, DEPTH, HASH, LEAF, INFO, TABLE, d1, n_leaves, n_used, won)
    while depth >= 0:  # stopped on a full buffer: restore the wrecks
        drop_wreck(DEPTH, wreck, depth)
        depth -= 1
    for i in range(n_visited):
        TABLE[X_VISITED, TABLE[X_VISITED_SLOTS, i]] = 0
    for i in range(n_leaves if n_leaves >= 0 else HASH_SIZE // 2):
        TABLE[X_LEAF, TABLE[X_LEAF_SLOTS, i]] = 0
    if n_leaves < 0:
        return -1
    return keep_most_dice(LEAF, INFO, n_leaves)


# ---------------------------------------------------------------------------- the fire ship's line

#: the orthogonal directions N, E, S, W as row and column steps (board.DIRS[:4])
ORTHO_DR = tuple(d[0] for d in DIRS[:4])
ORTHO_DC = tuple(d[1] for d in DIRS[:4])


@njit(cache=True)
def fire_targets(P, G, row, wreck, ship, length, out):
    """Variant 5: the squares where ``ship`` may explode after sailing ``length`` squares in one
    straight orthogonal line (decision: over free open sea, ending on open sea or an anchorage,
    never on a wreck), into ``out``; returns their number."""
    n_out = 0
    f = G[row, ship]
    at_ptr, cols = P[pk.P_AT_CELL_PTR], P[pk.P_COLS]
    for i in range(P[at_ptr + f], P[at_ptr + f + 1]):
        r, c = P[P[pk.P_AT_CELL_ROW] + i], P[P[pk.P_AT_CELL_COL] + i]
        for d in range(4):
            ok, m = True, -1
            for k in range(1, length + 1):
                rr, cc = r + ORTHO_DR[d] * k, c + ORTHO_DC[d] * k
                if rr < 0 or rr >= P[pk.P_ROWS] or cc < 0 or cc >= cols:
                    ok = False
                    break
                m = P[P[pk.P_AT_GRID] + rr * cols + cc]
                open_sea = m >= 0 and P[P[pk.P_AT_KIND] + m] in (SEA, ANCHORAGE)
                if not open_sea or wreck[m]:
                    ok = False
                    break
                for s in range(P[pk.P_NSHIPS]):
                    if k < length and G[row, s] == m:
                        ok = False
                if not ok:
                    break
            for j in range(n_out):
                ok = ok and out[j] != m
            if ok:
                out[n_out] = m
                n_out += 1
    return n_out


@njit(cache=True)
def within_radius(P, a, b, radius):
    """Is a square of node ``a`` within Chebyshev distance ``radius`` of a square of node ``b``?"""
    at_ptr, at_r, at_c = P[pk.P_AT_CELL_PTR], P[pk.P_AT_CELL_ROW], P[pk.P_AT_CELL_COL]
    for i in range(P[at_ptr + a], P[at_ptr + a + 1]):
        for j in range(P[at_ptr + b], P[at_ptr + b + 1]):
            if max(abs(P[at_r + i] - P[at_r + j]), abs(P[at_c + i] - P[at_c + j])) <= radius:
                return True
    return False
