"""The one client layer every LLM role goes through (LiteLLM model names, LiteLLM ``acompletion``).

Models are named as LiteLLM names them (``openai/gpt-4o``, ``hosted_vllm/NAME``, ...). A
self-hosted OpenAI-compatible endpoint (``openai/NAME`` or ``hosted_vllm/NAME`` with an
``api_base``, a model LiteLLM has no price for) is called over plain HTTP, one session per event
loop (:mod:`empa_env.llm.direct`): the same request and the same retries, timeouts, failure
records and answer cap, at a fraction of LiteLLM's client CPU per call
(``benchmarks/perf/perf_llm_concurrency.py``), which is what limits a run of many concurrent
episodes. ``ClientConfig(transport="litellm")`` forces LiteLLM.

It owns everything about *calling* a model, so roles only build messages and parse answers:

* retries with exponential backoff and a cap (``min(backoff_cap, backoff_base * 2**k)`` with
  jitter, or the server's ``Retry-After`` when it asks for longer, capped at
  ``retry_after_cap``), on every call *and* on the preflight call, a per-call timeout, and a
  concurrency limit per model, endpoint *and role* (shared by every client in the process that
  plays that role against the same model and endpoint), sized by default from the run's episode
  concurrency (:func:`default_concurrency`): an episode has at most one call of a role in flight,
  so the roles never queue behind each other on one shared endpoint;
* provider errors classified as retryable (timeouts, connection errors, 408/409/429, 5xx) or not
  (authentication, bad request, context window, content policy, not found);
* the persistent response cache (:mod:`empa_env.llm.cache`): a hit makes no call at all;
* token and cost accounting per role, collected in a :class:`UsageLedger` for the run.

API keys come only from the caller's options or the environment (``api_key_env``); they are
never part of a cache key, a cached payload, ``describe()`` output, or an error message.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import os
import random
import re
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from empa_env.llm.cache import ResponseCache, cache_key, shared_cache
from empa_env.llm.direct import DIRECT_PROVIDERS, direct_transport, post_chat
from empa_env.llm.litellm_setup import import_litellm
from empa_env.secrets import remember_secret, scrub, secret_values

#: The default cap on one answer's size (characters of text and tool-call arguments); a role's
#: answers are a few thousand characters, a misbehaving server's can be megabytes.
MAX_ANSWER_CHARS = 100_000
#: How :class:`LLMClient` may reach a model (:attr:`ClientConfig.transport`).
TRANSPORTS: tuple[str, ...] = ("auto", "litellm")
#: HTTP statuses worth another try.
RETRYABLE_STATUS: frozenset[int] = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 529})


# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------
class LLMCallError(RuntimeError):
    """A call that did not produce a response: ``kind`` says why, ``retryable`` whether retries
    were (or would have been) attempted, ``attempts`` how many requests were made."""

    def __init__(self, kind: str, message: str, retryable: bool, attempts: int) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.retryable = retryable
        self.attempts = attempts


#: Provider error kinds no retry and no later call fixes, and the line a run stops with: a
#: refused key (401/403, a missing key) and a model or path the endpoint does not know (404).
FATAL_KINDS: Mapping[str, str] = {
    "auth": "an LLM refused the credentials ({where}); check the API key",
    "not_found": "an LLM endpoint does not know the model or the path ({where}); check the model "
    "name and the endpoint (--api-base)",
}
#: The fatal failures of this process by (model, endpoint, key digest), first first: the runner
#: stops at once when it sees one, and no client asks the same model and endpoint with the same
#: key again (the answer would be the same) until :func:`clear_fatal_failures`.
_FATAL: dict[tuple[str, str, str], tuple[str, str]] = {}


def fatal_failure() -> str | None:
    """The line of the first fatal provider error (:data:`FATAL_KINDS`) of this process."""
    first = next(iter(list(_FATAL.values())), None)
    return first[1] if first else None


def clear_fatal_failures() -> None:
    """Forget the fatal failures (a new run; a key or model that was fixed meanwhile)."""
    _FATAL.clear()


def _fatal_slot(cfg: ClientConfig, secret: str | None) -> tuple[str, str, str]:
    key = hashlib.sha256(secret.encode()).hexdigest()[:16] if secret else ""
    return cfg.model, cfg.api_base or "", key


def _note_fatal(cfg: ClientConfig, secret: str | None, kind: str, message: str) -> None:
    if kind in FATAL_KINDS:
        line = FATAL_KINDS[kind].format(where=f"{cfg.model}: {message}")
        _FATAL.setdefault(_fatal_slot(cfg, secret), (kind, line))


#: How OpenAI-compatible servers say that a prompt is too long (a 400).
_CONTEXT_WINDOW = re.compile(
    r"context_length_exceeded|maximum context length|context window|too many tokens", re.I
)


def classify_error(exc: BaseException) -> tuple[str, bool]:
    """``(kind, retryable)`` for an exception raised by a provider call."""
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return "timeout", True
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        status = getattr(getattr(exc, "response", None), "status_code", None)
    by_name = {
        "Timeout": ("timeout", True),
        "APITimeoutError": ("timeout", True),
        "APIConnectionError": ("connection", True),
        "RateLimitError": ("rate_limit", True),
        "ServiceUnavailableError": ("server_error", True),
        "InternalServerError": ("server_error", True),
        "BadGatewayError": ("server_error", True),
        "AuthenticationError": ("auth", False),
        "PermissionDeniedError": ("auth", False),
        "NotFoundError": ("not_found", False),
        "ContextWindowExceededError": ("context_window", False),
        "ContentPolicyViolationError": ("content_policy", False),
        "UnsupportedParamsError": ("bad_request", False),
        "UnprocessableEntityError": ("bad_request", False),
        "BadRequestError": ("bad_request", False),
        "BudgetExceededError": ("budget", False),
        "UnreadableAnswerError": ("server_error", True),
        "APIResponseValidationError": ("server_error", True),
    }
    if name == "BadRequestError" and _CONTEXT_WINDOW.search(str(exc)):
        return "context_window", False  # as LiteLLM maps it
    for klass in type(exc).__mro__:
        if klass.__name__ in by_name:
            return by_name[klass.__name__]
    if isinstance(status, int):
        if status in RETRYABLE_STATUS or status >= 500:
            return "server_error" if status >= 500 else "rate_limit", True
        if status in (401, 403):
            return "auth", False
        if status == 404:
            return "not_found", False
        if status == 400 and _CONTEXT_WINDOW.search(str(exc)):
            return "context_window", False
        return "bad_request", False
    if isinstance(exc, ConnectionError | OSError):
        return "connection", True
    if name == "APIError" or isinstance(exc, json.JSONDecodeError):
        return "server_error", True  # an unreadable body from the server: transient
    return "other", False


def retry_after_s(exc: BaseException) -> float | None:
    """The delay a provider asked for with ``Retry-After`` (429, 503), in seconds, if any.

    Read from the HTTP response that LiteLLM or the OpenAI SDK attached to the exception (its
    ``response.headers``, or LiteLLM's ``litellm_response_headers``); both forms of the header are
    understood: a number of seconds and an HTTP date.
    """
    candidates = [
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
    ]
    for headers in candidates:
        if headers is None:
            continue
        try:
            value = headers.get("retry-after") or headers.get("Retry-After")
        except Exception:  # noqa: BLE001 - a headers object we cannot read is no header
            continue
        if value is None:
            continue
        text = str(value).strip()
        try:
            seconds = float(text)
        except ValueError:
            from email.utils import parsedate_to_datetime

            try:
                when = parsedate_to_datetime(text)
            except (TypeError, ValueError):
                continue
            seconds = when.timestamp() - time.time()
        if seconds == seconds:  # not NaN
            return max(0.0, seconds)
    return None


def _scrub(text: str, secrets: Sequence[str | None]) -> str:
    """An error message without credentials (any key-like environment value or given key)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return scrub(text)[:500]


# --------------------------------------------------------------------------------------------
# accounting
# --------------------------------------------------------------------------------------------
@dataclass
class RoleUsage:
    """What one role cost in a run. ``failures`` are role-level (a judge failure, a Director
    fallback), keyed by reason; ``errors`` are provider errors, keyed by kind."""

    requests: int = 0
    responses: int = 0
    cache_hits: int = 0
    retries: int = 0
    repairs: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)

    def add(self, other: RoleUsage) -> None:
        for name in (
            "requests", "responses", "cache_hits", "retries", "repairs", "prompt_tokens",
            "completion_tokens", "cost_usd", "latency_s",
        ):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in ((self.errors, other.errors), (self.failures, other.failures)):
            for key, count in theirs.items():
                mine[key] = mine.get(key, 0) + count

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cost_usd"] = round(self.cost_usd, 8)
        out["latency_s"] = round(self.latency_s, 4)
        return out


class UsageLedger:
    """Token, cost, cache and failure counts per role for one run (thread- and task-safe)."""

    def __init__(self) -> None:
        self._roles: dict[str, RoleUsage] = {}
        self._lock = threading.Lock()

    def role(self, name: str) -> RoleUsage:
        with self._lock:
            return self._roles.setdefault(name, RoleUsage())

    def add(self, role: str, **fields: float) -> None:
        """Add ``fields`` (e.g. ``requests=1``) to ``role``'s usage."""
        with self._lock:
            usage = self._roles.setdefault(role, RoleUsage())
            for key, value in fields.items():
                setattr(usage, key, getattr(usage, key) + value)

    def count(self, role: str, table: str, key: str) -> None:
        """Count one ``key`` in ``role``'s table ``table`` (``"errors"``, ``"failures"``)."""
        with self._lock:
            usage = self._roles.setdefault(role, RoleUsage())
            counts = getattr(usage, table)
            counts[key] = counts.get(key, 0) + 1

    def record_failure(self, role: str, reason: str) -> None:
        """A role-level failure (e.g. a judge turn recorded as failed), by reason."""
        self.count(role, "failures", reason)

    def record_repair(self, role: str) -> None:
        self.add(role, repairs=1)

    def merge(self, other: UsageLedger) -> None:
        for name, usage in other.snapshot_objects().items():
            with self._lock:
                self._roles.setdefault(name, RoleUsage()).add(usage)

    def snapshot_objects(self) -> dict[str, RoleUsage]:
        with self._lock:
            return {k: RoleUsage(**asdict(v)) for k, v in self._roles.items()}

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """``{role: counts, ..., "total": counts}``, JSON-ready (no credentials, no text)."""
        roles = self.snapshot_objects()
        total = RoleUsage()
        for usage in roles.values():
            total.add(usage)
        out = {name: usage.as_dict() for name, usage in sorted(roles.items())}
        out["total"] = total.as_dict()
        return out


# --------------------------------------------------------------------------------------------
# configuration and results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClientConfig:
    """How to reach one model. ``api_key`` is held only in memory (``repr=False``); prefer
    ``api_key_env``, the name of an environment variable to read it from."""

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    api_key_env: str | None = None
    timeout: float = 60.0
    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    #: The longest ``Retry-After`` a server may impose before a retry (seconds); longer requests
    #: are cut to this, so one provider's long pause cannot stall a run.
    retry_after_cap: float = 30.0
    #: Requests of one role in flight to this model and endpoint at once; ``None``: the run's
    #: episode concurrency (:func:`default_concurrency`, ``empa bench --concurrency``).
    max_concurrency: int | None = None
    temperature: float | None = 0.0
    max_tokens: int | None = 1024
    seed: int | None = None
    cache_path: str | None = None
    #: USD per 1M tokens (input, output) for models LiteLLM has no price for (e.g. local ones).
    price_per_mtok: tuple[float, float] | None = None
    extra_params: Mapping[str, Any] = field(default_factory=dict)
    #: The longest answer taken (text and tool-call arguments, in characters): a longer one is a
    #: recorded failure (kind ``oversized``), never stored or parsed, whatever the server sent.
    max_answer_chars: int = MAX_ANSWER_CHARS
    #: ``"auto"``: a self-hosted OpenAI-compatible endpoint through the ``openai`` SDK directly,
    #: anything else through LiteLLM (:func:`direct_transport`); ``"litellm"``: always LiteLLM.
    #: Either gives the same answers, retries and records; not part of a run's fingerprint.
    transport: str = "auto"

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("model must be a non-empty LiteLLM model name, e.g. 'openai/gpt-4o'")
        if self.timeout <= 0 or self.max_retries < 0:
            raise ValueError("timeout > 0 and max_retries >= 0 are required")
        if self.max_concurrency is not None and self.max_concurrency < 1:
            raise ValueError("max_concurrency must be >= 1 (or None: the run's concurrency)")
        if self.retry_after_cap < 0:
            raise ValueError("retry_after_cap >= 0 is required")
        if self.max_answer_chars < 1:
            raise ValueError("max_answer_chars must be >= 1")
        if self.transport not in TRANSPORTS:
            raise ValueError(
                f"transport must be one of {', '.join(TRANSPORTS)}, got {self.transport!r}"
            )

    def resolved_api_key(self) -> str | None:
        if self.api_key:
            return self.api_key
        if self.api_key_env:
            return os.environ.get(self.api_key_env) or None
        return None

    def public(self) -> dict[str, Any]:
        """The configuration as recorded with results: no key, no endpoint credentials."""
        return {
            "model": self.model,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "max_concurrency": self.max_concurrency,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "local_endpoint": bool(self.api_base),
            # only when changed, so that runs with the default keep their fingerprint
            **(
                {"max_answer_chars": self.max_answer_chars}
                if self.max_answer_chars != MAX_ANSWER_CHARS
                else {}
            ),
        }


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str


@dataclass(frozen=True)
class Completion:
    """One model answer. ``cached`` answers cost nothing and made no request."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    model: str = ""
    cached: bool = False
    attempts: int = 0
    latency_s: float = 0.0

    def payload(self) -> dict[str, Any]:
        """What the cache stores (answer and usage only)."""
        return {
            "text": self.text,
            "tool_calls": [asdict(t) for t in self.tool_calls],
            "finish_reason": self.finish_reason,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            "model": self.model,
        }

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> Completion:
        return cls(
            text=str(data.get("text") or ""),
            tool_calls=tuple(ToolCall(**t) for t in data.get("tool_calls") or ()),
            finish_reason=data.get("finish_reason"),
            prompt_tokens=int(data.get("prompt_tokens") or 0),
            completion_tokens=int(data.get("completion_tokens") or 0),
            cost_usd=float(data.get("cost_usd") or 0.0),
            model=str(data.get("model") or ""),
            cached=True,
        )


# --------------------------------------------------------------------------------------------
# per-model concurrency, per event loop (asyncio primitives belong to one loop)
# --------------------------------------------------------------------------------------------
_LIMITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)
_LIMITS_LOCK = threading.Lock()


#: Requests of one role in flight at once when a client sets no ``max_concurrency``: the
#: runner sets it to its episode concurrency for the duration of a run.
DEFAULT_CONCURRENCY = 16
_CONCURRENCY: contextvars.ContextVar[int] = contextvars.ContextVar(
    "empa_llm_concurrency", default=DEFAULT_CONCURRENCY
)


def default_concurrency() -> int:
    """The per-role limit of clients without their own ``max_concurrency`` (in this context)."""
    return _CONCURRENCY.get()


def set_default_concurrency(limit: int) -> contextvars.Token[int]:
    """Size the per-role limits from the episodes in flight (``empa bench --concurrency``);
    returns the token to restore the previous value with ``_CONCURRENCY.reset``."""
    if limit < 1:
        raise ValueError(f"concurrency must be >= 1, got {limit}")
    return _CONCURRENCY.set(int(limit))


def model_semaphore(key: str, limit: int) -> asyncio.Semaphore:
    """The semaphore limiting concurrent requests to ``key`` in the running loop.

    Clients with the same model, endpoint and limit share one semaphore; a client configured with
    a different limit gets its own, so one small default never throttles a larger setting.
    """
    loop = asyncio.get_running_loop()
    slot = f"{key}#{limit}"
    with _LIMITS_LOCK:
        table = _LIMITS.setdefault(loop, {})
        if slot not in table:
            table[slot] = asyncio.Semaphore(limit)
        return table[slot]


_WARM = threading.Event()


def _mark_warm() -> None:
    _WARM.set()


#: Extra wall-clock allowance of a process's first call: LiteLLM imports a large part of its
#: provider code lazily during that call, which can take seconds on a busy machine.
FIRST_CALL_ALLOWANCE_S = 15.0


def _outer_timeout(cfg: ClientConfig) -> float:
    """A hard wall-clock cap over LiteLLM's own (per-operation) timeout, on every call.

    LiteLLM's ``timeout`` bounds each read, so a server that trickles one byte at a time never
    trips it; this cap does, from the first call on.
    """
    return cfg.timeout + (1.0 if _WARM.is_set() else FIRST_CALL_ALLOWANCE_S)


def _provider_key_in_environment(model: str) -> bool:
    """Whether the provider of ``model`` (``openai/...`` -> ``OPENAI_API_KEY``) has a key set."""
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    return bool(os.environ.get(f"{provider.upper().replace('-', '_')}_API_KEY"))


async def _capped(coro: Any, cap: float) -> Any:
    """``await coro``, but give up after ``cap`` seconds of wall clock (``TimeoutError``).

    Unlike ``asyncio.wait_for``, it does not wait for the abandoned call to finish cancelling:
    an HTTP read stuck on a trickling server may take as long to unwind as the trickle lasts.
    """
    task = asyncio.ensure_future(coro)
    done, _ = await asyncio.wait({task}, timeout=cap)
    if task in done:
        return task.result()
    task.cancel()
    task.add_done_callback(lambda t: t.cancelled() or t.exception())  # never "never retrieved"
    raise TimeoutError(f"no answer within {cap:.1f} s")


# --------------------------------------------------------------------------------------------
# the direct transport (empa_env.llm.direct): a self-hosted endpoint over plain HTTP
# --------------------------------------------------------------------------------------------
async def _direct_completion(
    cfg: ClientConfig, messages: list[dict[str, Any]], params: dict[str, Any], api_key: str | None
) -> dict[str, Any]:
    """One chat completion from ``cfg.api_base`` over plain HTTP (no retry).

    The key is the caller's, else the provider's environment variable (as LiteLLM reads it),
    else a placeholder that is no credential (a local server needs *some* bearer token)."""
    provider, name = cfg.model.split("/", 1)
    key = api_key or os.environ.get(DIRECT_PROVIDERS[provider]) or "no-key"
    body = {"model": name, "messages": messages, **params}
    return await post_chat(str(cfg.api_base), key, body, cfg.timeout)


def _field(answer: Any, name: str) -> Any:
    """Field ``name`` of a part of an answer: a key of the direct transport's JSON, an attribute
    of LiteLLM's objects (``None`` when absent, and for an absent part)."""
    return answer.get(name) if isinstance(answer, dict) else getattr(answer, name, None)


def answer_chars(completion: Completion) -> int:
    """The size of an answer as :attr:`ClientConfig.max_answer_chars` counts it."""
    return len(completion.text) + sum(len(c.name) + len(c.arguments) for c in completion.tool_calls)


# --------------------------------------------------------------------------------------------
# the client
# --------------------------------------------------------------------------------------------
class LLMClient:
    """Calls one model through LiteLLM with retries, a timeout, a concurrency limit and a cache."""

    def __init__(
        self,
        config: ClientConfig,
        ledger: UsageLedger | None = None,
        cache: ResponseCache | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.config = config
        self.ledger = ledger if ledger is not None else UsageLedger()
        if cache is None and config.cache_path:
            cache = shared_cache(config.cache_path)
        self.cache = cache
        self._rng = rng or random.Random(0)

    @property
    def limit_key(self) -> str:
        return f"{self.config.model}@{self.config.api_base or 'provider'}"

    def concurrency_limit(self) -> int:
        """Requests of one role in flight at once (the client's own limit, or the run's)."""
        return self.config.max_concurrency or default_concurrency()

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Delay before retry ``attempt`` (0-based): capped exponential, jittered in [0.5, 1]x;
        at least the server's ``Retry-After`` (``retry_after``), itself capped at
        ``retry_after_cap``."""
        cfg = self.config
        delay = min(cfg.backoff_cap, cfg.backoff_base * (2**attempt)) * (
            0.5 + 0.5 * self._rng.random()
        )
        if retry_after is not None:
            delay = max(delay, min(retry_after, cfg.retry_after_cap))
        return delay

    def request_params(
        self,
        response_format: Mapping[str, Any] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: Any = None,
        overrides: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The request's model parameters (part of the cache key; never credentials)."""
        cfg = self.config
        params: dict[str, Any] = {}
        if cfg.temperature is not None:
            params["temperature"] = cfg.temperature
        if cfg.max_tokens is not None:
            params["max_tokens"] = cfg.max_tokens
        if cfg.seed is not None:
            params["seed"] = cfg.seed
        params.update(cfg.extra_params)
        if response_format is not None:
            params["response_format"] = dict(response_format)
        if tools:
            params["tools"] = [dict(t) for t in tools]
            if tool_choice is not None:
                params["tool_choice"] = tool_choice
        if overrides:
            params.update(overrides)
        return params

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        role: str,
        prompt_version: str,
        response_format: Mapping[str, Any] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: Any = None,
        overrides: Mapping[str, Any] | None = None,
        use_cache: bool = True,
        cache_if: Callable[[Completion], bool] | None = None,
    ) -> Completion:
        """One answer for ``messages``; raises :class:`LLMCallError` when none could be had.

        ``cache_if`` decides whether a fresh answer may be cached (a malformed or refused answer
        is not: a rerun asks again instead of replaying the same broken answer)."""
        cfg = self.config
        request = [dict(m) for m in messages]  # the request's own (sent, hashed, never changed)
        params = self.request_params(response_format, tools, tool_choice, overrides)
        key = None if self.cache is None else cache_key(cfg.model, request, params, prompt_version)
        if use_cache and self.cache is not None and key is not None:
            hit = self.cache.get(key)
            cached = Completion.from_payload(hit) if hit is not None else None
            if cached is not None and answer_chars(cached) <= cfg.max_answer_chars:
                self.ledger.add(role, cache_hits=1)
                return cached

        completion = await self._call_with_retries(request, params, role)
        if (
            self.cache is not None
            and key is not None
            and (cache_if is None or cache_if(completion))
        ):
            self.cache.put(key, completion.payload(), cfg.model, prompt_version)
        return completion

    async def preflight(self, role: str = "preflight") -> None:
        """One short, uncached call: does the model answer at all (key, network, server)?

        Transient failures (timeouts, connection resets, 429, 5xx) are retried like any call,
        with backoff and ``Retry-After`` (a provider's passing hiccup must not stop a run); a
        refused key, an unknown model or a bad request raises :class:`LLMCallError` at once, and
        so does a failure that outlasts ``max_retries``."""
        cfg = self.config
        params = {"max_tokens": 4, "temperature": 0.0}
        messages = [{"role": "user", "content": "Reply with the word OK."}]
        secret = cfg.resolved_api_key()
        remember_secret(secret)
        direct = direct_transport(cfg, params)
        if not direct:
            import_litellm()
        kind, message, wait_hint = "other", "", None
        for attempt in range(cfg.max_retries + 1):
            if attempt:
                self.ledger.add(role, retries=1)
                await asyncio.sleep(self.backoff(attempt - 1, wait_hint))
            try:
                call = self._acompletion(messages, params, secret, direct)
                await _capped(call, _outer_timeout(cfg))
            except TimeoutError:
                kind, wait_hint = "timeout", None
                message = f"{cfg.model} gave no answer within {_outer_timeout(cfg):.0f} s"
                continue
            except Exception as exc:  # noqa: BLE001 - classified and reported in one line
                _mark_warm()
                kind, retryable = classify_error(exc)
                message = _scrub(f"{type(exc).__name__}: {exc}", [secret])
                _note_fatal(cfg, secret, kind, message)
                if not retryable:
                    raise LLMCallError(kind, message, False, attempt + 1) from None
                wait_hint = retry_after_s(exc)
                continue
            _mark_warm()
            return
        attempts = cfg.max_retries + 1
        raise LLMCallError(
            kind,
            f"{message} (the same after {attempts} attempt{'s' if attempts > 1 else ''})",
            True,
            attempts,
        )

    async def _call_with_retries(
        self, messages: list[dict[str, Any]], params: dict[str, Any], role: str
    ) -> Completion:
        cfg = self.config
        secret = cfg.resolved_api_key()
        remember_secret(secret)
        fatal = _FATAL.get(_fatal_slot(cfg, secret)) if _FATAL else None
        if fatal is not None:  # refused before, with the same key: not asked again
            self.ledger.count(role, "errors", fatal[0])
            raise LLMCallError(fatal[0], f"not called: {fatal[1]}", False, 0)
        semaphore = model_semaphore(f"{self.limit_key}/{role}", self.concurrency_limit())
        direct = direct_transport(cfg, params)
        if not direct:
            import_litellm()  # import before any timer starts: the first import takes seconds
        last_kind, last_message = "other", ""
        wait_hint: float | None = None  # the server's Retry-After on the last failure
        for attempt in range(cfg.max_retries + 1):
            if attempt:
                self.ledger.add(role, retries=1)
                await asyncio.sleep(self.backoff(attempt - 1, wait_hint))
                wait_hint = None
            async with semaphore:
                start = time.perf_counter()
                self.ledger.add(role, requests=1)
                try:
                    response = await _capped(
                        self._acompletion(messages, params, secret, direct), _outer_timeout(cfg)
                    )
                except asyncio.CancelledError:
                    raise
                except TimeoutError:
                    last_kind, retryable = "timeout", True
                    last_message = (
                        f"no complete answer within the {_outer_timeout(cfg):.0f} s wall-clock cap"
                    )
                    self.ledger.count(role, "errors", last_kind)
                    continue
                except Exception as exc:  # noqa: BLE001 - every provider error is classified
                    _mark_warm()
                    last_kind, retryable = classify_error(exc)
                    last_message = _scrub(f"{type(exc).__name__}: {exc}", [secret])
                    self.ledger.count(role, "errors", last_kind)
                    _note_fatal(cfg, secret, last_kind, last_message)
                    if not retryable:
                        raise LLMCallError(last_kind, last_message, False, attempt + 1) from None
                    wait_hint = retry_after_s(exc)
                    continue
                latency = time.perf_counter() - start
                _mark_warm()
            completion = self._to_completion(response, attempt + 1, latency)
            self.ledger.add(
                role,
                responses=1,
                prompt_tokens=completion.prompt_tokens,
                completion_tokens=completion.completion_tokens,
                cost_usd=completion.cost_usd,
                latency_s=latency,
            )
            size = answer_chars(completion)
            if size > cfg.max_answer_chars:  # never stored, cached or parsed
                self.ledger.count(role, "errors", "oversized")
                raise LLMCallError(
                    "oversized",
                    f"the answer has {size} characters, more than max_answer_chars "
                    f"({cfg.max_answer_chars}); not used",
                    False,
                    attempt + 1,
                )
            return completion
        raise LLMCallError(
            last_kind,
            f"gave up after {cfg.max_retries + 1} attempts; last error {last_message}",
            True,
            cfg.max_retries + 1,
        )

    async def _acompletion(
        self,
        messages: list[dict[str, Any]],
        params: dict[str, Any],
        api_key: str | None,
        direct: bool,
    ) -> Any:
        """One request, no retry: straight to a self-hosted OpenAI-compatible endpoint when
        ``direct`` (:func:`direct_transport`), through LiteLLM otherwise."""
        cfg = self.config
        if direct:
            return await _direct_completion(cfg, messages, params, api_key)
        kwargs: dict[str, Any] = dict(params)
        if cfg.api_base:
            kwargs["api_base"] = cfg.api_base
        if api_key:
            kwargs["api_key"] = api_key
        elif cfg.api_base and not _provider_key_in_environment(cfg.model):
            # A local OpenAI-compatible server needs *some* key in the header; this one is not a
            # credential and exists only for the request. When the provider's variable is set
            # (a proxy, a hosted endpoint), LiteLLM reads the real key from it instead.
            kwargs["api_key"] = "no-key"
        return await import_litellm().acompletion(
            model=cfg.model, messages=messages, timeout=cfg.timeout, num_retries=0, **kwargs
        )

    def _to_completion(self, response: Any, attempts: int, latency: float) -> Completion:
        """The :class:`Completion` of an answer: the direct transport's JSON (a dict) or
        LiteLLM's response object, read field by field alike (:func:`_field`)."""
        choice = _field(response, "choices")[0]
        message = _field(choice, "message")
        calls = []
        for call in _field(message, "tool_calls") or ():
            function = _field(call, "function")
            name = _field(function, "name")
            if not name:
                continue
            args = _field(function, "arguments")
            calls.append(ToolCall(str(name), args if isinstance(args, str) else json.dumps(args)))
        usage = _field(response, "usage")
        prompt_tokens = int(_field(usage, "prompt_tokens") or 0)
        completion_tokens = int(_field(usage, "completion_tokens") or 0)
        secrets = secret_values()  # once per answer, not once per text
        return Completion(
            text=scrub(str(_field(message, "content") or ""), known=secrets),
            tool_calls=tuple(ToolCall(c.name, scrub(c.arguments, known=secrets)) for c in calls),
            finish_reason=_field(choice, "finish_reason"),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=self._cost(response, prompt_tokens, completion_tokens),
            model=str(_field(response, "model") or self.config.model),
            attempts=attempts,
            latency_s=latency,
        )

    def _cost(self, response: Any, prompt_tokens: int, completion_tokens: int) -> float:
        price = self.config.price_per_mtok
        if price is not None:
            return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1e6
        # LiteLLM prices every response it can while logging it; reuse that figure rather than
        # pricing the response a second time (models without a known price cost 0).
        hidden = getattr(response, "_hidden_params", None) or {}
        cost = hidden.get("response_cost") if isinstance(hidden, dict) else None
        return float(cost) if isinstance(cost, int | float) and cost == cost else 0.0
