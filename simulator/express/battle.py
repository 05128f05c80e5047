"""The Pirates express battle engine (compiled with numba, ``cache=True``).

Rules covered (notes numbers from ``../shared/rules/pirates-express.md``):

* deployment after a d6 roll-off along opposite short (or long) edges (notes 1);
* game turns: initiative d6 (ties rerolled), the winner activates all its ships then the other,
  or alternate activation (notes 2); once-per-turn abilities reset each turn;
* an activation (notes 3): optional Carpenter repair (no attack, move reduced; notes 9), then
  either move and fire in either order, move into contact and board, or, if engaged, fire at /
  board an engaged enemy or try to disengage and move;
* movement: allowance by starting masts minus the loss per mast, oars / Turkish mastless move,
  Helmsman bonus; islands stop a ship at the shore (switch); ships end within the table;
* gunnery: dice = masts (+ Gunner), difficulty by range band, up to K missed dice rerolled once
  (Captain, Pirates), hits applied one at a time: Chinese hull points first, then masts, a hit on a
  mastless ship sinks it, extra hits are lost (notes 4, 5);
* boarding: both sides roll masts (+ Vikings, Musketeer; a mastless ship rolls nothing) at 3+,
  the difference is removed from the loser (hull first), the winner sinks the loser when the sink
  rule allows (notes 7 and switch), ships stay in contact (engaged);
* disengagement: d6 >= starting masts + masts lost, capped (6+, or impossible above 6+), Turkish
  cap 3+, automatic against mastless ships (notes 8);
* VP: masts / hull points removed, ships sunk (+ Spain), scenario points; treasure and convoy
  objectives (notes 12); the game ends after the last turn or when a side has no ship that can
  still move or fire (notes 11);
* hidden crews (seed "Équipage": assigned face down): a crew is revealed the first time it is used
  (``S_REVEALED``, event ``EV_REVEAL``; decision D23) and a commander decides from
  :func:`core.observe`, which hides the enemy's unrevealed crews (``commanders.orders``).

One generator rolls every die (``rng``); commanders that randomise get their own (``prng``).

Calls pass typed values where a literal would go (``np.bool_(True)``, ``np.int64(0)``) and
:func:`_log`, called with an event code and zeros, is ``inline="always"``: each compiled
function compiles for one signature, not once per literal value (see :mod:`core`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from simulator.express.commanders import orders
from simulator.express.core import (
    A_ATTACK,
    A_DISENGAGE,
    A_DX,
    A_DY,
    A_N,
    A_ORDER,
    A_REPAIR,
    A_TARGET,
    ATTACK_BOARD,
    ATTACK_CANNON,
    CAPTAIN,
    CARPENTER,
    F_N,
    F_X,
    F_Y,
    GUNNER,
    HELMSMAN,
    MUSKETEER,
    NA_DIS_CAP,
    NA_EXTRA_VP_SINK,
    NA_REROLL_BOARD,
    NA_REROLLS,
    RF_CONTACT,
    RF_CONVOY_START,
    RF_D,
    RF_DEPLOY_DEPTH,
    RF_EXIT_ZONE,
    RF_TR_HOME_ZONE,
    RF_TR_PICKUP,
    RF_TR_X,
    RF_TR_Y,
    RF_W,
    RI_ACTIVATION,
    RI_BOARD_ON,
    RI_CAPT_BOARD,
    RI_CAPT_REROLLS,
    RI_CARP_MASTLESS,
    RI_CARP_MASTS,
    RI_CONVOY_DEF,
    RI_CONVOY_EXIT_VP,
    RI_CONVOY_MAST_VP,
    RI_CONVOY_N,
    RI_DEF_ABIL,
    RI_DEPLOY,
    RI_DIS_AUTO,
    RI_DIS_CAP,
    RI_END_IDLE,
    RI_HELM_CM,
    RI_MAX_TURNS,
    RI_SCENARIO,
    RI_SINK_RULE,
    RI_TR_HELD,
    RI_TR_HOME,
    RI_VP_HULL,
    RI_VP_MAST,
    RI_VP_SINK,
    RI_WINNER_SINKS,
    S_ACTED,
    S_CAPT_USED,
    S_CARP_USED,
    S_CONVOY,
    S_CREW,
    S_GUN_USED,
    S_HULL,
    S_HULL0,
    S_MASTS,
    S_MUSK_USED,
    S_N,
    S_OARS,
    S_PIR_USED,
    S_REPAIRED,
    S_REVEALED,
    S_START,
    S_STATUS,
    ST_ABSENT,
    ST_AFLOAT,
    ST_EXITED,
    ST_SUNK,
    TR_N,
    TR_SHIP,
    TR_SIDE,
    TR_STATE,
    TR_X,
    TR_Y,
    allowance,
    boarding_dice,
    can_repair,
    cannon_dice,
    disengage_difficulty,
    dist,
    dist_to_edge,
    end_point,
    engaged_with,
    hit_on_range,
    is_engaged,
)

# ---- one output row per battle, int64 columns
OUT_COLUMNS = (
    "vp_a",
    "vp_b",
    "mast_vp_a",
    "mast_vp_b",  # VP for masts and hull points removed (incl. convoy mast bonus? no)
    "sink_vp_a",
    "sink_vp_b",  # VP for ships sunk (incl. Spain's extra)
    "scenario_vp_a",
    "scenario_vp_b",  # treasure / convoy points (convoy mast bonus included)
    "sunk_by_a",
    "sunk_by_b",  # enemy ships sunk
    "turns",
    "result",  # 0: A wins, 1: B wins, 2: draw
    "masts_left_a",
    "masts_left_b",
    "convoy_defender",  # -1 (not convoy), 0: A, 1: B
    "first_edge",  # which fleet deployed on edge 0 (x=0 or y=0)
    "convoy_exits",  # convoy ships that left by the far edge (0 outside the convoy scenario)
    "treasure_end",  # -1 (not treasure), 0: token on the table, 1: held at the end, 2: brought home
)
(
    O_VP0,
    O_VP1,
    O_MVP0,
    O_MVP1,
    O_SVP0,
    O_SVP1,
    O_CVP0,
    O_CVP1,
    O_SUNK0,
    O_SUNK1,
    O_TURNS,
    O_RESULT,
    O_LEFT0,
    O_LEFT1,
    O_DEF,
    O_EDGE,
    O_EXITS,
    O_TREASURE,
) = range(len(OUT_COLUMNS))
N_OUT = len(OUT_COLUMNS)

# ---- trace events (float64 rows of 8): what the invariant tests replay
EV_MOVE = 1  # turn, side, ship, distance moved, masts, repaired, allowance
EV_LOSS = 2  # turn, side (victim), ship, 0 hull / 1 mast, by side, convoy bonus, masts after
EV_SINK = 3  # turn, side (victim), ship, by side, VP awarded
EV_REPAIR = 4  # turn, side, ship, masts after, starting masts
EV_FIRE = 5  # turn, side, ship, target, whole-cm range, dice, hits
EV_BOARD = 6  # turn, side, ship, target, successes, enemy successes
EV_DISENGAGE = 7  # turn, side, ship, difficulty, success
EV_SCENARIO = 8  # turn, side, ship, VP, 0 treasure home / 1 treasure held / 2 convoy exit
EV_INITIATIVE = 9  # turn, winner
EV_ACTIVATE = 10  # turn, side, ship
EV_TREASURE = 11  # turn, side, ship, 0 picked up / 1 taken in a boarding / 2 dropped (sunk)
EV_REVEAL = 12  # turn, side, ship, crew index: its crew's first use (public from now on)
TRACE_WIDTH = 8

VP_MAST, VP_SINK, VP_SCEN = 0, 1, 2


@njit(cache=True, inline="always")
def _log(trace, tn, e, a, b, c, d, f, g, h):
    k = tn[0]
    if k < trace.shape[0]:
        trace[k, 0] = e
        trace[k, 1] = a
        trace[k, 2] = b
        trace[k, 3] = c
        trace[k, 4] = d
        trace[k, 5] = f
        trace[k, 6] = g
        trace[k, 7] = h
    tn[0] = k + 1


@njit(cache=True)
def _reveal(si, s, i, trace, tn, turn):
    """Ship (s, i)'s crew is turned face up (its first use; decision D23)."""
    if si[s, i, S_REVEALED] == 0:
        si[s, i, S_REVEALED] = 1
        _log(trace, tn, EV_REVEAL, turn, s, i, si[s, i, S_CREW], 0, 0, 0)


@njit(cache=True)
def _reveal_if_used(si, s, i, trace, tn, turn):
    """Reveal ship (s, i)'s Captain, Musketeer, Gunner or Carpenter once its once-per-turn flag
    says it was used (the flags are set only where the crew's effect applies)."""
    c = si[s, i, S_CREW]
    used = (
        (c == CAPTAIN and si[s, i, S_CAPT_USED] == 1)
        or (c == MUSKETEER and si[s, i, S_MUSK_USED] == 1)
        or (c == GUNNER and si[s, i, S_GUN_USED] == 1)
        or (c == CARPENTER and si[s, i, S_CARP_USED] == 1)
    )
    if used:
        _reveal(si, s, i, trace, tn, turn)


@njit(cache=True)
def roll_volley(rng, dice, hit_on, rerolls):
    """Hits of a volley: ``dice`` d6 at ``hit_on``+, up to ``rerolls`` misses rerolled once.

    Returns (hits, rerolls used).
    """
    if dice <= 0:
        return 0, 0
    hits = 0
    for _ in range(dice):
        if rng.integers(1, 7) >= hit_on:
            hits += 1
    misses = dice - hits
    used = rerolls if rerolls < misses else misses
    for _ in range(used):
        if rng.integers(1, 7) >= hit_on:
            hits += 1
    return hits, used


@njit(cache=True)
def _clear_engagements(eng, s, i):
    for j in range(eng.shape[1]):
        if s == 0:
            eng[i, j] = False
        else:
            eng[j, i] = False


@njit(cache=True)
def _set_engaged(eng, s, i, j):
    if s == 0:
        eng[i, j] = True
    else:
        eng[j, i] = True


@njit(cache=True)
def _take_loss(si, na, vp, tr, s_by, o, j, ri, trace, tn, turn, can_sink):
    """One hit / one boarding loss on ship (o, j) from side s_by. Returns True if it sank."""
    bonus = 0
    if ri[RI_SCENARIO] == 2 and si[o, j, S_CONVOY] == 1:
        bonus = ri[RI_CONVOY_MAST_VP]
    if si[o, j, S_HULL] > 0:
        si[o, j, S_HULL] -= 1
        vp[s_by, VP_MAST] += ri[RI_VP_HULL]
        vp[s_by, VP_SCEN] += bonus
        _log(trace, tn, EV_LOSS, turn, o, j, 0, s_by, bonus, si[o, j, S_MASTS])
        return False
    if si[o, j, S_MASTS] > 0:
        si[o, j, S_MASTS] -= 1
        vp[s_by, VP_MAST] += ri[RI_VP_MAST]
        vp[s_by, VP_SCEN] += bonus
        _log(trace, tn, EV_LOSS, turn, o, j, 1, s_by, bonus, si[o, j, S_MASTS])
        return False
    if not can_sink:
        return False
    _sink(si, na, vp, tr, s_by, o, j, ri, trace, tn, turn)
    return True


@njit(cache=True)
def _sink(si, na, vp, tr, s_by, o, j, ri, trace, tn, turn):
    si[o, j, S_STATUS] = ST_SUNK
    v = ri[RI_VP_SINK] + na[s_by, NA_EXTRA_VP_SINK]
    vp[s_by, VP_SINK] += v
    _log(trace, tn, EV_SINK, turn, o, j, s_by, v, 0, 0)
    # the treasure stays where its carrier went down
    if tr[TR_STATE] == 1 and int(tr[TR_SIDE]) == o and int(tr[TR_SHIP]) == j:
        tr[TR_STATE] = 0
        _log(trace, tn, EV_TREASURE, turn, o, j, 2, 0, 0, 0)


@njit(cache=True)
def _fire(rng, si, sf, na, vp, tr, eng, s, i, j, ri, hit_on_cm, islands, trace, tn, turn):
    o = 1 - s
    if si[o, j, S_STATUS] != ST_AFLOAT:
        return
    dice = cannon_dice(si, s, i, ri)
    if dice <= 0:
        return
    h = hit_on_range(
        sf[s, i, F_X], sf[s, i, F_Y], sf[o, j, F_X], sf[o, j, F_Y], ri, hit_on_cm, islands
    )
    if h >= 7:
        return
    if si[s, i, S_CREW] == GUNNER:
        si[s, i, S_GUN_USED] = 1
    capt = (
        ri[RI_CAPT_REROLLS] if (si[s, i, S_CREW] == CAPTAIN and si[s, i, S_CAPT_USED] == 0) else 0
    )
    pir = na[s, NA_REROLLS] if si[s, i, S_PIR_USED] == 0 else 0
    hits, used = roll_volley(rng, dice, h, capt + pir)
    if used > 0 and capt > 0:
        si[s, i, S_CAPT_USED] = 1
    if used > capt:
        si[s, i, S_PIR_USED] = 1
    r = int(math.ceil(dist(sf[s, i, F_X], sf[s, i, F_Y], sf[o, j, F_X], sf[o, j, F_Y]) - 1e-9))
    _log(trace, tn, EV_FIRE, turn, s, i, j, r, dice, hits)
    _reveal_if_used(si, s, i, trace, tn, turn)
    for _ in range(hits):
        if _take_loss(si, na, vp, tr, s, o, j, ri, trace, tn, turn, np.bool_(True)):
            _clear_engagements(eng, o, j)
            break


@njit(cache=True)
def _boarding_roll(rng, si, na, s, i, ri, use_abilities):
    """Successes of ship (s, i) in a boarding, marking the abilities it used."""
    if si[s, i, S_MASTS] <= 0:
        return 0
    if use_abilities:
        dice = boarding_dice(si, na, s, i, ri)
        if si[s, i, S_CREW] == MUSKETEER:
            si[s, i, S_MUSK_USED] = 1
        capt = 0
        if ri[RI_CAPT_BOARD] == 1 and si[s, i, S_CREW] == CAPTAIN and si[s, i, S_CAPT_USED] == 0:
            capt = ri[RI_CAPT_REROLLS]
        pir = 0
        if na[s, NA_REROLL_BOARD] == 1 and si[s, i, S_PIR_USED] == 0:
            pir = na[s, NA_REROLLS]
    else:
        dice = si[s, i, S_MASTS]
        capt = 0
        pir = 0
    hits, used = roll_volley(rng, dice, ri[RI_BOARD_ON], capt + pir)
    if used > 0 and capt > 0:
        si[s, i, S_CAPT_USED] = 1
    if used > capt:
        si[s, i, S_PIR_USED] = 1
    return hits


@njit(cache=True)
def _board(rng, si, sf, na, vp, tr, eng, s, i, j, ri, trace, tn, turn):
    o = 1 - s
    if si[o, j, S_STATUS] != ST_AFLOAT:
        return
    sa = _boarding_roll(rng, si, na, s, i, ri, np.bool_(True))
    sb = _boarding_roll(rng, si, na, o, j, ri, ri[RI_DEF_ABIL] == 1)
    _set_engaged(eng, s, i, j)
    _log(trace, tn, EV_BOARD, turn, s, i, j, sa, sb, 0)
    _reveal_if_used(si, s, i, trace, tn, turn)
    _reveal_if_used(si, o, j, trace, tn, turn)
    if sa == sb:
        return
    if sa > sb:
        win_s, win_i, lose_s, lose_i, net, raw = s, i, o, j, sa - sb, sa
    else:
        win_s, win_i, lose_s, lose_i, net, raw = o, j, s, i, sb - sa, sb
    before = si[lose_s, lose_i, S_MASTS] + si[lose_s, lose_i, S_HULL]
    n = net if net < before else before
    for _ in range(n):
        _take_loss(si, na, vp, tr, win_s, lose_s, lose_i, ri, trace, tn, turn, np.bool_(False))
    carried = tr[TR_STATE] == 1 and int(tr[TR_SIDE]) == lose_s and int(tr[TR_SHIP]) == lose_i
    sinkable = (net > before) if ri[RI_SINK_RULE] == 0 else (raw > before)
    if sinkable and ri[RI_WINNER_SINKS] == 1:
        _sink(si, na, vp, tr, win_s, lose_s, lose_i, ri, trace, tn, turn)
        _clear_engagements(eng, lose_s, lose_i)
    if carried and si[win_s, win_i, S_STATUS] == ST_AFLOAT:
        tr[TR_STATE] = 1
        tr[TR_SIDE] = win_s
        tr[TR_SHIP] = win_i
        _log(trace, tn, EV_TREASURE, turn, win_s, win_i, 1, 0, 0, 0)


@njit(cache=True)
def _move(si, sf, na, vp, tr, eng, edges, s, i, px, py, allow, ri, rf, islands, trace, tn, turn):
    """Move ship (s, i) straight toward (px, py), at most ``allow`` cm; then objectives and
    contact."""
    x = sf[s, i, F_X]
    y = sf[s, i, F_Y]
    px, py, moving = end_point(x, y, px, py, allow, rf, islands)
    if not moving:
        return
    moved = dist(x, y, px, py)
    sf[s, i, F_X] = px
    sf[s, i, F_Y] = py
    _log(trace, tn, EV_MOVE, turn, s, i, moved, si[s, i, S_MASTS], si[s, i, S_REPAIRED], allow)
    if si[s, i, S_CREW] == HELMSMAN and moved > allow - ri[RI_HELM_CM] + 1e-9:
        # the Helmsman is used when the ship sails further than it could without it
        _reveal(si, s, i, trace, tn, turn)
    sc = ri[RI_SCENARIO]
    if sc == 1:
        if tr[TR_STATE] == 0 and dist(px, py, tr[TR_X], tr[TR_Y]) <= rf[RF_TR_PICKUP]:
            tr[TR_STATE] = 1
            tr[TR_SIDE] = s
            tr[TR_SHIP] = i
            _log(trace, tn, EV_TREASURE, turn, s, i, 0, 0, 0, 0)
        if tr[TR_STATE] == 1 and int(tr[TR_SIDE]) == s and int(tr[TR_SHIP]) == i:
            tr[TR_X] = px
            tr[TR_Y] = py
            if dist_to_edge(edges[s], px, py, rf, ri, np.bool_(True)) <= rf[RF_TR_HOME_ZONE]:
                tr[TR_STATE] = 2
                vp[s, VP_SCEN] += ri[RI_TR_HOME]
                _log(trace, tn, EV_SCENARIO, turn, s, i, ri[RI_TR_HOME], 0, 0, 0)
    elif sc == 2 and si[s, i, S_CONVOY] == 1:
        if dist_to_edge(edges[s], px, py, rf, ri, np.bool_(False)) <= rf[RF_EXIT_ZONE]:
            si[s, i, S_STATUS] = ST_EXITED
            vp[s, VP_SCEN] += ri[RI_CONVOY_EXIT_VP]
            _clear_engagements(eng, s, i)
            _log(trace, tn, EV_SCENARIO, turn, s, i, ri[RI_CONVOY_EXIT_VP], 2, 0, 0)
            return
    # ending in contact with an enemy engages it
    o = 1 - s
    for j in range(si.shape[1]):
        if (
            si[o, j, S_STATUS] == ST_AFLOAT
            and dist(px, py, sf[o, j, F_X], sf[o, j, F_Y]) <= rf[RF_CONTACT]
        ):
            _set_engaged(eng, s, i, j)


@njit(cache=True)
def activate(
    rng,
    si,
    sf,
    na,
    vp,
    tr,
    eng,
    edges,
    s,
    i,
    act,
    ri,
    rf,
    move_cm,
    hit_on_cm,
    islands,
    trace,
    tn,
    turn,
):
    """Carry out one activation of ship (s, i) as chosen in ``act`` (illegal parts are dropped)."""
    o = 1 - s
    engaged = is_engaged(eng, s, i, si)
    repairing = False
    if act[A_REPAIR] > 0.5 and can_repair(si, s, i, ri, engaged):
        add = ri[RI_CARP_MASTS]
        room = si[s, i, S_START] - si[s, i, S_MASTS]
        si[s, i, S_MASTS] += add if add < room else room
        si[s, i, S_CARP_USED] = 1
        si[s, i, S_REPAIRED] = 1
        repairing = True
        _log(trace, tn, EV_REPAIR, turn, s, i, si[s, i, S_MASTS], si[s, i, S_START], 0, 0)
        _reveal_if_used(si, s, i, trace, tn, turn)
    allow = allowance(si, na, s, i, ri, move_cm, repairing)
    attack = int(act[A_ATTACK])
    if repairing:
        attack = 0
    j = int(act[A_TARGET])
    if attack != 0 and (j < 0 or j >= si.shape[1] or si[o, j, S_STATUS] != ST_AFLOAT):
        attack = 0
    px = act[A_DX]
    py = act[A_DY]
    if engaged:
        if act[A_DISENGAGE] > 0.5:
            # all engaged enemies mastless: automatic
            auto = ri[RI_DIS_AUTO] == 1
            for k in range(si.shape[1]):
                if (
                    si[o, k, S_STATUS] == ST_AFLOAT
                    and engaged_with(eng, s, i, k)
                    and si[o, k, S_MASTS] > 0
                ):
                    auto = False
            diff = 1 if auto else disengage_difficulty(si, na, s, i, ri)
            ok = auto or (diff <= 6 and rng.integers(1, 7) >= diff)
            _log(trace, tn, EV_DISENGAGE, turn, s, i, diff, 1 if ok else 0, 0, 0)
            if ok:
                _clear_engagements(eng, s, i)
                _move(
                    si,
                    sf,
                    na,
                    vp,
                    tr,
                    eng,
                    edges,
                    s,
                    i,
                    px,
                    py,
                    allow,
                    ri,
                    rf,
                    islands,
                    trace,
                    tn,
                    turn,
                )
            return
        # engaged ships may only fire at or board the ships they are engaged with; no move
        if attack != 0 and not engaged_with(eng, s, i, j):
            attack = 0
        if attack == ATTACK_BOARD:
            _board(rng, si, sf, na, vp, tr, eng, s, i, j, ri, trace, tn, turn)
        elif attack == ATTACK_CANNON:
            _fire(rng, si, sf, na, vp, tr, eng, s, i, j, ri, hit_on_cm, islands, trace, tn, turn)
        return
    if attack == ATTACK_BOARD:
        _move(si, sf, na, vp, tr, eng, edges, s, i, px, py, allow, ri, rf, islands, trace, tn, turn)
        if si[s, i, S_STATUS] != ST_AFLOAT:
            return
        if dist(sf[s, i, F_X], sf[s, i, F_Y], sf[o, j, F_X], sf[o, j, F_Y]) <= rf[RF_CONTACT]:
            _board(rng, si, sf, na, vp, tr, eng, s, i, j, ri, trace, tn, turn)
        elif not is_engaged(eng, s, i, si):
            _fire(rng, si, sf, na, vp, tr, eng, s, i, j, ri, hit_on_cm, islands, trace, tn, turn)
        return
    if attack == ATTACK_CANNON and act[A_ORDER] > 0.5:
        _fire(rng, si, sf, na, vp, tr, eng, s, i, j, ri, hit_on_cm, islands, trace, tn, turn)
        _move(si, sf, na, vp, tr, eng, edges, s, i, px, py, allow, ri, rf, islands, trace, tn, turn)
        return
    _move(si, sf, na, vp, tr, eng, edges, s, i, px, py, allow, ri, rf, islands, trace, tn, turn)
    if attack == ATTACK_CANNON and si[s, i, S_STATUS] == ST_AFLOAT:
        if is_engaged(eng, s, i, si) and not engaged_with(eng, s, i, j):
            return
        _fire(rng, si, sf, na, vp, tr, eng, s, i, j, ri, hit_on_cm, islands, trace, tn, turn)


@njit(cache=True)
def _can_act(si, na, s, i, ri, move_cm):
    if si[s, i, S_STATUS] != ST_AFLOAT:
        return False
    if si[s, i, S_MASTS] > 0:
        return True
    if allowance(si, na, s, i, ri, move_cm, np.bool_(False)) > 0:
        return True
    # a mastless ship whose Carpenter may repair it can still come back
    return si[s, i, S_CREW] == CARPENTER and ri[RI_CARP_MASTLESS] == 1 and ri[RI_CARP_MASTS] > 0


@njit(cache=True)
def _side_idle(si, na, s, ri, move_cm):
    for i in range(si.shape[1]):
        if _can_act(si, na, s, i, ri, move_cm):
            return False
    return True


@njit(cache=True)
def _setup(rng, si, sf, eng, tr, edges, fleets, ri, rf):
    """Place the fleets (d6 roll-off for the edges) and reset the state. Returns convoy defender."""
    n_ships = si.shape[1]
    for s in range(2):
        for i in range(n_ships):
            for k in range(S_N):
                si[s, i, k] = 0
            si[s, i, S_START] = fleets[s, i, 0]
            si[s, i, S_MASTS] = fleets[s, i, 0]
            si[s, i, S_HULL] = fleets[s, i, 1]
            si[s, i, S_HULL0] = fleets[s, i, 1]
            si[s, i, S_CREW] = fleets[s, i, 2]
            si[s, i, S_OARS] = fleets[s, i, 3]
            si[s, i, S_STATUS] = ST_AFLOAT if fleets[s, i, 0] > 0 else ST_ABSENT
    for i in range(eng.shape[0]):
        for j in range(eng.shape[1]):
            eng[i, j] = False
    # roll-off: the winner takes edge 0 (the table is symmetric; this only removes seat bias)
    a = rng.integers(1, 7)
    b = rng.integers(1, 7)
    while a == b:
        a = rng.integers(1, 7)
        b = rng.integers(1, 7)
    first = 0 if a > b else 1
    edges[first] = 0
    edges[1 - first] = 1
    w = rf[RF_W]
    dpt = rf[RF_D]
    depth = rf[RF_DEPLOY_DEPTH]
    for s in range(2):
        n = 0
        for i in range(n_ships):
            if si[s, i, S_STATUS] == ST_AFLOAT:
                n += 1
        k = 0
        for i in range(n_ships):
            if si[s, i, S_STATUS] != ST_AFLOAT:
                sf[s, i, F_X] = -1.0
                sf[s, i, F_Y] = -1.0
                continue
            k += 1
            if ri[RI_DEPLOY] == 0:
                sf[s, i, F_X] = depth if edges[s] == 0 else w - depth
                sf[s, i, F_Y] = dpt * k / (n + 1)
            else:
                sf[s, i, F_Y] = depth if edges[s] == 0 else dpt - depth
                sf[s, i, F_X] = w * k / (n + 1)
    tr[TR_STATE] = 0
    tr[TR_SIDE] = -1
    tr[TR_SHIP] = -1
    tr[TR_X] = rf[RF_TR_X]
    tr[TR_Y] = rf[RF_TR_Y]
    defender = -1
    if ri[RI_SCENARIO] == 2:
        mode = ri[RI_CONVOY_DEF]
        if mode == 1:
            defender = 0
        elif mode == 2:
            defender = 1
        else:
            a = rng.integers(1, 7)
            b = rng.integers(1, 7)
            while a == b:
                a = rng.integers(1, 7)
                b = rng.integers(1, 7)
            defender = 0 if a < b else 1
        # the defender's smallest ships (later ships first on ties) are the convoy
        for _ in range(ri[RI_CONVOY_N]):
            best = -1
            bm = 1 << 30
            for i in range(n_ships):
                if si[defender, i, S_STATUS] == ST_AFLOAT and si[defender, i, S_CONVOY] == 0:
                    if si[defender, i, S_START] <= bm:
                        bm = si[defender, i, S_START]
                        best = i
            if best >= 0:
                si[defender, best, S_CONVOY] = 1
                # the convoy ships start on their own line ([convoy].convoy_start_cm)
                start = rf[RF_CONVOY_START]
                if ri[RI_DEPLOY] == 0:
                    sf[defender, best, F_X] = start if edges[defender] == 0 else w - start
                else:
                    sf[defender, best, F_Y] = start if edges[defender] == 0 else dpt - start
    return defender, first


@njit(cache=True)
def play_battle(
    rng,
    prng,
    fleets,
    nations,
    kinds,
    params,
    ri,
    rf,
    move_cm,
    hit_on_cm,
    islands,
    si,
    obs,
    sf,
    eng,
    tr,
    edges,
    vp,
    act,
    trace,
    tn,
    out,
    pmft,
):
    """Play one battle; fill ``out`` (one row of :data:`OUT_COLUMNS`).

    ``obs`` (shaped like ``si``) receives each commander's observation before it decides;
    ``pmft`` is the admiral's table of volley odds (:func:`admiral.pmf_table`)."""
    defender, first = _setup(rng, si, sf, eng, tr, edges, fleets, ri, rf)
    for s in range(2):
        for k in range(3):
            vp[s, k] = 0
    n_ships = si.shape[1]
    max_turns = ri[RI_MAX_TURNS]
    turn = 0
    over = False
    while turn < max_turns and not over:
        turn += 1
        for s in range(2):
            for i in range(n_ships):
                si[s, i, S_CAPT_USED] = 0
                si[s, i, S_PIR_USED] = 0
                si[s, i, S_MUSK_USED] = 0
                si[s, i, S_GUN_USED] = 0
                si[s, i, S_CARP_USED] = 0
                si[s, i, S_ACTED] = 0
                si[s, i, S_REPAIRED] = 0
        a = rng.integers(1, 7)
        b = rng.integers(1, 7)
        while a == b:
            a = rng.integers(1, 7)
            b = rng.integers(1, 7)
        lead = 0 if a > b else 1
        _log(trace, tn, EV_INITIATIVE, turn, lead, 0, 0, 0, 0, 0)
        side = lead
        while True:
            # next ship to activate: side-by-side or alternate
            s = -1
            i = -1
            for pick in range(2):
                cand = side if pick == 0 else 1 - side
                for k in range(n_ships):
                    if si[cand, k, S_STATUS] == ST_AFLOAT and si[cand, k, S_ACTED] == 0:
                        s = cand
                        i = k
                        break
                if s >= 0:
                    break
            if s < 0:
                break
            si[s, i, S_ACTED] = 1
            _log(trace, tn, EV_ACTIVATE, turn, s, i, 0, 0, 0, 0)
            orders(
                act,
                kinds[s],
                params[s],
                si,
                obs,
                sf,
                eng,
                nations,
                s,
                i,
                ri,
                rf,
                hit_on_cm,
                islands,
                move_cm,
                tr,
                edges,
                prng,
                turn,
                pmft,
            )
            activate(
                rng,
                si,
                sf,
                nations,
                vp,
                tr,
                eng,
                edges,
                s,
                i,
                act,
                ri,
                rf,
                move_cm,
                hit_on_cm,
                islands,
                trace,
                tn,
                turn,
            )
            if ri[RI_END_IDLE] == 1 and (
                _side_idle(si, nations, np.int64(0), ri, move_cm)
                or _side_idle(si, nations, np.int64(1), ri, move_cm)
            ):
                over = True
                break
            if ri[RI_ACTIVATION] == 1:
                side = 1 - s
            else:
                side = s
    # treasure held at the end
    out[O_TREASURE] = -1
    if ri[RI_SCENARIO] == 1:
        out[O_TREASURE] = 2 if tr[TR_STATE] == 2 else 0
    if ri[RI_SCENARIO] == 1 and tr[TR_STATE] == 1:
        s = int(tr[TR_SIDE])
        if si[s, int(tr[TR_SHIP]), S_STATUS] == ST_AFLOAT:
            vp[s, VP_SCEN] += ri[RI_TR_HELD]
            out[O_TREASURE] = 1
            _log(trace, tn, EV_SCENARIO, turn, s, int(tr[TR_SHIP]), ri[RI_TR_HELD], 1, 0, 0)
    for s in range(2):
        out[O_VP0 + s] = vp[s, VP_MAST] + vp[s, VP_SINK] + vp[s, VP_SCEN]
        out[O_MVP0 + s] = vp[s, VP_MAST]
        out[O_SVP0 + s] = vp[s, VP_SINK]
        out[O_CVP0 + s] = vp[s, VP_SCEN]
        sunk = 0
        left = 0
        for i in range(n_ships):
            if si[1 - s, i, S_STATUS] == ST_SUNK:
                sunk += 1
            if si[s, i, S_STATUS] == ST_AFLOAT:
                left += si[s, i, S_MASTS]
        out[O_SUNK0 + s] = sunk
        out[O_LEFT0 + s] = left
    out[O_TURNS] = turn
    if out[O_VP0] > out[O_VP1]:
        out[O_RESULT] = 0
    elif out[O_VP1] > out[O_VP0]:
        out[O_RESULT] = 1
    else:
        out[O_RESULT] = 2
    out[O_DEF] = defender
    out[O_EDGE] = first
    exits = 0
    if defender >= 0:
        for i in range(n_ships):
            if si[defender, i, S_STATUS] == ST_EXITED:
                exits += 1
    out[O_EXITS] = exits


@njit(cache=True)
def play_many(
    rng, prng, n, fleets, nations, kinds, params, ri, rf, move_cm, hit_on_cm, islands, pmft
):
    """Play ``n`` battles of the same pairing; returns int64[n, N_OUT]."""
    n_ships = fleets.shape[1]
    si = np.zeros((2, n_ships, S_N), dtype=np.int64)
    obs = np.zeros((2, n_ships, S_N), dtype=np.int64)
    sf = np.zeros((2, n_ships, F_N), dtype=np.float64)
    eng = np.zeros((n_ships, n_ships), dtype=np.bool_)
    tr = np.zeros(TR_N, dtype=np.float64)
    edges = np.zeros(2, dtype=np.int64)
    vp = np.zeros((2, 3), dtype=np.int64)
    act = np.zeros(A_N, dtype=np.float64)
    trace = np.zeros((0, 8), dtype=np.float64)
    tn = np.zeros(1, dtype=np.int64)
    out = np.zeros((n, N_OUT), dtype=np.int64)
    for b in range(n):
        play_battle(
            rng,
            prng,
            fleets,
            nations,
            kinds,
            params,
            ri,
            rf,
            move_cm,
            hit_on_cm,
            islands,
            si,
            obs,
            sf,
            eng,
            tr,
            edges,
            vp,
            act,
            trace,
            tn,
            out[b],
            pmft,
        )
    return out


@njit(cache=True)
def play_traced(
    rng, prng, fleets, nations, kinds, params, ri, rf, move_cm, hit_on_cm, islands, max_events, pmft
):
    """Play one battle recording every event; returns (out row, trace, events, final ship state)."""
    n_ships = fleets.shape[1]
    si = np.zeros((2, n_ships, S_N), dtype=np.int64)
    obs = np.zeros((2, n_ships, S_N), dtype=np.int64)
    sf = np.zeros((2, n_ships, F_N), dtype=np.float64)
    eng = np.zeros((n_ships, n_ships), dtype=np.bool_)
    tr = np.zeros(TR_N, dtype=np.float64)
    edges = np.zeros(2, dtype=np.int64)
    vp = np.zeros((2, 3), dtype=np.int64)
    act = np.zeros(A_N, dtype=np.float64)
    trace = np.zeros((max_events, 8), dtype=np.float64)
    tn = np.zeros(1, dtype=np.int64)
    out = np.zeros(N_OUT, dtype=np.int64)
    play_battle(
        rng,
        prng,
        fleets,
        nations,
        kinds,
        params,
        ri,
        rf,
        move_cm,
        hit_on_cm,
        islands,
        si,
        obs,
        sf,
        eng,
        tr,
        edges,
        vp,
        act,
        trace,
        tn,
        out,
        pmft,
    )
    return out, trace, tn[0], si


@njit(cache=True)
def sample_volleys(rng, n, dice, hit_on, rerolls):
    """``n`` volleys through the engine's own roller (for the exact-odds tests)."""
    out = np.zeros(n, dtype=np.int64)
    for k in range(n):
        out[k], _ = roll_volley(rng, dice, hit_on, rerolls)
    return out


@njit(cache=True)
def sample_disengage(rng, n, start, masts, nation_cap, rules_cap):
    """``n`` disengagement rolls through the engine (for the exact-odds tests)."""
    si = np.zeros((1, 1, S_N), dtype=np.int64)
    si[0, 0, S_START] = start
    si[0, 0, S_MASTS] = masts
    na = np.zeros((1, 6), dtype=np.int64)
    na[0, NA_DIS_CAP] = nation_cap
    ri = np.zeros(64, dtype=np.int64)
    ri[RI_DIS_CAP] = rules_cap
    ok = 0
    d = disengage_difficulty(si, na, np.int64(0), np.int64(0), ri)
    for _ in range(n):
        if d <= 6 and rng.integers(1, 7) >= d:
            ok += 1
    return ok, d


@njit(cache=True)
def sample_boardings(rng, n, masts, crews, nation_dice, nation_rerolls, ri):
    """``n`` boarding rolls through the engine (for the exact-odds tests).

    ``masts``, ``crews``, ``nation_dice``, ``nation_rerolls``: length-2 arrays (boarder, defender).
    Returns boarder successes minus defender successes per boarding.
    """
    si = np.zeros((2, 1, S_N), dtype=np.int64)
    na = np.zeros((2, 6), dtype=np.int64)
    for s in range(2):
        si[s, 0, S_START] = max(masts[s], 1)
        si[s, 0, S_MASTS] = masts[s]
        si[s, 0, S_CREW] = crews[s]
        na[s, 5] = nation_dice[s]  # NA_BOARD_DICE
        na[s, NA_REROLLS] = nation_rerolls[s]
        na[s, NA_REROLL_BOARD] = 1
    out = np.zeros(n, dtype=np.int64)
    zero = np.int64(0)  # the boarder is ship (0, 0), the defender ship (1, 0)
    one = np.int64(1)
    for k in range(n):
        for s in range(2):
            si[s, 0, S_CAPT_USED] = 0
            si[s, 0, S_PIR_USED] = 0
            si[s, 0, S_MUSK_USED] = 0
        a = _boarding_roll(rng, si, na, zero, zero, ri, np.bool_(True))
        b = _boarding_roll(rng, si, na, one, zero, ri, ri[RI_DEF_ABIL] == 1)
        out[k] = a - b
    return out
