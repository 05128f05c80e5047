"""The compiled players' views on the rule core (simulator.cove.fast.players, players_ev,
players_ev_battle) against a brute-force oracle, state by state.

The compiled players read a ship's hits to rout, its weakest section and its dice after hits
through the rule core (``core.rout_hits``, ``core.weakest_of``, ``core.absorb``,
``core.ring_after``, ``core.num_dice``); the oracle (:func:`hits_one_by_one`) hits a section one
hit at a time -- the Artisan takes it while it can, then the parrot sitting there (the ring
moving too unless parrots absorb hits), then the ring -- and reads the dice from the rules'
text (a living Long John Silver: its dice; a living Billy Bones: the cannons; else the fewer of
crew and cannons). Every table state of a grid (rings, an Artisan and what it absorbed, each
parrot or none, its wound), under both readings of ``combat.parrot_absorbs_hits``, is asked of
both: the answers must be equal. The v1 player's own reading (its parrot always protects,
``players.V1_PARROT_ABSORBS``) is checked by the flipped switch: its answers must not change
with it. Exhaustive and exact: nothing random.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from scenarios.loader import load_scenario
from simulator.cove.fast import battle as fb
from simulator.cove.fast import lone
from simulator.cove.fast import players as fp
from simulator.cove.fast import players_ev as pev
from simulator.cove.fast import players_ev_battle as eb
from simulator.cove.fast.packed import (
    BS_PARROT,
    BS_PBONES,
    BS_PFIXED,
    CANNONS,
    CREW,
    P_PARROT_ABSORBS,
    PA_DICE_CANNONS,
    PA_FIXED_DICE,
    PA_SECTION,
    S_ART,
    S_HAND,
    S_PARROT,
    S_RING,
    S_WOUNDS,
    pack_rules,
)
from simulator.cove.rules import SECTIONS, CoveRules

RINGS = (1, 3)  # per section: 16 ring combinations
WOUNDS = (0, 1)


def _rules(absorbs: bool) -> CoveRules:
    rules = load_scenario(None, CoveRules).rules
    return replace(rules, combat=replace(rules.combat, parrot_absorbs_hits=absorbs))


def _states(rules: CoveRules):
    """(ring, artisans, parrot, wounds) of the grid: no Artisan or one on any section having
    absorbed 0 or all but one of its hits; no parrot, or each parrot unhurt or wounded."""
    used = sorted({0, rules.combat.artisan_absorbs - 1})
    arts = [()] + [((k, u),) for k in range(4) for u in used]
    parrots = [(None, 0)] + [(p, w) for p in rules.parrots for w in WOUNDS]
    for ring in itertools.product(RINGS, repeat=4):
        for artisans in arts:
            for parrot, wounds in parrots:
                yield ring, artisans, parrot, wounds


def hits_one_by_one(rules: CoveRules, ring, artisans, parrot, wounds, sec, k, absorbs):
    """The oracle: ``k`` hits on section ``sec``, one at a time (``k = None``: until its ring
    falls off the mat). Returns (hits taken, the section's ring after, the parrot alive)."""
    c = rules.combat
    pos = ring[sec]
    art = dict(artisans)
    art_left = c.artisan_absorbs - art[sec] if sec in art else 0
    sits = parrot is not None and SECTIONS.index(rules.parrots[parrot].section) == sec
    php = c.parrot_hits_to_kill - wounds if parrot is not None else 0
    n = 0
    while (pos > 0) if k is None else (n < k):
        n += 1
        if art_left > 0:
            art_left -= 1
        elif sits and php > 0:
            php -= 1
            if not absorbs:
                pos = max(pos - 1, 0)
        else:
            pos = max(pos - 1, 0)
    return n, pos, parrot is None or php > 0


def dice_of(rules: CoveRules, crew_pos, cannons_pos, parrot, alive):
    """The dice of a ship (no Grapple), from the rules' text."""
    mat = rules.ship_mat
    crew = mat.crew[crew_pos - 1] if crew_pos > 0 else 0
    cannons = mat.cannons[cannons_pos - 1] if cannons_pos > 0 else 0
    if parrot is not None and alive:
        card = rules.parrots[parrot]
        if card.fixed_dice:
            return card.fixed_dice
        if card.dice_equal_cannons:
            return cannons
    return min(crew, cannons)


def dice_after(rules: CoveRules, ring, artisans, parrot, wounds, lo, hi, k):
    """The v1 player's dice after ``k`` hits on each section of ``lo..hi-1`` (its reading: the
    parrot always protects its section)."""
    pos = list(ring)
    alive = True
    for sec in range(lo, hi):
        _, pos[sec], ok = hits_one_by_one(rules, ring, artisans, parrot, wounds, sec, k, True)
        alive = alive and ok
    return dice_of(rules, pos[CREW], pos[CANNONS], parrot, alive)


def _table(rules: CoveRules, ring, artisans, parrot, wounds) -> np.ndarray:
    st = np.zeros((1, S_HAND + 8), np.int64)
    st[0, S_RING : S_RING + 4] = ring
    st[0, S_ART : S_ART + 4] = -1
    for k, u in artisans:
        st[0, S_ART + k] = u
    st[0, S_PARROT] = list(rules.parrots).index(parrot) if parrot else -1
    st[0, S_WOUNDS] = wounds
    return st


@pytest.fixture(scope="module", params=(True, False), ids=("absorbs", "no-absorbs"))
def case(request):
    rules = _rules(request.param)
    return rules, pack_rules(rules).arrays()


def test_table_hits_weakest_and_dice_track(case):
    """``players.view_hits_to_rout`` / ``table_weakest`` / ``dice_track`` (the v1 player) and
    ``players_ev.hits_to_rout`` / ``table_weakest`` (the expected-value player) equal the
    oracle's hits to rout (the v1 reading: the parrot always protects; the expected-value one:
    as the rule switch says), the fewest of them (the first section of equals) and the dice after
    0..k hits on every state of the grid (1,296 states, 4 sections each)."""
    rules, tab = case
    prm, val, par = tab.prm, tab.val, tab.par
    absorbs = prm[P_PARROT_ABSORBS]
    out = np.zeros(64, np.int64)
    n = 0
    for ring, artisans, parrot, wounds in _states(rules):
        st = _table(rules, ring, artisans, parrot, wounds)
        state = (rules, ring, artisans, parrot, wounds)
        h1 = [hits_one_by_one(*state, s, None, True)[0] for s in range(4)]
        he = [hits_one_by_one(*state, s, None, bool(absorbs))[0] for s in range(4)]
        assert [fp.view_hits_to_rout(prm, par, st, 0, s) for s in range(4)] == h1
        assert [pev.hits_to_rout(prm, par, st, 0, s) for s in range(4)] == he
        w1 = min(range(4), key=lambda s: (h1[s], s))
        we = min(range(4), key=lambda s: (he[s], s))
        assert fp.table_weakest(prm, par, st, 0, fp.V1_PARROT_ABSORBS) == (h1[w1], w1)
        assert fp.table_weakest(prm, par, st, 0, absorbs) == (he[we], we)
        for lo, hi in [(s, s + 1) for s in range(4)] + [(0, 4)]:
            k = min(h1[lo:hi])
            fp.dice_track(prm, val, par, st, 0, lo, hi, k, out)
            assert list(out[: k + 1]) == [dice_after(*state, lo, hi, t) for t in range(k + 1)]
        n += 1
    assert n == 16 * 9 * 9


def test_v1_reading_ignores_the_parrot_switch():
    """The v1 player's parrot protects its section under either reading of
    ``parrot_absorbs_hits`` (``players.V1_PARROT_ABSORBS``: its reading, not the rule), and the
    expected-value player's hits differ exactly where a parrot sits."""
    on, off = _rules(True), _rules(False)
    t_on, t_off = pack_rules(on).arrays(), pack_rules(off).arrays()
    differs = 0
    for ring, artisans, parrot, wounds in _states(on):
        st = _table(on, ring, artisans, parrot, wounds)
        for s in range(4):
            a = fp.view_hits_to_rout(t_on.prm, t_on.par, st, 0, s)
            assert a == fp.view_hits_to_rout(t_off.prm, t_off.par, st, 0, s)
            e_on = pev.hits_to_rout(t_on.prm, t_on.par, st, 0, s)
            e_off = pev.hits_to_rout(t_off.prm, t_off.par, st, 0, s)
            sits = parrot is not None and SECTIONS.index(on.parrots[parrot].section) == s
            hp = on.combat.parrot_hits_to_kill - wounds
            assert e_on - e_off == (hp if sits else 0)
            differs += e_on != e_off
    assert differs > 0


def test_battle_view_weakest_grapple_gain_and_battle_track(case):
    """``players.bview_weakest`` is the oracle's fewest hits to rout (the rule switch's reading)
    and the first section of equals; ``players_ev_battle._grapple_gain`` is 0 with a living
    parrot's dice power, else crew - min(crew, cannons); ``players_ev_battle.battle_track`` is
    the oracle's dice after 0..hits hits on that section; on every state of the grid, the
    parrot alive (its hits left: parrot_hits_to_kill less its wound) or dead (0 left)."""
    rules, tab = case
    prm, val, par = tab.prm, tab.val, tab.par
    lt = lone.tables(rules)
    trk = np.zeros(64, np.int64)
    kill = rules.combat.parrot_hits_to_kill
    bt = fb.scratch(8)
    bsh, pos, art, php, psec = bt.bsh, bt.pos, bt.art, bt.php, bt.psec
    keys = list(rules.parrots)
    absorbs = rules.combat.artisan_absorbs
    for ring, artisans, parrot, wounds in _states(rules):
        pos[0, :] = ring
        art[0, :] = 0
        for k, u in artisans:
            art[0, k] = absorbs - u
        row = keys.index(parrot) if parrot else -1
        bsh[0, :] = 0
        bsh[0, BS_PARROT] = row
        psec[0] = par[row, PA_SECTION] if row >= 0 else -1
        if row >= 0:
            bsh[0, BS_PFIXED] = par[row, PA_FIXED_DICE]
            bsh[0, BS_PBONES] = par[row, PA_DICE_CANNONS]
        for hp in (0, rules.combat.parrot_hits_to_kill - wounds) if row >= 0 else (0,):
            php[0] = hp
            state = (rules, ring, artisans, parrot, kill - hp if parrot else 0)
            h = [hits_one_by_one(*state, s, None, bool(prm[P_PARROT_ABSORBS]))[0] for s in range(4)]
            assert [fp.bview_hits(prm, bt, 0, s) for s in range(4)] == h
            weak = h.index(min(h))
            assert fp.bview_weakest(prm, bt, 0) == (min(h), weak)
            assert eb.battle_track(tab, lt, bt, 0, trk) == min(h)
            for t in range(min(h) + 1):
                _, left, alive = hits_one_by_one(*state, weak, t, bool(prm[P_PARROT_ABSORBS]))
                after = list(ring)
                after[weak] = left
                assert trk[t] == dice_of(rules, after[CREW], after[CANNONS], parrot, alive)
            crew, cannons = val[CREW, ring[CREW]], val[CANNONS, ring[CANNONS]]
            power = hp > 0 and (par[row, PA_FIXED_DICE] > 0 or par[row, PA_DICE_CANNONS] != 0)
            assert eb._grapple_gain(tab, bt, 0) == (0 if power else crew - min(crew, cannons))
