"""ev-lone's interface (``fast/lone.py``, issue 16 stage B) answered by the readable solver.

Until ``simulator/cove/fast/lone.py`` lands, :mod:`simulator.cove.fast.players_ev` calls this
module: the same signatures, each answer computed by :func:`simulator.cove.odds.lone_pirate_odds`
itself inside numba's object mode (so the same floats, slowly). It is the oracle the compiled
solver replaces; it is not cached by numba (object mode) and holds the solver in a module dict
set by :func:`tables` (one scenario per process).
"""

import numpy as np
from numba import njit, objmode

from simulator.cove.odds import PirateOdds, lone_pirate_odds

_S = {}


def tables(rules):
    _S["solver"] = PirateOdds(rules)
    _S["npcs"] = (*rules.pirates, "royal_navy")
    _S["parrots"] = tuple(rules.parrots)
    return (np.zeros(1, np.int64),)


def new_memo():
    return (np.zeros(1, np.int64),)


_CARDS = ("smoke", "favourable_wind", "grapple", "overboard", "grapeshot", "powder_keg")


def _py_plan(
    npc, st, parrot, sm, w, gr, ob, g, k, chests, cv, use_cv, stake, hull, extra, son, gon
):
    hand = []
    hand += ["smoke"] * int(sm > 0) + ["favourable_wind"] * int(w) + ["grapple"] * int(gr > 0)
    hand += ["overboard"] * int(ob > 0) + ["grapeshot"] * int(g) + ["powder_keg"] * int(k)
    cards = tuple(sorted(hand))
    pl = lone_pirate_odds(
        _S["solver"],
        _S["npcs"][npc],
        tuple(int(x) for x in st),
        _S["parrots"][parrot] if parrot >= 0 else None,
        cards,
        int(chests),
        chest_value=float(cv) if use_cv else None,
        stake=float(stake),
        hull=None if hull < 0 else int(hull),
        extra_speed=int(extra),
        smoke_on=bool(son),
        grapple_on=bool(gon),
    )
    return float(pl.p_sink), int(pl.smoke), int(pl.wind), int(pl.grapple), int(pl.overboard)


@njit
def lone_plan(
    lt,
    memo,
    npc,
    st,
    parrot,
    has_smoke,
    n_wind,
    has_grapple,
    has_overboard,
    n_grapeshot,
    n_keg,
    chests,
    chest_value,
    use_chest_value,
    stake,
    hull,
    extra_speed,
    smoke_on,
    grapple_on,
):
    with objmode(p="float64", a="int64", b="int64", c="int64", d="int64"):
        p, a, b, c, d = _py_plan(
            npc,
            st,
            parrot,
            has_smoke,
            n_wind,
            has_grapple,
            has_overboard,
            n_grapeshot,
            n_keg,
            chests,
            chest_value,
            use_chest_value,
            stake,
            hull,
            extra_speed,
            smoke_on,
            grapple_on,
        )
    return p, a, b, c, d
