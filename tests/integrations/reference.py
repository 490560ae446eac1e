"""The reference every door is checked against: an episode played with plain ``env.step``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

import empa_env  # noqa: F401  (registers the ids)
from empa_env.testing.policies import attuned

#: Short episodes: 3 turns (an episode cannot be shorter than min_turns).
SHORT = {"max_turns": 3, "epm_overrides": {"min_turns": 2}}
ENV_ID = "EMPA-Bench-v14"
CASE = "empa30-001"
SEED = 7


@dataclass(frozen=True)
class Episode:
    """What a door must reproduce: the conversation, the per-turn rewards, the EPM-Index."""

    messages: list[dict[str, str]]
    rewards: list[float]
    epm_index: float
    last_info: dict[str, Any]


def play(
    policy: Callable[[list[dict[str, str]]], str] = attuned,
    *,
    env_id: str = ENV_ID,
    case: str = CASE,
    seed: int = SEED,
    steps: int | None = None,
    **env_kwargs: Any,
) -> Episode:
    """One episode of ``policy`` (reading the conversation) with ``env.reset``/``env.step``, to
    its end or for ``steps`` steps (``epm_index`` 0.0 if it has not ended)."""
    env = gym.make(env_id, **(env_kwargs or SHORT))
    env.reset(seed=seed, options={"case": case})
    rewards: list[float] = []
    done = False
    info: dict[str, Any] = {}
    while not done and (steps is None or len(rewards) < steps):
        _, reward, terminated, truncated, info = env.step(policy(env.unwrapped.messages))
        rewards.append(float(reward))
        done = terminated or truncated
    index = float(info["epm"]["EPM_Index"]) if done else 0.0
    episode = Episode(list(env.unwrapped.messages), rewards, index, info)
    env.close()
    return episode


def replay(replies: Sequence[str], **kwargs: Any) -> Episode:
    """:func:`play` with the given replies, in order (what a door's policy said)."""
    answers = iter(replies)
    return play(lambda _messages: next(answers), steps=len(replies), **kwargs)


def assistant_replies(messages: Sequence[dict[str, str]]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "assistant"]
