"""The contract of every part that calls an LLM (LLM roles, LiteLLM policies, NEE judges): it
holds its :class:`~empa_env.llm.client.LLMClient` as ``client`` (a run preflights each distinct
model and endpoint once) and reports its calls, tokens and cost with ``usage()`` (a run records
them). Offline roles and local policies have neither, and are left out of both."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from empa_env.llm.client import LLMClient


@runtime_checkable
class LLMBacked(Protocol):
    """A role, policy or judge that calls an LLM through ``client``."""

    client: LLMClient

    def usage(self) -> dict[str, Any]:
        """Calls, cache hits, tokens and cost so far (the client's ledger)."""
        ...


__all__ = ["LLMBacked"]
