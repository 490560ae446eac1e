"""Cross-judge agreement on a saved trajectory (MICA D.3.2): per-turn cosine of increments."""

from __future__ import annotations

import numpy as np
import pytest

from empa_env.env import EMPAEnv
from empa_env.llm.agreement import (
    aagreement_matrix,
    compare,
    compare_judgements,
    increment_cosine,
    judge_views,
)
from empa_env.llm.roles import LLMJudger
from empa_env.offline.judger import LexiconJudger
from empa_env.sync import run_sync
from empa_env.testing import policies as sp
from epm.trajectory import Judgement, Trajectory

from .conftest import MODEL


class RecordingJudger(LexiconJudger):
    def __init__(self):
        super().__init__()
        self.views = []

    def judge(self, view):
        self.views.append(view)
        return super().judge(view)


@pytest.fixture(scope="module")
def saved():
    """An offline episode, saved and reloaded as JSON, with the views its Judger received."""
    judger = RecordingJudger()
    env = EMPAEnv("empa30-v1", judger=judger, max_turns=16)
    env.reset(seed=2, options={"case": "empa30-029"})
    while True:
        *_, term, trunc, _ = env.step(sp.attuned(env.messages))
        if term or trunc:
            break
    return Trajectory.from_json(env.trajectory.to_json()), env.case, judger.views


def test_views_are_rebuilt_exactly_as_the_env_built_them(saved):
    trajectory, case, recorded = saved
    assert any(
        t.director and t.director["tool"] == "select_and_reveal_fragment" for t in trajectory.turns
    )
    assert judge_views(trajectory, case) == recorded


def test_cosine_conventions():
    assert increment_cosine([1, 0, 0], [2, 0, 0]) == pytest.approx(1.0)
    assert increment_cosine([1, 0, 0], [-1, 0, 0]) == pytest.approx(-1.0)
    assert increment_cosine([1, 0, 0], [0, 3, 0]) == pytest.approx(0.0)
    assert increment_cosine([0, 0, 0], [0, 0, 0]) == 1.0
    assert increment_cosine([0, 0, 0], [1, 1, 0]) == 0.0


def _j(prog, neg):
    return Judgement(
        prog=dict(zip("CAP", prog, strict=True)), neg=dict(zip("CAP", neg, strict=True))
    )


def test_failed_turns_are_excluded_and_counted():
    a = [_j((1, 0, 0), (0, 0, 0)), _j((0, 2, 0), (0, 0, 0)), _j((0, 0, 1), (0, 0, -1))]
    b = [_j((1, 0, 0), (0, 0, 0)), Judgement.failure("x"), _j((0, 0, 2), (0, 0, 0))]
    report = compare_judgements("c", "a", a, "b", b)
    assert [t.cosine for t in report.turns] == [pytest.approx(1.0), None, pytest.approx(-1.0)]
    assert report.failed_turns == 1 and report.mean_cosine == pytest.approx(0.0)
    # Concatenated: a = (1,0,0, 0,0,-1), b = (1,0,0, 0,0,3)
    assert report.sequence_cosine == pytest.approx((1 - 3) / (np.sqrt(2) * np.sqrt(10)))


def test_rescoring_with_the_same_judge_agrees_perfectly(saved):
    trajectory, case, _ = saved
    report = compare(trajectory, case, LexiconJudger())
    assert report.failed_turns == 0 and report.mean_cosine == pytest.approx(1.0)


def test_offline_versus_llm_judge(server, opts, saved):
    trajectory, case, _ = saved
    report = compare(trajectory, case, LLMJudger(MODEL, **opts))
    assert len(report.turns) == trajectory.num_turns == server.counts()["judger"]
    assert report.failed_turns == 0
    assert all(-1.0 <= t.cosine <= 1.0 for t in report.compared)
    data = report.as_dict()
    assert data["judge_b"] == f"llm:{MODEL}" and len(data["per_turn"]) == trajectory.num_turns


def test_agreement_matrix(server, opts, saved):
    trajectory, case, _ = saved
    judgers = {"offline": LexiconJudger(), "llm": LLMJudger(MODEL, **opts)}
    matrix = run_sync(aagreement_matrix([trajectory], {case.id: case}, judgers))
    assert matrix[("offline", "offline")] == pytest.approx(1.0)
    assert matrix[("offline", "llm")] == matrix[("llm", "offline")]
