"""Building LLM roles from a model string and one options dict (the ``llm`` role backend).

``build_role(kind, model, **options)`` is what the role registries call for ``"llm:MODEL"``; one
``llm_options`` dict serves all three roles: options a role does not take are dropped for that
role, unknown names raise ``TypeError``.
"""

from __future__ import annotations

import inspect
from typing import Any

from empa_env.llm.roles import CLIENT_OPTIONS, LLMActor, LLMDirector, LLMJudger

ROLE_CLASSES: dict[str, type] = {"actor": LLMActor, "director": LLMDirector, "judger": LLMJudger}
_COMMON = {"client", "ledger", "max_repairs"}


def _own_options(cls: type) -> set[str]:
    params = inspect.signature(cls).parameters
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


def llm_actor(model: str, **options: Any) -> LLMActor:
    """``actor="llm:MODEL"``."""
    return build_role("actor", model, **options)  # type: ignore[return-value]


def llm_director(model: str, **options: Any) -> LLMDirector:
    """``director="llm:MODEL"``."""
    return build_role("director", model, **options)  # type: ignore[return-value]


def llm_judger(model: str, **options: Any) -> LLMJudger:
    """``judger="llm:MODEL"``."""
    return build_role("judger", model, **options)  # type: ignore[return-value]
