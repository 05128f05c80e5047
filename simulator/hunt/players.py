"""Players of Les Pirates: how each kind values a position and picks an outcome of a roll.

A player (:class:`Player`) is a root kind and its parameters; the engine passes the kind
(``PT_*``) and a weights vector (``W_*`` for ``heuristic``, ``PW_*`` for ``planner``) to
:func:`choose`, which sees the distinct outcomes of the roll and returns one: a win at once,
else the best-valued (ties within 1e-9 uniform, from the players' own stream, never the dice).
``heuristic`` (:func:`heuristic_value`) weighs step distances and counts (the scenario's
``runner``, ``hunter`` and ``guard`` are heuristics with other weights); ``planner``
(:func:`planner_value`) distances under the real movement rules and one-roll boarding chances
(:mod:`simulator.hunt.plan`); ``random`` picks uniformly. Kinds, parameter spaces and named
strategies are scenario data (``[kinds.*]``, ``[strategies.*]`` in ``standard.toml``);
:func:`make_player` builds ``name:key=value:...``, values checked against the declared ranges.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numba import njit

from scenarios.loader import ScenarioError
from scenarios.strategies import param_space, resolve_params, root_kind, unknown_name_message
from simulator.errors import UserError
from simulator.hunt import packed as pk
from simulator.hunt.moves import B_INFO, B_LEAF, L_WON, within_radius
from simulator.hunt.plan import NEVER
from simulator.hunt.rng import randint, uniform

# policy types
PT_RANDOM, PT_HEURISTIC, PT_PLANNER = 0, 1, 2
KIND_TYPES = {"random": PT_RANDOM, "heuristic": PT_HEURISTIC, "planner": PT_PLANNER}

# heuristic weights: w[W_*]
W_SHIP = 0  # per own ship afloat
W_SINK = 1  # per opponent ship afloat (against)
W_CARRY = 2  # holding a treasure
W_HOME = 3  # per step between the own carrier and its home anchor
W_SEEK = 4  # per step between the nearest own ship and a loaded island's anchorage
W_SHADOW = 5  # per step between the nearest own ship and an opponent carrier
W_GUARD = 6  # per step off the opponent carrier's shortest path home
W_THREAT = 7  # per opponent ship holding a treasure
W_DANGER = 8  # per opponent ship within 6 steps of the own carrier
W_FIRE = 9  # fire ships against an aligned opponent carrier (random: the chance per turn)
# planner weights: w[PW_*] (fire shares its index with W_FIRE)
PW_SHIP, PW_SINK, PW_CARRY, PW_HOME, PW_SEEK, PW_THREAT = 0, 1, 2, 3, 4, 5
PW_RISK = 6  # times (carry + threat) times the chance the own carrier is boarded next round
PW_EXPOSURE = 7  # per own free ship times the chance it is boarded next round
PW_HUNT = 8  # times the chance of boarding an opponent carrier with the next roll
PW_FIRE = 9
PW_CHASE = 10  # per roll (dice cooperating) between the nearest own ship and an opponent carrier
N_WEIGHTS = 11
#: each root kind's parameters, in weights order (the scenario declares the same names)
FIELDS = {
    "heuristic": ("ship", "sink", "carry", "home", "seek", "shadow", "guard", "threat",
                  "danger", "fire"),
    "planner": ("ship", "sink", "carry", "home", "seek", "threat", "risk", "exposure", "hunt",
                "fire", "chase"),
    "random": ("fire",),
}  # fmt: skip
WEIGHT_INDEX = {"heuristic": range(10), "planner": range(11), "random": (W_FIRE,)}
#: steps within which an opponent ship endangers the carrier (heuristic ``danger``)
DANGER_STEPS = 6
#: a fire ship is sent at an opponent carrier in line this many squares away
FIRE_LINE = (2, 12)


@njit(cache=True)
def heuristic_value(P, D, L, row, me, w):
    """The ``heuristic`` value for seat ``me`` of the position ``L[row]`` (``D`` is
    ``A[A_DIST]``): ``ship`` per own ship afloat, ``sink`` against each opponent ship afloat,
    ``carry`` and ``home`` per step home for the own carrier, ``danger`` per opponent ship near
    it, ``seek`` per step of the nearest own ship to a loaded island, and for each opponent
    carrier ``threat``, ``shadow`` per step of the nearest own ship and ``guard`` per step off
    its shortest way home (plus a quarter step per step from its goal)."""
    ns = P[pk.P_NSHIPS]
    at_owner, at_home, at_anchor = P[pk.P_AT_OWNER], P[pk.P_AT_HOME], P[pk.P_AT_ANCHOR]
    lo, hi = P[P[pk.P_AT_SEAT_LO] + me], P[P[pk.P_AT_SEAT_HI] + me]
    n_mine, n_opp, my_carrier = 0, 0, -1
    for s in range(ns):
        if L[row, s] >= 0 and P[at_owner + s] == me:
            n_mine += 1
            if L[row, ns + s] >= 0:
                my_carrier = s
        elif L[row, s] >= 0:
            n_opp += 1
    v = w[W_SHIP] * n_mine - w[W_SINK] * n_opp
    if my_carrier >= 0:
        cn = L[row, my_carrier]
        v += w[W_CARRY] - w[W_HOME] * D[cn, P[at_anchor + P[at_home + my_carrier]]]
        if w[W_DANGER] != 0.0:
            k = 0
            for s in range(ns):
                n = L[row, s]
                if n >= 0 and P[at_owner + s] != me and D[cn, n] <= DANGER_STEPS:
                    k += 1
            v -= w[W_DANGER] * k
    if w[W_SEEK] != 0.0:
        best = 1 << 30
        for k in range(P[pk.P_NTRE]):
            if L[row, 2 * ns + k] == k:
                for s in range(lo, hi):
                    if L[row, s] >= 0 and D[P[pk.P_ROW_ISL_DIST] + k, L[row, s]] < best:
                        best = D[P[pk.P_ROW_ISL_DIST] + k, L[row, s]]
        if best < (1 << 30) and (my_carrier < 0 or P[pk.P_NTRE] > 1):
            v -= w[W_SEEK] * best
    for c in range(ns):
        cn = L[row, c]
        if cn < 0 or P[at_owner + c] == me or L[row, ns + c] < 0:
            continue
        v -= w[W_THREAT]
        if n_mine == 0:
            continue
        if w[W_SHADOW] != 0.0:
            best = 1 << 30
            for s in range(lo, hi):
                if L[row, s] >= 0 and D[cn, L[row, s]] < best:
                    best = D[cn, L[row, s]]
            v -= w[W_SHADOW] * best
        if w[W_GUARD] != 0.0:
            goal = P[at_anchor + P[at_home + c]]
            bestf = 1e18
            for s in range(lo, hi):
                n = L[row, s]
                if n >= 0:
                    x = D[cn, n] + D[goal, n] - D[cn, goal] + 0.25 * D[goal, n]
                    if x < bestf:
                        bestf = x
            v -= w[W_GUARD] * bestf
    return v


@njit(cache=True)
def seat_hits(P, F, R, L, row, seat, target):
    """The chance that ``seat`` ends a ship on ``target`` with its next roll (``F`` =
    ``A[A_FLOAT]``, ``R`` = ``A[A_REACH]``; ships and wrecks in the way ignored)."""
    word, bit, one = target >> 6, np.uint64(target & 63), np.uint64(1)
    q = 0.0
    for r in range(P[pk.P_NROLLS]):
        for s in range(P[P[pk.P_AT_SEAT_LO] + seat], P[P[pk.P_AT_SEAT_HI] + seat]):
            n = L[row, s]
            if n >= 0 and (R[r, n, word] >> bit) & one:
                q += F[P[pk.P_AT_ROLL_P] + r]
                break
    return q


@njit(cache=True)
def capture_chance(P, F, R, L, row, target, me):
    """The chance that some other seat ends a ship on ``target`` with its next roll, before
    ``me`` moves again (each seat one independent roll)."""
    survive = 1.0
    for seat in range(P[pk.P_NSEATS]):
        if seat != me:
            survive *= 1.0 - seat_hits(P, F, R, L, row, seat, target)
    return 1.0 - survive


@njit(cache=True)
def planner_value(P, D, F, R, L, row, me, w):
    """The ``planner`` value for seat ``me`` of the position ``L[row]``: ``ship``, ``sink``,
    ``carry`` and ``threat`` as the heuristic; ``home`` per expected roll of the own carrier
    home, ``risk`` on its chance of being boarded; ``seek`` per expected roll for the best free
    ship to fetch a treasure and bring it home, ``exposure`` on each free ship's chance of being
    boarded; per opponent carrier ``hunt`` on the chance of boarding it with the next roll and
    ``chase`` per roll (dice cooperating) of the nearest own ship to it."""
    ns = P[pk.P_NSHIPS]
    n_nodes, n_isl = P[pk.P_NNODES], P[pk.P_NISLANDS]
    at_owner, at_home = P[pk.P_AT_OWNER], P[pk.P_AT_HOME]
    lo, hi = P[P[pk.P_AT_SEAT_LO] + me], P[P[pk.P_AT_SEAT_HI] + me]
    n_mine, n_opp, has_carrier = 0, 0, False
    for s in range(ns):
        if L[row, s] >= 0 and P[at_owner + s] == me:
            n_mine += 1
            has_carrier = has_carrier or L[row, ns + s] >= 0
        elif L[row, s] >= 0:
            n_opp += 1
    v = w[PW_SHIP] * n_mine - w[PW_SINK] * n_opp
    best = NEVER
    for s in range(lo, hi):
        n = L[row, s]
        if n < 0:
            continue
        port = P[at_home + s]
        if L[row, ns + s] >= 0:
            v += w[PW_CARRY] - w[PW_HOME] * F[P[pk.P_AT_CARRY_TURNS] + port * n_nodes + n]
            if w[PW_RISK] != 0.0:
                lost = capture_chance(P, F, R, L, row, n, me)
                v -= w[PW_RISK] * (w[PW_CARRY] + w[PW_THREAT]) * lost
            continue
        for k in range(P[pk.P_NTRE]):
            if L[row, 2 * ns + k] == k:
                f = F[P[pk.P_AT_FETCH_TURNS] + (port * n_isl + k) * n_nodes + n]
                if f < best:
                    best = f
        if w[PW_EXPOSURE] != 0.0:
            v -= w[PW_EXPOSURE] * capture_chance(P, F, R, L, row, n, me)
    if best < NEVER and (not has_carrier or P[pk.P_NTRE] > 1):
        v -= w[PW_SEEK] * best
    for c in range(ns):
        cn = L[row, c]
        if cn < 0 or P[at_owner + c] == me or L[row, ns + c] < 0:
            continue
        v -= w[PW_THREAT]
        if n_mine == 0:
            continue
        if w[PW_HUNT] != 0.0:
            v += w[PW_HUNT] * seat_hits(P, F, R, L, row, me, cn)
        if w[PW_CHASE] != 0.0:
            d = NEVER
            for s in range(lo, hi):
                if L[row, s] >= 0:
                    rd = D[P[pk.P_ROW_ROLL_DIST] + L[row, s], cn]
                    x = NEVER if rd < 0 else float(rd)
                    if x < d:
                        d = x
            v -= w[PW_CHASE] * d
    return v


@njit(cache=True)
def choose(A, P, WB, n_leaves, me, ptype, w, prng):
    """The outcome the player picks: a win at once, else the best-valued outcome (ties within
    1e-9 uniform, by reservoir sampling), or a uniform outcome for the random player."""
    L, info = WB[B_LEAF], WB[B_INFO]
    for k in range(n_leaves):
        if info[k, L_WON] == 1:
            return k
    if n_leaves == 1:
        return 0
    if ptype == PT_RANDOM:
        return randint(prng, n_leaves)
    D, F, R = A[pk.A_DIST], A[pk.A_FLOAT], A[pk.A_REACH]
    best_v, n_best, pick = -1e300, 0, 0
    for k in range(n_leaves):
        if ptype == PT_PLANNER:
            v = planner_value(P, D, F, R, L, k, me, w)
        else:
            v = heuristic_value(P, D, L, k, me, w)
        if v > best_v + 1e-9:
            best_v, n_best, pick = v, 1, k
        elif v > best_v - 1e-9:
            n_best += 1
            if randint(prng, n_best) == 0:
                pick = k
    return pick


@njit(cache=True)
def first_square(P, node):
    """``(row, column)`` of the node's first square."""
    cell = P[P[pk.P_AT_CELL_PTR] + node]
    return P[P[pk.P_AT_CELL_ROW] + cell], P[P[pk.P_AT_CELL_COL] + cell]


@njit(cache=True)
def fire_choice(P, G, row, me, ptype, w, prng):
    """Variant 5, before the roll: the ship the player sacrifices as a fire ship, or -1. A
    scoring player with ``fire`` and two ships afloat sends a free ship in line (same row or
    column, :data:`FIRE_LINE` squares away) with an opponent carrier; the random player fires a
    random ship with probability ``fire``."""
    ns = P[pk.P_NSHIPS]
    lo, hi = P[P[pk.P_AT_SEAT_LO] + me], P[P[pk.P_AT_SEAT_HI] + me]
    mine = 0
    for s in range(lo, hi):
        if G[row, s] >= 0:
            mine += 1
    if ptype == PT_RANDOM:
        if w[W_FIRE] <= 0.0 or uniform(prng) >= w[W_FIRE] or mine == 0:
            return -1
        k = randint(prng, mine)
        for s in range(lo, hi):
            if G[row, s] >= 0:
                if k == 0:
                    return s
                k -= 1
        return -1
    if w[W_FIRE] <= 0.0 or mine < 2:
        return -1
    for c in range(ns):
        if G[row, c] < 0 or P[P[pk.P_AT_OWNER] + c] == me or G[row, ns + c] < 0:
            continue
        cr, cc = first_square(P, G[row, c])
        for s in range(lo, hi):
            if G[row, s] < 0 or G[row, ns + s] >= 0:
                continue
            r, col = first_square(P, G[row, s])
            if (r == cr and FIRE_LINE[0] <= abs(col - cc) <= FIRE_LINE[1]) or (
                col == cc and FIRE_LINE[0] <= abs(r - cr) <= FIRE_LINE[1]
            ):
                return s
    return -1


@njit(cache=True)
def fire_target(P, G, row, me, ship, ptype, targets, n_targets, radius, prng):
    """Variant 5: where the fire ship explodes among the ``n_targets`` squares its line allows
    (none: where it is). A scoring player takes the first square destroying the most value
    (an opponent ship 1, a carrier 3, own ships count -2 times as much); the random player a
    random one."""
    if n_targets == 0:
        return G[row, ship]
    if ptype == PT_RANDOM:
        return targets[randint(prng, n_targets)]
    ns = P[pk.P_NSHIPS]
    best_v, centre = -1e300, G[row, ship]
    for i in range(n_targets):
        v = 0.0
        for s in range(ns):
            if G[row, s] < 0 or s == ship or not within_radius(P, G[row, s], targets[i], radius):
                continue
            worth = 3.0 if G[row, ns + s] >= 0 else 1.0
            v += worth if P[P[pk.P_AT_OWNER] + s] != me else -2.0 * worth
        if v > best_v:
            best_v, centre = v, targets[i]
    return centre


@dataclass(frozen=True, slots=True)
class Player:
    """A strategy as the engine plays it: its name, root kind and parameter values."""

    name: str
    kind: str  # "heuristic", "planner" or "random"
    params: Mapping[str, float | bool]

    def weights(self) -> np.ndarray:
        """The weights vector (``W_*`` or ``PW_*``)."""
        w = np.zeros(N_WEIGHTS)
        for i, key in zip(WEIGHT_INDEX[self.kind], FIELDS[self.kind]):
            w[i] = float(self.params[key])
        return w


def policy_arrays(players) -> tuple[np.ndarray, np.ndarray]:
    """``(types, weights)`` of a list of players, as :func:`choose` takes them."""
    types = np.array([KIND_TYPES[p.kind] for p in players], dtype=np.int64)
    return types, np.array([p.weights() for p in players]).reshape(len(players), N_WEIGHTS)


_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def _parse(text: str, decl):
    """A command-line value as the declared parameter's type (checked by ``decl.coerce``)."""
    if decl.type == "bool":
        low = text.strip().lower()
        return True if low in _TRUE else False if low in _FALSE else text
    if decl.type in ("int", "float"):
        try:
            return float(text)
        except ValueError:
            return text
    return text


def needs_plan(player: Player) -> bool:
    """Does ``player`` read the planning tables (build them with ``build_tables(plan=True)``)?"""
    return player.kind == "planner"


def make_player(rules, spec: str) -> Player:
    """Build the player of ``spec`` (``name`` or ``name:key=value:key=value``) from ``rules``.

    ``name`` is one of the scenario's ``[strategies.*]``; each ``key=value`` overrides one
    parameter of its kind, inside the declared range. Raises a one-line :class:`UserError`
    naming the spec and what is allowed ("did you mean" for unknown names).
    """
    name, *params = spec.strip().split(":")
    strategies = rules.strategies
    if name not in strategies:
        raise UserError(f"--strategies: {unknown_name_message('strategy', name, strategies)}")
    decl = strategies[name]
    values = resolve_params(rules.kinds, decl, f"strategies.{name}")
    space = param_space(rules.kinds, decl.kind)
    for p in params:
        key, sep, value = p.partition("=")
        if not sep:
            raise UserError(
                f"--strategies: {spec!r}: {p!r} is not key=value "
                f"(allowed: {', '.join(k + '=' + space[k].type.upper() for k in space)})"
            )
        if key not in space:
            raise UserError(
                f"--strategies: {spec!r}: {unknown_name_message('parameter', key, space)}"
            )
        try:
            values[key] = space[key].coerce(_parse(value, space[key]), key)
        except ScenarioError as exc:
            raise UserError(f"--strategies: {spec!r}: {key}: {exc.problem}") from None
    kind = root_kind(rules.kinds, decl.kind)
    if set(values) != set(FIELDS[kind]):  # the scenario's space and the code disagree: a bug
        raise ScenarioError(
            None,
            f"kinds.{decl.kind}.params",
            f"declares {sorted(values)} but the {kind} player plays {sorted(FIELDS[kind])}",
        )
    return Player(name=name, kind=kind, params={k: values[k] for k in FIELDS[kind]})
