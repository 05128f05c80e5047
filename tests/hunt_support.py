"""Helpers of the Les Pirates tests (no tests here): constructed positions, the engine's view of
them, and an independent brute-force oracle of the movement rules.

The oracle (:func:`oracle_outcomes`) is written for clarity, not speed, on immutable states: it
tries every unit, every die and every pair of dice for a sum leg, recursively, and keeps the
outcomes using the most dice (a win always). It shares only the board's terrain legs
(:func:`simulator.hunt.board.compute_legs`, tested on their own) with the engine.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from simulator.hunt import moves, packed
from simulator.hunt.board import ANCHORAGE, compute_legs


def N(t, r, c):
    """The node of square (r, c)."""
    return t.board.cell_node[(r, c)]


def position(t, ships: dict, carrying: dict | None = None, wrecks=(), on_island=True):
    """``(position row, wrecks)``: ``ships`` maps ship -> (row, col), every other ship sunk;
    ``carrying`` maps ship -> treasure (those treasures are aboard, the others on their islands
    unless ``on_island`` is false)."""
    n = len(t.ship_owner)
    row = np.full(t.width, -1, dtype=np.int64)
    for s, rc in ships.items():
        row[s] = N(t, *rc)
    for s, k in (carrying or {}).items():
        row[n + s] = k
    if on_island:
        for k in range(t.num_treasures):
            row[2 * n + k] = -1 if k in (carrying or {}).values() else k
    wreck = np.zeros(t.board.num_nodes, dtype=np.int64)
    for rc in wrecks:
        wreck[N(t, *rc)] = 1
    return row, wreck


def engine_steps(t, pos, seat, dice, used=0):
    """The engine's first legs from ``pos``: ``(mode, ship, from, dest, dice mask, load,
    boards)`` tuples."""
    row, wreck = pos
    WB = moves.work_buffers(t)
    S, OCC, STEPS = WB[moves.B_STATE], WB[moves.B_OCC], WB[moves.B_STEPS]
    S[0] = row
    dice = np.array(sorted(dice), dtype=np.int64)
    n = moves.steps_at(t.P, S, 0, wreck.copy(), OCC, seat, dice, used, STEPS)
    return [tuple(int(x) for x in STEPS[0, k]) for k in range(n)]


def engine_outcomes(t, pos, seat, dice) -> set:
    """The engine's distinct outcomes of ``dice``: ``(nodes, cargo, places, dice used)`` tuples
    (dice used is ``len(dice) + 1`` for a win), as :func:`oracle_outcomes` gives them."""
    row, wreck = pos
    WB = moves.work_buffers(t)
    dice = np.array(sorted(dice), dtype=np.int64)
    with np.errstate(over="ignore"):
        k = moves.enumerate_options(t.A, t.P, row[None, :], 0, wreck.copy(), seat, dice, WB)
    assert k > 0, "the outcome buffers overflowed"
    ns = len(t.ship_owner)
    leaf, info = WB[moves.B_LEAF], WB[moves.B_INFO]
    return {
        (
            tuple(int(x) for x in leaf[j, :ns]),
            tuple(int(x) for x in leaf[j, ns : 2 * ns]),
            tuple(int(x) for x in leaf[j, 2 * ns :]),
            int(info[j, moves.L_USED]),
        )
        for j in range(k)
    }


def after_step(t, pos, seat, step) -> tuple[np.ndarray, int]:
    """``(position row after the engine's step, won)``; ``step`` as :func:`engine_steps` gives."""
    row, wreck = pos
    S = np.zeros((2, t.width), dtype=np.int64)
    S[0] = row
    steps = np.array(step, dtype=np.int64).reshape(1, 1, moves.S_LEN)
    Z = t.A[packed.A_ZOBRIST]
    with np.errstate(over="ignore"):
        h = moves.zobrist(t.P, Z, S, 0)
        won, _ = moves.apply_step(t.P, Z, S, 0, 1, seat, steps, 0, 0, h, wreck.copy())
    return S[1].copy(), int(won)


# --------------------------------------------------------------------------- the move oracle


class State(NamedTuple):
    ship_node: tuple[int, ...]  # -1 once sunk
    carrying: tuple[int, ...]  # treasure aboard, -1 none
    treasure_island: tuple[int, ...]  # island where it lies, -1 aboard
    wrecks: frozenset


def state_of(t, pos) -> State:
    row, wreck = pos
    ns = len(t.ship_owner)
    r = tuple(int(x) for x in row)
    return State(r[:ns], r[ns : 2 * ns], r[2 * ns :], frozenset(np.flatnonzero(wreck).tolist()))


@cache
def _legs(rules):
    from simulator.hunt.board import parse_board

    board = parse_board(rules.board)
    m = rules.movement
    maxl = rules.die_sides * m.sum_dice
    return compute_legs(board, maxl, m.carrier_rule, m.trade_wind_orthogonal)


def _units(t, st, seat):
    """Each ship of ``seat`` alone (identical ships of a stack once), and each fleet whole."""
    out, seen = [], set()
    for s in t.seat_ships[seat]:
        n = st.ship_node[s]
        if n < 0 or n in seen:
            continue
        seen.add(n)
        stack = tuple(x for x in t.seat_ships[seat] if st.ship_node[x] == n)
        kinds = {}
        for x in stack:
            kinds.setdefault((t.ship_home[x], st.carrying[x]), (x,))
        out.extend(kinds.values())
        if len(stack) > 1 and t.rules.fleet.enabled:
            out.append(stack)
    return out


def _leg_allowed(t, st, seat, leg, carrier_bit):
    owner = t.ship_owner
    if carrier_bit and not leg.carrier_ok & carrier_bit:
        return False
    occ = {n: owner[s] for s, n in enumerate(st.ship_node) if n >= 0}
    for n in leg.inter:
        if n in st.wrecks or (n in occ and (occ[n] != seat or not t.rules.movement.pass_own_ships)):
            return False
    ends_own = occ.get(leg.dest) == seat and not t.rules.fleet.enabled
    return leg.dest not in st.wrecks and not ends_own


def _home_square(t, nodes, wrecks, ship):
    port = t.ship_home[ship]
    for sq in (t.board.anchor_node[port], *t.board.berth_nodes[port]):
        others = {t.ship_owner[x] for x, n in enumerate(nodes) if n == sq and x != ship}
        if sq not in wrecks and others <= {t.ship_owner[ship]}:
            return sq
    return -1


def _apply(t, st, seat, unit, dest, load):
    nodes, cargo, places = list(st.ship_node), list(st.carrying), list(st.treasure_island)
    victims = [s for s, n in enumerate(nodes) if n == dest and t.ship_owner[s] != seat]
    survivors = []
    if len(victims) > 1 and t.rules.fleet.sink == "one":
        victims.sort(key=lambda s: (cargo[s] < 0, s))
        victims, survivors = victims[:1], victims[1:]
    for v in victims:
        nodes[v] = -1
        if cargo[v] >= 0:
            taker = next((m for m in unit if cargo[m] < 0), None)
            if taker is None:
                places[cargo[v]] = cargo[v]
            else:
                cargo[taker] = cargo[v]
            cargo[v] = -1
    wrecks = st.wrecks | ({dest} if victims and t.rules.shipwreck.enabled else set())
    for m in unit:
        nodes[m] = dest
    for v in survivors:
        nodes[v] = _home_square(t, nodes, wrecks, v)
        if cargo[v] >= 0:
            places[cargo[v]], cargo[v] = cargo[v], -1
    if load:
        isl = t.board.anchorage_island[dest]
        cargo[next(m for m in unit if cargo[m] < 0)], places[isl] = isl, -1
    return State(tuple(nodes), tuple(cargo), tuple(places), wrecks)


def _won(t, st, seat):
    afloat = [s for s, n in enumerate(st.ship_node) if n >= 0]
    if any(st.carrying[s] >= 0 and st.ship_node[s] == t.board.anchor_node[t.ship_home[s]]
           for s in afloat if t.ship_owner[s] == seat):  # fmt: skip
        return True
    owners = {t.ship_owner[s] for s in afloat}
    return owners == {seat}


def oracle_steps(t, st, seat, dice):
    """``(unit, dice used, dest, load, dice left)`` for every legal leg."""
    single, sum_ = _legs(t.rules)
    for unit in _units(t, st, seat):
        node = st.ship_node[unit[0]]
        cbit = 0  # a fleet with a carrier obeys its direction rule (the last carrier's)
        for s in unit:
            cbit = 1 << t.ship_home[s] if st.carrying[s] >= 0 else cbit
        free = any(st.carrying[s] < 0 for s in unit)
        options = [((i,), single[node][dice[i]]) for i in range(len(dice))]
        options += [
            ((i, j), sum_[node][dice[i] + dice[j]])
            for i in range(len(dice))
            for j in range(i + 1, len(dice))
        ]
        for used, legs in options:
            left = tuple(d for k, d in enumerate(dice) if k not in used)
            for terrain in legs:
                if not _leg_allowed(t, st, seat, terrain, cbit):
                    continue
                dest = terrain.dest
                yield unit, used, dest, False, left
                isl = t.board.anchorage_island.get(dest, -1)
                loadable = isl < t.num_treasures and st.treasure_island[isl] == isl
                if free and t.board.kind[dest] == ANCHORAGE and loadable:
                    yield unit, used, dest, True, left


def oracle_outcomes(t, pos, seat, dice) -> set:
    """Every distinct legal outcome of ``dice`` by brute force, as :func:`engine_outcomes`."""
    leaves: dict = {}
    visited = set()
    n = len(dice)

    def walk(st, left, used):
        if (st, left) in visited:
            return
        visited.add((st, left))
        moved = False
        for unit, _used, dest, load, rest in oracle_steps(t, st, seat, left):
            moved = True
            new = _apply(t, st, seat, unit, dest, load)
            if _won(t, new, seat):
                leaves[new[:3]] = n + 1
            else:
                walk(new, rest, used + len(left) - len(rest))
        if not moved and leaves.get(st[:3], -1) < used:
            leaves[st[:3]] = used

    walk(state_of(t, pos), tuple(sorted(dice)), 0)
    best = max((u for u in leaves.values() if u <= n), default=0)
    return {(*k, u) for k, u in leaves.items() if u == best or u == n + 1}


def leg(t, pos, ship, dest_rc, load=False, fleet=False) -> tuple:
    """A step moving ``ship`` (with its fleet) to ``dest_rc``, as :func:`engine_steps` gives it
    (the dice mask is not read by :func:`after_step`)."""
    row = pos[0]
    dest = N(t, *dest_rc)
    seat = t.ship_owner[ship]
    boards = any(row[s] == dest and t.ship_owner[s] != seat for s in range(len(t.ship_owner)))
    return (int(fleet), ship, int(row[ship]), dest, 1, int(load), int(boards))


def invariant_broken(t, pos, before=None) -> int:
    """The engine's invariant check of ``pos`` after ``before`` (default: itself): 0 or the
    number of the first invariant broken."""
    from simulator.hunt import game

    row, wreck = pos
    prev_row, prev_wreck = pos if before is None else before
    return int(game.check_state(t.P, np.stack([row, prev_row]), wreck, prev_wreck))


class SplitMixDice:
    """The engine's dice stream (:mod:`simulator.hunt.rng`, SplitMix64) in pure Python."""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int, sides: int = 6):
        self.state, self.sides = int(seed) & self.MASK, sides

    def _next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def roll(self, k: int) -> tuple[int, ...]:
        return tuple(
            1 + int(((self._next() >> 11) * (1.0 / 9007199254740992.0)) * self.sides)
            for _ in range(k)
        )


def lone_reach(t, node, dice) -> set:
    """Every node a lone ship of seat 0 on ``node`` can end on with ``dice`` (any subset, any
    order), by the oracle's move generator (no other ship, no wreck, no treasure to load)."""
    out, todo, seen = set(), [(node, tuple(sorted(dice)))], set()
    empty = np.zeros(t.board.num_nodes, dtype=np.int64)
    while todo:
        n, left = todo.pop()
        if (n, left) in seen:
            continue
        seen.add((n, left))
        out.add(n)
        row = np.full(t.width, -1, dtype=np.int64)
        row[0] = n
        st = state_of(t, (row, empty))
        todo += [(dest, tuple(sorted(rest))) for *_, dest, _, rest in oracle_steps(t, st, 0, left)]
    return out
