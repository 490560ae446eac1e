"""Validation against EPITOME human labels (read from the shared data folder, never copied).

The pairs are rated once per tier and module (``epitome_report``) and shared by the assertions.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from empa_env.cli import main
from empa_env.offline.semantic.agreement import RecordedAgreement, recorded_agreement
from empa_env.offline.semantic.evaluate import GOAL_AUROC, GOAL_SPEARMAN, evaluate_epitome
from empa_env.offline.semantic.heads import file_digest
from empa_env.offline.semantic.judger import HEADS_FILES

EPITOME = Path(__file__).resolve().parents[3] / "shared" / "data" / "epitome" / "dev.csv"
if not EPITOME.is_file():
    EPITOME = Path("/work/shared/data/epitome/dev.csv")
needs_epitome = pytest.mark.skipif(
    not EPITOME.is_file(),
    reason="EPITOME dev.csv (non-commercial, not in the repo) is not at ../shared/data/epitome/",
)


def _recorded(tier: str) -> RecordedAgreement:
    """The figures recorded for the shipped heads of ``tier`` (agreement.py, MODEL_CARD.md)."""
    recorded = recorded_agreement(file_digest(HEADS_FILES[tier]))
    assert recorded is not None, f"the shipped {tier} heads have no recorded EPITOME figures"
    return recorded


def test_shipped_heads_have_recorded_figures():
    """Retraining a heads file without measuring it again must not go unnoticed."""
    for tier in ("static", "minilm"):
        assert _recorded(tier).tier == tier


@pytest.fixture(scope="module")
def epitome_report(static_judger):
    return evaluate_epitome(static_judger, EPITOME)


@needs_epitome
def test_eval_command_prints_the_documented_json(tmp_path, capsys):
    sample = tmp_path / "sample.csv"
    rows = list(csv.reader(io.StringIO(EPITOME.read_text(encoding="utf-8"))))
    with sample.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows[:61])
    assert main(["judge", "eval", "--epitome", str(sample), "--json", "--bare"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 60 and set(out["axes"]) == {"A", "C", "P"}
    for m in out["axes"].values():
        assert set(m) == {"accuracy", "macro_f1", "auroc", "spearman", "majority"}
    # without --bare: the judge as the environment runs it, the bare heads as a secondary part
    assert main(["judge", "eval", "--epitome", str(sample), "--json"]) == 0
    used = json.loads(capsys.readouterr().out)
    assert {"levels", "scores", "bare", "relevance_penalty_rate"} <= set(used)
    assert used["bare"] == out and used["scores"]["n"] == 60


@needs_epitome
@pytest.mark.parametrize("axis", ["A", "C", "P"])
def test_default_tier_keeps_its_measured_agreement(epitome_report, axis):
    """The recorded figures (shown by the report and the README) are what the judge does:
    each within 0.01, so a change of corpus, features or heads cannot silently lose them."""
    m = epitome_report.axes[axis]
    auroc, rho = _recorded("static").axes[axis]
    assert m.auroc == pytest.approx(auroc, abs=0.01) and m.spearman == pytest.approx(rho, abs=0.01)


@needs_epitome
@pytest.mark.parametrize("axis", ["A", "C", "P"])
def test_default_judge_meets_the_issue_goal(epitome_report, axis):
    """Issue 14: AUROC of "level > 0" >= 0.75 and Spearman >= 0.35 on every axis, never trained
    on EPITOME (the design was chosen on these dev pairs: MODEL_CARD.md says so)."""
    m = epitome_report.axes[axis]
    assert m.auroc >= GOAL_AUROC, (axis, m)
    assert m.spearman >= GOAL_SPEARMAN, (axis, m)


def test_eval_and_train_errors_are_one_line_and_exit_2(tmp_path, capsys):
    assert main(["judge", "eval", "--epitome", str(tmp_path / "missing.csv")]) == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("seeker_post,response_post\nhi,hello\n", encoding="utf-8")
    assert main(["judge", "eval", "--epitome", str(bad)]) == 2
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    assert main(["judge", "train", "--data", str(broken), "--out", str(tmp_path / "h.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("error: ") for line in err), err
    assert "missing columns" in err[1] and "broken.jsonl:1: not JSON" in err[2]


# --- the judge as the environment runs it (issue 21) --------------------------------------------
@pytest.fixture(scope="module")
def as_used_report():
    from empa_env.offline.default import offline_judger
    from empa_env.offline.semantic.evaluate import evaluate_epitome_as_used

    return evaluate_epitome_as_used(offline_judger(), EPITOME)


@needs_epitome
@pytest.mark.parametrize("axis", ["A", "C", "P"])
def test_the_judge_as_used_meets_the_goal_and_the_guards_cost_little(as_used_report, axis):
    used = as_used_report.scores.axes[axis]
    bare = as_used_report.bare.axes[axis]
    assert used.auroc >= GOAL_AUROC and used.spearman >= GOAL_SPEARMAN, (axis, used)
    assert bare.auroc - used.auroc <= 0.02, (axis, bare.auroc, used.auroc)


@needs_epitome
def test_relevance_penalties_are_rare_on_human_replies(as_used_report):
    assert as_used_report.relevance_penalty_rate < 0.03
    assert as_used_report.failures == 0


@needs_epitome
@pytest.mark.xfail(
    strict=True,
    reason=(
        "not met on human replies (issue 21): EPITOME, AUROC .645 among the 489 replies with a "
        "question (goal .70; .611 before questions were read as explorations); the project's own "
        "labelled set (test_attention.py) reaches .90"
    ),
)
def test_P_is_not_a_question_detector(as_used_report):
    """Among the human replies that ask a question, P still separates explorations of the person
    (EX > 0) from other questions."""
    assert as_used_report.questions > 100
    assert as_used_report.p_among_questions >= 0.70


@needs_epitome
def test_the_as_used_figures_are_recorded(as_used_report):
    from empa_env.backends import judgers
    from empa_env.offline.semantic.agreement import RECORDED_AS_USED, as_used_key

    scores, levels = RECORDED_AS_USED[as_used_key(judgers.create("offline").describe())]
    for axis in ("A", "C", "P"):
        for recorded, measured in (
            (scores, as_used_report.scores),
            (levels, as_used_report.levels),
        ):
            auroc, rho = recorded.axes[axis]
            m = measured.axes[axis]
            assert m.auroc == pytest.approx(auroc, abs=0.01), axis
            assert m.spearman == pytest.approx(rho, abs=0.01), axis
