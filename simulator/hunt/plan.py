"""Planning tables of Les Pirates: distances under the real movement rules, for the players.

Plain step distances (:func:`simulator.hunt.board.bfs`) ignore that trade winds and straits are
entered only by the exact count of the sum of two dice, that a strait is left by single legs,
and that a treasure carrier may not sail away from its home side. These tables are built from
the engine's own leg tables (:func:`simulator.hunt.board.compute_legs`), per roll of the
scenario's dice, for a lone ship (other ships and wrecks ignored: a plan, not a move):

* ``reach[r, n]``: the nodes a ship on ``n`` can end on with roll ``r`` (bit sets; any dice, in
  any order, single legs of one die or sum legs of two; staying put included, since the other
  dice can move other ships). ``rolls[r]`` are the distinct sorted rolls, ``roll_p[r]`` their
  probabilities (exact multinomial counts over ``die_sides ** dice``).
* ``carry_turns[port, n]``: least expected rolls for a treasure carrier of home port ``port``
  (carrier legs only) to reach its home anchor.
* ``fetch_turns[port, island, n]``: least expected rolls for a free ship of home port ``port`` to
  reach an anchorage of ``island``, load the treasure there and carry it home (the carry phase
  counted from the next roll).
* ``roll_dist[a, b]``: fewest rolls from ``a`` to ``b`` when the dice cooperate (-1: never).

A goal that cannot be reached from a square counts :data:`NEVER` rolls (with
``carrier_rule = "anchor"`` a carrier of port 1 on (0,10) can never get home: leaving west needs
a leg over the strait (0,9)).

Expected rolls solve a stochastic shortest path exactly (label setting, see
:mod:`simulator.hunt.fast.plan`); ``tests/test_hunt_plan.py`` checks the reach sets against the
readable move generator and the expected rolls against plain value iteration.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import factorial, prod

import numpy as np

from simulator.hunt.fast.packed import pack_legs

#: expected rolls recorded for a goal that cannot be reached
NEVER = 99.0


@dataclass(frozen=True, slots=True)
class PlanTables:
    """Planning tables for one rule set and player count (see the module docstring)."""

    rolls: np.ndarray  # int64 [roll, die], sorted faces
    roll_p: np.ndarray  # float64 [roll] probability of the roll
    reach: np.ndarray  # uint64 [roll, node, word] bit sets of the nodes reachable with the roll
    carry_turns: np.ndarray  # float64 [port, node] expected rolls of a carrier to its anchor
    fetch_turns: np.ndarray  # float64 [port, island, node] expected rolls to fetch and carry home
    roll_dist: np.ndarray  # int16 [node, node] fewest rolls (-1: never)

    def reaches(self, r: int, a: int, b: int) -> bool:
        """Can a lone ship on ``a`` end on ``b`` with roll ``r``?"""
        return bool((int(self.reach[r, a, b >> 6]) >> (b & 63)) & 1)


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
    """Every multiset of at most ``num_dice`` faces, by size: ``(sets, size, remove,
    remove_pair)`` as :func:`simulator.hunt.fast.plan.reach_sets` takes them."""
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


def _reach(legs, n_nodes, multisets, roll_ids, cbit):
    from simulator.hunt.fast import plan as compiled

    ptr, dests, cmask, _iptr, _inter, maxl = legs
    _sets, _index, size, remove, remove_pair = multisets
    out = np.zeros((len(size), n_nodes, (n_nodes + 63) // 64), dtype=np.uint64)
    compiled.reach_sets(ptr, dests, cmask, n_nodes, maxl, remove, remove_pair, size, cbit, out)
    return np.ascontiguousarray(out[roll_ids])


def build_plan(t, rules) -> PlanTables:
    """The planning tables of ``t`` (a :class:`~simulator.hunt.moves.Tables`) under ``rules``.

    Carrier tables are built for the ports of the seats in play (other ports: :data:`NEVER`).
    """
    from simulator.hunt.fast import plan as compiled

    b = t.board
    n_nodes = b.num_nodes
    n_dice = rules.num_dice + (rules.cyclone.extra_dice if rules.cyclone.enabled else 0)
    rolls, probs = dice_rolls(n_dice, rules.die_sides)
    multisets = dice_multisets(n_dice, rules.die_sides)
    roll_ids = np.array([multisets[1][tuple(r)] for r in rolls.tolist()], dtype=np.int64)
    legs = pack_legs(t)
    reach = _reach(legs, n_nodes, multisets, roll_ids, 0)
    start, pairs = compiled.reverse_index(reach)
    n_rolls = len(rolls)
    n_ports = len(b.anchor_node)
    carry = np.full((n_ports, n_nodes), np.inf)
    fetch = np.full((n_ports, len(b.islands), n_nodes), np.inf)
    for port in sorted({p for ports in t.seat_ports for p in ports}):
        carrier_reach = _reach(legs, n_nodes, multisets, roll_ids, 1 << port)
        c_start, c_pairs = compiled.reverse_index(carrier_reach)
        goal = np.full(n_nodes, np.inf)
        goal[b.anchor_node[port]] = 0.0
        compiled.expected_turns(c_start, c_pairs, n_rolls, probs, goal, carry[port])
        for island, anchorages in enumerate(b.island_anchorages):
            load = np.full(n_nodes, np.inf)
            for a in anchorages:
                load[a] = carry[port, a]
            compiled.expected_turns(start, pairs, n_rolls, probs, load, fetch[port, island])
    roll_dist = np.empty((n_nodes, n_nodes), dtype=np.int16)
    compiled.roll_distances(reach, roll_dist)
    carry[np.isinf(carry)] = NEVER
    fetch[np.isinf(fetch)] = NEVER
    return PlanTables(rolls, probs, reach, carry, fetch, roll_dist)
