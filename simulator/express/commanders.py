"""Commanders: the policies that choose each ship's activation (issue 5, item 4).

A commander sees what a player at the table sees (:func:`orders` hands it :func:`core.observe`'s
view: the enemy's crews stay hidden until first used, decision D23) and fills one action
(:data:`core.A_*` slots): repair or not, attack kind and target, order of move and attack,
destination, disengage. It never changes the state; the engine (:mod:`simulator.express.battle`)
checks and applies the action and rolls every die. Each commander is a frozen dataclass with
parameters (a strategy of the scenario: ``[strategies.*]`` names a ``[kinds.*]`` and its values)
that packs into ``(kind, params)`` for the compiled engine:

* ``gunline``  — picks the enemy ship and range band that maximise its expected hits minus
  ``enemy_weight`` times that ship's expected hits back (a duel value; ties go to the closer range,
  so an even duel is fought, not avoided), holds that range, and fires before or after moving,
  whichever gives the better shot. The enemy's dice are its masts, plus its Gunner's die only once
  that Gunner has been revealed (a hidden crew counts as none). With ``keep_line`` a ship that has
  no shot this turn does not run ahead of the slowest ship of its fleet (the line arrives in range
  together).
* ``boarder``  — closes and boards when the exact expected VP swing of the boarding (VP scored minus
  VP conceded, over both sides' success distributions) is at least ``min_edge``; otherwise closes
  and fires. The defender's Musketeer and Captain count only once revealed (a hidden crew counts
  as none).
* ``skirmisher`` — focus-fires the weakest enemy ship from ``stand_off_cm``; disengages when its
  masts trail the engaged enemy's by more than ``losing_margin``.
* ``random``   — a random legal action (its own generator, never the engine's dice).
* ``admiral``  — scores every move, volley, boarding, repair and disengagement in expected VP
  (:mod:`simulator.express.admiral`); it plays the objectives through the same scores.

The first four (kept as they were, except that ``gunline`` and ``boarder`` no longer see the
enemy's hidden crews, issue 27) play the scenario objective first
(treasure: the nearest ship fetches the token, the carrier runs home; convoy: convoy ships run for
the far edge, attackers target convoy ships). A Carpenter repairs a mastless ship, or one that has
lost ``repair_at_lost`` masts when the repair costs no shot this turn (``random``: with a
probability whenever allowed).

The compiled policies pass typed values where a literal would go (``np.bool_(False)``,
``np.int64(-1)``, ``float(allow)``), so each compiles for one signature (see :mod:`core`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from scenarios.strategies import resolve_params, root_kind, unknown_name_message
from simulator.errors import UserError
from simulator.express.admiral import N_ADMIRAL_PARAMS, admiral
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
    NA_EXTRA_VP_SINK,
    NA_REROLL_BOARD,
    NA_REROLLS,
    RF_CONTACT,
    RF_D,
    RF_W,
    RI_BOARD_ON,
    RI_CAPT_BOARD,
    RI_CAPT_REROLLS,
    RI_DEF_ABIL,
    RI_SCENARIO,
    RI_SINK_RULE,
    RI_VP_MAST,
    RI_VP_SINK,
    RI_WINNER_SINKS,
    S_CAPT_USED,
    S_CONVOY,
    S_CREW,
    S_HULL,
    S_MASTS,
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
    dist,
    edge_point,
    engaged_with,
    hit_on_range,
    is_engaged,
    observe,
    p_success,
)
from simulator.express.rules import COMMANDER_NAMES, KIND_PARAMS, ExpressRules

GUNLINE, BOARDER, SKIRMISHER, RANDOM, ADMIRAL = 0, 1, 2, 3, 4
#: width of every commander's packed parameter vector (the admiral uses the most)
N_PARAMS = 12
assert N_ADMIRAL_PARAMS <= N_PARAMS


def _packed(values) -> np.ndarray:
    """A commander's parameters as the engine's float64[N_PARAMS] (unused slots 0)."""
    out = np.zeros(N_PARAMS, dtype=np.float64)
    out[: len(values)] = values
    return out


class _Packs:
    """Mixin: pack the fields named in ``rules.KIND_PARAMS`` (engine order) into float64."""

    __slots__ = ()

    def params(self) -> np.ndarray:
        names = KIND_PARAMS[COMMANDER_NAMES[self.kind]]
        return _packed([float(getattr(self, p)) for p in names])


@dataclass(frozen=True, slots=True)
class Gunline(_Packs):
    enemy_weight: float = 1.0
    repair_at_lost: int = 2
    keep_line: bool = True
    name: str = ""  # the strategy it was made from ("" : the kind's name)
    kind = GUNLINE


@dataclass(frozen=True, slots=True)
class Boarder(_Packs):
    min_edge: float = 0.0
    repair_at_lost: int = 2
    name: str = ""
    kind = BOARDER


@dataclass(frozen=True, slots=True)
class Skirmisher(_Packs):
    stand_off_cm: float = 12.0
    losing_margin: int = 0
    repair_at_lost: int = 1
    name: str = ""
    kind = SKIRMISHER


@dataclass(frozen=True, slots=True)
class RandomCommander(_Packs):
    board_probability: float = 0.5
    repair_probability: float = 0.5
    disengage_probability: float = 0.3
    name: str = ""
    kind = RANDOM


@dataclass(frozen=True, slots=True)
class Admiral(_Packs):
    """The admiral (:mod:`simulator.express.admiral`): every action scored in VP. The defaults are
    those of ``[kinds.admiral]`` in the standard scenario (a test keeps them equal)."""

    exposure: float = 0.66
    firepower: float = 3.0
    opportunity: float = 0.1
    margin_cm: float = 0.0
    treasure: float = 1.0
    convoy: float = 1.0
    repair: float = 1.0
    board_bias: float = 0.0
    split_threat: bool = True
    aggression: float = 10.0
    name: str = ""
    kind = ADMIRAL


Commander = Gunline | Boarder | Skirmisher | RandomCommander | Admiral
_CLASSES = {
    "gunline": Gunline,
    "boarder": Boarder,
    "skirmisher": Skirmisher,
    "random": RandomCommander,
    "admiral": Admiral,
}


def make_commander(name: str, rules: ExpressRules) -> Commander:
    """The commander of strategy ``name`` (``[strategies.NAME]``: its kind with every parameter
    resolved from ``[kinds.*]``)."""
    strat = rules.strategies.get(name)
    if strat is None:
        raise UserError(
            f"--commanders: {unknown_name_message('commander', name, rules.strategies)}"
        )
    values = resolve_params(rules.kinds, strat, f"strategies.{name}")
    cls = _CLASSES[root_kind(rules.kinds, strat.kind)]
    return cls(**values, name=name)


def parse_commanders(text: str | None, rules: ExpressRules) -> tuple[Commander, Commander]:
    """``"gunline,boarder"`` (one name: both sides) into two commanders; None: ``default_mix``."""
    if text is None or not text.strip():
        names = list(rules.default_mix)
    else:
        names = [t.strip().lower() for t in text.split(",") if t.strip()]
        if len(names) == 1:
            names = names * 2
        if len(names) != 2:
            raise UserError(
                f"--commanders {text!r}: give one name or two separated by a comma "
                f"(allowed: {', '.join(rules.strategies)})"
            )
    return make_commander(names[0], rules), make_commander(names[1], rules)


def commander_name(c: Commander) -> str:
    """The strategy name a commander was made from (its kind's name if made directly)."""
    return c.name or COMMANDER_NAMES[c.kind]


# ----------------------------------------------------------------------------------------------
# Compiled policies


@njit(cache=True)
def _clear(act, sf, s, i):
    act[A_REPAIR] = 0.0
    act[A_ATTACK] = ATTACK_NONE
    act[A_ORDER] = 0.0
    act[A_TARGET] = -1.0
    act[A_DX] = sf[s, i, F_X]
    act[A_DY] = sf[s, i, F_Y]
    act[A_DISENGAGE] = 0.0


@njit(cache=True)
def _reach(x, y, px, py, allow):
    """Where a ship at (x, y) ends moving straight toward (px, py) with this allowance."""
    d = dist(x, y, px, py)
    if d <= allow or d <= 1e-12:
        return px, py
    f = allow / d
    return x + (px - x) * f, y + (py - y) * f


@njit(cache=True)
def _clamp(x, y, rf):
    return min(max(x, 0.0), rf[RF_W]), min(max(y, 0.0), rf[RF_D])


@njit(cache=True)
def _toward(tx, ty, x, y, d):
    """The point at distance d from (tx, ty) on the ray toward (x, y)."""
    dd = dist(tx, ty, x, y)
    if dd <= 1e-9:
        return tx - d, ty
    return tx + (x - tx) / dd * d, ty + (y - ty) / dd * d


@njit(cache=True)
def _nearest_enemy(si, sf, s, x, y, pref_convoy):
    o = 1 - s
    best = -1
    bd = 1e18
    for j in range(si.shape[1]):
        if si[o, j, S_STATUS] != ST_AFLOAT:
            continue
        d = dist(x, y, sf[o, j, F_X], sf[o, j, F_Y])
        if pref_convoy and si[o, j, S_CONVOY] == 1:
            d -= 1000.0
        if d < bd:
            bd = d
            best = j
    return best


@njit(cache=True)
def _weakest_enemy(si, sf, s, x, y):
    o = 1 - s
    best = -1
    bk = 1e18
    for j in range(si.shape[1]):
        if si[o, j, S_STATUS] != ST_AFLOAT:
            continue
        k = (si[o, j, S_MASTS] + si[o, j, S_HULL]) * 1000.0 + dist(
            x, y, sf[o, j, F_X], sf[o, j, F_Y]
        )
        if k < bk:
            bk = k
            best = j
    return best


@njit(cache=True)
def _engaged_enemy(si, eng, s, i):
    """The engaged afloat enemy with the fewest masts + hull points, or -1."""
    o = 1 - s
    best = -1
    bk = 1 << 30
    for j in range(si.shape[1]):
        if si[o, j, S_STATUS] != ST_AFLOAT or not engaged_with(eng, s, i, j):
            continue
        k = si[o, j, S_MASTS] + si[o, j, S_HULL]
        if k < bk:
            bk = k
            best = j
    return best


@njit(cache=True)
def _has_shot(si, sf, na, s, i, ri, move_cm, hit_on_cm):
    """Could this ship fire at some enemy this activation (in contact, or within move + range)?"""
    if si[s, i, S_MASTS] <= 0:
        return False
    reach = allowance(si, na, s, i, ri, move_cm, np.bool_(False)) + hit_on_cm.shape[0] - 2
    o = 1 - s
    for j in range(si.shape[1]):
        if (
            si[o, j, S_STATUS] == ST_AFLOAT
            and dist(sf[s, i, F_X], sf[s, i, F_Y], sf[o, j, F_X], sf[o, j, F_Y]) <= reach
        ):
            return True
    return False


@njit(cache=True)
def _want_repair(si, sf, na, s, i, ri, move_cm, hit_on_cm, engaged, repair_at_lost):
    """The Carpenter repairs a mastless ship, or one that lost ``repair_at_lost`` masts when the
    repair costs no shot (no enemy within its move plus the longest range)."""
    if not can_repair(si, s, i, ri, engaged):
        return False
    if si[s, i, S_MASTS] == 0:
        return True
    lost = si[s, i, S_START] - si[s, i, S_MASTS]
    return lost >= repair_at_lost and not _has_shot(si, sf, na, s, i, ri, move_cm, hit_on_cm)


@njit(cache=True)
def _fire_order(act, sf, s, i, o, j, qx, qy, ri, hit_on_cm, islands):
    """Fire before moving if the current position gives the better shot."""
    tx = sf[o, j, F_X]
    ty = sf[o, j, F_Y]
    now = hit_on_range(sf[s, i, F_X], sf[s, i, F_Y], tx, ty, ri, hit_on_cm, islands)
    after = hit_on_range(qx, qy, tx, ty, ri, hit_on_cm, islands)
    act[A_ORDER] = 1.0 if now < after else 0.0


@njit(cache=True)
def _retreat(act, si, sf, s, i, allow, rf):
    """Destination straight away from the nearest enemy."""
    x = sf[s, i, F_X]
    y = sf[s, i, F_Y]
    j = _nearest_enemy(si, sf, s, x, y, np.bool_(False))
    if j < 0:
        return
    ex = sf[1 - s, j, F_X]
    ey = sf[1 - s, j, F_Y]
    px, py = _toward(x, y, 2 * x - ex, 2 * y - ey, float(allow))
    px, py = _clamp(px, py, rf)
    act[A_DX] = px
    act[A_DY] = py


@njit(cache=True)
def _objective(
    act, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr, edges, repairing
):
    """Scenario objective moves. Returns 1 if it set the action."""
    sc = ri[RI_SCENARIO]
    x = sf[s, i, F_X]
    y = sf[s, i, F_Y]
    if sc == 0 or is_engaged(eng, s, i, si):
        return 0
    allow = allowance(si, na, s, i, ri, move_cm, repairing)
    px = x
    py = y
    go = False
    if sc == 1:
        if tr[TR_STATE] == 1 and int(tr[TR_SIDE]) == s and int(tr[TR_SHIP]) == i:
            px, py = edge_point(edges[s], x, y, rf, ri, np.bool_(True))
            go = True
        elif tr[TR_STATE] == 0:
            # the nearest of my ships that can move fetches the token
            best = -1
            bd = 1e18
            for k in range(si.shape[1]):
                if si[s, k, S_STATUS] != ST_AFLOAT or is_engaged(eng, s, k, si):
                    continue
                if allowance(si, na, s, k, ri, move_cm, np.bool_(False)) <= 0:
                    continue
                d = dist(sf[s, k, F_X], sf[s, k, F_Y], tr[TR_X], tr[TR_Y])
                if d < bd:
                    bd = d
                    best = k
            if best == i:
                px = tr[TR_X]
                py = tr[TR_Y]
                go = True
    elif sc == 2 and si[s, i, S_CONVOY] == 1:
        px, py = edge_point(edges[s], x, y, rf, ri, np.bool_(False))
        go = True
    if not go:
        return 0
    qx, qy = _reach(x, y, px, py, allow)
    act[A_DX] = px
    act[A_DY] = py
    if not repairing:
        j = _nearest_enemy(si, sf, s, qx, qy, np.bool_(True))
        if j >= 0 and cannon_dice(si, s, i, ri) > 0:
            act[A_ATTACK] = ATTACK_CANNON
            act[A_TARGET] = j
            _fire_order(act, sf, s, i, 1 - s, j, qx, qy, ri, hit_on_cm, islands)
    return 1


@njit(cache=True)
def _preferred_target(si, sf, s, x, y, ri, tr):
    """Objective target: the enemy treasure carrier, or the nearest convoy ship; -1 if none."""
    sc = ri[RI_SCENARIO]
    if sc == 1 and tr[TR_STATE] == 1 and int(tr[TR_SIDE]) == 1 - s:
        j = int(tr[TR_SHIP])
        if si[1 - s, j, S_STATUS] == ST_AFLOAT:
            return j
    if sc == 2:
        j = _nearest_enemy(si, sf, s, x, y, np.bool_(True))
        if j >= 0 and si[1 - s, j, S_CONVOY] == 1:
            return j
    return -1


@njit(cache=True)
def _gunline(act, params, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr):
    o = 1 - s
    x = sf[s, i, F_X]
    y = sf[s, i, F_Y]
    engaged = is_engaged(eng, s, i, si)
    repairing = _want_repair(si, sf, na, s, i, ri, move_cm, hit_on_cm, engaged, int(params[1]))
    if repairing:
        act[A_REPAIR] = 1.0
    if engaged:
        j = _engaged_enemy(si, eng, s, i)
        if si[s, i, S_MASTS] == 0 and not repairing:
            act[A_DISENGAGE] = 1.0
            _retreat(act, si, sf, s, i, allowance(si, na, s, i, ri, move_cm, np.bool_(False)), rf)
        elif not repairing and j >= 0:
            act[A_ATTACK] = ATTACK_CANNON
            act[A_TARGET] = j
        return
    pref = _preferred_target(si, sf, s, x, y, ri, tr)
    allow = allowance(si, na, s, i, ri, move_cm, repairing)
    dice = cannon_dice(si, s, i, ri)
    contact = rf[RF_CONTACT]
    # duel value of each (target, range): own expected hits - weight x the target's expected hits
    # at that range; ties go to the closer range (the gunline closes when the duel is even)
    best_v = -1e18
    bj = np.int64(-1)
    bpx = x
    bpy = y
    for j in range(si.shape[1]):
        if si[o, j, S_STATUS] != ST_AFLOAT:
            continue
        if pref >= 0 and j != pref:
            continue
        tx = sf[o, j, F_X]
        ty = sf[o, j, F_Y]
        their = cannon_dice(si, o, j, ri)
        if islands.shape[0] == 0:
            # open sea: the value is (dice - w x their) x p(range) and p falls with range, so the
            # best band is the closest when that factor is >= 0 and out of range otherwise
            coef = dice - params[0] * their
            d = contact + 1.5 if coef >= 0.0 else hit_on_cm.shape[0] - 1.5  # just out of range
            px, py = _toward(tx, ty, x, y, d)
            px, py = _clamp(px, py, rf)
            h = hit_on_range(px, py, tx, ty, ri, hit_on_cm, islands)
            v = coef * p_success(h) - 1e-6 * dist(x, y, tx, ty)
            if v > best_v + 1e-9:
                best_v = v
                bj = j
                bpx = px
                bpy = py
            continue
        for k in range(9):
            d = contact + 1.5 + 4.0 * k if k < 8 else 40.0
            px, py = _toward(tx, ty, x, y, d)
            px, py = _clamp(px, py, rf)
            h = hit_on_range(px, py, tx, ty, ri, hit_on_cm, islands)
            v = (dice - params[0] * their) * p_success(h)
            v -= 1e-6 * dist(x, y, tx, ty)  # nearer targets first on ties
            if v > best_v + 1e-9:
                best_v = v
                bj = j
                bpx = px
                bpy = py
    if bj < 0:
        return
    qx, qy = _reach(x, y, bpx, bpy, allow)
    if params[2] > 0.5 and not _has_shot(si, sf, na, s, i, ri, move_cm, hit_on_cm):
        # line discipline: with no shot this turn, do not end closer to the enemy than the
        # laggard of the fleet can get (ships arrive in range together)
        front = 0.0
        for k in range(si.shape[1]):
            if si[s, k, S_STATUS] != ST_AFLOAT or k == i or is_engaged(eng, s, k, si):
                continue
            jk = _nearest_enemy(si, sf, s, sf[s, k, F_X], sf[s, k, F_Y], np.bool_(False))
            if jk < 0:
                continue
            dk = dist(sf[s, k, F_X], sf[s, k, F_Y], sf[o, jk, F_X], sf[o, jk, F_Y])
            dk -= allowance(si, na, s, k, ri, move_cm, np.bool_(False))
            if dk > front:
                front = dk
        tx = sf[o, bj, F_X]
        ty = sf[o, bj, F_Y]
        if dist(qx, qy, tx, ty) < front and dist(x, y, tx, ty) > front:
            px, py = _toward(tx, ty, x, y, front)
            qx, qy = _reach(x, y, px, py, allow)
            bpx = qx
            bpy = qy
    act[A_DX] = bpx
    act[A_DY] = bpy
    if repairing or dice <= 0:
        return
    # fire at the chosen enemy, or at whichever enemy gives the best shot if it is out of reach
    j = bj
    hn = hit_on_range(x, y, sf[o, j, F_X], sf[o, j, F_Y], ri, hit_on_cm, islands)
    ha = hit_on_range(qx, qy, sf[o, j, F_X], sf[o, j, F_Y], ri, hit_on_cm, islands)
    if min(hn, ha) >= 7:
        bh = 7
        for k in range(si.shape[1]):
            if si[o, k, S_STATUS] != ST_AFLOAT:
                continue
            h = min(
                hit_on_range(x, y, sf[o, k, F_X], sf[o, k, F_Y], ri, hit_on_cm, islands),
                hit_on_range(qx, qy, sf[o, k, F_X], sf[o, k, F_Y], ri, hit_on_cm, islands),
            )
            if h < bh:
                bh = h
                j = k
    act[A_ATTACK] = ATTACK_CANNON
    act[A_TARGET] = j
    _fire_order(act, sf, s, i, o, j, qx, qy, ri, hit_on_cm, islands)


@njit(cache=True)
def _successes_pmf(n, p, rerolls):
    """Exact pmf of successes of n dice at probability p, up to ``rerolls`` misses rerolled once."""
    first = np.zeros(n + 1)
    first[0] = 1.0
    for _ in range(n):
        for k in range(n, 0, -1):
            first[k] = first[k] * (1.0 - p) + first[k - 1] * p
        first[0] *= 1.0 - p
    out = np.zeros(n + 1)
    for h in range(n + 1):
        if first[h] == 0.0:
            continue
        r = min(rerolls, n - h)
        second = np.zeros(r + 1)
        second[0] = 1.0
        for _ in range(r):
            for k in range(r, 0, -1):
                second[k] = second[k] * (1.0 - p) + second[k - 1] * p
            second[0] *= 1.0 - p
        for e in range(r + 1):
            out[h + e] += first[h] * second[e]
    return out


@njit(cache=True)
def _board_rerolls(si, na, s, i, ri):
    r = 0
    if ri[RI_CAPT_BOARD] == 1 and si[s, i, S_CREW] == CAPTAIN and si[s, i, S_CAPT_USED] == 0:
        r += ri[RI_CAPT_REROLLS]
    if na[s, NA_REROLL_BOARD] == 1 and si[s, i, S_PIR_USED] == 0:
        r += na[s, NA_REROLLS]
    return r


@njit(cache=True)
def _board_edge(si, na, s, i, o, j, ri):
    """Expected VP swing of ship (s, i) boarding (o, j): VP it scores minus VP it concedes.

    Exact over both sides' success distributions (dice, rerolls, the net sink rule); the defender's
    abilities count when the rules give them to it.
    """
    p = p_success(ri[RI_BOARD_ON])
    pa = _successes_pmf(boarding_dice(si, na, s, i, ri), p, _board_rerolls(si, na, s, i, ri))
    if ri[RI_DEF_ABIL] == 1:
        pb = _successes_pmf(boarding_dice(si, na, o, j, ri), p, _board_rerolls(si, na, o, j, ri))
    else:
        pb = _successes_pmf(si[o, j, S_MASTS], p, np.int64(0))
    hold_a = si[s, i, S_MASTS] + si[s, i, S_HULL]
    hold_b = si[o, j, S_MASTS] + si[o, j, S_HULL]
    sink_a = ri[RI_VP_SINK] + na[s, NA_EXTRA_VP_SINK]  # what (s, i) scores by sinking
    sink_b = ri[RI_VP_SINK] + na[o, NA_EXTRA_VP_SINK]
    ev = 0.0
    for a in range(pa.shape[0]):
        for b in range(pb.shape[0]):
            w = pa[a] * pb[b]
            if w == 0.0 or a == b:
                continue
            if a > b:
                net = a - b
                ev += w * min(net, hold_b) * ri[RI_VP_MAST]
                if (net > hold_b if ri[RI_SINK_RULE] == 0 else a > hold_b) and ri[
                    RI_WINNER_SINKS
                ] == 1:
                    ev += w * sink_a
            else:
                net = b - a
                ev -= w * min(net, hold_a) * ri[RI_VP_MAST]
                if (net > hold_a if ri[RI_SINK_RULE] == 0 else b > hold_a) and ri[
                    RI_WINNER_SINKS
                ] == 1:
                    ev -= w * sink_b
    return ev


@njit(cache=True)
def _boarder(act, params, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr):
    o = 1 - s
    x = sf[s, i, F_X]
    y = sf[s, i, F_Y]
    engaged = is_engaged(eng, s, i, si)
    repairing = _want_repair(si, sf, na, s, i, ri, move_cm, hit_on_cm, engaged, int(params[1]))
    if repairing:
        act[A_REPAIR] = 1.0
    if engaged:
        j = _engaged_enemy(si, eng, s, i)
        if si[s, i, S_MASTS] == 0 and not repairing:
            act[A_DISENGAGE] = 1.0
            _retreat(act, si, sf, s, i, allowance(si, na, s, i, ri, move_cm, np.bool_(False)), rf)
        elif not repairing and j >= 0:
            act[A_TARGET] = j
            if _board_edge(si, na, s, i, o, j, ri) >= params[0]:
                act[A_ATTACK] = ATTACK_BOARD
            else:
                act[A_ATTACK] = ATTACK_CANNON
        return
    allow = allowance(si, na, s, i, ri, move_cm, repairing)
    contact = rf[RF_CONTACT]
    pref = _preferred_target(si, sf, s, x, y, ri, tr)
    best = -1
    be = -1e18
    if not repairing:
        for j in range(si.shape[1]):
            if si[o, j, S_STATUS] != ST_AFLOAT:
                continue
            d = dist(x, y, sf[o, j, F_X], sf[o, j, F_Y])
            if d > allow + contact - 1e-9:
                continue
            e = _board_edge(si, na, s, i, o, j, ri)
            if j == pref:
                e += 1.0
            if e > be:
                be = e
                best = j
    if best >= 0 and be >= params[0] and cannon_dice(si, s, i, ri) > 0:
        act[A_ATTACK] = ATTACK_BOARD
        act[A_TARGET] = best
        act[A_DX] = sf[o, best, F_X]
        act[A_DY] = sf[o, best, F_Y]
        return
    j = pref if pref >= 0 else _nearest_enemy(si, sf, s, x, y, np.bool_(False))
    if j < 0:
        return
    px, py = _toward(sf[o, j, F_X], sf[o, j, F_Y], x, y, contact + 1.5)
    qx, qy = _reach(x, y, px, py, allow)
    act[A_DX] = px
    act[A_DY] = py
    if not repairing and cannon_dice(si, s, i, ri) > 0:
        act[A_ATTACK] = ATTACK_CANNON
        act[A_TARGET] = j
        _fire_order(act, sf, s, i, o, j, qx, qy, ri, hit_on_cm, islands)


@njit(cache=True)
def _skirmisher(act, params, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr):
    o = 1 - s
    x = sf[s, i, F_X]
    y = sf[s, i, F_Y]
    engaged = is_engaged(eng, s, i, si)
    repairing = _want_repair(si, sf, na, s, i, ri, move_cm, hit_on_cm, engaged, int(params[2]))
    if repairing:
        act[A_REPAIR] = 1.0
    if engaged:
        j = _engaged_enemy(si, eng, s, i)
        losing = j >= 0 and si[s, i, S_MASTS] + params[1] < si[o, j, S_MASTS]
        if (si[s, i, S_MASTS] == 0 or losing) and not repairing:
            act[A_DISENGAGE] = 1.0
            _retreat(act, si, sf, s, i, allowance(si, na, s, i, ri, move_cm, np.bool_(False)), rf)
        elif not repairing and j >= 0:
            act[A_ATTACK] = ATTACK_CANNON
            act[A_TARGET] = j
        return
    j = _preferred_target(si, sf, s, x, y, ri, tr)
    if j < 0:
        j = _weakest_enemy(si, sf, s, x, y)
    if j < 0:
        return
    allow = allowance(si, na, s, i, ri, move_cm, repairing)
    px, py = _toward(sf[o, j, F_X], sf[o, j, F_Y], x, y, max(params[0], rf[RF_CONTACT] + 1.5))
    px, py = _clamp(px, py, rf)
    qx, qy = _reach(x, y, px, py, allow)
    act[A_DX] = px
    act[A_DY] = py
    if not repairing and cannon_dice(si, s, i, ri) > 0:
        act[A_ATTACK] = ATTACK_CANNON
        act[A_TARGET] = j
        _fire_order(act, sf, s, i, o, j, qx, qy, ri, hit_on_cm, islands)


@njit(cache=True)
def _random(act, params, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr, prng):
    o = 1 - s
    x = sf[s, i, F_X]
    y = sf[s, i, F_Y]
    engaged = is_engaged(eng, s, i, si)
    repairing = can_repair(si, s, i, ri, engaged) and prng.random() < params[1]
    if repairing:
        act[A_REPAIR] = 1.0
    allow = allowance(si, na, s, i, ri, move_cm, repairing)
    ang = prng.random() * 2.0 * math.pi
    rad = allow * math.sqrt(prng.random())
    px, py = _clamp(x + rad * math.cos(ang), y + rad * math.sin(ang), rf)
    if engaged:
        j = _engaged_enemy(si, eng, s, i)
        if prng.random() < params[2] or si[s, i, S_MASTS] == 0:
            if not repairing:
                act[A_DISENGAGE] = 1.0
                act[A_DX] = px
                act[A_DY] = py
        elif not repairing and j >= 0:
            act[A_TARGET] = j
            act[A_ATTACK] = ATTACK_BOARD if prng.random() < params[0] else ATTACK_CANNON
        return
    n_alive = 0
    for j in range(si.shape[1]):
        if si[o, j, S_STATUS] == ST_AFLOAT:
            n_alive += 1
    if n_alive == 0:
        return
    pick = int(prng.random() * n_alive)
    j = -1
    for k in range(si.shape[1]):
        if si[o, k, S_STATUS] == ST_AFLOAT:
            if pick == 0:
                j = k
                break
            pick -= 1
    act[A_DX] = px
    act[A_DY] = py
    if repairing or cannon_dice(si, s, i, ri) == 0:
        return
    act[A_TARGET] = j
    tx = sf[o, j, F_X]
    ty = sf[o, j, F_Y]
    if dist(x, y, tx, ty) <= allow + rf[RF_CONTACT] and prng.random() < params[0]:
        act[A_ATTACK] = ATTACK_BOARD
        act[A_DX] = tx
        act[A_DY] = ty
        return
    act[A_ATTACK] = ATTACK_CANNON
    act[A_ORDER] = 1.0 if prng.random() < 0.5 else 0.0


@njit(cache=True)
def decide(
    act,
    kind,
    params,
    si,
    sf,
    eng,
    na,
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
):
    """Fill ``act`` for ship i of side s with commander ``kind`` (``si`` read only).

    ``si`` is side s's observation (:func:`orders` passes :func:`core.observe`'s view): every
    read of an enemy ship's crew below sees a revealed crew or none."""
    if kind == ADMIRAL:
        admiral(
            act,
            params,
            si,
            sf,
            eng,
            na,
            s,
            i,
            ri,
            rf,
            hit_on_cm,
            islands,
            move_cm,
            tr,
            edges,
            turn,
            pmft,
        )
        return
    _clear(act, sf, s, i)
    if kind != RANDOM:
        engaged = is_engaged(eng, s, i, si)
        rep_at = int(params[2]) if kind == SKIRMISHER else int(params[1])
        repairing = _want_repair(si, sf, na, s, i, ri, move_cm, hit_on_cm, engaged, rep_at)
        if _objective(
            act, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr, edges, repairing
        ):
            if repairing:
                act[A_REPAIR] = 1.0
            return
    if kind == GUNLINE:
        _gunline(act, params, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr)
    elif kind == BOARDER:
        _boarder(act, params, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr)
    elif kind == SKIRMISHER:
        _skirmisher(act, params, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr)
    else:
        _random(act, params, si, sf, eng, na, s, i, ri, rf, hit_on_cm, islands, move_cm, tr, prng)


@njit(cache=True)
def orders(
    act,
    kind,
    params,
    si,
    obs,
    sf,
    eng,
    na,
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
):
    """The engine's call: ship i of side s gets its orders from what side s sees.

    ``obs`` (shaped like ``si``) receives :func:`core.observe` of the state (the enemy's crews
    still face down are hidden) and :func:`decide` reads only that; positions (``sf``),
    engagements, nations, the treasure and the turn are public.
    """
    observe(si, s, obs)
    decide(
        act,
        kind,
        params,
        obs,
        sf,
        eng,
        na,
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
