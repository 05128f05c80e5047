"""Legal moves of Les Pirates: state, typed steps, turn enumeration, and applying a step.

Notes section *Movement*, *Treasure*, *Boarding*, *Win* and variants 4 (wrecks) and 9 (fleet).

* Each die moves one ship (or one fleet) one straight leg of exactly its value
  (:data:`~simulator.hunt.board.SINGLE` legs); two dice together move one ship one leg of their
  sum when the leg enters a trade-wind or strait square or leaves the trade-wind zone
  (:data:`~simulator.hunt.board.SUM` legs). The terrain part is precomputed in
  :func:`simulator.hunt.board.compute_legs`; here the ships are checked: no passing over an
  opponent (nor over an own ship when ``movement.pass_own_ships`` is false), nor over or onto a
  wreck; no ending on an own ship except to join a fleet; ending on an opponent boards it.
* A treasure carrier may only sail legs whose ``carrier_ok`` bit for its home port is set.
* :func:`turn_options` enumerates every distinct outcome of a roll and keeps those using the most
  dice (a winning move ends the turn at once and is always kept). Outcomes are deduplicated by
  the resulting state, so a policy choosing uniformly picks uniformly among distinct outcomes.

States are immutable (:class:`State`); :func:`apply_step` returns a new one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from simulator.hunt.board import ANCHORAGE, Board, Leg, bfs, compute_legs, parse_board


class State(NamedTuple):
    """Everything that changes during a game (ships are numbered seat by seat)."""

    ship_node: tuple[int, ...]  # ship -> node, -1 once sunk
    carrying: tuple[int, ...]  # ship -> treasure index aboard, -1 when none
    treasure_island: tuple[int, ...]  # treasure -> island index where it lies, -1 when aboard
    wrecks: frozenset  # nodes holding a wreck (variant 4)


class Step(NamedTuple):
    """One leg of a turn: the typed action a player chooses (never a string)."""

    ships: tuple[int, ...]  # ships moved together (one ship, or a whole fleet)
    dice: tuple[int, ...]  # die values used: one (SINGLE leg) or two (SUM leg)
    dest: int  # node where the leg ends
    load: bool  # load the island's treasure on arrival at an anchorage


class Option(NamedTuple):
    """One legal way to play a roll: the steps and the state they lead to."""

    steps: tuple[Step, ...]
    state: State
    dice_used: int
    won: bool  # a carrier of the mover reached its home anchor


@dataclass(frozen=True, slots=True)
class Tables:
    """Static data for one rule set and player count (built once, shared read-only)."""

    board: Board
    single: tuple  # single[node][length] -> tuple[Leg, ...]
    sum_: tuple  # sum_[node][length] -> tuple[Leg, ...]
    num_players: int
    seat_ports: tuple[tuple[int, ...], ...]  # seat -> port indices
    ship_owner: tuple[int, ...]  # ship -> seat
    ship_home: tuple[int, ...]  # ship -> port index (its goal when carrying)
    seat_ships: tuple[tuple[int, ...], ...]  # seat -> its ships
    num_treasures: int
    pass_own: bool
    fleet: bool
    fleet_sink_all: bool
    wrecks: bool
    dist: tuple  # dist[a][b] step distance ignoring ships
    anchorage_island: tuple  # node -> island index or -1
    plan: object = None  # simulator.hunt.plan.PlanTables when a planner plays (else None)


def build_tables(rules, num_players: int, plan: bool = False) -> Tables:
    """Compile ``rules`` (a :class:`~simulator.hunt.rules.HuntRules`) for ``num_players``;
    ``plan`` adds the planning tables of :mod:`simulator.hunt.plan` (for planner players)."""
    board = parse_board(rules.board)
    max_len = rules.die_sides * rules.movement.sum_dice
    single, sum_ = compute_legs(
        board, max_len, rules.movement.carrier_rule, rules.movement.trade_wind_orthogonal
    )
    seat_ports = tuple(
        tuple(board.port_index(p) for p in group) for group in rules.ports_for(num_players)
    )
    owner, home, seat_ships = [], [], []
    for seat, ports in enumerate(seat_ports):
        mine = []
        for port in ports:
            for _ in range(rules.ships_per_port):
                mine.append(len(owner))
                owner.append(seat)
                home.append(port)
        seat_ships.append(tuple(mine))
    dist = tuple(tuple(bfs(board, n)) for n in range(board.num_nodes))
    anch = [-1] * board.num_nodes
    for n, isl in board.anchorage_island.items():
        anch[n] = isl
    tables = Tables(
        board=board,
        single=single,
        sum_=sum_,
        num_players=num_players,
        seat_ports=seat_ports,
        ship_owner=tuple(owner),
        ship_home=tuple(home),
        seat_ships=tuple(seat_ships),
        num_treasures=rules.board.num_treasures,
        pass_own=rules.movement.pass_own_ships,
        fleet=rules.fleet.enabled,
        fleet_sink_all=rules.fleet.sink == "all",
        wrecks=rules.shipwreck.enabled,
        dist=dist,
        anchorage_island=tuple(anch),
    )
    if plan:
        from dataclasses import replace

        from simulator.hunt.plan import build_plan

        tables = replace(tables, plan=build_plan(tables, rules))
    return tables


def occupancy(t: Tables, st: State) -> dict[int, list[int]]:
    """node -> ships on it (alive ships only)."""
    occ: dict[int, list[int]] = {}
    for s, n in enumerate(st.ship_node):
        if n >= 0:
            occ.setdefault(n, []).append(s)
    return occ


def leg_allowed(t: Tables, st: State, occ: dict, player: int, leg: Leg, carrier_bit: int) -> bool:
    """Can ``player``'s unit sail ``leg`` given the ships and wrecks on the board?"""
    if carrier_bit and not leg.carrier_ok & carrier_bit:
        return False
    wrecks = st.wrecks
    owner = t.ship_owner
    for n in leg.inter:
        if n in wrecks:
            return False
        here = occ.get(n)
        if here and (owner[here[0]] != player or not t.pass_own):
            return False
    if leg.dest in wrecks:
        return False
    here = occ.get(leg.dest)
    return not (here and owner[here[0]] == player and not t.fleet)


def units(t: Tables, st: State, player: int, occ: dict) -> list[tuple[int, ...]]:
    """What the player may move with one die: each ship, and each fleet (stack) as a whole."""
    out = []
    seen_nodes = set()
    for s in t.seat_ships[player]:
        n = st.ship_node[s]
        if n < 0:
            continue
        if not t.fleet:
            out.append((s,))
            continue
        if n in seen_nodes:
            continue
        seen_nodes.add(n)
        stack = tuple(x for x in occ[n] if t.ship_owner[x] == player)
        kinds = set()
        for x in stack:  # ships of a stack differ only by home port and cargo
            k = (t.ship_home[x], st.carrying[x])
            if k not in kinds:
                kinds.add(k)
                out.append((x,))
        if len(stack) > 1:
            out.append(stack)
    return out


def apply_step(t: Tables, st: State, player: int, step: Step) -> State:
    """The state after ``step`` (boarding, capture of the treasure, loading, wrecks)."""
    ship_node = list(st.ship_node)
    carrying = list(st.carrying)
    treasure = list(st.treasure_island)
    wrecks = st.wrecks
    dest = step.dest
    victims = [s for s, n in enumerate(ship_node) if n == dest and t.ship_owner[s] != player]
    survivors: list[int] = []
    if victims and t.fleet and not t.fleet_sink_all and len(victims) > 1:
        victims.sort(key=lambda s: (carrying[s] < 0, s))  # a carrier is boarded first
        victims, survivors = victims[:1], victims[1:]
    for v in victims:
        ship_node[v] = -1
        cargo = carrying[v]
        if cargo >= 0:
            carrying[v] = -1
            taker = next((m for m in step.ships if carrying[m] < 0), None)
            if taker is not None:
                carrying[taker] = cargo
            else:  # the attacker already holds a treasure: this one goes back to its island
                treasure[cargo] = cargo
    if victims and t.wrecks:
        wrecks = wrecks | {dest}
    for m in step.ships:
        ship_node[m] = dest
    for v in survivors:  # fleet sink = "one": the rest of the boarded fleet flees home
        ship_node[v] = home_square(t, ship_node, wrecks, v)
        cargo = carrying[v]
        if cargo >= 0:  # a second treasure aboard (two treasures) goes back to its island
            carrying[v] = -1
            treasure[cargo] = cargo
    if step.load:
        isl = t.anchorage_island[dest]
        loader = next(m for m in step.ships if carrying[m] < 0)
        carrying[loader] = isl
        treasure[isl] = -1
    return State(tuple(ship_node), tuple(carrying), tuple(treasure), wrecks)


def home_square(t: Tables, ship_node: list[int], wrecks: frozenset, ship: int) -> int:
    """Where a survivor of a boarded fleet goes (fleet ``sink = "one"``): its home anchor, else
    the first of its home port's berths, that holds no wreck and no other seat's ship; ``-1``
    (sunk) when there is none."""
    me = t.ship_owner[ship]
    port = t.ship_home[ship]
    for sq in (t.board.anchor_node[port], *t.board.berth_nodes[port]):
        if sq in wrecks:
            continue
        if all(t.ship_owner[x] == me for x, n in enumerate(ship_node) if n == sq and x != ship):
            return sq
    return -1


def loadable(t: Tables, st: State, dest: int) -> bool:
    """Does an anchorage at ``dest`` have a treasure on its island?"""
    isl = t.anchorage_island[dest]
    return isl >= 0 and isl < t.num_treasures and st.treasure_island[isl] == isl


def has_won(t: Tables, st: State, player: int) -> bool:
    """A carrier of ``player`` is on its own home anchor, or ``player`` has a ship afloat and
    every other seat has none (when every ship is gone nobody has won: a draw)."""
    anchors = t.board.anchor_node
    others_alive = False
    mine_alive = False
    for s, n in enumerate(st.ship_node):
        if n < 0:
            continue
        if t.ship_owner[s] == player:
            mine_alive = True
            if st.carrying[s] >= 0 and n == anchors[t.ship_home[s]]:
                return True
        else:
            others_alive = True
    return mine_alive and not others_alive


def unit_steps(t: Tables, st: State, player: int, dice_left: tuple[int, ...], occ: dict):
    """Yield ``(step, rest_of_dice)`` for every legal single leg from ``st``."""
    kinds = (ANCHORAGE,)
    for unit in units(t, st, player, occ):
        node = st.ship_node[unit[0]]
        carrier_bit = 0
        free = False
        for s in unit:
            if st.carrying[s] >= 0:
                carrier_bit = 1 << t.ship_home[s]
            else:
                free = True
        tried = set()
        n_d = len(dice_left)
        for i in range(n_d):
            v = dice_left[i]
            if v in tried:
                continue
            tried.add(v)
            rest = dice_left[:i] + dice_left[i + 1 :]
            for leg in t.single[node][v]:
                if leg_allowed(t, st, occ, player, leg, carrier_bit):
                    yield Step(unit, (v,), leg.dest, False), rest
                    if free and t.board.kind[leg.dest] in kinds and loadable(t, st, leg.dest):
                        yield Step(unit, (v,), leg.dest, True), rest
        tried_pairs = set()
        for i in range(n_d):
            for j in range(i + 1, n_d):
                a, b = dice_left[i], dice_left[j]
                if (a, b) in tried_pairs:
                    continue
                tried_pairs.add((a, b))
                legs = t.sum_[node][a + b]
                if not legs:
                    continue
                rest = tuple(x for k, x in enumerate(dice_left) if k != i and k != j)
                for leg in legs:
                    if leg_allowed(t, st, occ, player, leg, carrier_bit):
                        yield Step(unit, (a, b), leg.dest, False), rest
                        if free and t.board.kind[leg.dest] in kinds and loadable(t, st, leg.dest):
                            yield Step(unit, (a, b), leg.dest, True), rest


def turn_options(t: Tables, st: State, player: int, dice: tuple[int, ...]) -> list[Option]:
    """Every distinct legal way to play ``dice`` (using as many dice as possible).

    Returns a single empty option (the turn passes) when no die can be used.
    """
    total = len(dice)
    leaves: dict[State, Option] = {}
    visited: set = set()

    def rec(state: State, left: tuple[int, ...], steps: tuple[Step, ...], used: int) -> None:
        key = (state, left)
        if key in visited:
            return
        visited.add(key)
        moved = False
        occ = occupancy(t, state)
        for step, rest in unit_steps(t, state, player, left, occ):
            moved = True
            new = apply_step(t, state, player, step)
            nsteps = steps + (step,)
            nused = used + len(step.dice)
            if has_won(t, new, player):
                if new not in leaves or not leaves[new].won:
                    leaves[new] = Option(nsteps, new, total, True)
                continue
            rec(new, rest, nsteps, nused)
        if not moved:
            old = leaves.get(state)
            if old is None or old.dice_used < used:
                leaves[state] = Option(steps, state, used, False)

    rec(st, tuple(sorted(dice)), (), 0)
    # a winning option is always legal; the others must use as many dice as possible
    best = max((o.dice_used for o in leaves.values() if not o.won), default=0)
    return [o for o in leaves.values() if o.won or o.dice_used == best]
