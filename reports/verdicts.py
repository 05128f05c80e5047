"""Verdicts: per game and axis, balanced or not, and what to try.

A section registers an :class:`Axis` for each balance question its game has (``seat-order`` at
each table size, ``strategy``, ``nation``, ``fleet``, ``pirates``, ``cards``): the claims that
are its rows (each a share or score with its fair value, reference players left out) and the
remedies measured on it (:class:`Remedy`: a shipped variant or house rule, or an intervention of
this run's balance studies, each a paired difference that is itself a claim of the page).

**Verdict** of an axis (:func:`verdict_of`), with the band ``fair ± 3 points``:

* ``balanced``: every row's 95 % interval lies within the band (an intersection-union test: each
  row's equivalence at 5 %, so the axis' at 5 % with no correction);
* ``imbalanced``: some row is *conclusive* (its p after Holm's correction over every claim of
  the page is at most 0.05: its interval excludes fair, robustly) and its value lies outside
  the band;
* ``inconclusive``: neither.

The row the verdict names (its value and interval in ``verdicts.csv``): for ``imbalanced`` the
conclusive row farthest from fair; for ``balanced`` the row whose interval reaches farthest from
fair; for ``inconclusive`` the row farthest from fair among those whose interval leaves the band.

``verdicts.csv`` has exactly :data:`CSV_COLUMNS`, one row per (game, axis, table size, remedy)
(one row with empty remedy columns for an axis without a remedy). ``evidence`` is in
``findings.csv``'s form: the named row, then the axis' other rows, then the remedy's row.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from reports.findings import GAME_TITLES, Claim, Test

#: half-width of the balanced band around fair (share and score units)
BAND = 0.03
VERDICTS = ("balanced", "imbalanced", "inconclusive")
AXES = ("seat-order", "strategy", "nation", "fleet", "pirates", "cards")
REMEDY_SOURCES = ("variant", "house-rule", "balance-run")
CSV_COLUMNS = (
    "game",
    "axis",
    "players",
    "verdict",
    "value",
    "unit",
    "ci_low",
    "ci_high",
    "population",
    "size",
    "evidence",
    "remedy",
    "remedy_source",
    "remedy_effect",
    "remedy_ci_low",
    "remedy_ci_high",
)


@dataclass(frozen=True)
class Remedy:
    """A rule change measured on an axis: its paired difference is the claim ``claim``."""

    name: str  # in words ("enemy kingdoms")
    source: str  # variant | house-rule | balance-run
    claim: str  # key of the paired-difference claim
    what: str  # what the difference measures ("first-seat edge")
    row: str | None = None  # the axis row it concerns (None: the axis as a whole)


@dataclass(frozen=True)
class Axis:
    """One balance question of a game (see the module docstring)."""

    game: str
    axis: str
    players: int
    rows: tuple[tuple[str, str], ...]  # (row in words, claim key), reference players left out
    fair: float
    unit: str  # the unit of the rows' values, in words
    population: str  # the players who produced the rows, in words
    size: str  # the report's --size
    remedies: tuple[Remedy, ...] = ()
    note: str = ""  # a sentence after the verdict (e.g. the equilibrium's value)


@dataclass(frozen=True)
class Verdict:
    axis: Axis
    verdict: str
    row: str  # the row it names, in words
    claim: Claim
    settle: str  # "" or which size would settle it


def verdict_of(axis: Axis, claims: Mapping[str, Claim], tests: Mapping[str, Test]) -> Verdict:
    """The axis' verdict (see the module docstring)."""
    lo, hi = axis.fair - BAND, axis.fair + BAND
    rows = [(label, claims[key]) for label, key in axis.rows]
    if not rows:
        raise ValueError(f"{axis.game}/{axis.axis}: an axis needs at least one row")

    def far(c: Claim) -> float:
        return abs(c.baseline.value - axis.fair)

    def reach(c: Claim) -> float:
        return max(abs(c.baseline.ci_low - axis.fair), abs(c.baseline.ci_high - axis.fair))

    def inside(c: Claim) -> bool:
        return lo <= c.baseline.ci_low and c.baseline.ci_high <= hi

    imb = [
        (label, c)
        for label, c in rows
        if tests[c.key].conclusive and not lo <= c.baseline.value <= hi
    ]
    if imb:
        label, c = max(imb, key=lambda t: far(t[1]))
        return Verdict(axis, "imbalanced", label, c, "")
    if all(inside(c) for _, c in rows):
        label, c = max(rows, key=lambda t: reach(t[1]))
        return Verdict(axis, "balanced", label, c, "")
    out = [(label, c) for label, c in rows if not inside(c)]
    label, c = max(out, key=lambda t: far(t[1]))
    return Verdict(axis, "inconclusive", label, c, _settle(c, axis.fair, tests))


def _settle(c: Claim, fair: float, tests: Mapping[str, Test]) -> str:
    """Which size would settle an inconclusive row: conclusive (the page's size advice) or,
    for a row near fair, an interval inside the band."""
    b = c.baseline
    gap = BAND - abs(b.value - fair)
    if gap > 0:  # inside the band: a narrower interval would make it balanced
        half = max(b.ci_high - b.value, b.value - b.ci_low)
        need = c.n * (half / gap) ** 2
        for size in ("quick", "standard", "full"):
            if c.sizes and size in c.sizes and c.sizes[size] >= need:
                return f"--size {size} (to tell whether it lies within 3 points of fair)"
        return f"about {int(need):,} {c.n_unit} (to tell whether it lies within 3 points of fair)"
    return tests[c.key].settled_by


def verdict_rows(verdicts: list[Verdict], claims: Mapping[str, Claim]) -> pd.DataFrame:
    """``verdicts.csv``: exactly :data:`CSV_COLUMNS` (see the module docstring)."""
    rows = []
    for v in verdicts:
        a = v.axis
        ev = [v.claim.baseline.evidence.text()]
        ev += [claims[k].baseline.evidence.text() for _, k in a.rows if k != v.claim.key]
        base = {
            "game": a.game,
            "axis": a.axis,
            "players": int(a.players),
            "verdict": v.verdict,
            "value": v.claim.baseline.value,
            "unit": a.unit,
            "ci_low": v.claim.baseline.ci_low,
            "ci_high": v.claim.baseline.ci_high,
            "population": a.population,
            "size": a.size,
        }
        if not remedies_of(v):
            rows.append(
                {
                    **base,
                    "evidence": "; ".join(ev),
                    "remedy": "",
                    "remedy_source": "",
                    "remedy_effect": math.nan,
                    "remedy_ci_low": math.nan,
                    "remedy_ci_high": math.nan,
                }
            )
        for r in remedies_of(v):
            m = claims[r.claim].baseline
            rows.append(
                {
                    **base,
                    "evidence": "; ".join([*ev, m.evidence.text()]),
                    "remedy": f"{r.name}: {r.what}",
                    "remedy_source": r.source,
                    "remedy_effect": m.value,
                    "remedy_ci_low": m.ci_low,
                    "remedy_ci_high": m.ci_high,
                }
            )
    return pd.DataFrame(rows, columns=list(CSV_COLUMNS))


def sentence(v: Verdict) -> str:
    """The verdict in one sentence: verdict, the named row's value and interval, fair, who."""
    a, c = v.axis, v.claim
    b = c.baseline
    if a.fair == 0:
        fair, band = "zero", f"±{c.fmt(BAND)}"
    else:
        fair, band = f"fair {c.fmt(a.fair)}", f"{c.fmt(a.fair - BAND)}–{c.fmt(a.fair + BAND)}"
    value = f"{v.row}: {c.value_text(b)} {c.interval(b)}"
    why = {
        "balanced": f"every row within {band}",
        "imbalanced": f"conclusively off {fair}, outside {band}",
        "inconclusive": f"{fair}; not settled at this size"
        + (f": {v.settle} would settle it" if v.settle else ""),
    }[v.verdict]
    text = f"{v.verdict}: {value} ({why}); {a.population}"
    if a.note:
        text += f". {a.note}"
    return text + "."


def remedies_of(v: Verdict) -> list[Remedy]:
    """The remedies of the verdict's axis that concern its named row (or the whole axis)."""
    return [r for r in v.axis.remedies if r.row is None or r.row == v.row]


def remedy_words(remedies: list[Remedy], claims: Mapping[str, Claim], tests) -> str:
    """The remedies in words, grouped by what they change: each name with its paired effect
    and interval (conclusive ones marked), largest conclusive effect first."""
    groups: dict[str, list[tuple[bool, float, str]]] = {}
    for r in remedies:
        c = claims[r.claim]
        b = c.baseline
        sure = tests[c.key].conclusive
        unit = c.unit_short.strip()
        item = (
            f"{r.name} {c.value_text(b).removesuffix(c.unit_short)} "
            f"[{c.fmt(b.ci_low, True).removesuffix(c.unit_short)}, "
            f"{c.fmt(b.ci_high, True).removesuffix(c.unit_short)}]"
            + (" (conclusive)" if sure else "")
        )
        groups.setdefault(f"{r.what}, {unit}", []).append((sure, abs(b.value), item))
    parts = []
    for what, items in groups.items():
        items.sort(key=lambda t: (not t[0], -t[1]))
        parts.append(f"{what}: " + "; ".join(t[2] for t in items))
    return " — ".join(parts)


AXIS_WORDS = {
    "seat-order": "seat order",
    "strategy": "strategies",
    "nation": "nations",
    "fleet": "fleets",
    "pirates": "Legendary Pirates",
    "cards": "Tavern cards",
}


@dataclass
class VerdictsBlock:
    """The verdicts at the top of the page: a compact grid, then one sentence per axis."""

    verdicts: list[Verdict]
    claims: Mapping[str, Claim]
    tests: Mapping[str, Test]

    def _strong(self, v: Verdict) -> str:
        """The named row under the equilibrium population, when it was measured there."""
        s = self.claims.get(v.claim.strong) if v.claim.strong else None
        if s is None:
            return ""
        b = s.baseline
        sure = "conclusive" if self.tests[s.key].conclusive else "not conclusive"
        return (
            f" Under the equilibrium population {b.population}: {s.value_text(b)} "
            f"{s.interval(b)} ({sure})."
        )

    def to_html(self) -> str:
        games: dict[str, list[Verdict]] = {}
        for v in self.verdicts:
            games.setdefault(v.axis.game, []).append(v)
        grid = []
        for game, vs in games.items():
            chips = "".join(
                f'<a class="chip v-{v.verdict}" href="#verdict-{html.escape(_slug(v))}">'
                f"{html.escape(_axis_label(v.axis))}: <b>{v.verdict}</b></a>"
                for v in vs
            )
            grid.append(
                f'<div class="vgame"><span class="game">'
                f"{html.escape(GAME_TITLES.get(game, game))}</span> {chips}</div>"
            )
        items = []
        for v in self.verdicts:
            a = v.axis
            rems = remedies_of(v)
            try_ = (
                f'<div class="try">What to try (paired change; {len(rems)} measured): '
                f"{html.escape(remedy_words(rems, self.claims, self.tests))}.</div>"
                if rems
                else ""
            )
            items.append(
                f'<li class="verdict" id="verdict-{html.escape(_slug(v))}" '
                f'data-verdict="{v.verdict}"><b class="tag v-{v.verdict}">{v.verdict}</b> '
                f'<span class="game">{html.escape(GAME_TITLES.get(a.game, a.game))}, '
                f"{html.escape(_axis_label(a))}</span> — "
                f"{html.escape(sentence(v).split(': ', 1)[1])}{html.escape(self._strong(v))} "
                f'<a class="meta" href="#{html.escape(v.claim.anchor)}">evidence</a>{try_}</li>'
            )
        return f'<div class="vgrid">{"".join(grid)}</div><ul class="verdicts">{"".join(items)}</ul>'


def _axis_label(a: Axis) -> str:
    words = AXIS_WORDS.get(a.axis, a.axis)
    return f"{words}, {a.players} players" if a.axis == "seat-order" else words


def _slug(v: Verdict) -> str:
    return f"{v.axis.game}-{v.axis.axis}-{v.axis.players}"
