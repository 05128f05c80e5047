"""Packed static data of the compiled engine: the int64 vector ``P`` and the arrays tuple ``A``.

:func:`pack` flattens a :class:`~simulator.hunt.moves.Tables` (built from the scenario by the
readable engine) into a few arrays; the compiled functions index them through the named
constants below, never bare numbers.

* ``P`` (int64): the rule parameters (``P_NSHIPS``...), then where each int64 table starts in
  ``P`` itself (``P_AT_*``: ship owners, legs, cells...), then those tables, one after another.
  Table ``X`` entry ``i`` is ``P[P[P_AT_X] + i]`` (functions read the starts into locals first).
* ``A = (dist, zobrist, floats, reach)``: the tables of other types (``A_*``, below).

Why one int64 vector rather than a tuple of small arrays: every array a compiled function takes
or takes out of a tuple costs an atomic reference count on entry and on exit, and the per-leg
functions ran at half speed on those (measured with ``perf``: NRT_incref/decref were 50-66% of
the samples with 17-22 arrays per call).

Packed state of a position (one row of the state buffers ``S``, ``L`` of
:mod:`simulator.hunt.fast.moves`, ``W = 2 * ships + treasures`` columns): ``S[r, s]`` node of
ship ``s`` (-1 sunk), ``S[r, ships + s]`` its cargo (treasure index or -1), ``S[r, 2 * ships +
k]`` where treasure ``k`` lies (island index, -1 aboard). Per game also ``wreck[node]`` (0/1).

Positions reached during a turn are deduplicated by 63-bit Zobrist hashes (fixed keys drawn once
from ``default_rng(0x5EED)`` here: a fixed hash, not game randomness).
"""

from __future__ import annotations

import numpy as np

# P[...]: rule parameters
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
    P_TRACE,  # rows of the trace buffer of play_one (0: no trace)
    P_NISLANDS,
    P_NPORTS,
    P_NROLLS,  # distinct rolls of the planning tables (0 when no planner plays)
    P_NWORDS,  # uint64 words per reach bit set
    # where each int64 table starts in P
    P_AT_KIND,  # node -> board.SEA..STRAIT
    P_AT_LEG_PTR,  # (node * 2 + kind) * (maxl + 1) + length -> first leg (kind 0 single, 1 sum)
    P_AT_LEG_DEST,  # leg -> destination node
    P_AT_LEG_CARRIER,  # leg -> carrier_ok bit mask over port indices
    P_AT_INTER_PTR,  # leg -> first entry in the INTER table (leg + 1: one past its last)
    P_AT_INTER,  # nodes passed over by the legs, leg after leg
    P_AT_OWNER,  # ship -> seat
    P_AT_HOME,  # ship -> home port index
    P_AT_SEAT_LO,  # seat -> its first ship
    P_AT_SEAT_HI,  # seat -> one past its last ship
    P_AT_ANCHOR,  # port index -> anchor node
    P_AT_ANCH_ISLAND,  # node -> island index of an anchorage, -1 elsewhere
    P_AT_CELL_PTR,  # node -> first entry in CELL_ROW / CELL_COL (a strait has two squares)
    P_AT_CELL_ROW,  # square -> row
    P_AT_CELL_COL,  # square -> column
    P_AT_GRID,  # row * cols + col -> node, -1 for no square
    P_AT_HOME_SQUARES,  # port * P_HOME_SQUARES_WIDTH + k: its anchor then berths, -1 padded
    P_HOME_SQUARES_WIDTH,
    # where each table starts in the other arrays
    P_AT_ZN,  # in A_ZOBRIST: [ship, node + 1] keys, row width nodes + 1 (column 0: sunk)
    P_AT_ZC,  # in A_ZOBRIST: [ship, treasure + 1] keys, row width treasures + 1 (0: no cargo)
    P_AT_ZT,  # in A_ZOBRIST: [treasure, island + 1] keys, row width islands + 1 (0: aboard)
    P_ROW_ISL_DIST,  # in A_DIST: first row of [island, node] steps to the island's anchorages
    P_ROW_ROLL_DIST,  # in A_DIST: first row of [node, node] fewest rolls (-1 never)
    P_AT_ROLL_P,  # in A_FLOAT: [roll] probability of each distinct roll
    P_AT_CARRY_TURNS,  # in A_FLOAT: [port, node] expected rolls of a carrier to its anchor
    P_AT_FETCH_TURNS,  # in A_FLOAT: [port, island, node] expected rolls to fetch and go home
    P_HEADER,  # the tables start here
) = range(55)

# A[...]: the tables that are not int64
A_DIST = 0  # int16 [row, node]: rows 0..nodes-1 step distances ignoring ships, then the island
#             rows (P_ROW_ISL_DIST), then the roll distances (P_ROW_ROLL_DIST, planner only)
A_ZOBRIST = 1  # uint64 flat: the Zobrist keys (P_AT_ZN, P_AT_ZC, P_AT_ZT)
A_FLOAT = 2  # float64 flat: the planning tables (P_AT_ROLL_P...), one 0 when no planner plays
A_REACH = 3  # uint64 [roll, node, word]: bit sets of the nodes a lone ship reaches with the roll


def pack_legs(t):
    """The leg tables flattened: ``(ptr, dest, carrier_mask, inter_ptr, inter, maxl)`` (see the
    ``A_LEG_*`` and ``A_INTER*`` constants)."""
    n_nodes = t.board.num_nodes
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
    return (
        ptr,
        np.array(dests, dtype=np.int64),
        np.array(cmask, dtype=np.int64),
        np.array(iptr, dtype=np.int64),
        np.array(inodes + [0], dtype=np.int64),
        maxl,
    )


def pack(t, rules):
    """``(A, P)``: the static tables and the parameter vector of the compiled engine."""
    b = t.board
    n_nodes = b.num_nodes
    n_ships = len(t.ship_owner)
    n_tre = t.num_treasures
    n_isl = len(b.islands)
    ptr, dests, cmask, iptr, inodes, maxl = pack_legs(t)
    cell_ptr, cell_r, cell_c = [0], [], []
    for n in range(n_nodes):
        for r, c in b.cells[n]:
            cell_r.append(r)
            cell_c.append(c)
        cell_ptr.append(len(cell_r))
    grid = np.full((b.rows, b.cols), -1, dtype=np.int64)
    for (r, c), n in b.cell_node.items():
        grid[r, c] = n
    width = 1 + max(map(len, b.berth_nodes))
    home_squares = np.full((len(b.anchor_node), width), -1, np.int64)
    for port, anchor in enumerate(b.anchor_node):
        for k, sq in enumerate((anchor, *b.berth_nodes[port])):
            home_squares[port, k] = sq
    tables = {
        P_AT_KIND: b.kind,
        P_AT_LEG_PTR: ptr,
        P_AT_LEG_DEST: dests,
        P_AT_LEG_CARRIER: cmask,
        P_AT_INTER_PTR: iptr,
        P_AT_INTER: inodes,
        P_AT_OWNER: t.ship_owner,
        P_AT_HOME: t.ship_home,
        P_AT_SEAT_LO: [min(s) for s in t.seat_ships],
        P_AT_SEAT_HI: [max(s) + 1 for s in t.seat_ships],
        P_AT_ANCHOR: b.anchor_node,
        P_AT_ANCH_ISLAND: t.anchorage_island,
        P_AT_CELL_PTR: cell_ptr,
        P_AT_CELL_ROW: cell_r,
        P_AT_CELL_COL: cell_c,
        P_AT_GRID: grid.ravel(),
        P_AT_HOME_SQUARES: home_squares.ravel(),
    }
    header = np.zeros(P_HEADER, dtype=np.int64)
    parts = [header]
    at = P_HEADER
    for key, table in tables.items():
        arr = np.asarray(table, dtype=np.int64).ravel()
        header[key] = at
        parts.append(arr)
        at += len(arr)
    P = np.concatenate(parts)
    P[P_NSHIPS] = n_ships
    P[P_NSEATS] = t.num_players
    P[P_NTRE] = n_tre
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
    P[P_NISLANDS] = n_isl
    P[P_NPORTS] = len(b.anchor_node)
    P[P_HOME_SQUARES_WIDTH] = width
    # Zobrist keys (a fixed hash, not game randomness): ship x node, ship x cargo, treasure x place
    zrng = np.random.default_rng(0x5EED)
    zn = zrng.integers(0, 2**63, size=(n_ships, n_nodes + 1), dtype=np.int64).astype(np.uint64)
    zc = zrng.integers(0, 2**63, size=(n_ships, n_tre + 1), dtype=np.int64).astype(np.uint64)
    zt = zrng.integers(0, 2**63, size=(max(n_tre, 1), n_isl + 1), dtype=np.int64).astype(np.uint64)
    P[P_AT_ZN], P[P_AT_ZC], P[P_AT_ZT] = 0, zn.size, zn.size + zc.size
    zobrist = np.concatenate([zn.ravel(), zc.ravel(), zt.ravel()])
    isl_dist = np.array(
        [[min(t.dist[a][n] for a in anch) for n in range(n_nodes)] for anch in b.island_anchorages],
        dtype=np.int16,
    )
    rows = [np.array(t.dist, dtype=np.int16), isl_dist]
    P[P_ROW_ISL_DIST] = n_nodes
    P[P_ROW_ROLL_DIST] = n_nodes + n_isl
    plan = t.plan
    if plan is None:
        floats = np.zeros(1)
        reach = np.zeros((1, 1, 1), dtype=np.uint64)
    else:
        rows.append(np.asarray(plan.roll_dist, dtype=np.int16))
        P[P_NROLLS] = len(plan.roll_p)
        P[P_NWORDS] = plan.reach.shape[2]
        P[P_AT_ROLL_P] = 0
        P[P_AT_CARRY_TURNS] = len(plan.roll_p)
        P[P_AT_FETCH_TURNS] = len(plan.roll_p) + plan.carry_turns.size
        floats = np.concatenate(
            [plan.roll_p.ravel(), plan.carry_turns.ravel(), plan.fetch_turns.ravel()]
        ).astype(np.float64)
        reach = np.ascontiguousarray(plan.reach, dtype=np.uint64)
    arrays = (np.ascontiguousarray(np.concatenate(rows)), zobrist, floats, reach)
    return arrays, P


def initial_arrays(t, st):
    """The packed state ``(node, carry, tre, wreck)`` of a :class:`~simulator.hunt.moves.State`."""
    wreck = np.zeros(t.board.num_nodes, dtype=np.int64)
    for n in st.wrecks:
        wreck[n] = 1
    return (
        np.array(st.ship_node, dtype=np.int64),
        np.array(st.carrying, dtype=np.int64),
        np.array(st.treasure_island, dtype=np.int64),
        wreck,
    )


def state_row(st) -> np.ndarray:
    """A :class:`~simulator.hunt.moves.State` as one packed state row (nodes, cargo, treasures)."""
    return np.array(st.ship_node + st.carrying + st.treasure_island, dtype=np.int64)
