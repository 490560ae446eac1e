"""One EMPA episode as a conversation: what every integration door plays.

A :class:`Conversation` holds one environment made with ``gymnasium.make`` (or an
:class:`~empa_env.env.EMPAEnv`) and plays it through its public API only: ``reset``/``step``,
or ``areset``/``astep`` for the async doors, and the ``info`` they return. It keeps what the
doors report: the per-turn rewards (IDR by default, for MICA-style per-turn credit), the last
turn's ``info`` in JSON-safe form (the judge's levels and quoted evidence, ``P_t``, the episode
status, and the EPM metrics on the last step) and the episode's score (:class:`EpisodeScore`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, SupportsFloat

import gymnasium as gym

#: The environment every door plays unless told otherwise: the 30 benchmark cases.
DEFAULT_ENV_ID = "EMPA-Bench-v14"

#: What a policy that answers in plain text is told (the verifiers door's system prompt).
SYSTEM_PROMPT = (
    "You are talking with a person who is going through something hard. Listen, understand what "
    "they feel and need, and answer them in your own words, one message at a time."
)


def json_safe(value: Any) -> Any:
    """``value`` with every undefined number (``nan``, ``inf``) as ``None`` and tuples as lists:
    what a JSON wire carries, so a served door and an in-process door report the same ``info``."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if value is None or kind is str or kind is int or kind is bool:
        return value
    if kind is dict:  # the common containers first: this runs on every step's info
        return {str(k): json_safe(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [json_safe(v) for v in value]
    if isinstance(value, float):
        return json_safe(float(value))
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # a numpy scalar
        return json_safe(value.item())
    return value


@dataclass(frozen=True)
class Turn:
    """What the environment said back: one ``reset`` (``reward`` 0.0) or one ``step``.

    ``user_message`` is the observation (the person's message; ``""`` when the episode ended
    before they spoke), ``info`` the step's :class:`~empa_env.info.StepInfo` made JSON-safe
    (:func:`json_safe`), ``info["epm"]`` the EPM metrics on the last step."""

    user_message: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated


@dataclass(frozen=True)
class EpisodeScore:
    """An episode's EPM rubric: its IDR return, EPM-Index and success, with its outcome."""

    idr_sum: float
    epm_index: float
    success: bool
    outcome: str
    turns: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "idr_sum": self.idr_sum,
            "epm_index": self.epm_index,
            "success": self.success,
            "outcome": self.outcome,
            "turns": self.turns,
        }


@dataclass
class Conversation:
    """One environment, played one episode at a time as a conversation (see the module).

    Args:
        env: a ``gymnasium.make("EMPA-...")`` environment or an ``EMPAEnv``.
    """

    env: gym.Env
    rewards: list[float] = field(default_factory=list)
    last: Turn | None = None

    @classmethod
    def make(cls, env_id: str = DEFAULT_ENV_ID, **env_kwargs: Any) -> Conversation:
        """A conversation over ``gymnasium.make(env_id, **env_kwargs)``."""
        return cls(gym.make(env_id, **env_kwargs))

    # --- playing -----------------------------------------------------------------------------
    def open(self, *, seed: int | None = None, case: Any = None) -> Turn:
        """Start an episode (``case``: a case id or ``Case``; ``None`` draws one from the pool)."""
        observation, info = self.env.reset(seed=seed, options=self._options(case))
        return self._opened(observation, info)

    async def aopen(self, *, seed: int | None = None, case: Any = None) -> Turn:
        """Async twin of :meth:`open` (the environment's ``areset``)."""
        observation, info = await self.env.unwrapped.areset(  # type: ignore[attr-defined]
            seed=seed, options=self._options(case)
        )
        return self._opened(observation, info)

    def reply(self, text: str) -> Turn:
        """Say ``text`` to the person: one ``env.step``."""
        self._require_open()
        return self._stepped(*self.env.step(text))

    async def areply(self, text: str) -> Turn:
        """Async twin of :meth:`reply` (the environment's ``astep``)."""
        self._require_open()
        return self._stepped(*await self.env.unwrapped.astep(text))  # type: ignore[attr-defined]

    def close(self) -> None:
        self.env.close()

    # --- what the doors report ---------------------------------------------------------------
    @property
    def started(self) -> bool:
        return self.last is not None

    @property
    def done(self) -> bool:
        return self.last is not None and self.last.done

    @property
    def turns(self) -> int:
        return len(self.rewards)

    @property
    def messages(self) -> list[dict[str, str]]:
        """The conversation so far from the policy's side (``user`` = the simulated person)."""
        return self.env.unwrapped.messages if self.started else []  # type: ignore[attr-defined]

    @property
    def case_id(self) -> str:
        return str(self.last.info.get("case_id", "")) if self.last else ""

    @property
    def status(self) -> str:
        """``ongoing`` (or ``""`` before the first episode) until the episode ends; then its
        outcome (``success``, ``failure``, ``truncated``, ...)."""
        return str(self.last.info.get("status", "")) if self.last else ""

    def score(self) -> EpisodeScore:
        """The EPM rubric of the episode so far; EPM-Index and success once it has ended (an
        unfinished episode has EPM-Index ``0.0`` and is no success)."""
        epm = (self.last.info.get("epm") or {}) if self.last else {}
        index = epm.get("EPM_Index")
        return EpisodeScore(
            idr_sum=float(sum(self.rewards)),
            epm_index=float(index) if index is not None else 0.0,
            success=bool(epm.get("success", False)),
            outcome=str(epm.get("outcome") or self.status),
            turns=self.turns,
        )

    # --- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _options(case: Any) -> dict[str, Any] | None:
        return None if case is None else {"case": case}

    def _opened(self, observation: str, info: Mapping[str, Any]) -> Turn:
        self.rewards = []
        self.last = Turn(str(observation), 0.0, False, False, json_safe(info))
        return self.last

    def _stepped(
        self,
        observation: str,
        reward: SupportsFloat,
        terminated: bool,
        truncated: bool,
        info: Mapping[str, Any],
    ) -> Turn:
        self.rewards.append(float(reward))
        self.last = Turn(str(observation), float(reward), terminated, truncated, json_safe(info))
        return self.last

    def _require_open(self) -> None:
        if self.last is None:
            raise RuntimeError("the conversation has not started; call open() first")
        if self.last.done:
            raise RuntimeError(
                f"the conversation has ended ({self.status}); open() starts the next one"
            )


__all__ = ["DEFAULT_ENV_ID", "SYSTEM_PROMPT", "Conversation", "EpisodeScore", "Turn", "json_safe"]
