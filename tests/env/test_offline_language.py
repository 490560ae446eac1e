"""Offline roles refuse a case in a language they cannot play, at reset, naming the LLM way."""

from __future__ import annotations

import pytest

from empa_env.cases.suites import load_suite
from empa_env.env import EMPAEnv


def test_offline_actor_refuses_a_chinese_case_at_reset() -> None:
    case = load_suite("empa30-v1").cases[0].model_copy(update={"language": "zh"})
    env = EMPAEnv([case])
    with pytest.raises(RuntimeError) as info:
        env.reset(seed=0)
    message = str(info.value)
    assert "offline actor plays English cases only" in message
    assert "'zh'" in message and "llm:MODEL" in message
    assert len(message.splitlines()) == 1


def test_english_cases_still_play_offline() -> None:
    env = EMPAEnv([load_suite("empa30-v1").cases[0]])
    opening, info = env.reset(seed=0)
    assert opening and info["turn"] == 0
