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
    """The exact coverage of the 95% Wilson interval (sum of the binomial pmf over the k whose
    interval holds p) is within a point of 95% here, and 20,000 simulated draws agree with it
    within 4 SE (SE 0.0015: a 0.6-point error in the intervals' vectorised path would fail)."""
    p, n = 0.3, 200
    ks = np.arange(n + 1)
    lo_k, hi_k = stats.wilson_interval(ks, np.full_like(ks, n))
    holds = (lo_k <= p) & (p <= hi_k)
    exact = float(sps.binom.pmf(ks[holds], n, p).sum())
    assert abs(exact - 0.95) < 0.01, exact
    k = np.random.default_rng(11).binomial(n, p, size=20_000)
    lo, hi = stats.wilson_interval(k, np.full_like(k, n))
    cover = np.mean((lo <= p) & (p <= hi))
    assert abs(cover - exact) <= 4 * np.sqrt(exact * (1 - exact) / k.size), (cover, exact)


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


def test_clustered_wilson_is_wilson_for_independent_rows():
    """One row per cluster: 0/1 values give Wilson on (k, n) exactly; shared wins (fractional
    values) give Wilson on the fractional count, as the games' summaries do."""
    y = np.array([1, 0, 0, 1, 1, 0, 0, 0, 1, 0], dtype=float)
    m, n_eff, lo, hi = stats.clustered_wilson_interval(y, np.arange(y.size))
    assert (m, n_eff) == (0.4, 10.0)
    assert (lo, hi) == pytest.approx(stats.wilson_interval(4, 10), abs=1e-12)
    shares = np.array([1, 0, 0.5, 0.5, 1 / 3, 0, 1, 0.25])
    m, n_eff, lo, hi = stats.clustered_wilson_interval(shares, np.arange(shares.size))
    assert n_eff == shares.size
    assert (lo, hi) == pytest.approx(stats.wilson_interval(shares.sum(), shares.size), abs=1e-12)


def test_clustered_wilson_counts_a_cluster_of_copies_once():
    """Every row copied four times in its cluster: the effective size is the number of clusters
    (the interval is that of the distinct rows), not four times it."""
    y = np.array([1, 0, 0, 1, 0, 0, 0, 1, 0, 0], dtype=float)
    m, n_eff, lo, hi = stats.clustered_wilson_interval(np.repeat(y, 4), np.repeat(np.arange(10), 4))
    assert m == pytest.approx(0.3) and n_eff == pytest.approx(10.0)
    assert (lo, hi) == pytest.approx(stats.wilson_interval(3, 10), abs=1e-12)
    assert stats.clustered_wilson_interval([], []) == (pytest.approx(np.nan, nan_ok=True), 0, 0, 1)


def test_clustered_wilson_covers_correlated_rotations():
    """Deals of four seat rotations that share their dice: a deal's chance ``q ~ Beta(1.5, 3.5)``
    (mean 0.3, intra-deal correlation 0.17) gives each rotation a win with probability ``q``. Over
    4,000 samples of 150 deals the clustered interval covers 0.3 within 3 SE (0.0034) of 95 %,
    while Wilson on the 600 rows as if independent covers less than 95 % minus 3 SE (90 %
    here; the clustered one 94.9 %): the test detects a coverage shortfall of a point."""
    rng = np.random.default_rng(31)
    reps, deals, rot = 4000, 150, 4
    clusters = np.repeat(np.arange(deals), rot)
    q = rng.beta(1.5, 3.5, size=(reps, deals))
    wins = (rng.random((reps, deals, rot)) < q[:, :, None]).reshape(reps, -1).astype(float)
    held = naive = 0
    for y in wins:
        _, _, lo, hi = stats.clustered_wilson_interval(y, clusters)
        held += lo <= 0.3 <= hi
        lo, hi = stats.wilson_interval(y.sum(), y.size)
        naive += lo <= 0.3 <= hi
    se = np.sqrt(0.95 * 0.05 / reps)
    assert abs(held / reps - 0.95) <= 3 * se, held / reps
    assert naive / reps < 0.95 - 3 * se, naive / reps
