"""LLM backends through LiteLLM: roles, IEDR, the NEE panel, the case generator, and the one
client layer they share (retries, timeouts, per-model concurrency, SQLite cache, accounting).

A role given as ``"llm:MODEL"`` is built by :func:`llm_actor`, :func:`llm_director` or
:func:`llm_judger` from the run's :class:`~empa_env.llm.options.LLMOptions`::

    gymnasium.make("EMPA-v14", judger="llm:openai/smollm2", director="llm:openai/smollm2",
                   llm_options={"api_base": "http://127.0.0.1:8080/v1", "cache_path": "c.sqlite"})

Options: the client's (``api_base``, ``api_key``, ``api_key_env``, ``timeout``, ``max_retries``,
``backoff_base``, ``backoff_cap``, ``retry_after_cap``, ``max_concurrency`` (per role; default
the run's episode concurrency), ``temperature``, ``max_tokens``, ``seed``,
``cache_path``, ``price_per_mtok``, ``extra_params``, ``max_answer_chars``, ``transport``:
``"auto"`` sends a self-hosted OpenAI-compatible endpoint through the ``openai`` SDK directly,
``"litellm"`` through LiteLLM), ``ledger`` (a shared
:class:`UsageLedger` for the run), ``max_repairs``, and the role's own (e.g. the Director's
``function_calling``). Each role takes its part (another role's own options are left out), so one
set of options serves all three roles; unknown names raise ``TypeError`` when the options are
made (:class:`LLMOptions`). ``build_role(kind, model, **options)`` builds one role directly.

The names below are loaded on first access: :mod:`empa_env.llm.options` is imported by every
environment configuration, and must not pay for LiteLLM and the roles' prompts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from empa_env.lazy import lazy_exports

if TYPE_CHECKING:
    from empa_env.llm.build import (
        ROLE_CLASSES,
        build_role,
        llm_actor,
        llm_director,
        llm_judger,
    )
    from empa_env.llm.cache import ResponseCache, cache_key
    from empa_env.llm.client import (
        ClientConfig,
        Completion,
        LLMCallError,
        LLMClient,
        UsageLedger,
        classify_error,
    )
    from empa_env.llm.options import LLMOptions, role_option_names
    from empa_env.llm.roles import (
        CLIENT_OPTIONS,
        LLMActor,
        LLMDirector,
        LLMJudger,
        RoleFailure,
        failure_kind,
    )

#: Public name -> the module that defines it.
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        ("ROLE_CLASSES", "build_role", "llm_actor", "llm_director", "llm_judger"),
        "empa_env.llm.build",
    ),
    **dict.fromkeys(("ResponseCache", "cache_key"), "empa_env.llm.cache"),
    **dict.fromkeys(
        (
            "ClientConfig",
            "Completion",
            "LLMCallError",
            "LLMClient",
            "UsageLedger",
            "classify_error",
        ),
        "empa_env.llm.client",
    ),
    **dict.fromkeys(("LLMOptions", "role_option_names"), "empa_env.llm.options"),
    **dict.fromkeys(
        ("CLIENT_OPTIONS", "LLMActor", "LLMDirector", "LLMJudger", "RoleFailure", "failure_kind"),
        "empa_env.llm.roles",
    ),
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "CLIENT_OPTIONS", "ROLE_CLASSES", "ClientConfig", "Completion", "LLMActor", "LLMCallError",
    "LLMClient", "LLMDirector", "LLMJudger", "LLMOptions", "ResponseCache", "RoleFailure",
    "UsageLedger", "build_role", "cache_key", "classify_error", "failure_kind", "llm_actor",
    "llm_director", "llm_judger", "role_option_names",
]  # fmt: skip
