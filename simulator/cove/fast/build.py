"""The compiled game's cold compile, two processes at a time (``compiled.compile_waves``).

numba compiles a function after its callees and links their machine code into its own, so the
game (:func:`simulator.cove.fast.game.play_chunk`) compiles its whole call tree one function
after the other: about 220 s on one core. :data:`WAVES` names subtrees that do not depend on
each other, two groups per wave, each root's callees in an earlier wave or earlier in its group:
the battle kernel and the company estimate beside the lone solver, the non-player ships' turn,
the set-up and the v1 island scores; the navigation beside a battle's card phase and player
turns; the battle and one island's battles beside the island effects and the small phases; then
the game's navigation, with the search player's rollouts inlined into it (they play the rest of
the month with all of those). Each
group is compiled in a worker process (:func:`compile_group`) into numba's on-disk cache, and the
final compile (the runner's tiny job, in the parent process) loads them and compiles what is
left: the game's loop with its one-caller layers inlined (:mod:`simulator.cove.fast.game`,
"Compile time"). Measured on a cold cache (2 cores, stop 40): the waves' longest groups 34,
27, 13 and 21 s, then 17 s of final compile, 112 s in all, against 137 s side by side before the
search player's rollouts were compiled into the navigation (a fourth wave of 42 s), and about
200 s one function after the other.

A root is compiled for the argument types the game calls it with (:func:`roots`): the types of
the engine's own buffers (``tab``, ``gs``, ``oc``, ``sc``, ``bt``; the same for every scenario and
table size: arrays of fixed dtype and rank) and plain integers, booleans and floats (never a
literal value: the codes the game passes are numpy integers, :func:`simulator.compiled.code`).
``tests/test_cove_fast_build.py`` checks that each root's cache holds exactly one signature,
this one: a root compiled for other types would be time lost, never a different result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: groups compiled side by side (see the module docstring); each name is a key of :func:`roots`
WAVES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("kernel", "company"), ("lone", "npc_turn", "setup", "v1_navigation")),
    (("model_navigate", "end_of_navigation"), ("card_phase", "player_turn")),
    (("battle", "one_battle"), ("island_effects", "treasure", "plunder", "black_ships")),
    (("navigate",),),
)


def roots() -> dict[str, tuple[Any, tuple | None]]:
    """Each root of :data:`WAVES`: its dispatcher and the argument types the game calls it with
    (``None`` for the battle kernel's ``_run``: its own warm-up, :func:`combat_kernel.warm_up`,
    compiles it for the argument types the company estimate calls it with)."""
    import numba
    from numba import types

    from scenarios.loader import load_scenario
    from simulator.cove import combat_kernel
    from simulator.cove.fast import battle, game, players, players_ev
    from simulator.cove.fast.engine import FastGames
    from simulator.cove.rules import CoveRules

    eng = FastGames(load_scenario(None, CoveRules).rules, ["plunderer"])
    gs, sc, bt = eng._buffers(4, False, False)
    tab, gs_t, oc, sc_t, bt_t = (numba.typeof(x) for x in (eng.tables.arrays(), gs, eng.oc, sc, bt))
    prm, st = (
        tab.field_dict["prm"],
        gs_t.field_dict["seats"],
    )  # the arrays (not the tuples) some roots take
    lt, lmemo, ct, cmemo = (oc.field_dict[k] for k in ("lt", "lmemo", "ct", "cmemo"))
    i8, b1, f8 = types.int64, types.boolean, types.float64
    ints = types.Array(types.int64, 1, "C")
    ints2 = types.Array(types.int64, 2, "C")
    floats = types.Array(types.float64, 1, "C")
    return {
        "kernel": (combat_kernel._run, None),
        "company": (players_ev.company_p, (st, ct, cmemo, i8, ints, i8, i8)),
        "lone": (players_ev.lone_plan, (prm, st, lt, lmemo, i8, i8, b1, f8, f8)),
        "v1_navigation": (players.island_scores, (tab, gs_t, oc, i8, floats, ints, ints2)),
        "island_effects": (game._phase_island_effects, (tab, gs_t, oc, sc_t)),
        "npc_turn": (battle._npc_turn, (tab, gs_t, bt_t, i8)),
        "model_navigate": (game._navigate_model, (tab, gs_t, oc, sc_t, i8)),
        "navigate": (game._navigate, (tab, gs_t, oc, sc_t, i8)),
        "end_of_navigation": (game._end_of_navigation_events, (tab, gs_t, oc, sc_t)),
        "card_phase": (battle._card_phase, (tab, gs_t, oc, bt_t)),
        "player_turn": (battle._player_turn, (tab, gs_t, oc, bt_t, i8)),
        "battle": (battle.run, (tab, gs_t, oc, bt_t)),
        "one_battle": (game._one_battle, (tab, gs_t, oc, sc_t, bt_t, i8, ints, i8, ints, i8)),
        "setup": (game._setup, (tab, gs_t, oc, sc_t)),
        "treasure": (game._phase_treasure, (tab, gs_t, oc, sc_t)),
        "plunder": (game._phase_plunder, (tab, gs_t, oc, sc_t)),
        "black_ships": (game._phase_black_ships, (tab, gs_t, oc, sc_t)),
    }


def compile_group(names: Sequence[str]) -> None:
    """Compile (or load from numba's cache) the roots ``names``, in order (a worker process)."""
    from simulator.cove import combat_kernel

    table = roots()
    for name in names:
        dispatcher, signature = table[name]
        if signature is None:
            combat_kernel.warm_up()
        else:
            dispatcher.compile(signature)
