"""Packed static data of the compiled engine: the arrays tuple ``A``, the parameter vector ``P``.

:func:`pack` flattens a :class:`~simulator.hunt.moves.Tables` (built from the scenario by the
readable engine) into int arrays; the compiled functions index them through the named constants
below, never bare numbers.

Packed state (per game): ``node[ship]`` (-1 sunk), ``carry[ship]`` (treasure index or -1),
``tre[treasure]`` (island index or -1 aboard), ``wreck[node]`` (0/1).

Positions reached during a turn are deduplicated by 63-bit Zobrist hashes (fixed keys drawn once
from ``default_rng(0x5EED)`` here: a fixed hash, not game randomness).
"""

from __future__ import annotations

import numpy as np

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

# static arrays (A[...]), in the order pack() builds them
A_KIND = 0  # node -> board.SEA..STRAIT
A_LEG_PTR = 1  # (node * 2 + kind) * (maxl + 1) + length -> first leg (kind 0 single, 1 sum)
A_LEG_DEST = 2  # leg -> destination node
A_LEG_CARRIER = 3  # leg -> carrier_ok bit mask over port indices
A_INTER_PTR = 4  # leg -> first entry in A_INTER (leg + 1: one past its last)
A_INTER = 5  # nodes passed over by the legs, leg after leg
A_OWNER = 6  # ship -> seat
A_HOME = 7  # ship -> home port index
A_SEAT_LO = 8  # seat -> its first ship
A_SEAT_HI = 9  # seat -> one past its last ship
A_ANCHOR = 10  # port index -> anchor node
A_ANCH_ISLAND = 11  # node -> island index of an anchorage, -1 elsewhere
A_ISL_PTR = 12  # island -> first entry in A_ISL_NODES
A_ISL_NODES = 13  # anchorage nodes, island after island
A_DIST = 14  # int16 [node, node] step distance ignoring ships
A_CELL_PTR = 15  # node -> first entry in A_CELL_ROW / A_CELL_COL (a strait has two squares)
A_CELL_ROW = 16  # square -> row
A_CELL_COL = 17  # square -> column
A_GRID = 18  # [row, col] -> node, -1 for no square
A_ISL_DIST = 19  # int16 [island, node] step distance to the island's nearest anchorage
A_Z_NODE = 20  # uint64 [ship, node + 1] Zobrist keys (column 0: sunk)
A_Z_CARGO = 21  # uint64 [ship, treasure + 1] Zobrist keys (column 0: no cargo)
A_Z_TREASURE = 22  # uint64 [treasure, island + 1] Zobrist keys (column 0: aboard)
A_HOME_SQUARES = 23  # [port, k] the port's anchor then its berths, -1 padded (fleet survivors)
# planning tables (simulator.hunt.plan.PlanTables; 1-element dummies when no planner plays)
A_ROLL_P = 24  # float64 [roll] probability of each distinct roll
A_REACH = 25  # uint64 [roll, node, word] bit sets of the nodes a lone ship reaches with the roll
A_CARRY_TURNS = 26  # float64 [port, node] expected rolls of a carrier to its home anchor
A_FETCH_TURNS = 27  # float64 [port, island, node] expected rolls to fetch a treasure and go home
A_ROLL_DIST = 28  # int16 [node, node] fewest rolls (-1: never)


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
    """Static arrays and the params vector for the compiled engine."""
    b = t.board
    n_nodes = b.num_nodes
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
    home_squares = np.full((len(b.anchor_node), 1 + max(map(len, b.berth_nodes))), -1, np.int64)
    for port, anchor in enumerate(b.anchor_node):
        for k, sq in enumerate((anchor, *b.berth_nodes[port])):
            home_squares[port, k] = sq
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
        dests,
        cmask,
        iptr,
        inodes,
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
        home_squares,
        *_plan_arrays(t.plan),
    )
    return arrays, P


def _plan_arrays(plan):
    if plan is None:
        return (
            np.zeros(1),
            np.zeros((1, 1, 1), dtype=np.uint64),
            np.zeros((1, 1)),
            np.zeros((1, 1, 1)),
            np.zeros((1, 1), dtype=np.int16),
        )
    return (
        np.ascontiguousarray(plan.roll_p, dtype=np.float64),
        np.ascontiguousarray(plan.reach, dtype=np.uint64),
        np.ascontiguousarray(plan.carry_turns, dtype=np.float64),
        np.ascontiguousarray(plan.fetch_turns, dtype=np.float64),
        np.ascontiguousarray(plan.roll_dist, dtype=np.int16),
    )


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
