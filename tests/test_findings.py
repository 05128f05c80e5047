"""The findings logic (reports/findings.py): tags, standardised effects, selection, evidence.

Exact checks on constructed claims (no simulation) plus hypothesis invariants of the selection.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reports.findings import (
    CSV_COLUMNS,
    MAX_FINDINGS,
    MIN_FINDINGS,
    PER_FAMILY,
    PER_GAME,
    Claim,
    Evidence,
    Measure,
    findings_table,
    parse_evidence,
    select,
    tag_of,
)
from simulator.stats import Z95


def m(value: float, half: float, stem: str = "t", row: dict | None = None) -> Measure:
    return Measure(value, value - half, value + half, Evidence(stem, row or {"k": 1}, "v"), "p")


def c(base: Measure, strong: Measure | None = None, null: float = 0.0, **kw) -> Claim:
    kw.setdefault("key", "g/x/a")
    kw.setdefault("game", "cove")
    return Claim(
        sentence="x is {value} {ci} of {n}",
        unit="u",
        null=null,
        null_words="zero",
        baseline=base,
        anchor="a",
        n=10,
        strong=strong,
        **kw,
    )


def test_tags_follow_the_issue_definitions():
    assert tag_of(c(m(0.3, 0.1))) == "baseline-only"
    assert tag_of(c(m(0.05, 0.1))) == "inconclusive"
    assert tag_of(c(m(0.3, 0.1), m(0.25, 0.1))) == "rules"
    assert tag_of(c(m(-0.3, 0.1), m(-0.25, 0.1))) == "rules"
    assert tag_of(c(m(0.3, 0.1), m(-0.3, 0.1))) == "players"  # opposite sides
    # one side conclusive, the other not, and their difference significant: players
    assert tag_of(c(m(0.5, 0.1), m(0.02, 0.1))) == "players"
    # one conclusive, the other not, the difference not significant: inconclusive
    assert tag_of(c(m(0.15, 0.1), m(0.05, 0.1))) == "inconclusive"
    assert tag_of(c(m(0.02, 0.1), m(0.0, 0.1))) == "inconclusive"
    # a row that does not survive a family-wise correction is inconclusive whatever its interval
    assert tag_of(c(m(0.3, 0.1), corrected=False, correction="Holm")) == "inconclusive"
    assert tag_of(c(m(0.3, 0.1), corrected=True)) == "baseline-only"


def test_standardised_effect_reads_the_half_interval_facing_the_null():
    lopsided = Measure(0.02, 0.004, 0.11, Evidence("t", {"k": 1}, "v"), "p")
    assert lopsided.z(0.25) == pytest.approx((0.02 - 0.25) / ((0.11 - 0.02) / Z95))
    assert lopsided.z(0.0) == pytest.approx(0.02 / ((0.02 - 0.004) / Z95))
    exact_zero = Measure(0.0, 0.0, 0.0, Evidence("t", {"k": 1}, "v"), "p")
    assert exact_zero.z(0.0) == 0.0
    assert math.isinf(Measure(0.1, 0.1, 0.1, Evidence("t", {}, "v"), "p").z(0.0))


def test_sentence_carries_value_interval_strong_play_and_verdict():
    found = select([c(m(0.3, 0.1), m(0.25, 0.05))])
    text = found[0].text
    assert "30.0% [20.0%, 40.0%]" in text
    assert "under the equilibrium population 25.0% [20.0%, 30.0%]" in text
    assert text.endswith(".") and "holds under both" in text


def test_same_side_but_different_size_is_players_and_says_so():
    """30% [29%, 31%] against 40% [39%, 41%], fair share 25%: both above it, the difference
    about 14 SE: tagged players, the sentence says the effect holds and its size differs."""
    found = select([c(m(0.3, 0.01), m(0.4, 0.01), null=0.25)])
    assert found[0].tag == "players"
    assert "holds under both" in found[0].text and "its size depends on them" in found[0].text
    found = select([c(m(0.3, 0.01), m(0.2, 0.01), null=0.25)])
    assert found[0].tag == "players" and "disagree" in found[0].text


def test_selection_ranks_caps_and_keeps_every_game():
    claims = []
    for g, game in enumerate(("cove", "express", "hunt")):
        for i in range(8):
            claims.append(
                c(m(0.1 * (i + 1) / (g + 1), 0.05), key=f"{game}/f{i % 3}/{i}", game=game)
            )
    found = select(claims)
    assert MIN_FINDINGS <= len(found) <= MAX_FINDINGS
    assert {f.claim.game for f in found} == {"cove", "express", "hunt"}
    zs = [f.z for f in found]
    assert zs == sorted(zs, reverse=True)
    for game in ("cove", "express", "hunt"):
        assert sum(f.claim.game == game for f in found) <= PER_GAME
    fams: dict[str, int] = {}
    for f in found:
        fam = f.claim.key.rsplit("/", 1)[0]
        fams[fam] = fams.get(fam, 0) + 1
    assert max(fams.values()) <= PER_FAMILY
    assert [f.rank for f in found] == list(range(1, len(found) + 1))


def test_few_claims_relax_the_caps_up_to_the_minimum():
    claims = [c(m(0.1 * (i + 1), 0.05), key=f"cove/same/{i}") for i in range(6)]
    assert len(select(claims)) == MIN_FINDINGS
    assert len(select(claims[:3])) == 3


def test_findings_table_and_evidence_round_trip():
    base = m(0.3, 0.1, "cove_strategy_win_rates", {"strategy": "plunderer"})
    strong = m(0.25, 0.1, "cove_strong_gains", {"population": "eq", "strategy": "plunderer"})
    df = findings_table(select([c(base, strong)]))
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


def test_measure_from_row_refuses_an_ambiguous_row():
    df = pd.DataFrame({"k": [1, 1], "v": [0.1, 0.2], "ci_low": [0, 0], "ci_high": [1, 1]})
    with pytest.raises(KeyError):
        Measure.from_row(df, "t", {"k": 1}, "v", players="p")
    got = Measure.from_row(df.iloc[[1]], "t", {"k": 1}, "v", players="p")
    assert (got.value, got.ci_low, got.ci_high) == (0.2, 0.0, 1.0)


claim_st = st.builds(
    lambda v, h, game, fam, i: c(m(v, h), key=f"{game}/{fam}/{i}", game=game),
    st.floats(-1, 1),
    st.floats(0.001, 1),
    st.sampled_from(["cove", "express", "hunt"]),
    st.sampled_from(["a", "b", "c"]),
    st.integers(0, 10**6),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(claim_st, min_size=0, max_size=40))
def test_selection_invariants(claims):
    found = select(claims)
    assert len(found) <= MAX_FINDINGS
    assert len(found) >= min(MIN_FINDINGS, len(claims))
    zs = [f.z for f in found]
    assert zs == sorted(zs, reverse=True)
    # every game with a claim is represented
    assert {f.claim.game for f in found} == {x.game for x in claims}
    # no claim twice
    assert len({id(f.claim) for f in found}) == len(found)


def test_a_family_of_claims_is_holm_corrected():
    """Twenty claims of one family just clear of zero (z = 2.2, p = 0.028 each) do not survive
    Holm's correction; one at z = 10 does; a claim that set its own correction keeps it."""
    fam = [c(m(0.22, 0.196), key=f"cove/card/c{i}") for i in range(20)]
    strong = c(m(1.0, 0.196), key="cove/card/strong")
    own = c(m(0.22, 0.196), key="cove/other/x", corrected=True)
    found = {f.claim.key: f for f in select([*fam, strong, own])}
    assert found["cove/card/strong"].tag == "baseline-only"
    assert found["cove/other/x"].tag == "baseline-only"
    weak = [f for k, f in found.items() if k.startswith("cove/card/c")]
    assert weak and all(f.tag == "inconclusive" for f in weak)
    assert all("Holm's correction over the 21 claims of its family" in f.text for f in weak)
