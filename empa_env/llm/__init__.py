"""LLM backends through LiteLLM: roles, IEDR, the NEE panel, the case generator, and the one
client layer they share (retries, timeouts, per-model concurrency, SQLite cache, accounting).

``build_role(kind, model, **options)`` is what the environment calls for a role given as
``"llm:MODEL"``::

    gymnasium.make("EMPA-v0", judger="llm:openai/smollm2", director="llm:openai/smollm2",
                   llm_options={"api_base": "http://127.0.0.1:8080/v1", "cache_path": "c.sqlite"})

Options: the client's (``api_base``, ``api_key``, ``api_key_env``, ``timeout``, ``max_retries``,
``backoff_base``, ``backoff_cap``, ``max_concurrency``, ``temperature``, ``max_tokens``, ``seed``,
``cache_path``, ``price_per_mtok``, ``extra_params``), ``ledger`` (a shared
:class:`UsageLedger` for the run), ``max_repairs``, and the role's own (e.g. the Director's
``function_calling``). Options a role does not take are ignored for that role, so one
``llm_options`` dict serves all three roles; unknown names raise ``TypeError``.
"""

from __future__ import annotations

import inspect
from typing import Any

from empa_env.llm.cache import ResponseCache, cache_key
from empa_env.llm.client import (
    ClientConfig,
    Completion,
    LLMCallError,
    LLMClient,
    UsageLedger,
    classify_error,
)
from empa_env.llm.roles import (
    CLIENT_OPTIONS,
    LLMActor,
    LLMDirector,
    LLMJudger,
    RoleFailure,
    failure_kind,
)

ROLE_CLASSES: dict[str, type] = {"actor": LLMActor, "director": LLMDirector, "judger": LLMJudger}
_COMMON = {"client", "ledger", "max_repairs"}


def _own_options(cls: type) -> set[str]:
    params = inspect.signature(cls.__init__).parameters
    return {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY}


def role_option_names() -> set[str]:
    """Every option name ``build_role`` accepts (for any kind)."""
    names = set(CLIENT_OPTIONS) | _COMMON
    for cls in ROLE_CLASSES.values():
        names |= _own_options(cls)
    return names


def build_role(kind: str, model: str, **options: Any) -> LLMActor | LLMDirector | LLMJudger:
    """An LLM role for ``kind`` in {"actor", "director", "judger"} playing ``model``."""
    if kind not in ROLE_CLASSES:
        raise ValueError(f"kind must be one of {sorted(ROLE_CLASSES)}, got {kind!r}")
    if not model:
        raise ValueError("model must be a LiteLLM model string, e.g. 'openai/gpt-4o-mini'")
    unknown = set(options) - role_option_names()
    if unknown:
        raise TypeError(
            f"unknown LLM option(s) {sorted(unknown)}; known: {sorted(role_option_names())}"
        )
    cls = ROLE_CLASSES[kind]
    other_roles = set().union(*(_own_options(c) for c in ROLE_CLASSES.values())) - _own_options(cls)
    mine = {k: v for k, v in options.items() if k not in other_roles - CLIENT_OPTIONS - _COMMON}
    return cls(model, **mine)


__all__ = [
    "CLIENT_OPTIONS",
    "ROLE_CLASSES",
    "ClientConfig",
    "Completion",
    "LLMActor",
    "LLMCallError",
    "LLMClient",
    "LLMDirector",
    "LLMJudger",
    "ResponseCache",
    "RoleFailure",
    "UsageLedger",
    "build_role",
    "cache_key",
    "classify_error",
    "failure_kind",
    "role_option_names",
]
