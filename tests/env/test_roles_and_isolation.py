"""Information isolation, role failures and the Director's rules."""

from __future__ import annotations

import dataclasses

import pytest

from empa_env.env import EMPAEnv
from empa_env.offline.actor import OfflineActor
from empa_env.offline.director import OfflineDirector
from empa_env.offline.judger import LexiconJudger
from empa_env.roles.base import Actor, Director, Judger
from empa_env.roles.views import ActorPersona, ActorView, DirectorAction, DirectorView, JudgeView
from empa_env.testing import policies as sp


class SpyActor(OfflineActor):
    def __init__(self):
        self.views = []

    def open(self, view):
        self.views.append(view)
        return super().open(view)

    def respond(self, view):
        self.views.append(view)
        return super().respond(view)


class SpyJudger(LexiconJudger):
    def __init__(self):
        super().__init__()
        self.views = []

    def judge(self, view):
        self.views.append(view)
        return super().judge(view)


class SpyDirector(OfflineDirector):
    def __init__(self):
        self.views = []

    def direct(self, view):
        self.views.append(view)
        return super().direct(view)


def _field_names(obj) -> set[str]:
    return {f.name for f in dataclasses.fields(obj)}


def test_each_role_receives_only_its_view():
    actor, judger, director = SpyActor(), SpyJudger(), SpyDirector()
    env = EMPAEnv("empa30-v1", actor=actor, judger=judger, director=director)
    env.reset(seed=0, options={"case": "empa30-029"})
    for _ in range(14):
        *_, term, trunc, _ = env.step(sp.attuned(env.messages))
        if term or trunc:
            break
    # The Actor: its persona material, the history, the Director's guidance. Nothing else.
    assert all(type(v) is ActorView for v in actor.views)
    assert _field_names(actor.views[0]) == {"persona", "history", "guidance", "turn", "seed"}
    persona_fields = _field_names(actor.views[0].persona)
    assert not persona_fields & {"plot", "iedr", "cues", "p0"}, persona_fields
    assert isinstance(actor.views[0].persona, ActorPersona)
    case = env.cases[[c.id for c in env.cases].index("empa30-029")]
    for view in actor.views:
        if view.guidance is not None:
            assert _field_names(view.guidance) == {
                "text", "stance", "focus", "release", "facts", "withheld", "withheld_kinds",
                "rapport", "patience", "leave",
            }  # fmt: skip
            # facts only of released stages; of the others, only what they are about
            told = {int(r.key) for v in actor.views if v.guidance and (r := v.guidance.release)
                    and r.kind in ("stage", "turning_point")}  # fmt: skip
            assert all(f.stage in told for f in view.guidance.facts)
            hidden = {f.answer for f in case.facts if f.stage is not None and f.stage not in told}
            assert not hidden & {f.answer for f in view.guidance.facts}
    # The Judger: profile, cues, history and the reply; never the state or the plot.
    assert all(type(v) is JudgeView for v in judger.views)
    assert _field_names(judger.views[0]) == {"profile", "history", "reply", "turn"}
    assert not _field_names(judger.views[0].profile) & {"plot", "iedr", "p0", "position"}
    assert judger.views[1].history[-1].role == "user" and judger.views[1].reply not in [
        m.content for m in judger.views[1].history
    ]
    # The Director: the whole case, the EPM state block and plot progress.
    assert all(type(v) is DirectorView for v in director.views)
    assert {"E_total", "distance", "projection"} <= set(director.views[0].epm)
    assert director.views[0].case.plot.stages
    # The policy: only words (the observation is the user's message).
    assert all(set(m) == {"role", "content"} for m in env.messages)


def test_released_plot_reaches_the_actor_only_through_the_director():
    actor = SpyActor()
    env = EMPAEnv("empa30-v1", actor=actor)
    env.reset(seed=1, options={"case": "empa30-029"})
    narration = [line for s in env.case.plot.stages for line in s.narration]
    for _ in range(30):
        *_, term, trunc, _ = env.step(sp.attuned(env.messages))
        if term or trunc:
            break
    released = [v.guidance.release for v in actor.views if v.guidance and v.guidance.release]
    assert released, "a warm conversation releases plot stages"
    spoken = " ".join(m["content"] for m in env.messages if m["role"] == "user")
    released_lines = {line for r in released for line in r.lines}
    for line in narration:
        if line in spoken:
            assert line in released_lines, f"spoke unreleased plot material: {line}"


class BrokenJudger(Judger):
    name = "broken"

    def judge(self, view):
        raise RuntimeError("judge exploded")


def test_a_judge_failure_is_recorded_never_a_silent_zero():
    env = EMPAEnv("empa30-v1", judger=BrokenJudger())
    env.reset(seed=0, options={"case": "empa30-001"})
    _, reward, *_, info = env.step("That sounds hard.")
    assert info["judge_failed"] and "judge exploded" in info["judge_error"]
    turn = env.trajectory.turns[-1]
    assert turn.judgement.failed and turn.judgement.error and turn.v == [0.0, 0.0, 0.0]
    while True:
        *_, term, trunc, info = env.step("Tell me more.")
        if term or trunc:
            break
    assert info["epm"]["judge_failures"] == env.trajectory.num_turns > 0


class SilentActor(OfflineActor):
    def respond(self, view):
        if view.turn >= 3:
            raise ConnectionError("actor backend down")
        return super().respond(view)


def test_an_actor_failure_ends_the_episode_truncated_with_the_reason():
    env = EMPAEnv("empa30-v1", actor=SilentActor())
    env.reset(seed=0, options={"case": "empa30-001"})
    for _ in range(3):
        obs, _, term, trunc, info = env.step("That sounds hard. What happened?")
    assert trunc and not term and obs == ""
    assert "actor backend down" in info["aborted"] and "epm" in info
    assert env.trajectory.outcome == "truncated" and env.trajectory.num_turns == 3


class RuleBreakingDirector(Director):
    name = "rule-breaker"

    def __init__(self):
        self.calls = 0

    def direct(self, view):
        self.calls += 1
        plan = [
            DirectorAction("end_conversation", {"reason": "too early"}),
            DirectorAction("reveal_memory", {"memory_period": "childhood", "reason": "r"}),
            DirectorAction("reveal_memory", {"memory_period": "childhood", "reason": "again"}),
            DirectorAction("select_and_reveal_fragment", {"stage_index": 7, "reason": "bad"}),
            DirectorAction("adjust_empathy_strategy", {"focus_aspect": "vibes", "reason": "bad"}),
        ]
        if self.calls <= len(plan):
            return plan[self.calls - 1]
        if view.can_end:
            return DirectorAction("end_conversation", {"reason": "allowed now"})
        return DirectorAction("observe_and_wait", {"observation": "-", "wait_reason": "-"})


def test_director_rules_are_enforced():
    env = EMPAEnv("empa30-v1", director=RuleBreakingDirector())
    env.reset(seed=0, options={"case": "empa30-001"})
    infos = []
    while True:
        *_, term, trunc, info = env.step("It sounds like a lot. What part weighs on you?")
        infos.append(info)
        if term or trunc:
            break
    rejected = [i["director"]["rejected"] for i in infos[:5]]
    assert "not allowed before turn 12" in rejected[0]
    assert rejected[1] == ""
    assert "already revealed" in rejected[2]
    assert "stage_index must be an integer between 0 and 3" in rejected[3]
    assert "focus_aspect must be one of" in rejected[4]
    assert env.trajectory.outcome in ("director_end", "failure", "success")
    if env.trajectory.outcome == "director_end":
        assert env.trajectory.num_turns == env.config.ending.min_turns


def test_roles_must_implement_their_method():
    with pytest.raises(TypeError, match="must implement"):
        type("Nothing", (Actor,), {})
    with pytest.raises(ValueError, match="unknown judger backend"):
        EMPAEnv("empa30-v1", judger="gpt-magic")
