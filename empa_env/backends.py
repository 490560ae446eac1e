"""Resolve role specifications into role instances.

A role is given as an instance (anything implementing the role interface) or a string:

* ``"offline"``: the embedded rule-based role;
* ``"llm:MODEL"``: an LLM role through LiteLLM, ``MODEL`` a LiteLLM model string
  (``"openai/gpt-4o-mini"``, ``"openai/smollm2"`` with ``api_base`` in ``llm_options``, ...).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from empa_env.offline.actor import OfflineActor
from empa_env.offline.director import OfflineDirector
from empa_env.offline.judger import OfflineJudger
from empa_env.roles.base import Actor, Director, Judger

RoleSpec = str | Actor | Director | Judger

_OFFLINE = {"actor": OfflineActor, "director": OfflineDirector, "judger": OfflineJudger}
_BASES = {"actor": Actor, "director": Director, "judger": Judger}


@dataclass(frozen=True)
class Roles:
    actor: Actor
    director: Director
    judger: Judger

    def describe(self) -> dict[str, dict[str, str]]:
        return {
            "actor": self.actor.describe(),
            "director": self.director.describe(),
            "judger": self.judger.describe(),
        }


def resolve_role(kind: str, spec: RoleSpec, llm_options: dict[str, Any] | None = None) -> Any:
    """One role from its spec; clear errors for anything else."""
    base = _BASES[kind]
    if isinstance(spec, base):
        return spec
    if not isinstance(spec, str):
        raise TypeError(
            f"{kind} must be 'offline', 'llm:MODEL' or a {base.__name__}, got {type(spec).__name__}"
        )
    if spec == "offline":
        return _OFFLINE[kind]()
    if spec.startswith("llm:") and len(spec) > 4:
        llm = importlib.import_module("empa_env.llm")
        return llm.build_role(kind, spec[4:], **(llm_options or {}))
    raise ValueError(
        f"unknown {kind} backend {spec!r}: use 'offline' or 'llm:<litellm model string>'"
    )


def resolve_roles(
    actor: RoleSpec = "offline",
    director: RoleSpec = "offline",
    judger: RoleSpec = "offline",
    llm_options: dict[str, Any] | None = None,
) -> Roles:
    return Roles(
        actor=resolve_role("actor", actor, llm_options),
        director=resolve_role("director", director, llm_options),
        judger=resolve_role("judger", judger, llm_options),
    )
