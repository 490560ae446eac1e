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
with ``@judgers.register("mine")``. A factory that declares a parameter ``llm`` is handed the
run's :class:`~empa_env.llm.options.LLMOptions` (the LLM backends do); a reward factory that
declares ``goal_epsilon`` gets the EPM preset's goal zone (the EPM formulas do). Nothing else is
handed to a factory (:meth:`~empa_env.registry.Registry.create`'s ``inject``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from empa_env.llm.options import LLMOptions
from empa_env.registry import Registry, provenance
from empa_env.roles.base import Actor, Director, Judger
from epm.rewards import FORMULAS, Reward, RewardFunction

RoleSpec = str | Actor | Director | Judger

actors: Registry[Actor] = Registry("actor backend", "empa.actors")
directors: Registry[Director] = Registry("director backend", "empa.directors")
judgers: Registry[Judger] = Registry("judger backend", "empa.judgers")
#: Rewards ``r(P_{t-1}, P_t)``: the EPM formulas (``idr``, ``idr_goal``, ``adr``, ``adr_goal``,
#: ``potential``) and any registered factory returning a :class:`~epm.rewards.Reward`.
rewards: Registry[Reward] = Registry("reward", "empa.rewards")


def _formula(kind: str) -> Any:
    def make(*, goal_epsilon: float = 1.0) -> RewardFunction:
        return RewardFunction(kind=kind, goal_epsilon=goal_epsilon)

    make.__doc__ = f"The EPM reward ``{kind}``, its goal zone the preset's ``epsilon``."
    return make


for _kind in FORMULAS:
    rewards.register(_kind, _formula(_kind))

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


def instance_spec(instance: object) -> str:
    """How a configuration records a role or reward given as an instance: ``"<Class>"``, which
    no registry resolves (:func:`resolve_role` says so)."""
    return f"<{type(instance).__name__}>"


def resolve_role(
    kind: str, spec: RoleSpec, llm_options: LLMOptions | dict[str, Any] | None = None
) -> Any:
    """One role from an instance or a spec string; clear errors for anything else. A factory
    that declares ``llm`` gets the run's LLM options."""
    registry, base = _REGISTRIES[kind]
    if isinstance(spec, base):
        return spec
    if not isinstance(spec, str):
        raise TypeError(
            f"{kind} must be a spec string ({', '.join(registry.names())}, llm:MODEL, "
            f"python:FILE.py:CLASS) or a {base.__name__}, got {type(spec).__name__}"
        )
    if spec.startswith("<"):  # an instance_spec: the instance is not in the configuration
        raise TypeError(
            f"the {kind} {spec} was given as an instance, which a configuration cannot rebuild; "
            f"pass the instance itself ({kind}=...)"
        )
    role = registry.create(spec, inject={"llm": LLMOptions.of(llm_options)})
    if not isinstance(role, base):
        raise TypeError(
            f"{kind} spec {spec!r} built a {type(role).__name__}, not a {base.__name__}"
        )
    return role


def resolve_roles(
    actor: RoleSpec = "offline",
    director: RoleSpec = "offline",
    judger: RoleSpec = "offline",
    llm_options: LLMOptions | dict[str, Any] | None = None,
) -> Roles:
    options = LLMOptions.of(llm_options)
    return Roles(
        actor=resolve_role("actor", actor, options),
        director=resolve_role("director", director, options),
        judger=resolve_role("judger", judger, options),
    )


def resolve_reward(spec: Any, *, goal_epsilon: float = 1.0) -> Reward:
    """A reward from an instance (anything with ``batch`` or ``__call__(p_prev, p_next)``) or a
    registered name; a factory that declares ``goal_epsilon`` gets the preset's goal zone."""
    if not isinstance(spec, str):
        if not callable(spec):
            raise TypeError(f"reward must be a name or a callable, got {type(spec).__name__}")
        return spec
    return rewards.create(spec, inject={"goal_epsilon": goal_epsilon})


__all__ = [
    "RoleSpec", "Roles", "actors", "describe_role", "directors", "instance_spec", "judgers",
    "resolve_reward", "resolve_role", "resolve_roles", "rewards",
]  # fmt: skip
