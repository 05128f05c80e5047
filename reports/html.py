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


@dataclass
class TableBlock:
    stem: str  # CSV/Parquet stem of the full table
    df: pd.DataFrame  # what is shown (rows of the CSV, maybe a subset of columns)
    caption: str
    total_rows: int | None = None
    fold: bool | None = None  # None: folded when longer than FOLD_ROWS
    hidden_columns: int = 0  # columns of the CSV not shown on the page


@dataclass
class DefinitionsBlock:
    """Names with their descriptions (e.g. the strategies of a figure, from the scenario)."""

    title: str
    items: list[tuple[str, str]]


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

    def text(
        self, text: str, kind: str = "text", anchor: str | None = None, link: str | None = None
    ) -> None:
        self.blocks.append(Paragraph(text, kind, anchor, link))

    def heading(self, text: str, anchor: str | None = None) -> None:
        self.blocks.append(Heading(text, anchor))

    def definitions(self, title: str, items: list[tuple[str, str]]) -> None:
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
    ) -> None:
        """Register ``df`` as a file and show it (or the ``show`` subset of its rows/columns, or
        only ``columns``); ``key`` names the columns that identify a row (checked when the file
        is written). Tables longer than :data:`FOLD_ROWS` are folded unless ``fold=False``."""
        self.tables[stem] = df
        self.keys[stem] = tuple(key)
        shown = df if show is None else show
        if columns is not None:
            shown = shown[[c for c in columns if c in shown.columns]]
        self.blocks.append(
            TableBlock(
                stem,
                shown,
                caption,
                total_rows=len(df),
                fold=fold,
                hidden_columns=len(df.columns) - len(shown.columns),
            )
        )

    def data(self, stem: str, df: pd.DataFrame, *, key: tuple[str, ...]) -> None:
        """Register a table as a file without showing it (``key`` as for :meth:`table`)."""
        self.tables[stem] = df
        self.keys[stem] = tuple(key)


@dataclass
class Heading:
    text: str
    anchor: str | None = None


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;
color:#1d2430;background:#fafafa;line-height:1.45}
header{background:#12324a;color:#fff;padding:1.2rem 2rem}
header h1{margin:0 0 .3rem 0;font-size:1.6rem}
header p{margin:0;opacity:.85}
nav{background:#e8eef3;padding:.5rem 2rem;position:sticky;top:0;border-bottom:1px solid #cfd8e0;
z-index:2}
nav a{margin-right:1.2rem;color:#12324a;text-decoration:none;font-weight:600}
main{max-width:1150px;margin:0 auto;padding:1rem 2rem 3rem}
section{background:#fff;border:1px solid #dde3ea;border-radius:6px;\
padding:1rem 1.5rem;margin:1.2rem 0}
h2{color:#12324a;border-bottom:2px solid #e8eef3;padding-bottom:.3rem}
h3{color:#12324a;margin:1.4rem 0 .4rem;font-size:1.08rem}
figure{margin:1rem 0;text-align:center}
figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9rem;color:#445;margin-top:.3rem;text-align:left}
.tw{overflow-x:auto;max-width:100%;margin:.5rem 0 1rem}
table{border-collapse:collapse;font-size:.82rem}
th,td{border:1px solid #dde3ea;padding:.2rem .5rem;text-align:right;white-space:nowrap}
th{background:#f0f4f7;white-space:normal;vertical-align:bottom;min-width:3rem}
td.s,th.s{text-align:left}
td.t{text-align:left;white-space:normal;min-width:14rem}
td.yes{color:#0b6b2f;font-weight:600}
td.no{color:#8a5a00}
details{margin:.3rem 0 1rem}
summary{cursor:pointer;color:#12324a;font-size:.9rem}
.note{background:#fff8e1;border-left:4px solid #f0b400;padding:.5rem .8rem}
.warning{background:#fdecea;border-left:4px solid #d93025;padding:.5rem .8rem}
.explain{background:#eef6ff;border-left:4px solid #3b82c4;padding:.5rem .8rem}
.caption{font-size:.9rem;color:#445}
code{background:#f0f4f7;padding:0 .2rem;border-radius:3px}
header code{background:rgba(255,255,255,.18);color:#fff}
dl.defs{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;font-size:.9rem;
margin:.3rem 0 1rem}
dl.defs dt{font-weight:600}
dl.defs dd{margin:0}
ol.findings{padding-left:1.6rem}
ol.findings li{margin:.45rem 0}
.tag{display:inline-block;font-size:.75rem;font-weight:700;padding:0 .4rem;border-radius:3px;
color:#fff;background:#6b7280}
.tag-rules{background:#0b6b2f}
.tag-players{background:#a23b72}
.tag-baseline-only{background:#3b6ea5}
.tag-inconclusive{background:#8a8f98}
.game{font-weight:600}
.meta{font-size:.82rem;color:#556}
@media (max-width:760px){
header,nav{padding:.5rem .8rem}
nav{position:static;white-space:nowrap;overflow-x:auto}
main{padding:.4rem .5rem 2rem}
section{padding:.6rem .7rem}
table{font-size:.72rem}
th,td{padding:.15rem .3rem}
dl.defs{grid-template-columns:1fr}
}
@media print{
body{background:#fff;font-size:10pt}
header{background:#fff;color:#000;padding:0 0 .5rem;border-bottom:2px solid #000}
nav{display:none}
main{max-width:none;padding:0}
section{border:none;padding:0;margin:0 0 1rem}
h2,h3{break-after:avoid}
figure,table,.note,.explain,li.finding{break-inside:avoid}
.tw{overflow:visible}
table{font-size:7.5pt}
th,td{white-space:normal;padding:.05rem .2rem}
a{color:#000;text-decoration:none}
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
  }
  window.addEventListener('load', mark);
  // printing shows every folded table
  window.addEventListener('beforeprint', function(){
    var d=document.querySelectorAll('details');
    for(var i=0;i<d.length;i++){ d[i].setAttribute('open', ''); }
  });
})();
"""


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        if v.is_integer() and abs(v) < 1e15:
            return _fmt(int(v))
        if abs(v) < 1e-3 or abs(v) >= 1e6:
            return f"{v:.3g}"
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


def table_html(df: pd.DataFrame, max_rows: int = MAX_TABLE_ROWS, stem: str = "") -> str:
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

    def cls(c: str, v: Any = None) -> str:
        if boolean[c]:
            return "yes" if v else "no"
        if numeric[c]:
            return ""
        return "t" if text[c] else "s"

    head = "".join(
        f'<th class="{"" if numeric[c] else "s"}">{html.escape(str(c)).replace("_", "_<wbr>")}</th>'
        for c in cols
    )
    rows = []
    for rec in df.head(max_rows).itertuples(index=False):
        cells = []
        for c, v in zip(cols, rec):
            v = v.item() if hasattr(v, "item") else v
            cells.append(f'<td class="{cls(c, v)}">{html.escape(_fmt(v))}</td>')
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
        items = "".join(f"<dt>{html.escape(k)}</dt><dd>{inline(v)}</dd>" for k, v in block.items)
        return f'<p class="caption">{inline(block.title)}</p><dl class="defs">{items}</dl>'
    if isinstance(block, FigureBlock):
        b64 = base64.b64encode(block.png).decode("ascii")
        players = f" Players: {inline(block.players)}." if block.players else ""
        return (
            f'<figure id="fig-{html.escape(block.stem)}">'
            f'<img class="figure" alt="{html.escape(block.caption)}" '
            f'src="data:image/png;base64,{b64}">'
            f"<figcaption>{inline(block.caption)} <em>Based on {html.escape(block.n)}.</em>"
            f"{players} Numbers: {_csv_link(block.csv.removesuffix('.csv'))}; vector version: "
            f"<code>{html.escape(block.stem)}.svg</code>.</figcaption></figure>"
        )
    if isinstance(block, TableBlock):
        total = block.total_rows if block.total_rows is not None else len(block.df)
        shown = min(len(block.df), MAX_TABLE_ROWS)
        more = f" Showing {shown} of {total:,} rows." if total > shown else ""
        if block.hidden_columns:
            more += f" {block.hidden_columns} more columns in the file."
        caption = (
            f'<p class="caption" id="tbl-{html.escape(block.stem)}">{inline(block.caption)}{more} '
            f"File: {_csv_link(block.stem)} (and .parquet).</p>"
        )
        fold = block.fold if block.fold is not None else total > FOLD_ROWS
        body = table_html(block.df, stem=block.stem)
        if fold:
            return (
                f"{caption}<details><summary>Show the table ({total:,} rows)</summary>"
                f"{body}</details>"
            )
        return caption + body
    raise TypeError(f"unknown block {block!r}")


def render_page(title: str, subtitle: str, sections: list[Section]) -> str:
    """The whole report as one HTML string."""
    nav = "".join(f'<a href="#{html.escape(s.key)}">{html.escape(s.title)}</a>' for s in sections)
    body = []
    for s in sections:
        inner = "".join(_block_html(b) for b in s.blocks)
        body.append(
            f'<section id="{html.escape(s.key)}"><h2>{html.escape(s.title)}</h2>{inner}</section>'
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head>"
        f"<body><header><h1>{html.escape(title)}</h1><p>{inline(subtitle)}</p></header>"
        f"<nav>{nav}</nav><main>{''.join(body)}</main><script>{SCRIPT}</script></body></html>\n"
    )
