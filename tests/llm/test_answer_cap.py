"""An LLM answer larger than ``max_answer_chars`` is a recorded failure: never stored, cached or
parsed (a misbehaving server's 10 MB answers once filled a run store)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from empa_env.llm.client import MAX_ANSWER_CHARS, ClientConfig, LLMCallError, LLMClient
from empa_env.llm.roles import LLMJudger


def _answer(text: str) -> SimpleNamespace:
    message = SimpleNamespace(content=text, tool_calls=None)
    usage = SimpleNamespace(prompt_tokens=10, completion_tokens=len(text) // 4)
    return SimpleNamespace(
        choices=[SimpleNamespace(message=message, finish_reason="stop")], usage=usage, model="m"
    )


def _client(monkeypatch, text: str, tmp_path, **options) -> LLMClient:
    calls = []

    async def fake(self, messages, params, api_key, direct):
        calls.append(1)
        return _answer(text)

    monkeypatch.setattr(LLMClient, "_acompletion", fake)
    config = ClientConfig(
        model="openai/fake", max_retries=2, cache_path=str(tmp_path / "cache.sqlite"), **options
    )
    client = LLMClient(config)
    client.calls = calls  # type: ignore[attr-defined]
    return client


def test_an_oversized_answer_is_a_failure_not_stored(monkeypatch, tmp_path):
    client = _client(monkeypatch, "x" * (MAX_ANSWER_CHARS + 1), tmp_path)
    messages = [{"role": "user", "content": "hi"}]
    with pytest.raises(LLMCallError) as raised:
        asyncio.run(client.complete(messages, role="judger", prompt_version="1"))
    assert raised.value.kind == "oversized" and not raised.value.retryable
    assert client.calls == [1]  # no retry: the same server would send the same
    assert client.ledger.role("judger").as_dict()["errors"] == {"oversized": 1}
    assert client.cache is not None and len(client.cache) == 0


def test_the_cap_can_be_set_and_a_judge_records_the_failure(monkeypatch, tmp_path, judge_view):
    client = _client(monkeypatch, '{"C_Prog_level": 0}' + " " * 600, tmp_path, max_answer_chars=500)
    assert client.config.public()["max_answer_chars"] == 500
    judge = LLMJudger("openai/fake", client=client, max_repairs=0)
    judgement = asyncio.run(judge.ajudge(judge_view))
    assert judgement.failed and "oversized" in str(judgement.error)
    assert judge.failures[0].kind == "provider_oversized"
    assert "max_answer_chars" not in ClientConfig(model="openai/fake").public()
