"""Pirate's Cove: a compiled (numba) battle kernel for batches of one battle, cards included.

Sections "Combat" and "Non-player ships" of ``../shared/rules/pirates-cove.md`` (readings in
``docs/rules-cove-combat.md``), played one battle after another in a compiled loop. Each rule is the
compiled rule core's (:mod:`simulator.cove.fast.core`, shared with the full game and the players'
odds): a hit through Artisan and parrot, the hits to rout and the weakest section, speed, dice, the
hit thresholds, the speed order and its roll-offs (:func:`~simulator.cove.fast.core.roll_off_at` on
the kernel's die pointer), a Legendary Pirate's target criterion, Hook's misfire and the Dutchman's
regeneration; this module holds the battle's sequence, its packed state and the policies' decisions.
It covers:

* 1-5 player ships, any ring positions, Artisans (any section, once-hit ones too), the four
  parrots (wounded or not), battle and volley cards in hand;
* policies :class:`~simulator.cove.combat_policies.RulePolicy` (``stand``, ``when-hit``,
  ``when-critical``, flee after N ring steps; battle and volley cards it plays when it holds
  them), the base :class:`BattlePolicy`, the players' card rule
  :class:`~simulator.cove.combat_policies.HeuristicCardPolicy` and a solved duel's
  :class:`~simulator.cove.duel_cards.DuelCardPolicy` (its decision table looked up by state code);
* no non-player ship, any Legendary Pirate (fighting or the Cacafuego), or the Royal Navy with the
  default controller (:class:`RoyalNavyPolicy`); any island.

Chance: d6 results pre-generated in bulk by the caller's ``np.random.Generator`` (``int8``) and
consumed in the order of the rules -- speed ties and the pirates' target ties by die roll-offs
(re-rolled among the tied), flight's mutiny die, the Cacafuego's fame die. Given the same die
stream, the kernel and the independent scalar oracle (``tests/cove_battle_oracle.py``) play the same
battle die for die (``tests/test_cove_combat_kernel.py``). When the buffer runs out mid-battle, the
kernel stops, the caller appends a fresh bulk to the unused tail, and that battle is replayed from
its first die: results depend only on the generator's state and ``n``.

Battle cards: the card rounds depend only on the speed order at the start (ties settled by die
roll-offs). Their outcome for every order the roll-offs can make is computed beforehand
(:class:`_CardRounds`, the policies asked in Python with a player's view) and looked up by the
kernel after it has rolled the same roll-offs; Smoke,
Favourable wind, Grapple, Overboard and Becalmed then act in the exchanges. Volley cards
(Grapeshot with its recoil and its win over Smoke, Powder keg on every hull, Cannonade on every
section and the reload turn after it) and Smoke against misfires are played in the kernel.

Public API: :func:`kernel_applies` (why not, or ``None``) and :func:`simulate_battles_kernel`
(returns a :class:`simulator.cove.combat.BatchResult`);
:func:`simulator.cove.combat.simulate_battles` dispatches here when the kernel applies.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from simulator.compiled import CompiledEngine
from simulator.cove.combat import ROYAL_NAVY, TREASURE_ISLAND, BattleShip, npc_keys
from simulator.cove.combat_policies import (
    BATTLE_CARDS,
    VOLLEY_CARDS,
    BattlePolicy,
    BattleView,
    HeuristicCardPolicy,
    NpcView,
    RoyalNavyPolicy,
    RulePolicy,
    ShipView,
)
from simulator.cove.duel_cards import DuelCardPolicy
from simulator.cove.fast import core
from simulator.cove.rules import SECTIONS, CoveRules

HULL, CREW, CANNONS, SAILS = range(4)
WON, ROUTED, FLED, MUTINY, STAYED = range(5)  # OUTCOMES order
F_FLIGHT, F_ROUT, F_PIRATE, F_CAPTURE, F_PARROT, F_MUTINY = range(6)  # FAME_CAUSES order

# ship table columns (one row per ship, argument order)
C_POS = 0  # 4 columns: ring positions at the start, SECTIONS order
C_ART = 4  # 4 columns: Artisan hits left per section
C_PHP = 8  # parrot hits left (0: none)
C_PSEC = 9  # parrot's section index (-1: none)
C_PFIXED = 10  # parrot's fixed dice (Long John Silver), 0: none
C_PBONES = 11  # parrot: dice = cannons (Billy Bones)
C_PSPEED = 12  # parrot's speed bonus (Squire Trelawney)
C_SEAT = 13  # seat (clockwise order)
C_FLEE = 14  # FLEE_* code of its flee rule
C_FLEE_N = 15  # ring steps lost for FLEE_AFTER_N
C_CARDS = 16  # CARDS_* code: how it plays its volley cards
C_VMASK = 17  # CARDS_RULE: volley kinds it plays (bit 0 Grapeshot, 1 Powder keg, 2 Cannonade)
C_MARGIN = 18  # CARDS_HEURISTIC: Grapeshot / Powder keg while cannons / hull take more hits
SHIP_COLS = 19
FLEE_STAND, FLEE_WHEN_HIT, FLEE_WHEN_CRITICAL, FLEE_AFTER_N = range(4)
# volley card policies: none; RulePolicy(volley_cards=...); HeuristicCardPolicy; a solved duel
CARDS_NONE, CARDS_RULE, CARDS_HEURISTIC, CARDS_TABLE = range(4)
# cstate (int64[S, 6]) columns: a ship's card state in the battle
K_SMOKE = 0  # 1: smoked (only a 6 hits it)
K_BONUS = 1  # Favourable wind and Overboard speed
K_HAND = 2  # 3 columns: volley cards left, VOLLEY_CARDS order
K_CAN_FIRE = 5  # 0 for the exchange after its Cannonade
K_COLS = 6
# card_res (int64[R, S, 5]) columns: a card-round result per ship (smoke, bonus, hand x 3)
# flags (int64[3]) of the battle's card state
G_GRAPPLE, G_BECALMED, G_ERROR = range(3)

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
    P_CARD_PHASE,  # 1: somebody holds battle cards (card rounds, with the speed roll-off)
    P_SMOKE_HIT_ON,
    P_GRAPE_HIT_ON,
    P_GRAPE_SELF,  # Grapeshot's hits on the firer's own cannons
    P_GRAPE_BEATS_SMOKE,
    P_SMOKE_BLOCKS_MISFIRE,
    P_TAB_DIGITS,  # digits of a solved duel's state code (0: no table)
    P_TAB_RADIX,  # 15 entries: the radix of each digit of a solved duel's state code
) = range(31)
N_PARAMS = 31 + 14
NPC_NONE, NPC_FIGHTS, NPC_GALLEON = range(3)
T_MOST_CANNONS, T_LARGEST_CREW, T_STRONGEST_HULL, T_FASTEST, T_CONTROLLER = range(5)
D_EVERY_SECTION = 4  # P_NPC_DAMAGE: 0..3 a section, 4 every section, -1 the controller's choice
_TARGETS = ("most_cannons", "largest_crew", "strongest_hull", "fastest", "controller")

# ctx (int64[4]): [die pointer, next battle, dice used by finished battles, unused]
X_P, X_B, X_USED = range(3)


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _min2(a, b):
    """``min(a, b)`` of two integers, compiled in place: numba's builtin ``min`` and ``max``
    are functions of their own that LLVM may leave as calls (it did, 35 of them in ``_run``,
    in a build with ``NUMBA_ENABLE_PROFILING=1``; the ordinary build inlines them)."""
    if b < a:
        return b
    return a


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _max2(a, b):
    """``max(a, b)`` of two integers, compiled in place (see :func:`_min2`)."""
    if b > a:
        return b
    return a


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _speed(val, ship, pos, php, cstate, s):
    """:func:`core.speed` of ship ``s``: sails value + Favourable wind and Overboard (``cstate``)
    + a living parrot's bonus."""
    return core.speed(val[SAILS, pos[s, SAILS]], cstate[s, K_BONUS], php[s] > 0, ship[s, C_PSPEED])


# _hits_to_rout and _weakest_section are plain calls (no measurable speed from inlining them); a
# large function is never inline="always" (docs/DEVELOPING.md, and the docstring of _run)
@njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
def _hits_to_rout(ship, pos, art, php, s, sec, absorbs):
    """:func:`core.rout_hits` of section ``sec`` of ship ``s``."""
    return core.rout_hits(pos[s, sec], art[s, sec], php[s], ship[s, C_PSEC] == sec, absorbs)


@njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
def _weakest_section(ship, pos, art, php, s, absorbs):
    """(section, hits to rout it) of ship ``s``'s weakest section (:func:`core.weakest_of`).
    Without a living parrot whose hits count (:func:`core.rout_hits` with no parrot), each
    section's count is its ring and Artisan: the parrot's tests are not made four times."""
    if php[s] > 0 and absorbs:
        h0 = _hits_to_rout(ship, pos, art, php, s, 0, absorbs)
        h1 = _hits_to_rout(ship, pos, art, php, s, 1, absorbs)
        h2 = _hits_to_rout(ship, pos, art, php, s, 2, absorbs)
        h3 = _hits_to_rout(ship, pos, art, php, s, 3, absorbs)
    else:
        h0 = core.rout_hits(pos[s, 0], art[s, 0], 0, False, False)
        h1 = core.rout_hits(pos[s, 1], art[s, 1], 0, False, False)
        h2 = core.rout_hits(pos[s, 2], art[s, 2], 0, False, False)
        h3 = core.rout_hits(pos[s, 3], art[s, 3], 0, False, False)
    return core.weakest_of(h0, h1, h2, h3), _min2(_min2(h0, h1), _min2(h2, h3))


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
        kk, hk = _weakest_section(ship, pos, art, php, s, absorbs)
        seat = ship[s, C_SEAT]
        if hk < best_h or (hk == best_h and seat < best_seat):
            best_h = hk
            best_seat = seat
            best_s = s
            best_k = kk
    return best_s, best_k


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _hit(ship, prm, pos, art, php, present, was_hit, fame, s, sec, k):
    """``k`` hits on section ``sec`` of ship ``s`` if it is still in the battle
    (:func:`core.hit_section`: Artisan first, then the parrot there, then the ring; its parrot's
    section is the ship table's ``C_PSEC`` column). Returns 1 when the ring falls off (a rout to
    resolve), else 0."""
    if not present[s]:
        return 0
    return core.hit_section(
        pos, art, php, ship[:, C_PSEC], was_hit, fame, F_PARROT, s, sec, k,
        prm[P_ABSORBS], prm[P_PARROT_LOSS],
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _count_hits(dice, p, nd, thr):
    """Faces >= ``thr`` among ``dice[p : p + nd]``. The never-taken exit on a face 0 (faces are
    1..6) makes the loop's exit depend on the dice, which keeps LLVM from vectorising it: a
    broadside rolls a handful of dice, fewer than a vector's set-up and remainder loop cost
    (measured: 3-6 % of a battle's time). The index is unsigned: numba then leaves out its
    negative-index fix-up (two loads of the buffer's shape and three instructions a die)."""
    hits = 0
    q = np.uint64(p)
    for _ in range(nd):
        d = dice[q]
        if d == 0:
            break
        hits += d >= thr
        q += np.uint64(1)
    return hits


@njit(cache=True, nogil=True, inline="always", _nrt=False, error_model="numpy")
def _resolve(prm, pos, present, outcome, fame, S, npc_state, fallen):
    """After a broadside: sink the non-player ship (its fame shared among the ships present when
    the broadside was fired: ``present`` until this resolution, since a broadside removes no ship
    before it), rout ships with a destroyed section (only looked for when ``fallen``: some ring
    fell off) and give the ships left their rout fame. Returns the number of ships routed."""
    if npc_state[0] and npc_state[1] <= 0:  # present and hull gone
        npc_state[1] = 0
        npc_state[0] = 0
        npc_state[2] = 1  # sunk
        cnt = 0
        for s in range(S):
            if present[s]:
                cnt += 1
        if cnt > 0:
            each = prm[P_NPC_FAME] // cnt
            for s in range(S):
                if present[s]:
                    fame[s, F_PIRATE] += each
    n_routed = 0
    if not fallen:
        return 0
    for s in range(S):
        if present[s]:
            m = pos[s, 0]
            for k in range(1, 4):
                m = _min2(m, pos[s, k])
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


@njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
def _table_volley(tab, prm, pos, art, php, npc_state, cstate, a):
    """A solved duel's volley bits for ship ``a`` in the current state (-1: not in the table;
    ``tab[0]`` the sorted codes, ``tab[1]`` their bits, the radix in ``prm[P_TAB_RADIX:]``).
    The state code has the digits of ``duel_cards.CardPlay.table``: rings, Artisan hits left,
    parrot hits left, the non-player hull, volley cards left, can fire, the NPC has fired."""
    digits = prm[P_TAB_DIGITS]
    code = 0
    for i in range(digits):
        if i < 4:
            d = pos[a, i]
        elif i < 8:
            d = art[a, i - 4]
        elif i == 8:
            d = php[a]
        elif i == 9:
            d = npc_state[1]
        elif i < 13:
            d = cstate[a, K_HAND + i - 10]
        elif i == 13:
            d = cstate[a, K_CAN_FIRE]
        else:
            d = npc_state[4]
        r = prm[P_TAB_RADIX + i]
        if d < 0 or d >= r:
            return -1
        code = code * r + d
    lo = 0
    hi = tab.shape[1]
    while lo < hi:
        mid = (lo + hi) // 2
        if tab[0, mid] < code:
            lo = mid + 1
        else:
            hi = mid
    if lo < tab.shape[1] and tab[0, lo] == code:
        return tab[1, lo]
    return -1


@njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
def _abandon(outcome, fame, S, ctx, start, b, status):
    """A battle :func:`_run` cannot finish (its dice ran out, or a card decision is missing):
    its outcome and fame rows back to zeros, and ctx pointing at its first die and at it, to
    replay it from there. Returns ``status``."""
    for s in range(S):
        outcome[s] = WON
        for k in range(6):
            fame[s, k] = 0
    ctx[X_P] = start
    ctx[X_B] = b
    return status


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
    fired,
    order,
    keys,
    rolls,
    stack,
    npc_state,
    clockwise,
    victims,
    cstate,
    flags,
    card_index,
    card_res,
    card_flags,
    tab,
):
    """Battles ctx[X_B] .. n-1, one after the other, each in the rules' sequence: the card rounds'
    outcome for the speed order (rolled as the rules say, looked up in ``card_*``, computed before
    the run by :class:`_CardRounds`), then exchanges in speed order until the battle is over, then
    the treasure galleon's captor. Returns 0 when done, 1 when the dice ran out (ctx says where
    the unfinished battle's first die is and which battle it is), 2 when a card decision was
    missing (``flags[G_ERROR]`` says which; battle ctx[X_B]): :func:`_abandon`. The die pointer
    is kept in a local (``dp``) during a battle and written back to ctx[X_P] at its end. The
    scratch arrays after ``out_capped`` come from :func:`_scratch` (no allocation and no
    reference counting here: compiled with ``_nrt=False``, which keeps atomic reference counts
    out of the hot loop). The card state (``cstate``, ``flags``) starts as the battle without
    card rounds.

    One function, the battle written in the loop over battles: inlined into it from a function
    of its own, numba copied its IR block by block with its whole scope (27 s of a 50 s cold
    compile), and called as a plain function it ran a third slower (31 arrays passed a battle).

    ``out_outcome`` and ``out_fame`` must hold zeros (``WON``, no fame) from battle ctx[X_B] on,
    as ``np.zeros`` makes them: each battle adds its fame and writes its outcome in its own row
    (an unfinished battle's row is put back to zeros before it is replayed); a sunk pirate's
    fame goes to the ships present (:func:`_resolve`)."""
    S = prm[P_S]
    n = out_outcome.shape[0]
    L = dice.shape[0]
    hit_on = prm[P_HIT_ON]
    absorbs = prm[P_ABSORBS]
    npc_kind = prm[P_NPC]
    exch_bound = prm[P_EXCH_BOUND]
    ti = prm[P_TI]
    grape_on = prm[P_GRAPE_HIT_ON]
    smoke_on = prm[P_SMOKE_HIT_ON]
    grape_beats_smoke = prm[P_GRAPE_BEATS_SMOKE] != 0
    # the card state (cstate, flags) changes in a battle only with card rounds or a policy that
    # plays volley cards: else it is set once, not at every battle
    card_state_moves = prm[P_CARD_PHASE] != 0
    for s in range(S):
        card_state_moves = card_state_moves or ship[s, C_CARDS] != CARDS_NONE
    # ``fired`` is read only by a Legendary Pirate choosing among several ships
    fired_used = npc_kind == NPC_FIGHTS and S > 1
    first = ctx[X_B]
    for b in range(first, n):
        start = ctx[X_P]
        for s in range(S):
            for k in range(4):
                pos[s, k] = ship[s, C_POS + k]
                art[s, k] = ship[s, C_ART + k]
            php[s] = ship[s, C_PHP]
            present[s] = True
            was_hit[s] = False
        if fired_used:
            for s in range(S):
                fired[s] = False
        if card_state_moves or b == first:
            for s in range(S):
                for k in range(5):  # result 0: the battle as it starts, before card rounds
                    cstate[s, k] = card_res[0, s, k]
                cstate[s, K_CAN_FIRE] = 1
            flags[G_GRAPPLE] = card_flags[0, 0]
            flags[G_BECALMED] = card_flags[0, 1]
        outcome = out_outcome[b]  # the battle writes its outcome and fame rows in place
        fame = out_fame[b]
        npc_state[0] = 1 if npc_kind == NPC_FIGHTS else 0
        npc_state[1] = prm[P_NPC_HULL]
        npc_state[2] = 0
        npc_state[3] = -1
        npc_state[4] = 0
        exch = 0
        capped = False
        dp = ctx[X_P]
        npres = S  # player ships still present
        any_smoke = False  # some ship is smoked: a broadside's threshold depends on its target
        if not (npc_kind == NPC_GALLEON and ti) and not _over(npres, npc_state[0], ti):
            if prm[P_CARD_PHASE]:  # card rounds from the fastest: the order settles which result
                for s in range(S):
                    order[s] = s
                    keys[s] = _speed(val, ship, pos, php, cstate, s)
                core.sort_desc_inline(order, keys, np.int64(0), S)
                dp = core.roll_off_at(
                    dice, dp, order, keys, np.int64(0), S, rolls, stack
                )  # once a battle
                if dp < 0:
                    return _abandon(outcome, fame, S, ctx, start, b, 1)
                code = 0
                for i in range(S):
                    code = code * S + order[i]
                r = card_index[code]
                if r < 0:
                    flags[G_ERROR] = 1
                    return _abandon(outcome, fame, S, ctx, start, b, 2)
                for s in range(S):
                    for k in range(5):
                        cstate[s, k] = card_res[r, s, k]
                    any_smoke = any_smoke or cstate[s, K_SMOKE] != 0
                flags[G_GRAPPLE] = card_flags[r, 0]
                flags[G_BECALMED] = card_flags[r, 1]
            while not _over(npres, npc_state[0], ti):
                if exch >= prm[P_MAX_EXCH]:
                    capped = True
                    break
                if dp + exch_bound > L:  # every die of this exchange except roll-offs
                    return _abandon(outcome, fame, S, ctx, start, b, 1)
                exch += 1
                hull_start = npc_state[1]
                npc_state[4] = 0  # the non-player ship has not fired in this exchange yet
                # speed order: present ships (argument order) then the non-player ship (index S)
                m = np.int64(0)
                for s in range(S):
                    if present[s]:
                        order[m] = s
                        keys[s] = _speed(val, ship, pos, php, cstate, s)
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
                    core.sort_desc_inline(order, keys, np.int64(0), m)
                    dp = core.roll_off_at_inline(dice, dp, order, keys, 0, m, rolls, stack)
                    if dp < 0:
                        return _abandon(outcome, fame, S, ctx, start, b, 1)
                for slot in range(m):
                    if _over(npres, npc_state[0], ti):
                        break
                    a = order[slot]
                    if a == S:
                        if not npc_state[0]:
                            continue
                        # ------------------------------------------------ non-player ship's turn
                        rule = prm[P_NPC_TARGET]
                        if rule == T_CONTROLLER:
                            tgt, sec = _weakest(
                                ship, pos, art, php, present, S, np.int64(-1), absorbs
                            )
                            first_sec = sec
                            last_sec = sec + 1
                        elif S == 1:  # a lone ship is always the target
                            tgt = np.int64(0)
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
                                    v = core.npc_criterion(
                                        rule,
                                        val[CANNONS, pos[s, CANNONS]],
                                        val[CREW, pos[s, CREW]],
                                        val[HULL, pos[s, HULL]],
                                        _speed(val, ship, pos, php, cstate, s),
                                    )
                                    keys[s] = v
                                    best = _max2(best, v)
                            mt = 0
                            for s in range(S):
                                if present[s] and not fired[s] and keys[s] == best:
                                    order[S + 1 + mt] = s
                                    mt += 1
                            # several tied (equal keys): one roll-off over order[S+1 : S+1+mt]
                            if mt > 1:
                                dp = core.roll_off_at_inline(
                                    dice, dp, order, keys, S + 1, S + 1 + mt, rolls, stack
                                )
                                if dp < 0:
                                    return _abandon(outcome, fame, S, ctx, start, b, 1)
                            tgt = order[S + 1]
                            fired[tgt] = True
                            dmg = prm[P_NPC_DAMAGE]
                            if dmg == D_EVERY_SECTION:
                                first_sec = 0
                                last_sec = 4
                            else:
                                first_sec = dmg
                                last_sec = dmg + 1
                        nd = prm[P_NPC_DICE]
                        p = dp
                        if p + nd > L:  # the roll-offs of this exchange took what the bound left
                            return _abandon(outcome, fame, S, ctx, start, b, 1)
                        hits = 0
                        nv = 0
                        if prm[P_MISFIRE]:
                            # other present ships, clockwise (seat order) from the target
                            nv = core.clockwise_others(ship[:, C_SEAT], present, tgt, S, clockwise)
                            nv = _min2(nv, prm[P_MISFIRE_POS])
                            for s in range(S):
                                victims[s] = 0
                        thr = core.npc_threshold(cstate[tgt, K_SMOKE] != 0, hit_on, smoke_on)
                        if nv > 0:
                            for i in range(nd):
                                d = dice[p + i]
                                if d >= thr:
                                    hits += 1
                                else:
                                    v = clockwise[_min2(_max2(d, 1), nv) - 1]  # named if d <= nv
                                    k = core.misfire_victim(
                                        d, thr, nv, cstate[v, K_SMOKE] != 0,
                                        prm[P_SMOKE_BLOCKS_MISFIRE] != 0, smoke_on,
                                    )  # fmt: skip
                                    if k > 0:
                                        victims[clockwise[k - 1]] += 1
                        else:
                            hits = _count_hits(dice, p, nd, thr)
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
                        npres -= _resolve(prm, pos, present, outcome, fame, S, npc_state, fallen)
                        npc_state[4] = 1
                        continue
                    if not present[a]:
                        continue
                    # ---------------------------------------------------------- player ship's turn
                    kind = ship[a, C_FLEE]
                    flee = False
                    if kind == FLEE_WHEN_HIT:
                        flee = was_hit[a]
                    elif kind == FLEE_WHEN_CRITICAL:
                        flee = _weakest_section(ship, pos, art, php, a, absorbs)[1] <= 1
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
                    if not cstate[a, K_CAN_FIRE]:  # reloading after a Cannonade: this turn passes
                        cstate[a, K_CAN_FIRE] = 1
                        continue
                    # volley cards (one of each kind at most), as its policy plays them
                    grape = keg = canno = False
                    cards = ship[a, C_CARDS]
                    if cards != CARDS_NONE and not flags[G_BECALMED]:
                        if cards == CARDS_RULE:
                            mask = ship[a, C_VMASK]
                            grape = (mask & 1) != 0 and cstate[a, K_HAND + 0] > 0
                            keg = (mask & 2) != 0 and cstate[a, K_HAND + 1] > 0
                            canno = (mask & 4) != 0 and cstate[a, K_HAND + 2] > 0
                        elif cards == CARDS_HEURISTIC:
                            margin = ship[a, C_MARGIN]
                            grape = cstate[a, K_HAND + 0] > 0 and (
                                _hits_to_rout(ship, pos, art, php, a, CANNONS, absorbs) > margin
                            )
                            keg = cstate[a, K_HAND + 1] > 0 and (
                                _hits_to_rout(ship, pos, art, php, a, HULL, absorbs) > margin
                            )
                            canno = (
                                cstate[a, K_HAND + 2] > 0 and not npc_state[0]
                            )  # never at a hull-only ship
                        elif npc_state[0]:  # CARDS_TABLE: the solved duel (a lone ship, an NPC)
                            bits = _table_volley(tab, prm, pos, art, php, npc_state, cstate, a)
                            if bits < 0:
                                flags[G_ERROR] = 2
                                return _abandon(outcome, fame, S, ctx, start, b, 2)
                            grape = (bits & 1) != 0
                            keg = (bits & 2) != 0
                            canno = (bits & 4) != 0
                        if grape:
                            cstate[a, K_HAND + 0] -= 1
                        if keg:
                            cstate[a, K_HAND + 1] -= 1
                        if canno:
                            cstate[a, K_HAND + 2] -= 1
                    tgt = np.int64(-1)
                    sec = 0
                    if npc_state[0]:
                        thr = core.fire_threshold(
                            True, False, grape, hit_on, smoke_on, grape_on, grape_beats_smoke
                        )
                    elif not any_smoke:  # the threshold does not depend on the target
                        thr = core.fire_threshold(
                            False, False, grape, hit_on, smoke_on, grape_on, grape_beats_smoke
                        )
                    else:  # its target: the opponent with the fewest hits to rout, weakest section
                        if S == 2:  # one opponent (SECTIONS order on ties)
                            tgt = 1 - a
                            sec = _weakest_section(ship, pos, art, php, tgt, absorbs)[0]
                        else:
                            tgt, sec = _weakest(ship, pos, art, php, present, S, a, absorbs)
                        thr = core.fire_threshold(
                            False, cstate[tgt, K_SMOKE] != 0, grape, hit_on, smoke_on, grape_on,
                            grape_beats_smoke,
                        )  # fmt: skip
                    # dice: parrot powers, else min(crew, cannons) (Grapple: crew)
                    nd = core.num_dice(
                        val[CREW, pos[a, CREW]], val[CANNONS, pos[a, CANNONS]], php[a] > 0,
                        ship[a, C_PFIXED], ship[a, C_PBONES] != 0, flags[G_GRAPPLE] != 0,
                    )  # fmt: skip
                    if dp + nd > L:  # the roll-offs of this exchange took what the bound left
                        return _abandon(outcome, fame, S, ctx, start, b, 1)
                    hits = _count_hits(dice, dp, nd, thr)
                    dp += nd
                    fallen = 0
                    if npc_state[0]:  # forced target: the non-player ship's hull
                        npc_state[1] -= hits
                    elif hits > 0:
                        if tgt < 0:  # its target (see above), needed only now
                            if S == 2:
                                tgt = 1 - a
                                sec = _weakest_section(ship, pos, art, php, tgt, absorbs)[0]
                            else:
                                tgt, sec = _weakest(ship, pos, art, php, present, S, a, absorbs)
                        if canno:  # every section of the target
                            for k in range(4):
                                fallen += _hit(
                                    ship, prm, pos, art, php, present, was_hit, fame, tgt, k, hits
                                )
                        else:
                            fallen += _hit(
                                ship, prm, pos, art, php, present, was_hit, fame, tgt, sec, hits
                            )
                    if keg and hits > 0:  # every ship present: every player hull and the NPC's
                        for s in range(S):
                            if present[s]:
                                fallen += _hit(
                                    ship, prm, pos, art, php, present, was_hit, fame, s, HULL, hits
                                )
                        if npc_state[0]:
                            npc_state[1] -= hits
                    if grape and prm[P_GRAPE_SELF] > 0:  # the recoil on its own cannons
                        fallen += _hit(
                            ship,
                            prm,
                            pos,
                            art,
                            php,
                            present,
                            was_hit,
                            fame,
                            a,
                            CANNONS,
                            prm[P_GRAPE_SELF],
                        )
                    if canno:
                        cstate[a, K_CAN_FIRE] = 0
                    if fallen or (npc_state[0] and npc_state[1] <= 0):
                        npres -= _resolve(prm, pos, present, outcome, fame, S, npc_state, fallen)
                if npc_state[0] and prm[P_NPC_REGEN] > 0:
                    npc_state[1] = core.regenerate(
                        npc_state[1], hull_start, prm[P_NPC_REGEN], prm[P_NPC_HULL]
                    )
        if capped:
            for s in range(S):
                if present[s]:
                    outcome[s] = STAYED
        if npc_kind == NPC_GALLEON:
            m = np.int64(0)
            for s in range(S):
                if present[s]:
                    order[m] = s
                    keys[s] = _speed(val, ship, pos, php, cstate, s)
                    m += 1
            captor = -1
            if m > 0:
                if prm[P_TI]:
                    if prm[P_TI_FASTEST]:
                        core.sort_desc_inline(order, keys, np.int64(0), m)
                        dp = core.roll_off_at(
                            dice, dp, order, keys, np.int64(0), m, rolls, stack
                        )  # once
                        if dp < 0:
                            return _abandon(outcome, fame, S, ctx, start, b, 1)
                        captor = order[0]
                elif m == 1:
                    captor = order[0]
            if captor >= 0:
                npc_state[3] = captor
                if prm[P_FAME_DIE]:
                    if dp + 1 > L:
                        return _abandon(outcome, fame, S, ctx, start, b, 1)
                    fame[captor, F_CAPTURE] += dice[dp]
                    dp += 1
                else:
                    fame[captor, F_CAPTURE] += prm[P_NPC_FAME]
        ctx[X_P] = dp
        for s in range(S):
            for k in range(4):
                out_pos[b, s, k] = pos[s, k]
        out_sunk[b] = npc_state[2] == 1
        out_captured[b] = npc_state[3]
        out_exch[b] = exch
        out_capped[b] = capped
        ctx[X_USED] += ctx[X_P] - start
    ctx[X_B] = n
    return 0


# ------------------------------------------------------------------------------------------
def _flee_policy(p: BattlePolicy) -> BattlePolicy:
    """The policy that decides flight: the card policies wrap one."""
    if type(p) in (HeuristicCardPolicy, DuelCardPolicy):
        return p.flee
    return p


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
    if npc is not None and not isinstance(npc, str):
        if len(npc) > 1:
            return f"{len(npc)} non-player ships (kernel: at most one)"
        npc = npc[0] if npc else None
    for p in policies:
        if type(p) not in KERNEL_POLICIES:
            return f"policy {type(p).__name__}"
        if type(_flee_policy(p)) not in (RulePolicy, BattlePolicy):
            return f"flee policy {type(_flee_policy(p)).__name__} of {type(p).__name__}"
        if type(p) is DuelCardPolicy and (len(ships) != 1 or npc is None):
            return "a solved duel's card policy outside its duel (one ship, a non-player ship)"
    if royal_navy_policy is not None and type(royal_navy_policy) is not RoyalNavyPolicy:
        return f"Royal Navy controller {type(royal_navy_policy).__name__}"
    if npc is not None and npc != ROYAL_NAVY and npc in rules.pirates:
        p = rules.pirates[npc]
        if p.fights and p.first_target != "controller" and p.damages == "controller":
            return "damages='controller' without a controller"
    return None


#: the policies the kernel plays (their decisions as codes: flight, volley cards, card rounds)
KERNEL_POLICIES = (RulePolicy, BattlePolicy, HeuristicCardPolicy, DuelCardPolicy)


def _flee_code(p: BattlePolicy) -> tuple[int, int]:
    p = _flee_policy(p)
    if type(p) is BattlePolicy or p.flee == "stand":
        return FLEE_STAND, 0
    if p.flee == "when-hit":
        return FLEE_WHEN_HIT, 0
    if p.flee == "when-critical":
        return FLEE_WHEN_CRITICAL, 0
    return FLEE_AFTER_N, int(p.flee)


def _card_code(p: BattlePolicy) -> tuple[int, int, int]:
    """(CARDS_* code, volley mask, recoil margin) of a policy's volley rule."""
    if type(p) is HeuristicCardPolicy:
        return CARDS_HEURISTIC, 0, int(p.recoil_margin)
    if type(p) is DuelCardPolicy:
        return CARDS_TABLE, 0, 0
    if type(p) is RulePolicy and p.volley_cards:
        mask = sum(1 << k for k, c in enumerate(VOLLEY_CARDS) if c in p.volley_cards)
        return CARDS_RULE, mask, 0
    return CARDS_NONE, 0, 0


@dataclass
class _Start:
    """One player ship as it enters the battle, validated, and its card state in the card rounds
    (the policies' view of it: :meth:`_CardRounds.view`)."""

    seat: int
    pos: list[int]  # ring positions, SECTIONS order
    art: list[int]  # Artisan hits left per section
    parrot: str | None
    php: int  # parrot hits left (0: none)
    hand: list[str]  # battle and volley cards
    chests: int
    policy: BattlePolicy
    smoke: bool = False
    wind: int = 0  # Favourable wind cards played
    overboard: int = 0  # chests thrown with Overboard


def _prepare(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | None,
    policies: Sequence[BattlePolicy],
    island: str,
) -> list[_Start]:
    """Check a battle's input (one line naming the seat, the field and the allowed values) and
    return its ships as they start."""
    c = rules.combat
    mat = rules.ship_mat
    if len(policies) != len(ships):
        raise ValueError(f"{len(policies)} policies for {len(ships)} ships")
    if len({s.seat for s in ships}) != len(ships):
        raise ValueError("two ships share a seat")
    if island not in rules.islands:
        raise ValueError(f"island {island!r} (allowed: {', '.join(rules.islands)})")
    if npc == ROYAL_NAVY and island == TREASURE_ISLAND:
        raise ValueError("the Royal Navy never goes to Treasure Island")
    if npc is not None and npc != ROYAL_NAVY and npc not in rules.pirates:
        raise ValueError(f"npc {npc!r} (allowed: {', '.join(list(rules.pirates) + [ROYAL_NAVY])})")
    out = []
    for bs, pol in zip(ships, policies):
        if len(bs.positions) != 4 or not all(1 <= p <= mat.num_positions for p in bs.positions):
            raise ValueError(
                f"seat {bs.seat}: positions {bs.positions} "
                f"(allowed: 4 values 1..{mat.num_positions})"
            )
        if c.artisan_limit == "per_ship" and len(bs.artisans) > 1:
            raise ValueError(f"seat {bs.seat}: {len(bs.artisans)} Artisans (allowed: 1 per ship)")
        art = [0, 0, 0, 0]
        for sec, used in bs.artisans.items():
            if sec not in SECTIONS or not 0 <= used < c.artisan_absorbs:
                raise ValueError(
                    f"seat {bs.seat}: Artisan {sec}={used} "
                    f"(allowed: section -> 0..{c.artisan_absorbs - 1})"
                )
            art[SECTIONS.index(sec)] = c.artisan_absorbs - used
        php = 0
        if bs.parrot is not None:
            if bs.parrot not in rules.parrots:
                raise ValueError(
                    f"seat {bs.seat}: parrot {bs.parrot!r} (allowed: {', '.join(rules.parrots)})"
                )
            php = c.parrot_hits_to_kill - (1 if bs.parrot_wounded else 0)
            if php <= 0:
                raise ValueError(
                    f"seat {bs.seat}: a wounded parrot with parrot_hits_to_kill=1 is dead"
                )
        for card in bs.battle_cards:
            if card not in BATTLE_CARDS and card not in VOLLEY_CARDS:
                raise ValueError(
                    f"seat {bs.seat}: card {card!r} "
                    f"(allowed: {', '.join(BATTLE_CARDS + VOLLEY_CARDS)})"
                )
        out.append(
            _Start(
                bs.seat,
                list(bs.positions),
                art,
                bs.parrot,
                php,
                list(bs.battle_cards),
                bs.chests,
                pol,
            )
        )
    return out


def _npc_card(rules: CoveRules, npc: str | None):
    """The card of the battle's non-player ship (``None``: none)."""
    if npc is None:
        return None
    return rules.royal_navy if npc == ROYAL_NAVY else rules.pirates[npc]


class _CardRounds:
    """The battle-card rounds ("Tavern deck" of ``../shared/rules/pirates-cove.md``) before the
    first exchange, from a given speed order: each ship in turn plays one battle card or passes,
    round after round, until a round where nobody plays or Becalmed is played. The policies are
    asked in Python with the view a player has (:class:`BattleView`); nothing is hit yet, so the
    ships' rings are their starting ones. The kernel looks the outcome up per speed order
    (:func:`_card_tables`); the effects act in the exchanges: Smoke, Favourable wind and
    Overboard (speed), Grapple (dice), Becalmed (no volley cards)."""

    def __init__(self, rules: CoveRules, island: str, ships: list[_Start], npc: str | None):
        self.rules, self.island, self.c = rules, island, rules.combat
        self.ships = [dataclasses.replace(s, hand=list(s.hand)) for s in ships]
        self.npc = npc
        self.card = _npc_card(rules, npc)
        self.grapple = self.becalmed = False
        self.card_round = 0

    def bonus(self, s: _Start) -> int:
        """The speed its Favourable wind and Overboard cards give (``cstate[:, K_BONUS]``)."""
        c = self.c
        return s.wind * c.favourable_wind_speed + s.overboard * c.overboard_speed_per_chest

    def speed(self, s: _Start) -> int:
        """Sails value plus the cards' bonus and a living parrot (:func:`core.speed`)."""
        par = self.rules.parrots[s.parrot] if s.parrot is not None else None
        sails = self.rules.ship_mat.sails[s.pos[SAILS] - 1]
        return int(core.speed(sails, self.bonus(s), s.php > 0, par.speed_bonus if par else 0))

    def view(self, me: _Start) -> BattleView:
        c = self.c
        ships = []
        for s in sorted(self.ships, key=lambda s: s.seat):
            prot = list(s.art)
            if s.php > 0 and c.parrot_absorbs_hits:
                prot[SECTIONS.index(self.rules.parrots[s.parrot].section)] += s.php
            ships.append(
                ShipView(
                    seat=s.seat,
                    positions=tuple(s.pos),
                    start_positions=tuple(s.pos),
                    protection=tuple(prot),
                    parrot=s.parrot if s.php > 0 else None,
                    parrot_wounded=s.parrot is not None and 0 < s.php < c.parrot_hits_to_kill,
                    speed=self.speed(s),
                    present=True,
                    was_hit=False,
                    smoke=s.smoke,
                    can_fire=True,
                    hand_size=len(s.hand),
                    chests=s.chests,
                )
            )
        npcs = ()
        if self.card is not None and self.card.fights:
            n = self.card
            npcs = (NpcView(self.npc, n.hull, n.hull, n.sails, True, 0, False),)
        return BattleView(
            me=me.seat,
            island=self.island,
            exchange=0,
            ships=tuple(ships),
            npc=npcs[0] if npcs else None,
            grapple=self.grapple,
            becalmed=self.becalmed,
            card_round=self.card_round,
            npc_has_fired=False,
            npcs=npcs,
        )

    def play(self, order: list[int]) -> None:
        """The card rounds, ships in ``order`` (indices, fastest first)."""
        while not self.becalmed:
            self.card_round += 1
            played_any = False
            for s in (self.ships[i] for i in order):
                if self.becalmed:
                    break
                playable = tuple(c for c in s.hand if c in BATTLE_CARDS)
                if not playable:
                    continue
                card = s.policy.battle_card(self.view(s), playable)
                if card is None:
                    continue
                if card not in playable:
                    raise ValueError(
                        f"seat {s.seat} played {card!r}, not a battle card in its hand"
                    )
                played_any = True
                s.hand.remove(card)
                if card == "becalmed":
                    self.becalmed = True
                elif card == "favourable_wind":
                    s.wind += 1
                elif card == "grapple":
                    self.grapple = True
                elif card == "smoke":
                    s.smoke = True
                elif card == "overboard":
                    n = max(
                        0, min(int(s.policy.overboard_chests(self.view(s), s.chests)), s.chests)
                    )
                    s.chests -= n
                    s.overboard += n
            if not played_any:
                break
        self.card_round = 0

    def result(self) -> tuple:
        return (
            [s.smoke for s in self.ships],
            [self.bonus(s) for s in self.ships],
            [[s.hand.count(v) for v in VOLLEY_CARDS] for s in self.ships],
            [int(self.grapple), int(self.becalmed)],
        )


def _card_tables(rules: CoveRules, island: str, ships: list[_Start], npc: str | None):
    """The card rounds' outcome per speed order (:class:`_CardRounds`):
    ``(card_index, card_res, card_flags, card_phase)``. Result 0 is the battle before any card
    round; ``card_index[code]`` (code = the order's ship indices in base S) gives the result of
    every order the roll-offs can make."""
    S = len(ships)
    start = _CardRounds(rules, island, ships, npc)
    has_cards = any(c in BATTLE_CARDS for s in ships for c in s.hand)
    results = [start.result()]
    index = np.full(S**S if has_cards else 1, -1, np.int64)
    if has_cards:
        speeds = [start.speed(s) for s in start.ships]
        groups = [
            [i for i in range(S) if speeds[i] == v] for v in sorted(set(speeds), reverse=True)
        ]
        for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
            order = [i for g in perms for i in g]
            rounds = _CardRounds(rules, island, ships, npc)
            rounds.play(order)
            code = 0
            for i in order:
                code = code * S + i
            index[code] = len(results)
            results.append(rounds.result())
    res = np.zeros((len(results), S, 5), np.int64)  # smoke, bonus, hand x 3 per ship
    for k, r in enumerate(results):
        res[k, :, 0] = r[0]
        res[k, :, 1] = r[1]
        res[k, :, 2:5] = r[2]
    flags = np.array([r[3] for r in results], np.int64).reshape(len(results), 2)
    return index, res, flags, int(has_cards)


def _duel_table(policies):
    """The solved duel's decisions (``CardPlay.table``) as ``tab`` (row 0 the sorted codes, row 1
    their volley bits) and the digits' radix; empty without a solved duel."""
    for p in policies:
        if type(p) is DuelCardPolicy:
            codes, bits, radix = p.play.table()
            return np.stack([codes, bits]), radix
    return np.zeros((2, 0), np.int64), np.zeros(0, np.int64)


def _tables(rules: CoveRules, ships: list[_Start], policies, npc: str | None, island: str):
    c = rules.combat
    mat = rules.ship_mat
    S = len(ships)
    val = np.zeros((4, mat.num_positions + 1), np.int64)  # value by position (0 = destroyed)
    for k, sec in enumerate(SECTIONS):
        val[k, 1:] = getattr(mat, sec)
    ship = np.zeros((S, SHIP_COLS), np.int64)
    for i, (ps, pol) in enumerate(zip(ships, policies)):
        ship[i, C_POS : C_POS + 4] = ps.pos
        ship[i, C_ART : C_ART + 4] = ps.art
        ship[i, C_PHP] = ps.php
        ship[i, C_PSEC] = -1
        if ps.parrot is not None:
            par = rules.parrots[ps.parrot]
            ship[i, C_PSEC] = SECTIONS.index(par.section)
            ship[i, C_PFIXED] = par.fixed_dice
            ship[i, C_PBONES] = int(par.dice_equal_cannons)
            ship[i, C_PSPEED] = par.speed_bonus
        ship[i, C_SEAT] = ps.seat
        ship[i, C_FLEE], ship[i, C_FLEE_N] = _flee_code(pol)
        ship[i, C_CARDS], ship[i, C_VMASK], ship[i, C_MARGIN] = _card_code(pol)
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
    prm[P_SMOKE_HIT_ON] = c.smoke_hit_on
    prm[P_GRAPE_HIT_ON] = c.grapeshot_hit_on
    prm[P_GRAPE_SELF] = c.grapeshot_self_hits
    prm[P_GRAPE_BEATS_SMOKE] = int(c.grapeshot_beats_smoke)
    prm[P_SMOKE_BLOCKS_MISFIRE] = int(c.smoke_blocks_misfire)
    n = _npc_card(rules, npc)
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
        np.empty(S, np.bool_),  # fired: the pirate fired at it in its current cycle
        np.empty(2 * S + 2, i8),  # order: speed order, then the pirate's tied targets
        np.empty(S + 1, i8),  # keys
        np.empty(S + 1, i8),  # rolls of a roll-off
        np.empty((2 * S + 4, 2), i8),  # stack of tied segments
        np.empty(5, i8),  # npc_state: present, hull, sunk, captor, fired in this exchange
        np.empty(S, i8),  # clockwise: Hook's numbering
        np.zeros(S, i8),  # victims: misfire hits per ship
        np.empty((S, K_COLS), i8),  # cstate: smoke, speed bonus, volley cards x 3, can fire
        np.zeros(3, i8),  # flags: Grapple, Becalmed, error code
    )


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
    keys = npc_keys(npc)
    npc = keys[0] if keys else None
    starts = _prepare(rules, ships, npc, policies, island)
    val, ship, prm = _tables(rules, starts, policies, npc, island)
    card_index, card_res, card_flags, card_phase = _card_tables(rules, island, starts, npc)
    prm[P_CARD_PHASE] = card_phase
    tab, radix = _duel_table(policies)
    if tab.shape[1]:
        if len(radix) > 15:
            raise ValueError(f"a solved duel's state code of {len(radix)} digits (kernel: 15)")
        prm[P_TAB_DIGITS] = len(radix)
        prm[P_TAB_RADIX : P_TAB_RADIX + len(radix)] = radix
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
    cards = (card_index, card_res, card_flags, tab)
    while int(ctx[X_B]) < n:
        # bulk size: what the remaining battles should need at the rate seen so far (+3 %)
        b = int(ctx[X_B])
        rate = ctx[X_USED] / b if b else FIRST_DICE_PER_BATTLE
        want = int(min(max((n - b) * rate * 1.03 + 64, MIN_BULK), MAX_BULK))
        tail = dice[int(ctx[X_P]) :]
        fresh = rng.integers(1, 7, size=want, dtype=np.int8)
        dice = np.concatenate([tail, fresh]) if len(tail) else fresh
        ctx[X_P] = 0
        status = _run(
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
            *cards,
        )
        if status == 2:
            why = {1: "a speed order of the card rounds", 2: "a solved duel's volley decision"}
            raise ValueError(
                f"battle {int(ctx[X_B])}: the kernel found no {why[int(scratch[-1][2])]} for "
                "its state (the cards or policies are not the ones the tables were built for)"
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


#: the battle kernel as the runner announces it (cold compile measured 13.3 CPU-s, 21 s wall on 2
#: busy cores, issue 28; 50 s while its battle was a function inlined into :func:`_run`); tasks
#: that may call :func:`simulate_battles_kernel` pass it to ``run_chunks``
COMPILED_ENGINE = CompiledEngine("Pirate's Cove battle kernel", (_run,), 20)
