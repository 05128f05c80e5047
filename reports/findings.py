"""Claims, their page-wide correction, and the findings chosen from them.

A section does not write findings; it registers *claims* (:class:`Claim`): one row of one of its
tables holding a measured value with its 95 % interval, the value that would mean "no effect"
(a fair share, an even score, zero difference), who produced it (the population) and how large
the effect is. Every row of a table that has a ``conclusive`` column is a claim, so the word
means one thing on the whole page.

**p-value of a claim** (:meth:`Measure.p_value`): the interval gives the standard error facing
the null, ``se = (half of the interval on the null's side) / crit`` (``crit``: the quantile the
interval used, 1.96 for Wilson and normal intervals, Student's t for paired t intervals, a
Bonferroni quantile for a maximum), and ``p = p_factor * 2 * sf(|value - null| / se)`` (normal,
or t with ``df``), at most 1. So a row's raw p is below 0.05 exactly when its 95 % interval
excludes the null; an interval of zero width is no evidence (p = 1).

**Correction covering every claim on the page** (:func:`correct`): Holm's step-down correction
over the raw p of every claim the page registers (baseline and strong-play rows alike). A claim
is *conclusive* when its Holm-corrected p (``p_page``) is at most 0.05, so the chance that any
conclusive claim of the page is a false positive is at most 5 %. The tables' ``conclusive``,
``p_value``, ``p_page`` and ``settled_by`` columns are written from here (:func:`annotate`).

**Size advice** (``settled_by``): for an inconclusive claim, the n at which the measured effect,
if it is the true one, would be conclusive with 80 % power after the page's correction
(``n * ((z_page + 0.8416) / z)**2``, ``z_page`` Bonferroni's quantile over the page's claims:
Holm needs at most that), and the smallest ``--size`` reaching it.

**Effect size** (:func:`effect_size`), the findings' ranking: for a share against its fair value,
``|value - fair| / fair``; for a difference with a base value, ``|difference| / |base|`` (a
relative change); for a difference of a score already on 0..1 (a card's or a crew role's value),
the difference itself.

**Tags** (:func:`tag_of`), from the two measurements' ``conclusive`` and direction:

* ``rules``: conclusive under the hand-written players *and* under the equilibrium population,
  in the same direction (both sizes are reported, even when they differ);
* ``players``: one shows the effect and the other does not, or they point opposite ways;
* ``baseline-only``: conclusive, measured under the hand-written players only;
* ``inconclusive``: not conclusive under either.

**Findings** (:func:`select`): chosen among conclusive claims only. Each table's largest
conclusive effect is a candidate (a table may split its rows into families, e.g. the variants by
measure); candidates are ranked by effect size, every game's largest is kept so no game with a
conclusive claim is left out, at most :data:`PER_GAME` per game and :data:`MAX_FINDINGS` in all.

``findings.csv`` has exactly the columns :data:`CSV_COLUMNS`; ``value``, ``ci_low`` and
``ci_high`` are the cited row's own numbers (in the CSV's units: a share is 0..1), and
``evidence`` names that row: ``STEM.csv[key=value,...]:value_column,low_column,high_column``
(then ``; `` and the strong-play row, when there is one). ``claims.csv`` lists every claim with
its p-values (:data:`CLAIM_COLUMNS`). The report tests read each evidence back and re-derive
every sentence's numbers and words.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from scipy import stats as sps

from simulator.sequential import holm
from simulator.stats import Z95

MAX_FINDINGS = 12
PER_GAME = 4
#: the family-wise error rate of the page's correction
ALPHA = 0.05
#: power the size advice aims at, and its normal quantile
POWER = 0.8
Z_POWER = float(sps.norm.ppf(POWER))
TAGS = ("rules", "players", "baseline-only", "inconclusive")
EFFECTS = ("share", "relative", "score")
CSV_COLUMNS = ("finding", "game", "value", "unit", "ci_low", "ci_high", "tag", "evidence")
CLAIM_COLUMNS = (
    "claim",
    "game",
    "quantity",
    "population",
    "players",
    "value",
    "ci_low",
    "ci_high",
    "null",
    "crit",
    "df",
    "p_factor",
    "p_value",
    "p_page",
    "conclusive",
    "effect",
    "effect_size",
    "n",
    "settled_by",
    "evidence",
)
SIZES = ("quick", "standard", "full")
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
    """One measurement: value and 95 % interval as they stand in the cited row.

    ``crit``, ``df`` and ``p_factor`` say how the interval was made (see the module docstring),
    so the raw p-value is read back from the row alone.
    """

    value: float
    ci_low: float
    ci_high: float
    evidence: Evidence
    players: str  # who produced it, in words ("hand-written default mix ...")
    population: str = "default mix"  # short label of the players ("default mix", a file name)
    crit: float = Z95
    df: int | None = None  # Student's t degrees of freedom (None: normal)
    p_factor: float = 1.0  # Bonferroni factor of an interval that is a maximum of several

    def se_toward(self, null: float) -> float:
        """The standard error read from the half of the interval that faces ``null`` (Wilson
        intervals near 0 or 1 are lopsided; the side facing the null is the one that matters)."""
        half = self.ci_high - self.value if null >= self.value else self.value - self.ci_low
        return half / self.crit

    def z(self, null: float) -> float:
        """Distance from ``null`` in standard errors facing it (0 when there is no spread)."""
        se = self.se_toward(null)
        if not (math.isfinite(self.value) and math.isfinite(se)) or se <= 0:
            return 0.0
        return (self.value - null) / se

    def p_value(self, null: float) -> float:
        """Two-sided p-value of "no effect" read from the interval (1 without spread)."""
        z = abs(self.z(null))
        if z == 0:
            return 1.0
        tail = sps.t.sf(z, self.df) if self.df else sps.norm.sf(z)
        return float(min(1.0, self.p_factor * 2 * tail))

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
        population: str = "default mix",
        low: str = "ci_low",
        high: str = "ci_high",
        crit: float = Z95,
        df_t: int | None = None,
        p_factor: float = 1.0,
    ) -> Measure:
        """The measure held by the row of ``df`` whose key columns equal ``key``."""
        r = row_of(df, stem, key)
        return cls(
            float(r[value]),
            float(r[low]),
            float(r[high]),
            Evidence(stem, {k: _plain(v) for k, v in key.items()}, value, low, high),
            players,
            population,
            crit,
            df_t,
            p_factor,
        )


def row_of(df: pd.DataFrame, stem: str, key: Mapping[str, Any]) -> pd.Series:
    """The one row of ``df`` whose columns equal ``key`` (KeyError if not exactly one)."""
    sel = pd.Series(True, index=df.index)
    for k, v in key.items():
        sel &= df[k] == v
    rows = df[sel]
    if len(rows) != 1:
        raise KeyError(f"{stem}: {len(rows)} rows match {dict(key)} (a claim needs one)")
    return rows.iloc[0]


@dataclass(frozen=True)
class Claim:
    """A tested row of a table (see the module docstring).

    ``sentence`` is a ``str.format`` template with ``{value}`` and ``{ci}`` (the value and
    interval, formatted with ``scale`` and ``unit_short``) and ``{n}``; the findings add the
    strong-play measurement and the verdict themselves.
    """

    key: str  # unique on the page, e.g. "hunt/seat/4p/default/1"
    game: str
    quantity: str  # what is measured, in words ("win share of seat 1 at 4 players")
    sentence: str
    unit: str  # unit of value in the CSV, in words ("share of games won")
    null: float
    null_words: str  # what no effect means here ("the fair share of 25 %")
    baseline: Measure
    anchor: str  # element id of the evidence on the page
    n: int
    n_unit: str = "games"
    players: int | None = None  # seats at the table (None: not a table measure)
    scale: float = 100.0  # display scale (100: shares shown as %)
    unit_short: str = "%"
    decimals: int = 1
    effect: str = "share"  # share | relative | score (see effect_size)
    base_value: float | None = None  # the base of a relative change
    family: str = ""  # findings candidates: the largest conclusive effect per family
    sizes: Mapping[str, int] | None = None  # n of this measurement at each --size
    strong: str | None = None  # key of the same quantity's claim under the equilibrium
    finding: bool = True  # may be chosen as a finding (strong-play rows appear inside others)

    def fmt(self, v: float, signed: bool = False) -> str:
        sign = "+" if signed else ""
        return f"{v * self.scale:{sign},.{self.decimals}f}{self.unit_short}"

    def interval(self, m: Measure) -> str:
        if m.ci_low == m.ci_high == m.value:  # no spread: every paired game gave the same
            return "(the same in every game measured: no spread to give an interval)"
        signed = self.null == 0.0 and self.effect != "share"
        return f"[{self.fmt(m.ci_low, signed)}, {self.fmt(m.ci_high, signed)}]"

    def value_text(self, m: Measure) -> str:
        return self.fmt(m.value, self.null == 0.0 and self.effect != "share")

    @property
    def family_key(self) -> str:
        return self.family or self.baseline.evidence.stem


@dataclass(frozen=True)
class Test:
    """The page's verdict on one claim."""

    p_value: float
    p_page: float
    conclusive: bool
    settled_by: str
    z_page: float  # the |z| the page's correction needs at most (Bonferroni over the page)


def effect_size(claim: Claim) -> float:
    """The effect size the findings rank by (see the module docstring)."""
    v = claim.baseline.value
    if claim.effect == "share":
        return abs(v - claim.null) / abs(claim.null) if claim.null else abs(v)
    if claim.effect == "relative":
        base = claim.base_value
        if base is None or not math.isfinite(base) or base == 0:
            return abs(v - claim.null)
        return abs(v - claim.null) / abs(base)
    return abs(v - claim.null)


def required_n(claim: Claim, z_page: float) -> float:
    """The n at which the measured effect would be conclusive with 80 % power."""
    z = abs(claim.baseline.z(claim.null))
    ratio = (z_page + Z_POWER) / z if z > 0 else math.inf
    if ratio > 1e100:
        return math.inf
    return claim.n * ratio**2


def settled_by(claim: Claim, z_page: float) -> str:
    """``--size SIZE`` (the smallest that would settle it) or an n in words."""
    need = required_n(claim, z_page)
    if not math.isfinite(need):
        return "no size: no effect at all was measured"
    sizes = claim.sizes or {}
    for size in SIZES:
        if size in sizes and sizes[size] >= need:
            return f"--size {size} ({sizes[size]:,} {claim.n_unit})"
    beyond = " (beyond --size full)" if "full" in sizes else ""
    return f"about {_round_n(need):,} {claim.n_unit}{beyond}"


def _round_n(x: float) -> int:
    digits = max(0, int(math.log10(max(x, 1))) - 1)
    return int(round(x, -digits))


def correct(claims: list[Claim]) -> dict[str, Test]:
    """Holm over every claim of the page (see the module docstring), keyed by claim key."""
    keys = [c.key for c in claims]
    if len(set(keys)) != len(keys):
        dup = sorted({k for k in keys if keys.count(k) > 1})
        raise ValueError(f"claim keys must be unique on the page: {dup[:5]}")
    if not claims:
        return {}
    p = [c.baseline.p_value(c.null) for c in claims]
    adj = holm(p)
    z_page = float(sps.norm.isf(ALPHA / 2 / len(claims)))
    out = {}
    for c, raw, a in zip(claims, p, adj):
        conclusive = bool(a <= ALPHA)
        out[c.key] = Test(
            raw, float(a), conclusive, "" if conclusive else settled_by(c, z_page), z_page
        )
    return out


def tag_of(claim: Claim, tests: Mapping[str, Test], by_key: Mapping[str, Claim]) -> str:
    """The claim's tag, from its own and its strong-play counterpart's conclusiveness."""
    base = tests[claim.key].conclusive
    if claim.strong is None or claim.strong not in by_key:
        return "baseline-only" if base else "inconclusive"
    s = by_key[claim.strong]
    strong = tests[s.key].conclusive
    if not base and not strong:
        return "inconclusive"
    if base and strong:
        side_b = 1 if claim.baseline.value > claim.null else -1
        side_s = 1 if s.baseline.value > s.null else -1
        return "rules" if side_b == side_s else "players"
    return "players"


def claim_sentence(claim: Claim) -> str:
    """The claim's own sentence, numbers filled in (no verdict words)."""
    b = claim.baseline
    return claim.sentence.format(
        value=claim.value_text(b), ci=claim.interval(b), n=f"{claim.n:,}"
    ).rstrip(".")


def sentence_of(
    claim: Claim, tag: str, tests: Mapping[str, Test], by_key: Mapping[str, Claim]
) -> str:
    """The finding's full sentence: the claim, who produced it, strong play and the tag."""
    t = tests[claim.key]
    text = f"{claim_sentence(claim)}, {claim.baseline.players}"
    strong = by_key.get(claim.strong) if claim.strong else None
    if strong is not None:
        s = strong.baseline
        text += (
            f"; under the {s.population} population {claim.value_text(s)} {claim.interval(s)}"
            f" ({s.players})"
        )
    if tag == "players" and strong is not None:
        ts = tests[strong.key]
        if ts.conclusive:
            why = "the equilibrium population shows it the opposite way"
        elif strong.baseline.excludes(strong.null):
            why = (
                "under the equilibrium population it is not conclusive after the page's correction"
            )
        else:
            why = f"the equilibrium population's interval includes {strong.null_words}"
        words = f"it depends on the players: {why}"
    else:
        words = {
            "rules": "it holds under both sets of players, in the same direction",
            "players": "it depends on the players",
            "baseline-only": "measured with the hand-written players only",
            "inconclusive": "inconclusive",
        }[tag]
    return f"{text}: {words} (no effect: {claim.null_words}; Holm p {_p_words(t.p_page)})."


def _p_words(p: float) -> str:
    return "< 0.0001" if p < 1e-4 else f"= {p:.4f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Finding:
    rank: int
    claim: Claim
    effect: float
    tag: str
    text: str  # the finding's sentence, complete
    strong: Claim | None = None

    def row(self) -> dict[str, Any]:
        c = self.claim
        evidence = c.baseline.evidence.text()
        if self.strong is not None:
            evidence += "; " + self.strong.baseline.evidence.text()
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


def select(claims: list[Claim], tests: Mapping[str, Test]) -> list[Finding]:
    """The findings: conclusive claims, each family's largest effect, ranked by effect size."""
    by_key = {c.key: c for c in claims}
    best: dict[str, tuple[float, int, Claim]] = {}
    for i, c in enumerate(claims):
        if not c.finding or not tests[c.key].conclusive:
            continue
        t = (effect_size(c), i, c)
        fam = f"{c.game}/{c.family_key}"
        if fam not in best or (t[0], -t[1]) > (best[fam][0], -best[fam][1]):
            best[fam] = t
    ranked = sorted(best.values(), key=lambda t: (-t[0], t[1]))
    chosen: list[tuple[float, int, Claim]] = []
    per_game: dict[str, int] = {}
    for t in ranked:  # every game's largest first, so no game is left out
        if t[2].game not in per_game:
            per_game[t[2].game] = 1
            chosen.append(t)
    for t in ranked:
        if len(chosen) >= MAX_FINDINGS:
            break
        g = t[2].game
        if t in chosen or per_game.get(g, 0) >= PER_GAME:
            continue
        per_game[g] = per_game.get(g, 0) + 1
        chosen.append(t)
    chosen.sort(key=lambda t: (-t[0], t[1]))
    out = []
    for rank, (eff, _, c) in enumerate(chosen[:MAX_FINDINGS], start=1):
        tag = tag_of(c, tests, by_key)
        strong = by_key.get(c.strong) if c.strong else None
        out.append(Finding(rank, c, eff, tag, sentence_of(c, tag, tests, by_key), strong))
    return out


def findings_table(findings: list[Finding]) -> pd.DataFrame:
    """``findings.csv``: exactly :data:`CSV_COLUMNS`, one row per finding, ranked."""
    return pd.DataFrame([f.row() for f in findings], columns=list(CSV_COLUMNS))


def claims_table(claims: list[Claim], tests: Mapping[str, Test]) -> pd.DataFrame:
    """``claims.csv``: every claim of the page with its raw and page-corrected p."""
    rows = []
    for c in claims:
        t = tests[c.key]
        b = c.baseline
        rows.append(
            {
                "claim": c.key,
                "game": c.game,
                "quantity": c.quantity,
                "population": b.population,
                "players": c.players if c.players is not None else 0,
                "value": b.value,
                "ci_low": b.ci_low,
                "ci_high": b.ci_high,
                "null": c.null,
                "crit": b.crit,
                "df": b.df if b.df is not None else 0,
                "p_factor": b.p_factor,
                "p_value": t.p_value,
                "p_page": t.p_page,
                "conclusive": t.conclusive,
                "effect": c.effect,
                "effect_size": effect_size(c),
                "n": int(c.n),
                "settled_by": t.settled_by,
                "evidence": b.evidence.text(),
            }
        )
    return pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))


def annotate(tables: Mapping[str, pd.DataFrame], claims: list[Claim], tests) -> None:
    """Write each claim's ``p_value``, ``p_page``, ``conclusive`` and ``settled_by`` into the row
    it cites (in place: the page and the files show the same DataFrame)."""
    by_stem: dict[str, list[Claim]] = {}
    for c in claims:
        by_stem.setdefault(c.baseline.evidence.stem, []).append(c)
    for stem, cs in by_stem.items():
        df = tables[stem]
        cols = {"p_value": math.nan, "p_page": math.nan, "conclusive": None, "settled_by": ""}
        values = {k: [v] * len(df) for k, v in cols.items()}
        for c in cs:
            sel = pd.Series(True, index=df.index)
            for k, v in c.baseline.evidence.row.items():
                sel &= df[k] == v
            (pos,) = [i for i, s in enumerate(sel.to_numpy()) if s]
            t = tests[c.key]
            values["p_value"][pos] = t.p_value
            values["p_page"][pos] = t.p_page
            values["conclusive"][pos] = t.conclusive
            values["settled_by"][pos] = t.settled_by
        for k, v in values.items():
            if k == "conclusive":
                v = pd.array(v, dtype="boolean")
            df[k] = v


@dataclass
class FindingsBlock:
    """The findings as an ordered list on the page, each linking to its evidence."""

    findings: list[Finding]
    absences: list[tuple[str, str, str]] = field(default_factory=list)  # (game, text, anchor)

    def to_html(self) -> str:
        items = []
        for f in self.findings:
            c = f.claim
            links = [f'<a href="#{html.escape(c.anchor)}">evidence</a>']
            if f.strong is not None:
                links.append(f'<a href="#{html.escape(f.strong.anchor)}">under strong play</a>')
            items.append(
                f'<li class="finding" data-tag="{f.tag}">'
                f'<b class="tag tag-{f.tag}">{f.tag}</b> '
                f'<span class="game">{html.escape(GAME_TITLES.get(c.game, c.game))}</span>: '
                f"{html.escape(f.text)} "
                f'<span class="meta">(effect size {f.effect:.2f}; {" · ".join(links)})</span></li>'
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
