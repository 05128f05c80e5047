"""ev-company's interface (``fast/company.py``, issue 16 stage B) answered by the readable code.

Until ``simulator/cove/fast/company.py`` lands, :mod:`simulator.cove.fast.players_ev` calls this
module: :func:`company_odds_art` with the signature agreed, answered by
:func:`simulator.cove.odds.company_odds` on :func:`~simulator.cove.odds.company_key` inside
numba's object mode (the same floats, slowly). Artisans are given per section (the packed
``S_ART`` convention), so a ship's ``artisans`` tuple is rebuilt in section order (the readable
view keeps the order they were played: with several Artisans on a ship the sort of the others in
``company_key`` can differ -- the packed state does not keep that order).
"""

import numpy as np
from numba import njit, objmode

from simulator.cove.observation import ShipView
from simulator.cove.odds import company_key, company_odds

_S = {}


def tables(rules):
    _S["rules"] = rules
    _S["npcs"] = (*rules.pirates, "royal_navy")
    _S["parrots"] = tuple(rules.parrots)
    return (np.zeros(1, np.int64),)


def new_memo():
    return (np.zeros(1, np.int64),)


def _view(row, art):
    arts = tuple((sec, int(art[sec])) for sec in range(4) if art[sec] >= 0)
    return ShipView(
        0,
        tuple(int(x) for x in row[:4]),
        (),
        0,
        0,
        0,
        0,
        0,
        _S["parrots"][row[4]] if row[4] >= 0 else None,
        int(row[5]),
        arts,
        0,
    )


def _py(npc, ships, art, m):
    views = [_view(ships[i], art[i]) for i in range(m)]
    key = company_key(views[0], views[1:], _S["npcs"][npc])
    co = company_odds(_S["rules"], key)
    return float(co.p_sink), float(co.share), float(co.p_routed)


@njit
def company_odds_art(ct, memo, npc, ships, art, m):
    with objmode(a="float64", b="float64", c="float64"):
        a, b, c = _py(npc, ships, art, m)
    return a, b, c
