"""The scripted server answers a streamed request (``stream: true``) as an OpenAI-compatible
server does: server-sent ``chat.completion.chunk`` events, then ``data: [DONE]``; and it answers
a model under test (no EMPA role) with a plain reply built from the person's last message."""

from __future__ import annotations

import json
import urllib.request

from empa_env.testing.scripted_server import play_policy


def _post(server, body: dict) -> tuple[str, bytes]:
    request = urllib.request.Request(
        f"{server.api_base}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.headers["Content-Type"], response.read()


def _events(raw: bytes) -> list[str]:
    return [line.removeprefix("data: ") for line in raw.decode().split("\n\n") if line]


def test_a_streamed_answer_is_the_plain_answer_in_chunks(server):
    messages = [{"role": "user", "content": "My sister has not called me back in weeks."}]
    _, plain = _post(server, {"model": "scripted", "messages": messages})
    kind, raw = _post(server, {"model": "scripted", "messages": messages, "stream": True})
    assert kind == "text/event-stream"
    events = _events(raw)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    content = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    answer = json.loads(plain)
    assert content == answer["choices"][0]["message"]["content"]
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["usage"] == answer["usage"]


def test_a_streamed_tool_call_keeps_its_arguments(server):
    system = {"role": "system", "content": "You are the EMPA Director."}
    tools = [{"type": "function", "function": {"name": "observe_and_wait", "parameters": {}}}]
    body = {"model": "scripted", "messages": [system], "tools": tools}
    _, plain = _post(server, body)
    _, raw = _post(server, {**body, "stream": True})
    (first, last) = [json.loads(e) for e in _events(raw)[:-1]]
    streamed = first["choices"][0]["delta"]["tool_calls"]
    expected = json.loads(plain)["choices"][0]["message"]["tool_calls"]
    assert [{k: v for k, v in c.items() if k != "index"} for c in streamed] == expected
    assert last["choices"][0]["finish_reason"] == "tool_calls"


def test_a_model_under_test_gets_a_reply_to_the_persons_last_words():
    messages = [
        {"role": "user", "content": "I failed the exam again, the third time this year."},
        {"role": "assistant", "content": "That sounds hard."},
        {"role": "user", "content": "My parents don't even ask anymore."},
    ]
    reply = play_policy(messages)
    assert reply.startswith("You said My parents don't even ask anymore,")
    assert play_policy(messages[:1]) != reply
    assert play_policy([]) == "Hello from the scripted server."
