"""``empa import official``: the published EMPA episodes as a normal run store.

Reads the CC BY-NC slice of the official repository from ``../shared/data/empa-official`` (never
copied into the repository; corrupted copies live in ``tmp_path`` only); the data tests are
skipped when the folder is absent.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.importers.official import (
    find_model_folders,
    import_official,
    published_ending,
    read_episode,
)
from benchmarks.store import RunStore
from empa_env.cli import main

OFFICIAL_DATA = Path(
    os.environ.get(
        "EMPA_OFFICIAL_DATA",
        Path(__file__).resolve().parents[3] / "shared" / "data" / "empa-official",
    )
)
RUNS = OFFICIAL_DATA / "results" / "benchmark_runs" / "epm-bench"
#: EPM-Q of the two models in the official leaderboard CSV.
PUBLISHED_EPMQ = {"gpt-4o": 33.73, "claude-4.6-opus": 107.19}

needs_data = pytest.mark.skipif(
    not all((RUNS / m).is_dir() for m in PUBLISHED_EPMQ),
    reason=f"official EMPA results not found under {RUNS} (set EMPA_OFFICIAL_DATA to the "
    "empa-official slice or a checkout of the official repository)",
)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("official-run")
    assert main(["import", "official", str(OFFICIAL_DATA), "--out", str(run_dir)]) == 0
    return run_dir


# --- endings, without data ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("reason", "kind", "expected"),
    [
        ("EPM v2.0 Success: Positional Victory (crossed/approached target zone)", None,
         ("success", "positional", None)),
        ("EPM v2.0 Success: Geometric Victory (reached near origin)", None,
         ("success", "geometric", None)),
        ("EPM v2.0 Failure: 5 consecutive negative-energy turns (Direction Collapse), Persistent "
         "Regression (70% negative in 8 turns)", None, ("failure", None, "collapse")),
        ("EPM failure: stagnant, regressing", "EPM_FAILURE",
         ("failure", None, "stagnation_regression")),
        ("停滞: 最近11轮原地打转", "STAGNATION", ("failure", None, "oscillation")),
        ("Reached max turns (45), timeout", None, ("truncated", None, None)),
        ("EPM success: positional", "EPM_SUCCESS_POSITIONAL", ("success", "positional", None)),
        ("对话自然结束", "DIRECTOR_END", ("director_end", None, None)),
    ],
)  # fmt: skip
def test_published_ending_labels(reason: str, kind: str | None, expected: tuple) -> None:
    got = published_ending(reason, kind)
    assert (got["outcome"], got["victory_type"], got["failure_reason"]) == expected


# --- the slice ------------------------------------------------------------------------------
@needs_data
def test_one_model_per_results_folder_named_after_it(imported: Path) -> None:
    with RunStore(imported) as store:
        episodes = store.episodes_frame()
        info = store.run_info()
    assert sorted(episodes["model"].unique()) == sorted(PUBLISHED_EPMQ)
    assert episodes.groupby("model").size().to_dict() == {m: 30 for m in PUBLISHED_EPMQ}
    assert episodes["case_id"].nunique() == 30
    config = json.loads(info["config"])
    assert config["suite"] == "empa-official" and config["preset"] == "official"
    assert config["roles"]["judger"]["name"] == "google/gemini-2.5-pro"


@needs_data
def test_episode_keeps_transcript_judgements_physics_ending_and_case(imported: Path) -> None:
    raw = json.loads((RUNS / "gpt-4o" / "script_003_result.json").read_text(encoding="utf-8"))
    with RunStore(imported) as store:
        trajectory = store.trajectories()["gpt-4o|script_003|0"]
        row = store.episodes_frame().set_index("episode_key").loc["gpt-4o|script_003|0"]
    history = raw["history"]
    assert trajectory.opening == history[0]["content"]
    assert trajectory.num_turns == raw["total_turns"] == 17
    first = trajectory.turns[0]
    assert first.reply == history[1]["content"] and first.user_message == history[2]["content"]
    assert trajectory.transcript() == [
        {"role": "user" if m["role"] == "actor" else "assistant", "content": m["content"]}
        for m in history
    ]
    published = raw["epj"]["trajectory"]
    assert trajectory.p0 == published[0]["P_t"]
    for turn, point in zip(trajectory.turns, published[1:], strict=True):
        assert turn.v == point["v_t"] and turn.position == point["P_t"]
        analysis = point["mdep_analysis"]
        assert turn.judgement.prog["C"] == int(analysis["C_Prog_level"])
        assert turn.judgement.neg["A"] == int(analysis["A_Neg_level"])
        assert turn.delta_E == pytest.approx(point["epm"]["delta_E"], abs=0.006)
    assert first.judgement.evidence["A_Prog"] == "听起来你的新鞋子让你有点不舒服。"
    assert first.judgement.reasoning["C_Prog"].startswith("AI的回应高质量地解码")
    assert "C_Neg" not in first.judgement.evidence  # published evidence "0" = none
    assert first.judgement.judge == "google/gemini-2.5-pro"
    assert first.director and first.director["director_guidance"].startswith("\n【阶段2")
    # the published ending: 5 negative turns in a row
    assert (trajectory.outcome, trajectory.failure_reason) == ("failure", "collapse")
    assert trajectory.meta["termination_reason"] == raw["termination_reason"]
    assert trajectory.turns[-1].status == "failure"
    # case metadata from empa/data/case_metadata.json and the case card
    assert (row["domain"], row["difficulty"], row["dominant_axis"]) == ("leisure", "medium", "A")
    assert row["empathy_threshold"] == "low"
    assert row["norm_p0"] == pytest.approx(27.96, abs=0.005)
    assert row["outcome"] == "failure" and int(row["turns"]) == 17


@needs_data
def test_unrated_turns_are_judge_failures_not_zeros(imported: Path) -> None:
    # gpt-4o script_010 turn 17 has no judge analysis (the reference scored zeros)
    with RunStore(imported) as store:
        trajectory = store.trajectories()["gpt-4o|script_010|0"]
        episodes = store.episodes_frame()
    judgement = trajectory.turns[16].judgement
    assert judgement.failed and "no judge analysis" in judgement.error
    assert trajectory.turns[16].v == [0.0, 0.0, 0.0]
    assert episodes.groupby("model")["judge_failures"].sum().to_dict() == {
        "claude-4.6-opus": 0,
        "gpt-4o": 11,
    }


@needs_data
def test_recomputed_epmq_matches_the_published_figures(imported: Path) -> None:
    with RunStore(imported) as store:
        means = store.episodes_frame().groupby("model")["EPM_Index"].mean()
    for model, published in PUBLISHED_EPMQ.items():
        assert means[model] == pytest.approx(published, abs=0.06), model


@needs_data
def test_epm_replays_every_published_ending(imported: Path) -> None:
    with RunStore(imported) as store:
        replayed = [t.meta["replayed_ending"] for t in store.trajectories().values()]
    assert len(replayed) == 60
    assert all(r["matches_published"] for r in replayed)


@needs_data
def test_report_and_export_work_unchanged(imported: Path, tmp_path: Path) -> None:
    report_dir = tmp_path / "report"
    assert main(["report", str(imported), "--report-dir", str(report_dir), "--quiet"]) == 0
    markdown = (report_dir / "report.md").read_text(encoding="utf-8")
    assert "claude-4.6-opus" in markdown and "gpt-4o" in markdown
    table9 = pd.read_csv(report_dir / "tables" / "table9_composite.csv", index_col=0)
    assert table9.loc["gpt-4o", "EPM_Index"] == pytest.approx(33.73, abs=0.06)
    assert main(["export", str(imported), "--format", "all"]) == 0
    lines = (imported / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 60
    turns = pd.read_parquet(imported / "turns.parquet")
    assert len(turns) == 1070 and turns["judge_failed"].sum() == 11


@needs_data
def test_rerun_adds_nothing_twice(imported: Path) -> None:
    report = import_official(OFFICIAL_DATA, imported)
    assert report.imported == 0 and report.already_there == 60 and not report.errors


# --- malformed and partial files ------------------------------------------------------------
def _corrupt_copy(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of gpt-4o's folder (in tmp_path) with five broken files; returns file -> reason."""
    folder = tmp_path / "results" / "benchmark_runs" / "epm-bench" / "gpt-4o"
    shutil.copytree(RUNS / "gpt-4o", folder)

    def edit(name: str, change) -> None:
        path = folder / name
        data = json.loads(path.read_text(encoding="utf-8"))
        change(data)
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    text = (folder / "script_003_result.json").read_text(encoding="utf-8")
    (folder / "script_003_result.json").write_text(text[: len(text) // 2], encoding="utf-8")
    edit("script_010_result.json", lambda d: d.pop("epj"))
    edit("script_011_result.json", lambda d: d["epj"]["trajectory"].pop())
    edit("script_020_result.json", lambda d: d.__setitem__("history", d["history"][:6]))
    edit(
        "script_021_result.json",
        lambda d: d["epj"]["trajectory"][2]["mdep_analysis"].__setitem__("A_Prog_level", "lots"),
    )
    return folder, {
        "script_003_result.json": "not valid JSON",
        "script_010_result.json": "no EPM record",
        "script_011_result.json": "total_turns is 12 but the trajectory has 11",
        "script_020_result.json": "the dialogue has 3 model replies for 45 judged turns",
        "script_021_result.json": "A_Prog_level is 'lots', not a level",
    }


@needs_data
def test_malformed_files_one_clear_error_each_rest_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, expected = _corrupt_copy(tmp_path / "src")
    run_dir = tmp_path / "run"
    assert main(["import", "official", str(tmp_path / "src"), "--out", str(run_dir)]) == 1
    out = capsys.readouterr().out
    assert "25 episode(s) imported" in out and "5 file(s) could not be imported" in out
    error_lines = [line for line in out.splitlines() if line.startswith("  ")]
    assert len(error_lines) == 5
    for name, reason in expected.items():
        (line,) = [x for x in error_lines if name in x]
        assert reason in line, line
    with RunStore(run_dir) as store:
        assert store.count() == 25
        assert len(store.errors()) == 5
        assert {e["episode_key"] for e in store.errors()} == {
            f"gpt-4o|{n.removesuffix('_result.json')}|0" for n in expected
        }
    # rerunning imports nothing twice and does not repeat the error log
    report = import_official(tmp_path / "src", run_dir)
    assert report.imported == 0 and len(report.errors) == 5
    with RunStore(run_dir) as store:
        assert len(store.errors()) == 5


@needs_data
def test_read_episode_names_the_problem(tmp_path: Path) -> None:
    folder, _ = _corrupt_copy(tmp_path)
    trajectory, meta = read_episode(folder / "script_029_result.json")
    assert trajectory.case_id == meta["id"] == "script_029"
    with pytest.raises(ValueError, match="not valid JSON"):
        read_episode(folder / "script_003_result.json")


def test_nothing_to_import_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "official", str(tmp_path), "--out", str(tmp_path / "run")]) == 2
    assert "no published episodes" in capsys.readouterr().err


@needs_data
def test_clashing_folder_names_are_told_apart_by_parent(tmp_path: Path) -> None:
    for parent in ("run-a", "run-b"):
        folder = tmp_path / parent / "gpt-4o"
        folder.mkdir(parents=True)
        shutil.copy(RUNS / "gpt-4o" / "script_021_result.json", folder)
    assert sorted(find_model_folders(tmp_path)) == ["run-a/gpt-4o", "run-b/gpt-4o"]
    report = import_official(tmp_path, tmp_path / "run")
    assert report.models == {"run-a/gpt-4o": 1, "run-b/gpt-4o": 1}


# --- hostile folders --------------------------------------------------------------------------
def _hostile(folder: Path, outside: Path) -> dict[str, str]:
    """Bad entries named like published episodes in ``folder``; returns name -> reason shown."""
    folder.mkdir(parents=True, exist_ok=True)
    os.mkfifo(folder / "script_901_result.json")  # reading it would block forever
    (folder / "script_902_result.json").write_text("[" * 100_000 + "]" * 100_000)
    points = [{"turn": 0, "P_t": [-10, -5, -3]}, {"turn": 1}]
    episode = {"epj": {"trajectory": points}, "termination_reason": "timeout", "total_turns": 1}
    (folder / "script_903_result.json").write_text(json.dumps({**episode, "total_turns": "abc"}))
    (folder / "script_904_result.json").write_text(
        json.dumps(episode).replace("-10", "1e400")  # json reads it as inf
    )
    (folder / "script_905_result.json").mkdir()
    outside.write_text("{}", encoding="utf-8")
    (folder / "script_906_result.json").symlink_to(outside)
    (folder / "script_907_result.json").write_text(json.dumps({"script_id": "../../../etc/passwd"}))
    return {
        "script_901_result.json": "a FIFO, not a regular file",
        "script_902_result.json": "nested too deeply",
        "script_903_result.json": "total_turns is 'abc', not a number of turns",
        "script_904_result.json": "not three finite numbers",
        "script_905_result.json": "a folder, not a regular file",
        "script_906_result.json": "outside",
        "script_907_result.json": "is not a case id",
    }


@pytest.fixture
def no_hang():
    """Fail (instead of hanging the suite) when the import blocks, e.g. on a FIFO."""
    import signal

    def timeout(*_):
        raise TimeoutError("the import blocked")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def test_a_hostile_folder_gives_one_line_per_bad_file_and_never_blocks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_hang
) -> None:
    expected = _hostile(tmp_path / "src" / "evil", tmp_path / "secret.json")
    assert main(["import", "official", str(tmp_path / "src"), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "script_9" in line]
    assert len(lines) == len(expected)  # one line each
    for name, reason in expected.items():
        (line,) = [x for x in lines if name in x]
        assert reason in line, line
    assert err.strip().splitlines()[-1].startswith("error: none of the published episodes")


@needs_data
def test_hostile_files_beside_good_ones_are_skipped_and_the_rest_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_hang
) -> None:
    folder, _ = _corrupt_copy(tmp_path / "src")
    for name in ("script_003_result.json", "script_010_result.json", "script_011_result.json",
                 "script_020_result.json", "script_021_result.json"):  # fmt: skip
        (folder / name).unlink()
    expected = _hostile(folder, tmp_path / "secret.json")
    run_dir = tmp_path / "run"
    assert main(["import", "official", str(tmp_path / "src"), "--out", str(run_dir)]) == 1
    out = capsys.readouterr().out
    assert "25 episode(s) imported" in out and f"{len(expected)} file(s) could not" in out
    with RunStore(run_dir) as store:
        assert store.count() == 25
        assert all(Path(c).name == c for c in store.config["cases"])


@pytest.fixture
def nested(tmp_path: Path) -> Iterator[Callable[[Path, int], Path]]:
    """``nested(top, depth)`` makes ``top/d/d/.../d``, ``depth`` folders deep, one level at a time
    (``os.makedirs`` recurses once per level), and removes it bottom-up afterwards (so does
    ``shutil.rmtree``, which pytest's clean-up of old temporary folders would run into)."""
    made: list[Path] = []

    def make(top: Path, depth: int) -> Path:
        top.mkdir(parents=True)
        folder = top
        for _ in range(depth):
            folder = folder / "d"
            folder.mkdir()
            made.append(folder)
        return folder

    yield make
    for folder in reversed(made):
        for entry in folder.iterdir():
            if entry.name != "d":
                entry.unlink()
        folder.rmdir()


def test_a_folder_nested_a_thousand_deep_is_one_clear_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], nested: Callable[[Path, int], Path]
) -> None:
    bottom = nested(tmp_path / "src", 1000)
    (bottom / "script_001_result.json").write_text("{}", encoding="utf-8")
    assert main(["import", "official", str(tmp_path / "src"), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "RecursionError" not in err
    assert err.strip().splitlines()[-1].startswith("error: none of the published episodes")
    assert "script_001_result.json" in err  # found at the bottom, refused with its reason


@needs_data
def test_an_episode_a_thousand_folders_deep_is_imported(
    tmp_path: Path, nested: Callable[[Path, int], Path]
) -> None:
    bottom = nested(tmp_path / "src", 1000)
    shutil.copy(RUNS / "gpt-4o" / "script_021_result.json", bottom)
    report = import_official(tmp_path / "src", tmp_path / "run")
    assert report.imported == 1 and not report.errors
