"""Les Pirates golden games: the engine plays exactly the games the engine before the one-engine
rewrite (c643ebf) played, on 16 rule sets and strategy mixes.

``tests/data/hunt_golden_games.json`` holds, per case, the first 20 games (seed 4242, seats
rotated, the invariant checker on) as they came out of that engine: winner, end, turns,
boardings, explosions, opponent ships exploded, cyclone losses, extra rolls, loads, wrecks, the
largest fleet and the sinkings of each game. ``python tests/test_hunt_golden.py`` rewrites it
from the current engine (review the diff: a change is a change of the games).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from simulator.hunt.api import load, play  # noqa: E402

GOLDEN = Path(__file__).parent / "data" / "hunt_golden_games.json"
COLUMNS = ("winner", "end", "turns", "boardings", "explosions", "exploded", "cyclone_losses",
           "rerolls", "loads", "wrecks", "max_fleet", "sinkings")  # fmt: skip
MIX = ["runner", "hunter", "guard", "random"]
PLANNERS = ["planner", "hunter", "guard", "random"]


def _with(scenario, **tables):
    rules = scenario.rules
    for key, changes in tables.items():
        table = dataclasses.replace(getattr(rules, key), **changes)
        rules = dataclasses.replace(rules, **{key: table})
    return dataclasses.replace(scenario, rules=rules)


def cases() -> dict:
    """name -> (scenario, strategies)."""
    base = load()
    return {
        "base-mix": (base, MIX),
        "base-planner": (base, PLANNERS),
        "base-2p": (base, ["hunter", "planner"]),
        "cyclone": (load(None, ["cyclone"]), PLANNERS),
        "devils-island": (load(None, ["devils-island"]), PLANNERS),
        "double-board": (load(None, ["double-board"]), [*MIX, "planner", "hunter"]),
        "enemy-kingdoms": (load(None, ["enemy-kingdoms"]), ["hunter", "planner"]),
        "contrary-winds": (load(None, ["contrary-winds"]), ["hunter", "planner"]),
        "fire-ship": (load(None, ["fire-ship"]), PLANNERS),
        "fleet": (load(None, ["fleet"]), PLANNERS),
        "one-two": (load(None, ["one-two"]), PLANNERS),
        "shipwreck": (load(None, ["shipwreck"]), PLANNERS),
        "combo": (
            load(None, ["cyclone", "shipwreck", "one-two", "fire-ship"]),
            ["hunter", "random", "planner", "guard"],
        ),
        "fleet-one": (_with(load(None, ["fleet"]), fleet={"sink": "one"}), MIX),
        "no-pass": (_with(base, movement={"pass_own_ships": False}), PLANNERS),
        "random-fire": (
            load(None, ["fire-ship"]),
            ["random:fire=0.3", "hunter", "random:fire=0.5", "guard"],
        ),
    }


def games(scenario, strategies) -> list[list]:
    seats = play(scenario, strategies, n=20, seed=4242, rotate_seats=True, check=True).seats
    first = seats[seats["seat"] == 1]
    return first[list(COLUMNS)].astype(str).to_numpy().tolist()


@pytest.mark.parametrize("name", list(cases()))
def test_the_engine_plays_the_golden_games(name):
    scenario, strategies = cases()[name]
    want = json.loads(GOLDEN.read_text())[name]
    assert games(scenario, strategies) == want


if __name__ == "__main__":
    data = {name: games(*case) for name, case in cases().items()}
    text = (
        "{\n"
        + ",\n".join(
            f'  "{name}": [\n' + ",\n".join("    " + json.dumps(row) for row in rows) + "\n  ]"
            for name, rows in data.items()
        )
        + "\n}\n"
    )
    GOLDEN.write_text(text)
    print(f"wrote {GOLDEN}")
