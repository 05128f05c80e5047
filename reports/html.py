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

MAX_TABLE_ROWS = 40


@dataclass
class Paragraph:
    text: str  # plain text (escaped when rendered)
    kind: str = "text"  # text | note | warning


@dataclass
class FigureBlock:
    stem: str  # file stem of the PNG/SVG beside index.html
    png: bytes
    caption: str
    csv: str  # the CSV holding the figure's numbers
    n: str  # what the figure's numbers rest on, in words ("20,000 rolls per cell")


@dataclass
class TableBlock:
    stem: str  # CSV/Parquet stem of the full table
    df: pd.DataFrame  # what is shown (rows of the CSV, maybe a subset of columns)
    caption: str
    total_rows: int | None = None


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

    def text(self, text: str, kind: str = "text") -> None:
        self.blocks.append(Paragraph(text, kind))

    def table(
        self,
        stem: str,
        df: pd.DataFrame,
        caption: str,
        show: pd.DataFrame | None = None,
        *,
        key: tuple[str, ...],
    ) -> None:
        """Register ``df`` as a file and show it (or the ``show`` subset of its rows/columns);
        ``key`` names the columns that identify a row (checked when the file is written)."""
        self.tables[stem] = df
        self.keys[stem] = tuple(key)
        shown = df if show is None else show
        self.blocks.append(TableBlock(stem, shown, caption, total_rows=len(df)))

    def data(self, stem: str, df: pd.DataFrame, *, key: tuple[str, ...]) -> None:
        """Register a table as a file without showing it (``key`` as for :meth:`table`)."""
        self.tables[stem] = df
        self.keys[stem] = tuple(key)


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;
color:#1d2430;background:#fafafa;line-height:1.45}
header{background:#12324a;color:#fff;padding:1.2rem 2rem}
header h1{margin:0 0 .3rem 0;font-size:1.6rem}
header p{margin:0;opacity:.85}
nav{background:#e8eef3;padding:.5rem 2rem;position:sticky;top:0;border-bottom:1px solid #cfd8e0}
nav a{margin-right:1.2rem;color:#12324a;text-decoration:none;font-weight:600}
main{max-width:1150px;margin:0 auto;padding:1rem 2rem 3rem}
section{background:#fff;border:1px solid #dde3ea;border-radius:6px;\
padding:1rem 1.5rem;margin:1.2rem 0}
h2{color:#12324a;border-bottom:2px solid #e8eef3;padding-bottom:.3rem}
figure{margin:1rem 0;text-align:center}
figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9rem;color:#445;margin-top:.3rem;text-align:left}
table{border-collapse:collapse;font-size:.82rem;margin:.5rem 0 1rem;display:block;overflow-x:auto}
th,td{border:1px solid #dde3ea;padding:.2rem .5rem;text-align:right;white-space:nowrap}
th{background:#f0f4f7}
td.s,th.s{text-align:left}
.note{background:#fff8e1;border-left:4px solid #f0b400;padding:.5rem .8rem}
.warning{background:#fdecea;border-left:4px solid #d93025;padding:.5rem .8rem}
.caption{font-size:.9rem;color:#445}
code{background:#f0f4f7;padding:0 .2rem;border-radius:3px}
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
  }
  window.addEventListener('load', mark);
})();
"""


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e6):
            return f"{v:.3g}"
        return f"{v:.4f}".rstrip("0").rstrip(".") if abs(v) < 100 else f"{v:,.1f}"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10000 else str(v)
    return str(v)


def table_html(df: pd.DataFrame, max_rows: int = MAX_TABLE_ROWS) -> str:
    cols = list(df.columns)
    numeric = {
        c: pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
        for c in cols
    }
    head = "".join(
        f'<th class="{"" if numeric[c] else "s"}">{html.escape(str(c))}</th>' for c in cols
    )
    rows = []
    for rec in df.head(max_rows).itertuples(index=False):
        cells = "".join(
            f'<td class="{"" if numeric[c] else "s"}">'
            f"{html.escape(_fmt(v.item() if hasattr(v, 'item') else v))}</td>"
            for c, v in zip(cols, rec)
        )
        rows.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _block_html(block: Any) -> str:
    if isinstance(block, Paragraph):
        cls = {"text": "", "note": "note", "warning": "warning"}[block.kind]
        return f'<p class="{cls}">{html.escape(block.text)}</p>'
    if isinstance(block, FigureBlock):
        b64 = base64.b64encode(block.png).decode("ascii")
        return (
            f'<figure id="fig-{html.escape(block.stem)}">'
            f'<img class="figure" alt="{html.escape(block.caption)}" '
            f'src="data:image/png;base64,{b64}">'
            f"<figcaption>{html.escape(block.caption)} <em>Based on {html.escape(block.n)}.</em> "
            f"Numbers: <code>{html.escape(block.csv)}</code>; vector version: "
            f"<code>{html.escape(block.stem)}.svg</code>.</figcaption></figure>"
        )
    if isinstance(block, TableBlock):
        more = ""
        shown = min(len(block.df), MAX_TABLE_ROWS)
        if block.total_rows is not None and block.total_rows > shown:
            more = f" Showing {shown} of {block.total_rows:,} rows."
        return (
            f'<p class="caption">{html.escape(block.caption)}{more} File: '
            f"<code>{html.escape(block.stem)}.csv</code> (and .parquet).</p>{table_html(block.df)}"
        )
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
        f"<body><header><h1>{html.escape(title)}</h1><p>{html.escape(subtitle)}</p></header>"
        f"<nav>{nav}</nav><main>{''.join(body)}</main><script>{SCRIPT}</script></body></html>\n"
    )
