"""Rendering the report: a self-contained HTML page (figures inline as base64 PNG) and Markdown.

The report is a list of :class:`Section` objects, each with a short "how to read this", tables
(:class:`~benchmarks.report.tables.ReportTable`) and figures (:class:`ReportFigure`). Numbers are
formatted here, at the last moment; the tables stay numeric DataFrames until then.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from benchmarks.report.header import ReportHeader
from benchmarks.report.tables import ReportTable
from empa_env.safe_text import markdown_safe


@dataclass(frozen=True)
class ReportFigure:
    """One rendered figure: the PNG bytes and where the Markdown report links it."""

    name: str
    caption: str
    png: bytes
    path: str  # relative to the report folder, e.g. "figures/fig11_outcomes.png"


@dataclass
class Section:
    title: str
    how_to_read: str
    tables: list[ReportTable] = field(default_factory=list)
    figures: list[ReportFigure] = field(default_factory=list)
    text: str = ""
    #: What the reader must not miss (e.g. that no policy succeeded, and what success needs),
    #: shown in a box under the "how to read this".
    alert: str = ""
    #: A ready HTML fragment (already escaped by its builder, e.g. the transcripts) and its
    #: Markdown counterpart.
    html: str = ""
    markdown: str = ""

    @property
    def anchor(self) -> str:
        """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
        kept = "".join(ch for ch in self.title.lower() if ch.isalnum() or ch in " -_")
        return kept.replace(" ", "-")


def figure_png(fig: Figure, dpi: int = 100) -> bytes:
    """PNG bytes of a Figure (the Figure is closed afterwards).

    A Figure with a layout engine (the report's use ``layout="constrained"``) is laid out once, at
    the output resolution, and then drawn once: ``savefig`` would otherwise run a whole draw
    without rendering to lay it out and then run the layout again inside the real draw (two
    layouts and two draws for the same pixels; the PNGs are identical, the figures take about a
    third less CPU).
    """
    import matplotlib.pyplot as plt

    engine = fig.get_layout_engine()
    if engine is not None:
        fig.set_dpi(dpi)
        engine.execute(fig)
        fig.set_layout_engine(None)  # the positions stay; savefig now draws once
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    plt.close(fig)
    return buffer.getvalue()


def format_cell(value: Any, decimals: int = 2) -> str:
    """Numbers rounded for reading; NaN/None shown as an en dash; booleans as yes/no."""
    if value is None:
        return "–"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isnan(x):
            return "–"
        if x != 0 and abs(x) < 10 ** (-decimals):
            return f"{x:.2e}"
        return f"{x:.{decimals}f}"
    text = str(value)
    return "–" if text in ("nan", "None", "<NA>") else text


def formatted(frame: pd.DataFrame, decimals: int = 2) -> pd.DataFrame:
    """A copy with every cell a display string (index kept, named)."""
    out = pd.DataFrame(index=frame.index, columns=frame.columns, dtype=object)
    for col in frame.columns:
        out[col] = [format_cell(v, decimals) for v in frame[col].tolist()]
    return out


def _index_shown(frame: pd.DataFrame) -> bool:
    return frame.index.name is not None or not isinstance(frame.index, pd.RangeIndex)


def markdown_table(frame: pd.DataFrame, decimals: int = 2) -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    shown = formatted(frame, decimals)
    with_index = _index_shown(frame)
    header = ([str(frame.index.name or "")] if with_index else []) + [str(c) for c in shown.columns]
    rules = (["---"] if with_index else []) + [
        "---:" if _numeric(frame.iloc[:, i], shown.iloc[:, i].tolist()) else "---"
        for i in range(frame.shape[1])
    ]
    rows = [
        ([str(idx)] if with_index else []) + list(row)
        for idx, row in zip(shown.index, shown.itertuples(index=False), strict=True)
    ]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(markdown_safe(c) for c in cells) + " |"

    out = [line(header), "| " + " | ".join(rules) + " |"]
    out += [line(r) for r in rows]
    return "\n".join(out)


#: A cell that reads as a number (or numbers: an interval, ``mean ± sd``, a percentage).
_NUMBER_CELL = re.compile(r"^[\[\]()\d\s.,±+\-−–%e]*\d[\[\]()\d\s.,±+\-−–%e]*$|^–$")


def _numeric(values: pd.Series, shown: Sequence[str]) -> bool:
    """Whether a column holds numbers (aligned on the right, in figures of equal width)."""
    if pd.api.types.is_bool_dtype(values):
        return False
    if pd.api.types.is_numeric_dtype(values):
        return True
    return any(c != "–" for c in shown) and all(_NUMBER_CELL.match(c) for c in shown)


def html_table(frame: pd.DataFrame, decimals: int = 2) -> str:
    """One header row (the index's name heads the row labels: no second row for it), row labels
    as row headers, numbers right-aligned in figures of one width, text left."""
    e = html.escape
    shown = formatted(frame, decimals)
    keyed = _index_shown(frame)
    numeric = [_numeric(frame.iloc[:, i], shown.iloc[:, i].tolist()) for i in range(frame.shape[1])]

    def cls(is_number: bool) -> str:
        return ' class="num"' if is_number else ""

    head = [f'<th scope="col">{e(str(frame.index.name or ""))}</th>'] if keyed else []
    head += [
        f'<th scope="col"{cls(n)}>{e(str(c))}</th>'
        for c, n in zip(shown.columns, numeric, strict=True)
    ]
    rows = []
    for label, cells in zip(shown.index, shown.itertuples(index=False), strict=True):
        row = [f'<th scope="row">{e(str(label))}</th>'] if keyed else []
        row += [f"<td{cls(n)}>{e(str(c))}</td>" for c, n in zip(cells, numeric, strict=True)]
        rows.append("<tr>" + "".join(row) + "</tr>")
    return (
        '<table class="data"><thead><tr>' + "".join(head) + "</tr></thead><tbody>"
        + "".join(rows) + "</tbody></table>"
    )  # fmt: skip


_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0 auto;max-width:1200px;
padding:.6em 2em 1.5em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #444;padding-bottom:.15em;margin:.4em 0 .3em;font-size:1.8em}
h2{margin-top:2em;border-bottom:1px solid #ccc}section:first-of-type h2{margin-top:.8em}
h3{margin-bottom:.3em}.how{background:#f3f6fa;border-left:4px solid #4a78b0;padding:.5em 1em;
margin:.6em 0}.note{color:#555;font-size:.9em;margin:.2em 0 .6em}
.summary{font-size:1.05em;margin:.2em 0 .5em;font-weight:600}
.facts{display:grid;grid-template-columns:1fr 1fr;column-gap:2em;margin:0;font-size:.85em}
.fact{display:grid;grid-template-columns:8.5em minmax(0,1fr);column-gap:.6em}
.fact.wide{grid-column:1/-1}.fact dt{font-weight:600;color:#444;white-space:nowrap}
.fact dd{margin:0;overflow-wrap:anywhere}
details.config{font-size:.85em;margin:.3em 0}details.config summary{cursor:pointer;color:#4a78b0}
details.config pre{background:#f7f7f7;padding:.6em;max-height:40em;overflow:auto}
nav{font-size:.9em;margin:.5em 0;padding:.3em 0;border-top:1px solid #ddd;
border-bottom:1px solid #ddd}nav a{white-space:nowrap}
.nothing{background:#fff4e5;border-left:4px solid #e08a00;padding:.5em 1em;margin:.6em 0}
table.data{border-collapse:collapse;font-size:.85em;margin:.4em 0 1.2em}
.scroll{overflow-x:auto;max-width:100%}
table.data th,table.data td{border:1px solid #ddd;padding:3px 8px;text-align:left;
white-space:nowrap}table.data .num{text-align:right;font-variant-numeric:tabular-nums}
table.data thead th{background:#f0f0f0}table.data tbody th{font-weight:600}
table.data tr:nth-child(even) td{background:#fafafa}
figure{margin:1em 0 2em}figure img{max-width:100%;border:1px solid #eee}
figcaption{color:#444;font-size:.9em}.csv{font-size:.8em}
details.transcript{margin:.5em 0;border:1px solid #ddd;padding:.3em .6em}
details.transcript summary{cursor:pointer;font-weight:600}
details.transcript table{border-collapse:collapse;font-size:.82em;margin:.5em 0}
details.transcript td,details.transcript th{border:1px solid #e3e3e3;padding:3px 6px;
vertical-align:top;text-align:left}details.transcript td.num{text-align:right}
details.transcript td.vec{white-space:nowrap;font-variant-numeric:tabular-nums}mark{background:#ffe58a;font-weight:600}.fail{color:#b2182b}
.pick{display:inline-block;min-width:4.2em;color:#4a78b0}
ul.why{margin:.3em 0 0;padding-left:1.1em;color:#555;font-size:.95em}
.show{font-size:.85em;margin:.3em 0}
"""
#: Facts longer than this take a whole row of the header's grid.
_WIDE_FACT = 48


def _config_label(header: ReportHeader) -> str:
    if header.runs is not None:
        return "Full configuration of each run (as stored with it)"
    return "Full configuration (as stored with the run)"


def _html_header(header: ReportHeader) -> list[str]:
    e = html.escape
    parts = [f'<p class="summary">{e(header.summary)}</p>']
    narrow = [(k, v) for k, v in header.facts if len(v) <= _WIDE_FACT]
    wide = [(k, v) for k, v in header.facts if len(v) > _WIDE_FACT]
    if header.facts:
        items = "".join(
            f'<div class="fact{" wide" if (k, v) in wide else ""}"><dt>{e(k)}</dt>'
            f"<dd>{e(v)}</dd></div>"
            for k, v in narrow + wide
        )
        parts.append(f'<dl class="facts">{items}</dl>')
    if header.runs is not None and not header.runs.empty:
        runs = header.runs.set_index("run") if "run" in header.runs else header.runs
        parts.append(f'<div class="scroll">{html_table(runs)}</div>')
    if header.configuration:
        text = json.dumps(header.configuration, indent=2, sort_keys=True, default=str)
        parts.append(
            f'<details class="config"><summary>{e(_config_label(header))}'
            f"</summary><pre>{e(text)}</pre></details>"
        )
    return parts


def render_html(title: str, sections: Sequence[Section], header: ReportHeader | None = None) -> str:
    """One self-contained HTML page: inline CSS, figures as ``data:image/png;base64`` images.

    The title, the header's one-line summary and facts, then a one-paragraph contents, so that
    the first screen shows the top of the first section (the ranking)."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{e(title)}</h1>",
    ]
    if header is not None:
        parts += _html_header(header)
    parts.append("</header>")
    toc = " · ".join(f'<a href="#{s.anchor}">{e(s.title)}</a>' for s in sections)
    parts.append(f"<nav><b>Contents:</b> {toc}</nav>")
    for s in sections:
        parts.append(f'<section id="{s.anchor}"><h2>{e(s.title)}</h2>')
        if s.how_to_read:
            parts.append(f'<div class="how"><b>How to read this.</b> {e(s.how_to_read)}</div>')
        if s.alert:
            parts.append(f'<p class="nothing">{e(s.alert)}</p>')
        if s.text:
            parts.append(f"<p>{e(s.text)}</p>")
        if s.html:
            parts.append(f'<div class="scroll">{s.html}</div>')
        for t in s.tables:
            parts.append(f"<h3>{e(t.title)}</h3>")
            if t.note:
                parts.append(f'<p class="note">{e(t.note)}</p>')
            if t.shown.empty:
                parts.append('<p class="note"><i>(no rows)</i></p>')
            else:
                # wide tables (many models or columns) scroll sideways instead of being cut
                parts.append(f'<div class="scroll">{html_table(t.shown)}</div>')
            parts.append(f'<p class="csv">CSV: <code>tables/{e(t.name)}.csv</code></p>')
        for f in s.figures:
            data = base64.b64encode(f.png).decode("ascii")
            parts.append(
                f'<figure><img alt="{e(f.caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{e(f.caption)}</figcaption></figure>"
            )
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _markdown_header(header: ReportHeader) -> list[str]:
    md = markdown_safe
    out = [f"**{md(header.summary)}**", ""]
    out += [f"- **{md(k)}**: {md(v)}" for k, v in header.facts]
    if header.facts:
        out.append("")
    if header.runs is not None and not header.runs.empty:
        runs = header.runs.set_index("run") if "run" in header.runs else header.runs
        out += [markdown_table(runs), ""]
    if header.configuration:
        text = json.dumps(header.configuration, indent=2, sort_keys=True, default=str)
        longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
        fence = "`" * max(3, longest + 1)  # no backtick run inside can close the block
        out += [f"<details><summary>{html.escape(_config_label(header))}</summary>", "",
                f"{fence}json", text, fence, "", "</details>", ""]  # fmt: skip
    return out


def render_markdown(
    title: str, sections: Sequence[Section], header: ReportHeader | None = None
) -> str:
    """The same report in Markdown, figures linked as files under ``figures/``."""
    md = markdown_safe  # titles, notes and captions can hold model and case names
    out = [f"# {md(title)}", ""]
    if header is not None:
        out += _markdown_header(header)
    out += ["## Contents", ""] + [f"- [{md(s.title)}](#{s.anchor})" for s in sections] + [""]
    for s in sections:
        out += [f"## {md(s.title)}", ""]
        if s.how_to_read:
            out += [f"> **How to read this.** {s.how_to_read}", ""]
        if s.alert:
            out += [f"**{md(s.alert)}**", ""]
        if s.text:
            out += [s.text, ""]
        if s.markdown:
            out += [s.markdown, ""]
        for t in s.tables:
            out += [f"### {md(t.title)}", ""]
            if t.note:
                out += [f"*{md(t.note)}*", ""]
            out += ["*(no rows)*" if t.shown.empty else markdown_table(t.shown), ""]
            out += [f"CSV: `tables/{t.name}.csv`", ""]
        for f in s.figures:
            out += [f"![{md(f.caption)}]({f.path})", "", f"*{md(f.caption)}*", ""]
    return "\n".join(out)
