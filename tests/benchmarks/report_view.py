"""The report as a person sees it: opened in a real headless Chromium, checked, photographed.

:func:`look_at_report` opens ``report.html`` on a 1400 x 900 screen and lists what a reader would
notice is wrong (each problem one line, naming the element): a word broken across lines in a header
cell or a key column, anything wider than the page outside its own scroll box, an image that did
not load or shows at no real size, a contents link that does not land on its section, a table with
an extra header row, numbers not aligned in their column, and a first screen without the title,
a one-line summary and the top of the ranking. It saves screenshots of the first screen and of
every section (``00-first-screen.png``, ``01-<section>.png``, ...) and of the first transcript
opened into a folder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tests.benchmarks.browser import Chromium

WIDTH, HEIGHT = 1400, 900
#: The tallest section screenshot (CSS pixels); the transcripts alone can be many screens long.
MAX_SHOT_HEIGHT = 2700
#: Rows of the ranking (after its header) that must be on the first screen.
RANKING_ROWS = 3

# Every check runs in the page and returns a list of problems (strings).
_LAYOUT = r"""
(() => {
  const problems = [];
  const pageWidth = document.documentElement.clientWidth;
  const name = (el) => {
    const text = (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 50);
    return `<${el.tagName.toLowerCase()}${el.className ? "." + el.className : ""}> "${text}"`;
  };
  const lines = (range) => new Set([...range.getClientRects()]
    .filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;

  // 1. header cells and key columns: no word broken across lines
  const keys = document.querySelectorAll("th, dt, table tr > td:first-child");
  for (const cell of keys) {
    if (cell.closest("details:not([open])") || cell.closest("details.transcript")) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        if (lines(range) > 1) problems.push(`word "${m[0]}" wraps inside itself in ${name(cell)}`);
      }
    }
  }

  // 2. nothing wider than the page, except inside a box that scrolls (or clips) sideways
  if (document.documentElement.scrollWidth > pageWidth + 1) {
    problems.push(`the page is ${document.documentElement.scrollWidth}px wide, ` +
                  `the screen ${pageWidth}px`);
  }
  const inScrollBox = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (["auto", "scroll", "hidden"].includes(getComputedStyle(p).overflowX)) return true;
    }
    return false;
  };
  let wide = 0;
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || inScrollBox(el)) continue;
    if (r.right > pageWidth + 1 || r.left < -1) {
      if (wide++ < 10) problems.push(`${name(el)} runs off the page (${Math.round(r.left)}` +
                                     `..${Math.round(r.right)}px of ${pageWidth}px)`);
    }
  }

  // 3. every image loaded, at a real size
  for (const img of document.images) {
    const r = img.getBoundingClientRect();
    const label = (img.alt || img.src.slice(0, 40)).slice(0, 60);
    if (!img.complete || img.naturalWidth < 100 || img.naturalHeight < 100) {
      problems.push(`image "${label}" did not load (${img.naturalWidth}x${img.naturalHeight})`);
    } else if (r.width < Math.min(img.naturalWidth, 600) - 1) {
      problems.push(`image "${label}" shown ${Math.round(r.width)}px wide, ` +
                    `drawn ${img.naturalWidth}px`);
    }
  }

  // 4. every table: one header row; numbers aligned on the right edge of their column
  for (const table of document.querySelectorAll("table")) {
    if (table.closest("details:not([open])")) continue;
    const heads = table.querySelectorAll("thead tr");
    if (heads.length > 1) {
      problems.push(`table has ${heads.length} header rows: ` +
                    [...heads].map((tr) => `"${tr.textContent.trim().replace(/\s+/g, " ")}"`)
                      .join(" / "));
    }
    const rows = [...table.querySelectorAll("tbody tr")];
    const width = Math.max(0, ...rows.map((tr) => tr.cells.length));
    for (let col = 0; col < width; col++) {
      const cells = rows.map((tr) => tr.cells[col]).filter((c) => c && c.textContent.trim());
      const numeric = cells.filter((c) => /^[-+−]?[0-9][0-9.,]*(e[-+]?[0-9]+)?%?$/
                                        .test(c.textContent.trim()));
      if (numeric.length < 2 || numeric.length < cells.length) continue;
      const edges = numeric.map((c) => {
        const range = document.createRange();
        range.selectNodeContents(c);
        return range.getBoundingClientRect().right;
      });
      if (Math.max(...edges) - Math.min(...edges) > 1.5) {
        const head = table.querySelectorAll("thead th")[col];
        problems.push(`numbers not aligned in column "${head ? head.textContent.trim() : col}"`);
      }
    }
  }
  return problems;
})()
"""

_CONTENTS = r"""
(async () => {
  const problems = [];
  const links = [...document.querySelectorAll("nav a[href^='#']")];
  if (links.length === 0) problems.push("no contents links");
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (const a of links) {
    window.scrollTo(0, 0);
    await frame();
    a.click();
    await frame();
    const id = decodeURIComponent(a.hash.slice(1));
    const target = document.getElementById(id);
    const label = a.textContent.trim();
    if (!target) { problems.push(`contents link "${label}" leads nowhere (#${id})`); continue; }
    const heading = target.querySelector("h2");
    if (!heading || heading.textContent.trim() !== label) {
      problems.push(`contents link "${label}" lands on "${heading ? heading.textContent : id}"`);
    }
    const top = target.getBoundingClientRect().top;
    const bottom = document.documentElement.scrollHeight - innerHeight;
    const atBottom = window.scrollY >= bottom - 1;
    if (!(Math.abs(top) <= 2 || (atBottom && top >= 0 && top < innerHeight - 100))) {
      problems.push(`contents link "${label}" leaves its section ${Math.round(top)}px from ` +
                    "the top of the screen");
    }
  }
  window.scrollTo(0, 0);
  await frame();
  return problems;
})()
"""

_FIRST_SCREEN = r"""
((rows) => {
  const problems = [];
  window.scrollTo(0, 0);
  const seen = (el) => el.getBoundingClientRect().bottom <= innerHeight &&
                       el.getBoundingClientRect().top >= 0;
  const title = document.querySelector("h1");
  if (!title || !seen(title)) problems.push("the title is not on the first screen");
  const summary = title && title.nextElementSibling;
  if (!summary || !seen(summary)) {
    problems.push("no summary line under the title on the first screen");
  } else {
    const lineHeight = parseFloat(getComputedStyle(summary).lineHeight) || 20;
    const count = Math.round(summary.getBoundingClientRect().height / lineHeight);
    if (count > 1) problems.push(`the summary under the title is ${count} lines, not one`);
  }
  const first = document.querySelector("nav a[href^='#']");
  const section = first && document.getElementById(decodeURIComponent(first.hash.slice(1)));
  const ranking = section && section.querySelector("table");
  if (!ranking) { problems.push("no ranking table in the first section"); return problems; }
  const wanted = [...ranking.querySelectorAll("thead tr, tbody tr")]
    .slice(0, ranking.tHead ? ranking.tHead.rows.length + rows : rows);
  const missing = wanted.filter((tr) => !seen(tr)).length;
  if (missing) {
    problems.push(`the top of the ranking is not on the first ${innerWidth}x${innerHeight} ` +
                  `screen (${missing} of its first ${wanted.length} rows below it; the table ` +
                  `starts ${Math.round(ranking.getBoundingClientRect().top)}px down)`);
  }
  return problems;
})
"""

_OPEN_TRANSCRIPT = r"""
(() => {
  const first = document.querySelector("details.transcript");
  if (!first) return null;
  first.open = true;
  const r = first.getBoundingClientRect();
  return {top: r.top + window.scrollY, height: r.height};
})()
"""

_SECTIONS = r"""
[...document.querySelectorAll("section[id]")].map((s) => {
  const r = s.getBoundingClientRect();
  return {id: s.id, top: r.top + window.scrollY, height: r.height};
})
"""


@dataclass(frozen=True)
class ReportView:
    """What the browser showed: the problems a reader would notice and the screenshots taken."""

    problems: list[str]
    screenshots: list[Path]


def look_at_report(html: Path, shots: Path, profile: Path) -> ReportView:
    """Open ``html`` in a fresh headless Chromium (profile in ``profile``), check it and save
    screenshots into ``shots``."""
    shots.mkdir(parents=True, exist_ok=True)
    with Chromium.start(profile) as browser:
        page = browser.open(html, width=WIDTH, height=HEIGHT)
        problems: list[str] = []
        problems += page.evaluate(f"({_FIRST_SCREEN})({RANKING_ROWS})")
        saved = [shots / "00-first-screen.png"]
        saved[0].write_bytes(page.screenshot())
        problems += page.evaluate(_LAYOUT)
        problems += page.evaluate(_CONTENTS)
        for i, section in enumerate(page.evaluate(_SECTIONS), start=1):
            height = min(section["height"], MAX_SHOT_HEIGHT)
            clip = {"x": 0, "y": section["top"], "width": WIDTH, "height": max(height, 1)}
            path = shots / f"{i:02d}-{section['id'][:60]}.png"
            path.write_bytes(page.screenshot(clip))
            saved.append(path)
        # the first transcript opened, as a reader opens it: photographed and checked again
        opened = page.evaluate(_OPEN_TRANSCRIPT)
        if opened is not None:
            height = max(min(opened["height"], MAX_SHOT_HEIGHT), 1)
            path = shots / f"{len(saved):02d}-transcript-opened.png"
            path.write_bytes(page.screenshot({"x": 0, "y": opened["top"], "width": WIDTH,
                                              "height": height}))  # fmt: skip
            saved.append(path)
            problems += [f"with a transcript open: {p}" for p in page.evaluate(_LAYOUT)]
    return ReportView(problems, saved)


def problems_text(view: ReportView) -> str:
    """The problems, one a line, for an assertion message."""
    return json.dumps(view.problems, indent=1, ensure_ascii=False)
