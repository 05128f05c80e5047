"""Exact single-volley, boarding and disengagement odds of Pirates express.

Three sources must agree: brute-force enumeration of every die face (with rerolls), the exact
``Fraction`` odds of the scenario (``api.volley_odds`` etc., which are the ones ``broadside odds``
prints), and the compiled engine's own rollers (Monte Carlo, within 4.5 standard errors).
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from scenarios.loader import load_scenario
from simulator.express import api, battle
from simulator.express.core import CAPTAIN, GUNNER, MUSKETEER, pack_rules
from simulator.express.rules import ExpressRules

RULES = load_scenario(None, ExpressRules).rules
PACKED = pack_rules(RULES)

#: the seed's table, written out independently of the scenario file: (lowest cm, highest cm, d6)
SEED_BANDS = [
    (1, 5, 1),
    (6, 10, 2),
    (11, 15, 3),
    (16, 20, 4),
    (21, 25, 5),
    (26, 30, 6),
    (31, 60, 7),
]


def bf_volley(dice: int, hit_on: int, rerolls: int) -> dict[int, Fraction]:
    """Brute force: every face of the first roll, then every face of the rerolled misses."""
    out: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=dice):
        hits = sum(f >= hit_on for f in faces)
        k = min(rerolls, dice - hits)
        for again in itertools.product(range(1, 7), repeat=k):
            h = hits + sum(f >= hit_on for f in again)
            out[h] = out.get(h, Fraction(0)) + Fraction(1, 6 ** (dice + k))
    return out


def as_dict(pmf) -> dict[int, Fraction]:
    return {k: p for k, p in enumerate(pmf) if p}


def within(counts: np.ndarray, n: int, exact: dict[int, float], k_se: float = 4.5) -> None:
    for v, p in exact.items():
        p = float(p)
        se = max(np.sqrt(p * (1 - p) / n), 1e-12)
        got = counts.get(v, 0) / n
        assert abs(got - p) <= k_se * se + 1e-12, (v, got, p)


@pytest.mark.parametrize("lo,hi,need", SEED_BANDS)
def test_range_bands_match_the_seed(lo, hi, need):
    for r in range(lo, hi + 1):
        assert api.hit_on_at(r, PACKED.hit_on_cm) == need


def test_contact_range_is_automatic():
    assert api.hit_on_at(0, PACKED.hit_on_cm) == 1


@pytest.mark.parametrize("range_cm", [3, 8, 13, 18, 23, 28, 33])
@pytest.mark.parametrize(
    "masts,captain,gunner,nation",
    [
        (1, False, False, None),
        (3, False, False, None),
        (2, True, False, None),
        (2, False, True, None),
        (2, True, True, "pirates"),
        (4, False, False, "pirates"),
    ],
)
def test_single_volley_exact_vs_brute_force(range_cm, masts, captain, gunner, nation):
    exact = as_dict(
        api.volley_odds(RULES, masts, range_cm, captain=captain, gunner=gunner, nation=nation)
    )
    need = api.hit_on_at(range_cm, PACKED.hit_on_cm)
    rerolls = int(captain) + (1 if nation == "pirates" else 0)
    dice = masts + int(gunner)
    assert exact == bf_volley(dice, need, rerolls)
    assert sum(exact.values()) == 1


@pytest.mark.parametrize("range_cm", [1, 6, 11, 16, 21, 26, 31])
def test_engine_volley_sampler_matches_exact(range_cm):
    need = api.hit_on_at(range_cm, PACKED.hit_on_cm)
    n = 40_000
    rng = np.random.default_rng(range_cm)
    hits = battle.sample_volleys(rng, n, 4, need, 2)
    exact = as_dict(
        api.volley_odds(RULES, 3, range_cm, captain=True, gunner=True, nation="pirates")
    )
    counts = dict(zip(*np.unique(hits, return_counts=True)))
    within(counts, n, exact)
    assert set(counts) <= set(exact)


def _cli_json(args):
    from cli import cli

    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


@pytest.mark.parametrize("range_cm", [4, 14, 29])
def test_volley_matches_broadside_odds(range_cm):
    need = api.hit_on_at(range_cm, PACKED.hit_on_cm)
    obj = _cli_json(
        [
            "odds",
            "volley",
            "--dice",
            "3",
            "--hit-on",
            str(need),
            "--reroll-misses",
            "1",
            "--extra-dice",
            "1",
            "--format",
            "json",
        ]
    )
    exact = api.volley_odds(RULES, 3, range_cm, captain=True, gunner=True)
    for k, p in enumerate(exact):
        assert obj["probabilities"][str(k)] == pytest.approx(float(p), abs=1e-12)


def bf_boarding(da: int, db: int, ra: int, rb: int, on: int = 3) -> dict[int, Fraction]:
    a = bf_volley(da, on, ra) if da else {0: Fraction(1)}
    b = bf_volley(db, on, rb) if db else {0: Fraction(1)}
    out: dict[int, Fraction] = {}
    for sa, pa in a.items():
        for sb, pb in b.items():
            out[sa - sb] = out.get(sa - sb, Fraction(0)) + pa * pb
    return out


@pytest.mark.parametrize(
    "ma,mb,ea,eb,ra,rb",
    [
        (1, 1, 0, 0, 0, 0),
        (3, 2, 0, 0, 0, 0),
        (2, 3, 1, 0, 1, 0),
        (0, 3, 1, 0, 0, 0),
        (2, 2, 1, 1, 1, 1),
    ],
)
def test_boarding_exact_vs_brute_force(ma, mb, ea, eb, ra, rb):
    exact = {
        k: v
        for k, v in api.boarding_odds(
            RULES, ma, mb, extra_a=ea, extra_b=eb, reroll_a=ra, reroll_b=rb
        ).items()
        if v
    }
    da = ma + ea if ma else 0  # a mastless ship rolls nothing, extra dice included (notes 7)
    db = mb + eb if mb else 0
    assert exact == bf_boarding(da, db, ra, rb)


def test_boarding_matches_broadside_odds():
    obj = _cli_json(
        [
            "odds",
            "boarding",
            "--masts",
            "3",
            "--vs",
            "2",
            "--extra-dice",
            "1",
            "--reroll-misses",
            "1",
            "--format",
            "json",
        ]
    )
    exact = api.boarding_odds(RULES, 3, 2, extra_a=1, reroll_a=1)
    for k, p in exact.items():
        assert obj["probabilities"][str(k)] == pytest.approx(float(p), abs=1e-12)


@pytest.mark.parametrize(
    "masts,crews,nat_dice,nat_rr,extra,rr",
    [
        # viking musketeer (+2 dice) vs captain (1 reroll)
        ((3, 2), (MUSKETEER, CAPTAIN), (1, 0), (0, 0), (2, 0), (0, 1)),
        # pirates captain (2 rerolls) vs a gunner (no boarding effect)
        ((2, 3), (CAPTAIN, GUNNER), (0, 0), (1, 0), (0, 0), (2, 0)),
        # mastless defender rolls nothing even as a Viking musketeer
        ((2, 0), (-1, MUSKETEER), (0, 1), (0, 0), (0, 0), (0, 0)),
    ],
)
def test_engine_boarding_sampler_matches_exact(masts, crews, nat_dice, nat_rr, extra, rr):
    n = 40_000
    rng = np.random.default_rng(7)
    diff = battle.sample_boardings(
        rng, n, np.array(masts), np.array(crews), np.array(nat_dice), np.array(nat_rr), PACKED.ri
    )
    exact = api.boarding_odds(
        RULES,
        masts[0],
        masts[1],
        extra_a=extra[0],
        extra_b=extra[1],
        reroll_a=rr[0],
        reroll_b=rr[1],
    )
    counts = dict(zip(*np.unique(diff, return_counts=True)))
    within(counts, n, exact)


@pytest.mark.parametrize(
    "start,masts,nation,cap_rule,expect",
    [
        (3, 3, None, 6, 3),
        (3, 2, None, 6, 4),  # the seed's example
        (5, 4, None, 6, 6),
        (5, 3, None, 6, 6),  # capped at 6+ (notes 8)
        (5, 3, None, 7, 7),  # switch: impossible above 6+
        (5, 0, "turkish", 6, 3),
        (2, 2, "turkish", 6, 2),  # Turks never above 3+
        (1, 1, None, 6, 1),
    ],
)
def test_disengagement_difficulty_and_odds(start, masts, nation, cap_rule, expect):
    import dataclasses

    rules = dataclasses.replace(
        RULES, disengagement=dataclasses.replace(RULES.disengagement, cap=cap_rule)
    )
    d, p = api.disengage_odds(rules, start, masts, nation)
    assert d == expect
    brute = Fraction(sum(1 for f in range(1, 7) if f >= d), 6)
    assert p == brute
    n = 30_000
    cap_n = rules.nations[nation].disengage_cap if nation else 0
    ok, d_engine = battle.sample_disengage(
        np.random.default_rng(3), n, start, masts, cap_n, cap_rule
    )
    assert d_engine == d
    se = max(float(np.sqrt(float(p * (1 - p)) / n)), 1e-12)
    assert abs(ok / n - float(p)) <= 4.5 * se + 1e-12


def test_disengagement_automatic_against_mastless():
    assert api.disengage_odds(RULES, 5, 1, vs_mastless=True) == (1, Fraction(1))


@pytest.mark.parametrize(
    "a,b,nat_a,crew_a",
    [
        ("spain:3", "spain:2", "spain", None),
        ("viking:1 musketeer@0", "spain:3", "viking", "musketeer"),
        ("pirates:2 captain@0", "chinese:4", "pirates", "captain"),
    ],
)
def test_boarder_expected_vp_swing_is_exact(a, b, nat_a, crew_a):
    """The boarder commander's expected VP swing equals the exact boarding odds applied to VP."""
    from simulator.express.commanders import _board_edge
    from simulator.express.fleets import hull_points, parse_fleet

    pairing = api.make_pairing(a, b, RULES, "boarder")
    si = np.zeros((2, 1, 15), dtype=np.int64)
    rng = np.random.default_rng(0)
    sf = np.zeros((2, 1, 2))
    battle._setup(
        rng,
        si,
        sf,
        np.zeros((1, 1), dtype=np.bool_),
        np.zeros(5),
        np.zeros(2, dtype=np.int64),
        pairing.fleets,
        pairing.ri,
        pairing.rf,
    )
    got = _board_edge(si, pairing.nations, 0, 0, 1, 0, pairing.ri)
    fa, fb = parse_fleet(a, RULES), parse_fleet(b, RULES)
    nat = RULES.nations
    ea = nat[nat_a].boarding_extra_dice + (1 if crew_a == "musketeer" else 0)
    ra = nat[nat_a].attack_rerolls + (1 if crew_a == "captain" else 0)
    eb = nat[fb.nation].boarding_extra_dice
    rb = nat[fb.nation].attack_rerolls
    hold_a = fa.ships[0].masts + hull_points(RULES, fa.nation, fa.ships[0].masts)
    hold_b = fb.ships[0].masts + hull_points(RULES, fb.nation, fb.ships[0].masts)
    ev = Fraction(0)
    for d, p in api.boarding_odds(
        RULES,
        fa.ships[0].masts,
        fb.ships[0].masts,
        extra_a=ea,
        extra_b=eb,
        reroll_a=ra,
        reroll_b=rb,
    ).items():
        if d > 0:
            ev += p * (min(d, hold_b) + (2 + nat[nat_a].extra_vp_per_sink if d > hold_b else 0))
        elif d < 0:
            ev -= p * (
                min(-d, hold_a) + (2 + nat[fb.nation].extra_vp_per_sink if -d > hold_a else 0)
            )
    assert got == pytest.approx(float(ev), abs=1e-12)
