"""The issue-13 baseline players (``*-v1`` kinds, root ``heuristic-v1``) and ``random``, and the
decisions every kind shares (the expected-value kinds' own are :mod:`.players_ev`,
:mod:`.players_ev_battle` and :mod:`.rollout`; each decision here dispatches to them).

Rules: ``../shared/rules/pirates-cove.md``; ``docs/rules-cove.md``, "Players". The v1 players are
the code of the round before issue 13, kept as baselines (one heuristic player with different
parameters per kind); their island scores are float expressions evaluated in a fixed order, the
duel odds come from :func:`simulator.cove.fast.odds.win_probability`, ties are broken by
``Generator.integers`` draws on the seat's own ``players`` stream (:mod:`simulator.cove.fast.rng`).

What a player reads: its own row of ``pp`` (its parameters), its own hand, and the public board
-- rings, gold, chests, fame, hand sizes, parrots, Artisans and locations of every ship, the
face-up Treasure cards, the black ships and their pirates, the Royal Navy, the Treasure maps and
the islands announced (``S_CHOSEN``) -- never a deck's order or another seat's hand
(``tests/cove_readable/test_cove_players_see.py``). In a battle it reads the battle's public
state and its own battle cards.

Decisions return the choice (``NONE`` for ``None``); the game checks it is legal and records it.

Combat rules are the rule core's (:mod:`simulator.cove.fast.core`: ``rout_hits``, ``weakest_of``,
``absorb``, ``ring_after``, ``speed``, ``num_dice``), applied to the table view (``table_*``,
``view_*``) and to the battle view (``bview_*``, shared with
:mod:`simulator.cove.fast.players_ev_battle`). Where the v1 player reads the table its own way,
the reading is named where it is used, not written as a rule: its parrot always protects
(:data:`V1_PARROT_ABSORBS`), its Grapple test ignores a parrot's dice power, and its odds of
fleeing a pirate read a destroyed crew or cannons section as position 1.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from simulator import compiled
from simulator.cove.fast import core
from simulator.cove.fast.odds import NO_REGEN, NO_REGEN_CAP, win_probability
from simulator.cove.fast.packed import (
    BG_BECALMED,
    BG_CARD_ROUND,
    BG_CONTROLLER,
    BG_GRAPPLE,
    BG_NNPC,
    BG_S,
    BS_PARROT,
    BS_PBONES,
    BS_PFIXED,
    BS_PSPEED,
    BS_SEAT,
    BT_BONUS,
    BT_CAN_FIRE,
    BT_HAND_N,
    BT_SMOKE,
    C_BECALMED,
    C_CANNONADE,
    C_GRAPESHOT,
    C_GRAPPLE,
    C_KEG,
    C_SMOKE,
    C_WIND,
    CANNONS,
    CREW,
    D_EVERY,
    G_BLACK,
    G_FACE_UP,
    G_MAPS,
    G_MONTH,
    G_N,
    G_NBLACK,
    G_NMAPS,
    G_RN_ISLAND,
    HULL,
    N_DAMAGE,
    N_DICE,
    N_FAME,
    N_FIGHTS,
    N_HULL,
    N_REGEN,
    N_SAILS,
    NONE,
    NS_FIGHTS,
    NS_HULL,
    NS_PRESENT,
    NS_ROW,
    P_ART_ABSORBS,
    P_ART_REPAIR,
    P_BURY_CHEST_FAME,
    P_BURY_GOLD_PER_FAME,
    P_CARD_PRICE,
    P_MAP_MULT,
    P_NPIRATES,
    P_NPOS,
    P_NUM_MONTHS,
    P_PARROT_ABSORBS,
    P_PARROT_HITS,
    P_SWAP_COST,
    PA_DICE_CANNONS,
    PA_FIXED_DICE,
    PA_SECTION,
    PA_SPEED,
    PA_UNLIMITED,
    PP,
    PP_BUY_LAST_MONTH,
    PP_GOLD_SEEN,
    PP_HV_CHEST,
    PP_IS_EV,
    PP_IS_RANDOM,
    PP_PARROT0,
    PP_STAKE,
    S_ART,
    S_CHESTS,
    S_CHOSEN,
    S_FAME,
    S_GOLD,
    S_LOC,
    S_PARROT,
    S_RING,
    S_WOUNDS,
    SAILS,
    TC_CHESTS,
    TC_FAME,
    TC_GOLD,
    TC_TAVERN,
    TREASURE,
    VOLLEY_HI,
    VOLLEY_LO,
)
from simulator.cove.fast.rng import integers, random
from simulator.cove.rules import SECTIONS

# parameter columns of pp (players_v1.V1_BASE_PARAMS names)
W_FAME = PP["w_fame"]
W_GOLD = PP["w_gold"]
W_CHEST = PP["w_chest"]
W_CARD = PP["w_card"]
TARGET0 = PP["target_hull"]  # target_hull, target_crew, target_cannons, target_sails
PRIO0 = PP["prio_hull"]  # prio_hull, prio_crew, prio_cannons, prio_sails
GOLD_RESERVE = PP["gold_reserve"]
ARMING_RESERVE = PP["arming_reserve"]
BURY_RESERVE = PP["bury_reserve"]
BUY_CARDS = PP["buy_cards"]
CARD_GOLD_RESERVE = PP["card_gold_reserve"]
TAVERN_BIAS = PP["tavern_bias"]
TREASURE_BIAS = PP["treasure_bias"]
FIGHT_BIAS = PP["fight_bias"]
PIRATE_ODDS_MIN = PP["pirate_odds_min"]
ROUT_COST = PP["rout_cost"]
FLEE_HITS_LEFT = PP["flee_hits_left"]
FLEE_PIRATE_ODDS = PP["flee_pirate_odds"]
PLAY_CARDS = PP["play_cards"]
COVE_CARDS = PP["cove_cards"]
USE_NAVY = PP["use_navy"]
USE_PLUNDER = PP["use_plunder"]
USE_SNEAK = PP["use_sneak"]
OPPONENT_MODEL = PP["opponent_model"]
TI_UPGRADE = PP["ti_upgrade"]
NOISE = PP["noise"]
if [PP[f"target_{s}"] for s in SECTIONS] != [TARGET0 + i for i in range(4)] or [
    PP[f"prio_{s}"] for s in SECTIONS
] != [PRIO0 + i for i in range(4)]:
    raise ImportError("players_v1.V1_BASE_PARAMS: target_* and prio_* must be in SECTIONS order")


#: the odds' track buffer (oc.trk): the duel track below this index, a pirate's above
PIRATE_TRACK = 128


@njit(cache=True, inline="always")
def py_floordiv(a, b):
    """Python's float ``a // b`` (CPython's ``float_floor_div``: fmod-based, then rounded)."""
    mod = np.fmod(a, b)
    div = (a - mod) / b
    if mod != 0.0:
        if (b < 0.0) != (mod < 0.0):
            mod += b
            div -= 1.0
    if div != 0.0:
        fl = math.floor(div)
        if div - fl > 0.5:
            fl += 1.0
        return fl
    return math.copysign(0.0, a / b)


@njit(cache=True, inline="always")
def target(pp, seat, sec):
    """``int(p["target_<section>"])``."""
    return int(pp[seat, TARGET0 + sec])


# ------------------------------------------------------------------ a ship as the table sees it
@njit(cache=True, inline="always")
def value(val, st, s, sec):
    """The value of section ``sec`` of seat ``s`` at its ring position (0: destroyed)."""
    return val[sec, st[s, S_RING + sec]]


@njit(cache=True, inline="always")
def view_speed(val, par, st, s):
    """``ShipView.speed``: :func:`core.speed` of its sails and its parrot (battle cards
    excluded)."""
    pr = st[s, S_PARROT]
    return core.speed(value(val, st, s, SAILS), 0, pr >= 0, par[pr, PA_SPEED] if pr >= 0 else 0)


@njit(cache=True, inline="always")
def protection(prm, par, st, s, sec):
    """(Artisan hits left, parrot hits left) on a section (``HeuristicPlayer._protection``: the
    parrot counts whether or not it absorbs hits)."""
    art = 0
    if st[s, S_ART + sec] >= 0:
        art = prm[P_ART_ABSORBS] - st[s, S_ART + sec]
    pr = 0
    if st[s, S_PARROT] >= 0 and par[st[s, S_PARROT], PA_SECTION] == sec:
        pr = prm[P_PARROT_HITS] - st[s, S_WOUNDS]
    return art, pr


@njit(cache=True, inline="always")
def table_hits_to_rout(prm, par, st, s, sec, absorbs):
    """:func:`core.rout_hits` of section ``sec`` of seat ``s`` from the table (its
    :func:`protection`); the parrot counts when ``absorbs``."""
    a, p = protection(prm, par, st, s, sec)
    return core.rout_hits(st[s, S_RING + sec], a, p, p > 0, absorbs)


@njit(cache=True, _nrt=False)
def table_weakest(prm, par, st, s, absorbs):
    """(hits to rout, section) of seat ``s``'s weakest section from the table
    (:func:`table_hits_to_rout`, :func:`core.weakest_of`: the first of equals)."""
    h = (
        table_hits_to_rout(prm, par, st, s, HULL, absorbs),
        table_hits_to_rout(prm, par, st, s, CREW, absorbs),
        table_hits_to_rout(prm, par, st, s, CANNONS, absorbs),
        table_hits_to_rout(prm, par, st, s, SAILS, absorbs),
    )
    k = core.weakest_of(h[0], h[1], h[2], h[3])
    return h[k], k


#: the v1 player's reading (``players_v1.HeuristicPlayer._protection``), not a rule: its parrot
#: protects its section whether or not ``combat.parrot_absorbs_hits`` is on
V1_PARROT_ABSORBS = compiled.code(1)


@njit(cache=True, inline="always")
def view_hits_to_rout(prm, par, st, s, sec):
    """``HeuristicPlayer.hits_to_rout``: ring steps + Artisan + parrot on a section (the parrot
    always counts: :data:`V1_PARROT_ABSORBS`)."""
    return table_hits_to_rout(prm, par, st, s, sec, V1_PARROT_ABSORBS)


@njit(cache=True, inline="always")
def view_dice(val, par, st, s):
    """``HeuristicPlayer.dice``: the ship's dice from its public values (no Grapple)."""
    pr = st[s, S_PARROT]
    crew = value(val, st, s, CREW)
    cannons = value(val, st, s, CANNONS)
    return core.num_dice(
        crew, cannons, pr >= 0, par[pr, PA_FIXED_DICE] if pr >= 0 else 0,
        par[pr, PA_DICE_CANNONS] if pr >= 0 else 0, False,
    )  # fmt: skip


@njit(cache=True)
def dice_track(prm, val, par, st, s, sec_lo, sec_hi, n, out):
    """``HeuristicPlayer.dice_track``: our dice after 0..n hits on each section in
    ``sec_lo..sec_hi-1`` (protection absorbs first); only crew, cannons and the parrot decide the
    dice. Fills ``out[:n + 1]``."""
    pr = st[s, S_PARROT]
    for t in range(n + 1):
        crew_pos = st[s, S_RING + CREW]
        cannons_pos = st[s, S_RING + CANNONS]
        alive = pr >= 0
        for sec in range(sec_lo, sec_hi):
            a, p = protection(prm, par, st, s, sec)  # p > 0: the parrot sits there
            _a, ph, steps = core.absorb(t, a, p, p > 0, V1_PARROT_ABSORBS)
            if sec == CREW:
                crew_pos = core.ring_after(crew_pos, steps)[0]
            elif sec == CANNONS:
                cannons_pos = core.ring_after(cannons_pos, steps)[0]
            if p > 0 and ph == p:
                alive = False  # the parrot is dead
        out[t] = core.num_dice(
            val[CREW, crew_pos], val[CANNONS, cannons_pos], alive,
            par[pr, PA_FIXED_DICE] if pr >= 0 else 0,
            par[pr, PA_DICE_CANNONS] if pr >= 0 else 0, False,
        )  # fmt: skip


@njit(cache=True)
def pirate_odds(tab, st, oc, s, row):
    """``HeuristicPlayer.pirate_odds``: the exact odds that seat ``s`` alone sinks pirate
    ``row``, both standing, no cards (dice fall as crew or cannons are hit)."""
    prm, val, npc, par, pmf = tab.prm, tab.val, tab.npc, tab.par, tab.pmf
    ck, cv, V, trk = oc.ck, oc.cv, oc.V, oc.trk
    if npc[row, N_FIGHTS] == 0:
        return 1.0
    dmg = npc[row, N_DAMAGE]
    if dmg == D_EVERY:
        lo, hi = np.int64(0), np.int64(4)
        k = table_weakest(prm, par, st, s, V1_PARROT_ABSORBS)[0]
    else:
        lo, hi = dmg, dmg + 1
        k = view_hits_to_rout(prm, par, st, s, dmg)
    ptrk = trk[PIRATE_TRACK:]  # the duel track (trk[:PIRATE_TRACK]) is kept for later islands
    dice_track(prm, val, par, st, s, lo, hi, k, ptrk)
    first = view_speed(val, par, st, s) > npc[row, N_SAILS]
    return win_probability(
        ptrk, k + 1, npc[row, N_HULL], npc[row, N_DICE], k, first, npc[row, N_REGEN],
        npc[row, N_HULL], pmf, ck, cv, V,
    )  # fmt: skip


@njit(cache=True)
def duel_track(tab, st, s, trk):
    """``HeuristicPlayer._duel_track``: (hits that rout seat ``s`` at its weakest section, our
    dice after 0..hits hits there in ``trk``)."""
    prm, val, par = tab.prm, tab.val, tab.par
    hits, weak = table_weakest(prm, par, st, s, V1_PARROT_ABSORBS)
    dice_track(prm, val, par, st, s, weak, weak + 1, hits, trk)
    return hits


@njit(cache=True)
def duel_odds(tab, st, oc, hits, my_speed, o):
    """``HeuristicPlayer._duel_odds``: odds that our ship (``hits``, the track in ``oc``) routs
    seat ``o`` first, each standing at the other's weakest section (equal speeds: a die roll
    decides, the mean of both orders)."""
    prm, val, par, pmf = tab.prm, tab.val, tab.par, tab.pmf
    ck, cv, V, trk = oc.ck, oc.cv, oc.V, oc.trk
    their = table_weakest(prm, par, st, o, V1_PARROT_ABSORBS)[0]
    their_dice = view_dice(val, par, st, o)
    osp = view_speed(val, par, st, o)
    return duel_mean(trk, hits, their, their_dice, my_speed, osp, pmf, ck, cv, V)


@njit(cache=True)
def duel_mean(trk, hits, their, their_dice, my_speed, osp, pmf, ck, cv, V):
    """The duel chain's odds for our track ``trk`` (``hits`` to rout us) against an opponent
    needing ``their`` hits and rolling ``their_dice``: the faster ship fires first; equal
    speeds, the mean of both orders (the readable players' ``sum(...) / len(firsts)``)."""
    n, reg, cap = hits + 1, NO_REGEN, NO_REGEN_CAP
    got = 0.0
    if my_speed == osp:
        for first in (np.bool_(True), np.bool_(False)):
            got += win_probability(trk, n, their, their_dice, hits, first, reg, cap, pmf, ck, cv, V)
        return got / 2
    first = my_speed > osp
    got += win_probability(trk, n, their, their_dice, hits, first, reg, cap, pmf, ck, cv, V)
    return got / 1


@njit(cache=True, inline="always")
def room(val, par, st, s):
    """``HeuristicPlayer.room``: chests it can still hold (99: Flint)."""
    pr = st[s, S_PARROT]
    if pr >= 0 and par[pr, PA_UNLIMITED]:
        return 99
    return max(0, value(val, st, s, HULL) - st[s, S_CHESTS])


@njit(cache=True)
def has_map(g, seat, isl):
    """``(seat, isl) in obs.treasure_maps``."""
    for i in range(g[G_NMAPS]):
        if g[G_MAPS + 2 * i] == seat and g[G_MAPS + 2 * i + 1] == isl:
            return True
    return False


@njit(cache=True)
def pirates_at(g, npc, out):
    """The fighting-or-not pirate at each island 0..5 (``{isl: key for isl, key in
    obs.black_ships if key is not None}``: a later black ship overrides an earlier one); returns
    whether there is any."""
    for i in range(6):
        out[i] = -1
    anyp = False
    for b in range(g[G_NBLACK]):
        base = G_BLACK + 3 * b
        if g[base + 2] == 0 and g[base + 1] >= 0:
            out[g[base]] = g[base + 1]
            anyp = True
    return anyp


@njit(cache=True)
def guess_island(tab, g, st, s, pir):
    """``_guess_island``: the island opponent ``s`` is assumed to head for: the best card it can
    hold (outer islands without a fighting pirate), else Treasure Island."""
    val, tcard, npc = tab.val, tab.tcard, tab.npc
    best = TREASURE
    best_v = st[s, S_CHESTS] + st[s, S_GOLD] // 3 - 0.5
    rm = max(value(val, st, s, HULL) - st[s, S_CHESTS], 0)
    for isl in range(5):
        c = g[G_FACE_UP + isl]
        if c < 0 or (pir[isl] >= 0 and npc[pir[isl], N_FIGHTS] != 0):
            continue
        fame_gold = tcard[c, TC_FAME] + 0.3 * tcard[c, TC_GOLD]
        v = fame_gold + 0.8 * min(tcard[c, TC_CHESTS], rm) + 0.5 * tcard[c, TC_TAVERN]
        if v > best_v:
            best = isl
            best_v = v
    return best


@njit(cache=True)
def island_scores(tab, gs, oc, seat, scores, pir, opp):
    """``HeuristicPlayer.island_scores``: the value of sailing to each island 0..5 this month,
    into ``scores`` (draws the 6 noise terms from the seat's stream). ``pir``, ``opp``: int64
    scratch (6 and 6 x 8)."""
    prm, val, step, tcard, npc, par = tab.prm, tab.val, tab.step, tab.tcard, tab.npc, tab.par
    g, st, rs, pp = gs.g, gs.seats, gs.rs, gs.pp
    trk = oc.trk
    n = g[G_N]
    w_fame = pp[seat, W_FAME]
    rout_cost = pp[seat, ROUT_COST]
    last = g[G_MONTH] == prm[P_NUM_MONTHS]
    anyp = pirates_at(g, npc, pir)
    nopp = np.zeros(6, np.int64)
    model = pp[seat, OPPONENT_MODEL] != 0.0
    for s in range(n):
        if s == seat:
            continue
        isl = st[s, S_CHOSEN]
        if isl < 0:
            if not model:
                continue
            isl = guess_island(tab, g, st, s, pir)
        opp[isl, nopp[isl]] = s
        nopp[isl] += 1
    pn = pp[seat, NOISE]
    noise = np.empty(6, np.float64)
    for i in range(6):
        noise[i] = random(rs, 1 + seat)
    w_gold = pp[seat, W_GOLD]
    w_chest = pp[seat, W_CHEST]
    w_card = pp[seat, W_CARD]
    rm = room(val, par, st, seat)
    gold = st[seat, S_GOLD]
    rn = g[G_RN_ISLAND]
    hits = np.int64(-1)  # our side of the duel odds, once
    my_speed = view_speed(val, par, st, seat)
    for isl in range(6):
        v = 0.0
        if isl < 5:
            c = g[G_FACE_UP + isl]
            if c >= 0:
                chests = tcard[c, TC_CHESTS]
                if has_map(g, seat, isl):
                    chests *= prm[P_MAP_MULT]
                v += (
                    w_fame * tcard[c, TC_FAME]
                    + w_gold * tcard[c, TC_GOLD]
                    + w_chest * min(chests, rm)
                    + w_card * tcard[c, TC_TAVERN]
                )
            if isl == 0:
                v += pp[seat, TAVERN_BIAS]
                if not last:
                    v += w_card * min(pp[seat, BUY_CARDS], float(gold // 2))
            elif not last:
                sec = SAILS
                if isl == 1:
                    sec = HULL
                elif isl == 3:
                    sec = CANNONS
                elif isl == 4:
                    sec = CREW
                pos = st[seat, S_RING + sec]
                if (
                    pos < target(pp, seat, sec)
                    and pos < prm[P_NPOS]
                    and gold - step[pos] >= pp[seat, GOLD_RESERVE]
                ):
                    v += pp[seat, PRIO0 + sec]
        else:
            if last:
                spare = float(gold)
            else:
                spare = max(0.0, gold - pp[seat, BURY_RESERVE])
            bury = st[seat, S_CHESTS] * prm[P_BURY_CHEST_FAME] + py_floordiv(
                spare, float(prm[P_BURY_GOLD_PER_FAME])
            )
            v += w_fame * bury + pp[seat, TREASURE_BIAS] - 0.3
        if anyp:
            key = pir[isl]
            if key >= 0:
                if npc[key, N_FIGHTS] == 0:
                    v += w_fame * 3.5  # the Cacafuego: a d6 of fame
                else:
                    odds = pirate_odds(tab, st, oc, seat, key)
                    if odds < pp[seat, PIRATE_ODDS_MIN]:
                        v -= 100.0
                    else:
                        v = odds * (v + w_fame * npc[key, N_FAME]) - (1 - odds) * rout_cost
        if rn == isl:
            v -= rout_cost
        k = nopp[isl]
        if isl < 5 and k > 0:
            if hits < 0:
                hits = duel_track(tab, st, seat, trk)
            win = 1.0
            for j in range(k):
                win *= duel_odds(tab, st, oc, hits, my_speed, opp[isl, j])
            v = win * (v + k) - (1 - win) * rout_cost + pp[seat, FIGHT_BIAS] * k
        scores[isl] = v + noise[isl] * pn


@njit(cache=True)
def most_famous(st, rs, seat, cands, m):
    """``_most_famous``: the most famous of ``cands[:m]``, equal fame broken by the seat's
    generator (-1: none)."""
    if m == 0:
        return NONE
    top = st[cands[0], S_FAME]
    for i in range(1, m):
        top = max(top, st[cands[i], S_FAME])
    nb = np.int64(0)
    first = -1
    for i in range(m):
        if st[cands[i], S_FAME] == top:
            if nb == 0:
                first = cands[i]
            nb += 1
    if nb == 1:
        return first
    j = integers(rs, 1 + seat, nb)
    for i in range(m):
        if st[cands[i], S_FAME] == top:
            if j == 0:
                return cands[i]
            j -= 1
    return NONE


# ------------------------------------------------------------------ decisions off the battle
@njit(cache=True)
def arm(tab, gs, seat, ring, gold, legal, nl):
    """``_arm``: the next one-level raise of the secret initial arming (``ring``: the plan so
    far applied, ``gold``: what is left), or NONE."""
    step = tab.step
    pp = gs.pp
    best = NONE
    best_v = 0.0
    for i in range(nl):
        sec = legal[i]
        if sec == NONE:
            continue
        cost = step[ring[sec]]
        tg = target(pp, seat, sec)
        if ring[sec] < tg and gold - cost >= pp[seat, ARMING_RESERVE]:
            v = pp[seat, PRIO0 + sec] * (tg - ring[sec]) / (1 + cost)
            if v > best_v:
                best = sec
                best_v = v
    return best


@njit(cache=True)
def royal_navy(gs, seat, legal, nl, cands):
    """``_royal_navy``: the island of the most famous other ship at a legal island (NONE: keep
    the card)."""
    g, st, rs, pp = gs.g, gs.seats, gs.rs, gs.pp
    if pp[seat, USE_NAVY] == 0.0:
        return NONE
    m = np.int64(0)
    for s in range(g[G_N]):
        if s == seat:
            continue
        loc = st[s, S_LOC]
        ok = False
        for i in range(nl):
            if legal[i] != NONE and legal[i] == loc:
                ok = True
        if ok:
            cands[m] = s
            m += 1
    leader = most_famous(st, rs, seat, cands, m)
    if leader == NONE:
        return NONE
    return st[leader, S_LOC]


@njit(cache=True)
def letter_of_marque(gs, seat, legal, nl, cands):
    """``_letter_of_marque``: only when the Royal Navy is at our island: redirect it as
    :func:`royal_navy` would send it."""
    g, st = gs.g, gs.seats
    if g[G_RN_ISLAND] < 0 or g[G_RN_ISLAND] != st[seat, S_LOC]:
        return NONE
    return royal_navy(gs, seat, legal, nl, cands)


@njit(cache=True, inline="always")
def sneak_away(tab, gs, oc, seat, legal, nl, scores, pir, opp):
    """``_sneak_away``: the best legal island if it beats staying by more than 1."""
    if gs.pp[seat, PP_IS_EV] != 0.0:
        return players_ev.sneak_away(tab, gs, oc, seat, legal, nl)
    st, pp = gs.seats, gs.pp
    if pp[seat, USE_SNEAK] == 0.0:
        return NONE
    island_scores(tab, gs, oc, seat, scores, pir, opp)
    here = st[seat, S_LOC]
    best = NONE
    for i in range(nl):
        c = legal[i]
        if c == NONE:
            continue
        if best == NONE or scores[c] > scores[best]:
            best = c
    if best != NONE and scores[best] > scores[here] + 1.0:
        return best
    return NONE


@njit(cache=True, inline="always")
def navigate(tab, gs, oc, seat, scores, pir, opp):
    """``_navigate``: the first best island 0..5 by :func:`island_scores`."""
    if gs.pp[seat, PP_IS_EV] != 0.0:
        return players_ev.navigate(tab, gs, oc, seat)
    island_scores(tab, gs, oc, seat, scores, pir, opp)
    best = 0
    for i in range(6):
        if scores[i] > scores[best]:
            best = i
    return best


@njit(cache=True)
def parrot_swap(tab, gs, seat, drawn):
    """``_parrot_swap``: take the drawn parrot if we like it better by more than its fame cost."""
    if gs.pp[seat, PP_IS_EV] != 0.0:
        return players_ev.parrot_swap(tab, gs, seat, drawn)
    prm = tab.prm
    st, pp = gs.seats, gs.pp
    old = pp[seat, PP_PARROT0 + st[seat, S_PARROT]]
    new = pp[seat, PP_PARROT0 + drawn]
    return 1 if new - old > pp[seat, W_FAME] * prm[P_SWAP_COST] else 0


@njit(cache=True)
def buy_cards(tab, gs, seat, most):
    """``_buy_cards`` (legal: 0..most)."""
    if gs.pp[seat, PP_IS_EV] != 0.0:
        return players_ev.buy_cards(tab, gs, seat, most)
    prm = tab.prm
    g, st, pp = gs.g, gs.seats, gs.pp
    if g[G_MONTH] == prm[P_NUM_MONTHS] and pp[seat, PP_BUY_LAST_MONTH] == 0.0:
        return 0
    price = prm[P_CARD_PRICE]
    if price:
        afford = int(py_floordiv(st[seat, S_GOLD] - pp[seat, CARD_GOLD_RESERVE], float(price)))
    else:
        afford = most
    return max(0, min(most, int(pp[seat, BUY_CARDS]), afford))


@njit(cache=True)
def upgrade(tab, gs, seat, sec, most):
    """``_upgrade``: levels to raise at a section island, towards the target, keeping the gold
    reserve (legal: 0..most)."""
    prm, step = tab.prm, tab.step
    g, st, pp = gs.g, gs.seats, gs.pp
    if g[G_MONTH] == prm[P_NUM_MONTHS]:
        return 0
    pos = st[seat, S_RING + sec]
    gold = st[seat, S_GOLD]
    k = 0
    while k < most and pos < target(pp, seat, sec):
        cost = step[pos]
        if gold - cost < pp[seat, GOLD_RESERVE]:
            break
        gold -= cost
        pos += 1
        k += 1
    return k


@njit(cache=True)
def bury_gold(tab, gs, seat, most):
    """``_bury_gold`` (legal: 0..most bags)."""
    if gs.pp[seat, PP_IS_EV] != 0.0:
        return players_ev.bury_gold(tab, gs, seat, most)
    prm = tab.prm
    g, st, pp = gs.g, gs.seats, gs.pp
    if g[G_MONTH] == prm[P_NUM_MONTHS]:
        return most
    per = prm[P_BURY_GOLD_PER_FAME]
    k = max(0, int(py_floordiv(st[seat, S_GOLD] - pp[seat, BURY_RESERVE], float(per))))
    return min(k, most)


@njit(cache=True)
def ti_upgrade(tab, gs, seat, legal, nl):
    """``_treasure_island_upgrade``: the highest-priority legal section below its target."""
    prm = tab.prm
    g, st, pp = gs.g, gs.seats, gs.pp
    if pp[seat, TI_UPGRADE] == 0.0 or g[G_MONTH] == prm[P_NUM_MONTHS]:
        return NONE
    best = NONE
    for i in range(nl):
        s = legal[i]
        if s == NONE or st[seat, S_RING + s] >= target(pp, seat, s):
            continue
        if best == NONE or pp[seat, PRIO0 + s] > pp[seat, PRIO0 + best]:
            best = s
    return best


@njit(cache=True)
def artisan(tab, gs, seat, legal, nl):
    """``_artisan``: the legal section with the fewest hits to rout (less a tenth of its
    priority)."""
    if gs.pp[seat, PP_IS_EV] != 0.0:
        return players_ev.artisan(tab, gs, seat, legal, nl)
    prm, par = tab.prm, tab.par
    st, pp = gs.seats, gs.pp
    best = NONE
    best_v = 0.0
    for i in range(nl):
        s = legal[i]
        if s == NONE:
            continue
        v = view_hits_to_rout(prm, par, st, seat, s) - pp[seat, PRIO0 + s] * 0.1
        if best == NONE or v < best_v:
            best = s
            best_v = v
    return best


@njit(cache=True)
def artisan_repair(tab, gs, seat):
    """``_artisan_repair``."""
    st, pp = gs.seats, gs.pp
    return 1 if st[seat, S_GOLD] - tab.prm[P_ART_REPAIR] >= pp[seat, GOLD_RESERVE] - 1 else 0


@njit(cache=True)
def shipwright(gs, seat, legal, nl):
    """``_shipwright``: the legal section with the most priority-weighted levels to its target."""
    if gs.pp[seat, PP_IS_EV] != 0.0:
        return players_ev.shipwright(gs, seat, legal, nl)
    st, pp = gs.seats, gs.pp
    best = NONE
    best_v = 0.0
    for i in range(nl):
        s = legal[i]
        if s == NONE:
            continue
        v = pp[seat, PRIO0 + s] * max(0, target(pp, seat, s) - st[seat, S_RING + s])
        if best == NONE or v > best_v:
            best = s
            best_v = v
    return best


# ------------------------------------------------------------------ the battle policy
@njit(cache=True, inline="always")
def bview_hits(prm, bt, s, sec):
    """``ShipView.hits_to_rout()[sec]`` of battle ship ``s``: :func:`core.hits_to_rout` (ring
    steps + Artisan hits left + a living parrot's hits there when parrots absorb hits)."""
    return core.hits_to_rout(bt.pos, bt.art, bt.php, bt.psec, s, sec, prm[P_PARROT_ABSORBS])


@njit(cache=True)
def bview_weakest(prm, bt, s):
    """(fewest hits to rout, its section) of battle ship ``s`` (:func:`core.weakest_of`: the
    first of equals)."""
    h = (
        bview_hits(prm, bt, s, HULL),
        bview_hits(prm, bt, s, CREW),
        bview_hits(prm, bt, s, CANNONS),
        bview_hits(prm, bt, s, SAILS),
    )
    k = core.weakest_of(h[0], h[1], h[2], h[3])
    return h[k], k


@njit(cache=True, inline="always")
def bview_speed(tab, bt, s):
    """``ShipView.speed`` of battle ship ``s``: :func:`core.speed` (sails + Favourable wind and
    Overboard + a living parrot's bonus)."""
    val = tab.val
    return core.speed(
        val[SAILS, bt.pos[s, SAILS]], bt.bst[s, BT_BONUS], bt.php[s] > 0, bt.bsh[s, BS_PSPEED]
    )


@njit(cache=True)
def first_npc(bt):
    """``BattleView.npc``: the first present fighting non-player ship, else the first fighting
    one (-1: none); and whether it is present (``npc_fighting``)."""
    nst, bg = bt.nst, bt.bg
    first = -1
    for j in range(bg[BG_NNPC]):
        if nst[j, NS_FIGHTS] != 0:
            if nst[j, NS_PRESENT] != 0:
                return j, True
            if first < 0:
                first = j
    return first, False


@njit(cache=True, inline="always")
def battle_card(tab, gs, oc, bt, a, playable, npl):
    """``HeuristicPlayer.battle_card`` for ship ``a`` (its playable battle cards in
    ``playable[:npl]``, hand order): Smoke if not smoked; Favourable wind while not faster than
    every other ship present (the non-player ship's sails included); Grapple if crew > cannons;
    Becalmed from round 2 when another ship holds more cards. The random kind: uniform over
    None and its distinct cards."""
    pp = gs.pp
    seat = bt.bsh[a, BS_SEAT]
    if pp[seat, PP_IS_EV] != 0.0:
        return players_ev_battle.battle_card(
            tab, gs, oc, bt, a, playable, npl, oc.lt, oc.lmemo, pp[seat, PP_STAKE],
            pp[seat, PP_HV_CHEST],
        )  # fmt: skip
    val, npc = tab.val, tab.npc
    rs, pp = gs.rs, gs.pp
    bsh, pos, present, bst = bt.bsh, bt.pos, bt.present, bt.bst
    bg = bt.bg
    seat = bsh[a, BS_SEAT]
    if pp[seat, PP_IS_RANDOM] != 0.0:
        opts = np.empty(npl + 1, np.int64)
        no = np.int64(1)
        opts[0] = NONE
        for i in range(npl):
            c = playable[i]
            dup = False
            for j in range(1, no):
                if opts[j] == c:
                    dup = True
            if not dup:
                opts[no] = c
                no += 1
        return opts[integers(rs, 1 + seat, no)]
    if pp[seat, PLAY_CARDS] == 0.0:
        return NONE
    S = bg[BG_S]
    for card in (C_SMOKE, C_WIND, C_GRAPPLE, C_BECALMED):
        held = False
        for i in range(npl):
            if playable[i] == card:
                held = True
        if not held:
            continue
        if card == C_SMOKE and bst[a, BT_SMOKE] == 0:
            return card
        if card == C_WIND:
            fastest = 0
            for s in range(S):
                if s != a and present[s]:
                    fastest = max(fastest, bview_speed(tab, bt, s))
            j, fighting = first_npc(bt)
            if fighting:
                fastest = max(fastest, npc[bt.nst[j, NS_ROW], N_SAILS])
            if bview_speed(tab, bt, a) <= fastest:
                return card
        if card == C_GRAPPLE and bg[BG_GRAPPLE] == 0:
            # the v1 player's reading, not the dice rule: more crew than cannons (its parrot's
            # dice power ignored)
            crew = val[CREW, pos[a, CREW]]
            cannons = val[CANNONS, pos[a, CANNONS]]
            if crew > cannons:
                return card
        if card == C_BECALMED and bg[BG_CARD_ROUND] > 1:
            others = False
            most = 0
            for s in range(S):
                if s != a and present[s]:
                    others = True
                    most = max(most, bst[s, BT_HAND_N])
            if others and most > npl:
                return card
    return NONE


@njit(cache=True, inline="always")
def overboard_chests(tab, gs, oc, bt, a, chests):
    """``HeuristicPlayer.overboard_chests``: none (the random kind: uniform 0..chests)."""
    pp = gs.pp
    seat = bt.bsh[a, BS_SEAT]
    if pp[seat, PP_IS_EV] != 0.0:
        return players_ev_battle.overboard_chests(
            tab, gs, oc, bt, a, chests, oc.lt, oc.lmemo, pp[seat, PP_STAKE], pp[seat, PP_HV_CHEST]
        )
    rs, pp = gs.rs, gs.pp
    seat = bt.bsh[a, BS_SEAT]
    if pp[seat, PP_IS_RANDOM] != 0.0:
        return integers(rs, 1 + seat, chests + 1)
    return 0


@njit(cache=True)
def weakest(tab, gs, bt, a, exclude, navy):
    """``HeuristicPlayer.weakest``: the forced non-player target (-1), else the present ship (not
    ``exclude``) with the fewest hits to rout, at its weakest section; equal ships picked by the
    player's generator. Returns (ship index or -1, section)."""
    prm = tab.prm
    rs = gs.rs
    bsh, present = bt.bsh, bt.present
    bg = bt.bg
    seat = bsh[a, BS_SEAT] if a >= 0 else bg[BG_CONTROLLER]  # the navy: its controller
    if not navy:
        j, fighting = first_npc(bt)
        if fighting:
            return -1, HULL
    S = bg[BG_S]
    key = 1 << 30
    nb = np.int64(0)
    for s in range(S):
        if s == exclude or not present[s]:
            continue
        hk = bview_weakest(prm, bt, s)[0]
        if hk < key:
            key = hk
            nb = np.int64(1)
        elif hk == key:
            nb += 1
    if nb == 0:
        return -1, HULL
    j = integers(rs, 1 + seat, nb) if nb > 1 else 0
    for s in range(S):
        if s == exclude or not present[s]:
            continue
        h0, kk = bview_weakest(prm, bt, s)
        if h0 == key:
            if j == 0:
                return s, kk
            j -= 1
    return -1, HULL


@njit(cache=True, inline="always")
def broadside(tab, gs, oc, bt, a, volley):
    """``HeuristicPlayer.broadside`` for ship ``a``: returns (flee, target ship or -1 for the
    non-player ship, section) and the volley cards it plays, in order, in ``volley[:3]`` (-1
    padded). Flight: when a section is ``flee_hits_left`` hits from destruction and the ship was
    hit, or against a pirate when the odds of sinking it fell below ``flee_pirate_odds``. The
    random kind: uniform over its aims and flight, each distinct volley card with chance 1/2."""
    pp = gs.pp
    seat = bt.bsh[a, BS_SEAT]
    if pp[seat, PP_IS_EV] != 0.0:
        return players_ev_battle.broadside(
            tab, gs, oc, bt, a, volley, oc.lt, oc.lmemo, oc.ct, oc.cmemo, pp[seat, PP_STAKE],
            pp[seat, PP_GOLD_SEEN],
        )  # fmt: skip
    prm, val, npc, pmf = tab.prm, tab.val, tab.npc, tab.pmf
    rs, pp = gs.rs, gs.pp
    ck, cv, V, trk = oc.ck, oc.cv, oc.V, oc.trk
    bsh, pos, php, was_hit, present, bst, bhand = (
        bt.bsh,
        bt.pos,
        bt.php,
        bt.was_hit,
        bt.present,
        bt.bst,
        bt.bhand,
    )
    bg = bt.bg
    seat = bsh[a, BS_SEAT]
    S = bg[BG_S]
    volley[0] = -1
    volley[1] = -1
    volley[2] = -1
    j, fighting = first_npc(bt)
    nh = bst[a, BT_HAND_N]
    if pp[seat, PP_IS_RANDOM] != 0.0:  # _random_broadside
        if fighting:
            naims = 1
        else:
            naims = 0
            for s in range(S):
                if present[s] and s != a:
                    naims += 4
        k = integers(rs, 1 + seat, naims + 1)
        if k == naims:
            return True, -1, HULL
        if fighting:
            tgt, sec = -1, HULL
        else:
            tgt, sec = -1, HULL
            q = 0
            for s in range(S):
                if present[s] and s != a:
                    if k < q + 4:
                        tgt, sec = s, k - q
                        break
                    q += 4
        if bst[a, BT_CAN_FIRE] and not bg[BG_BECALMED]:
            nv = 0
            for i in range(nh):
                c = bhand[a, i]
                dup = False
                for z in range(i):
                    if bhand[a, z] == c:
                        dup = True
                if dup or c < VOLLEY_LO or c > VOLLEY_HI:
                    continue
                if random(rs, 1 + seat) < 0.5:
                    volley[nv] = c
                    nv += 1
        return False, tgt, sec
    hmin = bview_weakest(prm, bt, a)[0]
    fh = pp[seat, FLEE_HITS_LEFT]
    if fh != 0.0 and hmin <= fh and was_hit[a]:
        return True, -1, HULL
    if fighting and pp[seat, FLEE_PIRATE_ODDS] > 0:
        row = bt.nst[j, NS_ROW]
        if row < prm[P_NPIRATES] and was_hit[a]:  # a Legendary Pirate (not the Royal Navy)
            dmg = npc[row, N_DAMAGE]
            if dmg == D_EVERY:
                k = hmin
            else:
                k = bview_hits(prm, bt, a, dmg)
            pr = bsh[a, BS_PARROT]
            # the v1 player's reading (``players_v1._battle_dice``), not a rule: a destroyed
            # crew or cannons section reads as its first position
            nd = core.num_dice(
                val[CREW, max(pos[a, CREW], 1)], val[CANNONS, max(pos[a, CANNONS], 1)],
                php[a] > 0 and pr >= 0, bsh[a, BS_PFIXED], bsh[a, BS_PBONES],
                bg[BG_GRAPPLE] != 0,
            )  # fmt: skip
            ptrk = trk[PIRATE_TRACK:]
            for t in range(k + 1):
                ptrk[t] = nd
            odds = win_probability(
                ptrk, k + 1, bt.nst[j, NS_HULL], npc[row, N_DICE], k,
                bview_speed(tab, bt, a) > npc[row, N_SAILS], npc[row, N_REGEN], npc[row, N_HULL],
                pmf, ck, cv, V,
            )  # fmt: skip
            if odds < pp[seat, FLEE_PIRATE_ODDS]:
                return True, -1, HULL
    tgt, sec = weakest(tab, gs, bt, a, a, np.bool_(False))
    if pp[seat, PLAY_CARDS] != 0.0 and bst[a, BT_CAN_FIRE] and not bg[BG_BECALMED]:
        nv = 0
        held_c = held_g = held_k = False
        for i in range(nh):
            c = bhand[a, i]
            held_c = held_c or c == C_CANNONADE
            held_g = held_g or c == C_GRAPESHOT
            held_k = held_k or c == C_KEG
        if held_c and tgt != -1:
            volley[nv] = C_CANNONADE
            nv += 1
        if held_g and bview_hits(prm, bt, a, CANNONS) > 3:
            volley[nv] = C_GRAPESHOT
            nv += 1
        if held_k and bview_hits(prm, bt, a, HULL) > 3:
            volley[nv] = C_KEG
            nv += 1
    return False, tgt, sec


@njit(cache=True)
def navy_target(tab, gs, bt, controller):
    """``HeuristicPlayer.navy_target`` of the controller's seat: the weakest present ship at its
    weakest section (the random kind: a uniform present ship and section). Returns (ship,
    section)."""
    if gs.pp[controller, PP_IS_EV] != 0.0:
        return players_ev_battle.navy_target(tab, gs, bt, controller)
    rs, pp = gs.rs, gs.pp
    present = bt.present
    S = bt.bg[BG_S]
    if pp[controller, PP_IS_RANDOM] != 0.0:
        m = np.int64(0)
        for s in range(S):
            if present[s]:
                m += 1
        k = integers(rs, 1 + controller, m)
        tgt = -1
        for s in range(S):
            if present[s]:
                if k == 0:
                    tgt = s
                    break
                k -= 1
        return tgt, integers(rs, 1 + controller, np.int64(4))
    return weakest(tab, gs, bt, NONE, NONE, np.bool_(True))


@njit(cache=True)
def default_navy_target(tab, bt):
    """``RoyalNavyPolicy.target`` (no controller): the present ship with the fewest hits to rout,
    the lowest seat of equals, at its weakest section (the first of equals)."""
    prm = tab.prm
    present = bt.present
    S = bt.bg[BG_S]
    best = -1
    best_h = 1 << 30
    best_k = 0
    for s in range(S):
        if not present[s]:
            continue
        hk, kk = bview_weakest(prm, bt, s)
        if hk < best_h:  # ships are in seat order: the first of equals is the lowest seat
            best, best_h, best_k = s, hk, kk
    return best, best_k


# the expected-value kinds (root "heuristic"): the decisions above dispatch to them for the seats
# with pp[seat, PP_IS_EV] (imported last: players_ev uses this module's helpers)
from simulator.cove.fast import players_ev, players_ev_battle  # noqa: E402
