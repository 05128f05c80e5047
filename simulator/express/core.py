"""Packed rule arrays and the small rule functions shared by the engine and the commanders.

The battle engine is compiled with numba, so the frozen
:class:`~simulator.express.rules.ExpressRules` is packed once into flat arrays
(:func:`pack_rules`). Every index below says what a slot holds.
The functions here are pure and side-effect free: movement allowance (seed "Mouvements", notes 6,
crew Helmsman / Carpenter), gunnery difficulty by range (seed "Difficulté des tirs"), line of fire
and island shores (notes 1 switch), distances, and what a side sees of the state
(:func:`observe`: the enemy's crews are face down until used, seed "Équipage", decision D23).

Each compiled function of the package compiles once, for one signature: numba types an ``int``
or ``bool`` written in a call (``f(a, 0)``, ``f(a, True)``), a plain ``int`` module constant and
even a variable that only ever holds one constant as a literal of its value, and compiles the
callee (and what it passes that value on to) once per value. So the engine's calls pass typed
values where a literal would go (``np.bool_(False)``, ``np.int64(-1)``), and ``battle._log``,
called everywhere with an event code and zeros, is ``inline="always"`` (compiled into its
callers, never on its own). ``tests/test_compiled.py`` checks one signature per function over
whole games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from simulator import compiled
from simulator.express.rules import CREW_ROLES, ExpressRules

#: the modules whose compiled code numba caches (each calls into the others)
COMPILED_MODULES = ("core", "commanders", "admiral", "battle")


def drop_stale_cache(here: Path | None = None) -> bool:
    """Delete this package's numba cache files when one of its compiled sources changed: numba
    keys a cached function on its own file only, so an edit to a callee in another file would
    otherwise keep running stale machine code (:func:`simulator.compiled.drop_stale_cache`, the
    one mechanism of the three games)."""
    return compiled.drop_stale_cache(here or Path(__file__).resolve().parent, COMPILED_MODULES)


drop_stale_cache()

# ---- crew indices (CREW_ROLES order)
CAPTAIN, HELMSMAN, MUSKETEER, GUNNER, CARPENTER = range(5)
assert CREW_ROLES == ("captain", "helmsman", "musketeer", "gunner", "carpenter")

# ---- integer rules array RI
RI_MAX_TURNS = 0
RI_ACTIVATION = 1  # 0 side, 1 alternate
RI_END_IDLE = 2
RI_BOARD_ON = 3  # boarding success on
RI_SINK_RULE = 4  # 0 net, 1 raw
RI_WINNER_SINKS = 5
RI_DEF_ABIL = 6
RI_DIS_CAP = 7  # 2..6 cap, 7 = above 6+ impossible
RI_DIS_AUTO = 8
RI_CAPT_REROLLS = 9
RI_CAPT_BOARD = 10  # captain reroll also in boarding
RI_HELM_CM = 11
RI_MUSK_DICE = 12
RI_GUN_DICE = 13
RI_CARP_MASTS = 14
RI_CARP_PEN = 15
RI_CARP_ENGAGED = 16
RI_CARP_MASTLESS = 17
RI_LOSS_PER_MAST = 18
RI_OARS_CM = 19
RI_VP_MAST = 20
RI_VP_HULL = 21
RI_VP_SINK = 22
RI_SCENARIO = 23  # 0 pitched, 1 treasure, 2 convoy
RI_TR_HELD = 24
RI_TR_HOME = 25
RI_CONVOY_N = 26
RI_CONVOY_EXIT_VP = 27
RI_CONVOY_MAST_VP = 28
RI_CONVOY_DEF = 29  # 0 roll, 1 first fleet, 2 second fleet
RI_DEPLOY = 30  # 0 short edges, 1 long edges
RI_ROUND = 31  # 0 ceil, 1 round
RI_N = 32

# ---- float rules array RF
RF_W = 0
RF_D = 1
RF_DEPLOY_DEPTH = 2
RF_CONTACT = 3
RF_TR_X = 4
RF_TR_Y = 5
RF_TR_PICKUP = 6
RF_TR_HOME_ZONE = 7
RF_EXIT_ZONE = 8
RF_CONVOY_START = 9  # the convoy ships' start line (cm from their edge; convoy scenario)
RF_N = 10

# ---- nation array NA[side, k]
NA_EXTRA_VP_SINK = 0
NA_REROLLS = 1
NA_REROLL_BOARD = 2
NA_MASTLESS_MOVE = 3
NA_DIS_CAP = 4  # 0 = no nation cap
NA_BOARD_DICE = 5
NA_N = 6

# ---- ship integer state SI[side, ship, k]
S_START = 0  # starting masts (0: no ship in this slot)
S_MASTS = 1  # current masts
S_HULL = 2  # current Chinese hull points
S_HULL0 = 3  # starting hull points
S_CREW = 4  # crew index, -1 none
S_OARS = 5
S_STATUS = 6  # ST_* below
S_CAPT_USED = 7
S_PIR_USED = 8
S_MUSK_USED = 9
S_GUN_USED = 10
S_CARP_USED = 11
S_ACTED = 12  # activated this turn
S_CONVOY = 13  # a convoy ship (convoy scenario)
S_REPAIRED = 14  # repaired this turn
S_REVEALED = 15  # 1: its crew has been used once and is public for the rest of the game
S_N = 16

NO_CREW = -1  # S_CREW of a ship without crew, and of an enemy ship whose crew is still hidden

ST_AFLOAT = 0
ST_SUNK = 1
ST_EXITED = 2
ST_ABSENT = 3

# ---- ship float state SF[side, ship, k]
F_X = 0
F_Y = 1
F_N = 2

# ---- treasure state TR
TR_STATE = 0  # 0 on the table, 1 carried, 2 brought home
TR_SIDE = 1
TR_SHIP = 2
TR_X = 3
TR_Y = 4
TR_N = 5

# ---- per-side edges: EDGE[side] = 0 (x=0 or y=0 edge) / 1 (x=W or y=D edge)

# ---- action ACT (float64) returned by a commander
A_REPAIR = 0  # 1: the carpenter repairs (no attack this activation, move reduced)
A_ATTACK = 1  # 0 none, 1 cannon, 2 board (falls back to cannon if contact is not reached)
A_ORDER = 2  # 0 move then attack, 1 attack then move
A_TARGET = 3  # enemy ship index
A_DX = 4  # destination (the ship moves straight toward it, up to its allowance)
A_DY = 5
A_DISENGAGE = 6  # 1: an engaged ship tries to disengage, then moves (no attack)
A_N = 7

ATTACK_NONE, ATTACK_CANNON, ATTACK_BOARD = 0, 1, 2

SCENARIO_CODES = {"pitched": 0, "treasure": 1, "convoy": 2}


@dataclass(frozen=True)
class PackedRules:
    """The rules as arrays for the compiled engine."""

    ri: np.ndarray  # int64[RI_N]
    rf: np.ndarray  # float64[RF_N]
    move_cm: np.ndarray  # int64[max_masts + 1]: allowance by starting masts (index 0 unused)
    hit_on_cm: np.ndarray  # int64[last band + 2]: d6 needed at each whole cm (last entry: beyond)
    islands: np.ndarray  # float64[k, 3]: x, y, radius


def pack_rules(rules: ExpressRules, scenario_name: str | None = None) -> PackedRules:
    """Pack the frozen rules into arrays (``scenario_name`` overrides ``rules.scenario``).

    The convoy scenario plays on its own table depth, start lines and turn limit (``[convoy]``):
    they replace ``[table]``'s distance between the fleets' edges and deployment depth and
    ``[turns].max_turns`` in the packed arrays."""
    name = scenario_name or rules.scenario
    convoy = name == "convoy"
    ri = np.zeros(RI_N, dtype=np.int64)
    rf = np.zeros(RF_N, dtype=np.float64)
    ri[RI_MAX_TURNS] = rules.convoy.max_turns if convoy else rules.turns.max_turns
    ri[RI_ACTIVATION] = 1 if rules.turns.activation == "alternate" else 0
    ri[RI_END_IDLE] = int(rules.turns.end_when_side_idle)
    b = rules.boarding
    ri[RI_BOARD_ON] = b.success_on
    ri[RI_SINK_RULE] = 1 if b.sink_rule == "raw" else 0
    ri[RI_WINNER_SINKS] = int(b.winner_sinks)
    ri[RI_DEF_ABIL] = int(b.defender_uses_abilities)
    ri[RI_DIS_CAP] = rules.disengagement.cap
    ri[RI_DIS_AUTO] = int(rules.disengagement.automatic_vs_mastless)
    c = rules.crew
    ri[RI_CAPT_REROLLS] = c.captain_rerolls
    ri[RI_CAPT_BOARD] = int(c.captain_applies_to == "cannon_and_boarding")
    ri[RI_HELM_CM] = c.helmsman_bonus_cm
    ri[RI_MUSK_DICE] = c.musketeer_boarding_dice
    ri[RI_GUN_DICE] = c.gunner_cannon_dice
    ri[RI_CARP_MASTS] = c.carpenter_repair_masts
    ri[RI_CARP_PEN] = c.carpenter_move_penalty_cm
    ri[RI_CARP_ENGAGED] = int(c.carpenter_while_engaged)
    ri[RI_CARP_MASTLESS] = int(c.carpenter_on_mastless)
    ri[RI_LOSS_PER_MAST] = rules.ships.movement_loss_per_mast_cm
    ri[RI_OARS_CM] = rules.ships.oars_mastless_move_cm
    v = rules.victory
    ri[RI_VP_MAST] = v.vp_per_mast
    ri[RI_VP_HULL] = v.vp_per_hull_point
    ri[RI_VP_SINK] = v.vp_per_sink
    ri[RI_SCENARIO] = SCENARIO_CODES[name]
    ri[RI_TR_HELD] = rules.treasure.vp_held_at_end
    ri[RI_TR_HOME] = rules.treasure.vp_brought_home
    ri[RI_CONVOY_N] = rules.convoy.num_convoy_ships
    ri[RI_CONVOY_EXIT_VP] = rules.convoy.vp_per_exit
    ri[RI_CONVOY_MAST_VP] = rules.convoy.vp_per_convoy_mast
    ri[RI_CONVOY_DEF] = {"roll": 0, "first": 1, "second": 2}[rules.convoy.defender]
    ri[RI_DEPLOY] = 1 if rules.table.deployment == "long_edges" else 0
    ri[RI_ROUND] = 1 if rules.gunnery.range_rounding == "round" else 0
    rf[RF_W] = rules.table.width_cm
    rf[RF_D] = rules.table.depth_cm
    rf[RF_DEPLOY_DEPTH] = rules.table.deployment_depth_cm
    if convoy:
        # the fleets' edges are the short edges (x = 0, W) or the long edges (y = 0, D)
        rf[RF_W if ri[RI_DEPLOY] == 0 else RF_D] = rules.convoy.table_depth_cm
        rf[RF_DEPLOY_DEPTH] = rules.convoy.deployment_depth_cm
        rf[RF_CONVOY_START] = rules.convoy.convoy_start_cm
    rf[RF_CONTACT] = b.contact_cm
    rf[RF_TR_X] = rules.treasure.x_cm
    rf[RF_TR_Y] = rules.treasure.y_cm
    rf[RF_TR_PICKUP] = rules.treasure.pickup_cm
    rf[RF_TR_HOME_ZONE] = rules.treasure.home_zone_cm
    rf[RF_EXIT_ZONE] = rules.convoy.exit_zone_cm
    move = np.zeros(rules.ships.max_masts + 1, dtype=np.int64)
    move[1:] = rules.ships.movement_cm
    g = rules.gunnery
    last = g.band_max_cm[-1]
    hit = np.full(last + 2, 7, dtype=np.int64)
    lo = 0
    for hi, h in zip(g.band_max_cm, g.band_hit_on):
        hit[lo : hi + 1] = h
        lo = hi + 1
    # range 0 (contact) uses the first band
    hit[0] = g.band_hit_on[0]
    isl = np.array(
        [[i.x_cm, i.y_cm, i.radius_cm] for i in rules.table.islands], dtype=np.float64
    ).reshape(-1, 3)
    return PackedRules(ri, rf, move, hit, isl)


def nation_array(rules: ExpressRules, nation: str) -> np.ndarray:
    """``int64[NA_N]`` of a nation's power parameters."""
    n = rules.nations[nation]
    a = np.zeros(NA_N, dtype=np.int64)
    a[NA_EXTRA_VP_SINK] = n.extra_vp_per_sink
    a[NA_REROLLS] = n.attack_rerolls
    a[NA_REROLL_BOARD] = int(n.attack_rerolls_apply_to == "cannon_and_boarding")
    a[NA_MASTLESS_MOVE] = n.mastless_move_cm
    a[NA_DIS_CAP] = n.disengage_cap
    a[NA_BOARD_DICE] = n.boarding_extra_dice
    return a


def hit_on_at(range_cm: int, hit_on_cm: np.ndarray) -> int:
    """Python helper: d6 needed at a whole-cm range (7 = impossible)."""
    return int(hit_on_cm[min(max(range_cm, 0), len(hit_on_cm) - 1)])


# ----------------------------------------------------------------------------------------------
# Compiled helpers


@njit(cache=True)
def observe(si, s, obs):
    """Write into ``obs`` the ship state as side ``s`` sees it: its commander's observation.

    Crews are assigned face down before the game (seed "Équipage"); a crew becomes public the
    first time it is used (``S_REVEALED``, set by the engine; decision D23). Side ``s`` sees its
    own ships as they are and every public field of the enemy's (position aside: ``sf`` is public
    as a whole), but of an enemy ship whose crew is still hidden it sees no crew (``NO_CREW``) and
    no once-per-turn crew flag (they are 0 anyway until the crew is used). Nations, and so the
    Pirates' reroll flag, are public.
    """
    for a in range(si.shape[0]):
        for j in range(si.shape[1]):
            for k in range(si.shape[2]):
                obs[a, j, k] = si[a, j, k]
    o = 1 - s
    for j in range(si.shape[1]):
        if si[o, j, S_REVEALED] == 0:
            obs[o, j, S_CREW] = NO_CREW
            obs[o, j, S_CAPT_USED] = 0
            obs[o, j, S_MUSK_USED] = 0
            obs[o, j, S_GUN_USED] = 0
            obs[o, j, S_CARP_USED] = 0
            obs[o, j, S_REPAIRED] = 0


@njit(cache=True)
def dist(ax, ay, bx, by):
    return math.sqrt((ax - bx) * (ax - bx) + (ay - by) * (ay - by))


@njit(cache=True)
def range_cm(d, ri):
    """Whole-cm range used for the band lookup (decision: rounded up)."""
    if ri[RI_ROUND] == 1:
        return int(math.floor(d + 0.5))
    return int(math.ceil(d - 1e-9))


@njit(cache=True)
def segment_hits_island(ax, ay, bx, by, islands):
    """Smallest t in [0, 1] where segment a->b enters an island, or 2.0 if it never does."""
    best = 2.0
    dx = bx - ax
    dy = by - ay
    a = dx * dx + dy * dy
    for k in range(islands.shape[0]):
        cx = islands[k, 0]
        cy = islands[k, 1]
        r = islands[k, 2]
        fx = ax - cx
        fy = ay - cy
        c = fx * fx + fy * fy - r * r
        if c <= 0.0:
            continue  # starts inside (cannot happen for ships; ignore)
        if a <= 1e-12:
            continue
        bq = 2.0 * (fx * dx + fy * dy)
        disc = bq * bq - 4.0 * a * c
        if disc < 0.0:
            continue
        t = (-bq - math.sqrt(disc)) / (2.0 * a)
        if 0.0 <= t <= 1.0 and t < best:
            best = t
    return best


@njit(cache=True)
def end_point(x, y, px, py, allow, rf, islands):
    """Where a ship at (x, y) ends when it moves straight toward (px, py) with ``allow`` cm.

    The destination is first brought onto the table; the ship stops after ``allow`` cm and at the
    shore of an island on its way (notes 1 switch). Returns (qx, qy, moved); the engine's move and
    the commanders' look-ahead both use this one function.
    """
    px = min(max(px, 0.0), rf[RF_W])
    py = min(max(py, 0.0), rf[RF_D])
    d = dist(x, y, px, py)
    if d <= 1e-9 or allow <= 0:
        return x, y, False
    if d > allow:
        f = allow / d
        px = x + (px - x) * f
        py = y + (py - y) * f
    if islands.shape[0] > 0:
        t = segment_hits_island(x, y, px, py, islands)
        if t <= 1.0:
            t = max(t - 1e-6 / max(d, 1e-9), 0.0)
            px = x + (px - x) * t
            py = y + (py - y) * t
    return px, py, True


@njit(cache=True)
def line_of_fire(ax, ay, bx, by, islands):
    if islands.shape[0] == 0:
        return True
    return segment_hits_island(ax, ay, bx, by, islands) > 1.0


@njit(cache=True)
def hit_on_range(ax, ay, bx, by, ri, hit_on_cm, islands):
    """d6 needed to hit from a to b (7 = impossible: out of range or behind an island)."""
    r = range_cm(dist(ax, ay, bx, by), ri)
    if r >= hit_on_cm.shape[0]:
        return 7
    if not line_of_fire(ax, ay, bx, by, islands):
        return 7
    return hit_on_cm[r]


@njit(cache=True)
def p_success(hit_on):
    if hit_on <= 1:
        return 1.0
    if hit_on >= 7:
        return 0.0
    return (7.0 - hit_on) / 6.0


@njit(cache=True)
def allowance(si, na, s, i, ri, move_cm, repairing):
    """Movement allowance in cm of ship i of side s this activation.

    Starting-mast movement minus the loss per mast lost; a mastless ship moves only with oars
    (or the nation's mastless move, Turks); the Helmsman adds its bonus to a ship that can move;
    a repairing Carpenter takes its penalty off.
    """
    start = si[s, i, S_START]
    masts = si[s, i, S_MASTS]
    if masts > 0:
        base = move_cm[start] - ri[RI_LOSS_PER_MAST] * (start - masts)
        if base < 0:
            base = 0
    else:
        base = 0
        if si[s, i, S_OARS] == 1:
            base = ri[RI_OARS_CM]
        if na[s, NA_MASTLESS_MOVE] > base:
            base = na[s, NA_MASTLESS_MOVE]
    if base > 0 and si[s, i, S_CREW] == HELMSMAN:
        base += ri[RI_HELM_CM]
    if repairing:
        base -= ri[RI_CARP_PEN]
        if base < 0:
            base = 0
    return base


@njit(cache=True)
def cannon_dice(si, s, i, ri):
    """Dice of a cannon attack now: masts plus an unused Gunner (a mastless ship cannot fire)."""
    m = si[s, i, S_MASTS]
    if m <= 0:
        return 0
    if si[s, i, S_CREW] == GUNNER and si[s, i, S_GUN_USED] == 0:
        m += ri[RI_GUN_DICE]
    return m


@njit(cache=True)
def boarding_dice(si, na, s, i, ri):
    """Dice of a boarding roll now: masts + nation dice + unused Musketeer (mastless: none)."""
    m = si[s, i, S_MASTS]
    if m <= 0:
        return 0
    m += na[s, NA_BOARD_DICE]
    if si[s, i, S_CREW] == MUSKETEER and si[s, i, S_MUSK_USED] == 0:
        m += ri[RI_MUSK_DICE]
    return m


@njit(cache=True)
def disengage_difficulty(si, na, s, i, ri):
    """d6 needed to disengage (7: impossible): starting masts + masts lost, the nation's cap
    (Turks), the rules' cap (notes 8: 6+, or 7 = impossible above 6+)."""
    start = si[s, i, S_START]
    d = start + (start - si[s, i, S_MASTS])
    if na[s, NA_DIS_CAP] > 0 and d > na[s, NA_DIS_CAP]:
        d = na[s, NA_DIS_CAP]
    cap = ri[RI_DIS_CAP]
    if cap <= 6 and d > cap:
        d = cap
    if d > 6:
        d = 7
    if d < 1:
        d = 1
    return d


@njit(cache=True)
def can_repair(si, s, i, ri, engaged):
    if si[s, i, S_CREW] != CARPENTER or si[s, i, S_CARP_USED] == 1:
        return False
    if si[s, i, S_MASTS] >= si[s, i, S_START]:
        return False
    if engaged and ri[RI_CARP_ENGAGED] == 0:
        return False
    if si[s, i, S_MASTS] == 0 and ri[RI_CARP_MASTLESS] == 0:
        return False
    return True


@njit(cache=True)
def is_engaged(eng, s, i, si):
    """True if ship i of side s is in contact with an afloat enemy."""
    o = 1 - s
    for j in range(eng.shape[1]):
        if s == 0:
            e = eng[i, j]
        else:
            e = eng[j, i]
        if e and si[o, j, S_STATUS] == ST_AFLOAT:
            return True
    return False


@njit(cache=True)
def engaged_with(eng, s, i, j):
    if s == 0:
        return eng[i, j]
    return eng[j, i]


@njit(cache=True)
def edge_point(s_edge, x, y, rf, ri, own):
    """Nearest point of a side's own (own=True) or far edge, straight across from (x, y)."""
    e = s_edge if own else 1 - s_edge
    if ri[RI_DEPLOY] == 0:
        return (0.0 if e == 0 else rf[RF_W]), y
    return x, (0.0 if e == 0 else rf[RF_D])


@njit(cache=True)
def dist_to_edge(s_edge, x, y, rf, ri, own):
    ex, ey = edge_point(s_edge, x, y, rf, ri, own)
    return dist(x, y, ex, ey)
