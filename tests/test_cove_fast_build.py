"""The compiled game's parallel cold compile (simulator.cove.fast.build): its plan is the game's.

Each root of ``build.WAVES`` is compiled in a worker process for the argument types
``build.roots()`` gives; the game then loads it from numba's cache only if it calls it with the
same types. These tests run after the game is compiled (the conftest compiles it, with the waves
on two cores or more, without them on one) and read each root's cache index: it holds exactly one
signature, the plan's. A plan with other types would add a second signature (the game compiling
its own), and a root the game never calls would not be in the cache at all.
"""

from __future__ import annotations

from pathlib import Path

import numba
import pytest

from scenarios.loader import load_scenario
from simulator.cove.fast import build
from simulator.cove.fast.engine import FastGames
from simulator.cove.rules import CoveRules

ROOT = Path(__file__).resolve().parent.parent


def _cached_signatures(dispatcher) -> set[tuple]:
    index = dispatcher._cache._cache_file._load_index()  # numba's cache index: (sig, ...) keys
    return {key[0] for key in index}


def test_every_root_is_cached_for_the_types_the_game_calls_it_with():
    roots = build.roots()
    names = [name for wave in build.WAVES for group in wave for name in group]
    assert sorted(names) == sorted(roots)  # each root in one group, once
    from simulator.cove import combat_kernel

    for name, (dispatcher, signature) in roots.items():
        got = _cached_signatures(dispatcher)
        if signature is None:  # the battle kernel: its warm-up's types are the company estimate's
            assert dispatcher is combat_kernel._run
            assert len(got) == 1, (name, got)
        else:
            assert got == {tuple(signature)}, (name, got)


@pytest.mark.parametrize(
    "scenario,seats", [(None, 3), (None, 5), ("scenarios/cove/artisan-per-section.toml", 4)]
)
def test_buffer_types_are_the_same_for_every_scenario_and_table(scenario, seats):
    """The plan types its roots from the default scenario's 4-seat buffers: numba types of the
    buffers of another scenario or table size are the same (arrays of fixed dtype and rank)."""

    def types_of(path, n):
        rules = load_scenario(None if path is None else ROOT / path, CoveRules).rules
        eng = FastGames(rules, ["plunderer", "brawler-v1"])
        gs, sc, bt = eng._buffers(n, False, False)
        return [numba.typeof(x) for x in (eng.tables.arrays(), gs, eng.oc, sc, bt)]

    assert types_of(scenario, seats) == types_of(None, 4)
