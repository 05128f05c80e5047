"""The search player (kind ``rollout``), compiled: the month simulated ahead for each candidate.

Rules: "Navigation" and the month's later phases of ``../shared/rules/pirates-cove.md`` (the
engine's own phase functions play them); the kind is ``[kinds.rollout]`` of
``scenarios/cove/standard.toml`` (``rollout`` extends ``balanced``: it has every parameter of the
expected-value players, whose every other decision it takes, :mod:`.players_ev`).

Navigation (:func:`navigate`): the ``rollout_candidates`` best islands by the expected-value
player's values (:func:`simulator.cove.fast.players_ev.island_values`, every island exact; equal
values in island order) are each simulated ``rollouts`` (K) times through the rest of the month;
the ship sails where the mean value at the end of the month is highest (the first of equals in the
candidates' order).

One rollout (:func:`determinize`, :func:`opponent_picks`, :func:`simulate`):

* **Hidden information resampled from what the player can know.** Its own hand and the public
  board (ships, gold, chests, fame, parrots, Artisans, face-up Treasure cards, black ships and
  their pirates, Treasure maps and Plunder cards in play, the bank, the sizes of hands and decks,
  the pirate discard, the islands already announced) are copied; each opponent's hand is drawn
  from the Tavern cards the player has not seen (:func:`unseen_cards`: the scenario's deck minus
  its own hand and the parrots and Artisans on the ships; parrots never go to a hand), the Tavern
  deck and discard are the rest in random order, the Legendary Pirate deck the pirate cards not
  seen (on a black ship or discarded) in random order. The cards in play this month and the
  Treasure stacks are left out (nothing in the rest of the month reads them).
* **Opponents played by models the player can have** (``rollout_opponents``): each opponent is a
  fresh player of a default-mix strategy that is not a search player, drawn per opponent and
  rollout (``"mix"``), or ``balanced`` (``"balanced"``) -- the rows of
  :func:`simulator.cove.fast.packed.rollout_models` (``oc.rm``), never the opponent's own row.
  Those that have not announced an island choose one by their model on the determinized board
  (secret and simultaneous: the same choices for every candidate island).
* **The month played by the engine itself**: our ship sails to the candidate island, the others
  to their models' choices, then the game's own end-of-navigation events, combat, plunder, island
  effects, black ships and cargo (:mod:`simulator.cove.fast.game`), our ship played by a fresh
  copy of this player's expected-value self (its own parameters, state reset), every other seat
  by its model.
* **Value at the end of the month** (:func:`state_value`): fame, plus the fame cards in hand, plus
  gold and chests at this month's holding values (``players_ev.holding_values``: nothing after
  the last safe burial), other Tavern cards at ``w_card``, ring levels up to the targets at
  ``LEVEL_WEIGHT * prio``.

Randomness: the player's own stream only (row ``1 + seat`` of ``rs``, never the game's dice): per
decision the six noise numbers of the values, then one 63-bit seed per rollout. A seed gives the
rollout's streams as numpy's ``SeedSequence(seed).spawn`` would (:mod:`.seedseq`: child ``(0,)``
deals the hidden cards and then rolls the month's dice, ``(1,)`` draws the opponents' models and
``(1, i)`` is seat ``i``'s stream while the models choose islands, ``(2, i)`` seat ``i``'s stream
during the month). Every candidate island is simulated on the same K seeds (common random
numbers: the same deal, models, choices and dice), so differences between islands are not
sampling noise of the deals and dice.

Buffers: each decision allocates two game states shaped like the game's (a template holding the
determinized deal, and a work copy each simulation starts from), its own game scratch and battle
state (:func:`simulator.cove.fast.game.game_scratch`, :func:`simulator.cove.fast.battle.scratch`);
the game's own buffers are never written, but for the deciding seat's stream, its state columns
of ``pp`` (``_stake``, ``_hv_chest``) and the decision records.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator import compiled
from simulator.cove.fast import battle, core, game, players_ev
from simulator.cove.fast.packed import (
    BL_COLS,
    C_ARTISAN,
    C_PARROT0,
    CK_ARG,
    CK_KIND,
    D_DISCARD,
    D_PDISC,
    D_PIRATE,
    D_TAVERN,
    DR_COLS,
    G_BLACK,
    G_CHECK,
    G_DECISIONS,
    G_DISC_N,
    G_ERR_A,
    G_ERR_B,
    G_ERR_C,
    G_ERROR,
    G_N,
    G_NBLACK,
    G_NDEC,
    G_NLOG,
    G_NREC,
    G_NTRACE,
    G_PDISC_N,
    G_PHASE,
    G_PIR_N,
    G_PLAY_N,
    G_RECORD,
    G_STACK_N,
    G_SWAP_SEAT,
    G_TAV_N,
    G_TRACE,
    HULL,
    K_FAME,
    K_PARROT,
    OPP_BALANCED,
    P_NCODES,
    P_NPDECK,
    P_NPOS,
    P_NTAVERN,
    PA_UNLIMITED,
    PH_NAVIGATION,
    PP,
    PP_CANDIDATES,
    PP_GOLD_SEEN,
    PP_HV_CHEST,
    PP_IS_ROLLOUT,
    PP_MONTH_SEEN,
    PP_OPP_MODEL,
    PP_ROLLOUTS,
    PP_STAKE,
    RC_COLS,
    S_ART,
    S_CHESTS,
    S_CHOSEN,
    S_FAME,
    S_GOLD,
    S_HAND,
    S_HAND_N,
    S_LOC,
    S_PARROT,
    S_RING,
    TR_COLS,
    GameState,
)
from simulator.cove.fast.records import recording
from simulator.cove.fast.rng import R_COLS, integers, next64, permutation
from simulator.cove.fast.seedseq import POOL_SIZE, pcg64_seed, seed_pool

NUM_NAV = 6  # islands a ship may sail to
LEVEL_WEIGHT = 0.75  # value of a ring level up to the target, times its section's prio
#: battle log rows of a simulated month (at most a Legendary Pirate and the Royal Navy at each of
#: two black-ship islands: 4 rows; the rest is margin)
MONTH_LOG_ROWS = 16
# the parameter columns the value reads (the heuristic kind's names)
W_CARD = PP["w_card"]
W_CHEST = PP["w_chest"]
TARGET0 = PP["target_hull"]
PRIO0 = PP["prio_hull"]
# a rollout's streams (rows of its stream array), numpy's SeedSequence(seed).spawn tree
ST_DEAL = compiled.code(0)  # child (0,): the hidden cards, then the month's dice
ST_MODELS = compiled.code(1)  # child (1,): which model plays each opponent
ST_PICK0 = compiled.code(
    2
)  # child (1, i): seat i's stream while the models choose islands (rows 2 .. 2 + n - 1)
# child (2, i): seat i's stream during the simulated month (rows 2 + n .. 2 + 2 n - 1)


# ------------------------------------------------------------------ buffers and streams
@njit(cache=True)
def new_state(gs):
    """A game state shaped like ``gs`` (the same array types; small card record, trace and
    decision buffers, which a rollout leaves off, and a month's battle log)."""
    g, st, dk, rs, pp, dice, dctx = gs.g, gs.seats, gs.dk, gs.rs, gs.pp, gs.dice, gs.dctx
    return GameState(
        np.zeros_like(g),
        np.zeros_like(st),
        np.zeros_like(dk),
        np.zeros((1, RC_COLS), np.int64),
        np.zeros((MONTH_LOG_ROWS, BL_COLS), np.int64),
        np.zeros((1, TR_COLS), np.int64),
        np.zeros_like(rs),
        np.zeros_like(pp),
        np.zeros_like(dice),
        np.zeros_like(dctx),
        np.zeros((1, DR_COLS), np.float64),
    )


@njit(cache=True)
def restore(dst, src):
    """``dst`` := ``src`` (the arrays a simulated month reads and writes; not the logs)."""
    dst.g[:] = src.g
    dst.seats[:, :] = src.seats
    dst.dk[:, :] = src.dk
    dst.rs[:, :] = src.rs
    dst.pp[:, :] = src.pp
    dst.dice[:] = src.dice
    dst.dctx[:] = src.dctx


@njit(cache=True)
def child_stream(seed, key0, key1, n_key, out, row):
    """Row ``row`` of ``out`` := the PCG64 state of ``SeedSequence(seed, spawn_key=(key0,)`` or
    ``(key0, key1))`` (``n_key`` 1 or 2): numpy's child of ``SeedSequence(seed)``."""
    entropy = np.empty(2, np.int64)
    entropy[0] = np.int64(seed & np.uint64(0xFFFFFFFF))
    entropy[1] = np.int64(seed >> np.uint64(32))
    n_entropy = 1 if entropy[1] == 0 else 2
    key = np.empty(2, np.int64)
    key[0] = key0
    key[1] = key1
    pool = np.empty(POOL_SIZE, np.uint64)
    seed_pool(entropy, n_entropy, key, n_key, pool)
    pcg64_seed(pool, out, row)


@njit(cache=True)
def rollout_streams(seed, n, out):
    """A rollout's streams into ``out[2 + 2 n, R_COLS]`` (``ST_*`` rows)."""
    child_stream(seed, np.int64(0), np.int64(0), np.int64(1), out, ST_DEAL)
    child_stream(seed, np.int64(1), np.int64(0), np.int64(1), out, ST_MODELS)
    for i in range(n):
        child_stream(seed, np.int64(1), i, np.int64(2), out, ST_PICK0 + i)
        child_stream(seed, np.int64(2), i, np.int64(2), out, ST_PICK0 + n + i)


# ------------------------------------------------------------------ the hidden information
@njit(cache=True)
def unseen_cards(tab, gs, seat, out):
    """The Tavern cards seat ``seat`` has not seen, into ``out`` (card codes, in code order);
    returns how many: the scenario's deck minus its own hand and the parrots and Artisans on the
    ships (a card the deck does not hold, the card-value blank, is skipped)."""
    prm, tdeck = tab.prm, tab.tdeck
    g, st = gs.g, gs.seats
    count = np.zeros(prm[P_NCODES], np.int64)
    for i in range(prm[P_NTAVERN]):
        count[tdeck[i]] += 1
    for i in range(st[seat, S_HAND_N]):
        c = st[seat, S_HAND + i]
        if count[c] > 0:
            count[c] -= 1
    for s in range(g[G_N]):
        if st[s, S_PARROT] >= 0 and count[C_PARROT0 + st[s, S_PARROT]] > 0:
            count[C_PARROT0 + st[s, S_PARROT]] -= 1
        for k in range(4):
            if st[s, S_ART + k] >= 0 and count[C_ARTISAN] > 0:
                count[C_ARTISAN] -= 1
    m = 0
    for c in range(prm[P_NCODES]):
        for _ in range(count[c]):
            out[m] = c
            m += 1
    return m


@njit(cache=True)
def _shuffled(rs, items, m, perm, tmp):
    """``items[:m]`` in the order of ``Generator.permutation(m)`` drawn from row 0 of ``rs``."""
    permutation(rs, np.int64(0), m, perm)
    for i in range(m):
        tmp[i] = items[perm[i]]
    for i in range(m):
        items[i] = tmp[i]


@njit(cache=True, inline="always")
def determinize(tab, gs, tm, seat, deal):
    """The template ``tm`` := the game ``gs`` at the navigation of this month as seat ``seat``
    may know it, the hidden parts drawn from the stream row ``deal`` (module docstring); the
    template's dice stream (row 0) is that stream after the deal's draws."""
    prm, ckind, pdeck = tab.prm, tab.ckind, tab.pdeck
    g, st, dk = gs.g, gs.seats, gs.dk
    tg, tst, tdk, trs, tdctx = tm.g, tm.seats, tm.dk, tm.rs, tm.dctx
    n = g[G_N]
    tg[:] = g
    for flag in (G_TRACE, G_RECORD, G_CHECK, G_DECISIONS, G_NREC, G_NLOG, G_NTRACE, G_NDEC):
        tg[flag] = 0
    for k in range(G_ERROR, G_ERR_C + 1):  # the code and its details (month, phase, a, b, c)
        tg[k] = 0
    tg[G_SWAP_SEAT] = -1
    tg[G_PHASE] = PH_NAVIGATION
    tg[G_PLAY_N] = 0  # the cards in play this month go with the unseen ones
    for i in range(5):
        tg[G_STACK_N + i] = 0
    tst[:, :] = st
    tdk[:, :] = 0
    trs[0, :] = deal
    tdctx[:] = 0
    tdctx[core.DX_P] = tm.dice.shape[0]  # the dice buffer empty: refilled from the deal's stream
    tdctx[core.DX_REFILL] = 1
    tdctx[core.DX_RS] = 0
    # the Tavern cards: opponents' hands first, then the deck and the discard
    width = max(prm[P_NTAVERN], prm[P_NPDECK]) + 1
    pool = np.empty(width, np.int64)
    perm = np.empty(width, np.int64)
    tmp = np.empty(width, np.int64)
    m = unseen_cards(tab, gs, seat, pool)
    _shuffled(trs, pool, m, perm, tmp)
    cards = np.empty(width, np.int64)  # the non-parrots in the shuffled order, then the parrots
    nc = 0
    for i in range(m):
        if ckind[pool[i], CK_KIND] != K_PARROT:
            cards[nc] = pool[i]
            nc += 1
    npar = nc
    for i in range(m):
        if ckind[pool[i], CK_KIND] == K_PARROT:
            cards[npar] = pool[i]
            npar += 1
    used = 0
    for s in range(n):
        if s == seat:
            continue
        size = min(tst[s, S_HAND_N], nc - used)  # (never short: the hands were dealt from them)
        for i in range(size):
            tst[s, S_HAND + i] = cards[used + i]
        tst[s, S_HAND_N] = size
        used += size
    left = np.int64(0)
    for i in range(used, npar):
        cards[left] = cards[i]
        left += 1
    _shuffled(trs, cards, left, perm, tmp)
    deck = min(g[G_TAV_N], left)
    for i in range(deck):
        tdk[D_TAVERN, i] = cards[i]
    tg[G_TAV_N] = deck
    for i in range(deck, left):
        tdk[D_DISCARD, i - deck] = cards[i]
    tg[G_DISC_N] = left - deck
    # the Legendary Pirate deck: the pirate cards not seen, in random order
    for i in range(g[G_PDISC_N]):
        tdk[D_PDISC, i] = dk[D_PDISC, i]
    np_ = np.int64(0)
    for i in range(prm[P_NPDECK]):
        key = pdeck[i]
        seen = False
        for b in range(g[G_NBLACK]):
            if g[G_BLACK + 3 * b + 1] == key:
                seen = True
        for j in range(g[G_PDISC_N]):
            if dk[D_PDISC, j] == key:
                seen = True
        if not seen:
            pool[np_] = key
            np_ += 1
    _shuffled(trs, pool, np_, perm, tmp)
    tg[G_PIR_N] = min(np_, g[G_PIR_N])
    for i in range(tg[G_PIR_N]):
        tdk[D_PIRATE, i] = pool[i]


# ------------------------------------------------------------------ the players of a rollout
@njit(cache=True)
def seat_players(gs, oc, seat, streams, models):
    """Which parameter row of ``oc.rm`` plays each opponent (``models[s]``; -1 for our seat):
    drawn from the rollout's models stream, one per opponent in seat order (``"mix"``), or row
    0, ``balanced``."""
    pp, rm = gs.pp, oc.rm
    n = gs.g[G_N]
    n_mix = rm.shape[0] - 1
    for s in range(n):
        if s == seat:
            models[s] = -1
        elif pp[seat, PP_OPP_MODEL] == OPP_BALANCED or n_mix == 0:
            models[s] = 0
        else:
            models[s] = 1 + integers(streams, ST_MODELS, n_mix)


@njit(cache=True)
def set_players(gs, oc, seat, models, work, streams, first):
    """Seat the rollout's players in ``work``: our seat the player itself with a fresh state
    (an expected-value player: it does not search again), the others their models' rows; seat
    ``i`` draws from stream row ``first + i``."""
    pp, rm = gs.pp, oc.rm
    wpp, wrs = work.pp, work.rs
    for s in range(gs.g[G_N]):
        if s == seat:
            wpp[s, :] = pp[seat]
            wpp[s, PP_IS_ROLLOUT] = 0.0
            wpp[s, PP_STAKE] = 0.0
            wpp[s, PP_HV_CHEST] = pp[seat, W_CHEST]
            wpp[s, PP_GOLD_SEEN] = 0.0
            wpp[s, PP_MONTH_SEEN] = 0.0
        else:
            wpp[s, :] = rm[models[s]]
        wrs[1 + s, :] = streams[first + s]


@njit(cache=True, inline="always")
def opponent_picks(tab, gs, oc, tm, work, sc, seat, models, streams, picks):
    """The islands the opponents' models choose on the determinized board (announced ones
    kept; ours left at -1) into ``picks``: secret and simultaneous, so the same for every
    candidate island."""
    n = gs.g[G_N]
    restore(work, tm)
    set_players(gs, oc, seat, models, work, streams, ST_PICK0)
    wst = work.seats
    for s in range(n):
        picks[s] = wst[s, S_CHOSEN]
    for s in range(n):
        if s != seat and picks[s] < 0:
            picks[s] = game._navigate_model(tab, work, oc, sc, s)
    picks[seat] = -1


@njit(cache=True, inline="always")
def simulate(tab, gs, oc, tm, work, sc, bt, seat, models, streams, picks, island, hv_gold, hv):
    """One rollout of the month with our ship sent to ``island`` (module docstring): the value
    of our ship at its end (``hv``: this month's chest value)."""
    n = gs.g[G_N]
    restore(work, tm)
    set_players(gs, oc, seat, models, work, streams, ST_PICK0 + n)
    wst = work.seats
    for s in range(n):
        wst[s, S_CHOSEN] = island if s == seat else picks[s]
        wst[s, S_LOC] = wst[s, S_CHOSEN]
    game._end_of_navigation_events(tab, work, oc, sc)
    game._phase_combat(tab, work, oc, sc, bt)
    game._phase_plunder(tab, work, oc, sc)
    game._phase_island_effects(tab, work, oc, sc)
    game._phase_black_ships(tab, work, oc, sc)
    return state_value(tab, gs, work, seat, hv_gold, hv)


@njit(cache=True)
def state_value(tab, gs, work, seat, hv_gold, hv_chest):
    """Our value at the end of the simulated month (fame units; module docstring): ``pp`` of the
    game for our parameters, ``work`` for the month's end."""
    val, par, ckind = tab.val, tab.par, tab.ckind
    pp = gs.pp
    st = work.seats
    chests = st[seat, S_CHESTS]
    pr = st[seat, S_PARROT]
    if pr < 0 or par[pr, PA_UNLIMITED] == 0:
        chests = min(chests, val[HULL, st[seat, S_RING + HULL]])
    v = st[seat, S_FAME] + hv_gold * st[seat, S_GOLD] + hv_chest * chests
    for i in range(st[seat, S_HAND_N]):
        c = st[seat, S_HAND + i]
        if ckind[c, CK_KIND] == K_FAME:
            v += ckind[c, CK_ARG]
        else:
            v += pp[seat, W_CARD]
    for sec in range(4):
        level = min(float(st[seat, S_RING + sec]), pp[seat, TARGET0 + sec])
        v += LEVEL_WEIGHT * pp[seat, PRIO0 + sec] * level
    return v


# ------------------------------------------------------------------ the decision
@njit(cache=True)
def candidates(scores, k, out):
    """The ``k`` best islands by ``scores``, highest first, equal ones in island order (a stable
    sort), into ``out``; returns how many."""
    order = np.arange(NUM_NAV)
    for i in range(1, NUM_NAV):
        j = i
        while j > 0 and scores[order[j - 1]] < scores[order[j]]:
            t = order[j]
            order[j] = order[j - 1]
            order[j - 1] = t
            j -= 1
    k = max(1, min(k, NUM_NAV))
    for i in range(k):
        out[i] = order[i]
    return k


@njit(cache=True)
def _fail(g, work):
    """A rollout's game stopped (an illegal choice, a full buffer): the game stops with it."""
    if g[G_ERROR] == 0:
        game._error(g, work.g[G_ERROR], work.g[G_ERR_A], work.g[G_ERR_B], work.g[G_ERR_C])


@njit(cache=True, inline="always")
def navigate(tab, gs, oc, seat):
    """The search player's island (module docstring); keeps ``_stake`` and ``_hv_chest`` as the
    expected-value player does, and writes the decision record (each candidate's value its mean
    simulated value)."""
    prm, npc = tab.prm, tab.npc
    g, st, dk, rs, pp = gs.g, gs.seats, gs.dk, gs.rs, gs.pp
    n = g[G_N]
    scores = np.empty(NUM_NAV, np.float64)
    det = np.empty((NUM_NAV, players_ev.DET_COLS), np.float64)
    hv_chest, alone = players_ev.island_values(tab, gs, oc, seat, scores, np.bool_(False), det)
    hv_gold, _hv, _last = players_ev.holding_values(prm, npc, g, pp, seat)
    cands = np.empty(NUM_NAV, np.int64)
    nc = candidates(scores, int(pp[seat, PP_CANDIDATES]), cands)
    k = int(pp[seat, PP_ROLLOUTS])
    seeds = np.empty(k, np.uint64)
    for r in range(k):
        seeds[r] = next64(rs, 1 + seat) >> np.uint64(1)
    values = np.zeros(NUM_NAV, np.float64)
    if nc > 1:
        tm = new_state(gs)
        work = new_state(gs)
        sc = game.game_scratch(n, prm[P_NPOS], dk.shape[1])
        bt = battle.scratch(st.shape[1] - S_HAND)
        streams = np.empty((ST_PICK0 + 2 * n, R_COLS), np.uint64)
        models = np.empty(n, np.int64)
        picks = np.empty(n, np.int64)
        for r in range(k):
            rollout_streams(seeds[r], n, streams)
            seat_players(gs, oc, seat, streams, models)
            determinize(tab, gs, tm, seat, streams[ST_DEAL])
            opponent_picks(tab, gs, oc, tm, work, sc, seat, models, streams, picks)
            if work.g[G_ERROR]:
                _fail(g, work)
                break
            for i in range(nc):
                c = cands[i]
                v = simulate(
                    tab, gs, oc, tm, work, sc, bt, seat, models, streams, picks, c, hv_gold,
                    hv_chest,
                )  # fmt: skip
                if work.g[G_ERROR]:
                    _fail(g, work)
                    break
                values[c] += v / k
            if g[G_ERROR]:
                break
    best = cands[0]
    for i in range(1, nc):
        if values[cands[i]] > values[best]:
            best = cands[i]
    pp[seat, PP_STAKE] = alone[best]
    pp[seat, PP_HV_CHEST] = hv_chest
    if recording(gs):
        for i in range(nc):
            scores[cands[i]] = values[cands[i]]
        players_ev.record_navigation(gs, seat, scores, det, best)
    return best


__all__ = [
    "LEVEL_WEIGHT",
    "candidates",
    "determinize",
    "navigate",
    "opponent_picks",
    "simulate",
    "state_value",
    "unseen_cards",
]
