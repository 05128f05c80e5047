"""Planning tables, compiled: what a lone ship can do with one roll, and expected turns to a goal.

These are precomputations over the board for the ``planner`` players (readable
:class:`simulator.hunt.players.Planner` and compiled :func:`simulator.hunt.fast.players.score`);
:func:`simulator.hunt.plan.build_plan` calls them. They use the terrain-legal leg tables of
:func:`simulator.hunt.board.compute_legs` (packed by :func:`simulator.hunt.fast.packed.pack_legs`),
so the exact-count and sum rules of trade winds and straits, strait switching and the carrier's
direction rule are the engine's own; other ships and wrecks are ignored (a plan, not a move).

* :func:`reach_sets`: ``reach[M, n]`` is the bit set of nodes a lone ship on ``n`` can end on
  with the dice ``M`` (a multiset), using any of them in any order (single legs of one die, sum
  legs of two), staying put included (the other dice can move other ships).
* :func:`expected_turns`: the least expected number of rolls to end on a goal node from every
  node (a stochastic shortest path, solved exactly by label setting: staying put is always
  allowed, so the best plan only moves to nodes of smaller value, and nodes can be finalised in
  increasing order of value as in Dijkstra's algorithm).
* :func:`roll_distances`: the fewest rolls between two nodes when the dice cooperate.
"""

from __future__ import annotations

import numpy as np
from numba import njit

INF = np.inf


@njit(cache=True)
def reach_sets(ptr, ldest, lcmask, n_nodes, maxl, remove, remove_pair, size, cbit, out):
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
    n_words = out.shape[2]
    one = np.uint64(1)
    for mset in range(n_sets):  # by increasing size: the smaller multisets are done
        for n in range(n_nodes):
            for w in range(n_words):
                out[mset, n, w] = np.uint64(0)
            out[mset, n, n >> 6] |= one << np.uint64(n & 63)
            if size[mset] == 0:
                continue
            for v in range(1, sides + 1):
                rest = remove[mset, v]
                if rest < 0:
                    continue
                base = (n * 2 + 0) * (maxl + 1) + v
                for li in range(ptr[base], ptr[base + 1]):
                    if cbit != 0 and (lcmask[li] & cbit) == 0:
                        continue
                    d = ldest[li]
                    for w in range(n_words):
                        out[mset, n, w] |= out[rest, d, w]
                for v2 in range(v, sides + 1):
                    rest2 = remove_pair[mset, v, v2]
                    if rest2 < 0 or v + v2 > maxl:
                        continue
                    base = (n * 2 + 1) * (maxl + 1) + v + v2
                    for li in range(ptr[base], ptr[base + 1]):
                        if cbit != 0 and (lcmask[li] & cbit) == 0:
                            continue
                        d = ldest[li]
                        for w in range(n_words):
                            out[mset, n, w] |= out[rest2, d, w]


@njit(cache=True)
def reverse_index(reach):
    """``(start, pairs)``: for node ``m``, ``pairs[start[m]:start[m + 1]]`` lists every
    ``n * n_rolls + r`` whose reach set holds ``m`` (``n != m``)."""
    n_rolls, n_nodes, n_words = reach.shape
    start = np.zeros(n_nodes + 1, dtype=np.int64)
    for r in range(n_rolls):
        for n in range(n_nodes):
            for w in range(n_words):
                bits = reach[r, n, w]
                for k in range(64):
                    if bits == 0:
                        break
                    if (bits & np.uint64(1)) == 0:
                        bits >>= np.uint64(1)
                        continue
                    bits >>= np.uint64(1)
                    m = w * 64 + k
                    if m != n:
                        start[m + 1] += 1
    for m in range(n_nodes):
        start[m + 1] += start[m]
    fill = start[:-1].copy()
    pairs = np.empty(start[n_nodes], dtype=np.int64)
    for r in range(n_rolls):
        for n in range(n_nodes):
            for w in range(n_words):
                bits = reach[r, n, w]
                for k in range(64):
                    if bits == 0:
                        break
                    if (bits & np.uint64(1)) == 0:
                        bits >>= np.uint64(1)
                        continue
                    bits >>= np.uint64(1)
                    m = w * 64 + k
                    if m != n:
                        pairs[fill[m]] = n * n_rolls + r
                        fill[m] += 1
    return start, pairs


@njit(cache=True)
def expected_turns(start, pairs, n_rolls, probs, terminal, out):
    """``out[n]``: least expected rolls from ``n`` until the ship ends a roll's move on a node
    ``g`` with finite ``terminal[g]``, plus that ``terminal[g]`` (0 for a plain goal, or what is
    still to come from there); inf where no goal can be reached. ``start, pairs`` is the
    :func:`reverse_index` of the reach sets.

    The value of ``n`` solves ``x = 1 + sum_r p_r min(x, b_r)`` where ``b_r`` is the least value
    roll ``r`` reaches (staying: ``x``). Nodes are finalised in increasing order of value, so
    each ``b_r`` is set once, by the first reached node finalised, and arrives in increasing
    order: a roll helps (and lowers ``x``) exactly when its ``b_r < x`` at its arrival.
    """
    n_nodes = terminal.shape[0]
    got = np.zeros(n_nodes * n_rolls, dtype=np.uint8)
    sp = np.zeros(n_nodes)
    spb = np.zeros(n_nodes)
    x = np.full(n_nodes, INF)
    tent = terminal.copy()
    final = np.zeros(n_nodes, dtype=np.uint8)
    for n in range(n_nodes):
        out[n] = INF
    for _ in range(n_nodes):
        m = -1
        v = INF
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
    """``out[a, b]``: fewest rolls for a lone ship from ``a`` to end on ``b`` (-1: never)."""
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
        for b in range(n_nodes):
            out[a, b] = -1
        out[a, a] = 0
        seen[:] = 0
        frontier[:] = 0
        seen[a >> 6] |= one << np.uint64(a & 63)
        frontier[a >> 6] |= one << np.uint64(a & 63)
        level = 0
        while True:
            level += 1
            nxt[:] = 0
            for n in range(n_nodes):
                if (frontier[n >> 6] >> np.uint64(n & 63)) & one:
                    for w in range(n_words):
                        nxt[w] |= adj[n, w]
            grew = False
            for w in range(n_words):
                nxt[w] &= ~seen[w]
                if nxt[w]:
                    grew = True
                seen[w] |= nxt[w]
            if not grew:
                break
            for m in range(n_nodes):
                if (nxt[m >> 6] >> np.uint64(m & 63)) & one:
                    out[a, m] = level
            for w in range(n_words):
                frontier[w] = nxt[w]
