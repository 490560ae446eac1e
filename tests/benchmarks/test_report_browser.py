"""The report as a person sees it, in a real headless Chromium (Debian's ``chromium`` package).

Three reports, each opened on a 1400 x 900 screen and checked by :func:`look_at_report`: the
main job's (every default scripted policy, here on the first three cases), the report of the
imported official EMPA run, and one report of two runs side by side. Each test fails with the
list of what a reader would notice (words broken in header cells, anything wider than the page,
images that did not load, contents links that miss their section, a first screen without the
ranking, ...) and leaves screenshots of the first screen and of every section in its ``tmp_path``.

Chromium is found at ``/usr/bin/chromium`` (or ``EMPA_CHROMIUM``); nothing is downloaded.
``.ci/run`` installs it with apt when it is missing and sets ``EMPA_REQUIRE_BROWSER=1``, so that
there a missing browser fails these tests; elsewhere they are skipped, with the reason.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from empa_env.cli import main
from tests.benchmarks.browser import find_chromium
from tests.benchmarks.report_view import HEIGHT, WIDTH, look_at_report, problems_text

#: A real browser and three reports: about a minute and a half on two cores.
pytestmark = [pytest.mark.browser, pytest.mark.slow]

OFFICIAL_DATA = Path(
    os.environ.get(
        "EMPA_OFFICIAL_DATA",
        Path(__file__).resolve().parents[3] / "shared" / "data" / "empa-official",
    )
)
#: Cases the main job plays here (the README's command plays all 30; the layout is the same).
CASES = 3


@pytest.fixture(scope="module", autouse=True)
def chromium() -> str:
    """The Chromium executable; a missing one skips, or fails where it is required (CI)."""
    found = find_chromium()
    if found is None:
        reason = (
            "no Chromium at /usr/bin/chromium (or EMPA_CHROMIUM): install Debian's package, "
            "`apt-get install -y chromium` (.ci/run does)"
        )
        if os.environ.get("EMPA_REQUIRE_BROWSER"):
            pytest.fail(f"EMPA_REQUIRE_BROWSER is set but {reason}")
        pytest.skip(reason)
    return found


@pytest.fixture(scope="module")
def main_job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's main job (every default scripted policy, offline roles) on a few cases."""
    run = tmp_path_factory.mktemp("main-job") / "offline-baselines"
    code = main(["bench", "--quiet", "--limit", str(CASES), "--out", str(run)])
    assert code == 0
    return run


def _png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])  # the IHDR chunk
    return width, height


def _look(html: Path, tmp_path: Path) -> None:
    view = look_at_report(html, tmp_path / "screenshots", tmp_path / "chromium-profile")
    assert not view.problems, (
        f"{html} as a person sees it ({len(view.problems)} problems; screenshots in "
        f"{tmp_path / 'screenshots'}):\n{problems_text(view)}"
    )
    first, *sections = view.screenshots
    assert _png_size(first) == (WIDTH, HEIGHT)
    assert len(sections) >= 8  # ranking, judge, endings, ..., transcripts, judge failures
    assert all(_png_size(shot)[0] == WIDTH for shot in sections)


def test_main_job_report_reads_well_in_a_browser(main_job: Path, tmp_path: Path) -> None:
    _look(main_job / "report" / "report.html", tmp_path)


@pytest.mark.skipif(
    not (OFFICIAL_DATA / "results").is_dir(),
    reason=f"official EMPA results not found under {OFFICIAL_DATA} (set EMPA_OFFICIAL_DATA)",
)
def test_imported_official_run_report_reads_well_in_a_browser(tmp_path: Path) -> None:
    run = tmp_path / "official"
    assert main(["import", "official", str(OFFICIAL_DATA), "--out", str(run)]) == 0
    assert main(["report", "--quiet", str(run)]) == 0
    _look(run / "report" / "report.html", tmp_path)


def test_report_of_several_runs_reads_well_in_a_browser(main_job: Path, tmp_path: Path) -> None:
    other = tmp_path / "paper-preset"
    policies = ["--policy", "scripted:attuned", "--policy", "scripted:parrot"]
    argv = ["bench", "--quiet", "--limit", str(CASES), "--preset", "paper", *policies]
    assert main([*argv, "--out", str(other)]) == 0
    out = tmp_path / "together"
    assert main(["report", "--quiet", str(main_job), str(other), "--out", str(out)]) == 0
    _look(out / "report.html", tmp_path)


#: A page with one of each problem the checks look for.
BAD_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{width:1200px;margin:0 auto} td.k{width:2em;overflow-wrap:anywhere}
</style></head><body><h1>A report</h1>
<p>A summary far too long for one line. SUMMARY</p>
<table class="info"><tr><td class="k">fingerprint</td><td>f00</td></tr></table>
<div style="width:1600px">a banner wider than the screen</div>
<img alt="broken" src="data:image/png;base64,AAAA">
<nav><a href="#ranking">Ranking</a> <a href="#nowhere">Missing</a></nav>
<div style="height:1200px"></div>
<section id="ranking"><h2>Ranking</h2><table><thead><tr><th>rank</th><th>EPM-Index</th></tr>
<tr><th>model</th><th></th></tr></thead><tbody><tr><td>1</td><td style="text-align:left">
46.82</td></tr><tr><td>2</td><td style="text-align:left">8.2</td></tr></tbody></table></section>
<div style="height:1200px"></div></body></html>""".replace("SUMMARY", "More words that wrap. " * 20)


def test_the_checks_catch_what_a_reader_would_notice(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text(BAD_PAGE, encoding="utf-8")
    view = look_at_report(page, tmp_path / "screenshots", tmp_path / "chromium-profile")
    found = "\n".join(view.problems)
    for expected in (
        "the summary under the title is",
        "the top of the ranking is not on the first 1400x900 screen",
        'word "fingerprint" wraps inside itself',
        "runs off the page",
        'image "broken" did not load',
        'contents link "Missing" leads nowhere',
        "table has 2 header rows",
        'numbers not aligned in column "EPM-Index"',
    ):
        assert expected in found, f"{expected!r} not among:\n{found}"
