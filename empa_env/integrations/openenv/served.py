"""A ``gymnasium.Env`` over an EMPA OpenEnv server: :class:`ServedEMPAEnv`.

Code written for the in-process environment plays a served one unchanged through it, e.g. TRL's
environment path with rollouts on a server machine::

    from empa_env.integrations.conversation import Conversation
    from empa_env.integrations.openenv.served import ServedEMPAEnv
    from empa_env.integrations.trl import EMPAToolEnv

    environment_factory = lambda: EMPAToolEnv(
        conversation=Conversation(ServedEMPAEnv("http://envs:8000"))
    )

Each instance holds one session (a WebSocket) with the server; ``reset``/``step`` return what
``env.reset``/``env.step`` return on the server (``info`` JSON-safe: undefined numbers as
``None``), and ``messages`` is the conversation, as ``EMPAEnv.messages`` is.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from empa_env.integrations.openenv.client import EMPAEnvClient
from empa_env.integrations.openenv.models import EMPAAction, EMPAObservation
from empa_env.spaces import UnicodeText


class ServedEMPAEnv(gym.Env[str, str]):
    """One session with the EMPA server at ``base_url`` as a ``gymnasium.Env``."""

    def __init__(self, base_url: str, **client_options: Any) -> None:
        self.client = EMPAEnvClient(base_url=base_url, **client_options).sync()
        self.client.connect()
        self.observation_space = UnicodeText()
        self.action_space = UnicodeText()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        case = (options or {}).get("case")
        if case is not None and not isinstance(case, str):
            raise TypeError("a served environment takes options={'case': CASE_ID} (a string)")
        kwargs: dict[str, Any] = {"seed": seed} | ({"case": case} if case is not None else {})
        observation = self.client.reset(**kwargs).observation
        return observation.user_message, observation.info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        observation: EMPAObservation = self.client.step(EMPAAction(message=action)).observation
        return (
            observation.user_message,
            float(observation.reward or 0.0),
            observation.terminated,
            observation.truncated,
            observation.info,
        )

    @property
    def messages(self) -> list[dict[str, str]]:
        """The conversation so far (``user`` = the simulated person), from the server's state."""
        return list(self.client.state().messages)

    def close(self) -> None:
        self.client.close()


__all__ = ["ServedEMPAEnv"]
