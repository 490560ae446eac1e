"""Transient provider failures are retried (the preflight call too); fatal ones stop at once."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from email.utils import formatdate

import pytest

from empa_env.cli import main
from empa_env.llm import ClientConfig, LLMCallError, LLMClient
from empa_env.llm.client import retry_after_s
from empa_env.testing.scripted_server import ScriptedLLMServer

from .conftest import MODEL


class _Headers(dict):
    def get(self, key, default=None):  # case-insensitive, as httpx's headers are
        return {k.lower(): v for k, v in self.items()}.get(key.lower(), default)


class _Response:
    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = _Headers(headers)


class _RateLimited(Exception):
    status_code = 429

    def __init__(self, headers: dict[str, str]) -> None:
        super().__init__("slow down")
        self.response = _Response(headers)


def test_retry_after_is_read_in_seconds_and_as_a_date_and_capped():
    assert retry_after_s(_RateLimited({"Retry-After": "2.5"})) == 2.5
    in_ten = retry_after_s(_RateLimited({"retry-after": formatdate(time.time() + 10, usegmt=True)}))
    assert in_ten is not None and 8.0 <= in_ten <= 10.5
    assert retry_after_s(_RateLimited({})) is None
    assert retry_after_s(_RateLimited({"Retry-After": "soon"})) is None
    client = LLMClient(ClientConfig(model=MODEL, backoff_base=0.1, retry_after_cap=3.0))
    assert 0.05 <= client.backoff(0) <= 0.1  # no header: the jittered exponential backoff
    assert client.backoff(0, retry_after=2.0) == 2.0  # the server asked for longer
    assert client.backoff(0, retry_after=600.0) == 3.0  # capped


def _bench(tmp_path, api_base: str, *extra: str) -> int:
    return main(
        ["bench", "--quiet", "--no-report", "--judger", f"llm:{MODEL}", "--api-base", api_base,
         "--llm-timeout", "5", "--max-turns", "12", "--limit", "2", "--seeds", "1",
         "--out", str(tmp_path / "run"), "--policy", "scripted:advice_giver", *extra]
    )  # fmt: skip


def _finished(tmp_path) -> int:
    with sqlite3.connect(tmp_path / "run" / "results.sqlite") as conn:
        return int(conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])


@pytest.mark.slow
def test_a_burst_of_transient_errors_at_the_start_loses_no_episode(tmp_path, capsys):
    """A 503, a connection reset and a 429 with Retry-After on the first three requests (the
    preflight call's): the run goes on and finishes every episode."""
    burst = ["http_503", "drop", "http_429"]
    with ScriptedLLMServer() as server:
        server.retry_after = 0.6
        for kind in burst:
            server.inject(kind, times=1)
        assert _bench(tmp_path, server.api_base) == 0, capsys.readouterr().err
        assert server.pending_faults() == 0
        assert [r.fault for r in server.requests[:4]] == [*burst, None]
        assert _finished(tmp_path) == 2  # every episode
        # the retry after the 429 waited at least what the server asked for
        limited, retried = server.requests[2], server.requests[3]
        assert retried.started - limited.finished >= 0.6 - 0.05


@pytest.mark.parametrize("kind", ["http_500", "http_503", "http_429", "drop", "garbage"])
def test_the_preflight_call_retries_each_transient_failure(kind):
    with ScriptedLLMServer() as server:
        server.inject(kind, times=2)
        client = LLMClient(
            ClientConfig(model=MODEL, api_base=server.api_base, max_retries=3, backoff_base=0.05)
        )
        asyncio.run(client.preflight())
        assert [r.fault for r in server.requests] == [kind, kind, None]
        assert client.ledger.snapshot()["preflight"]["retries"] == 2


@pytest.mark.parametrize(
    ("fault", "kind", "hint"),
    [("http_401", "auth", "API key"), ("http_403", "auth", "API key"),
     ("http_404", "not_found", "model name")],
)  # fmt: skip
def test_a_refused_key_or_an_unknown_model_stops_at_once_with_one_line(
    tmp_path, capsys, fault, kind, hint
):
    with ScriptedLLMServer() as server:
        server.inject(fault, times=1000)
        started = time.monotonic()
        assert _bench(tmp_path, server.api_base) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: the judger role"), err
        assert kind in err[0] and hint in err[0]
        assert len(server.requests) == 1  # no retry
        assert time.monotonic() - started < 30


@pytest.mark.parametrize(
    ("fault", "line"),
    [("http_404", "does not know the model"), ("http_401", "refused the credentials")],
)
def test_without_the_preflight_a_404_stops_the_run_at_once_like_a_refused_key(
    tmp_path, capsys, fault, line
):
    with ScriptedLLMServer() as server:
        server.inject(fault, times=1000)
        code = _bench(tmp_path, server.api_base, "--no-preflight", "--limit", "6")
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1, err
        assert err[0].startswith("error: an LLM") and line in err[0], err
        # at most the first call of each episode in flight, sent before any answer came: after
        # the first refusal nothing asks again (a 404 was 72 calls over these 6 episodes)
        assert len(server.requests) <= 6, len(server.requests)


def test_a_client_asks_again_once_the_key_changes(monkeypatch):
    from empa_env.llm.client import clear_fatal_failures, fatal_failure

    clear_fatal_failures()
    with ScriptedLLMServer() as server:
        server.inject("http_401", times=1)
        monkeypatch.setenv("EMPA_TEST_KEY", "sk-old")
        client = LLMClient(
            ClientConfig(model=MODEL, api_base=server.api_base, api_key_env="EMPA_TEST_KEY")
        )
        messages = [{"role": "user", "content": "hi"}]

        def call() -> object:
            return asyncio.run(client.complete(messages, role="judger", prompt_version="t"))

        for _ in range(2):
            with pytest.raises(LLMCallError, match="auth"):
                call()
        assert len(server.requests) == 1  # refused once: the same key is not sent again
        assert fatal_failure() is not None and "sk-old" not in fatal_failure()
        monkeypatch.setenv("EMPA_TEST_KEY", "sk-new")
        assert call().text and len(server.requests) == 2
    clear_fatal_failures()


def test_a_persistent_server_error_still_stops_the_preflight():
    with ScriptedLLMServer() as server:
        server.inject("http_503", times=1000)
        client = LLMClient(
            ClientConfig(model=MODEL, api_base=server.api_base, max_retries=2, backoff_base=0.05)
        )
        with pytest.raises(LLMCallError) as caught:
            asyncio.run(client.preflight())
        assert caught.value.retryable and caught.value.attempts == 3
        assert "after 3 attempts" in str(caught.value)
        assert len(server.requests) == 3
