"""Offline roles refuse a case in a language they cannot play, at reset, naming the LLM way."""

from __future__ import annotations

import pytest

from empa_env.cases.suites import load_suite
from empa_env.env import EMPAEnv


def test_offline_roles_refuse_a_chinese_case_at_reset() -> None:
    case = load_suite("empa30-v1").cases[0].model_copy(update={"language": "zh"})
    env = EMPAEnv([case])
    with pytest.raises(ValueError) as info:
        env.reset(seed=0)
    message = str(info.value)
    assert "the actor 'offline-actor-v1' plays cases in en only" in message
    assert "'zh'" in message and "llm:MODEL" in message
    assert len(message.splitlines()) == 1
    # with an LLM Actor, the offline Judger is the one that refuses (it cannot rate Chinese)
    from empa_env.roles.base import Actor

    class Speaker(Actor):
        name = "speaker"

        def open(self, view):
            return "我最近很累。"

        def respond(self, view):
            return "嗯。"

    env = EMPAEnv([case], actor=Speaker(), director="offline")
    with pytest.raises(ValueError, match="the director 'offline-director-v1' plays cases in en"):
        env.reset(seed=0)


def test_the_offline_actor_refuses_by_itself_too() -> None:
    from empa_env.offline.actor import OfflineActor
    from empa_env.offline.playable import UnsupportedCaseLanguage
    from empa_env.roles.views import ActorPersona, ActorView

    case = load_suite("empa30-v1").cases[0].model_copy(update={"language": "zh"})
    with pytest.raises(
        UnsupportedCaseLanguage, match=r"offline actor plays cases in English \(en\) only"
    ):
        OfflineActor().open(ActorView(ActorPersona.from_case(case), (), None, 0, 0))


def test_english_cases_still_play_offline() -> None:
    env = EMPAEnv([load_suite("empa30-v1").cases[0]])
    opening, info = env.reset(seed=0)
    assert opening and info["turn"] == 0
