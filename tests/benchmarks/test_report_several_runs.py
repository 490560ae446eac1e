"""``empa report RUN_DIR [RUN_DIR ...] --out DIR``: several runs side by side in one report."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.report.multi import load_runs, run_labels
from benchmarks.runner import BenchConfig, run_benchmark
from empa_env.cli import main
from empa_env.config import EnvConfig

#: Cases per run: enough for a paired test between the comparable models.
CASES = 8


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three offline runs: mine-a and mine-b comparable (same suite, roles, preset), both with a
    policy named 'attuned'; paper-run uses the paper preset (not comparable). Each plays the first
    CASES cases of the suite (the selection is not what makes runs comparable)."""
    base = tmp_path_factory.mktemp("runs")
    plans = {
        "mine-a": (BenchConfig(limit=CASES), ["scripted:attuned", "scripted:lecturer"]),
        "mine-b": (BenchConfig(limit=CASES), ["scripted:attuned"]),
        "paper-run": (BenchConfig(EnvConfig(preset="paper"), limit=CASES), ["scripted:parrot"]),
    }
    out = {}
    for name, (config, policies) in plans.items():
        out[name] = base / name
        asyncio.run(run_benchmark(config, policies, out[name], progress=False, concurrency=8))
    return out


def test_models_side_by_side_with_clashing_names_disambiguated(runs: dict[str, Path]) -> None:
    loaded = load_runs([runs["mine-a"], runs["mine-b"], runs["paper-run"]])
    counts = loaded.episodes.groupby("model").size().to_dict()
    assert counts == {
        "attuned [mine-a]": CASES,
        "attuned [mine-b]": CASES,
        "lecturer": CASES,
        "parrot": CASES,
    }
    assert loaded.episodes["episode_key"].is_unique
    assert set(loaded.episodes["episode_key"]) == set(loaded.trajectories)
    assert loaded.groups == {
        "attuned [mine-a]": "group 1",
        "lecturer": "group 1",
        "attuned [mine-b]": "group 1",
        "parrot": "group 2",
    }
    assert "group 1 vs group 2: different preset" in loaded.note


def test_report_of_several_runs_tests_only_comparable_pairs(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "report"
    args = ["report", str(runs["mine-a"]), str(runs["mine-b"]), str(runs["paper-run"])]
    assert main([*args, "--out", str(out)]) == 0
    table9 = pd.read_csv(out / "tables" / "table9_composite.csv", index_col=0)
    assert set(table9.index) == {"attuned [mine-a]", "attuned [mine-b]", "lecturer", "parrot"}
    tests = pd.read_csv(out / "tables" / "significance_epm_index.csv")
    pairs = {frozenset((a, b)) for a, b in zip(tests["model_a"], tests["model_b"], strict=True)}
    assert pairs == {
        frozenset(("attuned [mine-a]", "attuned [mine-b]")),
        frozenset(("attuned [mine-a]", "lecturer")),
        frozenset(("attuned [mine-b]", "lecturer")),
    }
    assert set(tests["group"]) == {"group 1"}
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "comparable runs only" in markdown
    assert "models of different groups are not tested against each other" in markdown
    assert "different preset" in markdown
    # the runs' own folders are untouched (no report, no exports written into them)
    assert not (runs["mine-b"] / "report").exists()
    # a transcript's command reads its own run, under the model's name there
    html = (out / "report.html").read_text(encoding="utf-8")
    assert f"empa show {runs['mine-b']} --model attuned --case" in html
    assert "--model 'attuned [mine-b]'" not in html and "RUN_DIR" not in html
    # one row per run at the top: its suite, preset, roles, size, errors and group
    assert '<th scope="row">paper-run</th><td>empa30-v1</td><td>paper</td>' in html


def test_single_run_form_still_works_and_takes_out(runs: dict[str, Path], tmp_path: Path) -> None:
    assert main(["report", str(runs["paper-run"]), "--out", str(tmp_path / "r"), "--quiet"]) == 0
    assert (tmp_path / "r" / "report.md").is_file()
    assert (runs["paper-run"] / "episodes.jsonl").is_file()  # exports as before
    tests = pd.read_csv(tmp_path / "r" / "tables" / "significance_epm_index.csv")
    assert tests.empty  # one model, nothing to test
    assert "group" not in tests.columns


def test_several_runs_need_out_and_distinct_dirs(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(runs["mine-a"]), str(runs["mine-b"])]) == 2
    assert "--out" in capsys.readouterr().err
    with pytest.raises(ValueError, match="twice"):
        run_labels([runs["mine-a"], runs["mine-a"]])


def test_run_labels_use_more_of_the_path_on_a_clash(tmp_path: Path) -> None:
    assert run_labels([tmp_path / "a" / "run", tmp_path / "b" / "run"]) == ["a/run", "b/run"]


OFFICIAL_RUNS = Path(__file__).resolve().parents[3] / "shared/data/empa-official/results"


@pytest.mark.skipif(
    not OFFICIAL_RUNS.is_dir(), reason=f"official EMPA results not found under {OFFICIAL_RUNS}"
)
def test_own_run_next_to_the_imported_official_one(runs: dict[str, Path], tmp_path: Path) -> None:
    from benchmarks.importers.official import import_official

    official = tmp_path / "official"
    import_official(OFFICIAL_RUNS.parent, official)
    loaded = load_runs([runs["mine-b"], official])
    assert set(loaded.episodes["model"]) == {"attuned", "claude-4.6-opus", "gpt-4o"}
    assert loaded.groups["attuned"] != loaded.groups["gpt-4o"]
    assert "different suite, roles" in loaded.note
