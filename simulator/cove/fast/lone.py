"""The players' exact lone-pirate odds with cards, compiled: the same floats as
:class:`simulator.cove.odds.PirateOdds` (volley mode ``"optimal"``, canonical states) and
:func:`simulator.cove.odds.lone_pirate_odds` (rules sections "Combat", "Non-player ships",
"Tavern deck").

One player ship against one non-player ship: the Markov chain of ``PirateOdds`` over (damage
state, the non-player ship's hull, Grapeshot and Powder keg left), exchange by exchange in speed
order, volley cards played optimally. The readable version recurses with memoisation
(``_v``, ``_mid``, ``_npc_fire``, ``_shot``). numba's cached machine code of a recursive
function crashes on reload, so here the recursion is an explicit stack of frames: a frame first
lists the values it needs (the chain's successor states, in the order the readable code asks
for them), each is taken from the memo or computed by a frame pushed above it, then the frame
evaluates its own value with the same expression, in the same order, as the readable code (the
combos of ``_solve`` in its order, ``max`` as ``>``, ``min(best, 1.0)``, ``1e-15``), so the
floats are identical (``==``; tested on a grid of states and on every query of seeded games).

The values a frame waits for are held in the frame's own slots, never only in the memo: the memo
(:func:`new_memo`, one per chunk of games; an open-addressing table keyed on every field of the
canonical (configuration, state, hull, volleys, kind)) is a cache. When a probe run is full the
entry overwrites its first slot, and when the table is three quarters full it is cleared: a value
never depends on what the memo holds, only the time does.

Binomial broadsides come from a table built by :meth:`PirateOdds.pmf` itself (:func:`tables`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator.cove.odds import PirateOdds
from simulator.cove.rules import SECTIONS, CoveRules

# ------------------------------------------------------------------------------- tables ("lt")
# lt = (vals, first_pos, pmf, parrots, npcs, prm)
LT_VALS, LT_FIRST, LT_PMF, LT_PARROTS, LT_NPCS, LT_PRM = range(6)
# vals[sec, q - 1]: the value of section sec at ring position q (SECTIONS order)
# first_pos[sec, q]: the first position with the value of position q (0 stays 0)
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
# memo = (keys uint64[slots, 2] (word 1 = 0: empty), vals float64[slots], used int64[1],
#         child keys int64[C, CK_N], child values float64[C], frame keys int64[F, CK_N],
#         frame info int64[F, FI_N])
M_KEYS, M_VALS, M_USED, M_CK, M_CV, M_FK, M_FI = range(7)
# a child or frame key: kind, the 9 state fields, hull, grapeshot left, keg left
CK_KIND, CK_ST, CK_H, CK_G, CK_K, CK_N = 0, 1, 10, 11, 12, 13
# frame info: its first child slot, its child count (-1: not listed yet), the next child to
# resolve, the parent's child slot its value goes to (-1: the query)
FI_START, FI_COUNT, FI_NEXT, FI_PARENT, FI_N = 0, 1, 2, 3, 4
# frame kinds: V (PirateOdds._v), MID (_mid), then best_volley's root (pirate to fire 0 / 1)
KIND_V, KIND_MID, KIND_BV0, KIND_BV1 = 0, 1, 2, 3
V_GRAPESHOT, V_KEG = 1, 2  # bits of a volley choice (odds.V_GRAPESHOT, odds.V_KEG)


def tables(rules: CoveRules) -> tuple:
    """The solver's constant arrays for ``rules`` (see the ``LT_*`` layout above)."""
    po = PirateOdds(rules)
    c = rules.combat
    vals = np.array(po.values, np.int64)
    first = np.array(po._first_pos, np.int64)
    npc_specs = [*rules.pirates.values()]
    rn = rules.royal_navy
    maxn = max(
        [*po.values[1], *po.values[2], 0]
        + [p.fixed_dice for p in rules.parrots.values()]
        + [n.dice for n in npc_specs]
        + ([rn.dice] if rn is not None else [])
    )
    pmf = np.zeros((3, maxn + 1, maxn + 1), np.float64)
    for j, thr in enumerate((c.hit_on, c.smoke_hit_on, c.grapeshot_hit_on)):
        for n in range(maxn + 1):
            row = po.pmf(n, thr)
            pmf[j, n, : len(row)] = row
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
    return (vals, first, pmf, parrots, npcs, prm)


def new_memo(
    bits: int = MEMO_BITS, children: int = SCRATCH_CHILDREN, frames: int = SCRATCH_FRAMES
) -> tuple:
    """An empty memo (see the ``M_*`` layout above): one per chunk of games and rules object
    (its keys do not name the rules). ``bits``: log2 of its slots; ``children``/``frames``: the
    scratch stacks' starting rows (a query that needs more grows its own copy). The sizes change
    the time only (the tests run a tiny memo)."""
    if bits < 1 or children < 1 or frames < 1:
        raise ValueError(
            f"new_memo: bits, children and frames must be >= 1 ({bits, children, frames})"
        )
    slots = 1 << bits
    return (
        np.zeros((slots, 2), np.uint64),
        np.zeros(slots, np.float64),
        np.zeros(1, np.int64),
        np.zeros((children, CK_N), np.int64),
        np.zeros(children, np.float64),
        np.zeros((frames, CK_N), np.int64),
        np.zeros((frames, FI_N), np.int64),
    )


# ------------------------------------------------------------------------------- small pieces
@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _value(lt, s, sec):
    p = s[sec]
    return lt[LT_VALS][sec, p - 1] if p > 0 else 0


@njit(cache=True)
def _dice(lt, s, parrot, grapple):
    """PirateOdds.dice."""
    if parrot >= 0 and s[8] > 0:
        fixed = lt[LT_PARROTS][parrot, PA_FIXED]
        if fixed:
            return fixed
        if lt[LT_PARROTS][parrot, PA_BONES]:
            return _value(lt, s, 2)
    if grapple:
        return _value(lt, s, 1)
    return min(_value(lt, s, 1), _value(lt, s, 2))


@njit(cache=True)
def _speed(lt, s, parrot, extra):
    """PirateOdds.speed."""
    sp = _value(lt, s, 3) + extra
    if parrot >= 0 and s[8] > 0:
        sp += lt[LT_PARROTS][parrot, PA_SPEED]
    return sp


@njit(cache=True)
def _hit(lt, s, parrot, sec, k):
    """PirateOdds.hit: ``k`` hits on one section (Artisan, then the parrot there, then the ring)."""
    if k <= 0:
        return s
    a = min(k, s[4 + sec])
    s = _with(s, 4 + sec, s[4 + sec] - a)
    k -= a
    if k and parrot >= 0 and s[8] > 0 and lt[LT_PARROTS][parrot, PA_SEC] == sec:
        p = min(k, s[8])
        s = _with(s, 8, s[8] - p)
        if lt[LT_PRM][PR_ABSORBS]:
            k -= p
    if k:
        s = _with(s, sec, max(s[sec] - k, 0))
    return s


@njit(cache=True)
def _routed(s):
    return s[0] <= 0 or s[1] <= 0 or s[2] <= 0 or s[3] <= 0


@njit(cache=True)
def _weakest(lt, s, parrot):
    """PirateOdds.weakest_section: fewest hits to destroy, first of equals."""
    best = 0
    best_h = 0
    for sec in range(4):
        h = s[sec] + s[4 + sec]
        if lt[LT_PRM][PR_ABSORBS] and parrot >= 0 and lt[LT_PARROTS][parrot, PA_SEC] == sec:
            h += s[8]
        if sec == 0 or h < best_h:
            best = sec
            best_h = h
    return best


@njit(cache=True)
def _fire(lt, npc, parrot, s, y):
    """The non-player ship's ``y`` hits on us (PirateOdds._npc_fire's state after)."""
    mask = lt[LT_NPCS][npc, N_SECS]
    if mask == 0:
        return _hit(lt, s, parrot, _weakest(lt, s, parrot), y)
    for sec in range(4):
        if mask & (1 << sec):
            s = _hit(lt, s, parrot, sec, y)
    return s


@njit(cache=True)
def _canon(lt, npc, parrot, extra, grapple, st, g, k):
    """PirateOdds.canon: (parrot, extra, state) of the canonical configuration."""
    mask = lt[LT_NPCS][npc, N_SECS]
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
        pr = lt[LT_PARROTS]
        psec = pr[parrot, PA_SEC]
        fixed = pr[parrot, PA_FIXED]
        bones = pr[parrot, PA_BONES]
        bonus = pr[parrot, PA_SPEED]
    hit_parrot = parrot >= 0 and (dmg >> psec) & 1 == 1
    if parrot >= 0 and not hit_parrot:
        s = _with(s, 8, 1)
    first = lt[LT_FIRST]
    for sec in range(4):
        if not (dmg >> sec) & 1:
            s = _with(s, 4 + sec, 0)
            s = _with(s, sec, first[sec, s[sec]])
    if not (dmg >> 3) & 1:
        sails = lt[LT_NPCS][npc, N_SAILS]
        sp = _speed(lt, s, parrot, extra)
        if parrot >= 0 and not hit_parrot and not fixed and not bones:
            parrot = -1
            s = _with(s, 8, 0)
            bonus = 0
        base = lt[LT_VALS][3, 0] + (bonus if parrot >= 0 else 0)
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
def _slot(keys, w0, w1):
    hsh = (w0 * np.uint64(0x9E3779B97F4A7C15)) ^ (w1 * np.uint64(0xC2B2AE3D27D4EB4F))
    bits = 0
    n = keys.shape[0]
    while (1 << bits) < n:
        bits += 1
    return np.int64(hsh >> np.uint64(64 - bits))


@njit(cache=True)
def _get(memo, w0, w1):
    keys = memo[M_KEYS]
    mask = keys.shape[0] - 1
    slot = _slot(keys, w0, w1)
    for _ in range(MAX_PROBE):
        if keys[slot, 1] == 0:
            return False, 0.0
        if keys[slot, 0] == w0 and keys[slot, 1] == w1:
            return True, memo[M_VALS][slot]
        slot = (slot + 1) & mask
    return False, 0.0


@njit(cache=True)
def _put(memo, w0, w1, v):
    keys = memo[M_KEYS]
    used = memo[M_USED]
    n = keys.shape[0]
    if 4 * used[0] >= 3 * n:  # three quarters full: start again
        keys[:, 1] = 0
        used[0] = 0
    mask = n - 1
    first = _slot(keys, w0, w1)
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
    memo[M_VALS][slot] = v


# ------------------------------------------------------------------------------- the chain
@njit(cache=True)
def _need(mode, ck, cv, i, s, h, g, k, kind):
    """A value the frame needs: listed (mode 0: child slot ``i`` gets its key) or read (1)."""
    if mode == 0:
        ck[i, CK_KIND] = kind
        for j in range(9):
            ck[i, CK_ST + j] = s[j]
        ck[i, CK_H] = h
        ck[i, CK_G] = g
        ck[i, CK_K] = k
        return 0.0
    return cv[i]


@njit(cache=True)
def _next(lt, cfg, s, h, h_start, g, k, loop_s, loop_h, loop_g, loop_k, has_loop, mode, ck, cv, i):
    """PirateOdds._next: (alpha, beta, next child slot)."""
    npc = cfg[0]
    regen = lt[LT_NPCS][npc, N_REGEN]
    if regen:
        h = min(h + min(h_start - h, regen), lt[LT_NPCS][npc, N_HULL])
    if has_loop and s == loop_s and h == loop_h and g == loop_g and k == loop_k:
        return 0.0, 1.0, i
    return _need(mode, ck, cv, i, s, h, g, k, KIND_V), 0.0, i + 1


@njit(cache=True)
def _my_turn(lt, cfg, s, h, g, k, a, pirate_to_fire, has_loop, mode, ck, cv, i):
    """PirateOdds._my_turn (h_start = h, the loop state = (s, h, g, k) when ``has_loop``):
    (alpha, beta, next child slot)."""
    npc, parrot, smoke, _extra, grapple = cfg
    pmf = lt[LT_PMF]
    grape = a & V_GRAPESHOT
    keg = a & V_KEG
    g2 = g - (1 if grape else 0)
    k2 = k - (1 if keg else 0)
    alpha = 0.0
    beta = 0.0
    n = _dice(lt, s, parrot, grapple)
    pk = PMF_GRAPE if grape else PMF_HIT
    nd = lt[LT_NPCS][npc, N_DICE]
    pn = PMF_SMOKE if smoke else PMF_HIT
    self_hits = lt[LT_PRM][PR_GRAPE_SELF]
    for x in range(n + 1):
        px = pmf[pk, n, x]
        if px == 0.0:
            continue
        s1 = s
        if keg and x:
            s1 = _hit(lt, s1, parrot, 0, x)
        if grape:
            s1 = _hit(lt, s1, parrot, 2, self_hits)
        h1 = h - (x + (x if keg else 0))
        if h1 <= 0:
            alpha += px  # sunk (the firer's share even if its own keg routs it)
            continue
        if _routed(s1):
            continue
        if pirate_to_fire:
            for y in range(nd + 1):
                py = pmf[pn, nd, y]
                if py == 0.0:
                    continue
                s2 = _fire(lt, npc, parrot, s1, y)
                if _routed(s2):
                    continue
                al, be, i = _next(lt, cfg, s2, h1, h, g2, k2, s, h, g, k, has_loop, mode, ck, cv, i)
                alpha += px * py * al
                beta += px * py * be
        else:
            al, be, i = _next(lt, cfg, s1, h1, h, g2, k2, s, h, g, k, has_loop, mode, ck, cv, i)
            alpha += px * al
            beta += px * be
    return alpha, beta, i


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


@njit(cache=True)
def _expand(lt, cfg, kind, s, h, g, k, mode, ck, cv, base):
    """One frame: mode 0 lists the values it needs into child slots ``base``...; mode 1 reads
    them there and returns (value, slots used, volley bits)."""
    i = base
    if kind == KIND_MID:  # PirateOdds._mid
        got = 0.0
        for a in range(4):
            if (a & V_GRAPESHOT and not g) or (a & V_KEG and not k):
                continue
            alpha, _beta, i = _my_turn(lt, cfg, s, h, g, k, a, False, False, mode, ck, cv, i)
            if alpha > got:
                got = alpha
        return got, i - base, 0
    if kind == KIND_BV0 or kind == KIND_BV1:  # PirateOdds.best_volley
        v_start = _need(mode, ck, cv, i, s, h, g, k, KIND_V)
        i += 1
        best = 0
        best_v = -1.0
        for a in range(4):
            if (a & V_GRAPESHOT and not g) or (a & V_KEG and not k):
                continue
            alpha, beta, i = _my_turn(
                lt, cfg, s, h, g, k, a, kind == KIND_BV1, True, mode, ck, cv, i
            )
            v = alpha + beta * v_start
            if v > best_v + 1e-12:
                best = a
                best_v = v
        return best_v, i - base, best
    # KIND_V: PirateOdds._v
    npc, parrot, smoke, extra, _grapple = cfg
    pmf = lt[LT_PMF]
    sails = lt[LT_NPCS][npc, N_SAILS]
    nd = lt[LT_NPCS][npc, N_DICE]
    pn = PMF_SMOKE if smoke else PMF_HIT
    sp = _speed(lt, s, parrot, extra)
    maxnodes = nd + 2
    nw = np.empty(maxnodes, np.float64)
    nal = np.empty((maxnodes, 4), np.float64)
    nbe = np.empty((maxnodes, 4), np.float64)
    nact = np.empty(maxnodes, np.int64)
    nn = 0
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
                al, be, i = _my_turn(lt, cfg, s, h, g, k, a, True, True, mode, ck, cv, i)
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
            s1 = _fire(lt, npc, parrot, s, y)
            if _routed(s1):
                continue
            if s1 == s:
                m = 0
                for a in range(4):
                    if (a & V_GRAPESHOT and not g) or (a & V_KEG and not k):
                        continue
                    al, be, i = _my_turn(lt, cfg, s, h, g, k, a, False, True, mode, ck, cv, i)
                    nal[nn, m] = al
                    nbe[nn, m] = be
                    m += 1
                nw[nn] = w * py
                nact[nn] = m
                nn += 1
            else:
                mid = _need(mode, ck, cv, i, s1, h, g, k, KIND_MID)
                i += 1
                c += w * py * mid
    return _solve(c, nw, nal, nbe, nact, nn), i - base, 0


@njit(cache=True)
def _run(lt, memo, cfg, kind, s, h, g, k):
    """The value (and volley bits) of one root frame, by an explicit stack of frames."""
    if kind <= KIND_MID:
        ok, w0, w1 = _key(kind, cfg, s, h, g, k)
        if ok:
            found, v = _get(memo, w0, w1)
            if found:
                return v, 0
    nd = lt[LT_NPCS][cfg[0], N_DICE]
    maxn = lt[LT_PRM][PR_MAXN]
    maxc = 8 * (maxn + 1) * (nd + 1) + 2  # the most child slots one frame lists
    ck = memo[M_CK]
    cv = memo[M_CV]
    fk = memo[M_FK]
    fi = memo[M_FI]
    fk[0, CK_KIND] = kind
    for j in range(9):
        fk[0, CK_ST + j] = s[j]
    fk[0, CK_H] = h
    fk[0, CK_G] = g
    fk[0, CK_K] = k
    fi[0, FI_COUNT] = -1
    fi[0, FI_PARENT] = -1
    top = 1
    ctop = 0
    while True:
        f = top - 1
        fkind = fk[f, CK_KIND]
        fs = _tuple(fk[f], CK_ST)
        fh, fg, fkk = fk[f, CK_H], fk[f, CK_G], fk[f, CK_K]
        if fi[f, FI_COUNT] < 0:
            if ctop + maxc > ck.shape[0]:  # grow the child stack (this call only)
                ck2 = np.zeros((2 * ck.shape[0] + maxc, CK_N), np.int64)
                cv2 = np.zeros(2 * ck.shape[0] + maxc, np.float64)
                ck2[:ctop] = ck[:ctop]
                cv2[:ctop] = cv[:ctop]
                ck = ck2
                cv = cv2
            _v, nch, _b = _expand(lt, cfg, fkind, fs, fh, fg, fkk, 0, ck, cv, ctop)
            fi[f, FI_START] = ctop
            fi[f, FI_COUNT] = nch
            fi[f, FI_NEXT] = 0
            ctop += nch
        pushed = False
        while fi[f, FI_NEXT] < fi[f, FI_COUNT]:
            i = fi[f, FI_START] + fi[f, FI_NEXT]
            fi[f, FI_NEXT] += 1
            ok, w0, w1 = _key(
                ck[i, CK_KIND], cfg, _tuple(ck[i], CK_ST), ck[i, CK_H], ck[i, CK_G], ck[i, CK_K]
            )
            if ok:
                found, v = _get(memo, w0, w1)
                if found:
                    cv[i] = v
                    continue
            if top == fk.shape[0]:  # grow the frame stack (this call only)
                fk2 = np.zeros((2 * top, CK_N), np.int64)
                fi2 = np.zeros((2 * top, FI_N), np.int64)
                fk2[:top] = fk[:top]
                fi2[:top] = fi[:top]
                fk = fk2
                fi = fi2
            fk[top] = ck[i]
            fi[top, FI_COUNT] = -1
            fi[top, FI_PARENT] = i
            top += 1
            pushed = True
            break
        if pushed:
            continue
        v, _n, bits = _expand(lt, cfg, fkind, fs, fh, fg, fkk, 1, ck, cv, fi[f, FI_START])
        if fkind <= KIND_MID:
            ok, w0, w1 = _key(fkind, cfg, fs, fh, fg, fkk)
            if ok:
                _put(memo, w0, w1, v)
        ctop = fi[f, FI_START]
        top -= 1
        parent = fi[f, FI_PARENT]
        if parent < 0:
            return v, bits
        cv[parent] = v


@njit(cache=True)
def _check_npc(lt, npc):
    if npc < 0 or npc >= lt[LT_NPCS].shape[0] or not lt[LT_NPCS][npc, N_FIGHTS]:
        raise ValueError("lone odds: npc is not a fighting non-player ship")


@njit(cache=True)
def _root(lt, memo, npc, st, parrot, hull, grapeshot, powder_keg, smoke, extra_speed, grapple):
    """The canonical root of PirateOdds.p_sink / best_volley: (cfg, state, h, g, k)."""
    _check_npc(lt, npc)
    h = lt[LT_NPCS][npc, N_HULL] if hull < 0 else hull
    g = min(grapeshot, 1)
    k = min(powder_keg, 1)
    sm = 1 if smoke else 0
    gr = 1 if grapple else 0
    parrot2, extra2, s = _canon(lt, npc, parrot, extra_speed, gr, _tuple(st, 0), g, k)
    return (npc, parrot2, sm, extra2, gr), s, h, g, k


# ------------------------------------------------------------------------------- the interface
@njit(cache=True)
def p_sink(lt, memo, npc, st, parrot, hull, grapeshot, powder_keg, smoke, extra_speed, grapple):
    """PirateOdds.p_sink(volley="optimal") of a canonical solver: P(the non-player ship ``npc``
    is sunk while our ship (damage state ``st``, int64[9]) is still in the battle); ``hull`` -1:
    full; booleans 0/1."""
    cfg, s, h, g, k = _root(
        lt, memo, npc, st, parrot, hull, grapeshot, powder_keg, smoke, extra_speed, grapple
    )
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
        lt, memo, npc, st, parrot, hull, grapeshot, powder_keg, smoke, extra_speed, grapple
    )
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
    base_dice = dice(lt, st, parrot, 0)
    grapple = 1 if (grapple_on or (has_grapple and dice(lt, st, parrot, 1) > base_dice)) else 0
    wind_step = lt[LT_PRM][PR_WIND]
    per = lt[LT_PRM][PR_PER_CHEST]
    throw = chests if (has_overboard and use_chest_value and per > 0) else 0
    # (chest_value or 0.0): None and 0.0 give 0.0
    cval = chest_value if (use_chest_value and chest_value != 0.0) else 0.0
    best = p_sink(lt, memo, npc, st, parrot, hull, n_grapeshot, n_keg, smoke, extra_speed, grapple)
    wind = 0
    overboard = 0
    best_ev = 0.0
    have = False
    for w in range(n_wind + 1):
        for n in range(throw + 1):
            v = p_sink(
                lt,
                memo,
                npc,
                st,
                parrot,
                hull,
                n_grapeshot,
                n_keg,
                smoke,
                extra_speed + (w * wind_step + n * per),
                grapple,
            )
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


@njit(cache=True)
def dice(lt, st, parrot, grapple):
    """PirateOdds.dice: the dice of our broadside in damage state ``st`` (int64[9])."""
    return _dice(lt, _tuple(st, 0), parrot, grapple)


@njit(cache=True)
def hit(lt, st, parrot, sec, k, out):
    """PirateOdds.hit: ``k`` hits on section ``sec`` of ``st``, the state written into ``out``."""
    s = _hit(lt, _tuple(st, 0), parrot, sec, k)
    for j in range(9):
        out[j] = s[j]


__all__ = ["best_volley", "dice", "hit", "lone_plan", "new_memo", "p_sink", "tables"]
