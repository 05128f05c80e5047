"""The full game: setup, the twelve months and the end (the one engine of Pirate's Cove).

Rules: ``../shared/rules/pirates-cove.md`` (all of it), readings in ``docs/rules-cove.md``. Setup
(shuffles, black ships, starting cards, the secret initial arming), the twelve months of six
phases (Treasure with the Treasure map and Plunder cards; Navigation with Lookout, the Royal Navy,
the Letter of marque and Sneak away; Combat through :mod:`simulator.cove.fast.battle`; Plunder;
island effects in speed order: Tavern, shipyards, Treasure Island, the Cove, Artisans and the
Shipwright; black ships and cargo) and the end (fame cards, the tie duel), each phase a function
of its own, in the rules' order. Every random number comes from the deal's runner streams through
:mod:`simulator.cove.fast.rng` -- the dice stream (row 0 of ``rs``: d6 faces in blocks of 256,
``Generator.integers(1, 7, size=256)``; shuffles as ``Generator.permutation``) and each seat's
players stream (row ``1 + seat``).

State, each one object with named fields (:class:`simulator.compiled.State`: numba counts one
reference for it where a tuple of its arrays cost one per array at every call): the game state
``gs`` (:class:`~simulator.cove.fast.packed.GameState`: ``gs.g``, ``gs.seats`` (the seat rows
``st``), ``gs.dk``...; layouts in :mod:`simulator.cove.fast.packed`); static tables ``tab``
(:class:`~simulator.cove.fast.packed.TableState`, ``Tables.arrays()``); the players' odds memo
``oc`` (:class:`~simulator.cove.fast.players_ev.OddsState`); the battle state ``bt``
(:func:`simulator.cove.fast.battle.scratch`); game scratch ``sc`` (:func:`game_scratch`).
:func:`play_chunk` plays many games in one compiled call and is what :mod:`simulator.cove.api`
runs (``engine="fast"``).

Compile time: numba links the machine code of a function's whole call tree into the function
and translates it again, so each compiled layer above a large tree costs the tree's translation
once more. The one-caller layers above the battles and the navigation (``play_game``, the
navigation and combat phases, ``_island_combat``, ``_finish`` and its tie ``_duel``; in
:mod:`.players` the v1-or-expected-value switches ``navigate``, ``sneak_away``, ``battle_card``,
``overboard_chests`` and ``broadside``; the search player's ``rollout.navigate`` with its
``determinize``, ``opponent_picks`` and ``simulate``, compiled into :func:`_navigate`; the
expected-value player's ``generic_values``, ``opponent_odds`` and ``stand_and_flee_values``,
and the company estimate's ``_estimate``) are therefore ``inline="always"``: compiled inside
their caller, the same code. Each one-caller layer taken out this way saved the translation of
its tree: on 2 cores from empty caches, side by side, the compile waves took 111.7 s against
136.5 s; on one core numba's LLVM module passes and machine code fell from 120 to 83 s (whole
compile 233 and 197 CPU-s, runs half an hour apart). Inlining is not free: numba copies the
callee's IR into the caller, so five more layers (the battle's card phase and player turn, the
expected-value navigation, sneak-away and broadside) saved 14 s of translation and cost as much
in copying (197 s both ways, side by side), and stay separate. The large subtrees below them
compile side by side on a cold cache (:mod:`simulator.cove.fast.build`).

The invariant checker (``check``) is the readable one's (``Game.invariant_errors``), after every
phase; its first finding stops the game with an error code (``g[G_ERROR]``) that
:func:`error_message` turns into the one line of ``cove play --check``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator import compiled
from simulator.cove.fast import battle, core, players, players_ev
from simulator.cove.fast.packed import (
    BG_CAPPED,
    BL_BATTLE,
    BL_EXCHANGES,
    BL_FLED,
    BL_ISLAND,
    BL_MONTH,
    BL_NPC,
    BL_NPC_A,
    BL_NPC_B,
    BL_OUTCOME,
    BL_ROUTED,
    BL_ROUTED_BY_PLAYERS,
    BL_ROUTED_IN_BATTLE,
    BL_SEATS,
    BL_SHIPS,
    BS_ART0,
    BS_PHP0,
    BT_CHESTS,
    BT_CHESTS_LOST,
    BT_GOLD,
    BT_GOLD_LOST,
    BT_HAND_N,
    BT_OVERBOARD,
    BT_PLAYED_N,
    BT_ROUTED_BY,
    C_ARTISAN,
    C_BLANK,
    C_LETTER,
    C_LOOKOUT,
    C_MAP,
    C_PARROT0,
    C_PLUNDER,
    C_ROYAL_NAVY,
    C_SHIPWRIGHT,
    C_SNEAK,
    CANNONS,
    CAP_DECISIONS,
    CAP_LOG,
    CAP_MAPS,
    CAP_RECORD,
    CAP_TRACE,
    CK_ARG,
    CK_KIND,
    COVE,
    CREW,
    D_DISCARD,
    D_INPLAY,
    D_PDISC,
    D_PIRATE,
    D_STACK,
    D_TAVERN,
    E_CAPACITY,
    E_ILLEGAL,
    E_INVARIANT,
    F_CAPTURE,
    F_FLIGHT,
    F_MUTINY,
    F_PARROT,
    F_PIRATE,
    F_ROUT,
    FATE_HELD,
    FATE_OPEN,
    FATE_PLAYED,
    FATE_RETURNED,
    FLED,
    G_BANK_CHESTS,
    G_BANK_GOLD,
    G_BATTLES_FOUGHT,
    G_BLACK,
    G_CAPPED,
    G_CHECK,
    G_DECISIONS,
    G_DISC_N,
    G_DUEL,
    G_DUELS,
    G_ERR_A,
    G_ERR_B,
    G_ERR_C,
    G_ERR_MONTH,
    G_ERR_PHASE,
    G_ERROR,
    G_FACE_UP,
    G_FIRST,
    G_MAPS,
    G_MONTH,
    G_N,
    G_NBLACK,
    G_NDEC,
    G_NLOG,
    G_NMAPS,
    G_NPC_BATTLES,
    G_NREC,
    G_NTRACE,
    G_PDISC_N,
    G_PHASE,
    G_PIR_N,
    G_PLAY_N,
    G_RECORD,
    G_RN_CONTROLLER,
    G_RN_ISLAND,
    G_RN_SENDER,
    G_RN_SENT,
    G_STACK_N,
    G_SWAP_CODE,
    G_SWAP_SEAT,
    G_TAV_N,
    G_TIE,
    G_TRACE,
    HULL,
    I_ARTISANS,
    I_BANK,
    I_CARDS,
    I_CHESTS,
    I_DESTROYED,
    I_GOLD,
    I_NEGATIVE,
    I_RING,
    I_UNREPAIRED,
    K_BATTLE,
    K_FAME,
    K_PARROT,
    K_VOLLEY,
    MAX_MAPS,
    MAX_SHIPS,
    MUTINY,
    N_FIGHTS,
    NONE,
    NS_CAPTOR,
    NS_FAME_EACH,
    NS_FIGHTS,
    NS_ROUTED,
    NS_SHARED,
    NS_SUNK,
    NUM_NAV,
    NUM_OUTER,
    ORDER_NAVY_FIRST,
    ORDER_ONE,
    OUT_CAPTURED,
    OUT_NOT_CAPTURED,
    OUT_SUNK,
    OUT_SURVIVED,
    P_ART_ABSORBS,
    P_ART_PER_SECTION,
    P_ART_REPAIR,
    P_BANK_CHESTS,
    P_BANK_GOLD,
    P_BLACK_COUNT,
    P_BLACK_START,
    P_BURY_CHEST_FAME,
    P_BURY_GOLD_PER_FAME,
    P_CACA_LONE,
    P_CARD_PRICE,
    P_COVE_ALT_CARDS,
    P_COVE_ALT_GOLD,
    P_COVE_CARDS,
    P_COVE_REPAIR,
    P_DUEL_CARDS,
    P_DUEL_REPEATS,
    P_FAME_FLOOR,
    P_HEAL_SOLE,
    P_MAP_MULT,
    P_MAP_REROLL,
    P_MAX_BUY,
    P_NAVY_ORDER,
    P_NPDECK,
    P_NPOS,
    P_NTAVERN,
    P_NTREASURE,
    P_NUM_MONTHS,
    P_NUM_STACKS,
    P_PARROT_HITS,
    P_PLUNDER_BURY,
    P_PLUNDER_CARDS,
    P_PUT_BACK,
    P_RN,
    P_RN_NOT_CONTROLLER,
    P_RN_PER_MONTH,
    P_ROTATE_FIRST,
    P_SECRET_ARMING,
    P_SHIPWRIGHT_LEVELS,
    P_SNEAK_NO_SHIP,
    P_STACK_SIZE,
    P_START_CARDS,
    P_START_FAME,
    P_START_GOLD,
    P_START_POS,
    P_SWAP_COST,
    P_TI_LEVELS,
    P_TI_MULT,
    P_TIE_DUEL,
    P_UNPAID_PAYS,
    PA_SPEED,
    PA_UNLIMITED,
    PH_ARMING,
    PH_BLACK,
    PH_COMBAT,
    PH_END,
    PH_ISLAND,
    PH_NAVIGATION,
    PH_PLUNDER,
    PH_SETUP,
    PH_TREASURE,
    PP_IS_EV,
    PP_IS_RANDOM,
    PP_IS_ROLLOUT,
    PUT_BOTTOM,
    PUT_TOP,
    RC_CODE,
    RC_DRAW,
    RC_FATE,
    RC_MONTH,
    RC_MONTH_OUT,
    RC_PHASE,
    RC_PHASE_OUT,
    RC_SEAT,
    ROUTED,
    S_ART,
    S_BATTLES,
    S_CHESTS,
    S_CHOSEN,
    S_DRAWS,
    S_FAME,
    S_FLED,
    S_FOUGHT,
    S_GOLD,
    S_HAND,
    S_HAND_N,
    S_LOC,
    S_MUTINIES,
    S_PARROT,
    S_PLUNDER_BY,
    S_RING,
    S_ROUTED,
    S_SRC,
    S_SUNK,
    S_WOUNDS,
    SAILS,
    SRC_BURYING,
    SRC_COMBAT,
    SRC_FAME_CARDS,
    SRC_PENALTIES,
    SRC_PIRATES,
    SRC_PLUNDER,
    STAYED,
    TC_CHESTS,
    TC_FAME,
    TC_GOLD,
    TC_TAVERN,
    TK_ARM,
    TK_ARTISAN,
    TK_ARTISAN_REPAIR,
    TK_BURY_CHESTS,
    TK_BURY_GOLD,
    TK_BUY,
    TK_COVE_REWARD,
    TK_LETTER,
    TK_LOOKOUT,
    TK_MAP,
    TK_NAVIGATE,
    TK_PARROT_SWAP,
    TK_PLUNDER,
    TK_ROYAL_NAVY,
    TK_SHIPWRIGHT,
    TK_SNEAK,
    TK_TI_UPGRADE,
    TK_UPGRADE,
    TREASURE,
    WON,
)
from simulator.cove.fast.rng import integers, permutation

# per-seat result columns of play_chunk (SeatResult, FAME_SRC order for the sources)
(
    SR_FAME,
    SR_SRC,  # 6 columns
) = (0, 1)
SR_GOLD = 7
SR_CHESTS = 8
SR_BATTLES = 9
SR_ROUTED = 10
SR_FLED = 11
SR_MUTINIES = 12
SR_FOUGHT = 13
SR_SUNK = 14
SR_COLS = 15
# per-game result columns of play_chunk
GR_TIE = 0
GR_DUEL = 1
GR_ERROR = 2  # g[G_ERROR .. G_ERR_C]: 6 columns
GR_NLOG = 8  # battle log rows of the game
GR_NREC = 9  # card record rows
GR_NTRACE = 10  # trace rows
GR_DICE_P = 11  # the dice buffer's position at the end (die-for-die tests)
GR_NDEC = 12  # decision record rows
GR_COLS = 13


#: the fields of the game's work arrays ``sc`` (:func:`game_scratch`), in order
SC_FIELDS = (
    "legal", "scores", "pir", "opp", "cands", "ring", "plans", "perm", "shuf", "order", "keys",
    "rolls", "stack", "ships", "picks",
)  # fmt: skip


class GameScratchType(compiled.StateType):
    """numba's type of :class:`GameScratch`."""


class GameScratch(compiled.State):
    """The game's work arrays ``sc`` as one object (:data:`SC_FIELDS`;
    :class:`simulator.compiled.State`)."""

    FIELDS = SC_FIELDS


@njit(cache=True)
def _new_game_scratch(*values):
    """:class:`GameScratch`'s constructor, cached (:class:`simulator.compiled.State`)."""
    return GameScratch(*values)


GameScratch = compiled.define_state(GameScratch, GameScratchType, _new_game_scratch)


@njit(cache=True)
def game_scratch(n_seats, npos, deck_width):
    """Work arrays of the game functions (``sc``), reused by every game of a chunk (compiled:
    the search player's rollouts make their own, :mod:`.rollout`)."""
    i8 = np.int64
    return GameScratch(
        np.zeros(64 + deck_width, i8),  # 0 legal choices of a decision
        np.zeros(6, np.float64),  # 1 island scores
        np.zeros(6, i8),  # 2 pirate at each island
        np.zeros((6, max(n_seats, 1)), i8),  # 3 opponents expected at each island
        np.zeros(max(n_seats, 1), i8),  # 4 candidate seats
        np.zeros(4, i8),  # 5 a ring (arming plan)
        np.zeros((max(n_seats, 1), 4 * npos + 2), i8),  # 6 arming plans (length first)
        np.zeros(deck_width + 2, i8),  # 7 a permutation
        np.zeros(deck_width + 2, i8),  # 8 a shuffled copy
        np.zeros(max(n_seats, 1) + 2, i8),  # 9 order of a roll-off
        np.zeros(max(n_seats, 1) + 2, i8),  # 10 keys
        np.zeros(max(n_seats, 1) + 2, i8),  # 11 rolls
        np.zeros((2 * max(n_seats, 1) + 4, 2), i8),  # 12 stack
        np.zeros((7, max(n_seats, 1) + 1), i8),  # 13 ships by island (count first)
        np.zeros(max(n_seats, 1), i8),  # 14 navigation picks
    )


# ------------------------------------------------------------------ small helpers
@njit(cache=True, inline="always")
def _error(g, code, a, b, c):
    if g[G_ERROR] == 0:
        g[G_ERROR] = code
        g[G_ERR_MONTH] = g[G_MONTH]
        g[G_ERR_PHASE] = g[G_PHASE]
        g[G_ERR_A] = a
        g[G_ERR_B] = b
        g[G_ERR_C] = c


@njit(cache=True, inline="always")
def _trace(gs, seat, kind, a):
    battle._trace(gs, seat, kind, a, 0, 0, 0)


@njit(cache=True)
def _ask(gs, seat, kind, legal, nl, choice):
    """A decision asked of ``seat`` (``nl > 1``): refuse an illegal choice, record it."""
    ok = False
    for i in range(nl):
        if legal[i] == choice:
            ok = True
            break
    if not ok:
        _error(gs.g, E_ILLEGAL, kind, seat, choice)
    _trace(gs, seat, kind, choice)
    players_ev.seen(gs, seat)  # HeuristicPlayer.act keeps the month and gold of every decision
    return choice


@njit(cache=True, inline="always")
def _is_random(gs, seat):
    return gs.pp[seat, PP_IS_RANDOM] != 0.0


@njit(cache=True, inline="always")
def _random_pick(gs, seat, legal, nl):
    """The random kind: ``legal[Generator.integers(len(legal))]``."""
    return legal[integers(gs.rs, 1 + seat, nl)]


@njit(cache=True, inline="always")
def _has(st, seat, code):
    for i in range(st[seat, S_HAND_N]):
        if st[seat, S_HAND + i] == code:
            return True
    return False


@njit(cache=True, inline="always")
def _hand_remove(st, seat, code):
    n = st[seat, S_HAND_N]
    for i in range(n):
        if st[seat, S_HAND + i] == code:
            for j in range(i, n - 1):
                st[seat, S_HAND + j] = st[seat, S_HAND + j + 1]
            st[seat, S_HAND_N] = n - 1
            return True
    return False


@njit(cache=True, inline="always")
def _add_fame(prm, st, seat, amount, src):
    """Add (or remove) fame; never below the floor; returns the change."""
    before = st[seat, S_FAME]
    st[seat, S_FAME] = max(prm[P_FAME_FLOOR], before + amount)
    delta = st[seat, S_FAME] - before
    st[seat, S_SRC + src] += delta
    return delta


@njit(cache=True, inline="always")
def _value(val, st, seat, sec):
    return val[sec, st[seat, S_RING + sec]]


@njit(cache=True)
def _game_speed(tab, st, seat):
    """``Game.speed``: :func:`core.speed` of the sails and the parrot (no battle cards)."""
    val, par = tab.val, tab.par
    pr = st[seat, S_PARROT]
    return core.speed(_value(val, st, seat, SAILS), 0, pr >= 0, par[pr, PA_SPEED] if pr >= 0 else 0)


@njit(cache=True)
def _pay_bank(g, st, seat, gold):
    st[seat, S_GOLD] -= gold
    g[G_BANK_GOLD] += gold


@njit(cache=True, inline="always")
def _take_gold(g, st, seat, gold):
    got = min(gold, g[G_BANK_GOLD])
    g[G_BANK_GOLD] -= got
    st[seat, S_GOLD] += got
    return got


@njit(cache=True, inline="always")
def _take_chests(g, st, seat, chests):
    got = min(chests, g[G_BANK_CHESTS])
    g[G_BANK_CHESTS] -= got
    st[seat, S_CHESTS] += got
    return got


@njit(cache=True, inline="always")
def _d6(gs):
    return core.die(gs.dice, gs.dctx, gs.rs)


@njit(cache=True)
def _shuffle(gs, sc, row, n):
    """``GameDice.shuffle`` of ``dk[row, :n]``: ``items[:] = [items[i] for i in perm]``."""
    if n <= 1:
        return
    dk, rs = gs.dk, gs.rs
    perm, tmp = sc.perm, sc.shuf
    permutation(rs, np.int64(0), n, perm)
    for i in range(n):
        tmp[i] = dk[row, perm[i]]
    for i in range(n):
        dk[row, i] = tmp[i]


# ------------------------------------------------------------------ the card record
@njit(cache=True)
def _rec_drawn(gs, seat, code):
    g, st, rec = gs.g, gs.seats, gs.rec
    d = st[seat, S_DRAWS]
    st[seat, S_DRAWS] = d + 1
    if not g[G_RECORD]:
        return
    i = g[G_NREC]
    if i >= rec.shape[0]:
        _error(g, E_CAPACITY, CAP_RECORD, 0, 0)
        return
    rec[i, RC_SEAT] = seat
    rec[i, RC_DRAW] = d
    rec[i, RC_CODE] = code
    rec[i, RC_MONTH] = g[G_MONTH]
    rec[i, RC_PHASE] = g[G_PHASE]
    rec[i, RC_FATE] = FATE_OPEN
    rec[i, RC_MONTH_OUT] = -1
    rec[i, RC_PHASE_OUT] = -1
    g[G_NREC] = i + 1


@njit(cache=True)
def _rec_close(gs, seat, code, fate):
    """The oldest open row of that card of that seat gets its fate (copies of a card are
    indistinguishable in a hand)."""
    g, rec = gs.g, gs.rec
    if not g[G_RECORD]:
        return
    for i in range(g[G_NREC]):
        if rec[i, RC_SEAT] == seat and rec[i, RC_CODE] == code and rec[i, RC_FATE] == FATE_OPEN:
            rec[i, RC_FATE] = fate
            rec[i, RC_MONTH_OUT] = g[G_MONTH]
            rec[i, RC_PHASE_OUT] = g[G_PHASE]
            return
    _error(g, E_CAPACITY, CAP_RECORD, 1, code)  # a card played that was never drawn


@njit(cache=True)
def _play_card(gs, seat, code):
    """Move a card from a hand to this month's cards in play."""
    g, st, dk = gs.g, gs.seats, gs.dk
    _hand_remove(st, seat, code)
    dk[D_INPLAY, g[G_PLAY_N]] = code
    g[G_PLAY_N] += 1
    _rec_close(gs, seat, code, FATE_PLAYED)


@njit(cache=True, inline="always")
def _discard(gs, code):
    g, dk = gs.g, gs.dk
    dk[D_DISCARD, g[G_DISC_N]] = code
    g[G_DISC_N] += 1


# ------------------------------------------------------------------ Tavern cards
@njit(cache=True)
def _put_back(tab, gs, sc, code):
    """A refused or swapped-out parrot back into the draw pile (shuffled in, top or bottom)."""
    prm = tab.prm
    g, dk, rs = gs.g, gs.dk, gs.rs
    n = g[G_TAV_N]
    where = prm[P_PUT_BACK]
    if where == PUT_TOP:
        pos = n
    elif where == PUT_BOTTOM:
        pos = 0
    else:
        perm = sc.perm
        permutation(rs, np.int64(0), n + 1, perm)
        pos = perm[0] if n + 1 > 1 else 0
    for i in range(n, pos, -1):
        dk[D_TAVERN, i] = dk[D_TAVERN, i - 1]
    dk[D_TAVERN, pos] = code
    g[G_TAV_N] = n + 1


@njit(cache=True)
def _receive_parrot(tab, gs, sc, seat, code):
    prm, ckind = tab.prm, tab.ckind
    st = gs.seats
    key = ckind[code, CK_ARG]
    if st[seat, S_PARROT] < 0:
        st[seat, S_PARROT] = key
        st[seat, S_WOUNDS] = 0
        _rec_close(gs, seat, code, FATE_PLAYED)
        return
    cost = prm[P_SWAP_COST]
    legal = sc.legal
    legal[0] = 0
    legal[1] = 1
    nl = 2 if st[seat, S_FAME] >= cost else 1
    if nl == 1:
        swap = 0
    elif _is_random(gs, seat):
        swap = _ask(gs, seat, TK_PARROT_SWAP, legal, nl, _random_pick(gs, seat, legal, nl))
    else:
        swap = _ask(gs, seat, TK_PARROT_SWAP, legal, nl, players.parrot_swap(tab, gs, seat, key))
    if swap:
        _add_fame(prm, st, seat, -cost, SRC_PENALTIES)
        old = st[seat, S_PARROT]
        st[seat, S_PARROT] = key
        st[seat, S_WOUNDS] = 0
        _put_back(tab, gs, sc, C_PARROT0 + old)
        _rec_close(gs, seat, code, FATE_PLAYED)
    else:
        _put_back(tab, gs, sc, code)
        _rec_close(gs, seat, code, FATE_RETURNED)


@njit(cache=True)
def _draw_tavern(tab, gs, sc, seat, k):
    """Draw ``k`` Tavern cards (reshuffling the discards when the deck is empty)."""
    ckind = tab.ckind
    g, st, dk = gs.g, gs.seats, gs.dk
    for _ in range(k):
        if g[G_TAV_N] == 0:
            if g[G_DISC_N] == 0:
                return  # nothing left anywhere: the draw is lost
            for i in range(g[G_DISC_N]):
                dk[D_TAVERN, i] = dk[D_DISCARD, i]
            g[G_TAV_N] = g[G_DISC_N]
            g[G_DISC_N] = 0
            _shuffle(gs, sc, D_TAVERN, g[G_TAV_N])
        g[G_TAV_N] -= 1
        code = dk[D_TAVERN, g[G_TAV_N]]
        if g[G_SWAP_SEAT] == seat and code == g[G_SWAP_CODE]:
            code = C_BLANK  # the card-value intervention: one copy
            g[G_SWAP_SEAT] = -1
        _rec_drawn(gs, seat, code)
        if ckind[code, CK_KIND] == K_PARROT:
            _receive_parrot(tab, gs, sc, seat, code)
        else:
            n = st[seat, S_HAND_N]
            st[seat, S_HAND + n] = code
            st[seat, S_HAND_N] = n + 1


@njit(cache=True)
def _next_pirate(gs, sc):
    g, dk = gs.g, gs.dk
    if g[G_PIR_N] == 0:
        for i in range(g[G_PDISC_N]):
            dk[D_PIRATE, i] = dk[D_PDISC, i]
        g[G_PIR_N] = g[G_PDISC_N]
        g[G_PDISC_N] = 0
        _shuffle(gs, sc, D_PIRATE, g[G_PIR_N])
    if g[G_PIR_N] == 0:
        return -1
    g[G_PIR_N] -= 1
    return dk[D_PIRATE, g[G_PIR_N]]


@njit(cache=True, inline="always")
def _raise(tab, gs, seat, sec, mult):
    step = tab.step
    st = gs.seats
    _pay_bank(gs.g, st, seat, step[st[seat, S_RING + sec]] * mult)
    st[seat, S_RING + sec] += 1


# ------------------------------------------------------------------ order and the invariants
@njit(cache=True)
def _order_by_speed(tab, gs, sc, seats, m):
    """``Game.order_by_speed`` of ``seats[:m]`` in place: fastest first, ties by roll-offs."""
    if m <= 1:
        return
    keys, stack = sc.keys, sc.stack
    st = gs.seats
    for i in range(m):
        keys[seats[i]] = _game_speed(tab, st, seats[i])
    core.sort_desc(seats, keys, np.int64(0), m)
    core.roll_off(gs.dice, gs.dctx, gs.rs, seats, keys, np.int64(0), m, sc.rolls, stack)


@njit(cache=True)
def _card_count(gs):
    g, st = gs.g, gs.seats
    n = g[G_TAV_N] + g[G_DISC_N] + g[G_PLAY_N]
    for s in range(g[G_N]):
        n += st[s, S_HAND_N] + (1 if st[s, S_PARROT] >= 0 else 0)
        for k in range(4):
            if st[s, S_ART + k] >= 0:
                n += 1
    return n


@njit(cache=True)
def _check(tab, gs):
    """``Game.invariant_errors`` after a phase (when checking): the first finding is kept."""
    prm = tab.prm
    g, st = gs.g, gs.seats
    if not g[G_CHECK] or g[G_ERROR]:
        return
    n = g[G_N]
    gold = g[G_BANK_GOLD]
    chests = g[G_BANK_CHESTS]
    for s in range(n):
        gold += st[s, S_GOLD]
        chests += st[s, S_CHESTS]
    if gold != prm[P_BANK_GOLD]:
        _error(g, E_INVARIANT, I_GOLD, gold, prm[P_BANK_GOLD])
        return
    if chests != prm[P_BANK_CHESTS]:
        _error(g, E_INVARIANT, I_CHESTS, chests, prm[P_BANK_CHESTS])
        return
    cards = _card_count(gs)
    if cards != prm[P_NTAVERN]:
        _error(g, E_INVARIANT, I_CARDS, cards, prm[P_NTAVERN])
        return
    if g[G_BANK_GOLD] < 0 or g[G_BANK_CHESTS] < 0:
        _error(g, E_INVARIANT, I_BANK, 0, 0)
        return
    phase = g[G_PHASE]
    for s in range(n):
        if st[s, S_GOLD] < 0 or st[s, S_CHESTS] < 0 or st[s, S_FAME] < prm[P_FAME_FLOOR]:
            _error(g, E_INVARIANT, I_NEGATIVE, s, 0)
            return
        destroyed = False
        for k in range(4):
            p = st[s, S_RING + k]
            if p < 0 or p > prm[P_NPOS]:
                _error(g, E_INVARIANT, I_RING, s, k)
                return
            destroyed = destroyed or p == 0
        if phase != PH_COMBAT and destroyed and st[s, S_LOC] != COVE:
            _error(g, E_INVARIANT, I_DESTROYED, s, 0)
            return
        if (phase == PH_BLACK or phase == PH_END) and destroyed:
            _error(g, E_INVARIANT, I_UNREPAIRED, s, 0)
            return
        if not prm[P_ART_PER_SECTION]:
            na = 0
            for k in range(4):
                if st[s, S_ART + k] >= 0:
                    na += 1
            if na > 1:
                _error(g, E_INVARIANT, I_ARTISANS, s, na)
                return


# ------------------------------------------------------------------ setup
@njit(cache=True)
def _setup(tab, gs, oc, sc):
    prm, tdeck, pdeck = tab.prm, tab.tdeck, tab.pdeck
    g, dk = gs.g, gs.dk
    n = g[G_N]
    nt = prm[P_NTAVERN]
    for i in range(nt):
        dk[D_TAVERN, i] = tdeck[i]
    g[G_TAV_N] = nt
    _shuffle(gs, sc, D_TAVERN, nt)
    ntr = prm[P_NTREASURE]
    tmp = sc.shuf
    for i in range(ntr):
        dk[D_STACK, i] = i  # the treasure deck, shuffled in row D_STACK first
    _shuffle(gs, sc, D_STACK, ntr)
    for i in range(ntr):
        tmp[i] = dk[D_STACK, i]
    size = prm[P_STACK_SIZE]
    for i in range(5):
        g[G_STACK_N + i] = 0
    for i in range(prm[P_NUM_STACKS]):
        for j in range(size):
            dk[D_STACK + i, j] = tmp[i * size + j]
        g[G_STACK_N + i] = size
    for i in range(prm[P_NPDECK]):
        dk[D_PIRATE, i] = pdeck[i]
    g[G_PIR_N] = prm[P_NPDECK]
    _shuffle(gs, sc, D_PIRATE, g[G_PIR_N])
    count = prm[P_BLACK_COUNT + n]
    g[G_NBLACK] = count
    for i in range(count):
        base = G_BLACK + 3 * i
        g[base] = prm[P_BLACK_START + i]
        g[base + 1] = _next_pirate(gs, sc)
        g[base + 2] = 0
    for s in range(n):
        _draw_tavern(tab, gs, sc, s, prm[P_START_CARDS])
    g[G_PHASE] = PH_ARMING
    if prm[P_SECRET_ARMING]:
        plans = sc.plans
        for s in range(n):
            _plan_arming(tab, gs, sc, s, plans)
        for s in range(n):
            for i in range(plans[s, 0]):
                _raise(tab, gs, s, plans[s, 1 + i], 1)
    _check(tab, gs)


@njit(cache=True)
def _plan_arming(tab, gs, sc, seat, plans):
    """Sequential one-level raises, asked on the untouched starting board (others unseen)."""
    prm, step = tab.prm, tab.step
    st = gs.seats
    legal, ring = sc.legal, sc.ring
    for k in range(4):
        ring[k] = st[seat, S_RING + k]
    gold = st[seat, S_GOLD]
    plans[seat, 0] = 0
    while True:
        nl = np.int64(1)
        legal[0] = NONE
        for k in range(4):
            if 0 < ring[k] < prm[P_NPOS] and step[ring[k]] <= gold:
                legal[nl] = k
                nl += 1
        if nl == 1:
            return
        if _is_random(gs, seat):
            choice = _random_pick(gs, seat, legal, nl)
        else:
            choice = players.arm(tab, gs, seat, ring, gold, legal, nl)
        _ask(gs, seat, TK_ARM, legal, nl, choice)
        if choice == NONE:
            return
        gold -= step[ring[choice]]
        ring[choice] += 1
        plans[seat, 1 + plans[seat, 0]] = choice
        plans[seat, 0] += 1


# ------------------------------------------------------------------ phase 1: Treasure
@njit(cache=True)
def _phase_treasure(tab, gs, oc, sc):
    prm = tab.prm
    g, st, dk = gs.g, gs.seats, gs.dk
    g[G_PHASE] = PH_TREASURE
    n = g[G_N]
    for i in range(NUM_OUTER):
        if g[G_STACK_N + i] > 0:
            g[G_STACK_N + i] -= 1
            g[G_FACE_UP + i] = dk[D_STACK + i, g[G_STACK_N + i]]
        else:
            g[G_FACE_UP + i] = -1
    legal = sc.legal
    for k in range(n):
        si = (g[G_FIRST] + k) % n
        if _has(st, si, C_MAP):
            legal[0] = 0
            legal[1] = 1
            if _is_random(gs, si):
                use = _random_pick(gs, si, legal, np.int64(2))
            else:
                use = np.int64(1)  # _treasure_map: always
            if _ask(gs, si, TK_MAP, legal, np.int64(2), use):
                _play_card(gs, si, C_MAP)
                face = _d6(gs)
                while face >= prm[P_MAP_REROLL]:
                    face = _d6(gs)
                if g[G_NMAPS] >= MAX_MAPS:
                    _error(g, E_CAPACITY, CAP_MAPS, 0, 0)
                else:
                    g[G_MAPS + 2 * g[G_NMAPS]] = si
                    g[G_MAPS + 2 * g[G_NMAPS] + 1] = min(face, 5) - 1
                    g[G_NMAPS] += 1
        if _has(st, si, C_PLUNDER):
            nl = np.int64(1)
            legal[0] = NONE
            for v in range(n):
                if v != si and st[v, S_PLUNDER_BY] < 0:
                    legal[nl] = v
                    nl += 1
            if nl == 1:
                victim = NONE
            elif _is_random(gs, si):
                victim = _ask(gs, si, TK_PLUNDER, legal, nl, _random_pick(gs, si, legal, nl))
            else:
                victim = NONE
                if gs.pp[si, players.USE_PLUNDER] != 0.0:
                    victim = players.most_famous(st, gs.rs, si, legal[1:], nl - 1)
                _ask(gs, si, TK_PLUNDER, legal, nl, victim)
            if victim != NONE:
                _play_card(gs, si, C_PLUNDER)
                st[victim, S_PLUNDER_BY] = si
    _check(tab, gs)


# ------------------------------------------------------------------ phase 2: Navigation
@njit(cache=True, inline="always")
def _phase_navigation(tab, gs, oc, sc):
    g, st = gs.g, gs.seats
    g[G_PHASE] = PH_NAVIGATION
    n = g[G_N]
    for s in range(n):
        st[s, S_CHOSEN] = -1
    legal = sc.legal
    start = NONE
    for k in range(n):
        si = (g[G_FIRST] + k) % n
        if _has(st, si, C_LOOKOUT):
            legal[0] = NONE
            for v in range(n):
                legal[1 + v] = v
            if _is_random(gs, si):
                pick = _random_pick(gs, si, legal, n + 1)
            else:
                pick = (si + 1) % n  # _lookout: I choose last, seeing everybody's island
            _ask(gs, si, TK_LOOKOUT, legal, n + 1, pick)
            if pick != NONE:
                _play_card(gs, si, C_LOOKOUT)
                start = pick
                break
    for i in range(NUM_NAV):
        legal[i] = i
    if start != NONE:  # one at a time, clockwise from the named player, seen by all
        for k in range(n):
            si = (start + k) % n
            st[si, S_CHOSEN] = _navigate(tab, gs, oc, sc, si)
    else:  # secret and simultaneous
        picks = sc.picks
        for si in range(n):
            picks[si] = _navigate(tab, gs, oc, sc, si)
        for si in range(n):
            st[si, S_CHOSEN] = picks[si]
    for s in range(n):
        st[s, S_LOC] = st[s, S_CHOSEN]
    _end_of_navigation_events(tab, gs, oc, sc)
    _check(tab, gs)


@njit(cache=True)
def _navigate(tab, gs, oc, sc, si):
    """Seat ``si``'s island: the search player's rollouts (:func:`.rollout.navigate`, which
    plays the rest of the month ahead in buffers of its own), else :func:`_navigate_model`."""
    if gs.pp[si, PP_IS_ROLLOUT] == 0.0:
        return _navigate_model(tab, gs, oc, sc, si)
    pick = rollout.navigate(tab, gs, oc, si)
    legal = sc.legal
    for i in range(NUM_NAV):
        legal[i] = i
    return _ask(gs, si, TK_NAVIGATE, legal, NUM_NAV, pick)


@njit(cache=True)
def _navigate_model(tab, gs, oc, sc, si):
    """The island of a seat that does not search: random, v1 or expected value (the search
    player's models of its opponents choose here too)."""
    legal = sc.legal
    for i in range(NUM_NAV):
        legal[i] = i
    if _is_random(gs, si):
        pick = _random_pick(gs, si, legal, NUM_NAV)
    else:
        pick = players.navigate(tab, gs, oc, si, sc.scores, sc.pir, sc.opp)
    return _ask(gs, si, TK_NAVIGATE, legal, NUM_NAV, pick)


@njit(cache=True)
def _occupied(tab, gs, isl):
    """``isl in Game._occupied()``."""
    prm = tab.prm
    g, st = gs.g, gs.seats
    for s in range(g[G_N]):
        if st[s, S_LOC] == isl:
            return True
    if prm[P_SNEAK_NO_SHIP]:
        for b in range(g[G_NBLACK]):
            base = G_BLACK + 3 * b
            if g[base + 2] == 0 and g[base + 1] >= 0 and g[base] == isl:
                return True
        if g[G_RN_ISLAND] >= 0 and g[G_RN_ISLAND] == isl:
            return True
    return False


@njit(cache=True)
def _end_of_navigation_events(tab, gs, oc, sc):
    prm = tab.prm
    g, st = gs.g, gs.seats
    n = g[G_N]
    legal, cands = sc.legal, sc.cands
    # Royal Navy: sent to an outer island where its sender is not
    for k in range(n):
        si = (g[G_FIRST] + k) % n
        if _has(st, si, C_ROYAL_NAVY) and g[G_RN_SENT] < prm[P_RN_PER_MONTH] and g[G_RN_ISLAND] < 0:
            nl = np.int64(1)
            legal[0] = NONE
            for i in range(NUM_OUTER):
                if i != st[si, S_LOC]:
                    legal[nl] = i
                    nl += 1
            if nl == 1:
                pick = NONE
            elif _is_random(gs, si):
                pick = _ask(gs, si, TK_ROYAL_NAVY, legal, nl, _random_pick(gs, si, legal, nl))
            else:
                pick = _ask(
                    gs, si, TK_ROYAL_NAVY, legal, nl, players.royal_navy(gs, si, legal, nl, cands)
                )
            if pick != NONE:
                _play_card(gs, si, C_ROYAL_NAVY)
                g[G_RN_ISLAND] = pick
                g[G_RN_CONTROLLER] = si
                g[G_RN_SENDER] = si
                g[G_RN_SENT] += 1
    # Letter of marque: redirect it (the holder becomes its controller)
    if g[G_RN_ISLAND] >= 0:
        for k in range(n):
            si = (g[G_FIRST] + k) % n
            if _has(st, si, C_LETTER):
                sender_loc = st[g[G_RN_SENDER], S_LOC]
                nl = np.int64(1)
                legal[0] = NONE
                for i in range(NUM_OUTER):
                    if i == g[G_RN_ISLAND] or i == sender_loc:
                        continue
                    if prm[P_RN_NOT_CONTROLLER] and i == st[si, S_LOC]:
                        continue
                    legal[nl] = i
                    nl += 1
                if nl == 1:
                    pick = NONE
                elif _is_random(gs, si):
                    pick = _ask(gs, si, TK_LETTER, legal, nl, _random_pick(gs, si, legal, nl))
                else:
                    pick = _ask(
                        gs, si, TK_LETTER, legal, nl,
                        players.letter_of_marque(gs, si, legal, nl, cands),
                    )  # fmt: skip
                if pick != NONE:
                    _play_card(gs, si, C_LETTER)
                    g[G_RN_ISLAND] = pick
                    g[G_RN_CONTROLLER] = si
    # Sneak away: to an unoccupied outer island or Treasure Island; cancels Plunder on you
    for k in range(n):
        si = (g[G_FIRST] + k) % n
        if _has(st, si, C_SNEAK):
            nl = np.int64(1)
            legal[0] = NONE
            for i in range(NUM_OUTER):
                if not _occupied(tab, gs, i):
                    legal[nl] = i
                    nl += 1
            if st[si, S_LOC] != TREASURE:
                legal[nl] = TREASURE
                nl += 1
            if nl == 1:
                pick = NONE
            elif _is_random(gs, si):
                pick = _ask(gs, si, TK_SNEAK, legal, nl, _random_pick(gs, si, legal, nl))
            else:
                pick = players.sneak_away(tab, gs, oc, si, legal, nl, sc.scores, sc.pir, sc.opp)
                _ask(gs, si, TK_SNEAK, legal, nl, pick)
            if pick != NONE:
                _play_card(gs, si, C_SNEAK)
                st[si, S_LOC] = pick
                st[si, S_CHOSEN] = pick
                st[si, S_PLUNDER_BY] = -1


# ------------------------------------------------------------------ phase 3: Combat
@njit(cache=True)
def _battle_ship(tab, gs, bt, s, seat, with_cards):
    """``fight._battle_ship``: seat ``seat`` as ship ``s`` of the battle (its battle and volley
    cards in hand order)."""
    ckind = tab.ckind
    st = gs.seats
    bst, bhand = bt.bst, bt.bhand
    battle.set_ship(
        tab, bt, s, seat, st[seat, S_RING : S_RING + 4], st[seat, S_ART : S_ART + 4],
        st[seat, S_PARROT], st[seat, S_WOUNDS] > 0,
        st[seat, S_CHESTS], st[seat, S_GOLD],
    )  # fmt: skip
    nh = 0
    if with_cards:
        for i in range(st[seat, S_HAND_N]):
            c = st[seat, S_HAND + i]
            kd = ckind[c, CK_KIND]
            if kd == K_BATTLE or kd == K_VOLLEY:
                bhand[s, nh] = c
                nh += 1
    bst[s, BT_HAND_N] = nh


@njit(cache=True)
def _one_battle(tab, gs, oc, sc, bt, isl, seats, m, npcs, nn):
    """``fight._one_battle``: the ships ``seats[:m]`` (seat order) and the non-player ships
    ``npcs[:nn]`` (npc rows) at island ``isl``; the result applied to the game."""
    prm = tab.prm
    g = gs.g
    controller = -1
    for j in range(nn):
        if npcs[j] == prm[P_RN]:
            controller = g[G_RN_CONTROLLER]
    battle.reset(bt, m, nn, np.int64(1 if isl == TREASURE else 0), controller)
    for i in range(m):
        _battle_ship(tab, gs, bt, i, seats[i], np.bool_(True))
    for j in range(nn):
        battle.set_npc(tab, bt, j, npcs[j])
    exchanges = battle.run(tab, gs, oc, bt)
    _apply_result(tab, gs, sc, bt, isl, seats, m, npcs, nn, exchanges)


@njit(cache=True)
def _apply_result(tab, gs, sc, bt, isl, seats, m, npcs, nn, exchanges):
    """``fight.apply_result``: rings, Artisans, parrots, cards to the discard, chests and gold to
    the bank, fame by source, routed and fled ships to the Cove, sunk or captured pirates, and
    the battle log's rows."""
    prm, npc = tab.prm, tab.npc
    g, st, blog = gs.g, gs.seats, gs.blog
    bsh, pos, art, php, outcome, fame, bst, bplayed = (
        bt.bsh,
        bt.pos,
        bt.art,
        bt.php,
        bt.outcome,
        bt.fame,
        bt.bst,
        bt.bplayed,
    )
    nst, bg = bt.nst, bt.bg
    fought = exchanges > 0 or nn == 0
    legendary = 0
    for j in range(nn):
        if npc[npcs[j], N_FIGHTS]:
            fought = True
            if npcs[j] != prm[P_RN]:
                legendary += 1
    n_routed = 0
    n_fled = 0
    routed_by_players = 0
    for i in range(m):
        s = seats[i]
        if fought:
            st[s, S_BATTLES] += 1
            g[G_BATTLES_FOUGHT] += 1
        st[s, S_FOUGHT] += legendary
        for q in range(bst[i, BT_PLAYED_N]):  # cards played, to the discard
            c = bplayed[i, q]
            _hand_remove(st, s, c)
            _discard(gs, c)
            _rec_close(gs, s, c, FATE_PLAYED)
        for k in range(4):
            st[s, S_RING + k] = max(0, pos[i, k])
        for k in range(4):  # Artisans: the surviving ones and what they absorbed; lost ones
            if art[i, k] > 0:
                st[s, S_ART + k] = prm[P_ART_ABSORBS] - art[i, k]
            else:
                st[s, S_ART + k] = -1
        for k in range(4):
            if bsh[i, BS_ART0 + k] > 0 and art[i, k] == 0:
                _discard(gs, C_ARTISAN)
        if st[s, S_PARROT] >= 0:
            if bsh[i, BS_PHP0] > 0 and php[i] == 0:  # died
                _discard(gs, C_PARROT0 + st[s, S_PARROT])
                st[s, S_PARROT] = -1
                st[s, S_WOUNDS] = 0
            else:
                st[s, S_WOUNDS] = 1 if php[i] < prm[P_PARROT_HITS] else 0
        g[G_BANK_CHESTS] += bst[i, BT_OVERBOARD] + bst[i, BT_CHESTS_LOST]
        g[G_BANK_GOLD] += bst[i, BT_GOLD_LOST]
        st[s, S_CHESTS] = bst[i, BT_CHESTS]
        st[s, S_GOLD] = bst[i, BT_GOLD]
        combat_fame = fame[i, F_FLIGHT] + fame[i, F_ROUT]
        if combat_fame:
            _add_fame(prm, st, s, combat_fame, SRC_COMBAT)
        share = 0
        for j in range(nn):  # a sunk Royal Navy's share is combat fame, a pirate's is pirates
            if (nst[j, NS_SHARED] >> i) & 1 and npcs[j] != prm[P_RN]:
                share += nst[j, NS_FAME_EACH]
        share += fame[i, F_CAPTURE]
        navy_share = fame[i, F_PIRATE] + fame[i, F_CAPTURE] - share
        if share:
            _add_fame(prm, st, s, share, SRC_PIRATES)
        if navy_share:
            _add_fame(prm, st, s, navy_share, SRC_COMBAT)
        pen = fame[i, F_PARROT] + fame[i, F_MUTINY]
        if pen:
            _add_fame(prm, st, s, pen, SRC_PENALTIES)
        o = outcome[i]
        if o == ROUTED or o == FLED or o == MUTINY:
            st[s, S_LOC] = COVE
            if o == ROUTED:
                st[s, S_ROUTED] += 1
                n_routed += 1
            else:
                st[s, S_FLED] += 1
                n_fled += 1
                if o == MUTINY:
                    st[s, S_MUTINIES] += 1
        elif st[s, S_PARROT] >= 0 and st[s, S_WOUNDS] and not prm[P_HEAL_SOLE] and fought:
            st[s, S_WOUNDS] = 0
        for j in range(nn):
            if npcs[j] != prm[P_RN] and (nst[j, NS_SHARED] >> i) & 1:
                st[s, S_SUNK] += 1
            if nst[j, NS_CAPTOR] == i:
                st[s, S_SUNK] += 1
        if bst[i, BT_ROUTED_BY] >= 0:
            routed_by_players += 1
    if prm[P_HEAL_SOLE]:
        left = -1
        nleft = 0
        for i in range(m):
            if st[seats[i], S_LOC] == isl:
                left = seats[i]
                nleft += 1
        if nleft == 1 and st[left, S_PARROT] >= 0:
            st[left, S_WOUNDS] = 0
    if bg[BG_CAPPED]:
        g[G_CAPPED] += 1
    if nn == 0:
        return
    g[G_NPC_BATTLES] += 1
    mask = 0
    for i in range(m):
        mask |= 1 << seats[i]
    for j in range(nn):
        row = npcs[j]
        gone = nst[j, NS_SUNK] or nst[j, NS_CAPTOR] >= 0
        if row != prm[P_RN] and gone:
            for b in range(g[G_NBLACK]):
                base = G_BLACK + 3 * b
                if g[base] == isl and g[base + 1] == row and g[base + 2] == 0:
                    g[base + 2] = 1
        if nst[j, NS_CAPTOR] >= 0:
            out = OUT_CAPTURED
        elif nst[j, NS_SUNK]:
            out = OUT_SUNK
        elif not nst[j, NS_FIGHTS]:
            out = OUT_NOT_CAPTURED
        else:
            out = OUT_SURVIVED
        r = g[G_NLOG]
        if r >= blog.shape[0]:
            _error(g, E_CAPACITY, CAP_LOG, 0, 0)
            continue
        nr = 0
        for i in range(m):
            if (nst[j, NS_ROUTED] >> i) & 1:
                nr += 1
        blog[r, BL_BATTLE] = g[G_NPC_BATTLES]
        blog[r, BL_MONTH] = g[G_MONTH]
        blog[r, BL_ISLAND] = isl
        blog[r, BL_NPC] = row
        blog[r, BL_SHIPS] = m
        blog[r, BL_SEATS] = mask
        blog[r, BL_OUTCOME] = out
        blog[r, BL_ROUTED] = nr
        blog[r, BL_FLED] = n_fled
        blog[r, BL_EXCHANGES] = exchanges
        blog[r, BL_NPC_A] = npcs[0]
        blog[r, BL_NPC_B] = npcs[1] if nn > 1 else -1
        blog[r, BL_ROUTED_BY_PLAYERS] = routed_by_players
        blog[r, BL_ROUTED_IN_BATTLE] = n_routed
        g[G_NLOG] = r + 1


@njit(cache=True)
def _here(gs, isl, out):
    """The seats at island ``isl``, seat order, into ``out``; returns how many."""
    g, st = gs.g, gs.seats
    m = 0
    for s in range(g[G_N]):
        if st[s, S_LOC] == isl:
            out[m] = s
            m += 1
    return m


@njit(cache=True, inline="always")
def _island_combat(tab, gs, oc, sc, bt, isl, m_present, pirate, navy):
    """``fight.island_combat``: every battle at island ``isl`` this month."""
    prm, npc = tab.prm, tab.npc
    here = np.empty(MAX_SHIPS, np.int64)
    npcs = np.full(2, -1, np.int64)
    nn = 0
    if pirate >= 0:
        npcs[nn] = pirate
        nn += 1
    if navy and isl != TREASURE:
        npcs[nn] = prm[P_RN]
        nn += 1
    if nn == 0:
        if isl != TREASURE and m_present >= 2:
            m = _here(gs, isl, here)
            _one_battle(tab, gs, oc, sc, bt, isl, here, m, npcs, np.int64(0))
        return
    one = np.full(2, -1, np.int64)
    if nn == 2 and prm[P_NAVY_ORDER] == ORDER_ONE:
        m = _here(gs, isl, here)
        if m == 0:
            return
        _one_battle(tab, gs, oc, sc, bt, isl, here, m, npcs, np.int64(2))
        return
    if nn == 2 and prm[P_NAVY_ORDER] == ORDER_NAVY_FIRST:
        t = npcs[0]
        npcs[0] = npcs[1]
        npcs[1] = t
    for j in range(nn):
        m = _here(gs, isl, here)
        if m == 0:
            return
        row = npcs[j]
        if (
            row != prm[P_RN]
            and not npc[row, N_FIGHTS]
            and isl != TREASURE
            and m == 1
            and not prm[P_CACA_LONE]
        ):
            continue
        one[0] = row
        _one_battle(tab, gs, oc, sc, bt, isl, here, m, one, np.int64(1))


@njit(cache=True, inline="always")
def _phase_combat(tab, gs, oc, sc, bt):
    g, st = gs.g, gs.seats
    g[G_PHASE] = PH_COMBAT
    counts = np.zeros(NUM_NAV, np.int64)  # ships by island before any battle
    for s in range(g[G_N]):
        if st[s, S_LOC] < NUM_NAV:
            counts[st[s, S_LOC]] += 1
    for isl in range(NUM_NAV):
        if counts[isl] == 0:
            continue
        pirate = -1
        for b in range(g[G_NBLACK]):
            base = G_BLACK + 3 * b
            if g[base] == isl and g[base + 2] == 0 and g[base + 1] >= 0:
                pirate = g[base + 1]
                break
        _island_combat(
            tab, gs, oc, sc, bt, isl, counts[isl], pirate,
            g[G_RN_ISLAND] >= 0 and g[G_RN_ISLAND] == isl,
        )  # fmt: skip
    g[G_RN_ISLAND] = -1  # the Royal Navy is removed after the battle
    g[G_RN_CONTROLLER] = -1
    _check(tab, gs)


# ------------------------------------------------------------------ phase 4: Plunder
@njit(cache=True)
def _phase_plunder(tab, gs, oc, sc):
    prm, tcard = tab.prm, tab.tcard
    g, st = gs.g, gs.seats
    g[G_PHASE] = PH_PLUNDER
    n = g[G_N]
    for isl in range(NUM_OUTER):
        c = g[G_FACE_UP + isl]
        if c < 0:
            continue
        m = 0
        s = np.int64(-1)
        for q in range(n):
            if st[q, S_LOC] == isl:
                m += 1
                s = q
        if m != 1:
            continue
        fame = tcard[c, TC_FAME]
        gold = tcard[c, TC_GOLD]
        chests = tcard[c, TC_CHESTS]
        tavern = tcard[c, TC_TAVERN]
        if players.has_map(g, s, isl):
            chests *= prm[P_MAP_MULT]
        g[G_FACE_UP + isl] = -1
        got_gold = _take_gold(g, st, s, gold)
        got_chests = _take_chests(g, st, s, chests)
        _add_fame(prm, st, s, fame, SRC_PLUNDER)
        ben = st[s, S_PLUNDER_BY]
        if ben >= 0:
            gg = -(-got_gold // 2)
            cc = -(-got_chests // 2)
            ff = -(-fame // 2)
            st[s, S_GOLD] -= gg
            st[ben, S_GOLD] += gg
            st[s, S_CHESTS] -= cc
            st[ben, S_CHESTS] += cc
            _add_fame(prm, st, s, -ff, SRC_PLUNDER)
            _add_fame(prm, st, ben, ff, SRC_PLUNDER)
            if prm[P_PLUNDER_CARDS] and tavern:
                _draw_tavern(tab, gs, sc, s, tavern - (-(-tavern // 2)))
                _draw_tavern(tab, gs, sc, ben, -(-tavern // 2))
                tavern = np.int64(0)
        if tavern:
            _draw_tavern(tab, gs, sc, s, tavern)
    _check(tab, gs)


# ------------------------------------------------------------------ phase 5: island effects
@njit(cache=True)
def _tavern(tab, gs, sc, s):
    prm = tab.prm
    g, st = gs.g, gs.seats
    price = prm[P_CARD_PRICE]
    if price:
        most = min(prm[P_MAX_BUY], st[s, S_GOLD] // price)
    else:
        most = prm[P_MAX_BUY]
    if most <= 0 or (g[G_TAV_N] == 0 and g[G_DISC_N] == 0):
        return
    legal = sc.legal
    for i in range(most + 1):
        legal[i] = i
    if _is_random(gs, s):
        k = _random_pick(gs, s, legal, most + 1)
    else:
        k = players.buy_cards(tab, gs, s, most)
    _ask(gs, s, TK_BUY, legal, most + 1, k)
    for _ in range(k):
        if g[G_TAV_N] == 0 and g[G_DISC_N] == 0:
            return  # nothing left to sell
        _pay_bank(g, st, s, price)
        _draw_tavern(tab, gs, sc, s, np.int64(1))


@njit(cache=True)
def _shipyard(tab, gs, sc, s, sec):
    """Raise ``sec`` any number of levels at the cumulative cost (one decision: how many)."""
    prm, step = tab.prm, tab.step
    st = gs.seats
    pos = st[s, S_RING + sec]
    gold = st[s, S_GOLD]
    most = np.int64(0)
    while 0 < pos < prm[P_NPOS] and step[pos] <= gold:
        gold -= step[pos]
        pos += 1
        most += 1
    if most:
        legal = sc.legal
        for i in range(most + 1):
            legal[i] = i
        if _is_random(gs, s):
            k = _random_pick(gs, s, legal, most + 1)
        else:
            k = players.upgrade(tab, gs, s, sec, most)
        _ask(gs, s, TK_UPGRADE, legal, most + 1, k)
        for _ in range(k):
            _raise(tab, gs, s, sec, 1)


@njit(cache=True)
def _bury_fame(tab, gs, s, fame):
    prm = tab.prm
    st = gs.seats
    ben = st[s, S_PLUNDER_BY]
    if ben >= 0 and prm[P_PLUNDER_BURY]:
        give = -(-fame // 2)
        _add_fame(prm, st, s, fame - give, SRC_BURYING)
        _add_fame(prm, st, ben, give, SRC_PLUNDER)
    else:
        _add_fame(prm, st, s, fame, SRC_BURYING)


@njit(cache=True)
def _treasure_island(tab, gs, sc, s):
    prm, step = tab.prm, tab.step
    g, st = gs.g, gs.seats
    legal = sc.legal
    fame = np.int64(0)
    ch = st[s, S_CHESTS]
    if ch:
        for i in range(ch + 1):
            legal[i] = i
        if _is_random(gs, s):
            k = _random_pick(gs, s, legal, ch + 1)
        else:
            k = ch  # _bury_chests: all
        _ask(gs, s, TK_BURY_CHESTS, legal, ch + 1, k)
        if k:
            st[s, S_CHESTS] -= k
            g[G_BANK_CHESTS] += k
            fame += k * prm[P_BURY_CHEST_FAME]
    bags = st[s, S_GOLD] // prm[P_BURY_GOLD_PER_FAME]
    if bags:
        for i in range(bags + 1):
            legal[i] = i
        if _is_random(gs, s):
            k = _random_pick(gs, s, legal, bags + 1)
        else:
            k = players.bury_gold(tab, gs, s, bags)
        _ask(gs, s, TK_BURY_GOLD, legal, bags + 1, k)
        if k:
            _pay_bank(g, st, s, k * prm[P_BURY_GOLD_PER_FAME])
            fame += k
    if fame:
        _bury_fame(tab, gs, s, fame)
    for _ in range(prm[P_TI_LEVELS]):
        mult = prm[P_TI_MULT]
        nl = np.int64(1)
        legal[0] = NONE
        for i in range(4):
            p = st[s, S_RING + i]
            if 0 < p < prm[P_NPOS] and step[p] * mult <= st[s, S_GOLD]:
                legal[nl] = i
                nl += 1
        if nl == 1:
            return
        if _is_random(gs, s):
            pick = _random_pick(gs, s, legal, nl)
        else:
            pick = players.ti_upgrade(tab, gs, s, legal, nl)
        _ask(gs, s, TK_TI_UPGRADE, legal, nl, pick)
        if pick == NONE:
            return
        _raise(tab, gs, s, pick, mult)


@njit(cache=True)
def _cove(tab, gs, sc, s):
    prm = tab.prm
    g, st = gs.g, gs.seats
    nd = 0
    for i in range(4):
        if st[s, S_RING + i] == 0:
            nd += 1
    cost = prm[P_COVE_REPAIR] * nd
    paid = st[s, S_GOLD] >= cost
    if paid:
        _pay_bank(g, st, s, cost)
    elif prm[P_UNPAID_PAYS]:
        _pay_bank(g, st, s, st[s, S_GOLD])
    for i in range(4):
        if st[s, S_RING + i] == 0:
            st[s, S_RING + i] = prm[P_START_POS]
    if st[s, S_PARROT] >= 0:
        st[s, S_WOUNDS] = 0
    if not paid:
        return
    legal = sc.legal
    legal[0] = 0  # "cards"
    legal[1] = 1  # "card_and_gold"
    if _is_random(gs, s):
        pick = _random_pick(gs, s, legal, np.int64(2))
    else:
        if gs.pp[s, PP_IS_EV] != 0.0:
            pick = players_ev.cove_reward(tab, gs, s)
        else:
            pick = 0 if gs.pp[s, players.COVE_CARDS] != 0.0 else 1
    _ask(gs, s, TK_COVE_REWARD, legal, np.int64(2), pick)
    if pick == 0:
        _draw_tavern(tab, gs, sc, s, prm[P_COVE_CARDS])
    else:
        _draw_tavern(tab, gs, sc, s, prm[P_COVE_ALT_CARDS])
        _take_gold(g, st, s, prm[P_COVE_ALT_GOLD])


@njit(cache=True)
def _any_island(tab, gs, sc, s):
    """Artisan cards, Artisan repairs and the Shipwright: from any island in phase 5."""
    prm = tab.prm
    g, st = gs.g, gs.seats
    legal = sc.legal
    if _has(st, s, C_ARTISAN):
        nl = np.int64(1)
        legal[0] = NONE
        na = 0
        for i in range(4):
            if st[s, S_ART + i] >= 0:
                na += 1
        for i in range(4):
            if prm[P_ART_PER_SECTION]:
                ok = st[s, S_ART + i] < 0
            else:
                ok = na == 0
            if ok:
                legal[nl] = i
                nl += 1
        if nl > 1:
            if _is_random(gs, s):
                pick = _random_pick(gs, s, legal, nl)
            else:
                pick = players.artisan(tab, gs, s, legal, nl)
            _ask(gs, s, TK_ARTISAN, legal, nl, pick)
            if pick != NONE:
                _hand_remove(st, s, C_ARTISAN)
                st[s, S_ART + pick] = 0
                _rec_close(gs, s, C_ARTISAN, FATE_PLAYED)
    snapshot = np.empty(4, np.int64)  # sorted(s.artisans.items()), taken before the loop
    for i in range(4):
        snapshot[i] = st[s, S_ART + i]
    for sec in range(4):
        hits = snapshot[sec]
        if hits > 0 and st[s, S_GOLD] >= prm[P_ART_REPAIR]:
            legal[0] = 0
            legal[1] = 1
            if _is_random(gs, s):
                rep = _random_pick(gs, s, legal, np.int64(2))
            else:
                rep = players.artisan_repair(tab, gs, s)
            _ask(gs, s, TK_ARTISAN_REPAIR, legal, np.int64(2), rep)
            if rep:
                _pay_bank(g, st, s, prm[P_ART_REPAIR])
                st[s, S_ART + sec] = 0
    if _has(st, s, C_SHIPWRIGHT):
        nl = np.int64(1)
        legal[0] = NONE
        for i in range(4):
            if 0 < st[s, S_RING + i] < prm[P_NPOS]:
                legal[nl] = i
                nl += 1
        if nl > 1:
            if _is_random(gs, s):
                pick = _random_pick(gs, s, legal, nl)
            else:
                pick = players.shipwright(gs, s, legal, nl)
            _ask(gs, s, TK_SHIPWRIGHT, legal, nl, pick)
            if pick != NONE:
                _play_card(gs, s, C_SHIPWRIGHT)
                st[s, S_RING + pick] = min(
                    prm[P_NPOS], st[s, S_RING + pick] + prm[P_SHIPWRIGHT_LEVELS]
                )


@njit(cache=True)
def _phase_island_effects(tab, gs, oc, sc):
    g, st = gs.g, gs.seats
    g[G_PHASE] = PH_ISLAND
    at = sc.ships
    for isl in range(7):
        at[isl, 0] = 0
    for s in range(g[G_N]):  # nobody moves in phase 5
        loc = st[s, S_LOC]
        at[loc, 1 + at[loc, 0]] = s
        at[loc, 0] += 1
    order = sc.order
    for isl in range(7):
        m = at[isl, 0]
        if m == 0:
            continue
        for i in range(m):
            order[i] = at[isl, 1 + i]
        _order_by_speed(tab, gs, sc, order, m)
        ordered = np.empty(m, np.int64)
        for i in range(m):
            ordered[i] = order[i]
        for i in range(m):
            s = ordered[i]
            if isl == 0:
                _tavern(tab, gs, sc, s)
            elif isl == 1:
                _shipyard(tab, gs, sc, s, HULL)
            elif isl == 2:
                _shipyard(tab, gs, sc, s, SAILS)
            elif isl == 3:
                _shipyard(tab, gs, sc, s, CANNONS)
            elif isl == 4:
                _shipyard(tab, gs, sc, s, CREW)
            elif isl == TREASURE:
                _treasure_island(tab, gs, sc, s)
            else:
                _cove(tab, gs, sc, s)
            _any_island(tab, gs, sc, s)
    _check(tab, gs)


# ------------------------------------------------------------------ phase 6
@njit(cache=True)
def _phase_black_ships(tab, gs, oc, sc):
    val, par = tab.val, tab.par
    g, st, dk = gs.g, gs.seats, gs.dk
    g[G_PHASE] = PH_BLACK
    for b in range(g[G_NBLACK]):
        base = G_BLACK + 3 * b
        g[base] = (g[base] + 1) % 6  # 1 -> 2 -> ... -> 6 -> 1, never the Cove
        if g[base + 2] or g[base + 1] < 0:
            if g[base + 1] >= 0:
                dk[D_PDISC, g[G_PDISC_N]] = g[base + 1]
                g[G_PDISC_N] += 1
            g[base + 1] = -1
            g[base + 2] = 0
    for b in range(g[G_NBLACK]):
        base = G_BLACK + 3 * b
        if g[base + 1] < 0:
            g[base + 1] = _next_pirate(gs, sc)
    for s in range(g[G_N]):
        pr = st[s, S_PARROT]
        if pr >= 0 and par[pr, PA_UNLIMITED]:
            continue
        cap = _value(val, st, s, HULL)
        if st[s, S_CHESTS] > cap:
            g[G_BANK_CHESTS] += st[s, S_CHESTS] - cap
            st[s, S_CHESTS] = cap
    for isl in range(NUM_OUTER):
        g[G_FACE_UP + isl] = -1
    for i in range(g[G_PLAY_N]):
        _discard(gs, dk[D_INPLAY, i])
    g[G_PLAY_N] = 0
    g[G_NMAPS] = 0
    for s in range(g[G_N]):
        st[s, S_PLUNDER_BY] = -1
        st[s, S_CHOSEN] = -1
    g[G_RN_SENT] = 0
    g[G_RN_SENDER] = -1
    _check(tab, gs)


# ------------------------------------------------------------------ the end
@njit(cache=True, inline="always")
def _duel(tab, gs, oc, sc, bt, tied, m):
    """``fight.duel``: the tied ships fight at no island (results not applied); re-fought up to
    ``duel_max_repeats`` times until a single ship is left. Returns the winners' count (their
    seats written back into ``tied``)."""
    prm = tab.prm
    g = gs.g
    outcome = bt.outcome
    for _ in range(prm[P_DUEL_REPEATS]):
        g[G_DUELS] += 1
        battle.reset(bt, m, np.int64(0), np.int64(0), NONE)
        for i in range(m):
            _battle_ship(tab, gs, bt, i, tied[i], prm[P_DUEL_CARDS] != 0)
        battle.run(tab, gs, oc, bt)
        nleft = 0
        left = -1
        for i in range(m):
            if outcome[i] == WON or outcome[i] == STAYED:
                nleft += 1
                left = tied[i]
        if nleft == 1:
            tied[0] = left
            return 1
    return m


@njit(cache=True, inline="always")
def _finish(tab, gs, oc, sc, bt, win):
    """Fame cards, the winner(s) and the tie duel; ``win[seat]`` gets each seat's share."""
    prm, ckind = tab.prm, tab.ckind
    g, st, rec = gs.g, gs.seats, gs.rec
    g[G_PHASE] = PH_END
    n = g[G_N]
    for s in range(n):
        total = 0
        for i in range(st[s, S_HAND_N]):
            c = st[s, S_HAND + i]
            if ckind[c, CK_KIND] == K_FAME:
                total += ckind[c, CK_ARG]
        if total:
            _add_fame(prm, st, s, total, SRC_FAME_CARDS)
    top = st[0, S_FAME]
    for s in range(1, n):
        top = max(top, st[s, S_FAME])
    tied = np.empty(n, np.int64)
    m = 0
    for s in range(n):
        if st[s, S_FAME] == top:
            tied[m] = s
            m += 1
    if m > 1:
        g[G_TIE] = 1
        if prm[P_TIE_DUEL]:
            g[G_DUEL] = 1
            m = _duel(tab, gs, oc, sc, bt, tied, m)
    for s in range(n):
        win[s] = 0.0
    share = 1.0 / m
    for i in range(m):
        win[tied[i]] = share
    _check(tab, gs)
    if g[G_RECORD]:
        for i in range(g[G_NREC]):
            if rec[i, RC_FATE] == FATE_OPEN:
                rec[i, RC_FATE] = FATE_HELD
                rec[i, RC_MONTH_OUT] = g[G_MONTH]
                rec[i, RC_PHASE_OUT] = PH_END


# ------------------------------------------------------------------ one game, many games
@njit(cache=True, inline="always")
def play_game(tab, gs, oc, sc, bt, win):
    """One whole game from the state :func:`new_game` set (``Game.play``)."""
    prm = tab.prm
    g = gs.g
    _setup(tab, gs, oc, sc)
    for month in range(1, prm[P_NUM_MONTHS] + 1):
        if g[G_ERROR]:
            return
        g[G_MONTH] = month
        if prm[P_ROTATE_FIRST]:
            g[G_FIRST] = (month - 1) % g[G_N]
        _phase_treasure(tab, gs, oc, sc)
        if g[G_ERROR]:
            return
        _phase_navigation(tab, gs, oc, sc)
        if g[G_ERROR]:
            return
        _phase_combat(tab, gs, oc, sc, bt)
        if g[G_ERROR]:
            return
        _phase_plunder(tab, gs, oc, sc)
        if g[G_ERROR]:
            return
        _phase_island_effects(tab, gs, oc, sc)
        if g[G_ERROR]:
            return
        _phase_black_ships(tab, gs, oc, sc)
    if g[G_ERROR]:
        return
    _finish(tab, gs, oc, sc, bt, win)


@njit(cache=True)
def new_game(tab, gs, n, flags):
    """Reset the game state for ``n`` players (``flags``: trace, record, check, swap seat, swap
    code, decisions)."""
    prm = tab.prm
    g, st, dice, dctx = gs.g, gs.seats, gs.dice, gs.dctx
    for i in range(g.shape[0]):
        g[i] = 0
    g[G_N] = n
    g[G_PHASE] = PH_SETUP
    g[G_BANK_GOLD] = prm[P_BANK_GOLD] - n * prm[P_START_GOLD]
    g[G_BANK_CHESTS] = prm[P_BANK_CHESTS]
    g[G_RN_ISLAND] = -1
    g[G_RN_CONTROLLER] = -1
    g[G_RN_SENDER] = -1
    for i in range(5):
        g[G_FACE_UP + i] = -1
    g[G_TRACE] = flags[0]
    g[G_RECORD] = flags[1]
    g[G_CHECK] = flags[2]
    g[G_SWAP_SEAT] = flags[3]
    g[G_SWAP_CODE] = flags[4]
    g[G_DECISIONS] = flags[5]
    for s in range(n):
        for k in range(st.shape[1]):
            st[s, k] = 0
        for k in range(4):
            st[s, S_RING + k] = prm[P_START_POS]
            st[s, S_ART + k] = -1
        st[s, S_GOLD] = prm[P_START_GOLD]
        st[s, S_FAME] = prm[P_START_FAME]
        st[s, S_PARROT] = -1
        st[s, S_LOC] = COVE
        st[s, S_CHOSEN] = -1
        st[s, S_PLUNDER_BY] = -1
    dctx[core.DX_P] = dice.shape[0]  # empty: GameDice draws its first block when first rolled
    dctx[core.DX_REFILL] = 1
    dctx[core.DX_RS] = 0  # the dice stream
    dctx[core.DX_FAIL] = 0
    dctx[core.DX_COUNT] = 0


@njit(cache=True)
def _append_rows(out, at, src, k, gi):
    """Copy the first ``k`` rows of the game's buffer ``src`` to ``out[at : at + k]``, each behind
    the game's index ``gi`` (column 0); False, copying nothing, when ``out`` has no room."""
    if at + k > out.shape[0]:
        return False
    for r in range(k):
        out[at + r, 0] = gi
        for c in range(src.shape[1]):
            out[at + r, 1 + c] = src[r, c]
    return True


@njit(cache=True, inline="always")
def _out_of_room(out_game, gi, which):
    """Game ``gi`` stops the chunk: an output buffer (``CAP_*``) is full. Returns ``gi``."""
    out_game[gi, GR_ERROR] = E_CAPACITY
    out_game[gi, GR_ERROR + 3] = which
    return gi


@njit(cache=True)
def play_chunk(
    tab, pp_all, seat_strat, rs_all, flags, out_seats, out_win, out_game, out_log, out_rec,
    out_tr, out_dec, out_rs, gs, oc, sc, bt,
):  # fmt: skip
    """Play ``len(seat_strat)`` games: game ``i`` seats strategy ``seat_strat[i, seat]``
    (a row of ``pp_all``) at each seat and starts from the generator states ``rs_all[i]`` (row 0
    the dice stream, row 1 + seat the seat's stream). Per-seat results go to ``out_seats``
    (``SR_*``) and ``out_win``, per game ``out_game`` (``GR_*``); the battle log, card record,
    trace and decision record rows of all games, one after the other, to ``out_log``,
    ``out_rec``, ``out_tr``, ``out_dec`` (each prefixed by the game index). ``out_rs[i]`` gets
    the generator states at the end (tests). Returns the number of games played (less on an
    error: ``out_game[i, GR_ERROR]``)."""
    g, st, rec, blog, tr, rs, pp, dctx, drec = (
        gs.g,
        gs.seats,
        gs.rec,
        gs.blog,
        gs.tr,
        gs.rs,
        gs.pp,
        gs.dctx,
        gs.drec,
    )
    ngames = seat_strat.shape[0]
    n = seat_strat.shape[1]
    nlog = np.int64(0)
    nrec = np.int64(0)
    ntr = np.int64(0)
    ndec = np.int64(0)
    win = np.zeros(n, np.float64)
    for gi in range(ngames):
        for s in range(n):
            for k in range(pp.shape[1]):
                pp[s, k] = pp_all[seat_strat[gi, s], k]
        for r in range(n + 1):
            for k in range(rs.shape[1]):
                rs[r, k] = rs_all[gi, r, k]
        new_game(tab, gs, n, flags)
        play_game(tab, gs, oc, sc, bt, win)
        for k in range(6):
            out_game[gi, GR_ERROR + k] = g[G_ERROR + k]
        out_game[gi, GR_TIE] = g[G_TIE]
        out_game[gi, GR_DUEL] = g[G_DUEL]
        out_game[gi, GR_DICE_P] = dctx[core.DX_P]
        for r in range(n + 1):
            for k in range(rs.shape[1]):
                out_rs[gi, r, k] = rs[r, k]
        for s in range(n):
            out_seats[gi, s, SR_FAME] = st[s, S_FAME]
            for k in range(6):
                out_seats[gi, s, SR_SRC + k] = st[s, S_SRC + k]
            out_seats[gi, s, SR_GOLD] = st[s, S_GOLD]
            out_seats[gi, s, SR_CHESTS] = st[s, S_CHESTS]
            out_seats[gi, s, SR_BATTLES] = st[s, S_BATTLES]
            out_seats[gi, s, SR_ROUTED] = st[s, S_ROUTED]
            out_seats[gi, s, SR_FLED] = st[s, S_FLED]
            out_seats[gi, s, SR_MUTINIES] = st[s, S_MUTINIES]
            out_seats[gi, s, SR_FOUGHT] = st[s, S_FOUGHT]
            out_seats[gi, s, SR_SUNK] = st[s, S_SUNK]
            out_win[gi, s] = win[s]
        k = g[G_NLOG]
        if not _append_rows(out_log, nlog, blog, k, gi):
            return _out_of_room(out_game, gi, CAP_LOG)
        nlog += k
        out_game[gi, GR_NLOG] = k
        k = g[G_NREC]
        if not _append_rows(out_rec, nrec, rec, k, gi):
            return _out_of_room(out_game, gi, CAP_RECORD)
        nrec += k
        out_game[gi, GR_NREC] = k
        k = min(g[G_NTRACE], tr.shape[0])
        if g[G_TRACE]:
            if g[G_NTRACE] > tr.shape[0] or not _append_rows(out_tr, ntr, tr, k, gi):
                return _out_of_room(out_game, gi, CAP_TRACE)
            ntr += k
        out_game[gi, GR_NTRACE] = k
        k = g[G_NDEC]
        if g[G_DECISIONS]:
            if not _append_rows(out_dec, ndec, drec, k, gi):
                return _out_of_room(out_game, gi, CAP_DECISIONS)
            ndec += k
        out_game[gi, GR_NDEC] = k
        if g[G_ERROR]:
            return gi + 1
    return ngames


# the search player (root "rollout") plays the rest of the month ahead with this module's phase
# functions: imported last (it imports this module), called by _navigate when numba compiles it
from simulator.cove.fast import rollout  # noqa: E402
