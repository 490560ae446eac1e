"""What a reader of the report gets, checked in its HTML and Markdown (the browser test,
``test_report_browser.py``, checks how it looks): a one-line header with the facts and the folded
configuration, tables with one header row and aligned numbers, one interval column, what success
needs when nothing succeeded, and transcripts labelled with the command that prints them."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pandas as pd

from benchmarks.report import tables as T
from benchmarks.report.build import build_report, build_sections
from benchmarks.report.header import run_header, runs_header
from benchmarks.report.render import html_table, markdown_table, render_html
from tests.benchmarks.test_report_content import _episodes

CONFIG = {
    "suite": "empa30-v1",
    "env": {
        "preset": {"name": "official"},
        "roles": {
            "actor": {"name": "offline-actor-v1"},
            "director": {"name": "offline-director-v1"},
            "judger": {"name": "guarded(semantic-static)"},
        },
    },
}
INFO = {"created_at": "2026-01-02T03:04:05+00:00", "fingerprint": "abc123"}


def test_a_table_has_one_header_row_headed_by_its_index_name() -> None:
    frame = pd.DataFrame(
        {"EPM_Index": [46.82, 8.24], "interval": ["[44.0, 49.9]", "[8.1, 8.4]"],
         "ended": ["director ended", "user left"]},
        index=pd.Index(["attuned", "keyword_stuffer"], name="model"),
    )  # fmt: skip
    html = html_table(frame)
    head = re.search(r"<thead>(.*)</thead>", html)
    assert head is not None and head.group(1).count("<tr>") == 1  # no row for "model" alone
    assert '<th scope="col">model</th>' in head.group(1)
    assert '<th scope="row">attuned</th>' in html  # the row labels are row headers
    # numbers (and intervals of numbers) aligned on the right in figures of one width; text left
    assert '<td class="num">46.82</td>' in html and '<td class="num">[44.0, 49.9]</td>' in html
    assert "<td>director ended</td>" in html
    rules = markdown_table(frame).splitlines()[1]
    assert rules == "| --- | ---: | ---: | --- |"


def test_the_leaderboard_shows_one_interval_column_and_its_csv_keeps_the_bounds() -> None:
    episodes, _ = _episodes()
    table = T.leaderboard_table(episodes, ["mover", "silent"])
    assert list(table.shown.columns) == ["rank", "EPM-Index", "95% CI", "success rate", "n"]
    assert table.shown.at["mover", "success rate"] == "0%"
    assert {"95% CI", "CI low", "CI high", "success rate"} <= set(table.frame.columns)


def test_the_header_says_in_one_line_what_ran_where_and_when() -> None:
    episodes, _ = _episodes()
    header = run_header(
        "runs/mine", CONFIG, INFO, episodes, errors=1, invalid=2, role_failures=["  m: judge 1"]
    )
    assert header.summary == (
        "2 policies on 3 cases of empa30-v1, judge guarded(semantic-static): 6 episodes, "
        "1 error, 2 invalid; run 2026-01-02 03:04 UTC"
    )
    facts = dict(header.facts)
    assert facts["policies"] == "mover, silent" and facts["run"] == "runs/mine"
    assert facts["roles"] == (
        "actor offline-actor-v1, director offline-director-v1, judge guarded(semantic-static)"
    )
    assert facts["role failures"] == "m: judge 1" and facts["fingerprint"] == "abc123"
    html = render_html("EMPA benchmark report", [], header)
    # the summary right under the title; the facts a grid of terms; the configuration folded
    assert f'<h1>EMPA benchmark report</h1>\n<p class="summary">{header.summary}</p>' in html
    assert "<dt>policies</dt><dd>mover, silent</dd>" in html
    folded = re.search(r'<details class="config">(.*?)</details>', html, re.S)
    assert folded is not None and "&quot;guarded(semantic-static)&quot;" in folded.group(1)
    assert "guarded(semantic-static)&quot;" not in html.replace(folded.group(0), "")


def test_a_report_of_several_runs_has_one_row_per_run() -> None:
    episodes, _ = _episodes()
    runs = {
        "a": {"suite": "s", "policies": 1, "errors": 0, "group": "group 1"},
        "b": {"suite": "s", "policies": 1, "errors": 2, "group": "group 2"},
    }
    header = runs_header(runs, {"a": CONFIG, "b": CONFIG}, episodes, "The runs form 2 groups.")
    assert header.summary == (
        "2 runs, 2 policies on 3 cases: 6 episodes, 2 errors, 0 invalid; 2 comparability groups"
    )
    assert header.runs is not None and list(header.runs["run"]) == ["a", "b"]
    html = render_html("t", [], header)
    assert '<th scope="row">a</th>' in html and "Full configuration of each run" in html


def test_when_nothing_succeeds_the_report_says_so_and_what_success_needs() -> None:
    episodes, trajectories = _episodes()  # every episode truncated
    sections = {s.title: s for s in build_sections(episodes, trajectories, figures=False)}
    ranking, endings = (
        sections["Ranking: EPM-Q indices and EPM-Index"],
        sections["Success and failure"],
    )
    assert "No policy succeeded in any of the 6 episodes" in ranking.alert
    assert "Success requires, from turn 12 on" in endings.alert
    assert "met in 0 of 6 episodes (closest: mover" in endings.alert
    assert "ended instead: truncated (max turns) 6" in endings.alert
    html = render_html("t", list(sections.values()))
    assert '<p class="nothing">No policy succeeded' in html

    one = episodes.copy()
    one.loc[0, "success"] = True
    sections = {s.title: s for s in build_sections(one, trajectories, figures=False)}
    assert sections["Ranking: EPM-Q indices and EPM-Index"].alert == ""
    assert sections["Success and failure"].alert == ""


def test_transcripts_are_labelled_and_name_the_run_instead_of_a_placeholder(
    tmp_path: Path,
) -> None:
    episodes, trajectories = _episodes()
    build_report(episodes, trajectories, tmp_path, run_dir="runs/my run")
    html = (tmp_path / "report.html").read_text()
    markdown = (tmp_path / "report.md").read_text()
    for text in (unescape(html), markdown):
        assert "RUN_DIR" not in text
        assert "empa show 'runs/my run' --model mover --case" in text
    labels = re.findall(r"<span class='pick'>([^<]+)</span> (\w+)", html)
    assert labels == [("best", "mover"), ("median", "mover"), ("worst", "mover"),
                      ("best", "silent"), ("median", "silent"), ("worst", "silent")]  # fmt: skip
    assert "- best: mover | c" in markdown


def test_without_its_run_folder_a_transcript_names_no_command(tmp_path: Path) -> None:
    episodes, trajectories = _episodes()
    build_report(episodes, trajectories, tmp_path)
    html = (tmp_path / "report.html").read_text()
    assert "RUN_DIR" not in html and "<code>empa show" not in html
