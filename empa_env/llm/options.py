"""The LLM settings of a run: one typed object that every LLM consumer asks for its part.

LLM roles (``"llm:MODEL"``), LLM policies (``litellm:MODEL``) and the NEE panel are configured by
one set of options: the client's (:class:`~empa_env.llm.client.ClientConfig` fields: ``api_base``,
``timeout``, ``cache_path``, ...), the roles' (``max_repairs``, the Director's
``function_calling``, ...) and one shared object, the run's ``ledger``. They are given as a mapping
(``EMPAEnv(llm_options={...})``, ``empa bench --api-base/--llm-option``) and checked once, when
the :class:`LLMOptions` is made: an unknown name or a bad client value raises there, not in
whichever role builds a client first. Consumers never filter the mapping themselves; they ask:

* :meth:`LLMOptions.client_options`: the client's fields (NEE judges, LLM policies);
* :meth:`LLMOptions.role_options`: what one role kind takes (the ``llm`` role backends);
* :meth:`LLMOptions.plain`: what a run's fingerprint records (no credentials, no objects).

A registered factory receives the run's options when it declares a parameter named ``llm``
(:meth:`empa_env.registry.Registry.create`, ``inject``); nothing else is handed them.

This module imports nothing heavy: the LLM layer is imported only to check non-empty options.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from empa_env.secrets import is_secret_option

#: Options that are objects shared at run time, not configuration: never in a fingerprint.
RUNTIME_OPTIONS: frozenset[str] = frozenset({"ledger", "client"})
#: Options every LLM role takes besides the client's (:class:`~empa_env.llm.roles.LLMRole`).
COMMON_ROLE_OPTIONS: frozenset[str] = RUNTIME_OPTIONS | {"max_repairs"}


@dataclass(frozen=True)
class LLMOptions:
    """The run's LLM options, checked (see the module docstring).

    Attributes:
        values: the options as given, by name.
    """

    values: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        values = dict(self.values)
        if values:
            _check(values)
        object.__setattr__(self, "values", values)

    @classmethod
    def of(cls, options: LLMOptions | Mapping[str, Any] | None) -> LLMOptions:
        """``options`` as an :class:`LLMOptions` (a mapping is checked; ``None`` is empty)."""
        if isinstance(options, LLMOptions):
            return options
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(
                f"llm_options must be a mapping of option names to values, got "
                f"{type(options).__name__}"
            )
        return cls(dict(options or {}))

    def __bool__(self) -> bool:
        return bool(self.values)

    def client_options(self) -> dict[str, Any]:
        """The client's options (:class:`~empa_env.llm.client.ClientConfig` fields but
        ``model``): what an NEE judge or an LLM policy builds its client from."""
        if not self.values:
            return {}
        client = _client_options()
        return {k: v for k, v in self.values.items() if k in client}

    def role_options(self, kind: str) -> dict[str, Any]:
        """What the LLM role of ``kind`` (``"actor"``, ``"director"``, ``"judger"``) takes: the
        client's options, the shared ones (``ledger``, ``client``, ``max_repairs``) and its own;
        another role's own options are left out."""
        if not self.values:
            return {}
        others = options_of_other_roles(kind)
        return {k: v for k, v in self.values.items() if k not in others}

    def plain(self) -> dict[str, Any]:
        """The options as a run records them: credentials and run-time objects left out."""
        return {
            k: v
            for k, v in self.values.items()
            if not is_secret_option(k) and k not in RUNTIME_OPTIONS
        }


def role_classes() -> dict[str, type]:
    """The LLM role class of each kind (``"actor"``, ``"director"``, ``"judger"``)."""
    from empa_env.llm.roles import LLMActor, LLMDirector, LLMJudger

    return {"actor": LLMActor, "director": LLMDirector, "judger": LLMJudger}


def _own_options(cls: type) -> set[str]:
    """A role class's own options: its keyword-only parameters."""
    params = inspect.signature(cls).parameters
    return {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY}


def _client_options() -> frozenset[str]:
    from empa_env.llm.roles import CLIENT_OPTIONS

    return CLIENT_OPTIONS


def role_option_names() -> set[str]:
    """Every option name an LLM role of some kind takes."""
    names = set(_client_options()) | COMMON_ROLE_OPTIONS
    for cls in role_classes().values():
        names |= _own_options(cls)
    return names


def options_of_other_roles(kind: str) -> set[str]:
    """The options only other role kinds than ``kind`` take (left out for ``kind``)."""
    classes = role_classes()
    if kind not in classes:
        raise ValueError(f"kind must be one of {sorted(classes)}, got {kind!r}")
    others = set().union(*(_own_options(c) for k, c in classes.items() if k != kind))
    return others - _own_options(classes[kind]) - _client_options() - COMMON_ROLE_OPTIONS


def _check(values: dict[str, Any]) -> None:
    """Unknown names raise ``TypeError``; the client's values are checked by building a client
    configuration from them (``ValueError``/``TypeError`` naming the bad one)."""
    from empa_env.llm.client import ClientConfig

    known = role_option_names()
    unknown = sorted(set(values) - known)
    if unknown:
        raise TypeError(f"unknown LLM option(s) {unknown}; known: {sorted(known)}")
    client = _client_options()
    ClientConfig(model="openai/check", **{k: v for k, v in values.items() if k in client})


__all__ = [
    "COMMON_ROLE_OPTIONS", "RUNTIME_OPTIONS", "LLMOptions", "options_of_other_roles",
    "role_classes", "role_option_names",
]  # fmt: skip
