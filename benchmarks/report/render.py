"""Rendering the report: a self-contained HTML page (figures inline as base64 PNG) and Markdown.

The report is a list of :class:`Section` objects, each with a short "how to read this", tables
(:class:`~benchmarks.report.tables.ReportTable`) and figures (:class:`ReportFigure`). Numbers are
formatted here, at the last moment; the tables stay numeric DataFrames until then.
"""

from __future__ import annotations

import base64
import html
import io
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

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
    rows = [
        ([str(idx)] if with_index else []) + list(row)
        for idx, row in zip(shown.index, shown.itertuples(index=False), strict=True)
    ]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(markdown_safe(c) for c in cells) + " |"

    out = [line(header), "| " + " | ".join("---" for _ in header) + " |"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def html_table(frame: pd.DataFrame, decimals: int = 2) -> str:
    shown = formatted(frame, decimals)
    return shown.to_html(
        classes="data", border=0, escape=True, index=_index_shown(frame), na_rep="–"
    )


_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0 auto;max-width:1200px;
padding:1.5em 2em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #444;padding-bottom:.2em}
h2{margin-top:2.2em;border-bottom:1px solid #ccc}
h3{margin-bottom:.3em}.how{background:#f3f6fa;border-left:4px solid #4a78b0;padding:.6em 1em;
margin:.8em 0}.note{color:#555;font-size:.9em;margin:.2em 0 .6em}
table.data{border-collapse:collapse;font-size:.85em;margin:.4em 0 1.2em}
.scroll{overflow-x:auto;max-width:100%}table.info td{overflow-wrap:anywhere}
table.data th,table.data td{border:1px solid #ddd;padding:3px 8px;text-align:right;
white-space:nowrap}
table.data th{background:#f0f0f0}table.data tbody th{text-align:left}
table.data tr:nth-child(even) td{background:#fafafa}
figure{margin:1em 0 2em}figure img{max-width:100%;border:1px solid #eee}
figcaption{color:#444;font-size:.9em}table.info td{padding:2px 10px 2px 0;font-size:.9em}
nav ul{columns:2}.csv{font-size:.8em}
details.transcript{margin:.5em 0;border:1px solid #ddd;padding:.3em .6em}
details.transcript summary{cursor:pointer;font-weight:600}
details.transcript table{border-collapse:collapse;font-size:.82em;margin:.5em 0}
details.transcript td,details.transcript th{border:1px solid #e3e3e3;padding:3px 6px;
vertical-align:top;text-align:left}mark{background:#ffe58a;font-weight:600}.fail{color:#b2182b}
"""


def render_html(
    title: str,
    sections: Sequence[Section],
    run_info: Mapping[str, Any] | None = None,
    intro: str = "",
) -> str:
    """One self-contained HTML page: inline CSS, figures as ``data:image/png;base64`` images."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
    ]
    if intro:
        parts.append(f"<p>{e(intro)}</p>")
    if run_info:
        rows = "".join(
            f"<tr><td><b>{e(str(k))}</b></td><td>{e(_info_value(v))}</td></tr>"
            for k, v in run_info.items()
        )
        parts.append(f'<div class="scroll"><table class="info">{rows}</table></div>')
    toc = "".join(f'<li><a href="#{s.anchor}">{e(s.title)}</a></li>' for s in sections)
    parts.append(f"<nav><h2>Contents</h2><ul>{toc}</ul></nav>")
    for s in sections:
        parts.append(f'<section id="{s.anchor}"><h2>{e(s.title)}</h2>')
        parts.append(f'<div class="how"><b>How to read this.</b> {e(s.how_to_read)}</div>')
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


def render_markdown(
    title: str,
    sections: Sequence[Section],
    run_info: Mapping[str, Any] | None = None,
    intro: str = "",
) -> str:
    """The same report in Markdown, figures linked as files under ``figures/``."""
    out = [f"# {title}", ""]
    if intro:
        out += [intro, ""]
    if run_info:
        out += [
            f"- **{markdown_safe(k)}**: {markdown_safe(_info_value(v))}"
            for k, v in run_info.items()
        ] + [""]
    md = markdown_safe  # titles, notes and captions can hold model and case names
    out += ["## Contents", ""] + [f"- [{md(s.title)}](#{s.anchor})" for s in sections] + [""]
    for s in sections:
        out += [f"## {md(s.title)}", "", f"> **How to read this.** {s.how_to_read}", ""]
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


def _info_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_info_value(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_info_value(v) for v in value)
    return str(value)
