"""The Les Pirates board: ASCII map parsing, validation and precomputed move tables.

Notes section *Board*. A map is rows of one symbol per square::

    ~  open sea            b  port berth (ships start here)     1-8  home-port anchor (the goal)
    =  trade-wind square   #  treasure island (land)            @    island anchorage
    v ^ strait halves      X  no square (edge of a board, the gap between two boards)

Two strait halves listed together in ``board.strait_pairs`` form **one** play square (a node).
Every other symbol except ``#`` and ``X`` is one node. Nodes are numbered in reading order; a
strait node takes the number of its first half.

:func:`parse_board` checks the map (one anchor and the berths per port, the anchorages of every
island, straits in pairs, every square reachable) and raises a one-line ``ScenarioError`` naming
the row and column at fault. :func:`compute_legs` gives the terrain part of the moves of
:mod:`simulator.hunt.moves`: for every node and every leg length, the straight legs a ship may
sail ignoring other ships (see :class:`Leg`); :func:`bfs` the step distances for the players.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

from scenarios.loader import ScenarioError

# node kinds (Board.kind[node])
SEA, BERTH, ANCHOR, TRADE, ANCHORAGE, STRAIT = range(6)
KIND_NAMES = ("sea", "berth", "anchor", "trade wind", "anchorage", "strait")
SYMBOLS = "~ b 1-8 = # @ v ^ X"
ISLAND, VOID = "#", "X"
STRAIT_CHARS = "v^"

# directions: 0-3 orthogonal (N, E, S, W), 4-7 diagonal (NE, SE, SW, NW); (drow, dcol)
DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1), (-1, 1), (1, 1), (1, -1), (-1, -1))
ORTHO = (0, 1, 2, 3)
ALL_DIRS = tuple(range(8))


class Leg(NamedTuple):
    """One straight leg that the terrain allows (other ships are checked when moving).

    ``dest`` is the node reached, ``inter`` the nodes passed over (in order, without ``dest``),
    ``carrier_ok`` a bit mask over port indices: bit ``i`` set when a treasure carrier whose home
    port has index ``i`` may sail this leg (the carrier's direction rule).
    """

    dest: int
    inter: tuple[int, ...]
    carrier_ok: int


@dataclass(frozen=True, slots=True)
class Board:
    """A parsed, validated board (no move tables yet)."""

    grid: tuple[str, ...]
    rows: int
    cols: int
    kind: tuple[int, ...]  # node -> SEA..STRAIT
    cells: tuple[tuple[tuple[int, int], ...], ...]  # node -> its squares (a strait has two)
    cell_node: dict  # (row, col) -> node
    port_numbers: tuple[int, ...]  # map digits, sorted; port index i is port_numbers[i]
    anchor_node: tuple[int, ...]  # port index -> anchor node
    berth_nodes: tuple[tuple[int, ...], ...]  # port index -> berth nodes (reading order)
    islands: tuple[tuple[tuple[int, int], ...], ...]  # island -> its land squares
    island_anchorages: tuple[tuple[int, ...], ...]  # island -> anchorage nodes
    anchorage_island: dict  # anchorage node -> island index
    anchorage_nodes: tuple[int, ...]
    neighbours: tuple[tuple[int, ...], ...]  # node -> nodes one step away (for distances)

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    def port_index(self, port_number: int) -> int:
        return self.port_numbers.index(port_number)

    def berths_of(self, port_number: int) -> tuple[int, ...]:
        return self.berth_nodes[self.port_index(port_number)]


def _err(problem: str) -> ScenarioError:
    return ScenarioError(None, "board.map", problem)


def _split_map(text: str) -> list[str]:
    lines = [ln.strip() for ln in text.strip("\n").splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        raise _err("the map is empty (allowed: rows of " + SYMBOLS + ")")
    width = len(lines[0])
    for r, ln in enumerate(lines):
        if len(ln) != width:
            raise _err(f"row {r} has {len(ln)} squares, row 0 has {width} (allowed: equal rows)")
        for c, ch in enumerate(ln):
            if not (ch in "~b=#@vX" or ch in STRAIT_CHARS or ch in "12345678"):
                raise _err(f"row {r}, column {c}: unknown symbol {ch!r} (allowed: {SYMBOLS})")
    return lines


def _neigh8(r: int, c: int):
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr or dc:
                yield r + dr, c + dc


def parse_board(spec) -> Board:
    """Parse and validate ``spec`` (a :class:`~simulator.hunt.rules.BoardRules`)."""
    grid = _split_map(spec.map)
    rows, cols = len(grid), len(grid[0])

    def at(r, c):
        return grid[r][c] if 0 <= r < rows and 0 <= c < cols else VOID

    # strait pairs
    half_pair: dict[tuple[int, int], int] = {}
    for i, (r1, c1, r2, c2) in enumerate(spec.strait_pairs):
        for r, c in ((r1, c1), (r2, c2)):
            if at(r, c) not in STRAIT_CHARS:
                raise ScenarioError(
                    None,
                    f"board.strait_pairs[{i}]",
                    f"({r},{c}) is {at(r, c)!r}, not a strait half "
                    "(allowed: squares marked v or ^)",
                )
            if (r, c) in half_pair:
                raise ScenarioError(
                    None, f"board.strait_pairs[{i}]", f"({r},{c}) is already in another pair"
                )
            half_pair[(r, c)] = i
        if (r1, c1) == (r2, c2):
            raise ScenarioError(
                None, f"board.strait_pairs[{i}]", "a strait needs two different halves"
            )
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] in STRAIT_CHARS and (r, c) not in half_pair:
                raise _err(
                    f"row {r}, column {c}: strait half is in no board.strait_pairs entry "
                    "(straits come in pairs)"
                )

    # nodes in reading order
    kind: list[int] = []
    cells: list[list[tuple[int, int]]] = []
    cell_node: dict[tuple[int, int], int] = {}
    pair_node: dict[int, int] = {}
    anchors: dict[int, int] = {}
    kinds = {"~": SEA, "b": BERTH, "=": TRADE, "@": ANCHORAGE}
    for r in range(rows):
        for c in range(cols):
            ch = grid[r][c]
            if ch in (ISLAND, VOID):
                continue
            if ch in STRAIT_CHARS:
                p = half_pair[(r, c)]
                if p in pair_node:
                    n = pair_node[p]
                    cells[n].append((r, c))
                    cell_node[(r, c)] = n
                    continue
                pair_node[p] = len(kind)
                k = STRAIT
            elif ch.isdigit():
                port = int(ch)
                if port in anchors:
                    r0, c0 = cells[anchors[port]][0]
                    raise _err(
                        f"row {r}, column {c}: port {port} has a second anchor "
                        f"(first at ({r0},{c0}); allowed: one)"
                    )
                anchors[port] = len(kind)
                k = ANCHOR
            else:
                k = kinds[ch]
            cell_node[(r, c)] = len(kind)
            kind.append(k)
            cells.append([(r, c)])
    if len(anchors) < 2:
        raise _err(f"{len(anchors)} home-port anchor(s) (allowed: at least 2, digits 1-8)")

    # ports: the berths around each anchor
    port_numbers = tuple(sorted(anchors))
    berth_owner: dict[tuple[int, int], int] = {}
    berth_nodes = []
    for port in port_numbers:
        (ar, ac) = cells[anchors[port]][0]
        mine = []
        for rr, cc in _neigh8(ar, ac):
            if at(rr, cc) == "b":
                if (rr, cc) in berth_owner:
                    raise _err(
                        f"row {rr}, column {cc}: berth touches the anchors of ports "
                        f"{berth_owner[(rr, cc)]} and {port}"
                    )
                berth_owner[(rr, cc)] = port
                mine.append(cell_node[(rr, cc)])
        if len(mine) != spec.berths_per_port:
            raise _err(
                f"row {ar}, column {ac}: port {port} has {len(mine)} berths around its anchor "
                f"(allowed: exactly {spec.berths_per_port})"
            )
        berth_nodes.append(tuple(sorted(mine)))
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == "b" and (r, c) not in berth_owner:
                raise _err(
                    f"row {r}, column {c}: berth next to no anchor (allowed: berths around a digit)"
                )

    # islands (4-connected land) and their anchorages
    seen: set[tuple[int, int]] = set()
    islands = []
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == ISLAND and (r, c) not in seen:
                comp, todo = [], [(r, c)]
                seen.add((r, c))
                while todo:
                    cr, cc = todo.pop()
                    comp.append((cr, cc))
                    for dr, dc in DIRS[:4]:
                        nb = (cr + dr, cc + dc)
                        if at(*nb) == ISLAND and nb not in seen:
                            seen.add(nb)
                            todo.append(nb)
                islands.append(tuple(sorted(comp)))
    if not islands:
        raise _err("no treasure island (allowed: at least one group of #)")
    land_island = {cell: i for i, comp in enumerate(islands) for cell in comp}
    anchorage_island: dict[int, int] = {}
    island_anch: list[list[int]] = [[] for _ in islands]
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] != "@":
                continue
            touching = {land_island[nb] for nb in _neigh8(r, c) if nb in land_island}
            if len(touching) != 1:
                raise _err(
                    f"row {r}, column {c}: anchorage touches {len(touching)} islands "
                    "(allowed: exactly 1)"
                )
            isl = touching.pop()
            anchorage_island[cell_node[(r, c)]] = isl
            island_anch[isl].append(cell_node[(r, c)])
    for i, anch in enumerate(island_anch):
        if len(anch) != spec.anchorages_per_island:
            r, c = islands[i][0]
            raise _err(
                f"island at ({r},{c}) has {len(anch)} anchorages "
                f"(allowed: exactly {spec.anchorages_per_island})"
            )

    # one-step neighbours (orthogonal; diagonal between trade winds; strait to its halves' sides)
    n_nodes = len(kind)
    neigh: list[set[int]] = [set() for _ in range(n_nodes)]
    for n in range(n_nodes):
        for r, c in cells[n]:
            for d in ALL_DIRS:
                dr, dc = DIRS[d]
                m = cell_node.get((r + dr, c + dc))
                if m is None or m == n:
                    continue
                if d >= 4 and not (kind[n] == TRADE and kind[m] == TRADE):
                    continue
                neigh[n].add(m)
                neigh[m].add(n)
    board = Board(
        grid=tuple(grid),
        rows=rows,
        cols=cols,
        kind=tuple(kind),
        cells=tuple(tuple(cs) for cs in cells),
        cell_node=cell_node,
        port_numbers=port_numbers,
        anchor_node=tuple(anchors[p] for p in port_numbers),
        berth_nodes=tuple(berth_nodes),
        islands=tuple(islands),
        island_anchorages=tuple(tuple(a) for a in island_anch),
        anchorage_island=anchorage_island,
        anchorage_nodes=tuple(sorted(anchorage_island)),
        neighbours=tuple(tuple(sorted(s)) for s in neigh),
    )
    # reachability from the first anchor
    dist = bfs(board, board.anchor_node[0])
    for n, d in enumerate(dist):
        if d < 0:
            r, c = cells[n][0]
            raise _err(
                f"row {r}, column {c}: {KIND_NAMES[kind[n]]} square cannot be reached "
                f"from port {port_numbers[0]} (allowed: every square reachable)"
            )
    return board


def bfs(board: Board, source: int) -> list[int]:
    """Step distance from ``source`` to every node (``-1``: unreachable), ignoring ships."""
    dist = [-1] * board.num_nodes
    dist[source] = 0
    q = deque([source])
    while q:
        n = q.popleft()
        for m in board.neighbours[n]:
            if dist[m] < 0:
                dist[m] = dist[n] + 1
                q.append(m)
    return dist


def _carrier_mask(
    board: Board,
    rule: str,
    start: tuple[int, int],
    d: int,
    dest_cell: tuple[int, int],
    dest_kind: int,
) -> int:
    """Bit mask of port indices whose treasure carrier may sail this leg (notes, Treasure)."""
    if dest_kind == STRAIT:
        return (1 << len(board.port_numbers)) - 1  # the carrier may always use the straits
    dr, dc = DIRS[d]
    mask = 0
    for i, anchor in enumerate(board.anchor_node):
        ar, ac = board.cells[anchor][0]
        ok = True
        if dr and (ar - start[0]) * dr <= 0:  # vertical component must point to the home side
            ok = False
        if rule == "anchor":
            if dc and (ac - start[1]) * dc <= 0:
                ok = False
            if abs(ac - dest_cell[1]) > abs(ac - start[1]) or abs(ar - dest_cell[0]) > abs(
                ar - start[0]
            ):
                ok = False
        if ok:
            mask |= 1 << i
    return mask


def compute_legs(
    board: Board, max_len: int, carrier_rule: str = "side", trade_orthogonal: bool = True
):
    """Terrain-legal straight legs: ``single[node][L]`` and ``sum_[node][L]`` lists of :class:`Leg`.

    * A leg that starts off the trade-wind zone is orthogonal; it may not pass over a trade-wind
      or strait square; if it ends on one, it is a sum leg (both dice as one move, exact count).
    * A leg from a trade-wind square whose first step stays in the zone is a single leg along
      trade-wind squares only, diagonal allowed (orthogonal too when ``trade_orthogonal``).
    * A leg from a trade-wind square whose first step leaves the zone is an orthogonal sum leg.
    * A strait node departs from any half of itself or of a strait node next to it (switching
      strait squares is free); a leg leaving from the other strait square's halves passes over
      that square (it is the first node of ``inter``), so an opponent or a wreck there blocks
      it. Legs into a strait never come from a diagonal.
    """
    n_nodes = board.num_nodes
    single = [[[] for _ in range(max_len + 1)] for _ in range(n_nodes)]
    sum_ = [[[] for _ in range(max_len + 1)] for _ in range(n_nodes)]
    kind = board.kind
    for n in range(n_nodes):
        # (square the leg leaves from, the strait node switched through to get there or -1)
        starts = [(cell, -1) for cell in board.cells[n]]
        if kind[n] == STRAIT:
            for m in board.neighbours[n]:
                if kind[m] == STRAIT:
                    starts.extend((cell, m) for cell in board.cells[m])
        dirs = ALL_DIRS if kind[n] == TRADE else ORTHO
        seen_paths = set()
        for start, via in starts:
            for d in dirs:
                dr, dc = DIRS[d]
                r, c = start
                path: list[int] = [] if via < 0 else [via]
                in_zone = None  # for trade-wind starts: does the leg stay in the zone?
                skip = 0 if via < 0 else 1  # the switched-through strait is not a step
                while len(path) - skip < max_len:
                    r, c = r + dr, c + dc
                    m = board.cell_node.get((r, c))
                    if m is None or m in (n, via):
                        break
                    km = kind[m]
                    if kind[n] == TRADE and in_zone is None:
                        in_zone = km == TRADE
                        if in_zone and d < 4 and not trade_orthogonal:
                            break
                        if not in_zone and d >= 4:
                            break  # no diagonal out of the zone
                    if kind[n] == STRAIT and len(path) == skip and km == STRAIT:
                        break  # switching is free, not a leg
                    path.append(m)
                    length = len(path) - skip
                    inter = tuple(path[:-1])
                    mask = _carrier_mask(board, carrier_rule, start, d, (r, c), km)
                    leg = Leg(m, inter, mask)
                    if in_zone:
                        if km != TRADE:
                            break
                        if (m, inter) not in seen_paths:
                            seen_paths.add((m, inter))
                            single[n][length].append(leg)
                        continue
                    if km in (TRADE, STRAIT):
                        if (m, inter) not in seen_paths:
                            seen_paths.add((m, inter))
                            sum_[n][length].append(leg)
                        break  # nothing passes over a trade wind or a strait
                    if (m, inter) not in seen_paths:
                        seen_paths.add((m, inter))
                        if kind[n] == TRADE:
                            sum_[n][length].append(leg)
                        else:
                            single[n][length].append(leg)
    return (
        tuple(tuple(tuple(x) for x in per) for per in single),
        tuple(tuple(tuple(x) for x in per) for per in sum_),
    )


def render(board: Board) -> str:
    """The map with row and column numbers (what ``broadside hunt show`` prints)."""
    tens = "".join(str(c // 10) if c >= 10 else " " for c in range(board.cols))
    ones = "".join(str(c % 10) for c in range(board.cols))
    lines = [f"     {tens}", f"     {ones}"]
    for r, row in enumerate(board.grid):
        lines.append(f"r{r:02d}  {row}")
    return "\n".join(lines)
