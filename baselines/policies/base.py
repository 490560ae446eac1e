"""The policy protocol: chat messages in, reply text out, sync and async.

``messages`` is the conversation from the policy's point of view, as in
:attr:`empa_env.env.EMPAEnv.messages`: a list of ``{"role": "user"|"assistant", "content": str}``,
the simulated person being ``user``. A plain function ``f(messages) -> str`` (or ``async def``) is
a policy too: wrap it with :class:`FunctionPolicy` or let :func:`baselines.policies.load_policy` do it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

Messages = list[dict[str, str]]


class Policy:
    """A companion policy. Implement :meth:`reply` or :meth:`areply` (the other is derived)."""

    name: str = "policy"

    def reply(self, messages: Messages) -> str:
        return asyncio.run(self.areply(messages))

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
        self.name = name or getattr(fn, "__qualname__", "function")
        module = getattr(fn, "__module__", "")
        self.source = source or f"{module}:{getattr(fn, '__qualname__', self.name)}"
        self._is_async = inspect.iscoroutinefunction(fn)

    def reply(self, messages: Messages) -> str:
        if self._is_async:
            return asyncio.run(self.fn(messages))  # type: ignore[arg-type]
        return self.fn(messages)  # type: ignore[return-value]

    async def areply(self, messages: Messages) -> str:
        if self._is_async:
            return await self.fn(messages)  # type: ignore[misc]
        return self.fn(messages)  # type: ignore[return-value]

    def describe(self) -> dict[str, Any]:
        return {"class": "FunctionPolicy", "function": self.source}
