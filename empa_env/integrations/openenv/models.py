"""EMPA's OpenEnv types: the action, the observation and the state (pydantic models)."""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field


class EMPAAction(Action):
    """The policy's turn: its reply to the person."""

    message: str = Field(..., description="The reply said to the person")


class EMPAObservation(Observation):
    """What the environment says back, at ``reset`` (the opening) and after every ``step``.

    ``reward`` is the step's reward (IDR by default; ``None`` at reset) and ``done`` whether the
    episode has ended. ``info`` is the step's :class:`~empa_env.info.StepInfo` made JSON-safe
    (undefined numbers as ``None``): the judge's levels and quoted evidence, ``P_t``, the
    Director's call, the status, and on the last step ``info["epm"]``, the EPM metrics
    (``EPM_Index``, ``success``, ...)."""

    user_message: str = Field("", description="The person's latest message")
    turn: int = Field(0, description="0 at reset, then the number of the reply just judged")
    terminated: bool = Field(False, description="The episode ended (success, failure, ...)")
    truncated: bool = Field(False, description="The episode was cut short (turn limit, ...)")
    info: dict[str, Any] = Field(default_factory=dict, description="The step's info")

    @property
    def epm(self) -> dict[str, Any]:
        """The EPM metrics of the finished episode; ``{}`` until the last step."""
        return dict(self.info.get("epm") or {})

    @property
    def levels(self) -> dict[str, int]:
        """The judge's levels for the reply (``C_Prog`` ... ``P_Neg``)."""
        return dict(self.info.get("levels") or {})

    @property
    def evidence(self) -> dict[str, str]:
        """The quote of the reply behind each non-zero level."""
        return dict(self.info.get("evidence") or {})


class EMPAState(State):
    """The episode so far: ``episode_id`` and ``step_count`` (OpenEnv's), the case, the
    conversation (``user`` = the person) and the per-turn rewards (for per-turn credit)."""

    env_id: str = ""
    case_id: str = ""
    status: str = ""
    messages: list[dict[str, str]] = Field(default_factory=list)
    rewards: list[float] = Field(default_factory=list)


__all__ = ["EMPAAction", "EMPAObservation", "EMPAState"]
