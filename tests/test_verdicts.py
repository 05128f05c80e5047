"""Verdicts per game and axis (reports/verdicts.py): the band rule, the row each verdict names,
the remedies of that row, and verdicts.csv's exact columns. Exact checks on constructed claims."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reports.findings import Claim, Evidence, Measure, correct
from reports.verdicts import (
    BAND,
    CSV_COLUMNS,
    Axis,
    Remedy,
    verdict_of,
    verdict_rows,
)


def claim(key: str, value: float, half: float, null: float = 0.25) -> Claim:
    return Claim(
        key=key,
        game="hunt",
        quantity=key,
        sentence="x {value} {ci} {n}",
        unit="share",
        null=null,
        null_words="fair",
        baseline=Measure(value, value - half, value + half, Evidence("t", {"k": key}, "v"), "p"),
        anchor="a",
        n=1000,
        sizes={"quick": 1000, "standard": 10_000, "full": 100_000},
    )


def axis(rows, remedies=()) -> Axis:
    return Axis(
        game="hunt",
        axis="seat-order",
        players=4,
        rows=tuple((f"seat {i + 1}", c.key) for i, c in enumerate(rows)),
        fair=0.25,
        unit="share",
        population="default mix",
        size="quick",
        remedies=tuple(remedies),
    )


def verdict(rows, remedies=(), extra=()):
    claims = [*rows, *extra]
    tests = correct(claims)
    by_key = {c.key: c for c in claims}
    return verdict_of(axis(rows, remedies), by_key, tests), by_key, tests


def test_balanced_when_every_interval_lies_within_three_points_of_fair():
    v, _, _ = verdict([claim("a", 0.26, 0.015), claim("b", 0.24, 0.02)])
    assert v.verdict == "balanced" and v.row == "seat 2"  # its interval reaches farthest (0.22)
    v, _, _ = verdict([claim("a", 0.26, 0.015), claim("b", 0.24, 0.021)])  # 0.219: out
    assert v.verdict == "inconclusive"


def test_imbalanced_needs_a_conclusive_row_outside_the_band():
    v, _, _ = verdict([claim("a", 0.314, 0.016), claim("b", 0.199, 0.014), claim("c", 0.25, 0.01)])
    assert v.verdict == "imbalanced" and v.row == "seat 1"  # 6.4 points off, more than seat 2
    # conclusive but inside the band: not imbalanced (and not balanced: it leaves the band)
    v, _, _ = verdict([claim("a", 0.275, 0.01), claim("b", 0.25, 0.01)])
    assert v.verdict == "inconclusive" and v.row == "seat 1"
    # outside the band, interval clear of fair at 95%, but not after Holm over the page
    weak = claim("a", 0.30, 0.049)
    others = [claim(f"o{i}", 0.25, 0.04) for i in range(10)]
    v, _, tests = verdict([weak], extra=others)
    assert weak.baseline.p_value(0.25) < 0.05 and not tests["a"].conclusive
    assert v.verdict == "inconclusive" and "--size" in v.settle


def test_remedies_follow_the_named_row_and_verdicts_csv_has_its_columns():
    rows = [claim("a", 0.4, 0.01), claim("b", 0.2, 0.01)]
    rem = [claim("r1", -0.06, 0.02, null=0.0), claim("r2", 0.01, 0.02, null=0.0)]
    remedies = [
        Remedy("enemy kingdoms", "variant", "r1", "first-seat win share"),
        Remedy("cyclone", "variant", "r2", "seat 2's share", row="seat 2"),
    ]
    v, by_key, _ = verdict(rows, remedies, rem)
    assert v.verdict == "imbalanced" and v.row == "seat 1"
    df = verdict_rows([v], by_key)
    assert tuple(df.columns) == CSV_COLUMNS
    assert list(df["remedy"]) == ["enemy kingdoms: first-seat win share"]  # not seat 2's
    r = df.iloc[0]
    m = by_key["r1"].baseline
    assert (r["remedy_effect"], r["remedy_ci_low"], r["remedy_ci_high"]) == (
        m.value,
        m.ci_low,
        m.ci_high,
    )
    assert r["remedy_source"] == "variant" and r["evidence"].endswith(
        "t.csv[k=r1]:v,ci_low,ci_high"
    )
    alone, by_key, _ = verdict([claim("x", 0.25, 0.01)])
    row = verdict_rows([alone], by_key).iloc[0]
    assert row["remedy"] == "" and math.isnan(row["remedy_effect"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 0.6), st.floats(0.0005, 0.2)), min_size=1, max_size=6))
def test_the_verdict_is_exactly_the_band_rule(rows):
    claims = [claim(f"r{i}", v, h) for i, (v, h) in enumerate(rows)]
    v, _, tests = verdict(claims)
    inside = all(
        c.baseline.ci_low >= 0.25 - BAND and c.baseline.ci_high <= 0.25 + BAND for c in claims
    )
    off = [c for c in claims if tests[c.key].conclusive and abs(c.baseline.value - 0.25) > BAND]
    want = "imbalanced" if off else "balanced" if inside else "inconclusive"
    assert v.verdict == want
    if want == "imbalanced":
        assert abs(v.claim.baseline.value - 0.25) == pytest.approx(
            max(abs(c.baseline.value - 0.25) for c in off)
        )
