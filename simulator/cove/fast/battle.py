"""One battle of the full game, compiled (the scalar oracle: ``tests/cove_battle_oracle.py``).

Rules: "Combat", "Non-player ships" and "Tavern deck" of ``../shared/rules/pirates-cove.md``;
readings in ``docs/rules-cove-combat.md``. The battle the full game plays at an island (any number
of player ships, a Legendary Pirate, the Cacafuego and the Royal Navy, in one battle) and the tie
duel: battle-card rounds from the fastest ship, then broadside exchanges in speed order until one
player ship is left (and no non-player ship) or none. Every rule is a call into the rule core
(:mod:`simulator.cove.fast.core`: hits, protection, speed, dice, thresholds, roll-offs, the
pirates' specials); the players decide through :mod:`simulator.cove.fast.players`, seeing the
battle's public state and their own battle cards only.

The state is ``bt``, the :class:`BattleState` of :func:`scratch` (layout in
:mod:`simulator.cove.fast.packed`, ``BS_*``, ``BT_*``, ``NS_*``, ``BG_*``), set up by the game's
fight adapter (:mod:`simulator.cove.fast.game`) and read back by it. Dice come from the game's
dice stream (``core.die``), in the order the goldens recorded: the speed roll-off of the card
rounds, each exchange's speed roll-offs, a pirate's tied targets, each broadside, the mutiny die,
the Cacafuego's fame die.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator import compiled
from simulator.cove.fast import core, players
from simulator.cove.fast.packed import (
    BATTLE_HI,
    BATTLE_LO,
    BG_AFLOAT,
    BG_BECALMED,
    BG_CAPPED,
    BG_CARD_ROUND,
    BG_CONTROLLER,
    BG_EXCHANGE,
    BG_GRAPPLE,
    BG_LEN,
    BG_NNPC,
    BG_NPRESENT,
    BG_S,
    BG_TI,
    BS_ART0,
    BS_COLS,
    BS_PARROT,
    BS_PBONES,
    BS_PFIXED,
    BS_PHP0,
    BS_PSPEED,
    BS_SEAT,
    BS_START,
    BT_BONUS,
    BT_CAN_FIRE,
    BT_CHESTS,
    BT_CHESTS_LOST,
    BT_COLS,
    BT_GOLD,
    BT_GOLD_LOST,
    BT_HAND_N,
    BT_OVERBOARD,
    BT_PLAYED_N,
    BT_ROUTED_BY,
    BT_SMOKE,
    BT_WIND,
    BY_NOBODY,
    BY_NPC0,
    C_BECALMED,
    C_CANNONADE,
    C_GRAPESHOT,
    C_GRAPPLE,
    C_KEG,
    C_OVERBOARD,
    C_SMOKE,
    C_WIND,
    CANNONS,
    CREW,
    D_EVERY,
    F_CAPTURE,
    F_FLIGHT,
    F_MUTINY,
    F_PARROT,
    F_PIRATE,
    F_ROUT,
    FLED,
    G_NTRACE,
    G_TRACE,
    HULL,
    MAX_NPCS,
    MAX_SHIPS,
    MUTINY,
    N_DAMAGE,
    N_DICE,
    N_FAME,
    N_FAME_DIE,
    N_FIGHTS,
    N_HULL,
    N_MISFIRE,
    N_MISFIRE_POS,
    N_REGEN,
    N_SAILS,
    N_TARGET,
    NONE,
    NS_BROADSIDES,
    NS_CAPTOR,
    NS_COLS,
    NS_FAME_EACH,
    NS_FIGHTS,
    NS_FIRED_AT,
    NS_HAS_FIRED,
    NS_HULL,
    NS_HULL_START,
    NS_PRESENT,
    NS_ROUTED,
    NS_ROW,
    NS_SHARED,
    NS_SUNK,
    NS_SUNK_BY,
    P_ART_ABSORBS,
    P_CACA_TI_FASTEST,
    P_FLIGHT_FAME,
    P_GRAPE_BEATS_SMOKE,
    P_GRAPE_HIT_ON,
    P_GRAPE_SELF,
    P_HIT_ON,
    P_MAX_EXCH,
    P_MUTINY_LOSS,
    P_MUTINY_ON,
    P_OVERBOARD_SPEED,
    P_PARROT_ABSORBS,
    P_PARROT_HITS,
    P_PARROT_LOSS,
    P_RN,
    P_ROUT_FAME,
    P_SMOKE_BLOCKS_MISFIRE,
    P_SMOKE_HIT_ON,
    P_WIND_SPEED,
    PA_DICE_CANNONS,
    PA_FIXED_DICE,
    PA_SECTION,
    PA_SPEED,
    ROUTED,
    SAILS,
    STAYED,
    T_CONTROLLER,
    TK_BATTLE_CARD,
    TK_BROADSIDE,
    TK_NAVY_TARGET,
    TK_OVERBOARD,
    TR_A,
    TR_B,
    TR_C,
    TR_D,
    TR_KIND,
    TR_SEAT,
    WON,
)

#: trace target of a flight (a broadside with no target); aims at non-player ship j are traced
#: as -1 - j (the trace format of the goldens)
TRACE_NO_TARGET = -100


#: the fields of the battle state ``bt`` (:func:`scratch`), in order
BT_FIELDS = (
    "bsh", "pos", "art", "php", "psec", "was_hit", "present", "outcome", "fame", "bst", "bhand",
    "bplayed", "nst", "bg", "order", "keys", "rolls", "stack", "tmp", "tmp2",
)  # fmt: skip


class BattleStateType(compiled.StateType):
    """numba's type of :class:`BattleState`."""


class BattleState(compiled.State):
    """The battle state ``bt`` as one object (:data:`BT_FIELDS`;
    :class:`simulator.compiled.State`)."""

    FIELDS = BT_FIELDS


@njit(cache=True)
def _new_battle_state(*values):
    """:class:`BattleState`'s constructor, cached (:class:`simulator.compiled.State`)."""
    return BattleState(*values)


BattleState = compiled.define_state(BattleState, BattleStateType, _new_battle_state)


@njit(cache=True)
def scratch(hand_cap):
    """The battle state ``bt`` (reused by every battle of a chunk; compiled: the search player's
    rollouts make their own, :mod:`.rollout`): see the packed layout."""
    i8 = np.int64
    S, J = MAX_SHIPS, MAX_NPCS
    return BattleState(
        np.zeros((S, BS_COLS), i8),  # 0 bsh: what each ship brings (BS_*)
        np.zeros((S, 4), i8),  # 1 pos: ring positions
        np.zeros((S, 4), i8),  # 2 art: Artisan hits left per section
        np.zeros(S, i8),  # 3 php: parrot hits left
        np.full(S, -1, i8),  # 4 psec: the parrot's section (-1: none)
        np.zeros(S, i8),  # 5 was_hit
        np.zeros(S, i8),  # 6 present
        np.zeros(S, i8),  # 7 outcome (WON...)
        np.zeros((S, 6), i8),  # 8 fame by cause (F_*)
        np.zeros((S, BT_COLS), i8),  # 9 bst (BT_*)
        np.zeros((S, hand_cap), i8),  # 10 bhand: battle and volley cards in hand
        np.zeros((S, hand_cap), i8),  # 11 bplayed: cards played, in order
        np.zeros((J, NS_COLS), i8),  # 12 nst (NS_*)
        np.zeros(BG_LEN, i8),  # 13 bg (BG_*)
        np.zeros(2 * (S + J + 2), i8),  # 14 order: speed order, then a pirate's tied targets
        np.zeros(S + J + 2, i8),  # 15 keys (ships 0..S-1, non-player ship j at S + j)
        np.zeros(S + J + 2, i8),  # 16 rolls of a roll-off
        np.zeros((2 * (S + J + 2), 2), i8),  # 17 stack of tied segments
        np.zeros(S + J + 2, i8),  # 18 tmp: clockwise order, misfire victims, playable cards
        np.zeros(S + J + 2, i8),  # 19 tmp2
    )


@njit(cache=True, inline="always")
def _trace(gs, seat, kind, a, b, c, d):
    g, tr = gs.g, gs.tr
    if g[G_TRACE] == 0:
        return
    i = g[G_NTRACE]
    if i < tr.shape[0]:
        tr[i, TR_SEAT] = seat
        tr[i, TR_KIND] = kind
        tr[i, TR_A] = a
        tr[i, TR_B] = b
        tr[i, TR_C] = c
        tr[i, TR_D] = d
    g[G_NTRACE] = i + 1


@njit(cache=True, inline="always")
def _speed(tab, bt, a):
    val = tab.val
    bsh, pos, php, bst = bt.bsh, bt.pos, bt.php, bt.bst
    return core.speed(val[SAILS, pos[a, SAILS]], bst[a, BT_BONUS], php[a] > 0, bsh[a, BS_PSPEED])


@njit(cache=True, inline="always")
def _over(bt):
    """The battle's end: against a non-player ship, no player ship left; else at most one (none
    needed at Treasure Island, where players do not fight each other)."""
    bg = bt.bg
    if bg[BG_AFLOAT] > 0:
        return bg[BG_NPRESENT] == 0
    if bg[BG_TI]:
        return True
    return bg[BG_NPRESENT] <= 1


@njit(cache=True)
def _order_ships(tab, gs, bt, order, m):
    """``break_ties``: ``order[:m]`` (actors: ships, non-player ship j as S + j) by speed, ties by
    roll-offs. False when the dice ran out (the battle kernel's dice source)."""
    npc = tab.npc
    keys, rolls, stack, nst, bg = bt.keys, bt.rolls, bt.stack, bt.nst, bt.bg
    S = bg[BG_S]
    for i in range(m):
        a = order[i]
        if a >= S:
            keys[a] = npc[nst[a - S, NS_ROW], N_SAILS]
        else:
            keys[a] = _speed(tab, bt, a)
    core.sort_desc(order, keys, np.int64(0), m)
    return core.roll_off(gs.dice, gs.dctx, gs.rs, order, keys, np.int64(0), m, rolls, stack)


@njit(cache=True)
def _hit(tab, bt, s, sec, k):
    """``hit_section`` on a ship still in the battle; 1 when its ring fell off."""
    prm = tab.prm
    if k <= 0 or not bt.present[s]:
        return 0
    return core.hit_section(
        bt.pos, bt.art, bt.php, bt.psec, bt.was_hit, bt.fame, F_PARROT, s, sec, k,
        prm[P_PARROT_ABSORBS], prm[P_PARROT_LOSS],
    )  # fmt: skip


@njit(cache=True, inline="always")
def _hit_npc(nst, j, k):
    if k > 0 and nst[j, NS_PRESENT]:
        nst[j, NS_HULL] -= k


@njit(cache=True)
def _resolve_routs(tab, bt, sharers, by):
    """After the broadside of ``by`` (a ship index, or ``BY_NPC0 - j``): sink the non-player
    ships whose hull is gone (fame shared among ``sharers``, a bit mask of the ships present when
    it fired), rout the ships with a destroyed section, give the ships left their rout fame."""
    prm, npc = tab.prm, tab.npc
    pos, present, outcome, fame, bst, nst, bg = (
        bt.pos,
        bt.present,
        bt.outcome,
        bt.fame,
        bt.bst,
        bt.nst,
        bt.bg,
    )
    S = bg[BG_S]
    for j in range(bg[BG_NNPC]):
        if nst[j, NS_FIGHTS] and nst[j, NS_PRESENT] and nst[j, NS_HULL] <= 0:
            nst[j, NS_HULL] = 0
            nst[j, NS_PRESENT] = 0
            nst[j, NS_SUNK] = 1
            bg[BG_AFLOAT] -= 1
            nst[j, NS_SUNK_BY] = by if by >= 0 else -1
            nst[j, NS_SHARED] = sharers
            cnt = 0
            for s in range(S):
                if (sharers >> s) & 1:
                    cnt += 1
            each = npc[nst[j, NS_ROW], N_FAME] // cnt if cnt else 0
            nst[j, NS_FAME_EACH] = each
            for s in range(S):
                if (sharers >> s) & 1:
                    fame[s, F_PIRATE] += each
    routed = 0
    nr = 0
    for s in range(S):
        if present[s]:
            m = min(min(pos[s, 0], pos[s, 1]), min(pos[s, 2], pos[s, 3]))
            if m <= 0:
                routed |= 1 << s
                nr += 1
    if nr == 0:
        return
    for s in range(S):
        if (routed >> s) & 1:
            present[s] = 0
            outcome[s] = ROUTED
            bst[s, BT_ROUTED_BY] = by
    bg[BG_NPRESENT] -= nr
    if by < 0:
        nst[BY_NPC0 - by, NS_ROUTED] |= routed
    for s in range(S):
        if present[s]:
            fame[s, F_ROUT] += nr * prm[P_ROUT_FAME]


@njit(cache=True)
def _present_mask(bt):
    present = bt.present
    m = 0
    for s in range(bt.bg[BG_S]):
        if present[s]:
            m |= 1 << s
    return m


@njit(cache=True)
def _remove_card(bt, s, card):
    """Move the first ``card`` of ship ``s``'s battle hand to its played cards."""
    bst, bhand, bplayed = bt.bst, bt.bhand, bt.bplayed
    n = bst[s, BT_HAND_N]
    for i in range(n):
        if bhand[s, i] == card:
            for j in range(i, n - 1):
                bhand[s, j] = bhand[s, j + 1]
            bst[s, BT_HAND_N] = n - 1
            bplayed[s, bst[s, BT_PLAYED_N]] = card
            bst[s, BT_PLAYED_N] += 1
            return True
    return False


@njit(cache=True)
def _card_phase(tab, gs, oc, bt):
    """Battle-card rounds from the fastest ship (speed order when the battle starts, ties by
    roll-offs), one card or pass each, until everybody passes in the same round."""
    prm = tab.prm
    bsh, present, bst, bhand, bg = bt.bsh, bt.present, bt.bst, bt.bhand, bt.bg
    order, playable = bt.order, bt.tmp
    S = bg[BG_S]
    anyc = False
    for s in range(S):
        for i in range(bst[s, BT_HAND_N]):
            if BATTLE_LO <= bhand[s, i] <= BATTLE_HI:
                anyc = True
    if not anyc:
        return True
    m = np.int64(0)
    for s in range(S):
        if present[s]:
            order[m] = s
            m += 1
    if not _order_ships(tab, gs, bt, order, m):
        return False
    while not bg[BG_BECALMED]:
        bg[BG_CARD_ROUND] += 1
        played_any = False
        for i in range(m):
            s = order[i]
            if bg[BG_BECALMED]:
                break
            npl = np.int64(0)
            for q in range(bst[s, BT_HAND_N]):
                c = bhand[s, q]
                if BATTLE_LO <= c <= BATTLE_HI:
                    playable[npl] = c
                    npl += 1
            if npl == 0:
                continue
            card = players.battle_card(tab, gs, oc, bt, s, playable, npl)
            _trace(gs, bsh[s, BS_SEAT], TK_BATTLE_CARD, card, 0, 0, 0)
            if card == NONE:
                continue
            played_any = True
            _remove_card(bt, s, card)
            if card == C_BECALMED:
                bg[BG_BECALMED] = 1
            elif card == C_WIND:
                bst[s, BT_WIND] += 1
                bst[s, BT_BONUS] += prm[P_WIND_SPEED]
            elif card == C_GRAPPLE:
                bg[BG_GRAPPLE] = 1
            elif card == C_SMOKE:
                bst[s, BT_SMOKE] = 1
            elif card == C_OVERBOARD:
                k = players.overboard_chests(tab, gs, oc, bt, s, bst[s, BT_CHESTS])
                _trace(gs, bsh[s, BS_SEAT], TK_OVERBOARD, k, 0, 0, 0)
                k = max(0, min(k, bst[s, BT_CHESTS]))
                bst[s, BT_CHESTS] -= k
                bst[s, BT_OVERBOARD] += k
                bst[s, BT_BONUS] += k * prm[P_OVERBOARD_SPEED]
        if not played_any:
            break
    bg[BG_CARD_ROUND] = 0
    return True


@njit(cache=True)
def _flee(tab, gs, bt, s):
    """Flight to the Cove: flight fame to the others if it was hit; the mutiny die."""
    prm = tab.prm
    was_hit, present, outcome, fame, bst, bg = (
        bt.was_hit,
        bt.present,
        bt.outcome,
        bt.fame,
        bt.bst,
        bt.bg,
    )
    present[s] = 0
    bg[BG_NPRESENT] -= 1
    outcome[s] = FLED
    if was_hit[s]:
        for o in range(bg[BG_S]):
            if present[o]:
                fame[o, F_FLIGHT] += prm[P_FLIGHT_FAME]
    if prm[P_MUTINY_ON] > 0 and core.die(gs.dice, gs.dctx, gs.rs) <= prm[P_MUTINY_ON]:
        outcome[s] = MUTINY
        bst[s, BT_GOLD_LOST] = bst[s, BT_GOLD]
        bst[s, BT_CHESTS_LOST] = bst[s, BT_CHESTS]
        bst[s, BT_GOLD] = 0
        bst[s, BT_CHESTS] = 0
        fame[s, F_MUTINY] -= prm[P_MUTINY_LOSS]


@njit(cache=True)
def _player_turn(tab, gs, oc, bt, a):
    """Ship ``a`` flees or fires (target, section, volley cards), as its player decides."""
    prm, val = tab.prm, tab.val
    bsh, pos, php, present, bst = bt.bsh, bt.pos, bt.php, bt.present, bt.bst
    nst, bg = bt.nst, bt.bg
    volley = bt.tmp2
    flee, tgt, sec = players.broadside(tab, gs, oc, bt, a, volley)
    seat = bsh[a, BS_SEAT]
    if gs.g[G_TRACE]:
        packed = 0
        for i in range(3):
            if volley[i] >= 0:
                packed += (volley[i] + 1) << (8 * i)
        if flee:
            _trace(gs, seat, TK_BROADSIDE, 1, TRACE_NO_TARGET, HULL, 0)
        else:
            _trace(gs, seat, TK_BROADSIDE, 0, bsh[tgt, BS_SEAT] if tgt >= 0 else tgt, sec, packed)
    if flee:
        _flee(tab, gs, bt, a)
        return
    if not bst[a, BT_CAN_FIRE]:  # reloading after a Cannonade
        bst[a, BT_CAN_FIRE] = 1
        return
    grape = keg = canno = False
    for i in range(3):
        c = volley[i]
        if c < 0:
            continue
        dup = False
        for z in range(i):
            if volley[z] == c:
                dup = True
        if dup:
            continue
        _remove_card(bt, a, c)
        if c == C_GRAPESHOT:
            grape = True
        elif c == C_KEG:
            keg = True
        elif c == C_CANNONADE:
            canno = True
    sharers = _present_mask(bt)
    nd = core.num_dice(
        val[CREW, pos[a, CREW]], val[CANNONS, pos[a, CANNONS]], php[a] > 0, bsh[a, BS_PFIXED],
        bsh[a, BS_PBONES], bg[BG_GRAPPLE] != 0,
    )  # fmt: skip
    at_npc = bg[BG_AFLOAT] > 0
    tj = -1
    if at_npc:  # forced target: the one named (-1 - j, npc_target(j)), else the first present
        if tgt <= -2 and -1 - tgt < bg[BG_NNPC]:
            if nst[-1 - tgt, NS_FIGHTS] and nst[-1 - tgt, NS_PRESENT]:
                tj = -1 - tgt
        if tj < 0:
            for j in range(bg[BG_NNPC]):
                if nst[j, NS_FIGHTS] and nst[j, NS_PRESENT]:
                    tj = j
                    break
        smoked = False
    else:
        smoked = bst[tgt, BT_SMOKE] != 0
    thr = core.fire_threshold(
        at_npc, smoked, grape, prm[P_HIT_ON], prm[P_SMOKE_HIT_ON], prm[P_GRAPE_HIT_ON],
        prm[P_GRAPE_BEATS_SMOKE] != 0,
    )  # fmt: skip
    hits = np.int64(0)
    for _ in range(nd):
        if core.die(gs.dice, gs.dctx, gs.rs) >= thr:
            hits += 1
    if at_npc:
        _hit_npc(nst, tj, hits)
    elif canno:
        for k in range(4):
            _hit(tab, bt, tgt, k, hits)
    else:
        _hit(tab, bt, tgt, sec, hits)
    if keg and hits:  # every ship present: the player ships' hulls and every non-player hull
        for o in range(bg[BG_S]):
            if present[o]:
                _hit(tab, bt, o, HULL, hits)
        for j in range(bg[BG_NNPC]):
            if nst[j, NS_FIGHTS]:
                _hit_npc(nst, j, hits)
    if grape:
        _hit(tab, bt, a, CANNONS, prm[P_GRAPE_SELF])
    if canno:
        bst[a, BT_CAN_FIRE] = 0
    _resolve_routs(tab, bt, sharers, a)


@njit(cache=True)
def _npc_target(tab, gs, bt, j):
    """A Legendary Pirate's target: among the present ships not yet fired at in its current
    cycle (all again when none is left), the highest by its criterion, ties by roll-off.
    -1 when the dice ran out."""
    val, npc = tab.val, tab.npc
    pos, present, nst, bg = bt.pos, bt.present, bt.nst, bt.bg
    order, keys, rolls, stack = bt.order, bt.keys, bt.rolls, bt.stack
    S = bg[BG_S]
    base = MAX_SHIPS + MAX_NPCS + 2  # order[:base] holds the exchange's speed order
    row = nst[j, NS_ROW]
    fired = nst[j, NS_FIRED_AT]
    n_c = 0
    for s in range(S):
        if present[s] and not (fired >> s) & 1:
            n_c += 1
    if n_c == 0:
        fired = 0
        nst[j, NS_FIRED_AT] = 0
    best = -(1 << 40)
    for s in range(S):
        if present[s] and not (fired >> s) & 1:
            v = core.npc_criterion(
                npc[row, N_TARGET], val[CANNONS, pos[s, CANNONS]], val[CREW, pos[s, CREW]],
                val[HULL, pos[s, HULL]], _speed(tab, bt, s),
            )  # fmt: skip
            keys[s] = v
            best = max(best, v)
    mt = 0
    for s in range(S):
        if present[s] and not (fired >> s) & 1 and keys[s] == best:
            order[base + mt] = s
            mt += 1
    if mt > 1:
        if not core.roll_off(gs.dice, gs.dctx, gs.rs, order, keys, base, base + mt, rolls, stack):
            return -1
    t = order[base]
    nst[j, NS_FIRED_AT] = fired | (1 << t)
    return t


@njit(cache=True)
def _npc_turn(tab, gs, bt, j):
    """Non-player ship ``j`` fires one broadside (its controller's aim for the Royal Navy, else
    its target criterion); Captain Hook's misses may hit other ships."""
    prm, npc = tab.prm, tab.npc
    bsh, present, bst = bt.bsh, bt.present, bt.bst
    nst, bg = bt.nst, bt.bg
    clockwise, victims = bt.tmp, bt.tmp2
    S = bg[BG_S]
    row = nst[j, NS_ROW]
    nst[j, NS_BROADSIDES] += 1
    if row == prm[P_RN] or npc[row, N_TARGET] == T_CONTROLLER:
        ctrl = bg[BG_CONTROLLER]
        if ctrl >= 0:
            tgt, sec = players.navy_target(tab, gs, bt, ctrl)
            _trace(gs, ctrl, TK_NAVY_TARGET, bsh[tgt, BS_SEAT], sec, 0, 0)
        else:
            tgt, sec = players.default_navy_target(tab, bt)
        lo, hi = sec, sec + 1
    else:
        tgt = _npc_target(tab, gs, bt, j)
        dmg = npc[row, N_DAMAGE]
        if dmg == D_EVERY:
            lo, hi = 0, 4
        else:
            lo, hi = dmg, dmg + 1
    sharers = _present_mask(bt)
    thr = core.npc_threshold(bst[tgt, BT_SMOKE] != 0, prm[P_HIT_ON], prm[P_SMOKE_HIT_ON])
    nv = 0
    if npc[row, N_MISFIRE]:  # other present ships, clockwise (seat order) from the target
        nv = core.clockwise_others(bsh[:, BS_SEAT], present, tgt, S, clockwise)
        nv = min(nv, npc[row, N_MISFIRE_POS])
        for s in range(S):
            victims[s] = 0
    hits = np.int64(0)
    for _ in range(npc[row, N_DICE]):
        d = core.die(gs.dice, gs.dctx, gs.rs)
        if d >= thr:
            hits += 1
        elif nv > 0:
            k = core.misfire_victim(
                d, thr, nv, bst[clockwise[min(max(d, 1), nv) - 1], BT_SMOKE] != 0,
                prm[P_SMOKE_BLOCKS_MISFIRE] != 0, prm[P_SMOKE_HIT_ON],
            )  # fmt: skip
            if k > 0:
                victims[clockwise[k - 1]] += 1
    for sec in range(lo, hi):
        _hit(tab, bt, tgt, sec, hits)
    if nv > 0:
        for s in range(S):
            if victims[s] > 0:
                _hit(tab, bt, s, HULL, victims[s])
    _resolve_routs(tab, bt, sharers, BY_NPC0 - j)


@njit(cache=True)
def run(tab, gs, oc, bt):
    """Play the battle set up in ``bt`` to its end (see the module docstring). Returns the
    number of exchanges fought."""
    prm, npc = tab.prm, tab.npc
    present, outcome, fame, nst, bg = bt.present, bt.outcome, bt.fame, bt.nst, bt.bg
    order = bt.order
    S = bg[BG_S]
    galleon = -1
    for j in range(bg[BG_NNPC]):
        if not nst[j, NS_FIGHTS]:
            galleon = j
    capped = False
    if bg[BG_AFLOAT] == 0 and galleon >= 0 and bg[BG_TI]:
        pass  # no combat: the galleon goes to the fastest ship (below)
    elif not _over(bt):
        _card_phase(tab, gs, oc, bt)
        while not _over(bt):
            if bg[BG_EXCHANGE] >= prm[P_MAX_EXCH]:
                capped = True
                break
            bg[BG_EXCHANGE] += 1
            for j in range(bg[BG_NNPC]):
                if nst[j, NS_FIGHTS]:
                    nst[j, NS_HAS_FIRED] = 0
                    nst[j, NS_HULL_START] = nst[j, NS_HULL]
            m = np.int64(0)
            for s in range(S):
                if present[s]:
                    order[m] = s
                    m += 1
            for j in range(bg[BG_NNPC]):
                if nst[j, NS_FIGHTS] and nst[j, NS_PRESENT]:
                    order[m] = S + j
                    m += 1
            _order_ships(tab, gs, bt, order, m)
            for i in range(m):  # (a pirate's tied targets use the upper half of `order`)
                if _over(bt):
                    break
                a = order[i]
                if a >= S:
                    if nst[a - S, NS_PRESENT]:
                        _npc_turn(tab, gs, bt, a - S)
                        nst[a - S, NS_HAS_FIRED] = 1
                elif present[a]:
                    _player_turn(tab, gs, oc, bt, a)
            for j in range(bg[BG_NNPC]):
                row = nst[j, NS_ROW]
                if nst[j, NS_FIGHTS] and nst[j, NS_PRESENT] and npc[row, N_REGEN]:
                    nst[j, NS_HULL] = core.regenerate(
                        nst[j, NS_HULL], nst[j, NS_HULL_START], npc[row, N_REGEN], npc[row, N_HULL]
                    )
    if capped:
        bg[BG_CAPPED] = 1
        for s in range(S):
            if present[s]:
                outcome[s] = STAYED
    if galleon >= 0 and bg[BG_NPRESENT] > 0:
        captor = -1
        m = np.int64(0)
        for s in range(S):
            if present[s]:
                order[m] = s
                m += 1
        if bg[BG_TI]:
            if prm[P_CACA_TI_FASTEST]:
                _order_ships(tab, gs, bt, order, m)
                captor = order[0]
        elif m == 1:
            captor = order[0]
        if captor >= 0:
            nst[galleon, NS_CAPTOR] = captor
            row = nst[galleon, NS_ROW]
            if npc[row, N_FAME_DIE]:
                fame[captor, F_CAPTURE] += core.die(gs.dice, gs.dctx, gs.rs)
            else:
                fame[captor, F_CAPTURE] += npc[row, N_FAME]
    return bg[BG_EXCHANGE]


@njit(cache=True, inline="always")
def reset(bt, S, n_npc, ti, controller):
    """Clear the battle state for ``S`` ships and ``n_npc`` non-player ships (the caller then
    fills each ship with :func:`set_ship` and each non-player ship with :func:`set_npc`)."""
    bg = bt.bg
    for i in range(bg.shape[0]):
        bg[i] = 0
    bg[BG_S] = S
    bg[BG_NNPC] = n_npc
    bg[BG_TI] = ti
    bg[BG_CONTROLLER] = controller
    bg[BG_NPRESENT] = S


@njit(cache=True)
def set_ship(tab, bt, s, seat, ring, art_used, parrot, wounded, chests, gold):
    """Ship ``s`` of the battle: game seat, rings, Artisans (hits already absorbed, -1 none),
    parrot row (-1) and its wounds, chests and gold (its battle hand: ``bt.bhand``, count in
    ``bst[s, BT_HAND_N]``, filled by the caller)."""
    prm, par = tab.prm, tab.par
    bsh, pos, art, php, psec, was_hit, present, outcome, fame, bst = (
        bt.bsh,
        bt.pos,
        bt.art,
        bt.php,
        bt.psec,
        bt.was_hit,
        bt.present,
        bt.outcome,
        bt.fame,
        bt.bst,
    )
    for k in range(bsh.shape[1]):
        bsh[s, k] = 0
    bsh[s, BS_SEAT] = seat
    bsh[s, BS_PARROT] = parrot
    for k in range(4):
        pos[s, k] = ring[k]
        bsh[s, BS_START + k] = ring[k]
        art[s, k] = prm[P_ART_ABSORBS] - art_used[k] if art_used[k] >= 0 else 0
        bsh[s, BS_ART0 + k] = art[s, k]
    if parrot >= 0:
        php[s] = prm[P_PARROT_HITS] - (1 if wounded else 0)
        psec[s] = par[parrot, PA_SECTION]
        bsh[s, BS_PFIXED] = par[parrot, PA_FIXED_DICE]
        bsh[s, BS_PBONES] = par[parrot, PA_DICE_CANNONS]
        bsh[s, BS_PSPEED] = par[parrot, PA_SPEED]
    else:
        php[s] = 0
        psec[s] = -1
    bsh[s, BS_PHP0] = php[s]
    was_hit[s] = 0
    present[s] = 1
    outcome[s] = WON
    for k in range(6):
        fame[s, k] = 0
    for k in range(bst.shape[1]):
        bst[s, k] = 0
    bst[s, BT_CAN_FIRE] = 1
    bst[s, BT_CHESTS] = chests
    bst[s, BT_GOLD] = gold
    bst[s, BT_ROUTED_BY] = BY_NOBODY


@njit(cache=True)
def set_npc(tab, bt, j, row):
    """Non-player ship ``j`` of the battle: ``npc`` row ``row``."""
    npc = tab.npc
    nst, bg = bt.nst, bt.bg
    for k in range(nst.shape[1]):
        nst[j, k] = 0
    nst[j, NS_ROW] = row
    nst[j, NS_FIGHTS] = npc[row, N_FIGHTS]
    nst[j, NS_PRESENT] = nst[j, NS_FIGHTS]
    nst[j, NS_HULL] = npc[row, N_HULL]
    nst[j, NS_SUNK_BY] = -1
    nst[j, NS_CAPTOR] = -1
    if nst[j, NS_FIGHTS]:
        bg[BG_AFLOAT] += 1


__all__ = ["TRACE_NO_TARGET", "reset", "run", "scratch", "set_npc", "set_ship"]
