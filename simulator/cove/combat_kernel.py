"""Pirate's Cove: a compiled (numba) battle kernel for the common battles without cards.

Same rules as the scalar reference :mod:`simulator.cove.battle` (sections "Combat" and "Non-player
ships" of ``../shared/rules/pirates-cove.md``; readings in ``docs/rules-cove-combat.md``), played
one battle after another in a compiled loop. It covers:

* 1-5 player ships, any ring positions, Artisans (any section, once-hit ones too), the four
  parrots (wounded or not), **no battle or volley cards in hand**;
* policies :class:`~simulator.cove.combat_policies.RulePolicy` (``stand``, ``when-hit``,
  ``when-critical``, flee after N ring steps) and the base :class:`BattlePolicy`;
* no non-player ship, any Legendary Pirate (fighting or the Cacafuego), or the Royal Navy with the
  default controller (:class:`RoyalNavyPolicy`); any island.

Chance: d6 results pre-generated in bulk by the caller's ``np.random.Generator`` (``int8``) and
consumed in exactly the order the scalar engine rolls them -- speed ties and the pirates' target
ties by die roll-offs (re-rolled among the tied), flight's mutiny die, the Cacafuego's fame die.
Given the same die stream, the kernel and :func:`simulator.cove.battle.resolve_battle` play the
same battle die for die (tested). When the buffer runs out mid-battle, the kernel stops, the
caller appends a fresh bulk to the unused tail, and that battle is replayed from its first die:
results depend only on the generator's state and ``n``.

Public API: :func:`kernel_applies` (why not, or ``None``) and :func:`simulate_battles_kernel`
(returns a :class:`simulator.cove.combat.BatchResult`);
:func:`simulator.cove.combat.simulate_battles` dispatches here when the kernel applies.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from simulator.compiled import CompiledEngine
from simulator.cove.battle import ROYAL_NAVY, TREASURE_ISLAND, BattleShip, _Battle
from simulator.cove.combat_policies import BattlePolicy, RoyalNavyPolicy, RulePolicy
from simulator.cove.rules import SECTIONS, CoveRules

HULL, CREW, CANNONS, SAILS = range(4)
WON, ROUTED, FLED, MUTINY, STAYED = range(5)  # OUTCOMES order
F_FLIGHT, F_ROUT, F_PIRATE, F_CAPTURE, F_PARROT, F_MUTINY = range(6)  # FAME_CAUSES order

# ship table columns (one row per ship, argument order)
(C_POS, C_ART, C_PHP, C_PSEC, C_PFIXED, C_PBONES, C_PSPEED, C_SEAT, C_FLEE, C_FLEE_N) = (
    0,
    4,
    8,
    9,
    10,
    11,
    12,
    13,
    14,
    15,
)
SHIP_COLS = 16
FLEE_STAND, FLEE_WHEN_HIT, FLEE_WHEN_CRITICAL, FLEE_AFTER_N = range(4)

# parameter vector indices
(
    P_S,
    P_HIT_ON,
    P_FLIGHT_FAME,
    P_ROUT_FAME,
    P_MUTINY_ON,
    P_MUTINY_LOSS,
    P_PARROT_LOSS,
    P_MAX_EXCH,
    P_ABSORBS,
    P_TI,
    P_NPC,
    P_NPC_DICE,
    P_NPC_HULL,
    P_NPC_SAILS,
    P_NPC_FAME,
    P_NPC_REGEN,
    P_MISFIRE,
    P_MISFIRE_POS,
    P_NPC_TARGET,
    P_NPC_DAMAGE,
    P_FAME_DIE,
    P_TI_FASTEST,
    P_EXCH_BOUND,
) = range(23)
N_PARAMS = 23
NPC_NONE, NPC_FIGHTS, NPC_GALLEON = range(3)
T_MOST_CANNONS, T_LARGEST_CREW, T_STRONGEST_HULL, T_FASTEST, T_CONTROLLER = range(5)
D_EVERY_SECTION = 4  # P_NPC_DAMAGE: 0..3 a section, 4 every section, -1 the controller's choice
_TARGETS = ("most_cannons", "largest_crew", "strongest_hull", "fastest", "controller")

# ctx (int64[4]): [die pointer, next battle, dice used by finished battles, unused]
X_P, X_B, X_USED = range(3)


@njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
def _roll_off(dice, dp, order, keys, lo, hi, rolls, stack):
    """Settle ties of equal ``keys`` inside ``order[lo:hi]`` (already sorted by key, descending) by
    die roll-offs, as :meth:`battle._Battle.break_ties` does: each tied group rolls one die per
    ship, highest first, re-rolling among those still tied, depth first. Returns False when the
    die buffer ran out; returns the die pointer after the roll-offs, or -1 when the buffer ran
    out."""
    # segments to settle, processed leftmost first: a stack of (start, end)
    top = 0
    i = hi - 1
    while i >= lo:  # push the runs of equal keys, right to left
        j = i
        while j - 1 >= lo and keys[order[j - 1]] == keys[order[i]]:
            j -= 1
        if i > j:
            stack[top, 0] = j
            stack[top, 1] = i + 1
            top += 1
        i = j - 1
    L = dice.shape[0]
    while top > 0:
        top -= 1
        a = stack[top, 0]
        b = stack[top, 1]
        m = b - a
        if dp + m > L:
            return -1
        for k in range(m):
            rolls[order[a + k]] = dice[dp + k]
        dp += m
        # stable insertion sort of order[a:b] by roll, descending
        for k in range(a + 1, b):
            it = order[k]
            r = rolls[it]
            q = k - 1
            while q >= a and rolls[order[q]] < r:
                order[q + 1] = order[q]
                q -= 1
            order[q + 1] = it
        # push the tied sub-runs right to left so the leftmost is settled first
        i = b - 1
        while i >= a:
            j = i
            while j - 1 >= a and rolls[order[j - 1]] == rolls[order[i]]:
                j -= 1
            if i > j:
                stack[top, 0] = j
                stack[top, 1] = i + 1
                top += 1
            i = j - 1
    return dp


@njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
def _sort_desc(order, keys, m):
    """Stable insertion sort of order[:m] by keys, descending."""
    for k in range(1, m):
        it = order[k]
        v = keys[it]
        q = k - 1
        while q >= 0 and keys[order[q]] < v:
            order[q + 1] = order[q]
            q -= 1
        order[q + 1] = it


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _speed(val, ship, pos, php, s):
    sp = val[SAILS, pos[s, SAILS]]
    if php[s] > 0:
        sp += ship[s, C_PSPEED]
    return sp


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _hits_to_rout(ship, pos, art, php, s, sec, absorbs):
    h = pos[s, sec] + art[s, sec]
    if absorbs and php[s] > 0 and ship[s, C_PSEC] == sec:
        h += php[s]
    return h


@njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
def _weakest(ship, pos, art, php, present, S, exclude, absorbs):
    """(ship, section) with the fewest hits to rout among present ships except ``exclude``; ties:
    lowest seat, then SECTIONS order. (-1, 0) if none."""
    best_h = 1 << 30
    best_seat = 1 << 30
    best_s = -1
    best_k = 0
    for s in range(S):
        if s == exclude or not present[s]:
            continue
        hk = 1 << 30
        kk = 0
        for k in range(4):
            h = _hits_to_rout(ship, pos, art, php, s, k, absorbs)
            if h < hk:
                hk = h
                kk = k
        seat = ship[s, C_SEAT]
        if hk < best_h or (hk == best_h and seat < best_seat):
            best_h = hk
            best_seat = seat
            best_s = s
            best_k = kk
    return best_s, best_k


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _hit(ship, prm, pos, art, php, present, was_hit, fame, s, sec, k):
    """``k`` hits on section ``sec`` of ship ``s``: Artisan first, then the parrot there, then the
    ring. Returns 1 when the ring falls off (a rout to resolve), else 0."""
    if k <= 0 or not present[s]:
        return 0
    was_hit[s] = True
    a = art[s, sec]
    if a > 0:
        a = min(a, k)
        art[s, sec] -= a
        k -= a
    if k > 0 and php[s] > 0 and ship[s, C_PSEC] == sec:
        p = php[s]
        p = min(p, k)
        php[s] -= p
        if prm[P_ABSORBS]:
            k -= p
        if php[s] == 0:
            fame[s, F_PARROT] -= prm[P_PARROT_LOSS]
    if k > 0:
        v = pos[s, sec] - k
        if v <= 0:
            pos[s, sec] = 0
            return 1
        pos[s, sec] = v
    return 0


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _resolve(prm, pos, present, outcome, fame, sharers, S, npc_state, fallen):
    """After a broadside: sink the non-player ship (fame shared among ``sharers``), rout ships
    with a destroyed section (only looked for when ``fallen``: some ring fell off) and give the
    ships left their rout fame. Returns the number of ships routed."""
    if npc_state[0] and npc_state[1] <= 0:  # present and hull gone
        npc_state[1] = 0
        npc_state[0] = 0
        npc_state[2] = 1  # sunk
        cnt = 0
        for s in range(S):
            if sharers[s]:
                cnt += 1
        if cnt > 0:
            each = prm[P_NPC_FAME] // cnt
            for s in range(S):
                if sharers[s]:
                    fame[s, F_PIRATE] += each
    n_routed = 0
    if not fallen:
        return 0
    for s in range(S):
        if present[s]:
            m = pos[s, 0]
            for k in range(1, 4):
                m = min(m, pos[s, k])
            if m <= 0:
                present[s] = False
                outcome[s] = ROUTED
                n_routed += 1
    if n_routed:
        for s in range(S):
            if present[s]:
                fame[s, F_ROUT] += n_routed * prm[P_ROUT_FAME]
    return n_routed


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _over(players, npc_present, ti):
    """The battle's end: no player ship left against a non-player ship; else at most one (none
    needed at Treasure Island, where players do not fight each other)."""
    if npc_present:
        return players == 0
    if ti:
        return True
    return players <= 1


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _battle(
    dice,
    ctx,
    val,
    ship,
    prm,
    pos,
    art,
    php,
    present,
    was_hit,
    outcome,
    fame,
    fired,
    sharers,
    order,
    keys,
    rolls,
    stack,
    npc_state,
    clockwise,
    victims,
):
    """One battle from the state set up by the caller. Returns the number of exchanges, or -1 when
    the dice ran out, -2 - exchanges when the exchange cap was reached. The die pointer is kept in
    a local (``dp``) and written back to ctx[X_P] at the end."""
    S = prm[P_S]
    L = dice.shape[0]
    hit_on = prm[P_HIT_ON]
    absorbs = prm[P_ABSORBS]
    npc_kind = prm[P_NPC]
    exch = 0
    capped = False
    exch_bound = prm[P_EXCH_BOUND]
    dp = ctx[X_P]
    ti = prm[P_TI]
    npres = S  # player ships still present
    if not (npc_kind == NPC_GALLEON and ti) and not _over(npres, npc_state[0], ti):
        while not _over(npres, npc_state[0], ti):
            if exch >= prm[P_MAX_EXCH]:
                capped = True
                break
            if dp + exch_bound > L:  # every die of this exchange except roll-offs
                return -1
            exch += 1
            hull_start = npc_state[1]
            # speed order: present ships (argument order) then the non-player ship (index S)
            m = 0
            for s in range(S):
                if present[s]:
                    order[m] = s
                    keys[s] = _speed(val, ship, pos, php, s)
                    m += 1
            if npc_state[0]:
                order[m] = S
                keys[S] = prm[P_NPC_SAILS]
                m += 1
            if m == 2 and keys[order[0]] != keys[order[1]]:  # the common case: no tie
                if keys[order[1]] > keys[order[0]]:
                    o = order[0]
                    order[0] = order[1]
                    order[1] = o
            else:
                _sort_desc(order, keys, m)
                dp = _roll_off(dice, dp, order, keys, 0, m, rolls, stack)
                if dp < 0:
                    return -1
            for slot in range(m):
                if _over(npres, npc_state[0], ti):
                    break
                a = order[slot]
                if a == S:
                    if not npc_state[0]:
                        continue
                    # ---------------------------------------------------- non-player ship's turn
                    rule = prm[P_NPC_TARGET]
                    if rule == T_CONTROLLER:
                        tgt, sec = _weakest(ship, pos, art, php, present, S, -1, absorbs)
                        first_sec = sec
                        last_sec = sec + 1
                    elif S == 1:  # a lone ship is always the target
                        tgt = 0
                        dmg = prm[P_NPC_DAMAGE]
                        if dmg == D_EVERY_SECTION:
                            first_sec = 0
                            last_sec = 4
                        else:
                            first_sec = dmg
                            last_sec = dmg + 1
                    else:
                        n_c = 0
                        for s in range(S):
                            if present[s] and not fired[s]:
                                n_c += 1
                        if n_c == 0:
                            for s in range(S):
                                fired[s] = False
                        best = -(1 << 30)
                        for s in range(S):
                            if present[s] and not fired[s]:
                                if rule == T_MOST_CANNONS:
                                    v = val[CANNONS, pos[s, CANNONS]]
                                elif rule == T_LARGEST_CREW:
                                    v = val[CREW, pos[s, CREW]]
                                elif rule == T_STRONGEST_HULL:
                                    v = val[HULL, pos[s, HULL]]
                                else:
                                    v = _speed(val, ship, pos, php, s)
                                keys[s] = v
                                best = max(best, v)
                        mt = 0
                        for s in range(S):
                            if present[s] and not fired[s] and keys[s] == best:
                                order[S + 1 + mt] = s
                                mt += 1
                        # several tied (equal keys): one roll-off over order[S+1 : S+1+mt]
                        if mt > 1:
                            dp = _roll_off(dice, dp, order, keys, S + 1, S + 1 + mt, rolls, stack)
                            if dp < 0:
                                return -1
                        tgt = order[S + 1]
                        fired[tgt] = True
                        dmg = prm[P_NPC_DAMAGE]
                        if dmg == D_EVERY_SECTION:
                            first_sec = 0
                            last_sec = 4
                        else:
                            first_sec = dmg
                            last_sec = dmg + 1
                    for s in range(S):
                        sharers[s] = present[s]
                    nd = prm[P_NPC_DICE]
                    p = dp
                    hits = 0
                    nv = 0
                    if prm[P_MISFIRE]:
                        # other present ships, clockwise (seat order) from the target
                        tseat = ship[tgt, C_SEAT]
                        nv = 0
                        for s in range(S):
                            if present[s] and s != tgt:
                                clockwise[nv] = s
                                keys[s] = (ship[s, C_SEAT] - tseat) % 1000
                                nv += 1
                        for k in range(1, nv):  # sort by clockwise distance
                            it = clockwise[k]
                            q = k - 1
                            while q >= 0 and keys[clockwise[q]] > keys[it]:
                                clockwise[q + 1] = clockwise[q]
                                q -= 1
                            clockwise[q + 1] = it
                        nv = min(nv, prm[P_MISFIRE_POS])
                        for s in range(S):
                            victims[s] = 0
                    if nv > 0:
                        for i in range(nd):
                            d = dice[p + i]
                            if d >= hit_on:
                                hits += 1
                            elif d >= 1 and d <= nv:
                                victims[clockwise[d - 1]] += 1
                    else:
                        for i in range(nd):
                            hits += dice[p + i] >= hit_on
                    dp = p + nd
                    fallen = 0
                    for sec in range(first_sec, last_sec):
                        fallen += _hit(
                            ship, prm, pos, art, php, present, was_hit, fame, tgt, sec, hits
                        )
                    if nv > 0:
                        for s in range(S):
                            if victims[s] > 0:
                                fallen += _hit(
                                    ship,
                                    prm,
                                    pos,
                                    art,
                                    php,
                                    present,
                                    was_hit,
                                    fame,
                                    s,
                                    HULL,
                                    victims[s],
                                )
                    npres -= _resolve(
                        prm, pos, present, outcome, fame, sharers, S, npc_state, fallen
                    )
                    continue
                if not present[a]:
                    continue
                # ---------------------------------------------------------- player ship's turn
                kind = ship[a, C_FLEE]
                flee = False
                if kind == FLEE_WHEN_HIT:
                    flee = was_hit[a]
                elif kind == FLEE_WHEN_CRITICAL:
                    hmin = 1 << 30
                    for k in range(4):
                        h = _hits_to_rout(ship, pos, art, php, a, k, absorbs)
                        hmin = min(hmin, h)
                    flee = hmin <= 1
                elif kind == FLEE_AFTER_N:
                    lost = 0
                    for k in range(4):
                        lost += ship[a, C_POS + k] - pos[a, k]
                    flee = lost >= ship[a, C_FLEE_N]
                if flee:
                    present[a] = False
                    npres -= 1
                    outcome[a] = FLED
                    if was_hit[a]:
                        for s in range(S):
                            if present[s]:
                                fame[s, F_FLIGHT] += prm[P_FLIGHT_FAME]
                    if prm[P_MUTINY_ON] > 0:
                        d = dice[dp]
                        dp += 1
                        if d <= prm[P_MUTINY_ON]:
                            outcome[a] = MUTINY
                            fame[a, F_MUTINY] -= prm[P_MUTINY_LOSS]
                    continue
                if npc_state[0]:  # pirate fame is shared by the ships present when it fires
                    for s in range(S):
                        sharers[s] = present[s]
                # dice: parrot powers, else min(crew, cannons)
                if php[a] > 0 and ship[a, C_PFIXED] > 0:
                    nd = ship[a, C_PFIXED]
                elif php[a] > 0 and ship[a, C_PBONES]:
                    nd = val[CANNONS, pos[a, CANNONS]]
                else:
                    nd = val[CREW, pos[a, CREW]]
                    c = val[CANNONS, pos[a, CANNONS]]
                    nd = min(nd, c)
                hits = 0
                for i in range(nd):
                    hits += dice[dp + i] >= hit_on
                dp += nd
                if npc_state[0]:  # forced target: the non-player ship's hull
                    npc_state[1] -= hits
                    if npc_state[1] <= 0:
                        _resolve(prm, pos, present, outcome, fame, sharers, S, npc_state, 0)
                elif hits > 0:
                    if S == 2:  # one opponent: its weakest section (SECTIONS order on ties)
                        tgt = 1 - a
                        sec = 0
                        hk = _hits_to_rout(ship, pos, art, php, tgt, 0, absorbs)
                        for k in range(1, 4):
                            h = _hits_to_rout(ship, pos, art, php, tgt, k, absorbs)
                            if h < hk:
                                hk = h
                                sec = k
                    else:
                        tgt, sec = _weakest(ship, pos, art, php, present, S, a, absorbs)
                    if _hit(ship, prm, pos, art, php, present, was_hit, fame, tgt, sec, hits):
                        npres -= _resolve(
                            prm, pos, present, outcome, fame, sharers, S, npc_state, 1
                        )
            if npc_state[0] and prm[P_NPC_REGEN] > 0:
                lost = hull_start - npc_state[1]
                lost = min(lost, prm[P_NPC_REGEN])
                h = npc_state[1] + lost
                npc_state[1] = min(prm[P_NPC_HULL], h)
    if capped:
        for s in range(S):
            if present[s]:
                outcome[s] = STAYED
    if npc_kind == NPC_GALLEON:
        m = 0
        for s in range(S):
            if present[s]:
                order[m] = s
                keys[s] = _speed(val, ship, pos, php, s)
                m += 1
        captor = -1
        if m > 0:
            if prm[P_TI]:
                if prm[P_TI_FASTEST]:
                    _sort_desc(order, keys, m)
                    dp = _roll_off(dice, dp, order, keys, 0, m, rolls, stack)
                    if dp < 0:
                        return -1
                    captor = order[0]
            elif m == 1:
                captor = order[0]
        if captor >= 0:
            npc_state[3] = captor
            if prm[P_FAME_DIE]:
                if dp + 1 > L:
                    return -1
                fame[captor, F_CAPTURE] += dice[dp]
                dp += 1
            else:
                fame[captor, F_CAPTURE] += prm[P_NPC_FAME]
    ctx[X_P] = dp
    return -2 - exch if capped else exch


@njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
def _run(
    dice,
    ctx,
    val,
    ship,
    prm,
    out_outcome,
    out_fame,
    out_pos,
    out_sunk,
    out_captured,
    out_exch,
    out_capped,
    pos,
    art,
    php,
    present,
    was_hit,
    outcome,
    fame,
    fired,
    sharers,
    order,
    keys,
    rolls,
    stack,
    npc_state,
    clockwise,
    victims,
):
    """Battles ctx[X_B] .. n-1. Returns 0 when done, 1 when the dice ran out (ctx says where the
    unfinished battle's first die is and which battle it is). The scratch arrays after
    ``out_capped`` come from :func:`_scratch` (no allocation and no reference counting here:
    compiled with ``_nrt=False``, which keeps atomic reference counts out of the hot loop)."""
    S = prm[P_S]
    n = out_outcome.shape[0]
    for b in range(ctx[X_B], n):
        start = ctx[X_P]
        for s in range(S):
            for k in range(4):
                pos[s, k] = ship[s, C_POS + k]
                art[s, k] = ship[s, C_ART + k]
                fame[s, k] = 0
            fame[s, 4] = 0
            fame[s, 5] = 0
            php[s] = ship[s, C_PHP]
            present[s] = True
            was_hit[s] = False
            outcome[s] = WON
            fired[s] = False
        npc_state[0] = 1 if prm[P_NPC] == NPC_FIGHTS else 0
        npc_state[1] = prm[P_NPC_HULL]
        npc_state[2] = 0
        npc_state[3] = -1
        r = _battle(
            dice,
            ctx,
            val,
            ship,
            prm,
            pos,
            art,
            php,
            present,
            was_hit,
            outcome,
            fame,
            fired,
            sharers,
            order,
            keys,
            rolls,
            stack,
            npc_state,
            clockwise,
            victims,
        )
        if r == -1:
            ctx[X_P] = start
            ctx[X_B] = b
            return 1
        capped = r <= -2
        exch = -2 - r if capped else r
        for s in range(S):
            out_outcome[b, s] = outcome[s]
            for k in range(4):
                out_pos[b, s, k] = pos[s, k]
            for k in range(6):
                out_fame[b, s, k] = fame[s, k]
        out_sunk[b] = npc_state[2] == 1
        out_captured[b] = npc_state[3]
        out_exch[b] = exch
        out_capped[b] = capped
        ctx[X_USED] += ctx[X_P] - start
    ctx[X_B] = n
    return 0


# ------------------------------------------------------------------------------------------
def kernel_applies(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | None,
    policies: Sequence[BattlePolicy],
    island: str,
    royal_navy_policy: RoyalNavyPolicy | None = None,
) -> str | None:
    """``None`` when the compiled kernel plays this battle, else the reason it does not."""
    if not 1 <= len(ships) <= 5:
        return f"{len(ships)} ships (kernel: 1-5)"
    if any(s.battle_cards for s in ships):
        return "cards in hand"
    for p in policies:
        if type(p) not in (RulePolicy, BattlePolicy):
            return f"policy {type(p).__name__}"
    if royal_navy_policy is not None and type(royal_navy_policy) is not RoyalNavyPolicy:
        return f"Royal Navy controller {type(royal_navy_policy).__name__}"
    if npc is not None and npc != ROYAL_NAVY and npc in rules.pirates:
        p = rules.pirates[npc]
        if p.fights and p.first_target != "controller" and p.damages == "controller":
            return "damages='controller' without a controller"
    return None


def _flee_code(p: BattlePolicy) -> tuple[int, int]:
    if type(p) is BattlePolicy or p.flee == "stand":
        return FLEE_STAND, 0
    if p.flee == "when-hit":
        return FLEE_WHEN_HIT, 0
    if p.flee == "when-critical":
        return FLEE_WHEN_CRITICAL, 0
    return FLEE_AFTER_N, int(p.flee)


def _tables(rules: CoveRules, proto: _Battle, policies, npc: str | None, island: str):
    c = rules.combat
    mat = rules.ship_mat
    S = len(proto.ships)
    val = np.zeros((4, mat.num_positions + 1), np.int64)  # value by position (0 = destroyed)
    for k, sec in enumerate(SECTIONS):
        val[k, 1:] = getattr(mat, sec)
    ship = np.zeros((S, SHIP_COLS), np.int64)
    for i, (ps, pol) in enumerate(zip(proto.ships, policies)):
        ship[i, C_POS : C_POS + 4] = ps.pos
        ship[i, C_ART : C_ART + 4] = ps.art
        ship[i, C_PHP] = ps.parrot_hp
        ship[i, C_PSEC] = -1
        if ps.parrot is not None:
            par = rules.parrots[ps.parrot]
            ship[i, C_PSEC] = SECTIONS.index(par.section)
            ship[i, C_PFIXED] = par.fixed_dice
            ship[i, C_PBONES] = int(par.dice_equal_cannons)
            ship[i, C_PSPEED] = par.speed_bonus
        ship[i, C_SEAT] = ps.seat
        ship[i, C_FLEE], ship[i, C_FLEE_N] = _flee_code(pol)
    prm = np.zeros(N_PARAMS, np.int64)
    prm[P_S] = S
    prm[P_HIT_ON] = c.hit_on
    prm[P_FLIGHT_FAME] = c.flight_fame_if_hit
    prm[P_ROUT_FAME] = c.rout_fame
    prm[P_MUTINY_ON] = c.mutiny_on
    prm[P_MUTINY_LOSS] = c.mutiny_fame_loss
    prm[P_PARROT_LOSS] = c.parrot_death_fame_loss
    prm[P_MAX_EXCH] = c.max_exchanges
    prm[P_ABSORBS] = int(c.parrot_absorbs_hits)
    prm[P_TI] = int(island == TREASURE_ISLAND)
    prm[P_TI_FASTEST] = int(rules.decisions.cacafuego_at_treasure_island == "fastest")
    prm[P_NPC_DAMAGE] = -1
    n = proto.npc
    if n is not None:
        prm[P_NPC] = NPC_FIGHTS if n.fights else NPC_GALLEON
        prm[P_NPC_DICE] = n.dice if n.fights else 0
        prm[P_NPC_HULL] = n.hull
        prm[P_NPC_SAILS] = n.sails
        prm[P_NPC_FAME] = n.fame
        prm[P_NPC_REGEN] = n.regenerate_per_exchange
        prm[P_FAME_DIE] = int(n.fame_die)
        if n.fights:
            prm[P_MISFIRE] = int(n.misfire_redirect)
            prm[P_MISFIRE_POS] = n.misfire_positions
            if npc == ROYAL_NAVY or n.first_target == "controller":
                prm[P_NPC_TARGET] = T_CONTROLLER
            else:
                prm[P_NPC_TARGET] = _TARGETS.index(n.first_target)
                prm[P_NPC_DAMAGE] = (
                    D_EVERY_SECTION if n.damages == "every_section" else SECTIONS.index(n.damages)
                )
    max_dice = max(int(val[CREW].max()), int(val[CANNONS].max()), int(ship[:, C_PFIXED].max()))
    prm[P_EXCH_BOUND] = S * (max_dice + 1) + int(prm[P_NPC_DICE]) + 1
    return val, ship, prm


def _scratch(S: int) -> tuple[np.ndarray, ...]:
    """Per-battle working state of :func:`_run` (reset by it at every battle)."""
    i8 = np.int64
    return (
        np.empty((S, 4), i8),  # pos: ring positions
        np.empty((S, 4), i8),  # art: Artisan hits left
        np.empty(S, i8),  # php: parrot hits left
        np.empty(S, np.bool_),  # present
        np.empty(S, np.bool_),  # was_hit
        np.empty(S, i8),  # outcome
        np.empty((S, 6), i8),  # fame by cause
        np.empty(S, np.bool_),  # fired: the pirate fired at it in its current cycle
        np.empty(S, np.bool_),  # sharers of pirate fame
        np.empty(2 * S + 2, i8),  # order: speed order, then the pirate's tied targets
        np.empty(S + 1, i8),  # keys
        np.empty(S + 1, i8),  # rolls of a roll-off
        np.empty((2 * S + 4, 2), i8),  # stack of tied segments
        np.empty(4, i8),  # npc_state: present, hull, sunk, captor
        np.empty(S, i8),  # clockwise: Hook's numbering
        np.zeros(S, i8),
    )  # victims: misfire hits per ship


#: dice per bulk generation, at least (and the first bulk's estimate per battle)
MIN_BULK = 4096
FIRST_DICE_PER_BATTLE = 16
MAX_BULK = 1 << 22


def simulate_battles_kernel(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | None,
    policies: Sequence[BattlePolicy],
    n: int,
    rng: np.random.Generator,
    *,
    island: str = "hull",
    royal_navy_policy: RoyalNavyPolicy | None = None,
):
    """Play ``n`` independent trials of one battle with the compiled kernel.

    Same arguments and result as :func:`simulator.cove.combat.simulate_battles`; raises
    ``ValueError`` if :func:`kernel_applies` says the battle is not the kernel's. ``dice_used``
    counts every die the battles consumed (roll-offs and mutiny dice included).
    """
    from simulator.cove.combat import BatchResult

    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    why = kernel_applies(rules, ships, npc, policies, island, royal_navy_policy)
    if why is not None:
        raise ValueError(f"the compiled kernel does not play this battle: {why}")
    proto = _Battle(
        rules, list(ships), npc, list(policies), rng, island, None, royal_navy_policy
    )  # validates
    val, ship, prm = _tables(rules, proto, policies, npc, island)
    S = len(ships)
    out_outcome = np.zeros((n, S), np.int8)
    out_fame = np.zeros((n, S, 6), np.int16)
    out_pos = np.zeros((n, S, 4), np.int8)
    out_sunk = np.zeros(n, np.bool_)
    out_captured = np.full(n, -1, np.int8)
    out_exch = np.zeros(n, np.int16)
    out_capped = np.zeros(n, np.bool_)
    ctx = np.zeros(4, np.int64)
    scratch = _scratch(S)
    dice = np.empty(0, np.int8)
    while int(ctx[X_B]) < n:
        # bulk size: what the remaining battles should need at the rate seen so far (+3 %)
        b = int(ctx[X_B])
        rate = ctx[X_USED] / b if b else FIRST_DICE_PER_BATTLE
        want = int(min(max((n - b) * rate * 1.03 + 64, MIN_BULK), MAX_BULK))
        tail = dice[int(ctx[X_P]) :]
        fresh = rng.integers(1, 7, size=want, dtype=np.int8)
        dice = np.concatenate([tail, fresh]) if len(tail) else fresh
        ctx[X_P] = 0
        _run(
            dice,
            ctx,
            val,
            ship,
            prm,
            out_outcome,
            out_fame,
            out_pos,
            out_sunk,
            out_captured,
            out_exch,
            out_capped,
            *scratch,
        )
    return BatchResult(
        outcome=out_outcome,
        fame=out_fame,
        positions=out_pos,
        npc_sunk=out_sunk,
        captured_by=out_captured,
        exchanges=out_exch,
        capped=out_capped,
        dice_used=int(ctx[X_USED]),
    )


def warm_up() -> None:
    """Compile (or load from the on-disk cache) the kernel: call before timing it."""
    from scenarios import load_scenario
    from simulator.cove.rules import CoveRules

    rules = load_scenario(None, CoveRules).rules
    simulate_battles_kernel(
        rules,
        [BattleShip(0, [2, 2, 2, 2]), BattleShip(1, [2, 2, 2, 2])],
        None,
        [RulePolicy(), RulePolicy()],
        2,
        np.random.default_rng(0),
    )


__all__ = ["kernel_applies", "simulate_battles_kernel", "warm_up"]


#: the battle kernel as the runner announces it (cold compile measured 16 s wall, 10 s CPU, on
#: 2 busy cores); tasks that may call :func:`simulate_battles_kernel` pass it to ``run_chunks``
COMPILED_ENGINE = CompiledEngine("Pirate's Cove battle kernel", (_run,), 20)
