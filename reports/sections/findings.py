"""Report sections "Verdicts" and "Findings", first on the page.

Built after every game section from the claims and axes they registered: the page-wide
correction (:func:`reports.findings.correct`: Holm over every claim of the page) decides which
rows are conclusive and writes ``conclusive``, ``p_value``, ``p_page`` and ``settled_by`` into
the tables they cite; then each game's axes get their verdicts (:mod:`reports.verdicts`,
``verdicts.csv``) and the largest conclusive effects become the findings (``findings.csv``).
``claims.csv`` lists every claim with its p-values.
"""

from __future__ import annotations

from reports.findings import (
    FindingsBlock,
    annotate,
    claims_table,
    correct,
    findings_table,
    select,
)
from reports.html import Section
from reports.verdicts import BAND, VerdictsBlock, verdict_of, verdict_rows


def build(ctx, sections: list[Section]) -> tuple[Section, Section]:
    claims = [c for s in sections for c in s.claims]
    tests = correct(claims)
    tables = {stem: df for s in sections for stem, df in s.tables.items()}
    annotate(tables, claims, tests)
    by_key = {c.key: c for c in claims}

    ver = Section("verdicts", "Verdicts")
    axes = [a for s in sections for a in s.axes]
    verdicts = [verdict_of(a, by_key, tests) for a in axes]
    ver.blocks.append(VerdictsBlock(verdicts, by_key, tests))
    ver.text(
        f"How to read: balanced = every row of the axis lies within ±{BAND * 100:.0f} points of "
        "fair (1/P of the games for a seat or a strategy, an even 50% score in Pirates express, "
        "zero for a card's value); imbalanced = a row is conclusive and lies outside that band; "
        "inconclusive = neither at this size (the sentence says which size would settle it). "
        "Conclusive means, everywhere on this page: its p-value stays at most 0.05 after Holm's "
        f"correction over all {len(claims):,} claims of the page. Reference players (random) "
        "never count in a balance share. What to try: each shipped variant or house rule "
        "measured on that axis in this run, by paired games (the same games under both rules). "
        "Every verdict is a row of `verdicts.csv`.",
        "note",
    )
    ver.data("verdicts", verdict_rows(verdicts, by_key), key=("game", "axis", "players", "remedy"))

    sec = Section("findings", "Findings")
    found = select(claims, tests)
    conclusive = sum(t.conclusive for t in tests.values())
    sec.text(
        f"The {len(found)} largest effects of this run, chosen among the {conclusive:,} of "
        f"{len(claims):,} claims that stay conclusive after Holm's correction over every claim "
        "on the page: each table's largest conclusive effect is a candidate, and candidates are "
        "ranked by effect size (for a share, its distance from fair relative to fair; for a "
        "difference with a base, the relative change; for a change of score on 0..1, the change "
        "itself). Tags: rules = conclusive under the hand-written players and under the "
        "equilibrium population, in the same direction; players = one shows it and the other "
        "does not, or they point opposite ways; baseline-only = no equilibrium population "
        "measured it. Every finding is a row of `findings.csv`, whose evidence column names "
        "the CSV row it comes from; `claims.csv` lists every claim with its p-values."
    )
    if not found:
        sec.text(
            "No claim of this run is conclusive after the correction: a larger --size settles "
            "more (each table's 'would settle it' column says which).",
            "warning",
        )
    absences = [a for s in sections for a in s.absences]
    sec.blocks.append(FindingsBlock(found, absences))
    strong = [(s.title, line, anchor) for s in sections for line, anchor in s.strong_play]
    if strong:
        sec.heading("Balance under strong play", anchor="findings-strong")
        for title, line, anchor in strong:
            sec.text(f"{title}: {line}", link=anchor)
    sec.data("findings", findings_table(found), key=("finding",))
    sec.data("claims", claims_table(claims, tests), key=("claim",))
    return ver, sec
