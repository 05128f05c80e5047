"""The compiled combat rule core: each rule of a Pirate's Cove battle written once.

Rules: sections "Combat", "Non-player ships" and "Tavern deck" of
``../shared/rules/pirates-cove.md``; readings in ``docs/rules-cove-combat.md``. The readable
scalar engine :mod:`tests.cove_battle_oracle` is the oracle these functions are tested against (die
for die, ``tests/test_cove_fast_game.py``, ``tests/test_cove_combat_kernel.py``).

Every function here is a rule of its own, called by the full game's battle
(:mod:`simulator.cove.fast.battle`), by the battle kernel (:mod:`simulator.cove.combat_kernel`)
and by the compiled players' odds (:mod:`simulator.cove.fast.players`):

* :func:`absorb` -- a hit on a section goes to its Artisan, then to the parrot sitting there
  (with ``parrot_absorbs_hits`` the ring does not move), then moves the ring left;
  :func:`ring_after` -- a ring pushed off the mat destroys the section (a rout to resolve);
  :func:`hit_section` applies both to the array layout (a dead parrot: fame lost);
* :func:`rout_hits` / :func:`hits_to_rout` -- ring steps plus the protection left on a section;
  :func:`weakest_of` -- the section with the fewest, the first of equals;
* :func:`speed` -- sails plus Favourable wind / Overboard bonus plus a living Squire Trelawney;
* :func:`num_dice` -- min(crew, cannons); Grapple: crew; Long John Silver: fixed; Billy Bones:
  cannons (a living parrot's power only);
* :func:`fire_threshold` / :func:`npc_threshold` -- the face that hits: Smoke (only a 6),
  Grapeshot (3-6, beats Smoke by the switch), a non-player ship's hull;
* :func:`sort_desc` + :func:`roll_off` -- the speed order: fastest first, ties by die roll-offs
  re-rolled among the tied (also Phase 5's order and a pirate's tied targets); the ties are
  :func:`push_ties`, and :func:`roll_off_at` plays the same roll-offs from a buffer pointer;
* :func:`npc_criterion` -- a Legendary Pirate's first-target value (most cannons, largest crew,
  strongest hull, fastest);
* :func:`misfire_victim` -- Captain Hook: a missing die showing 1..k hits the hull of the k-th
  other ship clockwise from the target (Smoke blocks it by the switch), numbered by
  :func:`clockwise_others`;
* :func:`regenerate` -- the Flying Dutchman regains up to its allowance of the hull lost in an
  exchange, never above its card.

Dice come through :func:`die` from a buffer and a context row (``dctx``, ``DX_*``): the full game
refills its buffer from its PCG64 stream exactly when the game's dice recorded in the goldens
were drawn (:mod:`simulator.cove.fast.rng`). The battle kernel reads a pre-generated bulk through
its own pointer (:func:`roll_off_at`): running out fails the battle, which the kernel then
replays from a longer bulk.
"""

from __future__ import annotations

from numba import njit

from simulator import compiled
from simulator.cove.fast.rng import DICE_BLOCK, d6

HULL, CREW, CANNONS, SAILS = compiled.codes(4)  # SECTIONS order

# dctx (int64[DX_LEN]): the dice source of a battle
DX_P = 0  # next face in the buffer
DX_REFILL = 1  # 1: refill the buffer from generator row DX_RS when it runs out; 0: fail
DX_RS = 2  # generator row of the refill (the game's dice stream)
DX_FAIL = 3  # set to 1 when the buffer ran out without refill
DX_COUNT = 4  # dice rolled (statistics)
DX_LEN = 5


@njit(cache=True)
def refill(dice, rs, k):
    """The next block of d6 faces: ``Generator.integers(1, 7, size=len(dice))``."""
    for i in range(dice.shape[0]):
        dice[i] = d6(rs, k)


@njit(cache=True, inline="always")
def die(dice, dctx, rs):
    """The next d6 face of the battle's dice source (see the module docstring)."""
    p = dctx[DX_P]
    if p >= dice.shape[0]:
        if dctx[DX_REFILL] != 0:
            refill(dice, rs, dctx[DX_RS])
            p = 0
        else:
            dctx[DX_FAIL] = 1
            return 6
    dctx[DX_P] = p + 1
    dctx[DX_COUNT] += 1
    return dice[p]


@njit(cache=True, inline="always")
def absorb(k, art_left, parrot_left, parrot_here, absorbs):
    """How ``k`` hits on one section split, the rule every state layout applies: the Artisan
    there takes the first (``art_left``: hits it still absorbs), then the parrot sitting there
    (``parrot_here``; ``parrot_left``: hits it still takes), then the ring -- which the parrot's
    share does not reach when ``absorbs`` (``combat.parrot_absorbs_hits``) is on. Returns
    ``(Artisan's hits, parrot's hits, ring steps)``; all 0 when ``k <= 0``."""
    if k <= 0:
        return 0, 0, 0
    a = min(art_left, k) if art_left > 0 else 0
    k -= a
    p = 0
    if k > 0 and parrot_here and parrot_left > 0:
        p = min(parrot_left, k)
        if absorbs:
            k -= p
    return a, p, k


@njit(cache=True, inline="always")
def ring_after(pos, steps):
    """A ring at ``pos`` moved ``steps`` left: ``(new position, destroyed)``; a ring pushed off
    the mat (to 0 or below) destroys the section, a rout to resolve."""
    if steps <= 0:
        return pos, False
    v = pos - steps
    if v <= 0:
        return 0, True
    return v, False


@njit(cache=True, inline="always")
def rout_hits(ring, art_left, parrot_left, parrot_here, absorbs):
    """Hits that destroy a section: its ring steps, the Artisan's hits left, and the parrot's
    sitting there (counted only when it absorbs hits)."""
    h = ring + art_left
    if absorbs and parrot_here and parrot_left > 0:
        h += parrot_left
    return h


@njit(cache=True, inline="always")
def weakest_of(h0, h1, h2, h3):
    """The section (SECTIONS index) with the fewest hits to destroy; the first of equals."""
    best = 0
    bh = h0
    if h1 < bh:
        best = 1
        bh = h1
    if h2 < bh:
        best = 2
        bh = h2
    if h3 < bh:
        best = 3
    return best


@njit(cache=True, inline="always")
def hit_section(pos, art, php, psec, was_hit, fame, fcol, s, sec, k, absorbs, parrot_loss):
    """``k`` hits on section ``sec`` of ship ``s`` (:func:`absorb`, :func:`ring_after`) in the
    array layout of the full game and the battle kernel: ``art`` the Artisan's hits left,
    ``php`` the parrot's hits left, ``psec[s]`` its section; ``fame[s, fcol]`` loses
    ``parrot_loss`` when the parrot dies. Returns 1 when the ring fell off the mat (a rout to
    resolve), else 0. The caller checks that the ship is still in the battle."""
    if k <= 0:
        return 0
    was_hit[s] = True
    a, p, steps = absorb(k, art[s, sec], php[s], psec[s] == sec, absorbs)
    if a > 0:
        art[s, sec] -= a
    if p > 0:
        php[s] -= p
        if php[s] == 0:
            fame[s, fcol] -= parrot_loss
    v, destroyed = ring_after(pos[s, sec], steps)
    if steps > 0:
        pos[s, sec] = v
    return 1 if destroyed else 0


@njit(cache=True, inline="always")
def hits_to_rout(pos, art, php, psec, s, sec, absorbs):
    """:func:`rout_hits` of section ``sec`` of ship ``s`` in the array layout."""
    return rout_hits(pos[s, sec], art[s, sec], php[s], psec[s] == sec, absorbs)


@njit(cache=True, inline="always")
def speed(sails_value, bonus, parrot_alive, parrot_speed):
    """Sails value + Favourable wind and Overboard (``bonus``) + a living parrot's speed bonus."""
    sp = sails_value + bonus
    if parrot_alive:
        sp += parrot_speed
    return sp


@njit(cache=True, inline="always")
def num_dice(crew, cannons, parrot_alive, fixed_dice, dice_cannons, grapple):
    """Dice of a player ship's broadside: a living Long John Silver rolls ``fixed_dice``, a living
    Billy Bones the cannons value; Grapple: the crew value; else min(crew, cannons)."""
    if parrot_alive and fixed_dice > 0:
        return fixed_dice
    if parrot_alive and dice_cannons:
        return cannons
    if grapple:
        return crew
    return min(crew, cannons)


@njit(cache=True, inline="always")
def fire_threshold(at_npc, target_smoked, grapeshot, hit_on, smoke_on, grape_on, beats_smoke):
    """The lowest face that hits for a player's broadside: at a non-player ship's hull the plain
    threshold (Grapeshot: its own); at a smoked ship only Smoke's; Grapeshot's beats Smoke when
    ``beats_smoke``, else the higher of the two."""
    if at_npc:
        return grape_on if grapeshot else hit_on
    thr = smoke_on if target_smoked else hit_on
    if grapeshot:
        if beats_smoke or not target_smoked:
            thr = grape_on
        else:
            thr = max(thr, grape_on)
    return thr


@njit(cache=True, inline="always")
def npc_threshold(target_smoked, hit_on, smoke_on):
    """The lowest face that hits for a non-player ship's broadside (Smoke: only a 6)."""
    return smoke_on if target_smoked else hit_on


def _sort_desc(order, keys, lo, hi):
    """Stable insertion sort of ``order[lo:hi]`` by ``keys[item]``, highest first."""
    for k in range(lo + 1, hi):
        it = order[k]
        v = keys[it]
        q = k - 1
        while q >= lo and keys[order[q]] < v:
            order[q + 1] = order[q]
            q -= 1
        order[q + 1] = it


#: :func:`_sort_desc` compiled on its own and inside its caller (the battle kernel's speed orders
#: and its roll-offs: no call, which in the kernel's loop costs a tenth of a game's time): one
#: function, two compilations
sort_desc = njit(cache=True)(_sort_desc)
sort_desc_inline = njit(cache=True, inline="always")(_sort_desc)


@njit(cache=True)
def roll_off(dice, dctx, rs, order, keys, lo, hi, rolls, stack):
    """Settle the ties of equal ``keys`` in ``order[lo:hi]`` (already sorted, highest first) by
    die roll-offs: each tied group rolls one die per ship in its order, highest first,
    re-rolling among those still tied, the leftmost group first and depth first (a recursion
    written as a loop over ``stack``). ``rolls`` is indexed by item, ``stack`` holds (start, end)
    rows. Returns False when the dice source failed. The ties are :func:`push_ties`, the order
    among the tied :func:`sort_desc` by roll (shared with :func:`roll_off_at`)."""
    top = push_ties(order, keys, lo, hi, stack, 0)
    while top > 0:
        top -= 1
        a = stack[top, 0]
        b = stack[top, 1]
        for q in range(a, b):
            rolls[order[q]] = die(dice, dctx, rs)
        if dctx[DX_FAIL]:
            return False
        sort_desc(order, rolls, a, b)
        top = push_ties(order, rolls, a, b, stack, top)
    return True


@njit(cache=True, inline="always")
def npc_criterion(target_rule, cannons, crew, hull, spd):
    """A Legendary Pirate's first-target value of a ship (highest first): ``T_MOST_CANNONS``,
    ``T_LARGEST_CREW``, ``T_STRONGEST_HULL``, else (``T_FASTEST``) its speed."""
    if target_rule == 0:
        return cannons
    if target_rule == 1:
        return crew
    if target_rule == 2:
        return hull
    return spd


@njit(cache=True, inline="always")
def misfire_victim(face, thr, num_clockwise, victim_smoked, smoke_blocks, smoke_on):
    """Captain Hook's special: the position (1-based, clockwise from the target among the other
    ships present) a missing die hits, or 0. A die misses below ``thr``; a face ``1..num_clockwise``
    names a ship, whose hull it hits -- unless that ship is smoked, the switch is on and the face
    is below Smoke's threshold (a misfire die is not a 6)."""
    if face >= thr or face < 1 or face > num_clockwise:
        return 0
    if smoke_blocks and victim_smoked and face < smoke_on:
        return 0
    return face


@njit(cache=True, inline="always")
def regenerate(hull, hull_start, allowance, max_hull):
    """The Flying Dutchman's hull at the end of an exchange: it regains up to ``allowance`` of
    what it lost in the exchange, never above ``max_hull``."""
    lost = hull_start - hull
    return min(hull + min(lost, allowance), max_hull)


@njit(cache=True, inline="always")
def push_ties(order, keys, lo, hi, stack, top):
    """The tie rule of a roll-off: push the runs of equal ``keys`` in ``order[lo:hi]`` (sorted,
    highest first) on ``stack`` as (start, end) rows from ``top``, right to left, so that the
    leftmost run is settled first. Returns the new top."""
    i = hi - 1
    while i >= lo:
        j = i
        while j - 1 >= lo and keys[order[j - 1]] == keys[order[i]]:
            j -= 1
        if i > j:
            stack[top, 0] = j
            stack[top, 1] = i + 1
            top += 1
        i = j - 1
    return top


def _roll_off_at(dice, p, order, keys, lo, hi, rolls, stack):
    """:func:`roll_off` on a pre-generated buffer read from ``dice[p]``, with no refill (the
    battle kernel's bulk): the same ties, the same dice in the same order. Returns the pointer
    after the roll-offs, or -1 when the buffer ran out (the caller replays the battle from a
    longer buffer)."""
    L = dice.shape[0]
    top = push_ties(order, keys, lo, hi, stack, 0)
    while top > 0:
        top -= 1
        a = stack[top, 0]
        b = stack[top, 1]
        if p + (b - a) > L:
            return -1
        for q in range(a, b):
            rolls[order[q]] = dice[p]
            p += 1
        sort_desc_inline(order, rolls, a, b)
        top = push_ties(order, rolls, a, b, stack, top)
    return p


#: :func:`_roll_off_at` compiled on its own (the callers that are not hot) and inside its caller
#: (the battle kernel's per-exchange roll-offs, speed order and a pirate's tied targets: no
#: call): one function, two compilations
roll_off_at = njit(cache=True)(_roll_off_at)
roll_off_at_inline = njit(cache=True, inline="always")(_roll_off_at)


@njit(cache=True)
def clockwise_others(seats, present, tgt, n_ships, out):
    """Captain Hook's numbering of the ships a misfire can hit: the other ships still present,
    clockwise (seat order) from ship ``tgt``'s seat, written to ``out[:n]`` as ship indices
    (``seats[s]``: ship ``s``'s seat, below 1000); returns n. :func:`misfire_victim` then names
    the n-th of them."""
    tseat = seats[tgt]
    n = 0
    for s in range(n_ships):
        if present[s] and s != tgt:
            d = (seats[s] - tseat) % 1000
            q = n - 1
            while q >= 0 and (seats[out[q]] - tseat) % 1000 > d:
                out[q + 1] = out[q]
                q -= 1
            out[q + 1] = s
            n += 1
    return n


__all__ = [
    "DICE_BLOCK",
    "DX_LEN",
    "absorb",
    "clockwise_others",
    "die",
    "fire_threshold",
    "hit_section",
    "hits_to_rout",
    "misfire_victim",
    "npc_criterion",
    "npc_threshold",
    "num_dice",
    "push_ties",
    "refill",
    "regenerate",
    "ring_after",
    "roll_off",
    "roll_off_at",
    "rout_hits",
    "sort_desc",
    "speed",
    "weakest_of",
]
