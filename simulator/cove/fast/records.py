"""The expected-value players' decision records, compiled: one row per option weighed.

With the game's ``G_DECISIONS`` flag on (``FastGames.play(..., decisions=True)``), the
expected-value players (root ``heuristic``) and the search player (root ``rollout``) write, where
they compute the values they decide by, one row of ``drec`` (``gs.drec``, layout ``DR_*`` in
:mod:`simulator.cove.fast.packed`; columns :data:`simulator.cove.tables.RECORD_COLUMNS`) per
option: at every navigation one row per island (its value, the non-player ship there, the odds
of being alone there, of sinking the ship alone and with the likely company, the expected
opponents; :func:`simulator.cove.fast.players_ev.navigate`,
:func:`simulator.cove.fast.rollout.navigate`), at every flee-or-stand choice two rows (stand, flee;
:func:`simulator.cove.fast.players_ev_battle.broadside`). Recording reads values the decision
computes anyway: it changes no decision and no random draw (a navigation values every island
exactly instead of bounding the ones that cannot be best, ``players_ev.island_values``: the same
choice). A full buffer stops the game with ``E_CAPACITY`` (``CAP_DECISIONS``).
"""

from __future__ import annotations

from numba import njit

from simulator.cove.fast.packed import (
    CAP_DECISIONS,
    DR_CHOSEN,
    DR_DECISION,
    DR_EXPECTED,
    DR_MONTH,
    DR_NPC,
    DR_OPTION,
    DR_P_ALONE,
    DR_P_SINK_COMPANY,
    DR_P_SINK_LONE,
    DR_SEAT,
    DR_VALUE,
    E_CAPACITY,
    G_DECISIONS,
    G_ERR_A,
    G_ERR_B,
    G_ERR_C,
    G_ERR_MONTH,
    G_ERR_PHASE,
    G_ERROR,
    G_MONTH,
    G_NDEC,
    G_PHASE,
)


@njit(cache=True, inline="always")
def recording(gs):
    """Whether the game keeps decision records."""
    return gs.g[G_DECISIONS] != 0


@njit(cache=True)
def record(gs, month, seat, decision, option, value, chosen, npc, p_alone, p_lone, p_company, ex):
    """Append one decision row (``DR_*`` order, every value a float; NaN for a record's None)."""
    g, drec = gs.g, gs.drec
    i = g[G_NDEC]
    if i >= drec.shape[0]:
        if g[G_ERROR] == 0:  # game._error's fields (this module sits below the game)
            g[G_ERROR] = E_CAPACITY
            g[G_ERR_MONTH] = g[G_MONTH]
            g[G_ERR_PHASE] = g[G_PHASE]
            g[G_ERR_A] = CAP_DECISIONS
            g[G_ERR_B] = 0
            g[G_ERR_C] = 0
        return
    drec[i, DR_MONTH] = month
    drec[i, DR_SEAT] = seat
    drec[i, DR_DECISION] = decision
    drec[i, DR_OPTION] = option
    drec[i, DR_VALUE] = value
    drec[i, DR_CHOSEN] = chosen
    drec[i, DR_NPC] = npc
    drec[i, DR_P_ALONE] = p_alone
    drec[i, DR_P_SINK_LONE] = p_lone
    drec[i, DR_P_SINK_COMPANY] = p_company
    drec[i, DR_EXPECTED] = ex
    g[G_NDEC] = i + 1


__all__ = ["record", "recording"]
