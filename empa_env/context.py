"""What environments play with, resolved once: :class:`EnvContext`.

An :class:`~empa_env.config.EnvConfig` is data (role and reward specs, the preset, the LLM
options). :meth:`EnvContext.build` resolves it, once, into the objects an
:class:`~empa_env.env.EMPAEnv` plays with: the EPM configuration, the three roles and the reward.
Environments that should share them (every episode of a benchmark run, the copies of a vector
env) are made from one context: ``EMPAEnv([case], context=context)``. Role or reward instances
of your own are given to :meth:`EnvContext.build` (or to ``EMPAEnv``) beside the configuration,
which records them as ``"<Class>"``; :meth:`EnvContext.describe` is what a run's fingerprint holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from empa_env.backends import Roles, describe_role, instance_spec, resolve_reward, resolve_roles
from empa_env.config import EnvConfig
from empa_env.roles.base import Actor, Director, Judger
from epm.config import EPMConfig, get_preset
from epm.rewards import Reward

#: The parts of a context that may be given as instances instead of specs.
INSTANCE_FIELDS: tuple[str, ...] = ("actor", "director", "judger", "reward")


@dataclass(frozen=True)
class EnvContext:
    """The resolved parts of an environment (see the module docstring).

    Attributes:
        config: the configuration (data; instances given to :meth:`build` recorded by class).
        epm: the EPM configuration: the preset with ``max_turns`` and ``epm_overrides`` applied.
        roles: the Actor, Director and Judger.
        reward: the per-turn reward ``r(P_{t-1}, P_t)``.
    """

    config: EnvConfig
    epm: EPMConfig
    roles: Roles
    reward: Reward

    @classmethod
    def build(
        cls,
        config: EnvConfig | None = None,
        *,
        actor: Actor | None = None,
        director: Director | None = None,
        judger: Judger | None = None,
        reward: Reward | str | None = None,
    ) -> EnvContext:
        """Resolve ``config`` (the default configuration when ``None``); a role or the reward
        given here is used as it is, in place of the configuration's spec."""
        config = config or EnvConfig()
        given: dict[str, Any] = {
            name: value
            for name, value in (
                ("actor", actor),
                ("director", director),
                ("judger", judger),
                ("reward", reward),
            )
            if value is not None
        }
        if given:
            config = config.replace(**{k: instance_spec(v) for k, v in given.items()})
        overrides = dict(config.epm_overrides)
        if config.max_turns is not None:
            overrides["max_turns"] = config.max_turns
        preset = get_preset(config.preset)
        epm = preset.with_overrides(**overrides) if overrides else preset
        reward_fn = resolve_reward(
            given.get("reward", config.reward), goal_epsilon=epm.goal_epsilon
        )
        roles = resolve_roles(
            given.get("actor", config.actor),
            given.get("director", config.director),
            given.get("judger", config.judger),
            config.llm_options,
        )
        return cls(config=config, epm=epm, roles=roles, reward=reward_fn)

    def describe(self) -> dict[str, Any]:
        """What defines results of environments made from this context (the run fingerprint):
        the configuration with the preset, the reward and the roles resolved to their
        identities (credentials never included)."""
        out = self.config.plain()
        out.pop("case_pool")
        out["preset"] = self.epm.to_dict()
        out["reward"] = describe_role(self.reward)
        out["roles"] = self.roles.describe()
        for name in ("actor", "director", "judger", "max_turns", "epm_overrides"):
            out.pop(name)
        return out


__all__ = ["INSTANCE_FIELDS", "EnvContext"]
