"""Validation against EPITOME human labels (read from the shared data folder, never copied)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from empa_env.cli import main
from empa_env.offline.semantic.evaluate import GOAL_AUROC, GOAL_SPEARMAN, evaluate_epitome

EPITOME = Path(__file__).resolve().parents[3] / "shared" / "data" / "epitome" / "dev.csv"
if not EPITOME.is_file():
    EPITOME = Path("/work/shared/data/epitome/dev.csv")
needs_epitome = pytest.mark.skipif(
    not EPITOME.is_file(),
    reason="EPITOME dev.csv (non-commercial, not in the repo) is not at ../shared/data/epitome/",
)


@needs_epitome
def test_eval_command_prints_the_documented_json(tmp_path, capsys):
    sample = tmp_path / "sample.csv"
    lines = EPITOME.read_text(encoding="utf-8").splitlines(keepends=True)
    import csv
    import io

    rows = list(csv.reader(io.StringIO("".join(lines))))
    with sample.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows[:61])
    assert main(["judge", "eval", "--epitome", str(sample), "--json", "--tier", "static"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 60 and set(out["axes"]) == {"A", "C", "P"}
    for m in out["axes"].values():
        assert set(m) == {"accuracy", "macro_f1", "auroc", "spearman", "majority"}


@needs_epitome
@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="issue 14 goal not met yet by the shipped heads (see MODEL_CARD.md for the figures)",
)
def test_epitome_goal(minilm_judger):
    report = evaluate_epitome(minilm_judger, EPITOME)
    for axis, m in report.axes.items():
        assert m.auroc >= GOAL_AUROC, (axis, m)
        assert m.spearman >= GOAL_SPEARMAN, (axis, m)
