"""Planning tables of Les Pirates: distances under the real movement rules, for the planner.

Step distances (:func:`simulator.hunt.board.bfs`) ignore that trade winds and straits are entered
only by the exact sum of two dice, that a strait is left by single legs, and that a carrier may
not sail away from its home side (rules, *Movement*). These tables use the engine's own legs
(``P_AT_LEG_*``), per roll of the scenario's dice, for a lone ship (other ships and wrecks
ignored: a plan, not a move): ``reach[r, n]`` the nodes a ship on ``n`` can end on with roll
``r`` (bit sets; staying put included, since the other dice can move other ships), with
``rolls[r]`` the distinct sorted rolls and ``roll_p[r]`` their exact probabilities;
``carry_turns[port, n]`` the least expected rolls of a carrier home; ``fetch_turns[port, island,
n]`` of a free ship to load the island's treasure and carry it home (the carry counted from the
next roll); ``roll_dist[a, b]`` the fewest rolls when the dice cooperate (-1: never). A goal that
cannot be reached counts :data:`NEVER` rolls (with ``carrier_rule = "anchor"`` a carrier of port
1 on (0,10) can never get home: leaving west needs a leg over the strait (0,9)).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import factorial, prod

import numpy as np
from numba import njit

from simulator.hunt import packed as pk

#: expected rolls recorded for a goal that cannot be reached
NEVER = 99.0


@dataclass(frozen=True, slots=True, eq=False)
class PlanTables:
    """Planning tables for one rule set and player count (see the module docstring)."""

    rolls: np.ndarray  # int64 [roll, die], sorted faces
    roll_p: np.ndarray  # float64 [roll] probability of the roll
    reach: np.ndarray  # uint64 [roll, node, word] bit sets of the nodes reachable with the roll
    carry_turns: np.ndarray  # float64 [port, node] expected rolls of a carrier to its anchor
    fetch_turns: np.ndarray  # float64 [port, island, node] expected rolls to fetch and carry home
    roll_dist: np.ndarray  # int16 [node, node] fewest rolls (-1: never)


def dice_rolls(num_dice: int, sides: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct sorted rolls of ``num_dice`` dice and their exact probabilities."""
    rolls = list(combinations_with_replacement(range(1, sides + 1), num_dice))
    total = sides**num_dice
    probs = []
    for roll in rolls:
        ways = factorial(num_dice) // prod(factorial(k) for k in Counter(roll).values())
        probs.append(ways / total)
    return np.array(rolls, dtype=np.int64).reshape(len(rolls), num_dice), np.array(probs)


def dice_multisets(num_dice: int, sides: int):
    """Every multiset of at most ``num_dice`` faces, by size: ``(sets, index, size, remove,
    remove_pair)`` as :func:`reach_sets` takes them."""
    sets = [
        m
        for k in range(num_dice + 1)
        for m in combinations_with_replacement(range(1, sides + 1), k)
    ]
    index = {m: i for i, m in enumerate(sets)}
    remove = np.full((len(sets), sides + 1), -1, dtype=np.int64)
    remove_pair = np.full((len(sets), sides + 1, sides + 1), -1, dtype=np.int64)
    for i, m in enumerate(sets):
        for v in set(m):
            rest = list(m)
            rest.remove(v)
            remove[i, v] = index[tuple(rest)]
            for w in set(rest):
                if w >= v:
                    rest2 = list(rest)
                    rest2.remove(w)
                    remove_pair[i, v, w] = index[tuple(rest2)]
    size = np.array([len(m) for m in sets], dtype=np.int64)
    return sets, index, size, remove, remove_pair


@njit(cache=True, inline="always")
def _join_leg_reach(P, out, mset, n, kind, length, rest, cbit):
    """``out[mset, n] |= out[rest, dest]`` for every leg of ``kind`` and ``length`` from ``n``
    (carrier legs of home-port bit ``cbit`` only, when ``cbit`` != 0)."""
    base = P[pk.P_AT_LEG_PTR] + (n * 2 + kind) * (P[pk.P_MAXL] + 1) + length
    for li in range(P[base], P[base + 1]):
        if cbit != 0 and (P[P[pk.P_AT_LEG_CARRIER] + li] & cbit) == 0:
            continue
        d = P[P[pk.P_AT_LEG_DEST] + li]
        for w in range(out.shape[2]):
            out[mset, n, w] |= out[rest, d, w]


@njit(cache=True)
def reach_sets(P, remove, remove_pair, size, cbit, out):
    """Fill ``out[M, n, word]`` (uint64 bit sets) for every multiset of dice ``M`` and node ``n``.

    Multisets are numbered in order of size (``size[M]``; 0 is the empty one);
    ``remove[M, v]`` is ``M`` without one die of value ``v`` (-1 when ``M`` has none) and
    ``remove_pair[M, v, w]`` without a ``v`` and a ``w`` (``v <= w``). A ship on ``n`` with the
    dice ``M`` can stay, or sail one single leg of a die ``v`` (or one sum leg of two dice) and go
    on from there with the dice left:
    ``reach(n, M) = {n} | reach(dest, M - v) ... | reach(dest, M - v - w) ...``.
    ``cbit`` != 0 keeps only legs whose carrier mask has that bit (a treasure carrier of that
    home port); 0 allows every leg.
    """
    n_sets, sides = remove.shape[0], remove.shape[1] - 1
    maxl = P[pk.P_MAXL]
    one = np.uint64(1)
    for mset in range(n_sets):  # by increasing size: the smaller multisets are done
        for n in range(P[pk.P_NNODES]):
            out[mset, n, :] = 0
            out[mset, n, n >> 6] |= one << np.uint64(n & 63)
            if size[mset] == 0:
                continue
            for v in range(1, sides + 1):
                if remove[mset, v] < 0:
                    continue
                _join_leg_reach(P, out, mset, n, 0, v, remove[mset, v], cbit)
                for v2 in range(v, sides + 1):
                    if remove_pair[mset, v, v2] >= 0 and v + v2 <= maxl:
                        _join_leg_reach(P, out, mset, n, 1, v + v2, remove_pair[mset, v, v2], cbit)


@njit(cache=True)
def _reverse_pass(reach, start, pairs, fill):
    """One pass of :func:`reverse_index`: count (``fill`` empty) or place the pairs (``fill[m]``
    the next free entry of node ``m``). An empty array rather than None, so both passes have
    one signature (one compile)."""
    n_rolls, n_nodes, n_words = reach.shape
    counting = fill.shape[0] == 0
    for r in range(n_rolls):
        for n in range(n_nodes):
            for w in range(n_words):
                bits = reach[r, n, w]
                for k in range(64):
                    if bits == 0:
                        break
                    hit = (bits & np.uint64(1)) != 0
                    bits >>= np.uint64(1)
                    m = w * 64 + k
                    if not hit or m == n:
                        continue
                    if counting:
                        start[m + 1] += 1
                    else:
                        pairs[fill[m]] = n * n_rolls + r
                        fill[m] += 1


@njit(cache=True)
def reverse_index(reach):
    """``(start, pairs)``: for node ``m``, ``pairs[start[m]:start[m + 1]]`` lists every
    ``n * n_rolls + r`` whose reach set holds ``m`` (``n != m``)."""
    n_nodes = reach.shape[1]
    start = np.zeros(n_nodes + 1, dtype=np.int64)
    pairs = np.empty(0, dtype=np.int64)
    _reverse_pass(reach, start, pairs, np.empty(0, dtype=np.int64))
    for m in range(n_nodes):
        start[m + 1] += start[m]
    pairs = np.empty(start[n_nodes], dtype=np.int64)
    _reverse_pass(reach, start, pairs, start[:-1].copy())
    return start, pairs


@njit(cache=True)
def expected_turns(start, pairs, n_rolls, probs, terminal, out):
    """``out[n]``: least expected rolls from ``n`` until the ship ends a roll's move on a node
    ``g`` with finite ``terminal[g]``, plus that ``terminal[g]`` (0 for a plain goal, or what is
    still to come from there); inf where no goal can be reached. ``start, pairs`` is the
    :func:`reverse_index` of the reach sets.

    The value of ``n`` solves ``x = 1 + sum_r p_r min(x, b_r)`` where ``b_r`` is the least value
    roll ``r`` reaches (staying: ``x``). Staying put is always allowed, so the best plan only
    moves to nodes of smaller value, and nodes are finalised in increasing order of value as in
    Dijkstra's algorithm: each ``b_r`` is set once, by the first reached node finalised, and
    arrives in increasing order, so a roll helps (and lowers ``x``) exactly when its ``b_r < x``
    at its arrival.
    """
    n_nodes = terminal.shape[0]
    got = np.zeros(n_nodes * n_rolls, dtype=np.uint8)
    sp = np.zeros(n_nodes)
    spb = np.zeros(n_nodes)
    x = np.full(n_nodes, np.inf)
    tent = terminal.copy()
    final = np.zeros(n_nodes, dtype=np.uint8)
    out[:] = np.inf
    for _ in range(n_nodes):
        m = -1
        v = np.inf
        for n in range(n_nodes):
            if final[n] == 0 and tent[n] < v:
                v = tent[n]
                m = n
        if m < 0:
            break
        final[m] = 1
        out[m] = v
        for k in range(start[m], start[m + 1]):
            e = pairs[k]
            n = e // n_rolls
            if final[n] or got[e]:
                continue
            got[e] = 1
            if v < x[n]:
                p = probs[e - n * n_rolls]
                sp[n] += p
                spb[n] += p * v
                x[n] = (1.0 + spb[n]) / sp[n]
                if x[n] < tent[n]:
                    tent[n] = x[n]


@njit(cache=True)
def roll_distances(reach, out):
    """``out[a, b]``: fewest rolls for a lone ship from ``a`` to end on ``b`` (-1: never), by
    breadth-first search over the union of the reach sets."""
    n_rolls, n_nodes, n_words = reach.shape
    adj = np.zeros((n_nodes, n_words), dtype=np.uint64)
    for r in range(n_rolls):
        for n in range(n_nodes):
            for w in range(n_words):
                adj[n, w] |= reach[r, n, w]
    seen = np.zeros(n_words, dtype=np.uint64)
    frontier = np.zeros(n_words, dtype=np.uint64)
    nxt = np.zeros(n_words, dtype=np.uint64)
    one = np.uint64(1)
    for a in range(n_nodes):
        out[a, :] = -1
        out[a, a] = 0
        seen[:] = 0
        frontier[:] = 0
        seen[a >> 6] |= one << np.uint64(a & 63)
        frontier[a >> 6] |= one << np.uint64(a & 63)
        level = 0
        grew = True
        while grew:
            level += 1
            nxt[:] = 0
            for n in range(n_nodes):
                if (frontier[n >> 6] >> np.uint64(n & 63)) & one:
                    for w in range(n_words):
                        nxt[w] |= adj[n, w]
            grew = False
            for w in range(n_words):
                nxt[w] &= ~seen[w]
                grew = grew or nxt[w] != 0
                seen[w] |= nxt[w]
                frontier[w] = nxt[w]
            for m in range(n_nodes):
                if (nxt[m >> 6] >> np.uint64(m & 63)) & one:
                    out[a, m] = level


def _reach(P, multisets, roll_ids, cbit):
    _sets, _index, size, remove, remove_pair = multisets
    n_nodes = int(P[pk.P_NNODES])
    out = np.zeros((len(size), n_nodes, (n_nodes + 63) // 64), dtype=np.uint64)
    reach_sets(P, remove, remove_pair, size, cbit, out)
    return np.ascontiguousarray(out[roll_ids])


def build_plan(P, board, rules, seat_ports) -> PlanTables:
    """The planning tables of the packed legs ``P`` on ``board`` under ``rules``. Carrier tables
    are built for the ports of the seats in play (other ports: :data:`NEVER`)."""
    n_nodes = board.num_nodes
    rolls, probs = dice_rolls(int(P[pk.P_NDICE]), rules.die_sides)
    multisets = dice_multisets(int(P[pk.P_NDICE]), rules.die_sides)
    roll_ids = np.array([multisets[1][tuple(r)] for r in rolls.tolist()], dtype=np.int64)
    reach = _reach(P, multisets, roll_ids, 0)
    start, pairs = reverse_index(reach)
    carry = np.full((len(board.anchor_node), n_nodes), np.inf)
    fetch = np.full((len(board.anchor_node), len(board.islands), n_nodes), np.inf)
    for port in sorted({p for ports in seat_ports for p in ports}):
        c_start, c_pairs = reverse_index(_reach(P, multisets, roll_ids, 1 << port))
        goal = np.full(n_nodes, np.inf)
        goal[board.anchor_node[port]] = 0.0
        expected_turns(c_start, c_pairs, len(rolls), probs, goal, carry[port])
        for island, anchorages in enumerate(board.island_anchorages):
            load = np.full(n_nodes, np.inf)
            for a in anchorages:
                load[a] = carry[port, a]
            expected_turns(start, pairs, len(rolls), probs, load, fetch[port, island])
    roll_dist = np.empty((n_nodes, n_nodes), dtype=np.int16)
    roll_distances(reach, roll_dist)
    carry[np.isinf(carry)] = NEVER
    fetch[np.isinf(fetch)] = NEVER
    return PlanTables(rolls, probs, reach, carry, fetch, roll_dist)
