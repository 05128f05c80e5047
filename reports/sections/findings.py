"""Report section "Findings": the verdicts of the run, first on the page.

Built after every other section from the claims they registered (:mod:`reports.findings`): 5 to
12 sentences with value, unit, interval, tag and a link to the evidence, ranked by standardised
effect; ``findings.csv`` holds the same rows. Below them: what never happened in these games and,
per game, whether an equilibrium population was available for "balance under strong play".
"""

from __future__ import annotations

from reports.findings import FindingsBlock, findings_table, select
from reports.html import Section


def build(ctx, sections: list[Section]) -> Section:
    sec = Section("findings", "Findings")
    claims = [c for s in sections for c in s.claims]
    found = select(claims)
    sec.text(
        f"{len(found)} verdicts, computed from this run's tables (of {len(claims)} measured "
        "claims), strongest first: the number in brackets is the 95% interval, and the ranking "
        'is the distance from "no effect" in standard errors. Tags: rules = holds under the '
        "hand-written players and under an equilibrium population; players = the two disagree; "
        "baseline-only = measured with the hand-written players only; inconclusive = the "
        "interval includes no effect at this n, or the finding does not survive Holm's "
        "correction over the claims of its family (every Tavern card, every nation...: many "
        "95% intervals tested at once would show some clear of no effect by chance; the "
        "conclusive columns of the tables below are per row). Every finding is a row of "
        "`findings.csv`, whose evidence column names the CSV row it comes from."
    )
    if len(found) < 5:
        sec.text(
            f"Only {len(claims)} claims could be measured in this run (fewer than the 5 findings "
            "a report should give): add games to the report.",
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
    return sec
