"""The expected-value players' battle policy (kinds with root ``heuristic``: ``plunderer``,
``brawler``, ``tavern``, ``balanced``; the search player's battles too).

Rules: "Combat" and "Non-player ships" of ``../shared/rules/pirates-cove.md``; what the player
decides: the battle cards
(:func:`battle_card`: alone against a non-player ship the exact lone plan of
:func:`simulator.cove.fast.lone.lone_plan` with the battle's state; with company Smoke, then
Favourable wind when it changes the speed order, Grapple when it adds more dice to us than to
anyone, Overboard when the duel odds it gains pay for the chests, Becalmed from round 2 against
a bigger hand), the chests thrown (:func:`overboard_chests`), flee or stand by expected value and
the volley (:func:`broadside`: alone against a non-player ship the exact odds, with company the
estimate of :func:`simulator.cove.fast.company.company_odds_art`, against player ships the duel
chain; volley cards against a non-player ship by the solver's optimal choice), and the Royal
Navy's aim for its controller (:func:`navy_target`).

What the player reads is what the readable ``BattleView`` shows (``tests/cove_battle_oracle.py``,
``_Battle.view``) computed from the compiled battle state ``bt`` (``fast/packed.py``, ``BS_*``,
``BT_*``, ``NS_*``, ``BG_*``): rings (``pos``), protection (Artisan hits left plus a living
parrot's hits when ``combat.parrot_absorbs_hits``), the living parrot, speed (sails + the
battle-card bonus + a living parrot's bonus), presence, Smoke, whether it can fire, hand sizes,
chests; its own battle cards (``bhand``). Hits to rout, the weakest section and the speed are
the rule core's (:mod:`simulator.cove.fast.core`) through the battle view the scripted players
share (:func:`simulator.cove.fast.players.bview_hits`, ``bview_weakest``, ``bview_speed``).
Ship indices are the battle's (seat order, as the readable view's ``ships``). Every float is the
readable expression in the readable order (the odds come from the compiled solver and company
estimate, the same floats).

The per-seat state the readable player keeps between decisions (``_stake``, ``_hv_chest``,
``_gold``: set by its navigation and by every observation it sees) is passed in by the caller
(``stake``, ``hv_chest``, ``gold``); its parameters are the seat's row of ``pp`` (the heuristic
kind's names: ``w_gold``, ``w_chest``, ``rout_cost``, ``fight_bias``, ``play_cards``). Random
draws (the tie between equally weak targets) come from the seat's ``players`` stream
(``gs.rs`` row ``1 + seat``), as ``self.rng.integers`` draws them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator.cove.fast import company, core, lone
from simulator.cove.fast.odds import NO_REGEN, NO_REGEN_CAP, win_probability
from simulator.cove.fast.packed import (
    BG_BECALMED,
    BG_CARD_ROUND,
    BG_GRAPPLE,
    BG_NNPC,
    BG_S,
    BS_PARROT,
    BS_PBONES,
    BS_PFIXED,
    BS_PSPEED,
    BS_SEAT,
    BT_CAN_FIRE,
    BT_CHESTS,
    BT_HAND_N,
    BT_SMOKE,
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
    HULL,
    N_DAMAGE,
    N_DICE,
    N_FAME,
    N_SAILS,
    NONE,
    NS_FIGHTS,
    NS_HAS_FIRED,
    NS_HULL,
    NS_PRESENT,
    NS_ROW,
    OPT_FLEE,
    OPT_STAND,
    P_ART_ABSORBS,
    P_GRAPE_SELF,
    P_MUTINY_LOSS,
    P_MUTINY_ON,
    P_OVERBOARD_SPEED,
    P_PARROT_ABSORBS,
    P_PARROT_HITS,
    P_ROUT_FAME,
    P_WIND_SPEED,
    PP,
    PP_MONTH_SEEN,
    REC_BATTLE,
    SAILS,
)
from simulator.cove.fast.players import bview_hits, bview_speed, bview_weakest, first_npc
from simulator.cove.fast.records import record, recording
from simulator.cove.fast.rng import integers

# the seat's parameter columns of pp (the heuristic kind's names, scenarios/cove/standard.toml)
W_GOLD = PP["w_gold"]
W_CHEST = PP["w_chest"]
ROUT_COST = PP["rout_cost"]
FIGHT_BIAS = PP["fight_bias"]
PLAY_CARDS = PP["play_cards"]

#: volley bits of :func:`simulator.cove.fast.lone.best_volley` (odds.V_GRAPESHOT, odds.V_KEG)
V_GRAPESHOT, V_KEG = 1, 2
#: length of a damage state (odds.STATE_LEN): rings x4, Artisan hits left x4, parrot hits left
STATE_LEN = 9
#: the readable NpcView.index of non-player ship j is j: ``npc_target(j)`` = NPC_TARGET - j
NPC_TARGET = -1


# ------------------------------------------------------------------ the view of a battle ship
@njit(cache=True, inline="always")
def view_parrot(bt, s):
    """``ShipView.parrot``: the parrot row while it lives, else -1."""
    return bt.bsh[s, BS_PARROT] if bt.php[s] > 0 else -1


@njit(cache=True, inline="always")
def base_speed(tab, bt, s):
    """``HeuristicPlayer._base_speed``: :func:`core.speed` without the battle cards' bonus
    (sails + a living parrot's bonus)."""
    val = tab.val
    return core.speed(val[SAILS, bt.pos[s, SAILS]], 0, bt.php[s] > 0, bt.bsh[s, BS_PSPEED])


@njit(cache=True)
def battle_state(tab, bt, s, out):
    """``odds.battle_ship_state`` of ship ``s`` into ``out[:9]``: rings, protection less the
    living parrot's hits (1 when wounded, else ``parrot_hits_to_kill``) where it absorbs them,
    those parrot hits."""
    prm = tab.prm
    pos, art, php, psec = bt.pos, bt.art, bt.php, bt.psec
    absorbs = prm[P_PARROT_ABSORBS] != 0
    alive = php[s] > 0
    ps = 0
    if alive:  # the odds' reading (battle_ship_state), not a rule: a hit parrot has 1 hit left
        ps = 1 if php[s] < prm[P_PARROT_HITS] else prm[P_PARROT_HITS]
    for k in range(4):
        out[k] = pos[s, k]
        prot = art[s, k]
        if alive and absorbs and psec[s] == k:
            prot += php[s] - ps
        out[4 + k] = prot
    out[8] = ps


@njit(cache=True)
def lone_npc(bt, a):
    """``_lone_npc``: a non-player ship fights and no other player ship is present."""
    j, fighting = first_npc(bt)
    if not fighting:
        return False
    present = bt.present
    for s in range(bt.bg[BG_S]):
        if s != a and present[s]:
            return False
    return True


@njit(cache=True)
def num_others(bt, a):
    """Present player ships other than ``a``."""
    present = bt.present
    m = 0
    for s in range(bt.bg[BG_S]):
        if s != a and present[s]:
            m += 1
    return m


@njit(cache=True, inline="always")
def hand_count(bt, a, card):
    """Copies of ``card`` in ship ``a``'s battle hand (battle and volley cards)."""
    bst, bhand = bt.bst, bt.bhand
    m = np.int64(0)
    for i in range(bst[a, BT_HAND_N]):
        if bhand[a, i] == card:
            m += 1
    return m


@njit(cache=True, inline="always")
def _held(playable, npl, card):
    m = np.int64(0)
    for i in range(npl):
        if playable[i] == card:
            m += 1
    return m


@njit(cache=True)
def battle_track(tab, lt, bt, s, trk):
    """``HeuristicPlayer._battle_track``: the hits that rout ship ``s`` at its weakest section
    (the first of equals) and, in ``trk[:hits + 1]``, its dice after 0..hits hits there
    (:func:`~simulator.cove.fast.lone.dice_track`, no Grapple). Returns the hits."""
    prm = tab.prm
    h, weak = bview_weakest(prm, bt, s)
    st = np.empty(STATE_LEN, np.int64)
    battle_state(tab, bt, s, st)
    after = np.empty(STATE_LEN, np.int64)
    lone.dice_track(lt.vals, lt.parrots, lt.prm, st, view_parrot(bt, s), weak, h, after, trk)
    return h


@njit(cache=True)
def _enemy_min_at_least(tab, bt, a, floor):
    """The slowest enemy (present other ships, then ``view.npc``'s sails while it fights) with
    speed >= ``floor`` (-1: none)."""
    npc = tab.npc
    present = bt.present
    best = -1
    for s in range(bt.bg[BG_S]):
        if s != a and present[s]:
            e = bview_speed(tab, bt, s)
            if e >= floor and (best < 0 or e < best):
                best = e
    j, fighting = first_npc(bt)
    if fighting:
        e = npc[bt.nst[j, NS_ROW], N_SAILS]
        if e >= floor and (best < 0 or e < best):
            best = e
    return best


@njit(cache=True)
def wind_changes_order(tab, bt, a):
    """``_wind_changes_order``: some enemy's speed e has ``me <= e < me + wind step``."""
    step = tab.prm[P_WIND_SPEED]
    me = bview_speed(tab, bt, a)
    e = _enemy_min_at_least(tab, bt, a, me)
    return e >= 0 and e < me + step


@njit(cache=True)
def _grapple_gain(tab, bt, s):
    """The dice Grapple adds to ship ``s``: :func:`core.num_dice` grappled less ungrappled (0
    with a living parrot's dice power)."""
    val = tab.val
    bsh, pos = bt.bsh, bt.pos
    crew = val[CREW, pos[s, CREW]]
    cannons = val[CANNONS, pos[s, CANNONS]]
    alive = bt.php[s] > 0
    fixed, bones = bsh[s, BS_PFIXED], bsh[s, BS_PBONES]
    with_grapple = core.num_dice(crew, cannons, alive, fixed, bones, True)
    return with_grapple - core.num_dice(crew, cannons, alive, fixed, bones, False)


@njit(cache=True)
def grapple_helps(tab, bt, a):
    """``_grapple_helps``: Grapple adds dice to us, more than to any other present ship."""
    mine = _grapple_gain(tab, bt, a)
    if mine <= 0:
        return False
    present = bt.present
    most = 0
    for s in range(bt.bg[BG_S]):
        if s != a and present[s]:
            most = max(most, _grapple_gain(tab, bt, s))
    return mine > most


@njit(cache=True)
def overboard_need(tab, gs, oc, lt, bt, a, stake):
    """``_overboard_need``: the fewest chests that put us ahead of the slowest enemy at least as
    fast as we are, when the duel odds gained times (stake + rout cost) pay for the chests at
    ``w_chest`` each (only against one player ship, no non-player ship); -1: ``None``."""
    prm, pmf = tab.prm, tab.pmf
    pp = gs.pp
    ck, cv, V = oc.ck, oc.cv, oc.V
    per = prm[P_OVERBOARD_SPEED]
    if per <= 0:
        return -1
    me = bview_speed(tab, bt, a)
    e = _enemy_min_at_least(tab, bt, a, me)
    if e < 0:
        return -1
    need = (e - me) // per + 1
    if need > bt.bst[a, BT_CHESTS]:
        return -1
    j, fighting = first_npc(bt)
    if num_others(bt, a) != 1 or fighting:
        return -1
    o = np.int64(0)
    for s in range(bt.bg[BG_S]):
        if s != a and bt.present[s]:
            o = s
    mine = np.empty(64, np.int64)
    theirs = np.empty(64, np.int64)
    mh = battle_track(tab, lt, bt, a, mine)
    th = battle_track(tab, lt, bt, o, theirs)
    slow = win_probability(
        mine, mh + 1, th, theirs[0], mh, np.bool_(False), NO_REGEN, NO_REGEN_CAP, pmf, ck, cv, V
    )
    fast = win_probability(
        mine, mh + 1, th, theirs[0], mh, np.bool_(True), NO_REGEN, NO_REGEN_CAP, pmf, ck, cv, V
    )
    seat = bt.bsh[a, BS_SEAT]
    gain = (fast - slow) * (stake + pp[seat, ROUT_COST])
    return need if gain > need * pp[seat, W_CHEST] else -1


@njit(cache=True)
def battle_plan(tab, gs, lt, lmemo, bt, a, has_smoke, n_wind, has_grapple, has_overboard,
                stake, hv_chest):  # fmt: skip
    """``_battle_plan``: the lone plan against ``view.npc`` from the battle as it stands (hand:
    the battle cards counted in the arguments; no volley cards, as the card rounds offer only
    battle cards): stake ``stake + npc fame + rout_cost``, chests valued ``hv_chest``. Returns
    :func:`~simulator.cove.fast.lone.lone_plan`'s (p_sink, smoke, wind, grapple, overboard)."""
    npc = tab.npc
    pp = gs.pp
    seat = bt.bsh[a, BS_SEAT]
    j, fighting = first_npc(bt)
    row = bt.nst[j, NS_ROW]
    st = np.empty(STATE_LEN, np.int64)
    battle_state(tab, bt, a, st)
    chests = bt.bst[a, BT_CHESTS] if has_overboard else 0
    plan_stake = stake + npc[row, N_FAME] + pp[seat, ROUT_COST]
    return lone.lone_plan(
        lt, lmemo, row, st, view_parrot(bt, a), 1 if has_smoke else 0, n_wind,
        1 if has_grapple else 0, 1 if has_overboard else 0, np.int64(0), np.int64(0), chests,
        hv_chest, np.int64(1),
        plan_stake, bt.nst[j, NS_HULL], bview_speed(tab, bt, a) - base_speed(tab, bt, a),
        bt.bst[a, BT_SMOKE], bt.bg[BG_GRAPPLE],
    )  # fmt: skip


# ------------------------------------------------------------------ the decisions
@njit(cache=True)
def battle_card(tab, gs, oc, bt, a, playable, npl, lt, lmemo, stake, hv_chest):
    """``HeuristicPlayer.battle_card`` for ship ``a`` (its battle cards in ``playable[:npl]``):
    the card code to play, or ``NONE``.

    Alone against a non-player ship: the lone plan's Smoke, then Grapple, then Favourable wind,
    then Overboard. Otherwise: Smoke when not smoked; Favourable wind when it changes the speed
    order; Grapple when not grappled and it helps us most; Overboard when the chests aboard and
    :func:`overboard_need` say so; Becalmed from round 2 when another present ship holds more
    cards than our battle cards."""
    pp = gs.pp
    bst, bg = bt.bst, bt.bg
    seat = bt.bsh[a, BS_SEAT]
    if pp[seat, PLAY_CARDS] == 0.0:
        return NONE
    has_smoke = _held(playable, npl, C_SMOKE) > 0
    n_wind = _held(playable, npl, C_WIND)
    has_grapple = _held(playable, npl, C_GRAPPLE) > 0
    has_overboard = _held(playable, npl, C_OVERBOARD) > 0
    if lone_npc(bt, a):
        p, smoke, wind, grapple, overboard = battle_plan(
            tab, gs, lt, lmemo, bt, a, has_smoke, n_wind, has_grapple, has_overboard, stake,
            hv_chest,
        )  # fmt: skip
        if smoke:
            return C_SMOKE
        if grapple:
            return C_GRAPPLE
        if wind:
            return C_WIND
        if overboard:
            return C_OVERBOARD
        return NONE
    if has_smoke and bst[a, BT_SMOKE] == 0:
        return C_SMOKE
    if n_wind > 0 and wind_changes_order(tab, bt, a):
        return C_WIND
    if has_grapple and bg[BG_GRAPPLE] == 0 and grapple_helps(tab, bt, a):
        return C_GRAPPLE
    if has_overboard and bst[a, BT_CHESTS] and overboard_need(tab, gs, oc, lt, bt, a, stake) >= 0:
        return C_OVERBOARD
    if _held(playable, npl, C_BECALMED) > 0 and bg[BG_CARD_ROUND] > 1:
        m = 0
        most = 0
        for s in range(bg[BG_S]):
            if s != a and bt.present[s]:
                m += 1
                most = max(most, bst[s, BT_HAND_N])
        if m > 0 and most > npl:
            return C_BECALMED
    return NONE


@njit(cache=True)
def overboard_chests(tab, gs, oc, bt, a, chests, lt, lmemo, stake, hv_chest):
    """``HeuristicPlayer.overboard_chests``: alone against a non-player ship the lone plan's
    chests (hand: Overboard alone), else :func:`overboard_need` (0 for ``None``); at most
    ``chests``."""
    if lone_npc(bt, a):
        got = battle_plan(
            tab, gs, lt, lmemo, bt, a, np.bool_(False), np.int64(0), np.bool_(False),
            np.bool_(True), stake, hv_chest,
        )  # fmt: skip
        return min(chests, got[4])
    need = overboard_need(tab, gs, oc, lt, bt, a, stake)
    return min(chests, need if need > 0 else 0)


@njit(cache=True)
def in_danger(tab, bt, a):
    """``_in_danger``: one enemy broadside could destroy a section of ours (every die a hit): a
    fighting non-player ship's dice against the section it damages (hull or crew; else our
    weakest), else the most dice among the other present ships (their public values, no
    Grapple)."""
    prm, val, npc = tab.prm, tab.val, tab.npc
    weakest, k = bview_weakest(prm, bt, a)
    j, fighting = first_npc(bt)
    if fighting:
        row = bt.nst[j, NS_ROW]
        dmg = npc[row, N_DAMAGE]
        if dmg == HULL or dmg == CREW:
            weakest = bview_hits(prm, bt, a, dmg)
        return weakest <= npc[row, N_DICE]
    bsh, pos = bt.bsh, bt.pos
    most = 0
    for s in range(bt.bg[BG_S]):
        if s != a and bt.present[s]:
            d = core.num_dice(
                val[CREW, pos[s, CREW]], val[CANNONS, pos[s, CANNONS]], bt.php[s] > 0,
                bsh[s, BS_PFIXED], bsh[s, BS_PBONES], False,
            )  # fmt: skip
            most = max(most, d)
    return weakest <= most


@njit(cache=True, inline="always")
def stand_and_flee_values(tab, gs, oc, bt, a, lt, lmemo, ct, cmemo, stake, gold):
    """``_stand_and_flee_values``: (expected value of standing, of fleeing now), fame units.

    Fleeing costs the mutiny odds times (gold, chests and the mutiny's fame). Standing: alone
    against a non-player ship the exact P(sink) with the volley cards in hand and the cards in
    effect, times its fame + ``stake``, less the rout cost otherwise; with company the company
    estimate (P(sink) x stake + the expected fame share - P(routed) x rout cost); against player
    ships the product of the duel odds against each, times ``stake`` + the rout fame of each.
    (The readable branch for two non-player ships and no company, ``not others and not
    _lone_npc``, is never taken: without others a fighting non-player ship makes the ship
    lone.)"""
    prm, npc, pmf = tab.prm, tab.npc, tab.pmf
    pp = gs.pp
    ck, cv, V = oc.ck, oc.cv, oc.V
    bsh, bst = bt.bsh, bt.bst
    seat = bsh[a, BS_SEAT]
    rout = pp[seat, ROUT_COST]
    p_mutiny = max(0, min(prm[P_MUTINY_ON], 6)) / 6.0
    loss = p_mutiny * (
        pp[seat, W_GOLD] * gold + pp[seat, W_CHEST] * bst[a, BT_CHESTS] + prm[P_MUTINY_LOSS]
    )
    flee = -loss
    S = bt.bg[BG_S]
    m = num_others(bt, a)
    j, fighting = first_npc(bt)
    if fighting:
        row = bt.nst[j, NS_ROW]
        fame = npc[row, N_FAME]
        if m == 0:
            st = np.empty(STATE_LEN, np.int64)
            battle_state(tab, bt, a, st)
            p = lone.p_sink(
                lt, lmemo, row, st, view_parrot(bt, a), bt.nst[j, NS_HULL],
                hand_count(bt, a, C_GRAPESHOT), hand_count(bt, a, C_KEG), bst[a, BT_SMOKE],
                bview_speed(tab, bt, a) - base_speed(tab, bt, a), bt.bg[BG_GRAPPLE],
            )  # fmt: skip
            stand = p * (fame + stake) - (1 - p) * rout
        else:
            ships = np.empty((m + 1, 7), np.int64)
            art = np.empty((m + 1, 4), np.int64)
            _table_facts(tab, bt, a, ships, art, np.int64(0))
            i = np.int64(1)
            for s in range(S):
                if s != a and bt.present[s]:
                    _table_facts(tab, bt, s, ships, art, i)
                    i += 1
            p_sink, share, p_routed = company.company_odds_art(ct, cmemo, row, ships, art, m + 1)
            stand = p_sink * stake + share - p_routed * rout
        return stand, flee
    win = 1.0
    mine = np.empty(64, np.int64)
    theirs = np.empty(64, np.int64)
    mh = battle_track(tab, lt, bt, a, mine)
    my_speed = bview_speed(tab, bt, a)
    for s in range(S):
        if s != a and bt.present[s]:
            th = battle_track(tab, lt, bt, s, theirs)
            first = my_speed > bview_speed(tab, bt, s)
            win *= win_probability(
                mine, mh + 1, th, theirs[0], mh, first, NO_REGEN, NO_REGEN_CAP, pmf, ck, cv, V
            )
    stand = win * (stake + prm[P_ROUT_FAME] * m) - (1 - win) * rout
    return stand, flee


@njit(cache=True)
def _table_facts(tab, bt, s, ships, art, i):
    """``heuristic._table_facts`` of ship ``s`` into row ``i`` of the company estimate's arrays:
    rings (destroyed sections at 1), the living parrot (-1) and its wound, and the Artisan hits
    absorbed where ``battle_ship_state`` leaves Artisan protection (-1: none)."""
    prm = tab.prm
    st = np.empty(STATE_LEN, np.int64)
    battle_state(tab, bt, s, st)
    for k in range(4):
        ships[i, k] = max(bt.pos[s, k], 1)
        art[i, k] = prm[P_ART_ABSORBS] - st[4 + k] if st[4 + k] > 0 else -1
    ships[i, 4] = view_parrot(bt, s)
    ships[i, 5] = 1 if bt.php[s] > 0 and bt.php[s] < prm[P_PARROT_HITS] else 0
    ships[i, 6] = 0


@njit(cache=True)
def weakest(tab, gs, bt, a, seat, navy):
    """``HeuristicPlayer.weakest``: while a non-player ship fights (and not for the navy) the
    forced non-player target (``weakest_target``: of two present, the least hull, the first of
    equals) as ``NPC_TARGET - j``; else the present ship (not ``a`` unless ``navy``) with the
    fewest hits to rout at its weakest section, equal ships picked by game seat ``seat``'s
    generator (``rng.integers(len(best))``). Returns (target, section)."""
    prm = tab.prm
    rs = gs.rs
    present, nst, bg = bt.present, bt.nst, bt.bg
    j, fighting = first_npc(bt)
    if fighting and not navy:
        best_j = -1
        for q in range(bg[BG_NNPC]):
            if nst[q, NS_FIGHTS] != 0 and nst[q, NS_PRESENT] != 0:
                if best_j < 0 or nst[q, NS_HULL] < nst[best_j, NS_HULL]:
                    best_j = q
        return NPC_TARGET - best_j, HULL
    S = bg[BG_S]
    key = 1 << 30
    nb = np.int64(0)
    for s in range(S):
        if (s == a and not navy) or not present[s]:
            continue
        hk, k = bview_weakest(prm, bt, s)
        if hk < key:
            key = hk
            nb = np.int64(1)
        elif hk == key:
            nb += 1
    if nb == 0:
        # readable: RoyalNavyPolicy().target (navy) or weakest_target (no opponent): unreachable
        # while the battle goes on (a broadside or a navy shot needs a present ship)
        return NPC_TARGET, HULL
    pick = integers(rs, 1 + seat, nb) if nb > 1 else 0
    for s in range(S):
        if (s == a and not navy) or not present[s]:
            continue
        hk, k = bview_weakest(prm, bt, s)
        if hk == key:
            if pick == 0:
                return s, k
            pick -= 1
    return NPC_TARGET, HULL


@njit(cache=True)
def broadside(tab, gs, oc, bt, a, volley, lt, lmemo, ct, cmemo, stake, gold):
    """``HeuristicPlayer.broadside`` for ship ``a``: returns (flee, target, section) -- target a
    ship index, or ``NPC_TARGET - j`` for non-player ship ``j`` -- and the volley cards, in
    order, in ``volley[:3]`` (-1 padded).

    Flee when fleeing is worth more than standing + ``fight_bias`` and one enemy broadside could
    destroy a section (:func:`in_danger`); else fire at :func:`weakest`, with (``play_cards``,
    able to fire, not becalmed) against a non-player ship the solver's best volley (Grapeshot,
    Powder keg), against player ships Cannonade at a player ship, Grapeshot while cannons stand
    more than ``grapeshot_self_hits + 1`` hits, Powder keg while the hull stands more than 3."""
    prm = tab.prm
    pp = gs.pp
    bsh, bst, bg = bt.bsh, bt.bst, bt.bg
    seat = bsh[a, BS_SEAT]
    volley[0] = -1
    volley[1] = -1
    volley[2] = -1
    stand, flee = stand_and_flee_values(tab, gs, oc, bt, a, lt, lmemo, ct, cmemo, stake, gold)
    go = flee > stand + pp[seat, FIGHT_BIAS] and in_danger(tab, bt, a)
    if recording(gs):
        record_battle(gs, bt, a, seat, stand, flee, go)
    if go:
        return True, NPC_TARGET, HULL
    tgt, sec = weakest(tab, gs, bt, a, seat, np.bool_(False))
    if pp[seat, PLAY_CARDS] != 0.0 and bst[a, BT_CAN_FIRE] != 0 and bg[BG_BECALMED] == 0:
        j, fighting = first_npc(bt)
        nv = 0
        if fighting:
            st = np.empty(STATE_LEN, np.int64)
            battle_state(tab, bt, a, st)
            bits, v = lone.best_volley(
                lt, lmemo, bt.nst[j, NS_ROW], st, view_parrot(bt, a), bt.nst[j, NS_HULL],
                hand_count(bt, a, C_GRAPESHOT), hand_count(bt, a, C_KEG), bst[a, BT_SMOKE],
                bview_speed(tab, bt, a) - base_speed(tab, bt, a), bg[BG_GRAPPLE],
                1 if bt.nst[j, NS_HAS_FIRED] == 0 else 0,
            )  # fmt: skip
            if bits & V_GRAPESHOT:
                volley[nv] = C_GRAPESHOT
                nv += 1
            if bits & V_KEG:
                volley[nv] = C_KEG
                nv += 1
        else:
            if hand_count(bt, a, C_CANNONADE) > 0 and tgt >= 0:
                volley[nv] = C_CANNONADE
                nv += 1
            if (
                hand_count(bt, a, C_GRAPESHOT) > 0
                and bview_hits(prm, bt, a, CANNONS) > prm[P_GRAPE_SELF] + 1
            ):
                volley[nv] = C_GRAPESHOT
                nv += 1
            if hand_count(bt, a, C_KEG) > 0 and bview_hits(prm, bt, a, HULL) > 3:
                volley[nv] = C_KEG
                nv += 1
    return False, tgt, sec


@njit(cache=True)
def record_battle(gs, bt, a, seat, stand, flee, go):
    """The flee-or-stand decision rows (``HeuristicPlayer.broadside``'s record): stand, then
    flee, each with its value, the fighting non-player ship (-1: none) and the other ships
    present; the month is the one the player last saw (``_month``)."""
    j, fighting = first_npc(bt)
    row = float(bt.nst[j, NS_ROW]) if fighting else -1.0
    month = gs.pp[seat, PP_MONTH_SEEN]
    me = float(seat)
    dec = float(REC_BATTLE)
    others = float(num_others(bt, a))
    fled = 1.0 if go else 0.0
    nan = np.nan
    record(gs, month, me, dec, float(OPT_STAND), stand, 1.0 - fled, row, nan, nan, nan, others)
    record(gs, month, me, dec, float(OPT_FLEE), flee, fled, row, nan, nan, nan, others)


@njit(cache=True)
def navy_target(tab, gs, bt, controller):
    """``HeuristicPlayer.navy_target`` of the controller's seat (``weakest(view, navy=True)``):
    the present ship with the fewest hits to rout at its weakest section, equal ships picked by
    the controller's generator. Returns (ship, section)."""
    return weakest(tab, gs, bt, NONE, controller, np.bool_(True))


__all__ = [
    "battle_card",
    "battle_state",
    "battle_track",
    "broadside",
    "in_danger",
    "navy_target",
    "overboard_chests",
    "record_battle",
    "stand_and_flee_values",
    "weakest",
]
