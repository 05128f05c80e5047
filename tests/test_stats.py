"""Intervals against scipy's own implementations and their defining properties."""

import numpy as np
import pytest
from scipy import stats as sps

from simulator import stats


@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (5, 10), (10, 10), (37, 200), (999, 1000)])
def test_wilson_matches_scipy(k, n):
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    lo, hi = stats.wilson_interval(k, n)
    assert lo == pytest.approx(ci.low, abs=1e-12)
    assert hi == pytest.approx(ci.high, abs=1e-12)


@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (5, 10), (10, 10), (37, 200)])
def test_clopper_pearson_matches_scipy(k, n):
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    lo, hi = stats.clopper_pearson_interval(k, n)
    assert lo == pytest.approx(ci.low, abs=1e-10)
    assert hi == pytest.approx(ci.high, abs=1e-10)


def test_wilson_vectorised_equals_scalar():
    k = np.array([0, 3, 50, 100])
    n = np.array([100, 100, 100, 100])
    lo, hi = stats.wilson_interval(k, n)
    for i in range(4):
        assert (lo[i], hi[i]) == pytest.approx(stats.wilson_interval(int(k[i]), int(n[i])))


def test_wilson_empty_sample_is_whole_range():
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_coverage_is_near_nominal():
    """Over many binomial draws the 95% Wilson interval covers the truth about 95% of the time."""
    rng = np.random.default_rng(11)
    p, n = 0.3, 200
    k = rng.binomial(n, p, size=20_000)
    lo, hi = stats.wilson_interval(k, np.full_like(k, n))
    cover = np.mean((lo <= p) & (p <= hi))
    assert 0.93 < cover < 0.97


def test_mean_se_matches_scipy_sem():
    x = np.arange(10.0)
    m, se = stats.mean_se(x)
    assert m == 4.5 and se == pytest.approx(sps.sem(x))


def test_mean_interval_from_moments_matches_direct():
    x = np.random.default_rng(3).normal(size=500)
    m, lo, hi = stats.mean_interval_from_moments(x.sum(), (x * x).sum(), x.size)
    m2, lo2, hi2 = stats.mean_interval(x)
    assert (m, lo, hi) == pytest.approx((m2, lo2, hi2))


def test_unknown_method_rejected():
    with pytest.raises(ValueError, match="allowed"):
        stats.proportion_interval(1, 2, method="bogus")
