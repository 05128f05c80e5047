"""Report section "Glossary": one line per strategy of every game, one per method term.

The first use of each term on the page links to its line (:func:`terms`, applied by
:func:`reports.html.render_page`).
"""

from __future__ import annotations

from reports.display import METHOD_TERMS
from reports.findings import GAME_TITLES
from reports.html import Section

#: strategy names never linked automatically (a word the page uses in another sense)
UNLINKED = {"balanced", "random", "patient", "tavern"}


def anchor(game: str, name: str) -> str:
    return f"g-{game}-{name}"


def terms(sections: list[Section]) -> list[tuple[str, str, bool]]:
    """``(term, anchor, case_sensitive)`` for the method terms and every strategy name."""
    out = [(term, f"g-{a}", term[:1].isupper()) for a, term, _ in METHOD_TERMS]
    seen = {t for t, _, _ in out}
    for s in sections:
        for name, _ in s.glossary:
            if name not in seen and name not in UNLINKED:
                seen.add(name)
                out.append((name, anchor(s.key, name), True))
    return out


def build(ctx, sections: list[Section]) -> Section:
    sec = Section("glossary", "Glossary")
    sec.definitions(
        "Method terms (the first use of each term on the page links here):",
        [(term, line, f"g-{a}") for a, term, line in METHOD_TERMS],
    )
    for s in sections:
        if s.glossary:
            sec.definitions(
                f"Strategies of {GAME_TITLES.get(s.key, s.title)} (from its scenario):",
                [(name, line, anchor(s.key, name)) for name, line in s.glossary],
            )
    return sec
