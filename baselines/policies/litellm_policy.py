"""A policy played by any model LiteLLM reaches (hosted providers or a local OpenAI-compatible
server), through the project's one client layer (retries, timeout, concurrency, SQLite cache,
token and cost accounting)."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from empa_env.llm.client import ClientConfig, LLMClient
from empa_env.llm.options import LLMOptions
from empa_env.policy import Messages, Policy


@lru_cache(maxsize=1)
def companion_prompt() -> tuple[str, str]:
    """``(version, system prompt)`` of our companion role."""
    data = yaml.safe_load(
        resources.files("baselines.policies").joinpath("prompts/companion.yaml").read_text("utf-8")
    )
    return str(data["version"]), str(data["system"])


class LiteLLMPolicy(Policy):
    """``litellm:MODEL``. Its client is configured by the run's LLM options (``llm``: their client
    part, :meth:`~empa_env.llm.options.LLMOptions.client_options`), then by ``options``, which are
    :class:`~empa_env.llm.client.ClientConfig` fields (``api_base``, ``api_key_env``, ``timeout``,
    ``max_retries``, ``temperature``, ``cache_path``...) and win over the run's."""

    def __init__(
        self,
        model: str,
        *,
        system_prompt: str | None = None,
        llm: LLMOptions | None = None,
        **options: Any,
    ) -> None:
        version, default_system = companion_prompt()
        self.system_prompt = system_prompt if system_prompt is not None else default_system
        self.prompt_version = (
            version
            if system_prompt is None
            else "custom-" + hashlib.sha256(system_prompt.encode("utf-8")).hexdigest()[:16]
        )
        unknown = sorted(set(options) - (set(ClientConfig.__dataclass_fields__) - {"model"}))
        if unknown:
            raise TypeError(f"LiteLLMPolicy: unknown client option(s) {unknown}")
        config = {**(llm.client_options() if llm else {}), **options}
        config.setdefault("temperature", 0.7)
        config.setdefault("max_tokens", 300)
        self.client = LLMClient(ClientConfig(model=model, **config))
        self.name = model

    async def areply(self, messages: Messages) -> str:
        chat = [{"role": "system", "content": self.system_prompt}, *messages]
        completion = await self.client.complete(
            chat, role="policy", prompt_version=self.prompt_version
        )
        return completion.text.strip()

    def usage(self) -> dict[str, Any]:
        return self.client.ledger.snapshot()

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "class": "LiteLLMPolicy",
            "prompt_version": self.prompt_version,
            "client": self.client.config.public(),
        }
