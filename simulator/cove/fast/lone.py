"""The players' exact lone-pirate odds with cards (rules sections "Combat", "Non-player ships",
"Tavern deck"): the same floats as the independent oracle ``tests/cove_odds_oracle.py``
(``PirateOdds``, volley mode ``"optimal"``, canonical states, and ``lone_pirate_odds``), a
Python recursion the tests hold this module to (``==``). The ``PirateOdds.*`` names in the
docstrings below are that oracle's.

One player ship against one non-player ship: the Markov chain over (damage state, the
non-player ship's hull, Grapeshot and Powder keg left), exchange by exchange in speed order,
volley cards played optimally. The oracle recurses with memoisation (``_v``, ``_mid``,
``_npc_fire``, ``_shot``). numba's cached machine code of a recursive
function crashes on reload, so here the recursion is an explicit stack of frames: a frame first
lists the values it needs (the chain's successor states, in the order the readable code asks
for them), each is taken from the memo or computed by a frame pushed above it, then the frame
evaluates its own value with the same expression, in the same order, as the readable code (the
combos of ``_solve`` in its order, ``max`` as ``>``, ``min(best, 1.0)``, ``1e-15``), so the
floats are identical (``==``; tested on a grid of states and on every query of seeded games).
The listing pass writes each case it decides from the states (routed, back to the frame's own
state, a child) to a tape (``T_*``), and the evaluating pass reads the cases back instead of
hitting the states again: the same loops, the same float expressions, half the work.

The hit rules on the state tuples are :mod:`simulator.cove.fast.core`'s, written once for every
layout: :func:`~simulator.cove.fast.core.absorb` and
:func:`~simulator.cove.fast.core.ring_after` (a hit), :func:`~simulator.cove.fast.core.rout_hits`
and :func:`~simulator.cove.fast.core.weakest_of` (the Royal Navy's aim),
:func:`~simulator.cove.fast.core.num_dice`, :func:`~simulator.cove.fast.core.speed` and
:func:`~simulator.cove.fast.core.regenerate`. The state keeps the parrot's hits left in its own
slot (8) and its section in the rules (``PA_SEC``); a ring pushed off the mat stays at 0, which
is how the state says the ship is routed (``_routed``; within a frame, ``ring_after``'s flag).

The values a frame waits for are held in the frame's own slots, never only in the memo: the memo
(:func:`new_memo`, one per chunk of games; an open-addressing table keyed on every field of the
canonical (configuration, state, hull, volleys, kind)) is a cache. When a probe run is full the
entry overwrites its first slot, and when the table is three quarters full it is cleared: a value
never depends on what the memo holds, only the time does (so do its sizes, the scratch stacks'
and the tape's, and whether a query's root value is looked up before the stack is set up).

Binomial broadsides come from a table of :func:`simulator.cove.tables.hit_pmf` (:func:`tables`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator import compiled
from simulator.cove.fast.core import (
    absorb,
    num_dice,
    regenerate,
    ring_after,
    rout_hits,
    speed,
    weakest_of,
)
from simulator.cove.rules import SECTIONS, CoveRules
from simulator.cove.tables import hit_chance, hit_pmf

# ------------------------------------------------------------------------------- tables ("lt")
# lt: a LoneTables with the fields of LT_FIELDS
# vals[sec, q - 1]: the value of section sec at ring position q (SECTIONS order)
# first[sec, q]: the first position with the value of position q (0 stays 0)
# pmf[PMF_*, n, x]: P(x hits from n dice) at that threshold (PirateOdds.pmf), 0 past x = n
PMF_HIT, PMF_SMOKE, PMF_GRAPE = 0, 1, 2  # combat.hit_on, smoke_hit_on, grapeshot_hit_on
# parrots[row, PA_*]: a parrot in rules.parrots order
PA_SEC = 0  # the section it sits on (SECTIONS index)
PA_FIXED = 1  # fixed dice (Long John Silver), 0: none
PA_BONES = 2  # 1: dice = cannons (Billy Bones)
PA_SPEED = 3  # speed bonus (Squire Trelawney)
PA_N = 4
# npcs[row, N_*]: rules.pirates in order, then the Royal Navy
N_FIGHTS = 0  # 1: it fights (the solver knows it)
N_DICE = 1  # dice per broadside
N_SECS = 2  # bit mask of the sections it hits (bit s: SECTIONS[s]); 0: its controller's choice
N_HULL = 3  # full hull
N_SAILS = 4  # speed
N_REGEN = 5  # hull regained per exchange (Flying Dutchman)
N_N = 6
# prm[PR_*]: scalars
PR_GRAPE_SELF = 0  # combat.grapeshot_self_hits
PR_ABSORBS = 1  # combat.parrot_absorbs_hits
PR_WIND = 2  # combat.favourable_wind_speed
PR_PER_CHEST = 3  # combat.overboard_speed_per_chest
PR_MAXN = 4  # the most dice any broadside rolls (pmf rows 0..PR_MAXN)
PR_N = 5

# ------------------------------------------------------------------------------- memo
MEMO_BITS = 18  # 262,144 slots (6 MiB)
MAX_PROBE = 32
SCRATCH_CHILDREN = 1 << 13  # rows of the child-slot stack kept in the memo (more: grown per call)
SCRATCH_FRAMES = 256
# memo: a LoneMemo with the fields of M_FIELDS: keys uint64[slots, 2] (word 1 = 0: empty),
# vals float64[slots], used int64[1], child keys ck int64[C, CK_N], child values cv float64[C],
# frame keys fk int64[F, CK_N], frame info fi int64[F, FI_N], tape int8[4 C]
# a child or frame key: kind, the 9 state fields, hull, grapeshot left, keg left
CK_KIND, CK_ST, CK_H, CK_G, CK_K, CK_N = 0, 1, 10, 11, 12, 13
# frame info: its first child slot, its child count (-1: not listed yet), the next child to
# resolve, the parent's child slot its value goes to (-1: the query), its first tape entry
FI_START, FI_COUNT, FI_NEXT, FI_PARENT, FI_TAPE, FI_N = 0, 1, 2, 3, 4, 5
# tape entries (one per case the listing pass decides, read back by the evaluating pass):
T_SKIP = 0  # routed (by our own card or the pirate's broadside): no value
T_GO = 1  # our broadside left us in the battle / the pirate's broadside changed nothing
T_LOOP = 2  # the exchange came back to the frame's own state (the fixed point's beta)
T_CHILD = 3  # a value the frame needs: the next child slot
# frame kinds: V (PirateOdds._v), MID (_mid), then best_volley's root (pirate to fire 0 / 1)
KIND_V, KIND_MID, KIND_BV0, KIND_BV1 = compiled.codes(4)
V_GRAPESHOT, V_KEG = 1, 2  # bits of a volley choice (odds.V_GRAPESHOT, odds.V_KEG)


#: the fields of the solver's tables ``lt`` (:func:`tables`) and of its memo (:func:`new_memo`)
LT_FIELDS = ("vals", "first", "pmf", "parrots", "npcs", "prm")
M_FIELDS = ("keys", "vals", "used", "ck", "cv", "fk", "fi", "tape")


class LoneTablesType(compiled.StateType):
    """numba's type of :class:`LoneTables`."""


class LoneTables(compiled.State):
    """The solver's constant arrays ``lt`` as one object (:data:`LT_FIELDS`): as a tuple of six
    arrays it cost twelve reference counts at every compiled call that held it
    (:class:`simulator.compiled.State`)."""

    FIELDS = LT_FIELDS


class LoneMemoType(compiled.StateType):
    """numba's type of :class:`LoneMemo`."""


class LoneMemo(compiled.State):
    """The solver's memo and scratch stacks as one object (:data:`M_FIELDS`; a tuple of its
    eight arrays cost sixteen reference counts a call)."""

    FIELDS = M_FIELDS


@njit(cache=True)
def _new_lone_tables(*values):
    """:class:`LoneTables`' constructor, cached (:class:`simulator.compiled.State`)."""
    return LoneTables(*values)


@njit(cache=True)
def _new_lone_memo(*values):
    """:class:`LoneMemo`'s constructor, cached (:class:`simulator.compiled.State`)."""
    return LoneMemo(*values)


LoneTables = compiled.define_state(LoneTables, LoneTablesType, _new_lone_tables)
LoneMemo = compiled.define_state(LoneMemo, LoneMemoType, _new_lone_memo)


def tables(rules: CoveRules) -> LoneTables:
    """The solver's constant arrays for ``rules`` (:class:`LoneTables`; layouts above)."""
    c = rules.combat
    mat = rules.ship_mat
    values = (mat.hull, mat.crew, mat.cannons, mat.sails)
    vals = np.array(values, np.int64)
    # per section: position -> the first position with the same value (0 stays 0)
    first = np.array(
        [[0 if q == 0 else 1 + v.index(v[q - 1]) for q in range(len(v) + 1)] for v in values],
        np.int64,
    )
    npc_specs = [*rules.pirates.values()]
    rn = rules.royal_navy
    maxn = max(
        [*mat.crew, *mat.cannons, 0]
        + [p.fixed_dice for p in rules.parrots.values()]
        + [n.dice for n in npc_specs]
        + ([rn.dice] if rn is not None else [])
    )
    pmf = np.zeros((3, maxn + 1, maxn + 1), np.float64)
    for j, thr in enumerate((c.hit_on, c.smoke_hit_on, c.grapeshot_hit_on)):
        for n in range(maxn + 1):
            pmf[j, n, : n + 1] = hit_pmf(n, hit_chance(thr))
    parrots = np.zeros((max(len(rules.parrots), 1), PA_N), np.int64)
    for i, p in enumerate(rules.parrots.values()):
        parrots[i] = (SECTIONS.index(p.section), p.fixed_dice, p.dice_equal_cannons, p.speed_bonus)
    npcs = np.zeros((len(npc_specs) + 1, N_N), np.int64)
    for i, n in enumerate([*npc_specs, rn]):
        if n is None or not n.fights:
            continue
        is_rn = i == len(npc_specs)
        if is_rn or n.damages == "controller":
            mask = 0
        elif n.damages == "every_section":
            mask = 15
        else:
            mask = 1 << SECTIONS.index(n.damages)
        npcs[i] = (1, n.dice, mask, n.hull, n.sails, n.regenerate_per_exchange)
    prm = np.zeros(PR_N, np.int64)
    prm[PR_GRAPE_SELF] = c.grapeshot_self_hits
    prm[PR_ABSORBS] = int(c.parrot_absorbs_hits)
    prm[PR_WIND] = c.favourable_wind_speed
    prm[PR_PER_CHEST] = c.overboard_speed_per_chest
    prm[PR_MAXN] = maxn
    return LoneTables(vals, first, pmf, parrots, npcs, prm)


def new_memo(
    bits: int = MEMO_BITS, children: int = SCRATCH_CHILDREN, frames: int = SCRATCH_FRAMES
) -> LoneMemo:
    """An empty memo (:class:`LoneMemo`; layout above): one per chunk of games and rules object
    (its keys do not name the rules). ``bits``: log2 of its slots; ``children``/``frames``: the
    scratch stacks' starting rows (a query that needs more grows its own copy). The sizes change
    the time only (the tests run a tiny memo)."""
    if bits < 1 or children < 1 or frames < 1:
        raise ValueError(
            f"new_memo: bits, children and frames must be >= 1 ({bits, children, frames})"
        )
    slots = 1 << bits
    return LoneMemo(
        np.zeros((slots, 2), np.uint64),
        np.zeros(slots, np.float64),
        np.zeros(1, np.int64),
        np.zeros((children, CK_N), np.int64),
        np.zeros(children, np.float64),
        np.zeros((frames, CK_N), np.int64),
        np.zeros((frames, FI_N), np.int64),
        np.zeros(4 * children, np.int8),
    )


# ------------------------------------------------------------------------------- small pieces
@njit(cache=True, inline="always")
def _with(s, i, v):
    """The state tuple ``s`` with field ``i`` set to ``v``."""
    return (
        v if i == 0 else s[0],
        v if i == 1 else s[1],
        v if i == 2 else s[2],
        v if i == 3 else s[3],
        v if i == 4 else s[4],
        v if i == 5 else s[5],
        v if i == 6 else s[6],
        v if i == 7 else s[7],
        v if i == 8 else s[8],
    )


@njit(cache=True, _nrt=False)
def _tuple(a, off):
    return (
        a[off],
        a[off + 1],
        a[off + 2],
        a[off + 3],
        a[off + 4],
        a[off + 5],
        a[off + 6],
        a[off + 7],
        a[off + 8],
    )


# The solver's own pieces take the arrays of ``lt`` they read (``vals``, ``parrots``...): a
# compiled call counts a reference to each array it holds on entry and on exit, which cost more
# than the solver's arithmetic (the profile of ``benchmarks/cove_profile.py``). ``lt`` and the
# memo are State objects (one count each, and one per field read), no longer tuples of six and
# eight arrays. The query's steps that take arrays only (_tuple, _canon, _check_npc, _root,
# dice) allocate nothing and call nothing that does: they are compiled with ``_nrt=False`` and
# count no references (a State's field cannot be read there: numba reads it through the
# reference-counting runtime). A function that allocates, or calls one that does, needs it.
@njit(cache=True, inline="always")
def _value(vals, s, sec):
    p = s[sec]
    return vals[sec, p - 1] if p > 0 else 0


@njit(cache=True, inline="always")
def _parrot_sec(parrots, parrot):
    """The section the parrot sits on (SECTIONS index); -1: no parrot."""
    return parrots[parrot, PA_SEC] if parrot >= 0 else -1


@njit(cache=True, inline="always")
def _dice(vals, parrots, s, parrot, grapple):
    """PirateOdds.dice: :func:`core.num_dice` of the state's crew and cannons values."""
    fixed = parrots[parrot, PA_FIXED] if parrot >= 0 else 0
    bones = parrots[parrot, PA_BONES] if parrot >= 0 else 0
    alive = parrot >= 0 and s[8] > 0
    return num_dice(_value(vals, s, 1), _value(vals, s, 2), alive, fixed, bones, grapple)


@njit(cache=True, inline="always")
def _speed(vals, parrots, s, parrot, extra):
    """PirateOdds.speed: :func:`core.speed` of the state's sails value."""
    bonus = parrots[parrot, PA_SPEED] if parrot >= 0 else 0
    return speed(_value(vals, s, 3), extra, parrot >= 0 and s[8] > 0, bonus)


@njit(cache=True)
def _hit(s, psec, absorbs, sec, k):
    """PirateOdds.hit: ``k`` hits on section ``sec`` split by :func:`core.absorb` (Artisan, then
    the parrot sitting there -- on section ``psec``, -1: none; its hits left in slot 8 -- then
    the ring), the ring moved by :func:`core.ring_after` (off the mat: position 0). Returns (the
    state after, the ring fell off the mat)."""
    if k <= 0:
        return s, False
    a, p, steps = absorb(k, s[4 + sec], s[8], psec == sec, absorbs)
    pos, destroyed = ring_after(s[sec], steps)
    art = s[4 + sec] - a
    return (
        pos if sec == 0 else s[0],
        pos if sec == 1 else s[1],
        pos if sec == 2 else s[2],
        pos if sec == 3 else s[3],
        art if sec == 0 else s[4],
        art if sec == 1 else s[5],
        art if sec == 2 else s[6],
        art if sec == 3 else s[7],
        s[8] - p,
    ), destroyed


@njit(cache=True)
def _routed(s):
    """A ring off the mat (position 0, :func:`core.ring_after`): the ship is routed."""
    return s[0] <= 0 or s[1] <= 0 or s[2] <= 0 or s[3] <= 0


@njit(cache=True)
def _weakest(s, psec, absorbs):
    """PirateOdds.weakest_section: :func:`core.weakest_of` the sections' :func:`core.rout_hits`."""
    return weakest_of(
        rout_hits(s[0], s[4], s[8], psec == 0, absorbs),
        rout_hits(s[1], s[5], s[8], psec == 1, absorbs),
        rout_hits(s[2], s[6], s[8], psec == 2, absorbs),
        rout_hits(s[3], s[7], s[8], psec == 3, absorbs),
    )


@njit(cache=True, inline="always")
def _fire(mask, psec, absorbs, s, y):
    """The non-player ship's ``y`` hits on us (PirateOdds._npc_fire's state after; ``mask``:
    its N_SECS): (state, a ring fell off the mat)."""
    if mask == 0:
        return _hit(s, psec, absorbs, _weakest(s, psec, absorbs), y)
    dead = False
    for sec in range(4):
        if mask & (1 << sec):
            s, d = _hit(s, psec, absorbs, sec, y)
            dead = dead or d
    return s, dead


@njit(cache=True, _nrt=False)
def _canon(vals, first, parrots, npcs, npc, parrot, extra, grapple, st, g, k):
    """PirateOdds.canon: (parrot, extra, state) of the canonical configuration (``lt``'s arrays
    ``vals``, ``first``, ``parrots``, ``npcs``)."""
    mask = npcs[npc, N_SECS]
    if mask == 0:  # the Royal Navy's controller may aim at any section
        return parrot, extra, st
    dmg = mask
    if k:
        dmg |= 1
    if g:
        dmg |= 4
    s = st
    if parrot >= 0 and s[8] <= 0:
        parrot = -1
        s = _with(s, 8, 0)
    psec, fixed, bones, bonus = -1, 0, 0, 0
    if parrot >= 0:
        psec = parrots[parrot, PA_SEC]
        fixed = parrots[parrot, PA_FIXED]
        bones = parrots[parrot, PA_BONES]
        bonus = parrots[parrot, PA_SPEED]
    hit_parrot = False
    if parrot >= 0:
        hit_parrot = (dmg >> psec) & 1 == 1
    if parrot >= 0 and not hit_parrot:
        s = _with(s, 8, 1)
    for sec in range(4):
        if not (dmg >> sec) & 1:
            s = _with(s, 4 + sec, 0)
            s = _with(s, sec, first[sec, s[sec]])
    if not (dmg >> 3) & 1:
        sails = npcs[npc, N_SAILS]
        sp = _speed(vals, parrots, s, parrot, extra)
        if parrot >= 0 and not hit_parrot and not fixed and not bones:
            parrot = -1
            s = _with(s, 8, 0)
            bonus = 0
        base = vals[3, 0] + (bonus if parrot >= 0 else 0)
        s = _with(s, 3, 1)
        extra = sails + (1 if sp > sails else 0) - (1 if sp < sails else 0) - base
    if parrot >= 0 and not hit_parrot and fixed:
        for sec in (1, 2):
            if not (dmg >> sec) & 1:
                s = _with(s, sec, 1)
    elif parrot >= 0 and not hit_parrot and bones:
        if not (dmg >> 1) & 1:
            s = _with(s, 1, 1)
    elif grapple and not (dmg >> 2) & 1 and not (parrot >= 0 and (fixed or bones)):
        s = _with(s, 2, 1)
    return parrot, extra, s


# ------------------------------------------------------------------------------- memo table
@njit(cache=True)
def _key(kind, cfg, s, h, g, k):
    """(cacheable, word 0, word 1) of a V or MID value: every field of the canonical key."""
    npc, parrot, smoke, extra, grapple = cfg
    ok = 0 <= h + 128 < 256 and 0 <= extra + 128 < 256 and 0 <= npc < 256
    ok = ok and 0 <= parrot + 1 < 256 and 0 <= g <= 1 and 0 <= k <= 1
    w0 = np.uint64(0)
    for i in range(9):
        if s[i] < 0 or s[i] >= 256:
            ok = False
    if not ok:
        return False, w0, w0
    for i in range(8):
        w0 |= np.uint64(s[i]) << np.uint64(8 * i)
    w1 = (
        np.uint64(s[8])
        | (np.uint64(h + 128) << np.uint64(8))
        | (np.uint64(extra + 128) << np.uint64(16))
        | (np.uint64(npc) << np.uint64(24))
        | (np.uint64(parrot + 1) << np.uint64(32))
        | (np.uint64(smoke != 0) << np.uint64(40))
        | (np.uint64(grapple != 0) << np.uint64(41))
        | (np.uint64(g) << np.uint64(42))
        | (np.uint64(k) << np.uint64(43))
        | (np.uint64(kind) << np.uint64(44))
        | (np.uint64(1) << np.uint64(63))
    )
    return True, w0, w1


@njit(cache=True)
def _shift(keys):
    """64 - log2(the memo's slots): the hash's top bits pick the slot."""
    bits = 0
    while (1 << bits) < keys.shape[0]:
        bits += 1
    return np.uint64(64 - bits)


@njit(cache=True, inline="always")
def _slot(w0, w1, shift):
    hsh = (w0 * np.uint64(0x9E3779B97F4A7C15)) ^ (w1 * np.uint64(0xC2B2AE3D27D4EB4F))
    return np.int64(hsh >> shift)


@njit(cache=True, inline="always")
def _get(keys, mvals, shift, w0, w1):
    """The memo's value of (w0, w1): (found, value); ``keys``, ``mvals``: ``memo.keys``,
    ``memo.vals``."""
    mask = keys.shape[0] - 1
    slot = _slot(w0, w1, shift)
    for _ in range(MAX_PROBE):
        if keys[slot, 1] == 0:
            return False, 0.0
        if keys[slot, 0] == w0 and keys[slot, 1] == w1:
            return True, mvals[slot]
        slot = (slot + 1) & mask
    return False, 0.0


@njit(cache=True, inline="always")
def _put(keys, used, mvals, shift, w0, w1, v):
    """Store (w0, w1) -> v; ``keys``, ``used``, ``mvals``: ``memo.keys``, ``memo.used``,
    ``memo.vals``."""
    n = keys.shape[0]
    if 4 * used[0] >= 3 * n:  # three quarters full: start again
        keys[:, 1] = 0
        used[0] = 0
    mask = n - 1
    first = _slot(w0, w1, shift)
    slot = first
    found = False
    for _ in range(MAX_PROBE):
        if keys[slot, 1] == 0:
            used[0] += 1
            found = True
            break
        if keys[slot, 0] == w0 and keys[slot, 1] == w1:
            found = True
            break
        slot = (slot + 1) & mask
    if not found:
        slot = first  # a full probe run: the entry replaces its first slot
    keys[slot, 0] = w0
    keys[slot, 1] = w1
    mvals[slot] = v


# ------------------------------------------------------------------------------- the chain
@njit(cache=True, inline="always")
def _list(ck, i, kind, s, h, g, k):
    """Child slot ``i`` gets the key of a value the frame needs."""
    ck[i, CK_KIND] = kind
    for j in range(9):
        ck[i, CK_ST + j] = s[j]
    ck[i, CK_H] = h
    ck[i, CK_G] = g
    ck[i, CK_K] = k


@njit(cache=True, inline="always")
def _outcome(s2, dead, h2, g2, k2, s, h, g, k, has_loop, ck, i):
    """PirateOdds._next's case of an exchange that ends in (s2, h2, g2, k2), ``dead``: routed on
    the way (listing pass): T_SKIP, T_LOOP (back to the frame's own state) or T_CHILD (child
    slot ``i`` gets the next exchange's key)."""
    if dead:
        return T_SKIP
    if has_loop and s2 == s and h2 == h and g2 == g and k2 == k:
        return T_LOOP
    _list(ck, i, KIND_V, s2, h2, g2, k2)
    return T_CHILD


# a frame's constants (fx): the parrot's section (-1: none), combat.parrot_absorbs_hits, the
# frame's state routed, our broadside's dice, the pirate's dice, its pmf row (PMF_*), its
# sections (N_SECS), its regeneration and full hull, combat.grapeshot_self_hits
FX_PSEC, FX_ABSORBS, FX_DEAD, FX_DICE, FX_ND, FX_PN, FX_MASK, FX_REGEN, FX_HULL, FX_SELF = range(10)


@njit(cache=True, inline="always")
def _my_turn(pmf, fx, s, h, g, k, a, pirate_to_fire, has_loop, mode, ck, cv, i, tape, t):
    """PirateOdds._my_turn (h_start = h, the loop state = (s, h, g, k) when ``has_loop``):
    (alpha, beta, next child slot, next tape entry); ``fx``: the frame's constants. Mode 0
    lists the children and writes each routed / loop / child case to the tape; mode 1 reads
    the cases back and the children's values."""
    psec, absorbs, dead0, n, nd, pn, mask, regen, max_hull, self_hits = fx
    grape = a & V_GRAPESHOT
    keg = a & V_KEG
    g2 = g - (1 if grape else 0)
    k2 = k - (1 if keg else 0)
    alpha = 0.0
    beta = 0.0
    pk = PMF_GRAPE if grape else PMF_HIT
    for x in range(n + 1):
        px = pmf[pk, n, x]
        if px == 0.0:
            continue
        h1 = h - (x + (x if keg else 0))
        if h1 <= 0:
            alpha += px  # sunk (the firer's share even if its own keg routs it)
            continue
        s1 = s
        if mode == 0:
            dead = dead0
            if keg and x:
                s1, d = _hit(s1, psec, absorbs, np.int64(0), x)
                dead = dead or d
            if grape:
                s1, d = _hit(s1, psec, absorbs, np.int64(2), self_hits)
                dead = dead or d
            tape[t] = T_SKIP if dead else T_GO
        t += 1
        if tape[t - 1] == T_SKIP:
            continue  # routed
        h2 = regenerate(h1, h, regen, max_hull) if regen else h1  # PirateOdds._next
        if pirate_to_fire:
            for y in range(nd + 1):
                py = pmf[pn, nd, y]
                if py == 0.0:
                    continue
                if mode == 0:
                    s2, d = _fire(mask, psec, absorbs, s1, y)
                    tape[t] = _outcome(s2, d, h2, g2, k2, s, h, g, k, has_loop, ck, i)
                code = tape[t]
                t += 1
                if code == T_SKIP:
                    continue
                if code == T_LOOP:
                    al, be = 0.0, 1.0
                else:
                    al, be = (cv[i] if mode else 0.0), 0.0
                    i += 1
                alpha += px * py * al
                beta += px * py * be
        else:
            if mode == 0:
                tape[t] = _outcome(s1, False, h2, g2, k2, s, h, g, k, has_loop, ck, i)
            code = tape[t]
            t += 1
            if code == T_LOOP:
                al, be = 0.0, 1.0
            else:
                al, be = (cv[i] if mode else 0.0), 0.0
                i += 1
            alpha += px * al
            beta += px * be
    return alpha, beta, i, t


@njit(cache=True)
def _solve(c, nw, nal, nbe, nact, nn):
    """PirateOdds._solve: the combos in its order (the first node varies slowest)."""
    best = c
    total = 1
    for j in range(nn):
        total *= nact[j]
    for ci in range(total):
        a0 = c
        b0 = 0.0
        stride = total
        for j in range(nn):
            stride //= nact[j]
            ij = (ci // stride) % nact[j]
            a0 = a0 + nw[j] * nal[j, ij]
            b0 = b0 + nw[j] * nbe[j, ij]
        d = 1.0 - b0
        v = a0 / d if d > 1e-15 else 0.0
        if v > best:
            best = v
    return 1.0 if best > 1.0 else best  # min(best, 1.0)


@njit(cache=True, _nrt=False)
def _expand(
    vals, parrots, npcs, prm, pmf, cfg, kind, s, h, g, k, mode, ck, cv, base, tape, tbase, nw,
    nal, nbe, nact,
):  # fmt: skip
    """One frame: mode 0 lists the values it needs into child slots ``base``... and its cases
    into the tape from ``tbase``; mode 1 reads both there and returns (value, child slots used,
    tape entries used, volley bits). ``nw``...``nact``: _solve's scratch; ``vals``...``pmf``:
    ``lt``'s arrays."""
    i = base
    t = tbase
    npc, parrot, smoke, extra, grapple = cfg
    fx = (  # the frame's constants (FX_*)
        _parrot_sec(parrots, parrot),
        prm[PR_ABSORBS],
        _routed(s),
        _dice(vals, parrots, s, parrot, grapple),
        npcs[npc, N_DICE],
        PMF_SMOKE if smoke else PMF_HIT,
        npcs[npc, N_SECS],
        npcs[npc, N_REGEN],
        npcs[npc, N_HULL],
        prm[PR_GRAPE_SELF],
    )
    if kind == KIND_MID:  # PirateOdds._mid
        got = 0.0
        for a in range(4):
            if (a & V_GRAPESHOT and not g) or (a & V_KEG and not k):
                continue
            alpha, _beta, i, t = _my_turn(
                pmf, fx, s, h, g, k, a, False, False, mode, ck, cv, i, tape, t
            )
            if alpha > got:
                got = alpha
        return got, i - base, t - tbase, 0
    if kind == KIND_BV0 or kind == KIND_BV1:  # PirateOdds.best_volley
        if mode == 0:
            _list(ck, i, KIND_V, s, h, g, k)
        v_start = cv[i] if mode else 0.0
        i += 1
        best = 0
        best_v = -1.0
        for a in range(4):
            if (a & V_GRAPESHOT and not g) or (a & V_KEG and not k):
                continue
            alpha, beta, i, t = _my_turn(
                pmf, fx, s, h, g, k, a, kind == KIND_BV1, True, mode, ck, cv, i, tape, t
            )
            v = alpha + beta * v_start
            if v > best_v + 1e-12:
                best = a
                best_v = v
        return best_v, i - base, t - tbase, best
    # KIND_V: PirateOdds._v
    sails = npcs[npc, N_SAILS]
    nd = fx[FX_ND]
    pn = fx[FX_PN]
    sp = _speed(vals, parrots, s, parrot, extra)
    nn = np.int64(0)
    c = 0.0
    for oi in range(2):
        if sp > sails:
            if oi == 1:
                break
            w = 1.0
            me_first = True
        elif sp < sails:
            if oi == 1:
                break
            w = 1.0
            me_first = False
        else:  # an exact tie: a die roll-off, each first half of the time
            w = 0.5
            me_first = oi == 0
        if me_first:
            m = 0
            for a in range(4):
                if (a & V_GRAPESHOT and not g) or (a & V_KEG and not k):
                    continue
                al, be, i, t = _my_turn(
                    pmf, fx, s, h, g, k, a, True, True, mode, ck, cv, i, tape, t
                )
                nal[nn, m] = al
                nbe[nn, m] = be
                m += 1
            nw[nn] = w
            nact[nn] = m
            nn += 1
            continue
        for y in range(nd + 1):
            py = pmf[pn, nd, y]
            if py == 0.0:
                continue
            if mode == 0:  # the pirate's broadside first: routed, no change, or a MID
                s1, d = _fire(fx[FX_MASK], fx[FX_PSEC], fx[FX_ABSORBS], s, y)
                if fx[FX_DEAD] or d:
                    tape[t] = T_SKIP
                elif s1 == s:
                    tape[t] = T_GO
                else:
                    _list(ck, i, KIND_MID, s1, h, g, k)
                    tape[t] = T_CHILD
            code = tape[t]
            t += 1
            if code == T_SKIP:
                continue
            if code == T_GO:
                m = 0
                for a in range(4):
                    if (a & V_GRAPESHOT and not g) or (a & V_KEG and not k):
                        continue
                    al, be, i, t = _my_turn(
                        pmf, fx, s, h, g, k, a, False, True, mode, ck, cv, i, tape, t
                    )
                    nal[nn, m] = al
                    nbe[nn, m] = be
                    m += 1
                nw[nn] = w * py
                nact[nn] = m
                nn += 1
            else:
                mid = cv[i] if mode else 0.0
                i += 1
                c += w * py * mid
    return _solve(c, nw, nal, nbe, nact, nn), i - base, t - tbase, 0


@njit(cache=True, inline="always")
def _row(a, r, off):
    """``_tuple(a[r], off)`` without the row's view (a view is a counted reference)."""
    return (
        a[r, off],
        a[r, off + 1],
        a[r, off + 2],
        a[r, off + 3],
        a[r, off + 4],
        a[r, off + 5],
        a[r, off + 6],
        a[r, off + 7],
        a[r, off + 8],
    )


@njit(cache=True)
def _run(lt, memo, cfg, kind, s, h, g, k):
    """The value (and volley bits) of one root frame (the caller probed the memo for the root):
    :func:`_walk` on the memo's scratch stacks; when they are too small, on stacks twice as large
    (this call only), from the root again (what the first walk stored in the memo stays: the
    values are the same)."""
    vals, parrots, npcs, prm, pmf = lt.vals, lt.parrots, lt.npcs, lt.prm, lt.pmf
    keys, mvals, used = memo.keys, memo.vals, memo.used
    nd = npcs[cfg[0], N_DICE]
    maxn = prm[PR_MAXN]
    maxc = 8 * (maxn + 1) * (nd + 1) + 2  # the most child slots one frame lists
    maxt = 16 * (maxn + 1) * (nd + 2) + nd + 2  # the most tape entries one frame writes
    nw = np.empty(nd + 2, np.float64)  # _solve's decision nodes: weight, (alpha, beta) per
    nal = np.empty((nd + 2, 4), np.float64)  # action, actions
    nbe = np.empty((nd + 2, 4), np.float64)
    nact = np.empty(nd + 2, np.int64)
    ck, cv, fk, fi, tape = memo.ck, memo.cv, memo.fk, memo.fi, memo.tape
    while True:
        done, v, bits = _walk(
            vals, parrots, npcs, prm, pmf, keys, mvals, used, cfg, kind, s, h, g, k, maxc, maxt,
            nw, nal, nbe, nact, ck, cv, fk, fi, tape,
        )  # fmt: skip
        if done:
            return v, bits
        ck = np.zeros((2 * ck.shape[0] + maxc, CK_N), np.int64)
        cv = np.zeros(ck.shape[0], np.float64)
        fk = np.zeros((2 * fk.shape[0], CK_N), np.int64)
        fi = np.zeros((fk.shape[0], FI_N), np.int64)
        tape = np.zeros(2 * tape.shape[0] + maxt, np.int8)


@njit(cache=True, _nrt=False)
def _walk(
    vals, parrots, npcs, prm, pmf, keys, mvals, used, cfg, kind, s, h, g, k, maxc, maxt, nw, nal,
    nbe, nact, ck, cv, fk, fi, tape,
):  # fmt: skip
    """The root frame's value by an explicit stack of frames: ``(True, value, volley bits)``, or
    ``(False, ...)`` as soon as a stack is too small (no array is replaced inside the loop: an
    array variable assigned in a loop is reference-counted at every turn). Compiled, with
    :func:`_expand`, with ``_nrt=False``: they allocate nothing, so they count no references
    (measured by ``benchmarks/cove_lone.py``: the compiled loop 15-20 % faster)."""
    shift = _shift(keys)
    fk[0, CK_KIND] = kind
    for j in range(9):
        fk[0, CK_ST + j] = s[j]
    fk[0, CK_H] = h
    fk[0, CK_G] = g
    fk[0, CK_K] = k
    fi[0, FI_COUNT] = -1
    fi[0, FI_PARENT] = -1
    top = 1
    ctop = np.int64(0)
    ttop = np.int64(0)
    while True:
        f = top - 1
        fkind = fk[f, CK_KIND]
        fs = _row(fk, f, CK_ST)
        fh, fg, fkk = fk[f, CK_H], fk[f, CK_G], fk[f, CK_K]
        if fi[f, FI_COUNT] < 0:
            if ctop + maxc > ck.shape[0] or ttop + maxt > tape.shape[0]:
                return False, 0.0, 0
            _v, nch, nt, _b = _expand(
                vals, parrots, npcs, prm, pmf, cfg, fkind, fs, fh, fg, fkk, np.int64(0), ck, cv,
                ctop, tape, ttop, nw, nal, nbe, nact,
            )  # fmt: skip
            fi[f, FI_START] = ctop
            fi[f, FI_COUNT] = nch
            fi[f, FI_NEXT] = 0
            fi[f, FI_TAPE] = ttop
            ctop += nch
            ttop += nt
        pushed = False
        while fi[f, FI_NEXT] < fi[f, FI_COUNT]:
            i = fi[f, FI_START] + fi[f, FI_NEXT]
            fi[f, FI_NEXT] += 1
            ok, w0, w1 = _key(
                ck[i, CK_KIND], cfg, _row(ck, i, CK_ST), ck[i, CK_H], ck[i, CK_G], ck[i, CK_K]
            )
            if ok:
                found, v = _get(keys, mvals, shift, w0, w1)
                if found:
                    cv[i] = v
                    continue
            if top == fk.shape[0]:
                return False, 0.0, 0
            for c in range(CK_N):
                fk[top, c] = ck[i, c]
            fi[top, FI_COUNT] = -1
            fi[top, FI_PARENT] = i
            top += 1
            pushed = True
            break
        if pushed:
            continue
        v, _n, _t, bits = _expand(
            vals, parrots, npcs, prm, pmf, cfg, fkind, fs, fh, fg, fkk, np.int64(1), ck, cv,
            fi[f, FI_START], tape, fi[f, FI_TAPE], nw, nal, nbe, nact,
        )  # fmt: skip
        if fkind <= KIND_MID:
            ok, w0, w1 = _key(fkind, cfg, fs, fh, fg, fkk)
            if ok:
                _put(keys, used, mvals, shift, w0, w1, v)
        ctop = fi[f, FI_START]
        ttop = fi[f, FI_TAPE]
        top -= 1
        parent = fi[f, FI_PARENT]
        if parent < 0:
            return True, v, bits
        cv[parent] = v


@njit(cache=True, _nrt=False)
def _check_npc(npcs, npc):
    bad = npc < 0
    if not bad:
        bad = npc >= npcs.shape[0]
    if not bad:
        bad = npcs[npc, N_FIGHTS] == 0
    if bad:
        raise ValueError("lone odds: npc is not a fighting non-player ship")


@njit(cache=True, _nrt=False)
def _root(
    vals, first, parrots, npcs, npc, st, parrot, hull, grapeshot, powder_keg, smoke, extra_speed,
    grapple,
):  # fmt: skip
    """The canonical root of PirateOdds.p_sink / best_volley: (cfg, state, h, g, k) (``lt``'s
    arrays ``vals``, ``first``, ``parrots``, ``npcs``)."""
    _check_npc(npcs, npc)
    h = npcs[npc, N_HULL] if hull < 0 else hull
    g = min(grapeshot, 1)
    k = min(powder_keg, 1)
    sm = 1 if smoke else 0
    gr = 1 if grapple else 0
    parrot2, extra2, s = _canon(
        vals, first, parrots, npcs, npc, parrot, extra_speed, gr, _tuple(st, np.int64(0)), g, k
    )
    return (npc, parrot2, sm, extra2, gr), s, h, g, k


# ------------------------------------------------------------------------------- the interface
@njit(cache=True)
def p_sink(lt, memo, npc, st, parrot, hull, grapeshot, powder_keg, smoke, extra_speed, grapple):
    """PirateOdds.p_sink(volley="optimal") of a canonical solver: P(the non-player ship ``npc``
    is sunk while our ship (damage state ``st``, int64[9]) is still in the battle); ``hull`` -1:
    full; booleans 0/1."""
    cfg, s, h, g, k = _root(
        lt.vals, lt.first, lt.parrots, lt.npcs, npc, st, parrot, hull, grapeshot, powder_keg,
        smoke, extra_speed, grapple,
    )  # fmt: skip
    ok, w0, w1 = _key(KIND_V, cfg, s, h, g, k)
    if ok:
        keys = memo.keys
        found, v = _get(keys, memo.vals, _shift(keys), w0, w1)
        if found:
            return v
    v, _bits = _run(lt, memo, cfg, KIND_V, s, h, g, k)
    return v


@njit(cache=True)
def best_volley(
    lt,
    memo,
    npc,
    st,
    parrot,
    hull,
    grapeshot,
    powder_keg,
    smoke,
    extra_speed,
    grapple,
    pirate_to_fire,
):
    """PirateOdds.best_volley: (volley bits: 1 Grapeshot, 2 Powder keg; the P(sink) it gives)."""
    cfg, s, h, g, k = _root(
        lt.vals, lt.first, lt.parrots, lt.npcs, npc, st, parrot, hull, grapeshot, powder_keg,
        smoke, extra_speed, grapple,
    )  # fmt: skip
    v, bits = _run(lt, memo, cfg, KIND_BV1 if pirate_to_fire else KIND_BV0, s, h, g, k)
    return bits, v


@njit(cache=True)
def lone_plan(
    lt,
    memo,
    npc,
    st,
    parrot,
    has_smoke,
    n_wind,
    has_grapple,
    has_overboard,
    n_grapeshot,
    n_keg,
    chests,
    chest_value,
    use_chest_value,
    stake,
    hull,
    extra_speed,
    smoke_on,
    grapple_on,
):
    """lone_pirate_odds with the hand as counts of its cards (chest_value None when
    ``use_chest_value`` is 0, hull None when -1): (p_sink, smoke, wind, grapple, overboard)."""
    smoke = 1 if (smoke_on or has_smoke) else 0
    vals, parrots, prm = lt.vals, lt.parrots, lt.prm
    base_dice = dice(vals, parrots, st, parrot, np.int64(0))
    more = has_grapple and dice(vals, parrots, st, parrot, np.int64(1)) > base_dice
    grapple = 1 if (grapple_on or more) else 0
    wind_step = prm[PR_WIND]
    per = prm[PR_PER_CHEST]
    throw = chests if (has_overboard and use_chest_value and per > 0) else 0
    # (chest_value or 0.0): None and 0.0 give 0.0
    cval = chest_value if (use_chest_value and chest_value != 0.0) else 0.0
    best = p_sink(lt, memo, npc, st, parrot, hull, n_grapeshot, n_keg, smoke, extra_speed, grapple)
    unaided = best  # the loop's first option (no wind, no chests) asks exactly this again
    wind = 0
    overboard = 0
    best_ev = 0.0
    have = False
    for w in range(n_wind + 1):
        for n in range(throw + 1):
            if w == 0 and n == 0:
                v = unaided
            else:
                v = p_sink(
                    lt, memo, npc, st, parrot, hull, n_grapeshot, n_keg, smoke,
                    extra_speed + (w * wind_step + n * per), grapple,
                )  # fmt: skip
            ev = stake * v - cval * n
            if (
                not have
                or ev > best_ev + 1e-12
                or (abs(ev - best_ev) <= 1e-12 and v > best + 1e-12)
            ):
                best = v
                wind = w
                overboard = n
                best_ev = ev
                have = True
    return (
        best,
        1 if (smoke and not smoke_on) else 0,
        wind,
        1 if (grapple and not grapple_on) else 0,
        overboard,
    )


@njit(cache=True, _nrt=False)
def dice(vals, parrots, st, parrot, grapple):
    """PirateOdds.dice: the dice of our broadside in damage state ``st`` (int64[9]); ``vals``,
    ``parrots``: ``lt.vals``, ``lt.parrots``."""
    return _dice(vals, parrots, _tuple(st, np.int64(0)), parrot, grapple)


@njit(cache=True, _nrt=False)
def hit(parrots, prm, st, parrot, sec, k, out):
    """PirateOdds.hit: ``k`` hits on section ``sec`` of ``st``, the state written into ``out``;
    ``parrots``, ``prm``: ``lt.parrots``, ``lt.prm``."""
    s, _destroyed = _hit(
        _tuple(st, np.int64(0)), _parrot_sec(parrots, parrot), prm[PR_ABSORBS], sec, k
    )
    for j in range(9):
        out[j] = s[j]


@njit(cache=True, _nrt=False)
def dice_track(vals, parrots, prm, st, parrot, sec, hits, after, trk):
    """``trk[t]`` for t = 0..hits: the dice (no Grapple) of damage state ``st`` after ``t`` hits
    on section ``sec`` (:func:`hit`, then :func:`dice`); ``vals``, ``parrots``, ``prm``:
    ``lt``'s; ``after``: int64[9] scratch."""
    for t in range(hits + 1):
        hit(parrots, prm, st, parrot, sec, t, after)
        trk[t] = dice(vals, parrots, after, parrot, np.int64(0))


__all__ = [
    "LoneMemo",
    "LoneTables",
    "best_volley",
    "dice",
    "dice_track",
    "hit",
    "lone_plan",
    "new_memo",
    "p_sink",
    "tables",
]
