"""The static tables of one rule set and player count, packed for the engine: :class:`Tables`.

:func:`build_tables` parses the board, builds the terrain-legal legs
(:func:`simulator.hunt.board.compute_legs`), the seats, ships and distances, and packs them into
what the compiled functions index through the named constants below (never bare numbers):

* ``P`` (int64): the rule parameters (``P_NSHIPS``...), then where each int64 table starts in
  ``P`` itself (``P_AT_*``: ship owners, legs, squares...), then those tables one after another.
  Table ``X`` entry ``i`` is ``P[P[P_AT_X] + i]``. One vector rather than many small arrays:
  each array a compiled function takes costs it reference counts on entry and exit.
* ``A = (dist, zobrist, floats, reach)``: the tables of other types (``A_*``).

A **position** is one row of an int64 buffer, ``2 * ships + treasures`` columns (ships numbered
seat by seat): ``[s]`` the node of ship ``s`` (-1: sunk), ``[ships + s]`` the treasure aboard it
(-1: none), ``[2 * ships + k]`` where treasure ``k`` lies (its island's index, which is ``k``, or
-1 when aboard). Wrecks are one int64 array per game, ``wreck[node]`` (0 or 1; a count while a
turn is enumerated). Positions reached within a turn are told apart by 63-bit Zobrist hashes
(fixed keys drawn from ``default_rng(0x5EED)``: a fixed hash, not game randomness).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from simulator.hunt.board import Board, bfs, compute_legs, parse_board

# P[...]: rule parameters
(
    P_NSHIPS,
    P_NSEATS,
    P_NTRE,  # treasures in play (rules: board.num_treasures)
    P_NNODES,
    P_MAXL,  # longest leg: die_sides * sum_dice
    P_PASS_OWN,  # movement.pass_own_ships
    P_FLEET,  # fleet.enabled (variant 9)
    P_SINK_ALL,  # fleet.sink == "all"
    P_WRECKS,  # shipwreck.enabled (variant 4)
    P_NDICE,  # dice per roll, cyclone's extra dice included
    P_SIDES,
    P_CYC,  # cyclone.enabled (variant 2)
    P_CYC_EQ,  # cyclone.equal_dice
    P_CYC_PLAY,  # cyclone.play_roll_after_loss
    P_FIRE,  # fire_ship.enabled (variant 5)
    P_FIRE_HALF,  # fire_ship.radius == "half"
    P_FIRE_ENDS,  # fire_ship.ends_turn
    P_ONETWO,  # one_two.enabled (variant 6)
    P_ONETWO_CHAIN,  # one_two.chain
    P_MAXTURNS,
    P_ROWS,
    P_COLS,
    P_CHECK,  # 1: check the invariants after every change (set per run)
    P_TRACE,  # rows of the trace buffer of a traced game (0: no trace; set per run)
    P_NISLANDS,
    P_NPORTS,
    P_NROLLS,  # distinct rolls of the planning tables (0 when no planner plays)
    P_NWORDS,  # uint64 words per reach bit set
    P_OPEN_TURNS,  # opening.handicap_turns: the first player's turns rolled with fewer dice
    P_OPEN_DICE,  # opening.handicap_dice: the dice rolled on those turns
    # where each int64 table starts in P
    P_AT_KIND,  # node -> board.SEA..STRAIT
    P_AT_LEG_PTR,  # (node * 2 + kind) * (maxl + 1) + length -> first leg (kind 0 single, 1 sum)
    P_AT_LEG_DEST,  # leg -> destination node
    P_AT_LEG_CARRIER,  # leg -> bit mask over port indices of the carriers that may sail it
    P_AT_INTER_PTR,  # leg -> first entry in the INTER table (leg + 1: one past its last)
    P_AT_INTER,  # nodes passed over by the legs, leg after leg
    P_AT_OWNER,  # ship -> seat
    P_AT_HOME,  # ship -> home port index (where it takes a treasure)
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
    P_ROW_ISL_DIST,  # in A_DIST: first row of [island, node] steps to the island's anchorages
    P_ROW_ROLL_DIST,  # in A_DIST: first row of [node, node] fewest rolls (-1 never)
    P_AT_ROLL_P,  # in A_FLOAT: [roll] probability of each distinct roll
    P_AT_CARRY_TURNS,  # in A_FLOAT: [port, node] expected rolls of a carrier to its anchor
    P_AT_FETCH_TURNS,  # in A_FLOAT: [port, island, node] expected rolls to fetch and go home
    P_HEADER,  # the tables start here
) = range(54)

# A[...]: the tables that are not int64
A_DIST = 0  # int16 [row, node]: rows 0..nodes-1 step distances ignoring ships, then the island
#             rows (P_ROW_ISL_DIST), then the roll distances (P_ROW_ROLL_DIST, planner only)
A_ZOBRIST = 1  # uint64 [position column, value + 1]: the Zobrist keys (-1 included)
A_FLOAT = 2  # float64 flat: the planning tables (P_AT_ROLL_P...), one 0 when no planner plays
A_REACH = 3  # uint64 [roll, node, word]: bit sets of the nodes a lone ship reaches with the roll


@dataclass(frozen=True, slots=True, eq=False)
class Tables:
    """Static data for one rule set and player count (built once per chunk, read only): the
    Python view the set-up, the API and the tests read, and the packed ``A``, ``P``."""

    rules: object  # the HuntRules
    board: Board
    num_players: int
    seat_ports: tuple[tuple[int, ...], ...]  # seat -> port indices
    ship_owner: tuple[int, ...]  # ship -> seat
    ship_home: tuple[int, ...]  # ship -> port index (its goal when carrying)
    seat_ships: tuple[tuple[int, ...], ...]  # seat -> its ships
    num_treasures: int
    dist: np.ndarray  # int16 [node, node] step distance ignoring ships
    A: tuple
    P: np.ndarray
    plan: object = None  # simulator.hunt.plan.PlanTables when a planner plays

    @property
    def width(self) -> int:
        """Columns of a position row."""
        return 2 * len(self.ship_owner) + self.num_treasures


def _legs(board: Board, rules) -> tuple[dict, int]:
    """The terrain-legal legs flattened into the ``P_AT_LEG_*`` and ``P_AT_INTER*`` tables."""
    maxl = rules.die_sides * rules.movement.sum_dice
    single, sum_ = compute_legs(
        board, maxl, rules.movement.carrier_rule, rules.movement.trade_wind_orthogonal
    )
    dests, cmask, iptr, inodes = [], [], [0], []
    ptr = np.zeros(board.num_nodes * 2 * (maxl + 1) + 1, dtype=np.int64)
    for n in range(board.num_nodes):
        for kind, table in enumerate((single, sum_)):
            for length in range(maxl + 1):
                ptr[(n * 2 + kind) * (maxl + 1) + length] = len(dests)
                for leg in table[n][length]:
                    dests.append(leg.dest)
                    cmask.append(leg.carrier_ok)
                    inodes.extend(leg.inter)
                    iptr.append(len(inodes))
    ptr[-1] = len(dests)
    legs = {
        P_AT_LEG_PTR: ptr,
        P_AT_LEG_DEST: dests,
        P_AT_LEG_CARRIER: cmask,
        P_AT_INTER_PTR: iptr,
        P_AT_INTER: inodes + [0],
    }
    return legs, maxl


def _pack_p(board: Board, rules, num_players, owner, home, seat_ships) -> tuple:
    """The parameter vector ``P`` with its int64 tables, and the Zobrist keys."""
    legs, maxl = _legs(board, rules)
    cell_ptr, cell_r, cell_c = [0], [], []
    for cells in board.cells:
        cell_r.extend(r for r, _ in cells)
        cell_c.extend(c for _, c in cells)
        cell_ptr.append(len(cell_r))
    grid = np.full((board.rows, board.cols), -1, dtype=np.int64)
    for (r, c), n in board.cell_node.items():
        grid[r, c] = n
    width = 1 + max(map(len, board.berth_nodes))
    home_squares = np.full((len(board.anchor_node), width), -1, np.int64)
    for port, anchor in enumerate(board.anchor_node):
        for k, sq in enumerate((anchor, *board.berth_nodes[port])):
            home_squares[port, k] = sq
    anch_island = [-1] * board.num_nodes
    for n, isl in board.anchorage_island.items():
        anch_island[n] = isl
    n_tre = rules.board.num_treasures
    zobrist = _zobrist(len(owner), board.num_nodes, n_tre, len(board.islands))
    tables = {
        P_AT_KIND: board.kind,
        **legs,
        P_AT_OWNER: owner,
        P_AT_HOME: home,
        P_AT_SEAT_LO: [min(s) for s in seat_ships],
        P_AT_SEAT_HI: [max(s) + 1 for s in seat_ships],
        P_AT_ANCHOR: board.anchor_node,
        P_AT_ANCH_ISLAND: anch_island,
        P_AT_CELL_PTR: cell_ptr,
        P_AT_CELL_ROW: cell_r,
        P_AT_CELL_COL: cell_c,
        P_AT_GRID: grid.ravel(),
        P_AT_HOME_SQUARES: home_squares.ravel(),
    }
    header = np.zeros(P_HEADER, dtype=np.int64)
    parts, at = [header], P_HEADER
    for key in sorted(tables):
        arr = np.asarray(tables[key], dtype=np.int64).ravel()
        header[key] = at
        parts.append(arr)
        at += len(arr)
    P = np.concatenate(parts)
    cyc, fire = rules.cyclone, rules.fire_ship
    P[P_NSHIPS], P[P_NSEATS], P[P_NTRE] = len(owner), num_players, n_tre
    P[P_NNODES], P[P_MAXL], P[P_PASS_OWN] = board.num_nodes, maxl, rules.movement.pass_own_ships
    P[P_FLEET], P[P_SINK_ALL] = rules.fleet.enabled, rules.fleet.sink == "all"
    P[P_WRECKS] = rules.shipwreck.enabled
    P[P_NDICE] = rules.dice_per_roll
    P[P_SIDES], P[P_CYC], P[P_CYC_EQ] = rules.die_sides, cyc.enabled, cyc.equal_dice
    P[P_CYC_PLAY] = cyc.play_roll_after_loss
    P[P_FIRE], P[P_FIRE_HALF], P[P_FIRE_ENDS] = fire.enabled, fire.radius == "half", fire.ends_turn
    P[P_ONETWO], P[P_ONETWO_CHAIN] = rules.one_two.enabled, rules.one_two.chain
    P[P_OPEN_TURNS], P[P_OPEN_DICE] = rules.opening.handicap_turns, rules.opening.handicap_dice
    P[P_MAXTURNS], P[P_ROWS], P[P_COLS] = rules.max_turns, board.rows, board.cols
    P[P_NISLANDS], P[P_NPORTS] = len(board.islands), len(board.anchor_node)
    P[P_HOME_SQUARES_WIDTH] = width
    return P, zobrist


def _zobrist(n_ships, n_nodes, n_tre, n_isl) -> np.ndarray:
    """The Zobrist keys ``[position column, value + 1]`` (ship x node, ship x cargo, treasure x
    place, -1 included; a fixed hash, not game randomness)."""
    zrng = np.random.default_rng(0x5EED)
    shapes = ((n_ships, n_nodes + 1), (n_ships, n_tre + 1), (max(n_tre, 1), n_isl + 1))
    keys = [zrng.integers(0, 2**63, size=s, dtype=np.int64).astype(np.uint64) for s in shapes]
    out = np.zeros((2 * n_ships + n_tre, n_nodes + 1), dtype=np.uint64)
    out[:n_ships] = keys[0]
    out[n_ships : 2 * n_ships, : n_tre + 1] = keys[1]
    out[2 * n_ships :, : n_isl + 1] = keys[2][:n_tre]
    return out


@functools.lru_cache(maxsize=32)
def build_tables(rules, num_players: int, plan: bool = False) -> Tables:
    """The tables of ``rules`` (a :class:`~simulator.hunt.rules.HuntRules`) for
    ``num_players``; ``plan`` adds the planning tables of :mod:`simulator.hunt.plan` (for
    planner players). Seats and ports: rules *Board* (seat order) and variants 7-8 (kingdoms).

    Kept per process for equal rules (the rules are a frozen dataclass; up to 0.3 s a build,
    which a report asked for 45 times): the engine only reads the tables (a run copies ``P``
    before it sets its switches, :func:`simulator.hunt.game.run_games`)."""
    board = parse_board(rules.board)
    seat_ports = tuple(
        tuple(board.port_index(p) for p in group) for group in rules.ports_for(num_players)
    )
    owner, home, seat_ships = [], [], []
    for seat, ports in enumerate(seat_ports):
        first = len(owner)
        for port in ports:
            owner += [seat] * rules.ships_per_port
            home += [port] * rules.ships_per_port
        seat_ships.append(tuple(range(first, len(owner))))
    P, zobrist = _pack_p(board, rules, num_players, owner, home, seat_ships)
    n_nodes = board.num_nodes
    dist = np.array([bfs(board, n) for n in range(n_nodes)], dtype=np.int16)
    isl_dist = np.array([dist[list(anch)].min(axis=0) for anch in board.island_anchorages])
    rows = [dist, isl_dist.astype(np.int16)]
    P[P_ROW_ISL_DIST], P[P_ROW_ROLL_DIST] = n_nodes, n_nodes + len(board.islands)
    floats, reach, planned = np.zeros(1), np.zeros((1, 1, 1), dtype=np.uint64), None
    if plan:
        from simulator.hunt.plan import build_plan

        planned = build_plan(P, board, rules, seat_ports)
        rows.append(planned.roll_dist.astype(np.int16))
        n_rolls = len(planned.roll_p)
        P[P_NROLLS], P[P_NWORDS] = n_rolls, planned.reach.shape[2]
        P[P_AT_ROLL_P], P[P_AT_CARRY_TURNS] = 0, n_rolls
        P[P_AT_FETCH_TURNS] = n_rolls + planned.carry_turns.size
        parts = (planned.roll_p, planned.carry_turns, planned.fetch_turns)
        floats = np.concatenate([x.ravel() for x in parts]).astype(np.float64)
        reach = np.ascontiguousarray(planned.reach, dtype=np.uint64)
    A = (np.ascontiguousarray(np.concatenate(rows)), zobrist, floats, reach)
    return Tables(
        rules=rules,
        board=board,
        num_players=num_players,
        seat_ports=seat_ports,
        ship_owner=tuple(owner),
        ship_home=tuple(home),
        seat_ships=tuple(seat_ships),
        num_treasures=rules.board.num_treasures,
        dist=dist,
        A=A,
        P=P,
        plan=planned,
    )
