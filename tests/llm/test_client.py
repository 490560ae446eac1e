"""The client layer against a real HTTP server on localhost: retries, classification, timeouts,
the per-model concurrency limit, the cache and the accounting.

The faults run through both transports (the ``openai`` SDK directly, which a self-hosted
endpoint gets by default, and LiteLLM): they must retry, fail and record alike."""

from __future__ import annotations

import asyncio
import json

import pytest

from empa_env.llm.client import ClientConfig, LLMCallError, LLMClient, UsageLedger, classify_error
from empa_env.testing.scripted_server import fault_marker

from .conftest import MODEL

MSGS = [
    {"role": "system", "content": "You are the EMPA Judger."},
    {
        "role": "user",
        "content": "# The assistant's reply to rate (turn 1)\nThat must hurt.\n\nRate only",
    },
]


@pytest.fixture(params=["auto", "litellm"])
def transport(request) -> str:
    """``auto``: this endpoint goes through the openai SDK directly; ``litellm``: LiteLLM."""
    return request.param


def _client(opts, **changes) -> LLMClient:
    options = {"model": MODEL, **opts, **changes}
    return LLMClient(ClientConfig(**options))


def _complete(client: LLMClient, messages=MSGS, **kwargs):
    return asyncio.run(client.complete(messages, role="judger", prompt_version="t@1", **kwargs))


@pytest.mark.parametrize("fault", ["http_500", "http_503", "http_429", "garbage", "drop", "slow"])
def test_transient_faults_are_retried_and_recovered(server, opts, fault, transport):
    # a generous timeout: these faults are not timeouts, and on a loaded machine LiteLLM's first
    # call can take longer than the fast tests' 2 s before its request leaves (an attempt the
    # server never saw, counted as a third: seen once in a clean-clone run on 2 busy cores)
    client = _client(opts, transport=transport, timeout=30.0)
    server.inject(fault, times=1)
    result = _complete(client)
    assert '"A_Prog_level": 1' in result.text
    expected_requests = 1 if fault == "slow" else 2
    assert len(server.requests) == expected_requests
    assert result.attempts == expected_requests
    usage = client.ledger.role("judger")
    assert usage.requests == expected_requests and usage.responses == 1
    assert usage.retries == expected_requests - 1


def test_timeout_is_retried(server, opts, transport):
    client = _client(opts, timeout=0.5, transport=transport)
    server.inject("timeout", times=1)
    result = _complete(client)
    assert result.attempts == 2
    assert client.ledger.role("judger").errors == {"timeout": 1}


@pytest.mark.parametrize("fault,kind", [("http_400", "bad_request"), ("http_401", "auth")])
def test_fatal_errors_are_not_retried(server, opts, fault, kind, transport):
    client = _client(opts, transport=transport)
    server.inject(fault, times=1)
    with pytest.raises(LLMCallError) as info:
        _complete(client)
    assert info.value.kind == kind and not info.value.retryable and info.value.attempts == 1
    assert len(server.requests) == 1


def test_retries_are_bounded(server, opts, transport):
    client = _client(opts, max_retries=2, transport=transport)
    server.inject("http_503", times=5)
    with pytest.raises(LLMCallError) as info:
        _complete(client)
    assert info.value.retryable and info.value.attempts == 3
    assert len(server.requests) == 3
    assert server.pending_faults() == 2  # nothing extra was sent
    assert client.ledger.role("judger").errors == {"server_error": 3}


def test_marker_faults_apply_to_the_named_role_and_count(server, opts):
    client = _client(opts)
    marker = fault_marker("http_500", role="judger", times=2, tag="x1")
    messages = [MSGS[0], {"role": "user", "content": MSGS[1]["content"] + " " + marker}]
    result = _complete(client, messages)
    assert result.attempts == 3
    assert [r.fault for r in server.requests] == ["http_500", "http_500", None]
    _complete(client, messages + [{"role": "user", "content": "again"}])
    assert server.requests[-1].fault is None  # the marker is spent


def test_backoff_is_exponential_and_capped():
    client = LLMClient(ClientConfig(model="m", backoff_base=0.5, backoff_cap=3.0))
    delays = [client.backoff(k) for k in range(8)]
    assert 0.25 <= delays[0] <= 0.5
    assert 1.0 <= delays[2] <= 2.0
    assert all(d <= 3.0 for d in delays) and delays[-1] >= 1.5


def test_concurrency_is_limited_per_model(server, opts):
    server.latency = 0.15
    client = _client(opts, model="openai/limited-model", max_concurrency=2, timeout=5)

    async def many():
        calls = [
            client.complete(
                MSGS + [{"role": "user", "content": str(i)}], role="judger", prompt_version="p"
            )
            for i in range(6)
        ]
        return await asyncio.gather(*calls)

    assert len(asyncio.run(many())) == 6
    spans = [(r.started, r.finished) for r in server.requests]
    peak = max(sum(1 for s, f in spans if s <= t < f) for t, _ in spans)
    assert peak == 2


def test_each_role_has_its_own_limit_sized_from_the_run_concurrency(server, opts):
    """Two roles on one endpoint do not share slots; without max_concurrency the limit is the
    run's episode concurrency (set_default_concurrency, as the runner does)."""
    from empa_env.llm.client import default_concurrency, set_default_concurrency

    server.latency = 0.15
    client = _client(opts, model="openai/role-limited", timeout=5)
    assert client.config.max_concurrency is None

    async def many() -> None:
        set_default_concurrency(3)
        assert client.concurrency_limit() == 3
        calls = [
            client.complete(
                MSGS + [{"role": "user", "content": f"{role} {i}"}], role=role, prompt_version="p"
            )
            for role in ("judger", "actor")
            for i in range(6)
        ]
        await asyncio.gather(*calls)

    asyncio.run(many())
    assert default_concurrency() == 16  # the setting stayed inside that run's context
    spans = [(r.started, r.finished) for r in server.requests]
    peak = max(sum(1 for s, f in spans if s <= t < f) for t, _ in spans)
    assert peak == 6  # 3 per role, both roles at once (one shared limit would give 3)


def test_cache_makes_reruns_free_and_stores_no_key(server, opts, tmp_path):
    path = tmp_path / "cache.sqlite"
    secret = "sk-test-SECRET-0123456789"
    first = _client(opts, cache_path=str(path), api_key=secret)
    a = _complete(first)
    assert not a.cached and len(server.requests) == 1
    again = _client(opts, cache_path=str(path), api_key=secret)
    b = _complete(again)
    assert b.cached and b.text == a.text and len(server.requests) == 1
    assert again.ledger.role("judger").cache_hits == 1 and again.ledger.role("judger").requests == 0
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert secret.encode() not in raw
    assert secret not in repr(again.config) and secret not in str(again.config.public())
    assert secret not in str(again.ledger.snapshot())


def test_provider_error_messages_do_not_leak_the_key(server, opts, transport):
    secret = "sk-test-LEAK-987654321"
    client = _client(opts, api_key=secret, transport=transport)
    server.inject("http_401")
    with pytest.raises(LLMCallError) as info:
        _complete(client)
    assert secret not in str(info.value)


def test_api_key_from_environment(monkeypatch):
    monkeypatch.setenv("EMPA_TEST_KEY", "sk-env")
    assert ClientConfig(model="m", api_key_env="EMPA_TEST_KEY").resolved_api_key() == "sk-env"
    assert ClientConfig(model="m").resolved_api_key() is None


def test_token_accounting_per_role_and_total(server, opts):
    ledger = UsageLedger()
    judge = LLMClient(ClientConfig(model=MODEL, **opts), ledger=ledger)
    asyncio.run(judge.complete(MSGS, role="judger", prompt_version="p"))
    asyncio.run(
        judge.complete(
            MSGS[:1] + [{"role": "user", "content": "hi"}], role="actor", prompt_version="p"
        )
    )
    snap = ledger.snapshot()
    assert snap["judger"]["prompt_tokens"] > 0 and snap["actor"]["completion_tokens"] > 0
    assert (
        snap["total"]["prompt_tokens"]
        == snap["judger"]["prompt_tokens"] + snap["actor"]["prompt_tokens"]
    )
    assert snap["total"]["responses"] == 2
    other = UsageLedger()
    other.merge(ledger)
    other.merge(ledger)
    assert other.snapshot()["total"]["responses"] == 4


def test_price_per_token_when_litellm_has_none(server, opts):
    client = _client(opts, price_per_mtok=(1.0, 2.0))
    result = _complete(client)
    expected = (result.prompt_tokens * 1.0 + result.completion_tokens * 2.0) / 1e6
    assert result.cost_usd == pytest.approx(expected)
    assert client.ledger.role("judger").cost_usd == pytest.approx(expected)


def test_classify_error():
    class RateLimitError(Exception):
        pass

    class Weird(Exception):
        status_code = 502

    class Teapot(Exception):
        status_code = 418

    assert classify_error(TimeoutError()) == ("timeout", True)
    assert classify_error(RateLimitError()) == ("rate_limit", True)
    assert classify_error(Weird()) == ("server_error", True)
    assert classify_error(Teapot()) == ("bad_request", False)
    assert classify_error(ConnectionResetError()) == ("connection", True)
    assert classify_error(ValueError("x")) == ("other", False)


def test_config_validation():
    with pytest.raises(ValueError):
        ClientConfig(model="")
    with pytest.raises(ValueError):
        ClientConfig(model="m", max_concurrency=0)


def test_both_transports_give_the_same_answers_and_records(server, opts):
    """The same requests (JSON answer, tool call, fault) through the openai SDK and through
    LiteLLM: the same Completion fields, the same request bodies, the same ledger."""
    from empa_env.llm.client import direct_transport

    tool = {
        "type": "function",
        "function": {"name": "continue_conversation", "parameters": {"type": "object"}},
    }
    results, bodies, ledgers = {}, {}, {}
    for transport in ("auto", "litellm"):
        server.reset_log()
        client = _client(opts, transport=transport, seed=7)
        assert direct_transport(client.config, client.request_params()) is (transport == "auto")
        marker = fault_marker("http_503", role="judger", times=1, tag=f"same-{transport}")
        answers = [
            _complete(client, response_format={"type": "json_object"}),
            _complete(client, [MSGS[0], {"role": "user", "content": MSGS[1]["content"] + marker}]),
            asyncio.run(
                client.complete(
                    [{"role": "system", "content": "You are the EMPA Director."},
                     {"role": "user", "content": "Decide."}],
                    role="director", prompt_version="t@1", tools=[tool], tool_choice="required",
                )
            ),
        ]  # fmt: skip
        results[transport] = [
            (a.text, a.tool_calls, a.finish_reason, a.prompt_tokens, a.completion_tokens,
             a.cost_usd, a.model, a.attempts)
            for a in answers
        ]  # fmt: skip
        # the whole JSON body, messages included (the fault markers' tags aside)
        bodies[transport] = [
            json.loads(json.dumps(r.body).replace(f"same-{transport}", "same"))
            for r in server.requests
        ]
        snapshot = client.ledger.snapshot()
        for role in snapshot.values():
            role.pop("latency_s")
        ledgers[transport] = snapshot
    assert results["auto"] == results["litellm"]
    assert results["auto"][1][-1] == 2  # the 503 was retried once
    assert results["auto"][2][1] and results["auto"][2][1][0].name  # a tool call came back
    assert bodies["auto"] == bodies["litellm"]
    assert ledgers["auto"] == ledgers["litellm"]


def test_which_requests_go_through_the_openai_sdk_directly():
    from empa_env.llm.client import direct_transport

    local = "http://127.0.0.1:9/v1"
    assert direct_transport(ClientConfig(model="openai/my-local-model", api_base=local))
    assert direct_transport(ClientConfig(model="hosted_vllm/Qwen/Qwen3-8B", api_base=local))
    # no endpoint, another provider, a model LiteLLM prices, a LiteLLM-only parameter, forced
    assert not direct_transport(ClientConfig(model="openai/my-local-model"))
    assert not direct_transport(ClientConfig(model="anthropic/claude-x", api_base=local))
    assert not direct_transport(ClientConfig(model="openai/gpt-4o", api_base=local))
    assert not direct_transport(
        ClientConfig(model="openai/m", api_base=local, extra_params={"drop_params": True})
    )
    assert not direct_transport(
        ClientConfig(model="openai/my-local-model", api_base=local, transport="litellm")
    )
    with pytest.raises(ValueError, match="transport"):
        ClientConfig(model="openai/m", transport="http")


def test_a_run_through_the_direct_transport_never_imports_litellm(server):
    """LiteLLM's import costs seconds per process; the direct path reads its price table only."""
    import subprocess
    import sys

    code = (
        "import asyncio, sys\n"
        "from empa_env.llm.client import ClientConfig, LLMClient\n"
        f"c = LLMClient(ClientConfig(model='openai/scripted', api_base={server.api_base!r}))\n"
        "asyncio.run(c.preflight())\n"
        "a = asyncio.run(c.complete([{'role': 'user', 'content': 'hi'}], role='actor',"
        " prompt_version='p'))\n"
        "assert a.text and 'litellm' not in sys.modules, sorted(sys.modules)\n"
        "c = LLMClient(ClientConfig(model='openai/gpt-4o', api_base='http://127.0.0.1:9/v1'))\n"
        "from empa_env.llm.client import direct_transport\n"
        "assert not direct_transport(c.config) and 'litellm' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_direct_transport_closes_its_connections_with_each_event_loop(server):
    """One HTTP session per event loop: closed when ``asyncio.run`` ends its loop, and with the
    background loop of synchronous calls at exit; nothing reported unclosed."""
    import subprocess
    import sys

    code = (
        "import asyncio\n"
        "from empa_env.llm.client import ClientConfig, LLMClient\n"
        "from empa_env.sync import run_sync\n"
        f"c = LLMClient(ClientConfig(model='openai/scripted', api_base={server.api_base!r}))\n"
        "m = [{'role': 'user', 'content': 'hi'}]\n"
        "for _ in range(3):\n"
        "    assert asyncio.run(c.complete(m, role='actor', prompt_version='p')).text\n"
        "assert run_sync(c.complete(m, role='actor', prompt_version='p')).text\n"
        "import gc; gc.collect()\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "always::ResourceWarning", "-c", code],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "nclosed" not in done.stderr, done.stderr[-2000:]


def test_the_scripted_server_in_its_own_process_shows_and_clears_its_log():
    """What the performance script measures against: the server file run apart (standard
    library only), its request log read over HTTP."""
    from benchmarks.perf.perf_llm_concurrency import ServerProcess

    with ServerProcess(latency=0.0) as server:
        client = LLMClient(ClientConfig(model=MODEL, api_base=server.api_base))
        assert _complete(client).text
        (record,) = server.requests()
        assert record["role"] == "judger" and record["status"] == 200
        assert record["finished"] >= record["started"] and "body" not in record
        server.reset_log()
        assert server.requests() == []
