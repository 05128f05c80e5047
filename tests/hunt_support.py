"""Helpers shared by the Les Pirates tests (no tests here): constructed positions and the
compiled engine's view of them."""

from __future__ import annotations

import numpy as np

from simulator.hunt.fast import moves as fast_moves
from simulator.hunt.fast import packed
from simulator.hunt.moves import State


def N(t, r, c):
    """The node of square (r, c)."""
    return t.board.cell_node[(r, c)]


def position(t, ships: dict, carrying: dict | None = None, treasure_on_island=True, wrecks=()):
    """``ships``: ship -> (row, col), every other ship sunk; ``carrying``: ship -> treasure."""
    node = [-1] * len(t.ship_owner)
    for s, rc in ships.items():
        node[s] = N(t, *rc)
    carry = [-1] * len(t.ship_owner)
    for s, k in (carrying or {}).items():
        carry[s] = k
    treasure = list(range(t.num_treasures))
    if carrying or not treasure_on_island:
        for k in carry:
            if k >= 0:
                treasure[k] = -1
        if not carrying:
            treasure = [-1] * t.num_treasures
    return State(tuple(node), tuple(carry), tuple(treasure), frozenset(N(t, *w) for w in wrecks))


def compiled_outcomes(t, rules, st: State, seat: int, dice) -> set:
    """The compiled engine's distinct outcomes of ``dice``: (ship_node, carrying, treasures,
    dice used) tuples (dice used is len(dice) + 1 for a win), as ``python_outcomes`` gives."""
    A, P = packed.pack(t, rules)
    WB = fast_moves.work_buffers(len(t.ship_owner), max(t.num_treasures, 1), t.board.num_nodes)
    node, carry, tre, wreck = packed.initial_arrays(t, st)
    for n in st.wrecks:
        wreck[n] = 1
    dice = np.array(sorted(dice), dtype=np.int64)
    k = fast_moves.enumerate_options(A, P, node, carry, tre, wreck, seat, dice, WB)
    assert WB[fast_moves.B_FLAGS][0] == 0, "leaf buffers overflowed"
    return {
        (
            *(tuple(int(x) for x in a) for a in fast_moves.leaf_state(WB, len(t.ship_owner), j)),
            int(WB[fast_moves.B_LEAF_INFO][j, fast_moves.L_USED]),
        )
        for j in range(k)
    }


def python_outcomes(t, st: State, seat: int, dice) -> set:
    """The readable engine's distinct outcomes, in the form of :func:`compiled_outcomes`."""
    from simulator.hunt.moves import turn_options

    n = len(dice)
    return {
        (
            o.state.ship_node,
            o.state.carrying,
            o.state.treasure_island,
            n + 1 if o.won else o.dice_used,
        )
        for o in turn_options(t, st, seat, tuple(sorted(dice)))
    }


class SplitMixDice:
    """Stands in for the dice generator of the readable engine: the compiled engine's SplitMix64
    stream (:mod:`simulator.hunt.fast.rng`) in pure Python, so both engines roll the same dice."""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int):
        self.state = int(seed) & self.MASK

    def _next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def integers(self, lo, hi, size):
        n = hi - lo
        return np.array(
            [lo + int(((self._next() >> 11) * (1.0 / 9007199254740992.0)) * n) for _ in range(size)]
        )
