"""Exact dice odds against brute force, and sampling against exact within k standard errors."""

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as sps

from simulator import dice
from tests.oracles import bf_boarding, bf_volley


@pytest.mark.parametrize("n", range(5))
@pytest.mark.parametrize("hit_on", [1, 2, 3, 4, 5, 6, 7])
def test_volley_equals_brute_force(n, hit_on):
    assert list(dice.volley_pmf(n, hit_on)) == bf_volley(n, hit_on)


@pytest.mark.parametrize(
    "n,hit_on,k,e", [(3, 5, 1, 0), (2, 4, 2, 1), (3, 6, 3, 0), (1, 3, 1, 1), (4, 2, 1, 0)]
)
def test_volley_with_rerolls_and_extra_dice_equals_brute_force(n, hit_on, k, e):
    assert list(dice.volley_pmf(n, hit_on, k, e)) == bf_volley(n, hit_on, k, e)


def test_volley_is_binomial_without_rerolls():
    pmf = dice.volley_pmf(3, 5)
    assert pmf == (Fraction(8, 27), Fraction(12, 27), Fraction(6, 27), Fraction(1, 27))
    assert np.allclose([float(p) for p in pmf], sps.binom.pmf(range(4), 3, 1 / 3))


@pytest.mark.parametrize(
    "a,b,ea,eb", [(1, 1, 0, 0), (2, 1, 0, 0), (3, 2, 0, 0), (2, 2, 1, 0), (1, 3, 0, 1)]
)
def test_boarding_equals_brute_force(a, b, ea, eb):
    assert dice.boarding_pmf(a, b, ea, eb) == bf_boarding(a, b, ea, eb)


def test_pmfs_sum_to_one():
    for n in range(8):
        for t in range(1, 8):
            assert sum(dice.volley_pmf(n, t, 2, 1)) == 1
    assert sum(dice.boarding_pmf(5, 4, 1, 1, 3, 1, 0).values()) == 1


def test_p_hit_edges():
    assert dice.p_hit(1) == 1 and dice.p_hit(0) == 1
    assert dice.p_hit(7) == 0
    assert dice.p_hit(5) == Fraction(1, 3)


@pytest.mark.parametrize("n,hit_on,k,e", [(3, 5, 0, 0), (4, 4, 1, 1), (5, 6, 2, 0)])
def test_sampled_volleys_within_4_se_of_exact(n, hit_on, k, e):
    rng = np.random.default_rng(20261130)
    trials = 200_000
    hits = dice.sample_volley(rng, trials, n, hit_on, k, e)
    counts = np.bincount(hits, minlength=n + e + 1)
    exact = np.array([float(p) for p in dice.volley_pmf(n, hit_on, k, e)])
    est = counts / trials
    se = np.sqrt(exact * (1 - exact) / trials)
    mask = se > 0
    assert np.all(np.abs(est[mask] - exact[mask]) < 4 * se[mask])
    assert np.all(est[~mask] == exact[~mask])


def test_sampled_boarding_within_4_se_of_exact():
    rng = np.random.default_rng(7)
    trials = 200_000
    diff = dice.sample_boarding(rng, trials, 3, 2, 1, 0)
    exact = dice.boarding_pmf(3, 2, 1, 0)
    for v, p in exact.items():
        p = float(p)
        est = np.mean(diff == v)
        assert abs(est - p) < 4 * np.sqrt(p * (1 - p) / trials) + 1e-12


def test_roll_d6_faces_and_dtype():
    faces = dice.roll_d6(np.random.default_rng(1), (1000, 3))
    assert faces.dtype == np.int8
    assert faces.min() == 1 and faces.max() == 6


def test_negative_dice_rejected():
    with pytest.raises(ValueError):
        dice.volley_pmf(-1, 5)
