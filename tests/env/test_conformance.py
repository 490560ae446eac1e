"""``check_role``: every built-in role and reward conforms; a role that breaks the contract is
named with each of its problems."""

from __future__ import annotations

import pytest

from empa_env.backends import actors, directors, judgers, resolve_reward, resolve_role, rewards
from empa_env.offline.reading_judge import ReadingJudger
from empa_env.roles.base import Judger
from empa_env.testing.conformance import ConformanceError, check_role, kind_of
from epm.trajectory import Judgement

OFFLINE_JUDGERS = [n for n in judgers.names() if n != "llm"]


@pytest.mark.parametrize("spec", OFFLINE_JUDGERS)
def test_every_offline_judger_conforms(spec):
    report = check_role(resolve_role("judger", spec))
    assert report.kind == "judger" and report.calls >= 10
    assert {"types", "deterministic", "judge_batch equals judge"} <= set(report.checks)


@pytest.mark.parametrize(("kind", "spec"), [("actor", "offline"), ("director", "offline")])
def test_the_offline_actor_and_director_conform(kind, spec):
    assert spec in (actors if kind == "actor" else directors).names()
    report = check_role(resolve_role(kind, spec))
    assert report.kind == kind and report.calls >= 5


@pytest.mark.parametrize("name", rewards.names())
def test_every_registered_reward_conforms(name):
    report = check_role(resolve_reward(name))
    assert report.kind == "reward" and "towards the goal" in report.checks


class _Careless(Judger):
    """Levels without evidence, a different answer each time, and a crash on an empty reply."""

    name = "careless"

    def __init__(self) -> None:
        self.calls = 0

    def judge(self, view):
        if not view.reply:
            raise ValueError("no reply")
        self.calls += 1
        zeros = dict.fromkeys(("C", "A", "P"), 0)
        return Judgement(prog={**zeros, "C": self.calls % 2}, neg=dict(zeros))


def test_a_careless_judger_is_refused_with_each_problem_named():
    with pytest.raises(ConformanceError) as caught:
        check_role(_Careless(), cases=("empa30-001",))
    text = "\n".join(caught.value.problems)
    assert "without evidence" in text
    assert "answered the same view differently twice" in text
    assert "judge() raised ValueError('no reply') on ''" not in text  # an empty reply: no quote
    assert "judge() raised ValueError('no reply')" in text


def test_a_reward_that_prefers_moving_away_is_refused():
    with pytest.raises(ConformanceError, match="towards the goal"):
        check_role(lambda p, q: float(sum(abs(q)) - sum(abs(p))))
    with pytest.raises(ConformanceError, match="finite float"):
        check_role(lambda p, q: float("nan"))


def test_the_kind_is_read_from_the_base_class():
    assert kind_of(ReadingJudger()) == "judger"
    assert kind_of(resolve_reward("idr")) == "reward"
    with pytest.raises(TypeError, match="not a Judger, Actor or Director"):
        kind_of(object())


def test_the_lexicon_judge_is_named_for_what_it_is_and_the_old_name_warns():
    from empa_env.offline.judger import LexiconJudger

    judge = resolve_role("judger", "lexicon")
    assert isinstance(judge, LexiconJudger) and judge.name.startswith("lexicon-rules-v")
    assert resolve_role("judger", "offline").name == "reading"
    with pytest.warns(DeprecationWarning, match="now LexiconJudger"):
        from empa_env.offline.judger import OfflineJudger
    assert OfflineJudger is LexiconJudger
