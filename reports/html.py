"""The report's model (sections made of blocks) and its rendering as one self-contained HTML page.

The page has no external CSS, JavaScript, fonts or images: figures are embedded as base64 PNG,
styles are inline. A tiny inline script marks each figure as loaded (``data-loaded``) and counts
them on ``<body data-figures-loaded>`` so a headless browser test can check every image decoded.
"""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

#: a table longer than this is folded behind <details> (its CSV linked beside it)
FOLD_ROWS = 12
#: rows shown inside an unfolded <details> (the rest is in the CSV)
MAX_TABLE_ROWS = 60


@dataclass
class Paragraph:
    text: str  # plain text (escaped when rendered); `code` spans become <code>
    kind: str = "text"  # text | note | warning | explain
    anchor: str | None = None  # element id, so findings and absences can link here
    link: str | None = None  # an element id this paragraph points to ("details" link)


@dataclass
class FigureBlock:
    stem: str  # file stem of the PNG/SVG beside index.html
    png: bytes
    caption: str
    csv: str  # the CSV holding the figure's numbers
    n: str  # what the figure's numbers rest on, in words ("20,000 rolls per cell")
    players: str = ""  # which players produced it, in words ("" for dice and exact odds)
    min_text_px: float = 0.0  # the figure's smallest text, in pixels of the PNG


@dataclass
class TableBlock:
    """A table on the page: rows and columns of the DataFrame written as ``stem``.

    ``source`` is that DataFrame itself (not a copy), so columns the page-wide correction adds
    later (``conclusive``, ``p_page``, ``settled_by``) show on the page as in the file.
    """

    stem: str  # CSV/Parquet stem of the full table
    source: pd.DataFrame  # the full table (the same object as the section's table)
    caption: str
    columns: list[str] | None = None  # shown columns (None: all)
    rows: Any = None  # shown row labels (None: all)
    key: tuple[str, ...] = ()
    phone: tuple[str, ...] = ()  # columns shown at phone width (besides the key)
    fold: bool | None = None  # None: folded when longer than FOLD_ROWS

    @property
    def df(self) -> pd.DataFrame:
        d = self.source if self.rows is None else self.source.loc[self.rows]
        if self.columns is not None:
            cols = [c for c in self.columns if c in d.columns]
            cols += [c for c in TESTED_COLUMNS if c in d.columns and c not in cols]
            d = d[cols]
        return d

    @property
    def total_rows(self) -> int:
        return len(self.source)

    @property
    def hidden_columns(self) -> int:
        return len(self.source.columns) - len(self.df.columns)


#: columns the page-wide correction writes into a table of claims (always shown; p_page is in
#: the file)
TESTED_COLUMNS = ("conclusive", "settled_by")


@dataclass
class DefinitionsBlock:
    """Names with their descriptions (e.g. the strategies of a figure, from the scenario); an
    item may carry a third element, the element id of its line."""

    title: str
    items: list[tuple]


@dataclass
class Section:
    """One section of the report; ``tables`` are written as CSV + Parquet by the report writer."""

    key: str
    title: str
    blocks: list[Any] = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)  # each table's unique key
    wall_time_s: float = math.nan
    figures_n: list[dict] = field(default_factory=list)  # rows for the provenance table
    scenarios: list[dict] = field(default_factory=list)  # scenario provenance used by the section
    seed: int | None = None
    claims: list[Any] = field(default_factory=list)  # reports.findings.Claim candidates
    absences: list[tuple[str, str, str]] = field(default_factory=list)  # (game, text, anchor)
    strong_play: list[tuple[str, str]] = field(default_factory=list)  # (summary line, anchor)
    axes: list[Any] = field(default_factory=list)  # reports.verdicts.Axis of the game
    glossary: list[tuple[str, str]] = field(default_factory=list)  # (strategy, its line)

    def text(
        self, text: str, kind: str = "text", anchor: str | None = None, link: str | None = None
    ) -> None:
        self.blocks.append(Paragraph(text, kind, anchor, link))

    def heading(self, text: str, anchor: str | None = None) -> None:
        self.blocks.append(Heading(text, anchor))

    def definitions(self, title: str, items: list[tuple]) -> None:
        if items:
            self.blocks.append(DefinitionsBlock(title, items))

    def table(
        self,
        stem: str,
        df: pd.DataFrame,
        caption: str,
        show: pd.DataFrame | None = None,
        *,
        key: tuple[str, ...],
        columns: list[str] | None = None,
        fold: bool | None = None,
        phone: tuple[str, ...] | None = None,
    ) -> None:
        """Register ``df`` as a file and show it (the rows and columns of ``show``, a subset of
        ``df``, or only ``columns``); ``key`` names the columns that identify a row (checked
        when the file is written). Tables longer than :data:`FOLD_ROWS` are folded unless
        ``fold=False``. At phone width only the key and ``phone`` columns show (default: the
        first value column, its interval and ``conclusive``), the others behind a switch."""
        self.tables[stem] = df
        self.keys[stem] = tuple(key)
        rows = None if show is None else show.index
        if columns is None and show is not None:
            columns = list(show.columns)
        shown = columns if columns is not None else list(df.columns)
        if phone is None:
            phone = default_phone_columns(df, shown, key)
        self.blocks.append(
            TableBlock(
                stem,
                df,
                caption,
                columns=columns,
                rows=rows,
                key=tuple(key),
                phone=tuple(phone),
                fold=fold,
            )
        )

    def data(self, stem: str, df: pd.DataFrame, *, key: tuple[str, ...]) -> None:
        """Register a table as a file without showing it (``key`` as for :meth:`table`)."""
        self.tables[stem] = df
        self.keys[stem] = tuple(key)


def default_phone_columns(df: pd.DataFrame, shown: list[str], key) -> tuple[str, ...]:
    """The first numeric column after the key, its interval columns and ``conclusive``."""
    out: list[str] = []
    for c in shown:
        if c in key or c not in df.columns:
            continue
        if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]):
            if c in ("n", "games", "battles", "wins", "shared", "players", "seed"):
                continue
            out.append(c)
            break
    for lo, hi in (("ci_low", "ci_high"), ("score_lo", "score_hi"), ("ci95_low", "ci95_high")):
        if lo in shown and hi in shown:
            out += [lo, hi]
            break
    return (*out, "conclusive")


@dataclass
class Heading:
    text: str
    anchor: str | None = None


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;
color:#1d2430;background:#fafafa;line-height:1.45}
header{background:#12324a;color:#fff;padding:.7rem 2rem}
header h1{margin:0;font-size:1.35rem}
header p{margin:.15rem 0 0;opacity:.85;font-size:.85rem}
nav{background:#e8eef3;padding:.4rem 2rem;position:sticky;top:0;border-bottom:1px solid #cfd8e0;
z-index:2}
nav a{margin-right:1.1rem;color:#12324a;text-decoration:none;font-weight:600}
main{max-width:1150px;margin:0 auto;padding:.5rem 2rem 3rem}
section{background:#fff;border:1px solid #dde3ea;border-radius:6px;\
padding:.8rem 1.5rem;margin:.8rem 0}
h2{color:#12324a;border-bottom:2px solid #e8eef3;padding-bottom:.2rem;margin:.3rem 0 .6rem}
h3{color:#12324a;margin:1.4rem 0 .4rem;font-size:1.08rem}
figure{margin:1rem 0;text-align:center}
figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9rem;color:#445;margin-top:.3rem;text-align:left}
.tw{overflow-x:auto;max-width:100%;margin:.5rem 0 1rem}
table{border-collapse:collapse;font-size:.82rem}
th,td{border:1px solid #dde3ea;padding:.2rem .45rem;text-align:right;white-space:nowrap}
th{background:#f0f4f7;white-space:normal;vertical-align:bottom;min-width:2.5rem}
td.s,th.s{text-align:left;white-space:normal}
td.t{text-align:left;white-space:normal;min-width:10rem;overflow-wrap:anywhere}
td.yes{color:#0b6b2f;font-weight:600}
td.no{color:#8a5a00}
details{margin:.3rem 0 1rem}
summary{cursor:pointer;color:#12324a;font-size:.9rem}
.note{background:#fff8e1;border-left:4px solid #f0b400;padding:.5rem .8rem}
.warning{background:#fdecea;border-left:4px solid #d93025;padding:.5rem .8rem}
.explain{background:#eef6ff;border-left:4px solid #3b82c4;padding:.5rem .8rem}
.caption{font-size:.9rem;color:#445}
code{background:#f0f4f7;padding:0 .2rem;border-radius:3px;overflow-wrap:anywhere}
header code{background:rgba(255,255,255,.18);color:#fff}
a.g{color:inherit;text-decoration:underline dotted}
dl.defs{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;font-size:.9rem;
margin:.3rem 0 1rem}
dl.defs dt{font-weight:600}
dl.defs dd{margin:0}
ol.findings{padding-left:1.6rem}
ol.findings li{margin:.45rem 0}
.tag,.chip b{display:inline-block;font-size:.75rem;font-weight:700;padding:0 .4rem;
border-radius:3px;color:#fff;background:#6b7280}
.tag-rules{background:#0b6b2f}
.tag-players{background:#a23b72}
.tag-baseline-only{background:#3b6ea5}
.tag-inconclusive,.v-inconclusive b,.tag.v-inconclusive{background:#6b7280}
.v-balanced b,.tag.v-balanced{background:#0b6b2f}
.v-imbalanced b,.tag.v-imbalanced{background:#b3261e}
.vgrid{margin:.2rem 0 .6rem}
.vgame{margin:.15rem 0;line-height:1.9}
.vgame .game{display:inline-block;min-width:8.5rem}
.chip{display:inline-block;margin:0 .35rem .1rem 0;padding:.05rem .4rem;border:1px solid #cfd8e0;
border-radius:12px;font-size:.8rem;color:#1d2430;text-decoration:none;background:#f7f9fb}
ul.verdicts{padding-left:1.1rem;margin:.3rem 0}
ul.verdicts li{margin:.3rem 0;font-size:.92rem}
.try{font-size:.85rem;color:#334;margin:.1rem 0 0 .2rem}
.game{font-weight:600}
.meta{font-size:.82rem;color:#556}
.allcols{display:none}
@media (max-width:760px){
header,nav{padding:.4rem .8rem}
nav{position:static;white-space:nowrap;overflow-x:auto}
main{padding:.3rem .5rem 2rem}
section{padding:.6rem .7rem}
table{font-size:.72rem}
th,td{padding:.15rem .3rem}
th{min-width:0}
td.t{min-width:6rem}
td.s{overflow-wrap:anywhere;min-width:3.5rem}
dl.defs{grid-template-columns:1fr}
.vgame .game{display:block}
.allcols{display:inline;font-size:.8rem}
.tw td.x,.tw th.x{display:none}
.showall:checked ~ .tw td.x,.showall:checked ~ .tw th.x{display:table-cell}
}
.showall{margin:0 .3rem 0 0;vertical-align:middle}
@media (min-width:761px){.showall{display:none}}
@media print{
body{background:#fff;color:#000;font-size:10pt}
header{background:#fff;color:#000;padding:0 0 .5rem;border-bottom:2px solid #000}
header p{opacity:1}
header code,code{background:none;color:#000}
nav,.showall,.allcols{display:none}
main{max-width:none;padding:0}
section{border:none;padding:0;margin:0 0 1rem}
h2,h3{break-after:avoid}
figure,table,tr,.note,.explain,.warning,li.finding,li.verdict{break-inside:avoid}
figure img{max-height:22cm;max-width:100%;width:auto}
.tw{overflow:visible}
.tw td.x,.tw th.x{display:table-cell}
table{font-size:7.5pt}
th,td{white-space:normal;padding:.05rem .2rem}
a{color:#000;text-decoration:none}
.chip{border-color:#000;color:#000;background:#fff}
.tag,.chip b{color:#000;background:#fff;border:1px solid #000}
.meta,.caption,figcaption,.try{color:#000}
}
"""

SCRIPT = """
(function(){
  var errors=0;
  window.addEventListener('error', function(){ errors++; \
document.body.setAttribute('data-js-errors', String(errors)); }, true);
  function mark(){
    document.body.setAttribute('data-js-errors', String(errors));
    var imgs=document.querySelectorAll('img.figure'), ok=0;
    for(var i=0;i<imgs.length;i++){
      var good=imgs[i].complete && imgs[i].naturalWidth>0;
      imgs[i].setAttribute('data-loaded', good ? 'yes' : 'no');
      if(good){ok++;}
    }
    document.body.setAttribute('data-figures-total', String(imgs.length));
    document.body.setAttribute('data-figures-loaded', String(ok));
    // tables wider than the page (they would need side-scrolling), folded ones opened to measure
    var wide=[], d=document.querySelectorAll('details');
    var closed=[];
    for(var j=0;j<d.length;j++){ if(!d[j].open){ closed.push(d[j]); d[j].open=true; } }
    var tw=document.querySelectorAll('.tw');
    for(var k=0;k<tw.length;k++){
      if(tw[k].scrollWidth > tw[k].clientWidth + 1){
        wide.push(tw[k].getAttribute('data-stem') || String(k));
      }
    }
    for(var m=0;m<closed.length;m++){ closed[m].open=false; }
    document.body.setAttribute('data-wide-tables', wide.join(' '));
    // the smallest figure text at this width: each figure's smallest font (px at its natural
    // size, data-min-text-px) scaled by its displayed width
    var small=1e9;
    for(var f=0;f<imgs.length;f++){
      var px=parseFloat(imgs[f].getAttribute('data-min-text-px'));
      if(imgs[f].naturalWidth>0 && px>0){
        small=Math.min(small, px*imgs[f].clientWidth/imgs[f].naturalWidth);
      }
    }
    document.body.setAttribute('data-min-figure-text-px', small<1e9 ? small.toFixed(2) : '');
    var v=document.querySelector('li.verdict');
    document.body.setAttribute('data-first-verdict-top',
      v ? String(Math.round(v.getBoundingClientRect().top + window.scrollY)) : '');
    var g=document.querySelector('.vgrid');
    document.body.setAttribute('data-verdict-grid-bottom',
      g ? String(Math.round(g.getBoundingClientRect().bottom + window.scrollY)) : '');
  }
  window.addEventListener('load', mark);
  // printing shows every folded table
  window.addEventListener('beforeprint', function(){
    var d=document.querySelectorAll('details');
    for(var i=0;i<d.length;i++){ d[i].setAttribute('open', ''); }
  });
})();
"""

#: columns holding p-values (shown as "< 0.0001" below that)
P_COLUMNS = ("p_value", "p_page", "p_holm")


def _fmt(v: Any, col: str = "") -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        if col in P_COLUMNS:
            return "< 0.0001" if v < 1e-4 else f"{v:.4f}".rstrip("0").rstrip(".")
        if v.is_integer() and abs(v) < 1e15:
            return _fmt(int(v))
        if abs(v) < 1e-3:
            return "< 0.001" if v > 0 else "> −0.001"
        if abs(v) >= 1e6:
            return f"{v:,.0f}"
        return f"{v:.4f}".rstrip("0").rstrip(".") if abs(v) < 100 else f"{v:,.1f}"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10000 else str(v)
    if v is None or v is pd.NA or v is pd.NaT:
        return "–"
    return str(v)


def inline(text: str) -> str:
    """Escape ``text``; spans between backticks become ``<code>`` (no literal markup shown)."""
    parts = html.escape(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: show the text as it is, without it
        return "".join(parts)
    return "".join(p if i % 2 == 0 else f"<code>{p}</code>" for i, p in enumerate(parts))


def table_html(
    df: pd.DataFrame,
    max_rows: int = MAX_TABLE_ROWS,
    stem: str = "",
    phone: tuple[str, ...] | None = None,
) -> str:
    """A table: headers in words (the CSV's column name in ``data-col``), values in display form
    (:data:`reports.display.VALUE_DISPLAY`); columns outside ``phone`` carry class ``x`` (hidden
    at phone width unless the table's "all columns" switch is on)."""
    from reports.display import VALUE_DISPLAY, column_label

    cols = list(df.columns)
    numeric = {
        c: pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
        for c in cols
    }
    boolean = {c: pd.api.types.is_bool_dtype(df[c]) for c in cols}
    text = {
        c: not numeric[c] and df[c].astype(str).str.len().max() > 40 if len(df) else False
        for c in cols
    }
    hide = {c: phone is not None and c not in phone for c in cols}

    def cls(c: str, v: Any = None) -> str:
        out = []
        if v is pd.NA or v is None:
            pass
        elif boolean[c] or (c == "conclusive" and isinstance(v, bool)):
            out.append("yes" if v else "no")
        elif not numeric[c]:
            out.append("t" if text[c] else "s")
        if hide[c]:
            out.append("x")
        return " ".join(out)

    head = "".join(
        f'<th class="{"" if numeric[c] else "s"}{" x" if hide[c] else ""}" '
        f'data-col="{html.escape(str(c))}">'
        f"{html.escape(column_label(c)).replace('_', '_<wbr>')}</th>"
        for c in cols
    )
    rows = []
    for rec in df.head(max_rows).itertuples(index=False):
        cells = []
        for c, v in zip(cols, rec):
            v = v.item() if hasattr(v, "item") else v
            if c in VALUE_DISPLAY and isinstance(v, str):
                shown = VALUE_DISPLAY[c](v)
            else:
                shown = _fmt(v, c)
            cells.append(f'<td class="{cls(c, v)}">{html.escape(shown)}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<div class="tw" data-stem="{html.escape(stem)}"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _csv_link(stem: str) -> str:
    s = html.escape(stem)
    return f'<a href="{s}.csv"><code>{s}.csv</code></a>'


def _block_html(block: Any) -> str:
    if hasattr(block, "to_html"):
        return block.to_html()
    if isinstance(block, Heading):
        anchor = f' id="{html.escape(block.anchor)}"' if block.anchor else ""
        return f"<h3{anchor}>{html.escape(block.text)}</h3>"
    if isinstance(block, Paragraph):
        cls = {"text": "", "note": "note", "warning": "warning", "explain": "explain"}[block.kind]
        anchor = f' id="{html.escape(block.anchor)}"' if block.anchor else ""
        link = f' <a href="#{html.escape(block.link)}">details</a>' if block.link else ""
        return f'<p class="{cls}"{anchor}>{inline(block.text)}{link}</p>'
    if isinstance(block, DefinitionsBlock):
        items = "".join(
            f"<dt{_id(a)}>{html.escape(k)}</dt><dd>{inline(v)}</dd>"
            for k, v, a in ((it[0], it[1], it[2] if len(it) > 2 else None) for it in block.items)
        )
        return f'<p class="caption">{inline(block.title)}</p><dl class="defs">{items}</dl>'
    if isinstance(block, FigureBlock):
        b64 = base64.b64encode(block.png).decode("ascii")
        players = f" Players: {inline(block.players)}." if block.players else ""
        stem = html.escape(block.stem)
        return (
            f'<figure id="fig-{stem}">'
            f'<img class="figure" alt="{html.escape(block.caption)}" '
            f'data-min-text-px="{block.min_text_px:.2f}" '
            f'src="data:image/png;base64,{b64}">'
            f"<figcaption>{inline(block.caption)} <em>Based on {html.escape(block.n)}.</em>"
            f"{players} Numbers: {_csv_link(block.csv.removesuffix('.csv'))}; figure files: "
            f'<a href="{stem}.svg">{stem}.svg</a> (vector), <a href="{stem}.png">{stem}.png</a>.'
            "</figcaption></figure>"
        )
    if isinstance(block, TableBlock):
        df = block.df
        total = block.total_rows
        shown = min(len(df), MAX_TABLE_ROWS)
        more = f" Showing {shown} of {total:,} rows." if total > shown else ""
        if block.hidden_columns:
            more += f" {block.hidden_columns} more columns in the file."
        stem = html.escape(block.stem)
        caption = (
            f'<p class="caption" id="tbl-{stem}">{inline(block.caption)}{more} '
            f"File: {_csv_link(block.stem)} (and .parquet).</p>"
        )
        phone = (*block.key, *block.phone)
        body = table_html(df, stem=block.stem, phone=phone)
        narrow = any(c not in phone for c in df.columns)
        if narrow:  # at phone width: the key columns, and a switch for the others
            body = (
                f'<input type="checkbox" class="showall" id="all-{stem}">'
                f'<label class="allcols" for="all-{stem}">all columns</label>{body}'
            )
        fold = block.fold if block.fold is not None else total > FOLD_ROWS
        if fold:
            return (
                f"{caption}<details><summary>Show the table ({total:,} rows)</summary>"
                f"{body}</details>"
            )
        return caption + body
    raise TypeError(f"unknown block {block!r}")


def _id(anchor: str | None) -> str:
    return f' id="{html.escape(anchor)}"' if anchor else ""


_SKIP_TAGS = (
    "a", "b", "code", "script", "style", "h1", "h2", "h3", "th", "summary", "dt", "title",
)  # fmt: skip


def link_first_uses(body: str, terms: list[tuple[str, str, bool]]) -> str:
    """Wrap the first use of each ``(term, anchor, case_sensitive)`` in the page's text (outside
    links, code, headings, table headers and attributes) in a link to its glossary line."""
    import re

    pending = [
        (
            re.compile(
                rf"(?<![\w\-]){re.escape(html.escape(term))}(?![\w\-])",
                0 if case else re.IGNORECASE,
            ),
            anchor,
        )
        for term, anchor, case in terms
    ]
    depth = dict.fromkeys(_SKIP_TAGS, 0)
    out = []
    for part in re.split(r"(<[^>]+>)", body):
        if part.startswith("<"):
            m = re.match(r"<(/?)([a-zA-Z0-9]+)", part)
            if m and m.group(2).lower() in depth and not part.endswith("/>"):
                depth[m.group(2).lower()] += -1 if m.group(1) else 1
            out.append(part)
        elif pending and part.strip() and not any(depth.values()):
            out.append(_link_run(part, pending))
        else:
            out.append(part)
    return "".join(out)


def _link_run(text: str, pending: list) -> str:
    """Link the earliest use of each pending term in one run of text (removing it from
    ``pending``), left to right."""
    out = []
    while pending:
        best = None
        for item in pending:
            m = item[0].search(text)
            if m and (best is None or m.start() < best[0].start()):
                best = (m, item)
        if best is None:
            break
        m, item = best
        out.append(f'{text[: m.start()]}<a class="g" href="#{item[1]}">{m.group(0)}</a>')
        text = text[m.end() :]
        pending.remove(item)
    out.append(text)
    return "".join(out)


def render_page(
    title: str,
    subtitle: str,
    sections: list[Section],
    glossary: list[tuple[str, str, bool]] | None = None,
) -> str:
    """The whole report as one HTML string; ``glossary``: terms whose first use links to their
    line (``(term, anchor, case_sensitive)``)."""
    nav = "".join(f'<a href="#{html.escape(s.key)}">{html.escape(s.title)}</a>' for s in sections)
    body = []
    for s in sections:
        inner = "".join(_block_html(b) for b in s.blocks)
        body.append(
            f'<section id="{html.escape(s.key)}"><h2>{html.escape(s.title)}</h2>{inner}</section>'
        )
    main = "".join(body)
    if glossary:
        cut = main.find('<section id="glossary">')
        if cut < 0:
            cut = len(main)
        main = link_first_uses(main[:cut], glossary) + main[cut:]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head>"
        f"<body><header><h1>{html.escape(title)}</h1><p>{inline(subtitle)}</p></header>"
        f"<nav>{nav}</nav><main>{main}</main><script>{SCRIPT}</script></body></html>\n"
    )
