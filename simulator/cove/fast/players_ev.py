"""The expected-value players, compiled: mirror of ``heuristic.HeuristicPlayer``.

The kinds of root ``heuristic`` (``plunderer``, ``brawler``, ``tavern``, ``balanced``: one player
with other parameters) take every decision off the battle here as there, with the same floats:
each value is the readable expression evaluated in the same order (``py_floordiv`` for Python's
float ``//``), the lone odds come from :mod:`simulator.cove.fast.lone` (``lone_plan``, ev-lone),
the company estimates from :mod:`simulator.cove.fast.company` (``company_odds_art``,
ev-company), the duel odds from :func:`simulator.cove.fast.odds.win_probability`, the noise from
the seat's players stream (``Generator.random(6)`` as six draws of
:func:`simulator.cove.fast.rng.random`). The battle policy is
:mod:`simulator.cove.fast.players_ev_battle` (ev-battle).

Parameters: the seat's row of ``pp`` (``packed.PP``: the shared names, ``PP_OPP_TEMP``); the
state the readable player keeps between decisions is in the same row (``PP_STAKE`` = ``_stake``,
``PP_HV_CHEST`` = ``_hv_chest``, ``PP_GOLD_SEEN`` = ``_gold``, ``PP_MONTH_SEEN`` = ``_month``),
reset with the row at every game (``play_chunk`` copies it from ``pp_all``); the game writes
``_gold``/``_month`` at every decision it asks (``game._ask``), as ``HeuristicPlayer.act`` does.

Odds tables and memos: ``oc``, an :class:`OddsState` with the fields ``ck, cv, V, trk, lt, lmemo,
ct, cmemo, et, rm`` (:data:`OC_FIELDS`; one object, not a tuple of its arrays) -- the duel memo
of :mod:`simulator.cove.fast.odds` and its track buffer, ev-lone's tables and memo, ev-company's
tables and memo, :func:`ev_tables` (``et``: float64 ``[npc row]`` the mean fame of a treasure
galleon, ``(cacafuego_fame_die_sides + 1) / 2`` or its fame), and the search player's opponent
models (``rm``: :func:`simulator.cove.fast.packed.rollout_models`). :func:`odds_state` builds it.

Encodings as in :mod:`simulator.cove.fast.packed`: ``npc`` rows (the Royal Navy ``prm[P_RN]``),
parrot rows (-1), the 9-entry damage state of ``ship_state`` (``tests/cove_odds_oracle.py``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from simulator import compiled
from simulator.cove.combat_kernel import P_NPC_FAME as K_NPC_FAME
from simulator.cove.fast import company, lone
from simulator.cove.fast.odds import new_cache
from simulator.cove.fast.packed import (
    C_GRAPESHOT,
    C_GRAPPLE,
    C_KEG,
    C_OVERBOARD,
    C_SMOKE,
    C_WIND,
    CANNONS,
    CREW,
    G_BLACK,
    G_FACE_UP,
    G_MONTH,
    G_N,
    G_NBLACK,
    G_RN_ISLAND,
    HULL,
    N_FAME,
    N_FIGHTS,
    NONE,
    P_ART_ABSORBS,
    P_BURY_CHEST_FAME,
    P_BURY_GOLD_PER_FAME,
    P_CACA_LONE,
    P_CACA_TI_FASTEST,
    P_CARD_PRICE,
    P_COVE_ALT_CARDS,
    P_COVE_ALT_GOLD,
    P_COVE_CARDS,
    P_MAP_MULT,
    P_NPOS,
    P_NUM_MONTHS,
    P_PARROT_ABSORBS,
    P_PARROT_HITS,
    P_RN,
    P_ROUT_FAME,
    P_SWAP_COST,
    PA_UNLIMITED,
    PP,
    PP_GOLD_SEEN,
    PP_HV_CHEST,
    PP_MONTH_SEEN,
    PP_OPP_TEMP,
    PP_PARROT0,
    PP_STAKE,
    REC_NAVIGATE,
    S_ART,
    S_CHESTS,
    S_CHOSEN,
    S_GOLD,
    S_HAND,
    S_HAND_N,
    S_LOC,
    S_PARROT,
    S_PLUNDER_BY,
    S_RING,
    S_WOUNDS,
    SAILS,
    TAVERN,
    TC_CHESTS,
    TC_FAME,
    TC_GOLD,
    TC_TAVERN,
    TREASURE,
    rollout_models,
)
from simulator.cove.fast.players import (
    duel_mean,
    has_map,
    py_floordiv,
    table_hits_to_rout,
    table_weakest,
    view_speed,
)
from simulator.cove.fast.records import record, recording
from simulator.cove.fast.rng import random
from simulator.cove.rules import CoveRules

NUM_NAV = compiled.code(6)
#: opponents' valuation (heuristic._GENERIC)
G_W_GOLD, G_W_CHEST, G_W_CARD, G_ROUT = 0.3, 0.9, 0.6, 2.0
#: heuristic._MIN_SUBSET_PROB, heuristic._MAX_COMPANIONS
MIN_SUBSET_PROB = 0.01
MAX_COMPANIONS = 3
#: det[island, DET_*]: the odds behind an island's value (island_values; the decision record)
DET_NPC = 0  # npc row at the island (-1: none)
DET_P_ALONE = 1  # P(no opponent comes)
DET_P_SINK_LONE = 2  # P(sink it) alone with the hand (NaN: no fighting npc)
DET_P_SINK_COMPANY = 3  # P(sink it while there) over the likely company (NaN: no company)
DET_EXPECTED = 4  # expected opponents
DET_COLS = 5
#: heuristic.ISLAND_SECTION: the section upgraded at outer island 1..4
ISLAND_SECTION = (-1, HULL, SAILS, CANNONS, CREW)

# parameter columns (the shared names of packed.PARAM_NAMES)
W_GOLD = PP["w_gold"]
W_CHEST = PP["w_chest"]
W_CARD = PP["w_card"]
TARGET0 = PP["target_hull"]
PRIO0 = PP["prio_hull"]
GOLD_RESERVE = PP["gold_reserve"]
BURY_RESERVE = PP["bury_reserve"]
BUY_CARDS = PP["buy_cards"]
CARD_GOLD_RESERVE = PP["card_gold_reserve"]
TAVERN_BIAS = PP["tavern_bias"]
TREASURE_BIAS = PP["treasure_bias"]
FIGHT_BIAS = PP["fight_bias"]
ROUT_COST = PP["rout_cost"]
USE_SNEAK = PP["use_sneak"]
NOISE = PP["noise"]


def ev_tables(rules: CoveRules) -> np.ndarray:
    """``et``: float64 ``[npc row]`` a non-fighting galleon's mean fame (``_galleon_fame``)."""
    d = rules.decisions
    keys = (*rules.pirates, "royal_navy")
    et = np.zeros(len(keys), np.float64)
    for i, k in enumerate(rules.pirates):
        p = rules.pirates[k]
        et[i] = (d.cacafuego_fame_die_sides + 1) / 2 if p.fame_die else float(p.fame)
    return et


#: the fields of the players' odds state ``oc`` (see the module docstring), in order
OC_FIELDS = ("ck", "cv", "V", "trk", "lt", "lmemo", "ct", "cmemo", "et", "rm")


class OddsStateType(compiled.StateType):
    """numba's type of :class:`OddsState`."""


class OddsState(compiled.State):
    """The players' odds tables and memos ``oc`` as one object (:data:`OC_FIELDS`): as a tuple
    of its arrays it cost two reference counts an array at every call
    (:class:`simulator.compiled.State`). The lone solver's and the company estimate's tables and
    memos are State objects too (:class:`~simulator.cove.fast.lone.LoneTables`,
    :class:`~simulator.cove.fast.lone.LoneMemo`,
    :class:`~simulator.cove.fast.company.CompanyTables`,
    :class:`~simulator.cove.fast.company.CompanyMemo`)."""

    FIELDS = OC_FIELDS


@njit(cache=True)
def _new_odds_state(*values):
    """:class:`OddsState`'s constructor, cached (:class:`simulator.compiled.State`)."""
    return OddsState(*values)


OddsState = compiled.define_state(OddsState, OddsStateType, _new_odds_state)


def odds_state(rules: CoveRules) -> OddsState:
    """The players' ``oc`` (see the module docstring): fresh memos, one per chunk."""
    return OddsState(
        *new_cache(),
        np.zeros(256, np.int64),
        lone.tables(rules),
        lone.new_memo(),
        company.tables(rules),
        company.new_memo(),
        ev_tables(rules),
        rollout_models(rules),
    )


# ------------------------------------------------------------------ ship facts (table view)
@njit(cache=True, inline="always")
def _value(val, st, s, sec):
    return val[sec, st[s, S_RING + sec]]


@njit(cache=True)
def hits_to_rout(prm, par, st, s, sec):
    """``HeuristicPlayer.hits_to_rout``: ring + Artisan hits left + the parrot's hits left on
    the section when ``combat.parrot_absorbs_hits`` (:func:`core.rout_hits` of the table view,
    :func:`simulator.cove.fast.players.table_hits_to_rout`)."""
    return table_hits_to_rout(prm, par, st, s, sec, prm[P_PARROT_ABSORBS])


@njit(cache=True)
def room(val, par, st, s):
    """``HeuristicPlayer.room``."""
    pr = st[s, S_PARROT]
    if pr >= 0 and par[pr, PA_UNLIMITED]:
        return 99
    return max(0, _value(val, st, s, HULL) - st[s, S_CHESTS])


@njit(cache=True)
def ship_state(prm, st, s, out):
    """``ship_state`` (``tests/cove_odds_oracle.py``) of seat ``s``'s table view into ``out[9]``."""
    for k in range(4):
        out[k] = st[s, S_RING + k]
        out[4 + k] = prm[P_ART_ABSORBS] - st[s, S_ART + k] if st[s, S_ART + k] >= 0 else 0
    php = prm[P_PARROT_HITS] - st[s, S_WOUNDS] if st[s, S_PARROT] >= 0 else 0
    out[8] = max(php, 0)


@njit(cache=True, inline="always")
def _count(st, s, code):
    n = np.int64(0)
    for i in range(st[s, S_HAND_N]):
        if st[s, S_HAND + i] == code:
            n += 1
    return n


# ------------------------------------------------------------------ odds
@njit(cache=True)
def lone_plan(prm, st, lt, lmemo, s, npc_row, with_hand, stake, hv_chest):
    """``HeuristicPlayer.lone_plan`` of seat ``s`` (``with_hand``: its hand, else none):
    (p_sink, smoke, wind, grapple, overboard). ``prm`` = ``tab.prm``, ``st`` = ``gs.seats``, ``lt``,
    ``lmemo`` = ``oc.lt``, ``oc.lmemo``: what it reads, not the tuples (a compiled call that holds
    a tuple counts a reference to each of its arrays on entry and on exit)."""
    s9 = np.empty(9, np.int64)
    ship_state(prm, st, s, s9)
    if with_hand:
        smoke = 1 if _count(st, s, C_SMOKE) > 0 else 0
        wind = _count(st, s, C_WIND)
        grapple = 1 if _count(st, s, C_GRAPPLE) > 0 else 0
        overboard = 1 if _count(st, s, C_OVERBOARD) > 0 else 0
        grape = _count(st, s, C_GRAPESHOT)
        keg = _count(st, s, C_KEG)
    else:
        smoke = wind = grapple = overboard = grape = keg = np.int64(0)
    chests = st[s, S_CHESTS] if overboard else 0
    return lone.lone_plan(
        lt, lmemo, npc_row, s9, st[s, S_PARROT], smoke, wind, grapple, overboard, grape, keg,
        chests, hv_chest, np.int64(1), stake, np.int64(-1), np.int64(0), np.int64(0), np.int64(0),
    )  # fmt: skip


@njit(cache=True)
def company_p(st, ct, cmemo, me, others, m, npc_row):
    """``HeuristicPlayer.company(me, others[:m], npc)``: (p_sink, share, p_routed); ``st`` =
    ``gs.seats``, ``ct``, ``cmemo`` = ``oc.ct``, ``oc.cmemo`` (not the tuples: see
    :func:`lone_plan`)."""
    ships = np.zeros((m + 1, 7), np.int64)
    art = np.zeros((m + 1, 4), np.int64)
    for r in range(m + 1):
        x = me if r == 0 else others[r - 1]
        for k in range(4):
            ships[r, k] = st[x, S_RING + k]
            art[r, k] = st[x, S_ART + k]
        ships[r, 4] = st[x, S_PARROT]
        ships[r, 5] = st[x, S_WOUNDS]
    return company.company_odds_art(ct, cmemo, npc_row, ships, art, m + 1)


@njit(cache=True)
def duel_track(prm, par, st, lt, s, trk):
    """``HeuristicPlayer.duel_track``: hits that rout seat ``s`` at its weakest section (the
    first of equals); its dice after 0..hits hits there in ``trk``
    (:func:`simulator.cove.fast.lone.dice_track`, the solver's ``hit`` and ``dice``);
    ``prm``, ``par`` = ``tab.prm``, ``tab.par``, ``st`` = ``gs.seats``, ``lt`` = ``oc.lt``."""
    hits, weak = table_weakest(prm, par, st, s, prm[P_PARROT_ABSORBS])
    s9 = np.empty(9, np.int64)
    ship_state(prm, st, s, s9)
    after = np.empty(9, np.int64)
    lone.dice_track(lt.vals, lt.parrots, lt.prm, s9, st[s, S_PARROT], weak, hits, after, trk)
    return hits


@njit(cache=True)
def duel_odds(tab, gs, oc, me, hits, trk, o):
    """``HeuristicPlayer.duel_odds(me, other)`` with our track (``hits``, ``trk``) computed."""
    return duel_odds_of(
        tab.prm, tab.val, tab.par, tab.pmf, gs.seats, oc.lt, oc.ck, oc.cv, oc.V, me, hits, trk, o
    )


@njit(cache=True)
def duel_odds_of(prm, val, par, pmf, st, lt, ck, cv, V, me, hits, trk, o):
    """:func:`duel_odds` from the arrays it reads (``tab``'s, the table view ``st``, the lone
    tables, the duel memo): a call holding the whole tuples costs more in reference counts."""
    # theirs: (hits to rout, dice after 0 hits) -- the track's first entry is the dice unhit
    their = table_weakest(prm, par, st, o, prm[P_PARROT_ABSORBS])[0]
    s9 = np.empty(9, np.int64)
    ship_state(prm, st, o, s9)
    their_dice = lone.dice(lt.vals, lt.parrots, s9, st[o, S_PARROT], np.int64(0))
    my_speed = view_speed(val, par, st, me)
    osp = view_speed(val, par, st, o)
    return duel_mean(trk, hits, their, their_dice, my_speed, osp, pmf, ck, cv, V)


# ------------------------------------------------------------------ values
@njit(cache=True)
def ti_pirate(npc, g, month):
    """``HeuristicPlayer._ti_pirate``: the fighting pirate on Treasure Island in ``month``
    (``npc`` = ``tab.npc``, ``g`` = ``gs.g``)."""
    for b in range(g[G_NBLACK]):
        base = G_BLACK + 3 * b
        if g[base + 2] != 0:
            continue
        key = g[base + 1]
        if key < 0 or npc[key, N_FIGHTS] == 0:
            continue
        if (g[base] + month - g[G_MONTH]) % NUM_NAV == TREASURE:
            return key
    return -1


@njit(cache=True)
def holding_values(prm, npc, g, pp, seat):
    """``HeuristicPlayer.holding_values``: (hv_gold, hv_chest, last_bury); ``prm``, ``npc`` =
    ``tab.prm``, ``tab.npc``, ``g``, ``pp`` = ``gs.g``, ``gs.pp`` (the arrays, not the tuples: see
    :func:`lone_plan`)."""
    for m in range(g[G_MONTH] + 1, prm[P_NUM_MONTHS] + 1):
        if ti_pirate(npc, g, m) < 0:
            return pp[seat, W_GOLD], pp[seat, W_CHEST], False
    return 0.0, 0.0, True


@njit(cache=True)
def buy_count(prm, g, pp, seat, gold):
    """``HeuristicPlayer._buy_count`` (a float of the same value; ``prm`` = ``tab.prm``, ``g``,
    ``pp`` = ``gs.g``, ``gs.pp``)."""
    if g[G_MONTH] == prm[P_NUM_MONTHS]:
        return 3.0
    price = prm[P_CARD_PRICE]
    if price:
        afford = py_floordiv(gold - pp[seat, CARD_GOLD_RESERVE], float(price))
    else:
        afford = 3.0
    return max(0.0, min(float(int(pp[seat, BUY_CARDS])), afford))


@njit(cache=True)
def upgrade_value(prm, step, st, pp, seat, sec):
    """``HeuristicPlayer._upgrade_value`` (``prm``, ``step`` = ``tab.prm``, ``tab.step``, ``st``,
    ``pp`` = ``gs.seats``, ``gs.pp``)."""
    pos = st[seat, S_RING + sec]
    gold = st[seat, S_GOLD]
    k = 0
    top = min(pp[seat, TARGET0 + sec], float(prm[P_NPOS]))
    while pos < top:
        cost = step[pos]
        if gold - cost < pp[seat, GOLD_RESERVE]:
            break
        gold -= cost
        pos += 1
        k += 1
    if not k:
        return 0.0
    spent = st[seat, S_GOLD] - gold
    return pp[seat, PRIO0 + sec] * (1.0 + 0.5 * (k - 1)) - pp[seat, W_GOLD] * spent


@njit(cache=True)
def alone_values(prm, val, step, tcard, par, g, st, pp, seat, hv_gold, hv_chest, last_bury, out):
    """``HeuristicPlayer.alone_values`` into ``out[6]`` (``tab.prm``, ``tab.val``, ``tab.step``,
    ``tab.tcard``, ``tab.par``, ``gs.g``, ``gs.seats``, ``gs.pp``: the arrays, not the tuples)."""
    last = g[G_MONTH] == prm[P_NUM_MONTHS]
    rm = room(val, par, st, seat)
    victim = st[seat, S_PLUNDER_BY] >= 0
    price = prm[P_CARD_PRICE]
    for isl in range(NUM_NAV):
        v = 0.0
        if isl < 5:
            card = g[G_FACE_UP + isl]
            if card >= 0:
                fame = tcard[card, TC_FAME]
                gold = tcard[card, TC_GOLD]
                chests = tcard[card, TC_CHESTS]
                tav = tcard[card, TC_TAVERN]
                if has_map(g, seat, isl):
                    chests *= prm[P_MAP_MULT]
                loot = hv_gold * gold + hv_chest * min(chests, rm) + fame
                if victim:
                    loot *= 0.5
                v += loot + pp[seat, W_CARD] * tav
            if isl == TAVERN:
                v += pp[seat, TAVERN_BIAS]
                if price:
                    n = min(buy_count(prm, g, pp, seat, st[seat, S_GOLD]), 3.0)
                    v += n * (pp[seat, W_CARD] - hv_gold * price)
            elif not last:
                v += upgrade_value(prm, step, st, pp, seat, ISLAND_SECTION[isl])
        else:
            keep = 0.0 if last_bury else pp[seat, BURY_RESERVE]
            bags = py_floordiv(max(0.0, st[seat, S_GOLD] - keep), float(prm[P_BURY_GOLD_PER_FAME]))
            v += st[seat, S_CHESTS] * prm[P_BURY_CHEST_FAME] + bags + pp[seat, TREASURE_BIAS]
        out[isl] = v


@njit(cache=True)
def black_pirates(g, out):
    """``{isl: key for isl, key in obs.black_ships if key is not None}`` (-1: none; ``g`` =
    ``gs.g``)."""
    for i in range(NUM_NAV):
        out[i] = -1
    for b in range(g[G_NBLACK]):
        base = G_BLACK + 3 * b
        if g[base + 2] == 0 and g[base + 1] >= 0:
            out[g[base]] = g[base + 1]


@njit(cache=True, inline="always")
def generic_values(prm, val, tcard, npc, par, g, st, lt, lmemo, ct, cmemo, et, seat, pir, out):
    """``HeuristicPlayer._generic_values`` of every opponent ``s`` of ``seat`` that has not
    chosen its island yet, into ``out[s, :6]``, in seat order (one call per decision: a call
    that holds the tuples costs more than the values; ``tab.prm``, ``tab.val``, ``tab.tcard``,
    ``tab.npc``, ``tab.par``, ``gs.g``, ``gs.seats``, ``oc.lt``...``oc.et``)."""
    n = g[G_N]
    last = g[G_MONTH] == prm[P_NUM_MONTHS]
    others = np.empty(8, np.int64)
    for s in range(n):
        if s == seat or st[s, S_CHOSEN] >= 0:
            continue
        rm = room(val, par, st, s)
        for isl in range(NUM_NAV):
            if isl < 5:
                card = g[G_FACE_UP + isl]
                v = 0.0
                if card >= 0:
                    v = (
                        tcard[card, TC_FAME]
                        + G_W_GOLD * tcard[card, TC_GOLD]
                        + G_W_CHEST * min(tcard[card, TC_CHESTS], rm)
                    )
                    v += G_W_CARD * tcard[card, TC_TAVERN]
            else:
                v = (
                    st[s, S_CHESTS] * prm[P_BURY_CHEST_FAME]
                    + st[s, S_GOLD] // prm[P_BURY_GOLD_PER_FAME]
                    - 0.5
                )
            key = pir[isl]
            if key >= 0:
                if npc[key, N_FIGHTS] != 0 and isl == TREASURE and last:
                    m = np.int64(0)
                    for o in range(n):
                        if o != s:
                            others[m] = o
                            m += 1
                    ps = company_p(st, ct, cmemo, s, others, m, key)[0]
                    v = ps * (v + npc[key, N_FAME] / n) - (1 - ps) * G_ROUT
                elif npc[key, N_FIGHTS] != 0:
                    ps = lone_plan(prm, st, lt, lmemo, s, key, np.bool_(False), 0.0, 0.0)[0]
                    v = ps * (v + npc[key, N_FAME]) - (1 - ps) * G_ROUT
                else:
                    v += et[key]
            out[s, isl] = v


@njit(cache=True, inline="always")
def opponent_odds(
    prm, val, tcard, npc, par, g, st, pp, lt, lmemo, ct, cmemo, et, seat, pir, opp
):  # fmt: skip
    """``HeuristicPlayer.opponent_odds`` into ``opp[seat', 6]`` (our own row untouched; the
    arrays of :func:`generic_values` and ``pp`` = ``gs.pp``)."""
    temp = pp[seat, PP_OPP_TEMP]
    allv = np.empty((max(g[G_N], 1), NUM_NAV), np.float64)
    generic_values(prm, val, tcard, npc, par, g, st, lt, lmemo, ct, cmemo, et, seat, pir, allv)
    for s in range(g[G_N]):
        if s == seat:
            continue
        chosen = st[s, S_CHOSEN]
        if chosen >= 0:
            for i in range(NUM_NAV):
                opp[s, i] = 1.0 if i == chosen else 0.0
            continue
        vals = allv[s]
        top = vals[0]
        for i in range(1, NUM_NAV):
            top = max(top, vals[i])
        tot = 0.0
        for i in range(NUM_NAV):
            # math.exp: libm's, as compiled np.exp and the readable math.exp (numpy's own exp, which
            # the JIT-off mode would call for np.exp, differs in the last bit on some values)
            opp[s, i] = math.exp((vals[i] - top) / temp)
            tot += opp[s, i]
        for i in range(NUM_NAV):
            opp[s, i] = opp[s, i] / tot


@njit(cache=True)
def npc_fame(tab, row):
    return tab.npc[row, N_FAME]


@njit(cache=True)
def after_pirate(tab, gs, oc, seat, here, m, isl, base, mine):
    """``HeuristicPlayer._after_pirate`` (``mine``: [hits, computed] of our duel track, kept in
    ``oc.trk``)."""
    prm = tab.prm
    pp = gs.pp
    if m == 0 or isl == TREASURE:
        return base
    trk = oc.trk
    if mine[1] == 0:
        mine[0] = duel_track(prm, tab.par, gs.seats, oc.lt, seat, trk)
        mine[1] = 1
    win = 1.0
    for j in range(m):
        win *= duel_odds(tab, gs, oc, seat, mine[0], trk, here[j])
    rout = pp[seat, ROUT_COST]
    return win * (base + prm[P_ROUT_FAME] * m) - (1 - win) * rout


@njit(cache=True)
def galleon_value(tab, gs, oc, seat, here, m, isl, base, key, mine):
    """``HeuristicPlayer._galleon_value``."""
    prm, val, par = tab.prm, tab.val, tab.par
    st = gs.seats
    fame = oc.et[key]
    if isl == TREASURE:
        fastest = True
        sp = view_speed(val, par, st, seat)
        for j in range(m):
            if not sp > view_speed(val, par, st, here[j]):
                fastest = False
        return base + (fame if fastest and prm[P_CACA_TI_FASTEST] else 0.0)
    if m == 0:
        return base + (fame if prm[P_CACA_LONE] else 0.0)
    return after_pirate(tab, gs, oc, seat, here, m, isl, base + fame, mine)


@njit(cache=True, inline="always")
def company_bound(after, share_hi, rout):
    """An upper bound of ``p_sink * after + share - p_routed * rout`` (the value of a company
    subset) over every estimate ``0 <= p_sink, p_routed <= 1``, ``share <= share_hi``, as
    floats: each operation rounds monotonically, so ``p_sink * after`` rounds to at most
    ``max(after, 0)``, adding the share to at most ``max(after, 0) + share_hi`` and taking
    ``p_routed * rout`` away adds at most ``max(-rout, 0)``."""
    return (max(after, 0.0) + share_hi) + max(-rout, 0.0)


@njit(cache=True)
def island_values(tab, gs, oc, seat, out, lazy, det):
    """``HeuristicPlayer.island_details``: the values into ``out[6]`` (draws the six noise
    numbers), the odds behind each exact value into ``det[6, DET_COLS]`` (``DET_*``: the
    decision record's columns, :mod:`simulator.cove.fast.records`).

    ``lazy`` (the navigation: only the first best island counts): an island whose value needs
    company estimates is first given an upper bound, each company subset valued at
    :func:`company_bound` (a sum of products by probabilities >= 0 in the same order, so at
    least the exact sum as floats); the islands are then valued exactly from the highest bound
    down, until every bound left is below the best exact value. Those islands keep their bound
    in ``out``: they cannot be the first best, so the choice is the one the exact values make,
    with fewer estimates (their ``det`` rows are left incomplete). Without ``lazy`` every value
    (and every ``det`` row) is exact. One loop body values an island both ways (a call holding
    the tuples costs more than the values)."""
    npc = tab.npc
    prm = tab.prm
    g, rs, pp = gs.g, gs.rs, gs.pp
    et = oc.et
    n = g[G_N]
    hv_gold, hv_chest, last_bury = holding_values(prm, npc, g, pp, seat)
    alone = np.empty(NUM_NAV, np.float64)
    alone_values(
        prm,
        tab.val,
        tab.step,
        tab.tcard,
        tab.par,
        g,
        gs.seats,
        pp,
        seat,
        hv_gold,
        hv_chest,
        last_bury,
        alone,
    )
    pir = np.empty(NUM_NAV, np.int64)
    black_pirates(g, pir)
    opp = np.zeros((max(n, 1), NUM_NAV), np.float64)
    opponent_odds(
        prm, tab.val, tab.tcard, npc, tab.par, g, gs.seats, pp, oc.lt, oc.lmemo, oc.ct, oc.cmemo,
        oc.et, seat, pir, opp,
    )  # fmt: skip
    rout = pp[seat, ROUT_COST]
    noise = np.empty(NUM_NAV, np.float64)
    for i in range(NUM_NAV):
        noise[i] = random(rs, 1 + seat)
    # each island's candidates and odds, kept for its exact value (lazy)
    cq = np.empty((NUM_NAV, 8), np.float64)
    cs = np.empty((NUM_NAV, 8), np.int64)
    ncs = np.zeros(NUM_NAV, np.int64)
    keys = np.empty(NUM_NAV, np.int64)
    lone_ps = np.zeros(NUM_NAV, np.float64)
    fames = np.zeros(NUM_NAV, np.float64)
    overboards = np.zeros(NUM_NAV, np.int64)
    expecteds = np.zeros(NUM_NAV, np.float64)
    pending = np.zeros(NUM_NAV, np.bool_)
    here = np.empty(8, np.int64)
    mine = np.zeros(2, np.int64)
    # the duel odds against each opponent (duel_odds: a pure function of the table, the same at
    # every island and subset), computed on first use and kept for this decision; the product
    # over a subset multiplies them in the same order as _after_pirate, so the same floats
    trk = oc.trk
    val, par, pmf, st = tab.val, tab.par, tab.pmf, gs.seats
    ck, cv, V, lt = oc.ck, oc.cv, oc.V, oc.lt
    npc_prm = oc.ct.npc_prm
    dwin = np.empty(max(n, 1), np.float64)
    dknown = np.zeros(max(n, 1), np.int64)
    rout_fame = prm[P_ROUT_FAME]
    nxt = 0  # the islands in order, each valued (or bounded) once; then the bounds, best first
    while True:
        if nxt < NUM_NAV:
            isl = nxt
            nxt += 1
            key = pir[isl]
            if key < 0 and g[G_RN_ISLAND] == isl:
                key = prm[P_RN]
            keys[isl] = key
            fights = key >= 0 and (key == prm[P_RN] or npc[key, N_FIGHTS] != 0)
            # candidates: q > 0, stable sort by -q, the first MAX_COMPANIONS
            nc = 0
            for s in range(n):
                if s == seat:
                    continue
                q = opp[s, isl]
                if q > 0.0:
                    j = nc
                    while j > 0 and cq[isl, j - 1] < q:  # insertion keeps equal ones in seat order
                        cq[isl, j] = cq[isl, j - 1]
                        cs[isl, j] = cs[isl, j - 1]
                        j -= 1
                    cq[isl, j] = q
                    cs[isl, j] = s
                    nc += 1
            nc = min(nc, MAX_COMPANIONS)
            ncs[isl] = nc
            expected = 0.0
            for j in range(nc):
                expected += cq[isl, j]
            expecteds[isl] = expected
            if fights:
                fames[isl] = float(npc_fame(tab, key))
                plan = lone_plan(
                    prm,
                    st,
                    lt,
                    oc.lmemo,
                    seat,
                    key,
                    np.bool_(True),
                    alone[isl] + fames[isl] + rout,
                    hv_chest,
                )
                lone_ps[isl] = plan[0]
                overboards[isl] = plan[4]
            bound = lazy and fights
        elif lazy:
            best = -1  # the first best exact value so far
            isl = np.int64(-1)  # the highest bound left
            for i in range(NUM_NAV):
                if pending[i]:
                    if isl < 0 or out[i] > out[isl]:
                        isl = i
                elif best < 0 or out[i] > out[best]:
                    best = i
            if isl < 0 or (best >= 0 and out[isl] < out[best]):
                break
            key = keys[isl]
            fights = True
            nc = ncs[isl]
            bound = False
        else:
            break
        base = alone[isl]
        lone_p = lone_ps[isl]
        fame = fames[isl]
        share_hi = 0.0
        if fights:  # an estimate's share: the npc's fame split among the ships there, if it sank
            share_hi = max(np.float64(npc_prm[key, K_NPC_FAME]), 0.0)
        total = 0.0
        bounded = False
        p_alone = 0.0  # the odds of the record (HeuristicPlayer.island_details)
        comp_p = 0.0
        comp_w = 0.0
        for mask in range(1 << nc):
            prob = 1.0
            m = np.int64(0)
            for j in range(nc):
                if mask >> j & 1:
                    prob *= cq[isl, j]
                    here[m] = cs[isl, j]
                    m += 1
                else:
                    prob *= 1.0 - cq[isl, j]
            if prob < MIN_SUBSET_PROB and mask:
                continue
            if m == 0:
                p_alone = prob
            # _after_pirate's duel odds (every branch below that fights player ships needs them:
            # some company, away from Treasure Island), inline: no call per subset
            win = 1.0
            if m and isl != TREASURE:
                for j in range(m):
                    o = here[j]
                    if dknown[o] == 0:
                        if mine[1] == 0:
                            mine[0] = duel_track(prm, par, st, lt, seat, trk)
                            mine[1] = 1
                        dwin[o] = duel_odds_of(
                            prm, val, par, pmf, st, lt, ck, cv, V, seat, mine[0], trk, o
                        )
                        dknown[o] = 1
                    win *= dwin[o]
            if fights:
                if m:
                    after = base
                    if isl != TREASURE:
                        after = win * (base + rout_fame * m) - (1 - win) * rout
                    if bound:
                        v = company_bound(after, share_hi, rout)
                        bounded = True
                    else:
                        co = company_p(st, oc.ct, oc.cmemo, seat, here, m, key)
                        v = co[0] * after + co[1] - co[2] * rout
                        comp_p += prob * co[0]
                        comp_w += prob
                else:
                    v = lone_p * (base + fame) - (1 - lone_p) * rout
                    v -= hv_chest * overboards[isl]
            elif key >= 0:
                if isl == TREASURE:
                    v = galleon_value(tab, gs, oc, seat, here, m, isl, base, key, mine)
                elif m == 0:
                    v = base + (et[key] if prm[P_CACA_LONE] else 0.0)
                else:
                    b = base + et[key]
                    v = win * (b + rout_fame * m) - (1 - win) * rout
            elif m == 0 or isl == TREASURE:
                v = base
            else:
                v = win * (base + rout_fame * m) - (1 - win) * rout
            total += prob * v
        pending[isl] = bounded
        total += pp[seat, FIGHT_BIAS] * expecteds[isl]
        out[isl] = total + noise[isl] * pp[seat, NOISE]
        det[isl, DET_NPC] = key
        det[isl, DET_P_ALONE] = p_alone
        det[isl, DET_P_SINK_LONE] = lone_p if fights else np.nan
        det[isl, DET_P_SINK_COMPANY] = comp_p / comp_w if comp_w else np.nan
        det[isl, DET_EXPECTED] = expecteds[isl]
    return hv_chest, alone


# ------------------------------------------------------------------ decisions
@njit(cache=True)
def navigate(tab, gs, oc, seat):
    """``HeuristicPlayer._navigate``: the first best island; keeps ``_stake``, ``_hv_chest``.
    With decision records on, every island is valued exactly (the same choice) and recorded."""
    pp = gs.pp
    scores = np.empty(NUM_NAV, np.float64)
    det = np.empty((NUM_NAV, DET_COLS), np.float64)
    keep = recording(gs)
    hv_chest, alone = island_values(tab, gs, oc, seat, scores, not keep, det)
    best = np.int64(0)
    for i in range(NUM_NAV):
        if scores[i] > scores[best]:
            best = i
    pp[seat, PP_STAKE] = alone[best]
    pp[seat, PP_HV_CHEST] = hv_chest
    if keep:
        record_navigation(gs, seat, scores, det, best)
    return best


@njit(cache=True)
def record_navigation(gs, seat, values, det, best):
    """The navigation's decision rows (``HeuristicPlayer._navigate``'s record): one per island,
    its value ``values[isl]`` and the odds ``det[isl]``."""
    month = float(gs.g[G_MONTH])
    for isl in range(NUM_NAV):
        record(
            gs, month, float(seat), float(REC_NAVIGATE), float(isl), values[isl],
            1.0 if isl == best else 0.0, det[isl, DET_NPC], det[isl, DET_P_ALONE],
            det[isl, DET_P_SINK_LONE], det[isl, DET_P_SINK_COMPANY], det[isl, DET_EXPECTED],
        )  # fmt: skip


@njit(cache=True)
def sneak_away(tab, gs, oc, seat, legal, nl):
    """``HeuristicPlayer._sneak_away``: the best legal island if it beats staying by more than 1
    (then ``_stake`` is its alone value)."""
    st, pp = gs.seats, gs.pp
    if pp[seat, USE_SNEAK] == 0.0:
        return NONE
    scores = np.empty(NUM_NAV, np.float64)
    det = np.empty((NUM_NAV, DET_COLS), np.float64)
    hv_chest, alone = island_values(tab, gs, oc, seat, scores, np.bool_(False), det)
    here = st[seat, S_LOC]
    best = NONE
    for i in range(nl):
        c = legal[i]
        if c == NONE:
            continue
        if best == NONE or scores[c] > scores[best]:
            best = c
    if best != NONE and scores[best] > scores[here] + 1.0:
        pp[seat, PP_STAKE] = alone[best]
        return best
    return NONE


@njit(cache=True)
def parrot_swap(tab, gs, seat, drawn):
    """``HeuristicPlayer._parrot_swap``."""
    prm = tab.prm
    st, pp = gs.seats, gs.pp
    cur = st[seat, S_PARROT]
    old = pp[seat, PP_PARROT0 + cur] if cur >= 0 else 1.0
    new = pp[seat, PP_PARROT0 + drawn]
    return 1 if new - old > prm[P_SWAP_COST] else 0


@njit(cache=True)
def buy_cards(tab, gs, seat, most):
    """``HeuristicPlayer._buy_cards`` (legal: 0..most)."""
    st = gs.seats
    return int(min(float(most), buy_count(tab.prm, gs.g, gs.pp, seat, st[seat, S_GOLD])))


@njit(cache=True)
def bury_gold(tab, gs, seat, most):
    """``HeuristicPlayer._bury_gold`` (legal: 0..most bags)."""
    prm = tab.prm
    st, pp = gs.seats, gs.pp
    _g, _c, last_bury = holding_values(tab.prm, tab.npc, gs.g, gs.pp, seat)
    if last_bury:
        return most
    per = float(prm[P_BURY_GOLD_PER_FAME])
    k = max(0, int(py_floordiv(st[seat, S_GOLD] - pp[seat, BURY_RESERVE], per)))
    return min(k, most)


@njit(cache=True)
def cove_reward(tab, gs, seat):
    """``HeuristicPlayer._cove_reward``: 0 "cards", 1 "card_and_gold"."""
    prm = tab.prm
    pp = gs.pp
    hv_gold, _c, _l = holding_values(tab.prm, tab.npc, gs.g, gs.pp, seat)
    cards = prm[P_COVE_CARDS] * pp[seat, W_CARD]
    alt = prm[P_COVE_ALT_CARDS] * pp[seat, W_CARD] + prm[P_COVE_ALT_GOLD] * hv_gold
    return 0 if cards >= alt else 1


@njit(cache=True)
def artisan(tab, gs, seat, legal, nl):
    """``HeuristicPlayer._artisan``: min of (hits to rout - prio / 10, section)."""
    prm, par = tab.prm, tab.par
    st, pp = gs.seats, gs.pp
    best = NONE
    best_v = 0.0
    for i in range(nl):
        s = legal[i]
        if s == NONE:
            continue
        v = hits_to_rout(prm, par, st, seat, s) - pp[seat, PRIO0 + s] * 0.1
        if best == NONE or v < best_v or (v == best_v and s < best):
            best = s
            best_v = v
    return best


@njit(cache=True)
def shipwright(gs, seat, legal, nl):
    """``HeuristicPlayer._shipwright``: max of (prio * levels to target, -section)."""
    st, pp = gs.seats, gs.pp
    best = NONE
    best_v = 0.0
    for i in range(nl):
        s = legal[i]
        if s == NONE:
            continue
        v = pp[seat, PRIO0 + s] * max(0.0, pp[seat, TARGET0 + s] - st[seat, S_RING + s])
        if best == NONE or v > best_v or (v == best_v and s < best):
            best = s
            best_v = v
    return best


@njit(cache=True, inline="always")
def seen(gs, seat):
    """``HeuristicPlayer.act``'s ``_month`` and ``_gold`` (every asked decision)."""
    g, st, pp = gs.g, gs.seats, gs.pp
    pp[seat, PP_MONTH_SEEN] = g[G_MONTH]
    pp[seat, PP_GOLD_SEEN] = st[seat, S_GOLD]
