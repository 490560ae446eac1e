"""Role backends and rewards by name: the registries the environment resolves its specs with.

A role is given as an instance (anything implementing the role interface) or a spec string looked
up in its registry (:mod:`empa_env.registry`):

* ``"offline"``: the embedded backend (for the Judger, the default offline judge);
* ``"lexicon"`` (Judger only): the transparent phrase-rule judge, kept for speed comparisons;
* ``"llm:MODEL"``: an LLM role through LiteLLM, ``MODEL`` a LiteLLM model string
  (``"openai/gpt-4o-mini"``, ``"openai/smollm2"`` with ``api_base`` in ``llm_options``, ...);
* ``"python:FILE.py:NAME"`` or ``"python:MODULE:NAME"``: a role class of your own, not installed.

Built-in backends are entry points (``empa.judgers``, ``empa.actors``, ``empa.directors``,
``empa.rewards`` in ``pyproject.toml``); another package adds one with one entry point, a script
with ``@judgers.register("mine")``. ``llm_options`` go to backends whose factory takes keyword
options (the LLM ones); the offline backends take none.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from empa_env.registry import Registry, provenance
from empa_env.roles.base import Actor, Director, Judger
from epm.rewards import FORMULAS, RewardFunction

RoleSpec = str | Actor | Director | Judger

actors: Registry[Actor] = Registry("actor backend", "empa.actors")
directors: Registry[Director] = Registry("director backend", "empa.directors")
judgers: Registry[Judger] = Registry("judger backend", "empa.judgers")
#: Rewards ``r(P_{t-1}, P_t)``: the EPM formulas (``idr``, ``idr_goal``, ``adr``, ``adr_goal``,
#: ``potential``) and any registered factory returning a callable with ``batch``.
rewards: Registry[Any] = Registry("reward", "empa.rewards")
for _kind in FORMULAS:
    rewards.register(_kind, lambda _k=_kind, **kw: RewardFunction(kind=_k, **kw))

_REGISTRIES: dict[str, tuple[Registry[Any], type]] = {
    "actor": (actors, Actor),
    "director": (directors, Director),
    "judger": (judgers, Judger),
}


@dataclass(frozen=True)
class Roles:
    actor: Actor
    director: Director
    judger: Judger

    def describe(self) -> dict[str, dict[str, Any]]:
        return {
            "actor": describe_role(self.actor),
            "director": describe_role(self.director),
            "judger": describe_role(self.judger),
        }


def describe_role(role: Any) -> dict[str, Any]:
    """A role's identity for run fingerprints: its own ``describe()`` and how it was built."""
    if hasattr(role, "describe"):
        out = dict(role.describe())
    elif dataclasses.is_dataclass(role) and not isinstance(role, type):
        out = {"class": type(role).__name__, **dataclasses.asdict(role)}
    else:
        out = {"class": type(role).__name__}
    built = provenance(role)
    if built is not None:
        out["spec"] = built.as_dict()
    return out


def _takes_options(factory: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD for p in params)


def resolve_role(kind: str, spec: RoleSpec, llm_options: dict[str, Any] | None = None) -> Any:
    """One role from an instance or a spec string; clear errors for anything else."""
    registry, base = _REGISTRIES[kind]
    if isinstance(spec, base):
        return spec
    if not isinstance(spec, str):
        raise TypeError(
            f"{kind} must be a spec string ({', '.join(registry.names())}, llm:MODEL, "
            f"python:FILE.py:CLASS) or a {base.__name__}, got {type(spec).__name__}"
        )
    name = spec.partition(":")[0]
    options: dict[str, Any] = {}
    if llm_options and name != "python" and _takes_options(registry.get(name)):
        options = dict(llm_options)
    role = registry.create(spec, **options)
    if not isinstance(role, base):
        raise TypeError(
            f"{kind} spec {spec!r} built a {type(role).__name__}, not a {base.__name__}"
        )
    return role


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


def resolve_reward(spec: Any, *, goal_epsilon: float = 1.0) -> Any:
    """A reward from an instance (anything with ``batch`` or ``__call__(p_prev, p_next)``) or a
    registered name; the EPM formulas get the preset's goal-zone ``epsilon``."""
    if not isinstance(spec, str):
        if not callable(spec):
            raise TypeError(f"reward must be a name or a callable, got {type(spec).__name__}")
        return spec
    if spec in FORMULAS:
        return rewards.create(spec, goal_epsilon=goal_epsilon)
    return rewards.create(spec)


__all__ = [
    "RoleSpec", "Roles", "actors", "describe_role", "directors", "judgers", "resolve_reward",
    "resolve_role", "resolve_roles", "rewards",
]  # fmt: skip
