"""The direct transport: a self-hosted OpenAI-compatible endpoint over plain HTTP.

A self-hosted endpoint (``openai/NAME`` or ``hosted_vllm/NAME`` with an ``api_base``, a model
LiteLLM has no price for) gets the chat completion LiteLLM would send it, without LiteLLM: the
same JSON body (``model``, ``messages`` and the request parameters) POSTed to
``{api_base}/chat/completions`` with the bearer key, and the answer's JSON read as it is. What is
skipped is the per-call work of the layers in between (LiteLLM's logging, pricing and response
conversion, the ``openai`` SDK's typed request building, ``httpx``'s pure-Python HTTP parsing):
most of a call's client CPU, which is what limits a run of many concurrent episodes
(``benchmarks/perf/perf_llm_concurrency.py``). The HTTP client is ``aiohttp`` (LiteLLM's own),
one session per event loop, closed with the loop.

:func:`direct_transport` says which requests qualify; :func:`post_chat` makes one. A failed
request raises what :func:`empa_env.llm.client.classify_error` reads: :class:`EndpointError`
(the HTTP status, the server's message, the response headers for ``Retry-After``), a
``ConnectionError``, a ``TimeoutError``, a ``json.JSONDecodeError`` for an unreadable body or an
:class:`UnreadableAnswerError` for JSON that is no chat completion.
"""

from __future__ import annotations

import asyncio
import json
import threading
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import aiohttp


class TransportConfig(Protocol):
    """What :func:`direct_transport` reads of a client's configuration
    (:class:`empa_env.llm.client.ClientConfig` has it)."""

    @property
    def model(self) -> str: ...
    @property
    def api_base(self) -> str | None: ...
    @property
    def transport(self) -> str: ...
    @property
    def extra_params(self) -> Mapping[str, Any]: ...


#: LiteLLM providers that are plain OpenAI-compatible HTTP when given an ``api_base``, and the
#: environment variable LiteLLM reads their key from.
DIRECT_PROVIDERS: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "hosted_vllm": "HOSTED_VLLM_API_KEY",
}
#: Request parameters the direct transport sends as they are (LiteLLM sends them unchanged to
#: these providers too); a request with any other parameter goes through LiteLLM.
DIRECT_PARAMS: frozenset[str] = frozenset(
    {
        "temperature", "max_tokens", "seed", "top_p", "stop", "n", "presence_penalty",
        "frequency_penalty", "logit_bias", "response_format", "tools", "tool_choice", "user",
        "logprobs", "top_logprobs", "parallel_tool_calls",
    }
)  # fmt: skip
#: Connections kept per event loop (every endpoint together), as the ``openai`` SDK's default.
MAX_CONNECTIONS = 1000
_PRICED: dict[str, bool] = {}


class UnreadableAnswerError(ValueError):
    """A 200 answer that is no chat completion (an HTML error page, an empty ``choices``)."""


class EndpointError(Exception):
    """An answer with an error status: ``status_code``, the server's message and the response
    ``headers`` (a ``Retry-After`` among them)."""

    def __init__(self, status_code: int, message: str, headers: Mapping[str, str]) -> None:
        super().__init__(f"HTTP {status_code}: {message}")
        self.status_code = status_code
        self.headers = headers


def _price_table() -> Mapping[str, Any]:
    """LiteLLM's model price table, without importing LiteLLM when it is not loaded yet.

    The client reads LiteLLM's bundled table (``LITELLM_LOCAL_MODEL_COST_MAP``, which
    ``import_litellm`` sets), so reading that file gives the same table; a run whose every call
    goes through the direct transport then never pays LiteLLM's import (seconds of CPU on a
    busy machine, in every process and Ray worker)."""
    import sys

    loaded = sys.modules.get("litellm")
    if loaded is not None and isinstance(getattr(loaded, "model_cost", None), dict):
        return loaded.model_cost  # type: ignore[no-any-return]
    from importlib.util import find_spec
    from pathlib import Path

    spec = find_spec("litellm")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "model_prices_and_context_window_backup.json"
        try:
            table = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(table, dict):
            return table
    from empa_env.llm.litellm_setup import import_litellm

    return getattr(import_litellm(), "model_cost", {}) or {}


def _priced_by_litellm(model: str) -> bool:
    """Whether LiteLLM has a price (and so maybe parameter rules) for ``model``: such a model
    (``openai/gpt-4o`` through a proxy) stays with LiteLLM, which prices and adapts its calls."""
    if model not in _PRICED:
        table = _price_table()
        name = model.split("/", 1)[1]
        _PRICED[model] = model in table or name in table
    return _PRICED[model]


def direct_transport(cfg: TransportConfig, params: Mapping[str, Any] | None = None) -> bool:
    """Whether a request of ``cfg`` goes to the endpoint directly (:func:`post_chat`).

    Only a self-hosted OpenAI-compatible endpoint qualifies: ``openai/NAME`` or
    ``hosted_vllm/NAME`` with an ``api_base``, a model LiteLLM has no price for (LiteLLM would
    send the request unchanged and price it at 0), no parameter outside :data:`DIRECT_PARAMS`,
    and ``transport="auto"``. The request is the JSON LiteLLM sends, the answer the same chat
    completion, the errors the same statuses.
    """
    if cfg.transport != "auto" or not cfg.api_base or "/" not in cfg.model:
        return False
    if cfg.model.split("/", 1)[0] not in DIRECT_PROVIDERS:
        return False
    if any(
        key not in DIRECT_PARAMS for key in (params if params is not None else cfg.extra_params)
    ):
        return False
    return not _priced_by_litellm(cfg.model)


# --- one HTTP session per event loop ---------------------------------------------------------
@dataclass
class _Held:
    session: aiohttp.ClientSession
    #: Suspended in a ``try``/``finally`` until the loop shuts its async generators down (as
    #: ``asyncio.run`` does, and the background loop at exit): then it closes the session.
    closer: AsyncIterator[None]


_SESSIONS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Held] = weakref.WeakKeyDictionary()
_SESSIONS_LOCK = threading.Lock()


async def _closed_with_the_loop(session: aiohttp.ClientSession) -> AsyncIterator[None]:
    try:
        yield
    finally:
        await session.close()


async def _session() -> aiohttp.ClientSession:
    """The running loop's session (connections are kept alive across calls; a session belongs
    to the loop that opened it)."""
    import aiohttp

    loop = asyncio.get_running_loop()
    with _SESSIONS_LOCK:
        held = _SESSIONS.get(loop)
    if held is not None and not held.session.closed:
        return held.session
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=MAX_CONNECTIONS),
        trust_env=True,  # HTTP(S)_PROXY and NO_PROXY, as the openai SDK and LiteLLM read them
    )
    closer = _closed_with_the_loop(session)
    await closer.__anext__()  # started here: the loop now tracks it
    with _SESSIONS_LOCK:
        _SESSIONS[loop] = _Held(session, closer)
    return session


def _error_message(raw: bytes) -> str:
    """The server's own message of an error answer (OpenAI's ``{"error": {"message"}}``, a
    ``detail``, or the first of the body)."""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw[:300].decode("utf-8", "replace").strip() or "(empty body)"
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        for key in ("error", "detail", "message"):
            if isinstance(data.get(key), str):
                return str(data[key])
    return json.dumps(data)[:300]


async def post_chat(
    api_base: str, api_key: str, body: Mapping[str, Any], timeout: float
) -> dict[str, Any]:
    """``POST {api_base}/chat/completions`` with ``body``; the answer's JSON (a dict with
    ``choices``). ``timeout`` bounds connecting and each read, as the SDK's does (the client's
    wall-clock cap bounds the whole call)."""
    import aiohttp

    session = await _session()
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    headers = {
        "Authorization": f"Bearer {api_key}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }
    limits = aiohttp.ClientTimeout(total=None, sock_connect=timeout, sock_read=timeout)
    try:
        async with session.post(
            f"{api_base.rstrip('/')}/chat/completions",
            data=data,
            headers=headers,
            timeout=limits,
            allow_redirects=False,
        ) as response:
            raw = await response.read()
            status, answer_headers = response.status, response.headers
    except TimeoutError:  # aiohttp's read and connect timeouts are connection errors too
        raise TimeoutError(f"no answer within the {timeout:g} s read timeout") from None
    except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as exc:
        raise ConnectionError(f"{type(exc).__name__}: {exc}") from None
    if not 200 <= status < 300:
        raise EndpointError(status, _error_message(raw), answer_headers)
    answer = json.loads(raw)  # an unreadable body: a JSONDecodeError (transient)
    if not isinstance(answer, dict) or not answer.get("choices"):
        raise UnreadableAnswerError(f"the server's answer is no chat completion: {raw[:200]!r}")
    return answer


__all__ = [
    "DIRECT_PARAMS", "DIRECT_PROVIDERS", "MAX_CONNECTIONS", "EndpointError", "UnreadableAnswerError",
    "direct_transport", "post_chat",
]  # fmt: skip
