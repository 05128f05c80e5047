"""Findings: the report's verdicts, computed from the rows of its own tables.

A section does not write findings; it registers *claims* (:class:`Claim`): a measured value with
its 95 % interval, the value that would mean "no effect" (a fair share, zero difference), the CSV
row it comes from, and, when the game has an equilibrium population, the same quantity measured
under that population. :func:`select` turns the claims of every section into 5 to 12 findings:

* **standardised effect** ``z = (value - null) / se``, with ``se`` read back from the half of
  the interval that faces the null (``(ci_high - value) / 1.96`` when the null is above), so any
  interval (Wilson, t, normal) ranks the same way and a lopsided Wilson interval near 0 is not
  over-counted;
* **tag** (issue 17):

  - ``inconclusive``: the baseline interval contains the null (and so does the strong-play one,
    if measured), or only one of the two excludes it and they do not differ significantly;
  - ``baseline-only``: conclusive, measured only with the hand-written players;
  - ``rules``: conclusive under the hand-written players *and* under the equilibrium population,
    on the same side of the null;
  - ``players``: the two disagree: opposite sides of the null, or their difference is itself
    significant (``|b - s| / sqrt(se_b^2 + se_s^2) > 1.96``);

* **multiple comparisons**: the claims of one family (the claim key up to its last ``/``: every
  Tavern card, every nation, every variant and measure...) are tested together: two-sided p from
  ``z`` (normal), Holm's step-down correction over the family at 5 %; a claim whose interval
  excludes the null but does not survive the correction is ``inconclusive`` ("after Holm's
  correction over the N claims of its family"); a section may set the correction itself
  (``corrected``), e.g. the Les Pirates variants, Holm-corrected over their whole table;
* **ranking** by ``|z|`` of the baseline measurement, at most :data:`PER_GAME` findings per game
  and :data:`PER_FAMILY` per family of claims (the claim key up to its last ``/``, e.g. every
  nation's strength), every game's strongest claim kept so no game is left out; at most
  :data:`MAX_FINDINGS`.

``findings.csv`` has exactly the columns :data:`CSV_COLUMNS`; ``value``, ``ci_low`` and
``ci_high`` are the cited row's own numbers (in the CSV's units: a share is 0..1), and
``evidence`` names that row: ``STEM.csv[key=value,...]:value_column,low_column,high_column``
(then ``; `` and the strong-play row, when there is one). The report test reads each evidence
back and checks the numbers.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from simulator.sequential import holm
from simulator.stats import Z95

MIN_FINDINGS = 5
MAX_FINDINGS = 12
PER_GAME = 4
#: at most this many findings of one family of claims (e.g. the nations' strengths)
PER_FAMILY = 2
TAGS = ("rules", "players", "baseline-only", "inconclusive")
CSV_COLUMNS = ("finding", "game", "value", "unit", "ci_low", "ci_high", "tag", "evidence")
GAME_TITLES = {
    "dice": "Dice",
    "cove": "Pirate's Cove",
    "express": "Pirates express",
    "hunt": "Les Pirates",
}


@dataclass(frozen=True)
class Evidence:
    """A row of a CSV the report writes, and the columns holding a value and its interval."""

    stem: str
    row: Mapping[str, Any]  # the table's key columns -> this row's values
    value: str
    low: str = "ci_low"
    high: str = "ci_high"

    def text(self) -> str:
        keys = ",".join(f"{k}={v}" for k, v in self.row.items())
        return f"{self.stem}.csv[{keys}]:{self.value},{self.low},{self.high}"


@dataclass(frozen=True)
class Measure:
    """One measurement of a claim: value and 95 % interval as they stand in the cited row."""

    value: float
    ci_low: float
    ci_high: float
    evidence: Evidence
    players: str  # who produced it, in words ("hand-written default mix ...")

    @property
    def se(self) -> float:
        return (self.ci_high - self.ci_low) / (2 * Z95)

    def se_toward(self, null: float) -> float:
        """The standard error read from the half of the interval that faces ``null`` (Wilson
        intervals near 0 or 1 are lopsided; the side facing the null is the one that matters)."""
        half = self.ci_high - self.value if null >= self.value else self.value - self.ci_low
        return half / Z95

    def z(self, null: float) -> float:
        """Standardised effect: distance from ``null`` in standard errors (facing the null)."""
        se = self.se_toward(null)
        if not math.isfinite(self.value) or not math.isfinite(se):
            return 0.0
        if se <= 0:
            return 0.0 if self.value == null else math.inf
        return (self.value - null) / se

    def excludes(self, null: float) -> int:
        """+1 if the interval lies above ``null``, -1 below, 0 if it contains it."""
        if self.ci_low > null:
            return 1
        if self.ci_high < null:
            return -1
        return 0

    @classmethod
    def from_row(
        cls,
        df: pd.DataFrame,
        stem: str,
        key: Mapping[str, Any],
        value: str,
        *,
        players: str,
        low: str = "ci_low",
        high: str = "ci_high",
    ) -> Measure:
        """The measure held by the row of ``df`` whose key columns equal ``key``."""
        sel = pd.Series(True, index=df.index)
        for k, v in key.items():
            sel &= df[k] == v
        rows = df[sel]
        if len(rows) != 1:
            raise KeyError(f"{stem}: {len(rows)} rows match {dict(key)} (a claim needs one)")
        r = rows.iloc[0]
        return cls(
            float(r[value]),
            float(r[low]),
            float(r[high]),
            Evidence(stem, {k: _plain(v) for k, v in key.items()}, value, low, high),
            players,
        )


@dataclass(frozen=True)
class Claim:
    """A candidate finding registered by a section.

    ``sentence`` is a ``str.format`` template with ``{value}`` and ``{ci}`` (the baseline value
    and interval, formatted with ``scale`` and ``unit_short``) and ``{n}``; the findings add the
    strong-play measurement and the verdict themselves.
    """

    key: str  # identifies the claim across baseline and strong play, e.g. "hunt/first-seat/4p"
    game: str
    sentence: str
    unit: str  # unit of value in the CSV, in words ("share of games won")
    null: float
    null_words: str  # what no effect means here ("the fair share of 25 %")
    baseline: Measure
    anchor: str  # element id of the evidence on the page
    n: int
    scale: float = 100.0  # display scale (100: shares shown as %)
    unit_short: str = "%"
    decimals: int = 1
    strong: Measure | None = None
    strong_anchor: str | None = None
    #: for a claim that is one of a corrected family (e.g. Holm over a table): whether it
    #: survives the correction; False makes it inconclusive whatever its own interval says
    corrected: bool | None = None
    correction: str = ""  # the correction in words ("Holm over the 27 variant rows")

    def fmt(self, v: float) -> str:
        return f"{v * self.scale:,.{self.decimals}f}{self.unit_short}"

    def interval(self, m: Measure) -> str:
        return f"[{self.fmt(m.ci_low)}, {self.fmt(m.ci_high)}]"


@dataclass(frozen=True)
class Finding:
    rank: int
    claim: Claim
    z: float
    tag: str
    text: str  # the finding's sentence, complete

    def row(self) -> dict[str, Any]:
        c = self.claim
        evidence = c.baseline.evidence.text()
        if c.strong is not None:
            evidence += "; " + c.strong.evidence.text()
        return {
            "finding": self.text,
            "game": c.game,
            "value": c.baseline.value,
            "unit": c.unit,
            "ci_low": c.baseline.ci_low,
            "ci_high": c.baseline.ci_high,
            "tag": self.tag,
            "evidence": evidence,
        }


def tag_of(claim: Claim) -> str:
    """The claim's tag (see the module docstring)."""
    b, s, null = claim.baseline, claim.strong, claim.null
    if claim.corrected is False:
        return "inconclusive"
    side_b = b.excludes(null)
    if s is None:
        return "baseline-only" if side_b else "inconclusive"
    side_s = s.excludes(null)
    if side_b and side_s and side_b != side_s:
        return "players"
    spread = math.hypot(b.se, s.se)
    if spread > 0 and abs(b.value - s.value) / spread > Z95:
        return "players"
    if side_b and side_b == side_s:
        return "rules"
    return "inconclusive"


def sentence_of(claim: Claim, tag: str) -> str:
    """The full sentence: the section's template, then strong play and the verdict in words."""
    b = claim.baseline
    text = claim.sentence.format(value=claim.fmt(b.value), ci=claim.interval(b), n=f"{claim.n:,}")
    text = text.rstrip(".")
    if claim.strong is not None:
        s = claim.strong
        text += (
            f"; under the equilibrium population {claim.fmt(s.value)} {claim.interval(s)}"
            f" ({s.players})"
        )
    verdict = {
        "rules": f"it holds under both sets of players (no effect would be {claim.null_words})",
        "players": "it depends on the players: the hand-written and the equilibrium players "
        "disagree",
        "baseline-only": f"measured with the hand-written players only (no effect would be "
        f"{claim.null_words})",
        "inconclusive": f"inconclusive at this n: the interval includes {claim.null_words}"
        if claim.corrected is not False or not b.excludes(claim.null)
        else f"inconclusive at this n: its interval is clear of {claim.null_words}, but not "
        f"after {claim.correction}",
    }[tag]
    if (
        tag == "players"
        and b.excludes(claim.null)
        and b.excludes(claim.null) == s.excludes(claim.null)
    ):  # same side of no effect, a significant difference in size
        gap = abs(b.value - s.value) / math.hypot(b.se, s.se)
        verdict = (
            f"it holds under both sets of players (no effect would be {claim.null_words}), but "
            f"its size depends on them: the two differ by {gap:.1f} standard errors"
        )
    return f"{text}: {verdict}."


def family(claim: Claim) -> str:
    return claim.key.rsplit("/", 1)[0]


def corrected(claims: list[Claim]) -> list[Claim]:
    """The claims with ``corrected`` set by Holm's correction within each family (claims that
    set it themselves are kept as they are)."""
    import dataclasses

    from scipy import stats as sps

    by_family: dict[str, list[int]] = {}
    for i, c in enumerate(claims):
        by_family.setdefault(family(c), []).append(i)
    out = list(claims)
    for idx in by_family.values():
        free = [i for i in idx if claims[i].corrected is None]
        if len(free) < 2:
            continue
        p = [float(2 * sps.norm.sf(abs(claims[i].baseline.z(claims[i].null)))) for i in free]
        for i, adj in zip(free, holm(p)):
            out[i] = dataclasses.replace(
                claims[i],
                corrected=bool(adj <= 0.05),
                correction=f"Holm's correction over the {len(free)} claims of its family",
            )
    return out


def select(claims: list[Claim]) -> list[Finding]:
    """Rank the claims and keep 5 to 12 (see the module docstring)."""
    claims = corrected(claims)
    scored = sorted(
        ((abs(c.baseline.z(c.null)), i, c) for i, c in enumerate(claims)),
        key=lambda t: (-t[0], t[1]),
    )
    chosen: list[tuple[float, int, Claim]] = []
    per_game: dict[str, int] = {}
    per_family: dict[str, int] = {}

    def take(t) -> None:
        c = t[2]
        fam = family(c)
        per_game[c.game] = per_game.get(c.game, 0) + 1
        per_family[fam] = per_family.get(fam, 0) + 1
        chosen.append(t)

    for t in scored:  # every game's strongest claim first, so no game is left out
        if t[2].game not in per_game:
            take(t)
    for t in scored:
        if len(chosen) >= MAX_FINDINGS:
            break
        c = t[2]
        if (
            t in chosen
            or per_game.get(c.game, 0) >= PER_GAME
            or per_family.get(family(c), 0) >= PER_FAMILY
        ):
            continue
        take(t)
    for t in scored:  # fewer than the minimum: relax the per-game cap
        if len(chosen) >= MIN_FINDINGS:
            break
        if t not in chosen:
            chosen.append(t)
    chosen.sort(key=lambda t: (-t[0], t[1]))
    out = []
    for rank, (z, _, c) in enumerate(chosen[:MAX_FINDINGS], start=1):
        tag = tag_of(c)
        out.append(Finding(rank, c, z, tag, sentence_of(c, tag)))
    return out


def findings_table(findings: list[Finding]) -> pd.DataFrame:
    """``findings.csv``: exactly :data:`CSV_COLUMNS`, one row per finding, ranked."""
    return pd.DataFrame([f.row() for f in findings], columns=list(CSV_COLUMNS))


@dataclass
class FindingsBlock:
    """The findings as an ordered list on the page, each linking to its evidence."""

    findings: list[Finding]
    absences: list[tuple[str, str, str]] = field(default_factory=list)  # (game, text, anchor)

    def to_html(self) -> str:
        items = []
        for f in self.findings:
            c = f.claim
            z = "∞" if math.isinf(f.z) else f"{f.z:.1f}"
            links = [f'<a href="#{html.escape(c.anchor)}">evidence</a>']
            if c.strong_anchor:
                links.append(f'<a href="#{html.escape(c.strong_anchor)}">under strong play</a>')
            items.append(
                f'<li class="finding" data-tag="{f.tag}">'
                f'<span class="tag tag-{f.tag}">{f.tag}</span> '
                f'<span class="game">{html.escape(GAME_TITLES.get(c.game, c.game))}</span>: '
                f"{html.escape(f.text)} "
                f'<span class="meta">({z} standard errors from no effect; '
                f"{' · '.join(links)})</span></li>"
            )
        out = f'<ol class="findings">{"".join(items)}</ol>'
        if self.absences:
            rows = "".join(
                f'<li><span class="game">{html.escape(GAME_TITLES.get(g, g))}</span>: '
                f'{html.escape(t)} <a href="#{html.escape(a)}">where</a></li>'
                for g, t, a in self.absences
            )
            out += (
                '<p class="caption">What never happened in these games (each explained where it '
                f'appears):</p><ul class="absences">{rows}</ul>'
            )
        return out


def _plain(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


def parse_evidence(text: str) -> list[tuple[str, dict[str, str], tuple[str, str, str]]]:
    """``evidence`` back into ``(csv file, {key: value}, (value, low, high) columns)`` items."""
    out = []
    for part in text.split("; "):
        head, cols = part.rsplit(":", 1)
        stem, keys = head.split("[", 1)
        row = dict(kv.split("=", 1) for kv in keys.rstrip("]").split(",") if kv)
        v, lo, hi = cols.split(",")
        out.append((stem, row, (v, lo, hi)))
    return out
