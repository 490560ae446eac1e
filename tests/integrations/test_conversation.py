"""The doors' shared core: a Conversation plays env.reset/env.step and reports what they said."""

from __future__ import annotations

import asyncio
import math

import pytest

from empa_env.integrations.conversation import Conversation, json_safe
from empa_env.testing.policies import attuned
from tests.integrations.reference import CASE, ENV_ID, SEED, SHORT, play


def _play_conversation(conversation: Conversation, policy=attuned):
    conversation.open(seed=SEED, case=CASE)
    while not conversation.done:
        conversation.reply(policy(conversation.messages))
    return conversation


def test_a_conversation_gives_what_env_step_gives():
    reference = play()
    conversation = _play_conversation(Conversation.make(ENV_ID, **SHORT))
    assert conversation.messages == reference.messages
    assert conversation.rewards == reference.rewards
    score = conversation.score()
    assert score.epm_index == reference.epm_index
    assert score.idr_sum == sum(reference.rewards)
    assert score.turns == len(reference.rewards) == 3
    assert conversation.last.info == json_safe(reference.last_info)
    assert conversation.status == reference.last_info["status"]


def test_the_async_twins_give_the_same_episode():
    reference = play()
    conversation = Conversation.make(ENV_ID, **SHORT)

    async def run():
        await conversation.aopen(seed=SEED, case=CASE)
        while not conversation.done:
            await conversation.areply(attuned(conversation.messages))

    asyncio.run(run())
    assert conversation.messages == reference.messages
    assert conversation.rewards == reference.rewards
    assert conversation.score().epm_index == reference.epm_index


def test_a_new_episode_starts_with_no_rewards():
    conversation = _play_conversation(Conversation.make(ENV_ID, **SHORT))
    assert conversation.turns == 3
    opened = conversation.open(seed=SEED, case=CASE)
    assert conversation.rewards == [] and not conversation.done
    assert opened.user_message == conversation.messages[0]["content"]
    assert conversation.score().epm_index == 0.0 and not conversation.score().success


def test_reply_refuses_before_the_start_and_after_the_end():
    conversation = Conversation.make(ENV_ID, **SHORT)
    with pytest.raises(RuntimeError, match="has not started"):
        conversation.reply("hello")
    _play_conversation(conversation)
    with pytest.raises(RuntimeError, match="has ended"):
        conversation.reply("hello")


def test_json_safe_turns_undefined_numbers_into_none():
    import numpy as np

    value = {"a": math.nan, "b": [1.0, math.inf, (2, np.float64(0.5))], "c": "x", "d": True}
    assert json_safe(value) == {"a": None, "b": [1.0, None, [2, 0.5]], "c": "x", "d": True}


def test_a_door_without_its_extra_says_which_extra(monkeypatch, capsys):
    import sys

    from empa_env.integrations.openenv import server

    monkeypatch.setitem(sys.modules, "openenv.core.env_server.http_server", None)
    assert server.main(["--env", ENV_ID]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'empa-gym[openenv]'" in err[0]
    monkeypatch.setitem(sys.modules, "verifiers", None)
    monkeypatch.delitem(sys.modules, "empa", raising=False)
    with pytest.raises(ImportError, match=r"pip install 'empa-gym\[verifiers\]'"):
        import empa  # noqa: F401
