"""EMPA as an ``openenv.core.Environment``: :class:`EMPAEnvironment`.

The environment plays a :class:`~empa_env.integrations.conversation.Conversation` over
``gymnasium.make(env_id)``; the server calls ``reset_async``/``step_async`` (the environment's
``areset``/``astep``) on its event loop, and ``reset``/``step`` are the synchronous twins for use
in process. ``reset(seed=..., case=...)`` picks the case (an id of the environment's pool; none
draws one with the seed), as ``env.reset(seed=..., options={"case": ...})`` does.
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata

from empa_env.context import EnvContext
from empa_env.integrations.conversation import DEFAULT_ENV_ID, Conversation, Turn
from empa_env.integrations.openenv.models import EMPAAction, EMPAObservation, EMPAState


class EMPAEnvironment(Environment[EMPAAction, EMPAObservation, EMPAState]):
    """One EMPA session for OpenEnv (see the module docstring).

    Args:
        env_id: a registered EMPA id (``EMPA-Bench-v14``: the 30 cases; ``EMPA-v14``: the
            generated training pool).
        context: an :class:`~empa_env.context.EnvContext` shared by every session of a
            server (roles and reward resolved once); else ``env_kwargs`` configure this one
            (``judger=...``, ``max_turns=...``: :class:`~empa_env.config.EnvConfig`'s fields).
        conversation: play this :class:`~empa_env.integrations.conversation.Conversation`
            instead (over an environment you built).
    """

    #: Each session plays its own environment; sessions share only the context's roles.
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(
        self,
        env_id: str = DEFAULT_ENV_ID,
        *,
        context: EnvContext | None = None,
        conversation: Conversation | None = None,
        **env_kwargs: Any,
    ) -> None:
        super().__init__()
        self.env_id = env_id
        kwargs = {"context": context} if context is not None else env_kwargs
        self.conversation = conversation or Conversation.make(env_id, **kwargs)
        self._episode_id: str | None = None

    # --- OpenEnv's interface -----------------------------------------------------------------
    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        case: str | None = None,
        **kwargs: Any,
    ) -> EMPAObservation:
        self._check_reset_options(kwargs)
        self._episode_id = episode_id or str(uuid4())
        return self._observation(self.conversation.open(seed=seed, case=case))

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        case: str | None = None,
        **kwargs: Any,
    ) -> EMPAObservation:
        self._check_reset_options(kwargs)
        self._episode_id = episode_id or str(uuid4())
        return self._observation(await self.conversation.aopen(seed=seed, case=case))

    def step(
        self, action: EMPAAction, timeout_s: float | None = None, **kwargs: Any
    ) -> EMPAObservation:
        return self._observation(self.conversation.reply(self._reply(action)))

    async def step_async(
        self, action: EMPAAction, timeout_s: float | None = None, **kwargs: Any
    ) -> EMPAObservation:
        return self._observation(await self.conversation.areply(self._reply(action)))

    @property
    def state(self) -> EMPAState:
        c = self.conversation
        return EMPAState(
            episode_id=self._episode_id,
            step_count=c.turns,
            env_id=self.env_id,
            case_id=c.case_id,
            status=c.status,
            messages=c.messages,
            rewards=list(c.rewards),
        )

    def get_metadata(self) -> EnvironmentMetadata:
        from empa_env import __version__

        return EnvironmentMetadata(
            name=self.env_id,
            description=(
                "EMPA: empathetic multi-turn conversation with a simulated user. The action is "
                "the reply; the observation the user's message with the judge's levels and "
                "evidence in info; the reward IDR; the last step carries the EPM metrics."
            ),
            version=__version__,
        )

    def close(self) -> None:
        self.conversation.close()

    # --- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _check_reset_options(kwargs: dict[str, Any]) -> None:
        if kwargs:
            raise TypeError(
                f"unknown reset option(s) {sorted(kwargs)}; EMPA's reset takes seed, "
                "episode_id and case"
            )

    @staticmethod
    def _reply(action: EMPAAction | Any) -> str:
        if not isinstance(action, EMPAAction):
            raise TypeError(f"the action is an EMPAAction, got {type(action).__name__}")
        return action.message

    @staticmethod
    def _observation(turn: Turn) -> EMPAObservation:
        return EMPAObservation(
            user_message=turn.user_message,
            turn=int(turn.info.get("turn", 0)),
            terminated=turn.terminated,
            truncated=turn.truncated,
            info=turn.info,
            reward=turn.reward if turn.info.get("turn", 0) else None,
            done=turn.done,
        )


__all__ = ["EMPAEnvironment"]
