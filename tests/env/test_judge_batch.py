"""One batched judge call per lockstep turn (issue 21): ``Judger.judge_batch`` and ``judge_ahead``.

The batch must change nothing but the number of calls: every judgement equals the one ``judge``
makes, and a lockstep rollout plays exactly as the same episodes played one at a time.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import empa_env  # noqa: F401  (registers the ids)
from baselines.policies.scripted import AdviceGiverPolicy, AttunedPolicy
from empa_env.env import EMPAEnv, judge_ahead
from empa_env.roles.base import Judger
from empa_env.roles.views import JudgeView
from empa_env.rollout import play_episode, play_lockstep
from epm.trajectory import Judgement

CASES = ["empa30-001", "empa30-002", "empa30-003", "empa30-004"]


def _views(env: EMPAEnv, policy, turns: int) -> list[JudgeView]:  # noqa: ANN001
    """The judge's views of ``turns`` steps of ``policy`` on each case (played, so that the
    histories are real), with one reply left for each."""
    from empa_env.env import _judge_view

    views = []
    for case in CASES[:2]:
        env.reset(seed=0, options={"case": case})
        for _ in range(turns):
            reply = policy.reply(env.messages)
            views.append(_judge_view(env._episode, reply))  # type: ignore[arg-type]
            env.step(reply)
    return views


def _clear(env: EMPAEnv) -> None:
    """Every bounded cache and the judge's encoder cache emptied (a cold judge)."""
    from empa_env.bounded_cache import clear_all

    judge = env.roles.judger
    inner = getattr(judge, "inner", None) or getattr(judge, "heads", judge)
    inner.encoder.clear()
    grounding = getattr(inner, "grounding", None)
    if grounding is not None:
        grounding._read.cache_clear()
    clear_all()


@pytest.mark.parametrize("judger", ["offline", "semantic:minilm"])
def test_judge_batch_returns_what_judge_returns(judger: str):
    env = EMPAEnv("empa30-v1", judger=judger)
    views = _views(env, AttunedPolicy(), 4) + _views(env, AdviceGiverPolicy(), 3)
    judge = env.roles.judger
    _clear(env)
    batched = judge.judge_batch(views)
    _clear(env)
    alone = [judge.judge(v) for v in views]
    assert batched == alone
    assert any(j.prog["C"] for j in alone) and any(not j.prog["C"] for j in alone)


def test_lockstep_judges_each_turn_in_one_batch_and_plays_as_alone(monkeypatch):
    calls: list[int] = []
    singles: list[int] = []
    default = type(EMPAEnv("empa30-v1").roles.judger)
    batch, single = default.judge_batch, default.judge

    def counting_batch(self, views):  # noqa: ANN001, ANN202
        calls.append(len(views))
        return batch(self, views)

    def counting_judge(self, view):  # noqa: ANN001, ANN202
        singles.append(1)
        return single(self, view)

    monkeypatch.setattr(default, "judge_batch", counting_batch)
    monkeypatch.setattr(default, "judge", counting_judge)
    policy = AttunedPolicy()
    envs = [gym.make("EMPA-Bench-v14", max_turns=14) for _ in CASES]
    together = play_lockstep(
        envs, lambda hs: [policy.reply(h) for h in hs], cases=CASES, seeds=[0, 1, 2, 3]
    )
    turns = max(len(e) for e in together)
    assert len(calls) == turns and calls[0] == len(CASES)  # one call per turn, all envs in it
    assert sum(calls) == sum(len(e) for e in together)
    assert not singles  # no step called its judge on its own
    for ep, case, seed in zip(together, CASES, range(4), strict=True):
        alone = play_episode(gym.make("EMPA-Bench-v14", max_turns=14), policy, case=case, seed=seed)
        a, b = alone.trajectory, ep.trajectory
        assert a is not None and b is not None
        assert [t.judgement for t in a.turns] == [t.judgement for t in b.turns]
        assert [t.position for t in a.turns] == [t.position for t in b.turns]
        assert [t.user_message for t in a.turns] == [t.user_message for t in b.turns]


class _Unbatched(Judger):
    def judge(self, view: JudgeView) -> Judgement:
        return Judgement({"C": 1, "A": 0, "P": 0}, {"C": 0, "A": 0, "P": 0}, {"C_Prog": view.reply})


def test_judges_that_do_not_batch_and_refused_replies_are_left_to_the_step():
    env = EMPAEnv("empa30-v1", max_turns=14)
    env.reset(seed=0, options={"case": CASES[0]})
    too_long = "x" * (env.env_config.max_reply_chars + 1)
    assert judge_ahead([env, env], [too_long, 42]) == 0  # the step raises its own error
    other = EMPAEnv("empa30-v1", judger=_Unbatched(), max_turns=14)
    other.reset(seed=0, options={"case": CASES[0]})
    assert judge_ahead([other], ["I hear you."]) == 0
    assert judge_ahead([env], ["You are pathetic."]) == 1
    # a different reply than the one judged ahead is judged afresh, not with that judgement
    _, _, _, _, info = env.step("That sounds hard. What happened with the bank?")
    assert info["turn"] == 1 and min(info["levels"][f"{a}_Neg"] for a in "CAP") == 0


def test_a_failing_batch_leaves_each_step_to_its_own_judge(monkeypatch):
    def broken(self, views):  # noqa: ANN001, ANN202
        raise RuntimeError("encoder down")

    reply = "That sounds so hard. What happened with the bank?"
    plain = EMPAEnv("empa30-v1", max_turns=14)
    plain.reset(seed=0, options={"case": CASES[0]})
    _, _, _, _, expected = plain.step(reply)
    monkeypatch.setattr(type(plain.roles.judger), "judge_batch", broken)
    env = EMPAEnv("empa30-v1", max_turns=14)
    env.reset(seed=0, options={"case": CASES[0]})
    assert judge_ahead([env], [reply]) == 0
    _, _, _, _, info = env.step(reply)
    assert not info["judge_failed"] and info["levels"] == expected["levels"]
