"""The group-sequential test behind ``broadside compare``: boundaries, p-values, error rates."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from simulator.sequential import (
    GroupSequentialDesign,
    SequentialComparison,
    holm,
    look_sizes,
    paired_z,
    simulate_rejection_rate,
    spent_alpha,
)


def test_obrien_fleming_bounds_match_published_table():
    # Lan-DeMets O'Brien-Fleming type, two-sided 0.05 (0.025 per side), 5 equally spaced looks:
    # gsDesign sfLDOF / Jennison & Turnbull give 4.877, 3.357, 2.680, 2.290, 2.031.
    d = GroupSequentialDesign.create(0.05, 5)
    assert d.bounds == pytest.approx([4.8769, 3.3569, 2.6803, 2.2898, 2.0310], abs=2e-4)


def test_pocock_bounds_match_published_table():
    # Lan-DeMets Pocock type, two-sided 0.05, 5 looks: 2.438, 2.427, 2.410, 2.397, 2.386.
    d = GroupSequentialDesign.create(0.05, 5, "pocock")
    assert d.bounds == pytest.approx([2.438, 2.427, 2.410, 2.397, 2.386], abs=2e-3)


def test_single_look_is_the_fixed_sample_test():
    d = GroupSequentialDesign.create(0.05, 1)
    assert d.bounds[0] == pytest.approx(sps.norm.isf(0.025), abs=1e-9)
    assert d.p_value(0, 1.5) == pytest.approx(2 * sps.norm.sf(1.5), abs=1e-12)


@pytest.mark.parametrize("spending", ["obrien-fleming", "pocock"])
def test_crossing_probabilities_match_multivariate_normal(spending):
    # Independent check of the recursive integration: P0(no crossing in 3 looks) from the
    # canonical joint distribution corr(Z_j, Z_k) = sqrt(t_j / t_k) via scipy's MVN CDF.
    fractions = (0.3, 0.6, 1.0)
    d = GroupSequentialDesign.create(0.05, fractions, spending)
    t = np.array(fractions)
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    c = np.array(d.bounds)
    mvn = sps.multivariate_normal(mean=np.zeros(3), cov=cov)
    stay = mvn.cdf(c, lower_limit=-c)
    assert 1 - stay == pytest.approx(0.05, abs=3e-4)
    stay2 = sps.multivariate_normal(mean=np.zeros(2), cov=cov[:2, :2]).cdf(
        c[:2], lower_limit=-c[:2]
    )
    assert 1 - stay2 == pytest.approx(spent_alpha(0.6, 0.05, spending), abs=3e-4)


def test_p_value_is_alpha_on_the_boundary_and_monotone():
    d = GroupSequentialDesign.create(0.05, 4)
    for k in range(4):
        assert d.p_value(k, d.bounds[k]) == pytest.approx(d.cumulative_alpha[k], abs=1e-6)
    ps = [d.p_value(3, z) for z in (0.0, 1.0, 2.0, 3.0)]
    assert ps == sorted(ps, reverse=True)
    assert d.p_value(3, 0.0) == pytest.approx(1.0, abs=1e-3)


def test_holm_against_hand_computation():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5]
    assert holm([0.2, 0.001]) == pytest.approx([0.2, 0.002])


def test_look_sizes():
    assert look_sizes(1000, 5) == [200, 400, 600, 800, 1000]
    assert look_sizes(3, 5) == [1, 2, 3]


def test_paired_z_handles_identical_outcomes():
    assert paired_z(np.zeros(50))[2] == 0.0
    m, _se, z = paired_z(np.array([1.0, -1.0, 1.0, 1.0]))
    assert m == pytest.approx(0.5) and z == pytest.approx(0.5 / (np.std([1, -1, 1, 1], ddof=1) / 2))


def _null_pairs(rng, reps, n):
    # paired win indicators with equal marginals (0.3) and positive correlation, as with CRN
    u = rng.random((reps, n))
    noise = rng.random((reps, n))
    base = (u < 0.3).astype(float)
    variant = np.where(noise < 0.7, base, (rng.random((reps, n)) < 0.3).astype(float))
    return variant - base


def test_false_positive_rate_within_alpha_while_naive_peeking_is_not():
    rng = np.random.default_rng(20261130)
    sizes = [200, 400, 600, 800, 1000]
    design = GroupSequentialDesign.create(0.05, tuple(s / 1000 for s in sizes))
    reps = 6000
    rate = simulate_rejection_rate(design, sizes, _null_pairs, reps, rng)
    se = math.sqrt(0.05 * 0.95 / reps)
    assert rate <= 0.05 + 3 * se, rate
    naive = simulate_rejection_rate(design, sizes, _null_pairs, reps, rng, naive=True)
    assert naive > 0.05 + 6 * se, naive  # peeking at 1.96 five times inflates the error (~0.14)


def test_sequential_comparison_identical_streams_reports_nothing():
    cmp = SequentialComparison(["a", "b"], alpha=0.05, max_n=500, looks=5)
    rng = np.random.default_rng(3)
    while not cmp.should_stop():
        n = cmp.next_size() - cmp.done
        x = (rng.random(n) < 0.4).astype(float)
        cmp.add_look({"a": (x, x), "b": (x * 3, x * 3)})
    res = cmp.results()
    assert cmp.done == 500
    assert all(r["difference"] == 0 and r["p_value"] == pytest.approx(1, abs=1e-3) for r in res)
    assert not any(r["decided"] for r in res)


def test_sequential_comparison_large_effect_stops_early_and_holm_applies():
    cmp = SequentialComparison(["big", "none"], alpha=0.05, max_n=5000, looks=5)
    rng = np.random.default_rng(4)
    while not cmp.should_stop():
        n = cmp.next_size() - cmp.done
        b = (rng.random(n) < 0.3).astype(float)
        v = (rng.random(n) < 0.6).astype(float)
        z = rng.normal(size=n)
        cmp.add_look({"big": (b, v), "none": (z, z + rng.normal(size=n))})
        if cmp.metrics["big"].crossed_at is not None and cmp.looks_taken == 2:
            break
    res = {r["name"]: r for r in cmp.results()}
    assert res["big"]["crossed"] and res["big"]["n_games"] == 1000
    assert res["big"]["decided"] and res["big"]["p_holm"] <= 0.05
    lo, hi = res["big"]["ci95"]
    assert 0 < lo < 0.3 < hi  # repeated CI: covers the true effect, excludes zero
    assert res["big"]["p_value"] < res["none"]["p_value"]
    assert res["big"]["p_holm"] == pytest.approx(2 * res["big"]["p_value"], rel=1e-9)
    assert not res["none"]["crossed"] and not res["none"]["decided"]


def test_power_large_effect_crosses_at_first_look_often():
    rng = np.random.default_rng(5)
    sizes = [400, 800, 1200, 1600, 2000]
    design = GroupSequentialDesign.create(0.05, tuple(s / 2000 for s in sizes))

    def effect(r, reps, n):
        return (r.random((reps, n)) < 0.6).astype(float) - (r.random((reps, n)) < 0.3)

    assert simulate_rejection_rate(design, sizes[:1], effect, 400, rng) > 0.9
