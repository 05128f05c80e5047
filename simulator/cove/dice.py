"""The full game's chance source: buffered d6 rolls and shuffles, optionally recorded or replayed.

Every random outcome of a Pirate's Cove game (Treasure and Tavern shuffles, Legendary Pirate
deck, battle dice, tie-breaking speed rolls, the Treasure map die, Cacafuego's fame die, mutiny
rolls) goes through one :class:`GameDice`. It draws from the single ``np.random.Generator`` given
to the game, in blocks (one numpy call per 256 dice, which is what makes a scalar game fast).

Golden playthroughs record the faces and permutations produced (``record=True``);
:class:`ReplayDice` feeds them back so a recorded game is replayed exactly without any generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_BLOCK = 256


class DiceExhausted(RuntimeError):
    """A replayed game asked for more dice than were recorded (the engine's behaviour changed)."""


class GameDice:
    """d6 rolls and permutations drawn from one generator, in blocks."""

    __slots__ = ("_arr", "_buf", "_i", "faces", "perms", "record", "rng")

    def __init__(self, rng: np.random.Generator, record: bool = False):
        self.rng = rng
        self._arr: np.ndarray | None = None  # the current block as drawn (int64)
        self._buf: list[int] = []  # the same block as Python ints (scalar rolls)
        self._i = 0
        self.record = record
        self.faces: list[int] = []  # every d6 face, in order (when recording)
        self.perms: list[list[int]] = []  # every permutation, in order (when recording)

    def d6(self) -> int:
        """One d6 face, 1..6."""
        if self._i >= len(self._buf):
            self._arr = self.rng.integers(1, 7, size=_BLOCK, dtype=np.int64)
            self._buf = self._arr.tolist()
            self._i = 0
        v = self._buf[self._i]
        self._i += 1
        if self.record:
            self.faces.append(v)
        return v

    def roll(self, n: int) -> list[int]:
        """``n`` d6 faces."""
        return [self.d6() for _ in range(n)]

    def roll_array(self, n: int) -> np.ndarray:
        """``n`` d6 faces as an int64 array: the same faces as ``n`` calls of :meth:`d6` (a copy
        of the block's slice when the block holds them all)."""
        i = self._i
        if self._arr is not None and n > 0 and i + n <= len(self._buf):
            self._i = i + n
            if self.record:
                self.faces += self._buf[i : i + n]
            return self._arr[i : i + n].copy()
        return np.array([self.d6() for _ in range(n)], dtype=np.int64)

    def die(self, sides: int) -> int:
        """One die of ``sides`` faces (d6 uses the buffer; others a permutation's first item)."""
        if sides == 6:
            return self.d6()
        return self.permutation(sides)[0] + 1

    def permutation(self, n: int) -> list[int]:
        """A uniform permutation of ``range(n)``."""
        if n <= 1:
            return list(range(n))
        perm = self.rng.permutation(n).tolist()
        if self.record:
            self.perms.append(perm)
        return perm

    def shuffle(self, items: list[Any]) -> None:
        """Shuffle ``items`` in place."""
        if len(items) > 1:
            perm = self.permutation(len(items))
            items[:] = [items[i] for i in perm]


class ReplayDice(GameDice):
    """Feeds back recorded faces and permutations; raises :class:`DiceExhausted` past the end."""

    __slots__ = ("_faces", "_fi", "_perms", "_pi")

    def __init__(self, faces: list[int], perms: list[list[int]]):
        super().__init__(rng=None, record=False)  # type: ignore[arg-type]
        self._faces = list(faces)
        self._perms = [list(p) for p in perms]
        self._fi = 0
        self._pi = 0

    def d6(self) -> int:
        if self._fi >= len(self._faces):
            raise DiceExhausted(f"replay needs more than the {len(self._faces)} recorded dice")
        v = self._faces[self._fi]
        self._fi += 1
        return v

    def permutation(self, n: int) -> list[int]:
        if n <= 1:
            return list(range(n))
        if self._pi >= len(self._perms):
            raise DiceExhausted(f"replay needs more than the {len(self._perms)} recorded shuffles")
        p = self._perms[self._pi]
        self._pi += 1
        if len(p) != n:
            raise DiceExhausted(f"recorded shuffle of {len(p)} items, replay asks for {n}")
        return p

    @property
    def fully_used(self) -> bool:
        return self._fi == len(self._faces) and self._pi == len(self._perms)
