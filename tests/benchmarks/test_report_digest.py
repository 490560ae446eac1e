"""A report is drawn once per set of inputs: the same inputs again redraw nothing, a changed input
(an episode, a trajectory, the title, the code, a missing file) draws it again, and a build that
stops half way is never taken for the earlier one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from benchmarks.report import build, digest
from empa_env.cli import main
from empa_env.runs import DB_NAME
from tests.benchmarks.test_report_content import _episodes


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many figures each build drew (one entry per call of ``render_figures``)."""
    calls: list[int] = []
    original = build.render_figures

    def counting(draws, workers=None):  # noqa: ANN001, ANN202
        calls.append(len(draws))
        return original(draws, workers=1)

    monkeypatch.setattr(build, "render_figures", counting)
    return calls


def _mtimes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*.*")}


def test_the_same_inputs_redraw_nothing_and_a_changed_one_redraws(
    tmp_path: Path, drawn: list[int]
) -> None:
    episodes, trajectories = _episodes()
    build.build_report(episodes, trajectories, tmp_path, run_dir="runs/x")
    assert len(drawn) == 1 and drawn[0] > 0
    before = _mtimes(tmp_path)
    build.build_report(episodes, trajectories, tmp_path, run_dir="runs/x")
    assert len(drawn) == 1  # nothing drawn, nothing written
    assert _mtimes(tmp_path) == before

    changed = episodes.copy()
    changed.loc[0, "EPM_Index"] += 1.0
    build.build_report(changed, trajectories, tmp_path, run_dir="runs/x")
    assert len(drawn) == 2
    build.build_report(changed, trajectories, tmp_path, run_dir="runs/x", title="another title")
    assert len(drawn) == 3
    key = next(iter(trajectories))
    other = dict(trajectories)
    other[key] = type(trajectories[key]).from_dict({**trajectories[key].to_dict(), "opening": "hi"})
    build.build_report(changed, other, tmp_path, run_dir="runs/x", title="another title")
    assert len(drawn) == 4


def test_a_missing_file_or_changed_code_redraws(
    tmp_path: Path, drawn: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    episodes, trajectories = _episodes()
    build.build_report(episodes, trajectories, tmp_path)
    (tmp_path / "figures" / "fig11_outcomes.png").unlink()
    build.build_report(episodes, trajectories, tmp_path)
    assert len(drawn) == 2 and (tmp_path / "figures" / "fig11_outcomes.png").is_file()
    monkeypatch.setattr(digest, "code_digest", lambda: "another version of the report's code")
    build.build_report(episodes, trajectories, tmp_path)
    assert len(drawn) == 3


def test_a_build_that_stops_half_way_is_not_taken_for_the_earlier_one(
    tmp_path: Path, drawn: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    episodes, trajectories = _episodes()
    build.build_report(episodes, trajectories, tmp_path)
    changed = episodes.copy()
    changed.loc[0, "EPM_Index"] += 1.0
    counting = build.render_figures

    def stopped(draws, workers=None):  # noqa: ANN001, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr(build, "render_figures", stopped)
    with pytest.raises(KeyboardInterrupt):
        build.build_report(changed, trajectories, tmp_path)
    assert not (tmp_path / digest.RECORD).exists()  # the earlier record went first
    monkeypatch.setattr(build, "render_figures", counting)
    build.build_report(episodes, trajectories, tmp_path)  # the earlier inputs: drawn again
    assert len(drawn) == 2


def test_rerunning_empa_report_on_an_unchanged_run_redraws_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    argv = ["bench", "--quiet", "--limit", "1", "--max-turns", "12", "--out", str(run),
            "--policy", "scripted:attuned", "--policy", "scripted:lecturer"]  # fmt: skip
    assert main(argv) == 0
    assert "written in" in capsys.readouterr().out
    figures = _mtimes(run / "report" / "figures")
    assert main(argv) == 0  # the main job again: nothing to play, nothing to redraw
    assert "up to date: its inputs did not change" in capsys.readouterr().out
    assert main(["report", str(run)]) == 0
    assert "up to date" in capsys.readouterr().out
    assert _mtimes(run / "report" / "figures") == figures

    with sqlite3.connect(run / DB_NAME) as conn:  # a stored episode changes
        conn.execute("UPDATE episodes SET trajectory = replace(trajectory, '\"turn\": 1,', "
                     "'\"turn\": 1, ') WHERE rowid = 1")  # fmt: skip
    assert main(["report", str(run)]) == 0
    assert "written in" in capsys.readouterr().out
