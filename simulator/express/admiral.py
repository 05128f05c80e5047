"""The admiral: a commander that weighs every action the rules give it (issue 14).

For each activation the admiral lists candidate end points (stay; eight headings at full and half
move; points on the line to each enemy at every range-band edge and just outside each enemy's
reach; the scenario objectives) and, at each point, every attack the rules allow there: fire at
any enemy before or after moving (whichever range is better), board an enemy it can reach, or no
attack; a Carpenter may repair instead; an engaged ship may fire at or board its partner, repair,
or try to disengage and sail to the best point. Every option is scored in victory points:

* **the attack**: the exact expected VP of the volley or boarding (the hits distribution of the
  ship's dice at the band's difficulty with its rerolls, hull points first, the sinking hit,
  Spain's bonus, convoy mast bonus), plus ``firepower`` VP per enemy mast removed (the dice that
  mast would fire later), plus scenario stakes: sinking the enemy treasure carrier, stopping a
  convoy ship that could still leave, taking the treasure in a boarding;
* **the exposure**: the expected VP the ship loses before it acts again, from every enemy that can
  reach it: an enemy that has not yet acted this turn surely fires first, one that has acted fires
  first next turn with probability 1/2 (the initiative roll; on the last turn, never). The enemy is
  assumed to move its whole public allowance toward the ship (plus ``margin_cm`` for a Helmsman the
  admiral cannot see) and fire its masts at the band it then reaches, with its nation's rerolls;
  its fire is shared among the admiral's ships within its reach (``split_threat``). A volley fired
  first at that enemy scales its threat by the masts it is expected to keep;
* **the opportunity**: ``opportunity`` times (the best strike the ship could make next turn from
  the point on an enemy that it would act before, minus the enemies' answer to it); a volley now
  at that enemy leaves less to strike later;
* **the approach**: ``aggression`` for closing on the nearest enemy (from across the table to
  alongside), for ships that can fire and have no errand; without it two admirals never meet;
* **the objectives**: the treasure (the designated fetcher gains ``treasure`` x the VP held at the
  end for picking it up, and part of it for closing in; the carrier gains for every cm toward home
  and the full home VP when it gets there), the convoy (a convoy ship that can still reach the far
  edge in the turns left gains ``convoy`` x the exit VP for leaving and part of it for every cm),
  each times the chance the errand survives the enemy's fire (a carrier sunk, a convoy ship left
  without masts);
* **the repair**: ``repair`` VP for a mast mended, scaled by the share of the game still to play.

The admiral reads only what a player at the table sees: positions, masts, hull points, nations and
who has acted; never the enemy's crews (assigned secretly, seed "Équipage") nor any die. All numbers
are declared with their ranges in ``[kinds.admiral]`` of the scenario.

Calls pass typed values where a literal would go (``np.bool_(False)``, ``np.int64(-1)``,
``float(a_next)``), so each compiled function compiles for one signature (see :mod:`core`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator.express.core import (
    A_ATTACK,
    A_DISENGAGE,
    A_DX,
    A_DY,
    A_ORDER,
    A_REPAIR,
    A_TARGET,
    ATTACK_BOARD,
    ATTACK_CANNON,
    ATTACK_NONE,
    CAPTAIN,
    F_X,
    F_Y,
    NA_BOARD_DICE,
    NA_EXTRA_VP_SINK,
    NA_MASTLESS_MOVE,
    NA_REROLL_BOARD,
    NA_REROLLS,
    RF_CONTACT,
    RF_D,
    RF_EXIT_ZONE,
    RF_TR_HOME_ZONE,
    RF_TR_PICKUP,
    RF_W,
    RI_BOARD_ON,
    RI_CAPT_BOARD,
    RI_CAPT_REROLLS,
    RI_CONVOY_EXIT_VP,
    RI_CONVOY_MAST_VP,
    RI_DEF_ABIL,
    RI_DEPLOY,
    RI_DIS_AUTO,
    RI_LOSS_PER_MAST,
    RI_MAX_TURNS,
    RI_OARS_CM,
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
    S_CONVOY,
    S_CREW,
    S_HULL,
    S_MASTS,
    S_OARS,
    S_PIR_USED,
    S_START,
    S_STATUS,
    ST_AFLOAT,
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
    edge_point,
    end_point,
    engaged_with,
    hit_on_range,
    is_engaged,
    line_of_fire,
    p_success,
    range_cm,
)

# ---- parameter slots of the admiral: params[P_*] (declared with ranges in [kinds.admiral])
P_EXPOSURE = 0  # weight of the VP the ship is expected to lose before it acts again
P_FIREPOWER = 1  # VP value of one mast beyond its VP: the dice it would fire later
P_OPPORTUNITY = 2  # weight of the best strike from the point next turn
P_MARGIN = 3  # cm added to every enemy's public move (an unseen Helmsman)
P_TREASURE = 4  # weight of the treasure stakes (x the scenario's VP)
P_CONVOY = 5  # weight of the convoy stakes (x the scenario's VP)
P_REPAIR = 6  # VP value of one mast mended at the start of the game (scaled by turns left)
P_BOARD_BIAS = 7  # VP added to every boarding option (0: exact value)
P_SPLIT = 8  # 1: an enemy's fire is shared among the ships within its reach
P_AGGRESSION = 9  # VP for closing on the nearest enemy across the whole table
N_ADMIRAL_PARAMS = 10

# ---- pmf table of a volley or boarding roll: PMF[n, h, r, x] = P(x successes) with n dice
# needing h+ (1 = automatic, 7 = impossible), up to r missed dice rerolled once
PMF_DICE = 16
PMF_REROLLS = 10

# ---- per-enemy working columns (ENEMY[k, E_*]) of one decision
E_ALIVE = 0  # 1: afloat
E_X = 1
E_Y = 2
E_THREAT = 3  # 1: it can fire at this ship before it acts again
E_REACH = 4  # its public move + margin (cm)
E_FIRST = 5  # probability it acts before this ship acts again
E_FOCUS = 6  # share of its fire this ship draws
E_NOW = 7  # d6 this ship needs to hit it from where it stands (7: no shot)
E_N = 8

NEG = -1e18
_R2 = 0.7071067811865476  # cos 45 degrees


@njit(cache=True)
def _binomial(out, n, p):
    for x in range(out.shape[0]):
        out[x] = 0.0
    out[0] = 1.0
    for _ in range(n):
        for k in range(n, 0, -1):
            out[k] = out[k] * (1.0 - p) + out[k - 1] * p
        out[0] *= 1.0 - p


@njit(cache=True)
def pmf_table():
    """``float64[PMF_DICE + 1, 8, PMF_REROLLS + 1, PMF_DICE + 1]``: successes of n dice at h+ with
    up to r misses rerolled once (the engine's ``roll_volley``; tested against brute force)."""
    t = np.zeros((PMF_DICE + 1, 8, PMF_REROLLS + 1, PMF_DICE + 1))
    first = np.zeros(PMF_DICE + 1)
    second = np.zeros(PMF_DICE + 1)
    for h in range(1, 8):
        p = p_success(h)
        for n in range(PMF_DICE + 1):
            _binomial(first, n, p)
            for r in range(PMF_REROLLS + 1):
                for x in range(n + 1):
                    if first[x] == 0.0:
                        continue
                    k = min(r, n - x)
                    _binomial(second, k, p)
                    for e in range(k + 1):
                        t[n, h, r, x + e] += first[x] * second[e]
    return t


@njit(cache=True)
def _loss_values(
    out, n, hull, masts, vp_hull, vp_mast, bonus, sink_vp, phi, sink_extra, bare_extra
):
    """VP to the shooter of x = 0..n hits (out[x]) on a ship with ``hull`` points and ``masts``.

    Hull points go first, then masts, then the sinking hit; extra hits are lost (notes 4, 5).
    ``phi`` per mast removed (its future dice), ``bare_extra`` once every mast is gone,
    ``sink_extra`` on the sinking hit.
    """
    hold = hull + masts
    for x in range(n + 1):
        h = min(x, hull)
        m = min(max(x - hull, 0), masts)
        v = h * vp_hull + m * vp_mast + (h + m) * bonus + phi * m
        if m == masts and masts > 0:
            v += bare_extra
        if x > hold:
            v += sink_vp + sink_extra
        out[x] = v


@njit(cache=True)
def _remaining(hull, masts, x):
    """Share of a ship's masts left after x hits (0 if it sank)."""
    if masts <= 0 or x > hull + masts:
        return 0.0
    m = min(max(x - hull, 0), masts)
    return (masts - m) / masts


@njit(cache=True)
def _public_allowance(si, na, o, k, ri, move_cm):
    """An enemy ship's move as its opponent can know it (no crew: a Helmsman is unseen)."""
    start = si[o, k, S_START]
    masts = si[o, k, S_MASTS]
    if masts > 0:
        base = move_cm[start] - ri[RI_LOSS_PER_MAST] * (start - masts)
        return max(base, 0)
    base = 0
    if si[o, k, S_OARS] == 1:
        base = ri[RI_OARS_CM]
    if na[o, NA_MASTLESS_MOVE] > base:
        base = na[o, NA_MASTLESS_MOVE]
    return base


@njit(cache=True)
def _threat_hit_on(d, reach, ri, hit_on_cm):
    """d6 an enemy at distance d needs after moving ``reach`` cm toward its target."""
    r = d - reach
    if r < 0.0:
        r = 0.0
    c = range_cm(r, ri)
    if c >= hit_on_cm.shape[0]:
        return 7
    return hit_on_cm[c]


@njit(cache=True)
def _board_value(pmft, ri, da, ra, db, rb, hull_a, masts_a, hull_b, masts_b, sink_a, sink_b, phi):
    """Exact boarding odds applied to VP: (expected VP swing to side a, P(a wins), P(b wins),
    expected share of b's masts left).

    Both sides roll their dice at the boarding difficulty with their rerolls; the winner removes
    the difference (hull points first) and sinks the loser when the sink rule allows (notes 7,
    decisions D6-D8). ``phi`` VP per mast removed on either side.
    """
    h = ri[RI_BOARD_ON]
    da = min(da, PMF_DICE)
    db = min(db, PMF_DICE)
    pa = pmft[da, h, min(ra, PMF_REROLLS)]
    pb = pmft[db, h, min(rb, PMF_REROLLS)]
    hold_a = hull_a + masts_a
    hold_b = hull_b + masts_b
    vp_mast = ri[RI_VP_MAST]
    vp_hull = ri[RI_VP_HULL]
    ev = 0.0
    p_win = 0.0
    p_lose = 0.0
    left = 0.0
    for a in range(da + 1):
        if pa[a] == 0.0:
            continue
        for b in range(db + 1):
            w = pa[a] * pb[b]
            if w == 0.0:
                continue
            if a == b:
                left += w
                continue
            if a > b:
                net = a - b
                lost = min(net, hold_b)
                lh = min(lost, hull_b)
                lm = lost - lh
                ev += w * (lh * vp_hull + lm * (vp_mast + phi))
                p_win += w
                sinks = (net > hold_b) if ri[RI_SINK_RULE] == 0 else (a > hold_b)
                if sinks and ri[RI_WINNER_SINKS] == 1:
                    ev += w * sink_a
                elif masts_b > 0:
                    left += w * (masts_b - lm) / masts_b
            else:
                net = b - a
                lost = min(net, hold_a)
                lh = min(lost, hull_a)
                lm = lost - lh
                ev -= w * (lh * vp_hull + lm * (vp_mast + phi))
                p_lose += w
                left += w
                sinks = (net > hold_a) if ri[RI_SINK_RULE] == 0 else (b > hold_a)
                if sinks and ri[RI_WINNER_SINKS] == 1:
                    ev -= w * sink_b
    return ev, p_win, p_lose, left


@njit(cache=True)
def _exposure(qx, qy, en, tt, tb, ri, hit_on_cm, ek):
    """Weighted expected VP lost at (qx, qy) before the next activation (ek[k] gets each enemy's
    term), and the chance the ship's errand is lost there."""
    tot = 0.0
    risk = 0.0
    for k in range(en.shape[0]):
        ek[k] = 0.0
        if en[k, E_THREAT] < 0.5:
            continue
        h = _threat_hit_on(dist(qx, qy, en[k, E_X], en[k, E_Y]), en[k, E_REACH], ri, hit_on_cm)
        if h >= 7:
            continue
        w = en[k, E_FIRST] * en[k, E_FOCUS]
        v = w * tt[k, h]
        ek[k] = v
        tot += v
        risk += w * tb[k, h]
    return tot, min(risk, 1.0)


@njit(cache=True)
def _objective(qx, qy, s, i, si, ri, rf, tr, edges, fetcher, stakes, turns_after, a_next):
    """Scenario value of ending the move at (qx, qy); also whether the ship leaves the table."""
    sc = ri[RI_SCENARIO]
    v = 0.0
    leaves = False
    errand = False
    if sc == 1:
        state = int(tr[TR_STATE])
        if state == 0 and fetcher == i:
            d = dist(qx, qy, tr[TR_X], tr[TR_Y])
            if d <= rf[RF_TR_PICKUP]:
                v += stakes[0]
            else:
                v += 0.5 * stakes[0] * max(0.0, 1.0 - d / (rf[RF_W] + rf[RF_D]))
        elif state == 1 and int(tr[TR_SIDE]) == s and int(tr[TR_SHIP]) == i:
            errand = True
            dh = dist_to_edge(edges[s], qx, qy, rf, ri, np.bool_(True))
            if dh <= rf[RF_TR_HOME_ZONE]:
                v += stakes[1]
            else:
                half = 0.5 * (rf[RF_W] if ri[RI_DEPLOY] == 0 else rf[RF_D])
                v += stakes[0] + (stakes[1] - stakes[0]) * max(0.0, 1.0 - dh / half)
    elif sc == 2 and si[s, i, S_CONVOY] == 1:
        errand = True
        df = dist_to_edge(edges[s], qx, qy, rf, ri, np.bool_(False))
        if df <= rf[RF_EXIT_ZONE]:
            v += stakes[2]
            leaves = True
        elif df - rf[RF_EXIT_ZONE] <= turns_after * a_next:
            span = rf[RF_W] if ri[RI_DEPLOY] == 0 else rf[RF_D]
            v += stakes[2] * max(0.0, 1.0 - df / span)
    return v, leaves, errand


@njit(cache=True)
def _clear(act, x, y):
    act[A_REPAIR] = 0.0
    act[A_ATTACK] = ATTACK_NONE
    act[A_ORDER] = 0.0
    act[A_TARGET] = -1.0
    act[A_DX] = x
    act[A_DY] = y
    act[A_DISENGAGE] = 0.0


@njit(cache=True)
def _toward(tx, ty, x, y, d):
    """The point at distance d from (tx, ty) on the ray toward (x, y)."""
    dd = dist(tx, ty, x, y)
    if dd <= 1e-9:
        return tx - d, ty
    return tx + (x - tx) / dd * d, ty + (y - ty) / dd * d


@njit(cache=True)
def _band_edges(hit_on_cm, out):
    """Whole-cm ranges where the d6 needed changes (the seed's 5, 10, ..., 30); returns count."""
    n = 0
    for c in range(1, hit_on_cm.shape[0] - 1):
        if hit_on_cm[c + 1] != hit_on_cm[c] and n < out.shape[0]:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def _max_points(n_ships, hit_on_cm):
    return 1 + 16 + n_ships * (1 + hit_on_cm.shape[0] + 3) + 4


@njit(cache=True)
def _fill_candidates(pts, x, y, allow, s, i, si, sf, en, ri, rf, hit_on_cm, tr, edges, fetcher):
    """Destinations worth scoring for ship (s, i); returns how many were written to ``pts``."""
    n = 0
    pts[n, 0] = x
    pts[n, 1] = y
    n += 1
    if allow <= 0:
        return n
    hx = 1.0
    hy = 0.0
    for _ in range(8):  # the eight headings, turning 45 degrees at a time
        pts[n, 0] = x + hx * allow
        pts[n, 1] = y + hy * allow
        n += 1
        hx, hy = (hx - hy) * _R2, (hx + hy) * _R2
    contact = rf[RF_CONTACT]
    edges_cm = np.zeros(hit_on_cm.shape[0])
    nb = _band_edges(hit_on_cm, edges_cm)
    for k in range(en.shape[0]):
        if en[k, E_ALIVE] < 0.5:
            continue
        kx = en[k, E_X]
        ky = en[k, E_Y]
        d = dist(x, y, kx, ky)
        if d <= allow + edges_cm[nb - 1] + 1.0:
            for b in range(-1, nb):
                r = contact + 1.0 if b < 0 else edges_cm[b] - 0.01
                if r <= contact:
                    continue
                if abs(d - r) <= allow:
                    px, py = _toward(kx, ky, x, y, r)
                    pts[n, 0] = px
                    pts[n, 1] = py
                    n += 1
        if en[k, E_THREAT] > 0.5 and d <= allow + en[k, E_REACH] + edges_cm[nb - 1] + 1.0:
            for b in (0, nb // 2 - 1, nb - 1):
                if b < 0:
                    continue
                r = en[k, E_REACH] + edges_cm[b] + 0.01
                if abs(d - r) <= allow:
                    px, py = _toward(kx, ky, x, y, r)
                    pts[n, 0] = px
                    pts[n, 1] = py
                    n += 1
    sc = ri[RI_SCENARIO]
    if sc == 1:
        if int(tr[TR_STATE]) == 0 and fetcher == i:
            pts[n, 0] = tr[TR_X]
            pts[n, 1] = tr[TR_Y]
            n += 1
        elif int(tr[TR_STATE]) == 1 and int(tr[TR_SIDE]) == s and int(tr[TR_SHIP]) == i:
            px, py = edge_point(edges[s], x, y, rf, ri, np.bool_(True))
            pts[n, 0] = px
            pts[n, 1] = py
            n += 1
    elif sc == 2 and si[s, i, S_CONVOY] == 1:
        px, py = edge_point(edges[s], x, y, rf, ri, np.bool_(False))
        pts[n, 0] = px
        pts[n, 1] = py
        n += 1
        # the far corners: around the enemy line
        for side in (0.0, 1.0):
            if ri[RI_DEPLOY] == 0:
                pts[n, 0] = px
                pts[n, 1] = side * rf[RF_D]
            else:
                pts[n, 0] = side * rf[RF_W]
                pts[n, 1] = py
            n += 1
    return n


@njit(cache=True)
def _scan(
    x,
    y,
    allow,
    can_fire,
    s,
    i,
    si,
    sf,
    en,
    ff,
    rr,
    tt,
    tb,
    ri,
    rf,
    hit_on_cm,
    islands,
    tr,
    edges,
    fetcher,
    stakes,
    turns_after,
    a_next,
    lam,
    psi,
    aggression,
    last_turn,
    my_dice,
    hq,
    ek,
    ov,
):
    """Score every candidate end point (and, if ``can_fire``, every volley from there or from
    where the ship stands). Returns (value, x, y, fire target or -1, fire first?)."""
    n_ships = en.shape[0]
    pts = np.zeros((_max_points(n_ships, hit_on_cm), 2))
    n_pts = _fill_candidates(
        pts, x, y, allow, s, i, si, sf, en, ri, rf, hit_on_cm, tr, edges, fetcher
    )
    contact = rf[RF_CONTACT]
    span = dist(0.0, 0.0, rf[RF_W], rf[RF_D])
    use_opp = psi > 0.0 and not last_turn and my_dice > 0
    best_v = NEG
    bx = x
    by = y
    b_tgt = -1
    b_first = False
    for c in range(n_pts):
        px = pts[c, 0]
        py = pts[c, 1]
        qx, qy, _m = end_point(x, y, px, py, allow, rf, islands)
        obj, leaves, errand = _objective(
            qx, qy, s, i, si, ri, rf, tr, edges, fetcher, stakes, turns_after, a_next
        )
        e = 0.0
        risk = 0.0  # chance the errand (treasure, convoy exit) is lost before the next activation
        opp = 0.0  # the best strike next turn (on enemy opp_k), and the best on any other enemy
        opp_k = -1
        opp2 = 0.0
        e_next = 0.0
        touches = False
        d_min = span
        for k in range(n_ships):
            ek[k] = 0.0
            hq[k] = 7
            if en[k, E_ALIVE] < 0.5:
                continue
            d = dist(qx, qy, en[k, E_X], en[k, E_Y])
            if d < d_min:
                d_min = d
            if d <= contact:
                touches = True
                break
            if leaves:
                continue
            if en[k, E_THREAT] > 0.5:
                h = _threat_hit_on(d, en[k, E_REACH], ri, hit_on_cm)
                if h < 7:
                    w = en[k, E_FIRST] * en[k, E_FOCUS]
                    v = w * tt[k, h]
                    ek[k] = v
                    e += v
                    risk += w * tb[k, h]
                    if use_opp:  # its answer to a strike this ship makes first next turn
                        e_next += (1.0 - en[k, E_FIRST]) * en[k, E_FOCUS] * tt[k, h]
            ov[k] = 0.0
            if use_opp and en[k, E_FIRST] < 1.0:
                h = _threat_hit_on(d, float(a_next), ri, hit_on_cm)
                if h < 7:
                    v = (1.0 - en[k, E_FIRST]) * ff[k, h]
                    ov[k] = v
                    if v > opp:
                        opp2 = opp
                        opp = v
                        opp_k = k
                    elif v > opp2:
                        opp2 = v
            if can_fire:
                r = range_cm(d, ri)
                if r < hit_on_cm.shape[0]:
                    h = hit_on_cm[r]
                    if islands.shape[0] > 0 and not line_of_fire(
                        qx, qy, en[k, E_X], en[k, E_Y], islands
                    ):
                        h = 7
                    hq[k] = h
        if touches:
            continue
        base = obj * max(0.0, 1.0 - risk) - lam * e + psi * (opp - lam * e_next)
        if not errand and my_dice > 0:  # a ship that can fire closes in; the rest need not
            base += aggression * (1.0 - d_min / span)
        if base > best_v:
            best_v = base
            bx = px
            by = py
            b_tgt = -1
            b_first = False
        if not can_fire:
            continue
        for k in range(n_ships):
            if en[k, E_ALIVE] < 0.5:
                continue
            hc = int(en[k, E_NOW])
            h = min(hc, hq[k])
            if h >= 7:
                continue
            # firing now leaves the target rr of its masts: less threat, and less to strike later
            later = max(opp2 if k == opp_k else opp, ov[k] * rr[k, h])
            v = base + ff[k, h] + lam * ek[k] * (1.0 - rr[k, h]) + psi * (later - opp)
            if v > best_v:
                best_v = v
                bx = px
                by = py
                b_tgt = k
                b_first = hc < hq[k]
    return best_v, bx, by, b_tgt, b_first


@njit(cache=True)
def _board_option(si, na, s, i, o, k, ri, pmft, phi, enemy_carrier, carrier_me, stakes):
    """(value, share of the enemy's masts it keeps) of ship (s, i) boarding (o, k); value -1e18
    when the ship rolls no dice. Public information only: the enemy's crews are unseen."""
    if si[s, i, S_MASTS] <= 0:
        return NEG, 1.0
    da = boarding_dice(si, na, s, i, ri)
    ra = 0
    if ri[RI_CAPT_BOARD] == 1 and si[s, i, S_CREW] == CAPTAIN and si[s, i, S_CAPT_USED] == 0:
        ra += ri[RI_CAPT_REROLLS]
    if na[s, NA_REROLL_BOARD] == 1 and si[s, i, S_PIR_USED] == 0:
        ra += na[s, NA_REROLLS]
    km = si[o, k, S_MASTS]
    db = 0
    rb = 0
    if km > 0:
        db = km
        if ri[RI_DEF_ABIL] == 1:
            db += na[o, NA_BOARD_DICE]
            if na[o, NA_REROLL_BOARD] == 1:
                rb = na[o, NA_REROLLS]
    ev, p_win, p_lose, left = _board_value(
        pmft,
        ri,
        da,
        ra,
        db,
        rb,
        si[s, i, S_HULL],
        si[s, i, S_MASTS],
        si[o, k, S_HULL],
        km,
        ri[RI_VP_SINK] + na[s, NA_EXTRA_VP_SINK],
        ri[RI_VP_SINK] + na[o, NA_EXTRA_VP_SINK],
        phi,
    )
    if k == enemy_carrier:
        ev += 2.0 * p_win * stakes[0]
    if carrier_me:
        ev -= 2.0 * p_lose * stakes[0]
    return ev, left


@njit(cache=True)
def admiral(
    act, params, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr, edges, turn, pmft
):
    """Fill ``act`` for ship i of side s (the state is read only; see the module docstring)."""
    o = 1 - s
    n_ships = si.shape[1]
    x = sf[s, i, F_X]
    y = sf[s, i, F_Y]
    phi = params[P_FIREPOWER]
    lam = params[P_EXPOSURE]
    psi = params[P_OPPORTUNITY]
    aggression = params[P_AGGRESSION]
    sc = ri[RI_SCENARIO]
    max_turns = ri[RI_MAX_TURNS]
    last_turn = turn >= max_turns
    turns_after = max_turns - turn
    contact = rf[RF_CONTACT]
    engaged = is_engaged(eng, s, i, si)
    my_masts = si[s, i, S_MASTS]
    my_hull = si[s, i, S_HULL]
    a_next = allowance(si, na, s, i, ri, move_cm, np.bool_(False))

    # ---- scenario stakes: [0] treasure held, [1] treasure home, [2] convoy exit (VP x weight)
    stakes = np.zeros(3)
    stakes[0] = params[P_TREASURE] * ri[RI_TR_HELD]
    stakes[1] = params[P_TREASURE] * ri[RI_TR_HOME]
    stakes[2] = params[P_CONVOY] * ri[RI_CONVOY_EXIT_VP]
    carrier_me = (
        sc == 1 and int(tr[TR_STATE]) == 1 and int(tr[TR_SIDE]) == s and int(tr[TR_SHIP]) == i
    )
    enemy_carrier = -1
    if sc == 1 and int(tr[TR_STATE]) == 1 and int(tr[TR_SIDE]) == o:
        enemy_carrier = int(tr[TR_SHIP])
    fetcher = np.int64(-1)
    if sc == 1 and int(tr[TR_STATE]) == 0:
        best_t = 1e18
        for k in range(n_ships):
            if si[s, k, S_STATUS] != ST_AFLOAT or is_engaged(eng, s, k, si):
                continue
            a = allowance(si, na, s, k, ri, move_cm, np.bool_(False))
            if a <= 0:
                continue
            d = dist(sf[s, k, F_X], sf[s, k, F_Y], tr[TR_X], tr[TR_Y])
            t = np.ceil(max(d - rf[RF_TR_PICKUP], 0.0) / a) + d * 1e-6
            if t < best_t:
                best_t = t
                fetcher = k

    # ---- the hits that end this ship's errand: a carrier (or the fetcher) loses the treasure
    # when it sinks, a convoy ship its exit when its last mast goes (unless it moves without)
    lose_at = si[s, i, S_HULL] + my_masts + 1
    if (
        sc == 2
        and si[s, i, S_CONVOY] == 1
        and na[s, NA_MASTLESS_MOVE] == 0
        and si[s, i, S_OARS] == 0
    ):
        lose_at -= 1
    my_bonus = ri[RI_CONVOY_MAST_VP] if (sc == 2 and si[s, i, S_CONVOY] == 1) else 0
    sink_by_me = ri[RI_VP_SINK] + na[s, NA_EXTRA_VP_SINK]
    sink_by_them = ri[RI_VP_SINK] + na[o, NA_EXTRA_VP_SINK]

    # ---- my volley and the enemy's, tabulated by the d6 needed (1..6)
    my_dice = cannon_dice(si, s, i, ri)
    my_rr = 0
    if si[s, i, S_CREW] == CAPTAIN and si[s, i, S_CAPT_USED] == 0:
        my_rr += ri[RI_CAPT_REROLLS]
    if si[s, i, S_PIR_USED] == 0:
        my_rr += na[s, NA_REROLLS]
    my_dice_t = min(my_dice, PMF_DICE)
    my_rr_t = min(my_rr, PMF_REROLLS)
    en = np.zeros((n_ships, E_N))
    ff = np.zeros((n_ships, 8))  # VP of my volley on enemy k at d6 h
    rr = np.ones((n_ships, 8))  # share of enemy k's masts left after it
    tt = np.zeros((n_ships, 8))  # VP I lose to enemy k's volley at d6 h
    tb = np.zeros((n_ships, 8))  # P(that volley ends this ship's errand)
    vals = np.zeros(PMF_DICE + 1)
    n_alive = 0
    for k in range(n_ships):
        if si[o, k, S_STATUS] != ST_AFLOAT:
            continue
        n_alive += 1
        en[k, E_ALIVE] = 1.0
        kx = sf[o, k, F_X]
        ky = sf[o, k, F_Y]
        en[k, E_X] = kx
        en[k, E_Y] = ky
        km = si[o, k, S_MASTS]
        kh = si[o, k, S_HULL]
        bonus = ri[RI_CONVOY_MAST_VP] if (sc == 2 and si[o, k, S_CONVOY] == 1) else 0
        sink_extra = stakes[0] if k == enemy_carrier else 0.0
        bare_extra = 0.0
        if sc == 2 and si[o, k, S_CONVOY] == 1 and na[o, NA_MASTLESS_MOVE] == 0:
            dk = dist_to_edge(edges[o], kx, ky, rf, ri, np.bool_(False))
            ak = _public_allowance(si, na, o, k, ri, move_cm)
            if dk - rf[RF_EXIT_ZONE] <= (turns_after + 1) * ak:
                bare_extra = stakes[2]
        _loss_values(
            vals,
            my_dice_t,
            kh,
            km,
            ri[RI_VP_HULL],
            ri[RI_VP_MAST],
            bonus,
            sink_by_me,
            phi,
            sink_extra,
            bare_extra,
        )
        for h in range(1, 7):
            pm = pmft[my_dice_t, h, my_rr_t]
            v = 0.0
            left = 0.0
            for xh in range(my_dice_t + 1):
                v += pm[xh] * vals[xh]
                left += pm[xh] * _remaining(kh, km, xh)
            ff[k, h] = v
            rr[k, h] = left
        en[k, E_NOW] = hit_on_range(x, y, kx, ky, ri, hit_on_cm, islands) if my_dice > 0 else 7
        # the threat it poses: it fires its masts (engaged: only at its partners)
        if km > 0 and (not is_engaged(eng, o, k, si) or engaged_with(eng, s, i, k)):
            en[k, E_THREAT] = 1.0
            _loss_values(
                vals,
                min(km, PMF_DICE),
                my_hull,
                my_masts,
                ri[RI_VP_HULL],
                ri[RI_VP_MAST],
                my_bonus,
                sink_by_them,
                phi,
                0.0,
                0.0,
            )
            kd = min(km, PMF_DICE)
            krr = min(na[o, NA_REROLLS], PMF_REROLLS)
            for h in range(1, 7):
                pm = pmft[kd, h, krr]
                v = 0.0
                lost = 0.0
                for xh in range(kd + 1):
                    v += pm[xh] * vals[xh]
                    if xh >= lose_at:
                        lost += pm[xh]
                tt[k, h] = v
                tb[k, h] = lost
        reach = _public_allowance(si, na, o, k, ri, move_cm)
        en[k, E_REACH] = reach + params[P_MARGIN] if reach > 0 else 0.0
        if si[o, k, S_ACTED] == 0:
            en[k, E_FIRST] = 1.0
        else:
            en[k, E_FIRST] = 0.0 if last_turn else 0.5
        en[k, E_FOCUS] = 1.0
        if params[P_SPLIT] > 0.5:
            n_in = 1
            for m in range(n_ships):
                if m == i or si[s, m, S_STATUS] != ST_AFLOAT:
                    continue
                if dist(sf[s, m, F_X], sf[s, m, F_Y], kx, ky) <= en[k, E_REACH] + 10.0:
                    n_in += 1
            en[k, E_FOCUS] = 1.0 / n_in
    _clear(act, x, y)
    if n_alive == 0:
        return
    ek = np.zeros(n_ships)
    ov = np.zeros(n_ships)
    repair_ok = can_repair(si, s, i, ri, engaged)
    repair_v = 0.0
    if repair_ok:
        repair_v = params[P_REPAIR] * (turns_after + 1) / max_turns
        if my_masts == 0:
            repair_v *= 2.0

    # ---- engaged: fire at / board a partner, repair, or try to disengage and sail away
    # closing on the enemy (``aggression``) counts for every ship without an errand; here for the
    # options that end beside an enemy (staying engaged, boarding)
    errand_me = carrier_me or (sc == 2 and si[s, i, S_CONVOY] == 1) or my_dice <= 0
    beside = 0.0 if errand_me else aggression * (1.0 - contact / dist(0.0, 0.0, rf[RF_W], rf[RF_D]))
    if engaged:
        e0, risk0 = _exposure(x, y, en, tt, tb, ri, hit_on_cm, ek)
        obj0, _lv, _er = _objective(
            x, y, s, i, si, ri, rf, tr, edges, fetcher, stakes, turns_after, a_next
        )
        stay = obj0 * (1.0 - risk0) + beside - lam * e0  # staying engaged, doing nothing
        best_v = stay
        kind = 0  # 0 nothing, 1 fire, 2 board, 3 repair, 4 disengage
        target = -1
        for k in range(n_ships):
            if en[k, E_ALIVE] < 0.5 or not engaged_with(eng, s, i, k):
                continue
            h = int(en[k, E_NOW])
            if my_dice > 0 and h < 7:
                v = stay + lam * ek[k] * (1.0 - rr[k, h]) + ff[k, h]
                if v > best_v:
                    best_v = v
                    kind = 1
                    target = k
            bv, left = _board_option(
                si, na, s, i, o, k, ri, pmft, phi, enemy_carrier, carrier_me, stakes
            )
            if bv > NEG:
                v = stay + bv + params[P_BOARD_BIAS] + lam * ek[k] * (1.0 - left)
                if v > best_v:
                    best_v = v
                    kind = 2
                    target = k
        if repair_ok and stay + repair_v > best_v:
            best_v = stay + repair_v
            kind = 3
        if a_next > 0:
            # disengagement: automatic if every engaged enemy is mastless (seed)
            auto = ri[RI_DIS_AUTO] == 1
            for k in range(n_ships):
                if en[k, E_ALIVE] > 0.5 and engaged_with(eng, s, i, k) and si[o, k, S_MASTS] > 0:
                    auto = False
            p_ok = 1.0 if auto else p_success(disengage_difficulty(si, na, s, i, ri))
            if p_ok > 0.0:
                hq = np.zeros(n_ships, dtype=np.int64)
                mv, mx, my, _t, _f = _scan(
                    x,
                    y,
                    a_next,
                    np.bool_(False),
                    s,
                    i,
                    si,
                    sf,
                    en,
                    ff,
                    rr,
                    tt,
                    tb,
                    ri,
                    rf,
                    hit_on_cm,
                    islands,
                    tr,
                    edges,
                    fetcher,
                    stakes,
                    turns_after,
                    a_next,
                    lam,
                    psi,
                    aggression,
                    last_turn,
                    my_dice,
                    hq,
                    ek,
                    ov,
                )
                v = p_ok * mv + (1.0 - p_ok) * stay
                if v > best_v:
                    best_v = v
                    kind = 4
                    act[A_DX] = mx
                    act[A_DY] = my
        if kind == 1:
            act[A_ATTACK] = ATTACK_CANNON
            act[A_TARGET] = target
        elif kind == 2:
            act[A_ATTACK] = ATTACK_BOARD
            act[A_TARGET] = target
        elif kind == 3:
            act[A_REPAIR] = 1.0
        elif kind == 4:
            act[A_DISENGAGE] = 1.0
        return

    # ---- free: every end point with every attack, or the repair
    allow = a_next
    best_v = NEG
    bx = x
    by = y
    b_att = ATTACK_NONE
    b_tgt = -1
    b_order = 0.0
    hq = np.zeros(n_ships, dtype=np.int64)
    best_v, bx, by, b_tgt, first = _scan(
        x,
        y,
        allow,
        my_dice > 0,
        s,
        i,
        si,
        sf,
        en,
        ff,
        rr,
        tt,
        tb,
        ri,
        rf,
        hit_on_cm,
        islands,
        tr,
        edges,
        fetcher,
        stakes,
        turns_after,
        a_next,
        lam,
        psi,
        aggression,
        last_turn,
        my_dice,
        hq,
        ek,
        ov,
    )
    if b_tgt >= 0:
        b_att = ATTACK_CANNON
        b_order = 1.0 if first else 0.0
    # boarding: sail into contact with a reachable enemy
    if my_masts > 0 and allow > 0:
        for k in range(n_ships):
            if en[k, E_ALIVE] < 0.5:
                continue
            kx = en[k, E_X]
            ky = en[k, E_Y]
            if dist(x, y, kx, ky) > allow + contact - 1e-9:
                continue
            qx, qy, _m = end_point(x, y, kx, ky, allow, rf, islands)
            if dist(qx, qy, kx, ky) > contact:
                continue  # an island in the way
            bv, left = _board_option(
                si, na, s, i, o, k, ri, pmft, phi, enemy_carrier, carrier_me, stakes
            )
            if bv <= NEG:
                continue
            e, risk = _exposure(qx, qy, en, tt, tb, ri, hit_on_cm, ek)
            obj, _lv, _er = _objective(
                qx, qy, s, i, si, ri, rf, tr, edges, fetcher, stakes, turns_after, a_next
            )
            v = obj * (1.0 - risk) + bv + params[P_BOARD_BIAS]
            v += beside - lam * (e - ek[k] * (1.0 - left))
            if v > best_v:
                best_v = v
                bx = kx
                by = ky
                b_att = ATTACK_BOARD
                b_tgt = k
                b_order = 0.0
    # the Carpenter's repair: no attack, a shorter move
    if repair_ok:
        a_rep = allowance(si, na, s, i, ri, move_cm, np.bool_(True))
        hq = np.zeros(n_ships, dtype=np.int64)
        mv, mx, my, _t, _f = _scan(
            x,
            y,
            a_rep,
            np.bool_(False),
            s,
            i,
            si,
            sf,
            en,
            ff,
            rr,
            tt,
            tb,
            ri,
            rf,
            hit_on_cm,
            islands,
            tr,
            edges,
            fetcher,
            stakes,
            turns_after,
            a_next,
            lam,
            psi,
            aggression,
            last_turn,
            my_dice,
            hq,
            ek,
            ov,
        )
        if mv + repair_v > best_v:
            best_v = mv + repair_v
            act[A_REPAIR] = 1.0
            bx = mx
            by = my
            b_att = ATTACK_NONE
            b_tgt = -1
            b_order = 0.0
    act[A_DX] = bx
    act[A_DY] = by
    act[A_ATTACK] = b_att
    act[A_TARGET] = b_tgt
    act[A_ORDER] = b_order
