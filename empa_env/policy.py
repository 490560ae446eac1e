"""The policy contract: chat messages in, reply text out, sync and async; and the policy registry.

``messages`` is the conversation from the policy's point of view, as in
:attr:`empa_env.env.EMPAEnv.messages`: a list of ``{"role": "user"|"assistant", "content": str}``,
the simulated person being ``user``. A plain function ``f(messages) -> str`` (or ``async def``) is a
policy too: wrap it with :class:`FunctionPolicy` or let :func:`load_policy` do it.

Policy specs (``empa bench --policy SPEC``) are resolved through the :data:`policies` registry
(entry-point group ``empa.policies``): ``python:MODULE:FUNCTION`` and ``python:FILE.py:FUNCTION``
are built in here; other packages contribute kinds such as ``scripted:NAME``, ``litellm:MODEL`` and
``hf:PATH`` (see ``baselines``). A ``NAME=`` prefix renames a policy in results:
``--policy mine=python:my_policy.py:reply``.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from empa_env.llm.options import LLMOptions
from empa_env.registry import Registry, RegistryError, load_object, provenance, target_digest
from empa_env.safe_text import check_name
from empa_env.sync import run_sync

#: One chat message, OpenAI-style: ``{"role": "user" | "assistant" | "system", "content": str}``
#: (what policies, trainers and datasets pass around; the roles' own views use
#: :class:`empa_env.roles.views.Message`, a typed utterance).
ChatMessage = dict[str, str]
#: A conversation as a policy sees it.
Messages = list[ChatMessage]


class Policy:
    """A companion policy. Implement :meth:`reply` or :meth:`areply` (the other is derived)."""

    name: str = "policy"

    def reply(self, messages: Messages) -> str:
        return run_sync(self.areply(messages))

    async def areply(self, messages: Messages) -> str:
        return self.reply(messages)

    def __call__(self, messages: Messages) -> str:
        return self.reply(messages)

    def describe(self) -> dict[str, Any]:
        """What identifies this policy in a run's configuration fingerprint."""
        return {"name": self.name, "class": type(self).__name__}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("__abstract_policy__"):
            return
        if cls.reply is Policy.reply and cls.areply is Policy.areply:
            raise TypeError(f"{cls.__name__} must implement reply() or areply()")


class StatelessPolicy(Policy):
    """A policy whose reply depends only on the messages (scripted baselines)."""

    __abstract_policy__ = True


class FunctionPolicy(Policy):
    """Wrap ``fn(messages) -> str`` or ``async fn(messages) -> str``."""

    def __init__(
        self,
        fn: Callable[[Messages], str] | Callable[[Messages], Awaitable[str]],
        name: str | None = None,
        source: str | None = None,
    ):
        self.fn = fn
        self.name = name or str(getattr(fn, "__qualname__", "function"))
        module = getattr(fn, "__module__", "")
        self.source = source or f"{module}:{getattr(fn, '__qualname__', self.name)}"
        self._is_async = inspect.iscoroutinefunction(fn)

    def reply(self, messages: Messages) -> str:
        if self._is_async:
            return run_sync(self.areply(messages))
        result = self.fn(messages)
        return result  # type: ignore[return-value]

    async def areply(self, messages: Messages) -> str:
        if self._is_async:
            return await self.fn(messages)  # type: ignore[misc]
        return self.fn(messages)  # type: ignore[return-value]

    def describe(self) -> dict[str, Any]:
        return {"class": "FunctionPolicy", "function": self.source}


class PolicySpecError(RegistryError):
    """A policy spec that cannot be loaded; the message says what is accepted."""


#: Policy kinds by spec prefix (``python``, and from other packages ``scripted``, ``litellm``, ``hf``).
policies: Registry[Policy] = Registry("policy kind", "empa.policies")


@policies.register("python")
def python_policy(target: str) -> Policy:
    """``MODULE:FUNCTION`` or ``FILE.py:FUNCTION``: a function (sync or async), a :class:`Policy`
    subclass or instance. A changed file or module, or a changed module beside it (the code it
    comes with: :func:`~empa_env.registry.plugin_sources`), is a different policy (its digest is
    in ``describe()``)."""
    try:
        obj = load_object(target)
    except RegistryError as exc:
        raise PolicySpecError(f"python policy {target!r}: {exc}") from None
    if inspect.isclass(obj) and issubclass(obj, Policy):
        return obj()
    if isinstance(obj, Policy):
        return obj
    if callable(obj):
        where, _, attr = target.rpartition(":")
        if where.endswith(".py"):
            where = str(Path(where).resolve())
        digest = target_digest(target)  # the file or module and the code it comes with
        source = f"{where}:{attr}" + (f"@{digest}" if digest else "")
        return FunctionPolicy(obj, name=getattr(obj, "__name__", target), source=source)
    raise PolicySpecError(f"{target} is neither a function nor a Policy")


def describe_policy(policy: Policy) -> dict[str, Any]:
    """What identifies ``policy`` in a run (the store binds its name to this): its
    ``describe()``, and for a policy class or instance given by ``python:`` (file or module) the
    digest of its code (:func:`~empa_env.registry.plugin_sources`), so an edited plug-in is another
    policy (a function's digest is in its ``describe()`` already)."""
    out = dict(policy.describe())
    built = provenance(policy)
    if built is not None and built.source_sha256 and not isinstance(policy, FunctionPolicy):
        out["source_sha256"] = built.source_sha256
    return out


def load_policy(
    spec: str | Policy, *, llm: LLMOptions | Mapping[str, Any] | None = None, **options: Any
) -> Policy:
    """A policy from an instance or a spec string ``[NAME=]KIND:TARGET`` (see the module doc).

    ``llm``: the run's LLM options, handed to a policy kind whose factory declares ``llm`` (an
    LLM policy builds its client from them); ``options`` go to the factory as they are."""
    if isinstance(spec, Policy):
        return spec
    alias = None
    if "=" in spec.split(":", 1)[0]:
        alias, spec = spec.split("=", 1)
    kind, sep, target = spec.partition(":")
    if not sep or not target:
        raise PolicySpecError(
            f"a policy spec is KIND:TARGET (kinds: {', '.join(policies.names())}), got {spec!r}"
        )
    if kind not in policies:
        raise PolicySpecError(
            f"unknown policy kind {kind!r} in {spec!r}; known: {', '.join(policies.names())} "
            "(e.g. scripted:NAME, python:MODULE:FUNCTION, python:FILE.py:FUNCTION, "
            "litellm:MODEL, hf:PATH)"
        )
    try:
        policy = policies.create(f"{kind}:{target}", inject={"llm": LLMOptions.of(llm)}, **options)
    except RegistryError as exc:
        raise PolicySpecError(str(exc)) from None
    if alias is not None:
        policy.name = check_name(alias, "policy name")
    return policy


__all__ = [
    "FunctionPolicy", "Messages", "Policy", "PolicySpecError", "StatelessPolicy", "describe_policy",
    "load_policy",
    "policies", "python_policy",
]  # fmt: skip
