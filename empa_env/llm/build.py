"""Building LLM roles from a model string and one options dict (the ``llm`` role backend).

``build_role(kind, model, **options)`` builds one; the role registries' ``"llm:MODEL"`` entries
(:func:`llm_actor`, :func:`llm_director`, :func:`llm_judger`) are handed the run's
:class:`~empa_env.llm.options.LLMOptions` as ``llm`` and take their part of it
(:meth:`~empa_env.llm.options.LLMOptions.role_options`): one set of options serves all three
roles; unknown names raise ``TypeError``.
"""

from __future__ import annotations

from typing import Any

from empa_env.llm.options import LLMOptions, role_classes, role_option_names
from empa_env.llm.roles import LLMActor, LLMDirector, LLMJudger

ROLE_CLASSES: dict[str, type] = role_classes()


def build_role(kind: str, model: str, **options: Any) -> LLMActor | LLMDirector | LLMJudger:
    """An LLM role for ``kind`` in {"actor", "director", "judger"} playing ``model``; unknown
    option names raise ``TypeError``, another role's own options are left out."""
    return _role(kind, model, LLMOptions(options))


def _role(kind: str, model: str, llm: LLMOptions) -> Any:
    """The role of ``kind`` playing ``model`` with its part of ``llm`` (checked already)."""
    if kind not in ROLE_CLASSES:
        raise ValueError(f"kind must be one of {sorted(ROLE_CLASSES)}, got {kind!r}")
    if not model:
        raise ValueError("model must be a LiteLLM model string, e.g. 'openai/gpt-4o-mini'")
    return ROLE_CLASSES[kind](model, **llm.role_options(kind))


def llm_actor(model: str, *, llm: LLMOptions | None = None) -> LLMActor:
    """``actor="llm:MODEL"``, with the run's LLM options."""
    return _role("actor", model, llm or LLMOptions())


def llm_director(model: str, *, llm: LLMOptions | None = None) -> LLMDirector:
    """``director="llm:MODEL"``, with the run's LLM options."""
    return _role("director", model, llm or LLMOptions())


def llm_judger(model: str, *, llm: LLMOptions | None = None) -> LLMJudger:
    """``judger="llm:MODEL"``, with the run's LLM options."""
    return _role("judger", model, llm or LLMOptions())


__all__ = [
    "ROLE_CLASSES", "build_role", "llm_actor", "llm_director", "llm_judger", "role_option_names",
]  # fmt: skip
