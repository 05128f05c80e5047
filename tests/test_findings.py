"""The claims logic (reports/findings.py): p-values read back from intervals, Holm over the page,
effect sizes, tags, selection, size advice, and writing the verdicts back into the tables.

Exact checks on constructed claims (no simulation) plus hypothesis invariants.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from reports.findings import (
    CLAIM_COLUMNS,
    CSV_COLUMNS,
    MAX_FINDINGS,
    PER_GAME,
    Claim,
    Evidence,
    Measure,
    annotate,
    claims_table,
    correct,
    effect_size,
    findings_table,
    parse_evidence,
    required_n,
    select,
    settled_by,
    tag_of,
)
from simulator.sequential import holm
from simulator.stats import Z95


def m(value: float, half: float, stem: str = "t", row: dict | None = None, **kw) -> Measure:
    return Measure(
        value, value - half, value + half, Evidence(stem, row or {"k": 1}, "v"), "p", **kw
    )


def c(base: Measure, null: float = 0.0, **kw) -> Claim:
    kw.setdefault("key", "g/x/a")
    kw.setdefault("game", "cove")
    kw.setdefault("quantity", kw["key"])
    return Claim(
        sentence="x is {value} {ci} of {n}",
        unit="u",
        null=null,
        null_words="zero",
        baseline=base,
        anchor="a",
        n=kw.pop("n", 100),
        **kw,
    )


def test_p_value_is_read_from_the_interval_facing_the_null():
    """z = distance / (half facing the null / crit); p two-sided (normal, or t with df); the
    raw p is below 0.05 exactly when the 95% interval excludes the null; no spread, no
    evidence."""
    lopsided = Measure(0.02, 0.004, 0.11, Evidence("t", {"k": 1}, "v"), "p")
    assert lopsided.z(0.25) == pytest.approx((0.02 - 0.25) / ((0.11 - 0.02) / Z95))
    assert lopsided.p_value(0.25) == pytest.approx(2 * sps.norm.sf(abs(lopsided.z(0.25))))
    t = m(0.3, 0.2, crit=float(sps.t.isf(0.025, 9)), df=9)
    assert t.p_value(0.0) == pytest.approx(2 * sps.t.sf(0.3 / (0.2 / t.crit), 9))
    edge = m(0.1, 0.1)  # the interval touches the null: p = 0.05 exactly
    assert edge.p_value(0.0) == pytest.approx(0.05)
    assert m(0.1, 0.099).p_value(0.0) < 0.05 < m(0.1, 0.101).p_value(0.0)
    assert m(0.0, 0.0).p_value(0.0) == 1.0 and m(0.3, 0.0).p_value(0.0) == 1.0
    bonf = m(0.3, 0.2, p_factor=4.0)
    assert bonf.p_value(0.0) == pytest.approx(min(1, 4 * 2 * sps.norm.sf(0.3 / (0.2 / Z95))))


def test_the_page_correction_is_holm_over_every_claim():
    claims = [c(m(v, 0.1), key=f"g/x/{i}") for i, v in enumerate((0.5, 0.25, 0.11, 0.05))]
    tests = correct(claims)
    raw = [cl.baseline.p_value(0.0) for cl in claims]
    adj = holm(raw)
    for cl, p, a in zip(claims, raw, adj):
        t = tests[cl.key]
        assert t.p_value == pytest.approx(p) and t.p_page == pytest.approx(a)
        assert t.conclusive == (a <= 0.05)
        assert (t.settled_by == "") == t.conclusive
    # 0.11 +- 0.1 excludes zero at 95% yet does not survive Holm over four claims
    assert raw[2] < 0.05 and not tests["g/x/2"].conclusive
    with pytest.raises(ValueError, match="unique"):
        correct([claims[0], claims[0]])


def test_effect_sizes_follow_the_issue():
    assert effect_size(c(m(0.314, 0.01), null=0.25)) == pytest.approx(0.064 / 0.25)
    rel = c(m(-9.8, 1.0), effect="relative", base_value=28.0)
    assert effect_size(rel) == pytest.approx(9.8 / 28.0)
    assert effect_size(c(m(0.05, 0.01), effect="score")) == pytest.approx(0.05)


def test_size_advice_names_the_smallest_size_that_would_settle_it():
    """n * ((z_page + 0.8416) / z)**2: z = 1 at n = 100 with z_page = 2 needs 807 games."""
    cl = c(m(0.1, Z95 * 0.1), n=100, sizes={"quick": 100, "standard": 1_000, "full": 10_000})
    assert required_n(cl, 2.0) == pytest.approx(100 * (2.0 + sps.norm.ppf(0.8)) ** 2)
    assert settled_by(cl, 2.0) == "--size standard (1,000 games)"
    far = c(m(0.001, Z95 * 0.1), n=100, sizes={"quick": 100, "full": 10_000})
    assert settled_by(far, 2.0).endswith("games (beyond --size full)")
    assert settled_by(c(m(0.0, 0.1)), 2.0).startswith("no size")


def _pair(base: Measure, strong: Measure, null=0.0):
    b = c(base, null=null, key="g/x/default", strong="g/x/eq")
    s = c(strong, null=null, key="g/x/eq", finding=False)
    claims = [b, s]
    tests = correct(claims)
    return tag_of(b, tests, {x.key: x for x in claims})


def test_tags_follow_the_stated_rules():
    assert _pair(m(0.3, 0.1), m(0.25, 0.1)) == "rules"
    assert _pair(m(0.3, 0.01), m(0.6, 0.01)) == "rules"  # same direction, sizes differ
    assert _pair(m(-0.3, 0.1), m(-0.25, 0.1)) == "rules"
    assert _pair(m(0.3, 0.1), m(-0.3, 0.1)) == "players"  # opposite ways
    assert _pair(m(0.3, 0.1), m(0.02, 0.1)) == "players"  # one shows it, the other does not
    assert _pair(m(0.02, 0.1), m(0.3, 0.1)) == "players"
    assert _pair(m(0.02, 0.1), m(0.0, 0.1)) == "inconclusive"
    alone = c(m(0.3, 0.1))
    tests = correct([alone])
    assert tag_of(alone, tests, {alone.key: alone}) == "baseline-only"


def test_findings_are_conclusive_claims_ranked_by_effect_size():
    claims = [
        c(m(0.40, 0.01), null=0.25, key="hunt/a/1", game="hunt"),  # effect 0.6
        c(m(0.30, 0.01), null=0.25, key="hunt/a/2", game="hunt"),  # same family: not a candidate
        c(
            m(-9.8, 1.0),
            effect="relative",
            base_value=28.0,
            key="hunt/b/1",
            game="hunt",
            family="len",
        ),  # effect 0.35
        c(m(0.05, 0.1), key="cove/c/1", game="cove"),  # inconclusive: never a finding
        c(m(0.05, 0.005), effect="score", key="cove/d/1", game="cove", family="d"),
    ]
    tests = correct(claims)
    found = select(claims, tests)
    assert [f.claim.key for f in found] == ["hunt/a/1", "hunt/b/1", "cove/d/1"]
    assert all(tests[f.claim.key].conclusive for f in found)
    assert [f.rank for f in found] == [1, 2, 3]
    text = found[0].text
    assert "40.0% [39.0%, 41.0%]" in text and "Holm p < 0.0001" in text


claim_st = st.builds(
    lambda v, h, game, fam, i: c(m(v, h), key=f"{game}/{fam}/{i}", game=game, family=fam),
    st.floats(-1, 1),
    st.floats(0.001, 1),
    st.sampled_from(["cove", "express", "hunt"]),
    st.sampled_from(["a", "b", "c", "d", "e"]),
    st.integers(0, 10**6),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(claim_st, min_size=0, max_size=40, unique_by=lambda x: x.key))
def test_selection_invariants(claims):
    tests = correct(claims)
    found = select(claims, tests)
    assert len(found) <= MAX_FINDINGS
    effects = [f.effect for f in found]
    assert effects == sorted(effects, reverse=True)
    assert all(tests[f.claim.key].conclusive for f in found)
    # one finding per family, at most PER_GAME per game
    fams = [(f.claim.game, f.claim.family_key) for f in found]
    assert len(set(fams)) == len(fams)
    for g in ("cove", "express", "hunt"):
        assert sum(f.claim.game == g for f in found) <= PER_GAME
    # every game with a conclusive claim is represented
    games = {x.game for x in claims if tests[x.key].conclusive}
    assert {f.claim.game for f in found} == games
    # each finding is its family's largest conclusive effect
    for f in found:
        same = [
            effect_size(x)
            for x in claims
            if (x.game, x.family_key) == (f.claim.game, f.claim.family_key)
            and tests[x.key].conclusive
        ]
        assert f.effect == max(same)


def test_findings_table_claims_table_and_evidence_round_trip():
    base = m(0.3, 0.1, "cove_strategy_win_rates", {"strategy": "plunderer"})
    strong = m(0.35, 0.1, "cove_strong_gains", {"population": "eq", "strategy": "plunderer"})
    b = c(base, key="cove/s/default/plunderer", strong="cove/s/eq/plunderer")
    s = c(strong, key="cove/s/eq/plunderer", finding=False)
    tests = correct([b, s])
    df = findings_table(select([b, s], tests))
    assert tuple(df.columns) == CSV_COLUMNS
    ev = df["evidence"].iloc[0]
    assert ev == (
        "cove_strategy_win_rates.csv[strategy=plunderer]:v,ci_low,ci_high; "
        "cove_strong_gains.csv[population=eq,strategy=plunderer]:v,ci_low,ci_high"
    )
    assert parse_evidence(ev) == [
        ("cove_strategy_win_rates.csv", {"strategy": "plunderer"}, ("v", "ci_low", "ci_high")),
        (
            "cove_strong_gains.csv",
            {"population": "eq", "strategy": "plunderer"},
            ("v", "ci_low", "ci_high"),
        ),
    ]
    table = claims_table([b, s], tests)
    assert tuple(table.columns) == CLAIM_COLUMNS and len(table) == 2


def test_annotate_writes_the_page_verdict_into_the_cited_rows():
    df = pd.DataFrame(
        {
            "k": [1, 2, 3],
            "v": [0.5, 0.01, 0.2],
            "ci_low": [0.4, -0.09, 0.1],
            "ci_high": [0.6, 0.11, 0.3],
        }
    )
    claims = [
        c(Measure.from_row(df, "t", {"k": k}, "v", players="p"), key=f"t/{k}") for k in (1, 2)
    ]
    tests = correct(claims)
    annotate({"t": df}, claims, tests)
    assert list(df["conclusive"][:2]) == [tests["t/1"].conclusive, tests["t/2"].conclusive]
    assert df["conclusive"].iloc[2] is pd.NA  # a row that is not a claim is not tested
    assert df["p_page"].iloc[0] == pytest.approx(tests["t/1"].p_page)
    assert math.isnan(df["p_page"].iloc[2])


def test_measure_from_row_refuses_an_ambiguous_row():
    df = pd.DataFrame({"k": [1, 1], "v": [0.1, 0.2], "ci_low": [0, 0], "ci_high": [1, 1]})
    with pytest.raises(KeyError):
        Measure.from_row(df, "t", {"k": 1}, "v", players="p")
    got = Measure.from_row(df.iloc[[1]], "t", {"k": 1}, "v", players="p")
    assert (got.value, got.ci_low, got.ci_high) == (0.2, 0.0, 1.0)


def test_a_measure_without_spread_says_so_instead_of_a_zero_width_interval():
    """A house rule that changes nothing on the seeds played gives the same paired difference in
    every game: the sentence says there is no spread, never "+0.0 [+0.0, +0.0]"."""
    from reports.findings import claim_sentence

    same = c(m(0.0, 0.0), effect="relative")
    text = claim_sentence(same)
    assert "[" not in text and "the same in every game measured" in text
    assert claim_sentence(c(m(0.02, 0.01), effect="relative")).count("[") == 1
