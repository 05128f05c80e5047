"""Shared helpers for the Pirate's Cove combat tests (no tests here): a scripted die source."""

from __future__ import annotations

import numpy as np


class ScriptedDice:
    """Stands in for ``np.random.Generator`` in the scalar engine: d6 results from a script."""

    def __init__(self, faces):
        self.faces = list(faces)
        self.used = 0

    def integers(self, low, high=None, size=None, dtype=np.int64):
        assert (low, high) == (1, 7), (low, high)
        n = 1 if size is None else int(size)
        if self.used + n > len(self.faces):
            raise AssertionError(f"script exhausted: wanted {n} more dice after {self.used}")
        out = np.array(self.faces[self.used : self.used + n], dtype=np.int64)
        self.used += n
        return out if size is not None else out[0]

    def done(self) -> bool:
        return self.used == len(self.faces)
