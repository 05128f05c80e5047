"""The record of the hand-written commanders' battles (``tests/data/express_legacy_golden.json``).

``gunline``, ``boarder``, ``skirmisher`` and ``random`` play every ordered pair, in the three
scenarios, 200 battles each on fixed seeds; the record keeps each cell's wins, losses, draws, VP
and turns. ``tests/test_express_commanders.py::test_legacy_commanders_play_as_recorded`` replays
it, so any change to how these commanders play or to the rules they play under shows as a diff.
Regenerate it only on purpose (and explain the diff in the commit)::

    python tests/express_golden.py

History: recorded before the admiral (issue 14); regenerated when the commanders stopped seeing
the enemy's hidden crews (issue 27: ``gunline`` and ``boarder`` cells changed) and when the convoy
scenario got its own geometry (issue 27: every convoy cell changed).
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from any folder
    sys.path.insert(0, str(ROOT))

from simulator.express import api, battle  # noqa: E402
from simulator.express.commanders import Boarder, Gunline, RandomCommander, Skirmisher  # noqa: E402

PATH = ROOT / "tests" / "data" / "express_legacy_golden.json"
N = 200
SEED = 20261201
FLEET = "viking:5,3,2,1,1 captain@0 gunner@1 carpenter@2 helmsman@3"
LEGACY = {
    "gunline": Gunline(),
    "boarder": Boarder(),
    "skirmisher": Skirmisher(),
    "random": RandomCommander(),
}
SCENARIOS = ("pitched", "treasure", "convoy")


def cells(rules=None) -> list[dict]:
    """Every cell of the record, played now with the standard rules (or ``rules``)."""
    rules = rules or api.load(None).rules
    f = api.as_fleet(FLEET, rules)
    out = []
    pairs = itertools.product(LEGACY.items(), LEGACY.items())
    for k, ((a, ca), (b, cb)) in enumerate(pairs):
        for sn in SCENARIOS:
            rows = api.play_pairing(api.make_pairing(f, f, rules, (ca, cb), sn), N, SEED + k)
            res = rows[:, battle.O_RESULT]
            out.append(
                {
                    "a": a,
                    "b": b,
                    "scenario": sn,
                    "wins": int((res == 0).sum()),
                    "losses": int((res == 1).sum()),
                    "draws": int((res == 2).sum()),
                    "vp_a": int(rows[:, battle.O_VP0].sum()),
                    "vp_b": int(rows[:, battle.O_VP1].sum()),
                    "turns": int(rows[:, battle.O_TURNS].sum()),
                }
            )
    return out


def regenerate(path: Path = PATH) -> Path:
    """Write the record anew from the current code."""
    record = {"n": N, "seed": SEED, "fleet": FLEET, "cells": cells()}
    path.write_text(json.dumps(record, indent=1) + "\n")
    return path


if __name__ == "__main__":
    print(f"wrote {regenerate()}")
