"""The compiled rule core (``simulator/cove/fast/core.py``) against the scalar oracle and the
readable copies that must agree with it.

Each combat rule is written once in compiled code; the readable engines keep their own readable
versions (:mod:`tests.cove_battle_oracle`, the independent scalar oracle;
:mod:`simulator.cove.duel`, the exact duels' transitions; ``PirateOdds`` of
``tests/cove_odds_oracle.py``, the players' odds' oracle). Here every one of them is checked against
the core on every state of a grid (brute force, no sampling): a hit on a section (Artisan, then the
parrot there, then the ring, the ring off the mat, the parrot's death), the hits that destroy a
section, the weakest section, the speed and the dice count -- with both readings of
``combat.parrot_absorbs_hits``.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from scenarios import load_scenario
from simulator.cove.combat_policies import RulePolicy
from simulator.cove.duel import DuelShip, _Side
from simulator.cove.fast import core
from simulator.cove.rules import SECTIONS, CoveRules
from tests.cove_battle_oracle import BattleShip, _Battle
from tests.cove_odds_oracle import PirateOdds

BASE = load_scenario(None, CoveRules).rules
F_PARROT = 4  # the fame column hit_section's caller names (any column works)


def rules_with(absorbs: bool) -> CoveRules:
    return dataclasses.replace(
        BASE, combat=dataclasses.replace(BASE.combat, parrot_absorbs_hits=absorbs)
    )


PARROTS = [None, *BASE.parrots]  # no parrot, then one sitting on each section
RINGS = range(BASE.ship_mat.num_positions + 1)  # 0: already off the mat
ARTS = range(BASE.combat.artisan_absorbs + 1)
PHPS = range(BASE.combat.parrot_hits_to_kill + 1)
KS = range(8)


def psec_of(rules: CoveRules, parrot) -> int:
    return -1 if parrot is None else SECTIONS.index(rules.parrots[parrot].section)


def oracle_battle(rules, positions, parrot):
    """A one-ship battle of the scalar oracle (no opponent: only its rule methods are used)."""
    return _Battle(
        rules,
        [BattleShip(0, list(positions), parrot=parrot)],
        None,
        [RulePolicy()],
        np.random.default_rng(0),
        "hull",
        None,
        None,
    )


def core_hit(rules, parrot, ring, art, php, sec, k):
    """(ring, Artisan, parrot hits left, fame change, destroyed) after core.hit_section."""
    pos = np.full((1, 4), 3, np.int64)
    pos[0, sec] = ring
    arts = np.zeros((1, 4), np.int64)
    arts[0, sec] = art
    phps = np.array([php], np.int64)
    psec = np.array([psec_of(rules, parrot)], np.int64)
    fame = np.zeros((1, 6), np.int64)
    was_hit = np.zeros(1, np.bool_)
    c = rules.combat
    out = core.hit_section(
        pos, arts, phps, psec, was_hit, fame, F_PARROT, 0, sec, k,
        c.parrot_absorbs_hits, c.parrot_death_fame_loss,
    )  # fmt: skip
    assert bool(was_hit[0]) == (k > 0)
    return int(pos[0, sec]), int(arts[0, sec]), int(phps[0]), int(fame[0, F_PARROT]), bool(out)


def pure_hit(rules, parrot, ring, art, php, sec, k):
    """The same from the pure rules absorb + ring_after."""
    a, p, steps = core.absorb(
        k, art, php, psec_of(rules, parrot) == sec, rules.combat.parrot_absorbs_hits
    )
    new_ring, destroyed = core.ring_after(ring, steps)
    dead = p > 0 and php - p == 0
    fame = -rules.combat.parrot_death_fame_loss if dead else 0
    return new_ring, art - a, php - p, fame, bool(destroyed)


def oracle_hit(rules, parrot, ring, art, php, sec, k):
    """The same from the scalar oracle, battle._Battle.hit_section."""
    b = oracle_battle(rules, [3, 3, 3, 3], parrot)
    ship = b.ships[0]
    ship.pos[sec] = ring
    ship.art = [0, 0, 0, 0]
    ship.art[sec] = art
    ship.parrot_hp = php if parrot is not None else 0
    b.hit_section(ship, sec, k, by=1)
    return ship.pos[sec], ship.art[sec], ship.parrot_hp, ship.fame["parrot_death"]


def pure_steps(rules, parrot, art, php, sec, k):
    return core.absorb(
        k, art, php, psec_of(rules, parrot) == sec, rules.combat.parrot_absorbs_hits
    )[2]


GRID = list(itertools.product(PARROTS, RINGS, ARTS, PHPS, range(4), KS))


@pytest.mark.parametrize("absorbs", [True, False])
def test_a_hit_on_a_section_is_the_oracles_in_every_layout(absorbs):
    """core.hit_section (the array layout of the full game and the kernel), the pure absorb +
    ring_after, battle._Battle.hit_section (the scalar oracle), duel._Side.hit (the exact duels)
    and PirateOdds.hit (the readable players' odds): the same ring, Artisan, parrot and fame on
    every (parrot, ring, Artisan hits left, parrot hits left, section, hits) of the grid."""
    rules = rules_with(absorbs)
    po = PirateOdds(rules)
    sides = {p: _Side(rules, DuelShip(parrot=p)) for p in PARROTS}
    checked = 0
    for parrot, ring, art, php, sec, k in GRID:
        if parrot is None and php:
            continue  # no parrot: no parrot hits
        got = core_hit(rules, parrot, ring, art, php, sec, k)
        assert got == pure_hit(rules, parrot, ring, art, php, sec, k)
        b_ring, b_art, b_php, b_fame = oracle_hit(rules, parrot, ring, art, php, sec, k)
        assert (b_ring, b_art, b_php, b_fame) == got[:4], (parrot, ring, art, php, sec, k)
        # destroyed: the ring moved and fell off the mat
        steps = pure_steps(rules, parrot, art, php, sec, k)
        assert got[4] == (steps > 0 and ring - steps <= 0)
        st = [3, 3, 3, 3, 0, 0, 0, 0, php]
        st[sec] = ring
        st[4 + sec] = art
        d_st, died = sides[parrot].hit(tuple(st), (sec,), k)
        assert (d_st[sec], d_st[4 + sec], d_st[8]) == got[:3]
        assert died == (got[3] != 0)
        o_st = po.hit(tuple(st), parrot, sec, k)
        assert (o_st[sec], o_st[4 + sec], o_st[8]) == got[:3]
        checked += 1
    assert checked > 5000


@pytest.mark.parametrize("absorbs", [True, False])
def test_hits_to_destroy_and_the_weakest_section_are_the_readable_ones(absorbs):
    """core.rout_hits / hits_to_rout and weakest_of against the oracle's protection (the
    players' ShipView.hits_to_rout) and PirateOdds.weakest_section, on every ring and protection
    of a grid with each parrot."""
    rules = rules_with(absorbs)
    po = PirateOdds(rules)
    n = rules.ship_mat.num_positions
    for parrot in PARROTS:
        b = oracle_battle(rules, [3, 3, 3, 3], parrot)
        ship = b.ships[0]
        ps = psec_of(rules, parrot)
        for rings in itertools.product(range(1, n + 1), repeat=4):
            if len(set(rings)) > 2 and rings[0] % 2:
                continue  # a thinned grid of rings (all pairs kept)
            for art_sec, php in itertools.product(range(-1, 4), PHPS):
                if parrot is None and php:
                    continue
                art = [0, 0, 0, 0]
                if art_sec >= 0:
                    art[art_sec] = rules.combat.artisan_absorbs
                ship.pos = list(rings)
                ship.art = list(art)
                ship.parrot_hp = php
                view = b.view(ship).ships[0]
                want = view.hits_to_rout()
                pos = np.array([rings], np.int64)
                arts = np.array([art], np.int64)
                got = tuple(
                    core.hits_to_rout(pos, arts, np.array([php]), np.array([ps]), 0, s, absorbs)
                    for s in range(4)
                )
                assert (
                    got
                    == want
                    == tuple(
                        core.rout_hits(rings[s], art[s], php, ps == s, absorbs) for s in range(4)
                    )
                )
                st = (*rings, *art, php)
                assert core.weakest_of(*got) == po.weakest_section(st, parrot)


def test_speed_and_dice_are_the_readable_ones():
    """core.speed and core.num_dice against the oracle's speed / num_dice, the exact duels'
    _Side.speed / dice and PirateOdds.speed / dice: every ring of sails, crew and cannons, each
    parrot alive or dead, Grapple or not, with Favourable wind and Overboard bonuses."""
    rules = BASE
    po = PirateOdds(rules)
    mat = rules.ship_mat
    n = mat.num_positions
    c = rules.combat
    for parrot in PARROTS:
        side = _Side(rules, DuelShip(parrot=parrot))
        spec = rules.parrots[parrot] if parrot else None
        for crew, cannons, sails, alive, grapple, wind, overboard in itertools.product(
            range(1, n + 1), range(1, n + 1), range(1, n + 1), (0, 1), (False, True),
            (0, 1), (0, 2),
        ):  # fmt: skip
            php = alive if parrot else 0
            b = oracle_battle(rules, [3, crew, cannons, sails], parrot)
            ship = b.ships[0]
            ship.parrot_hp = php
            ship.wind = wind
            ship.overboard = overboard
            b.grapple = grapple
            bonus = wind * c.favourable_wind_speed + overboard * c.overboard_speed_per_chest
            live = php > 0
            sp = core.speed(mat.sails[sails - 1], bonus, live, spec.speed_bonus if spec else 0)
            nd = core.num_dice(
                mat.crew[crew - 1], mat.cannons[cannons - 1], live,
                spec.fixed_dice if spec else 0, bool(spec.dice_equal_cannons) if spec else False,
                grapple,
            )  # fmt: skip
            assert sp == b.speed(ship)
            assert nd == b.num_dice(ship)
            st = (3, crew, cannons, sails, 0, 0, 0, 0, php)
            assert side.dice(st, grapple=grapple) == nd == po.dice(st, parrot, grapple)
            if not bonus:
                assert side.speed(st) == sp == po.speed(st, parrot, 0)
            assert po.speed(st, parrot, bonus) == sp


def test_captain_hooks_numbering_is_the_oracles():
    """core.clockwise_others (Hook's misfire numbering in the full game and the kernel) against
    the scalar oracle's (battle._Battle.npc_turn: the other present ships sorted by seat distance
    clockwise from the target, % 1000): every target, every subset of present ships, seats with
    gaps, in any ship order."""
    seat_sets = [(0, 1, 2, 3, 4), (4, 0, 3, 1, 2), (2, 7, 5, 0, 9)]
    for seats in seat_sets:
        S = len(seats)
        arr = np.array(seats, np.int64)
        out = np.zeros(S, np.int64)
        for mask in range(1 << S):
            present = np.array([(mask >> s) & 1 == 1 for s in range(S)])
            for tgt in range(S):
                if not present[tgt]:
                    continue
                n = core.clockwise_others(arr, present, tgt, S, out)
                want = sorted(range(S), key=lambda s: seats[s])  # by_seat
                want = [s for s in want if present[s] and s != tgt]
                want.sort(key=lambda s: (seats[s] - seats[tgt]) % 1000)
                assert list(out[:n]) == want
        # the same numbering on a column view of a wider table (the kernel's layout)
        table = np.zeros((S, 3), np.int64)
        table[:, 1] = seats
        present = np.ones(S, np.bool_)
        n = core.clockwise_others(table[:, 1], present, 0, S, out)
        assert n == S - 1
        assert [seats[s] for s in out[:n]] == sorted(
            (x for x in seats if x != seats[0]), key=lambda x: (x - seats[0]) % 1000
        )


@pytest.mark.parametrize("hit_on", range(1, 8))
def test_one_dies_hit_chance_is_the_count_of_its_hitting_faces(hit_on):
    """``tables.hit_chance`` (the exact duels', the lone solver's and the game's pmf tables) is
    the share of the six faces that hit under the rule core's own test (``core.fire_threshold``
    with the threshold ``hit_on``: a face hits when it is at least the threshold), exact and as
    a float; the pmf tables' one-die row is (1 - p, p)."""
    from fractions import Fraction

    from simulator.cove.fast import lone
    from simulator.cove.tables import hit_chance

    thr = core.fire_threshold(False, False, False, hit_on, 6, 3, True)
    faces = sum(1 for f in range(1, 7) if f >= thr)
    assert hit_chance(hit_on, exact=True) == Fraction(faces, 6)
    assert hit_chance(hit_on) == faces / 6
    rules = dataclasses.replace(BASE, combat=dataclasses.replace(BASE.combat, hit_on=hit_on))
    pmf = lone.tables(rules).pmf
    assert pmf[lone.PMF_HIT, 1, :2].tolist() == [1 - faces / 6, faces / 6]
