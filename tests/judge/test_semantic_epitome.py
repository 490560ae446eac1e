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
from empa_env.offline.semantic.heads import file_digest
from empa_env.offline.semantic.judger import HEADS_FILES
from empa_env.offline.semantic.lab.agreement import RecordedAgreement, recorded_agreement
from empa_env.offline.semantic.lab.evaluate import GOAL_AUROC, GOAL_SPEARMAN, evaluate_epitome

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
    # without --bare: the levels the environment uses, and the contrastive check
    assert main(["judge", "eval", "--epitome", str(sample), "--json", "--posts", "20"]) == 0
    used = json.loads(capsys.readouterr().out)
    assert used["judger"] == "offline" and used["as_used"]["pairs"] == 60
    for m in used["as_used"]["axes"].values():
        assert set(m) == {"auroc", "spearman", "credited", "people"}
    assert set(used["contrast"]["wins"]) == {"slot_fill", "generic", "another_post"}


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


# --- the judge as the environment runs it (issue 31) --------------------------------------------
@pytest.fixture(scope="module")
def as_used_report():
    from empa_env.offline.default import offline_judger
    from empa_env.offline.semantic.lab.human_check import evaluate_as_used

    return evaluate_as_used(offline_judger(), EPITOME)


@needs_epitome
@pytest.mark.parametrize("axis", ["A", "C", "P"])
def test_the_levels_as_used_rank_with_people(as_used_report, axis):
    """Spearman >= .35 with the human levels on every axis, and AUROC well above chance, from
    the graded levels the environment uses (no tie-breaking by anything it does not use).
    The floor is .69 since v7: its harm heads catch more pushes said in other words (held-out
    5-40% -> 24-55% per family) and void more of people's replies (47 -> 76 of 2,116), which
    took A from .702 to .698; the trade is printed by ``perf/perf_judge_reading.py``."""
    m = as_used_report.axes[axis]
    assert m.spearman >= GOAL_SPEARMAN and m.auroc >= 0.69, (axis, m)
    assert as_used_report.failures == 0


@needs_epitome
def test_P_as_used_meets_the_goal_and_every_axis_credits_near_peoples_share(as_used_report):
    """The share of replies the judge credits is within .10 of the share people credit on every
    axis (the credit floor, ``CREDIT_FLOOR``, is what brings A and C there)."""
    assert as_used_report.axes["P"].meets_goal(), as_used_report.axes["P"]
    for axis, m in as_used_report.axes.items():
        assert abs(m.credited - m.people) <= 0.10, (axis, m)


@needs_epitome
@pytest.mark.xfail(
    strict=True,
    reason="not met (issue 31): as used, AUROC A .70 and C .71 (goal .75); the shares credited "
    "are within .10 of people's on every axis",
)
def test_the_levels_as_used_meet_the_goal_on_every_axis(as_used_report):
    assert as_used_report.meets_goal(), as_used_report


@needs_epitome
def test_the_as_used_figures_are_recorded(as_used_report):
    from empa_env.backends import judgers
    from empa_env.offline.semantic.lab.agreement import RECORDED_READING, reading_key

    recorded = RECORDED_READING[reading_key(judgers.create("offline").describe())]
    for axis, m in as_used_report.axes.items():
        auroc, rho, credited, people = recorded.axes[axis]
        assert m.auroc == pytest.approx(auroc, abs=0.01), axis
        assert m.spearman == pytest.approx(rho, abs=0.01), axis
        assert m.credited == pytest.approx(credited, abs=0.01), axis


@pytest.fixture(scope="module")
def contrast_report():
    from empa_env.offline.default import offline_judger
    from empa_env.offline.semantic.lab.human_check import contrast_check

    return contrast_check(offline_judger(), EPITOME, posts=200)


@needs_epitome
def test_a_persons_own_reply_beats_replies_that_fit_any_post(contrast_report):
    """The contrastive human check (issue 31, item 5): above chance against every rival."""
    assert min(contrast_report.wins.values()) > 0.55, contrast_report.wins


@needs_epitome
@pytest.mark.xfail(
    strict=True,
    reason="not met (issue 31): the own reply wins .71 against slot-filled frames, .77 against "
    "generic lines and .59 against another post's reply (goals .80 / .80 / .75): four in ten "
    "human replies people credit are themselves generic (sympathy, 'I know how you feel'), and "
    "another post's reply on the same forum speaks of much the same",
)
def test_the_contrast_meets_the_goal(contrast_report):
    assert contrast_report.meets_goal(), contrast_report.wins
