"""Shared helpers for the baselines tests: a minimal stand-in of the EMPA environment API.

The trainer tests use the real ``EMPA-v14`` when it is importable; the stand-in keeps the trainer's
own logic testable on its own (and fast): the same ``reset``/``step``/``unwrapped.messages``/
``unwrapped.trajectory``/``info["epm"]`` surface, a deterministic reward that prefers replies
containing a vowel-rich word, and fixed-length episodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import pytest

from epm.rubric import AXES, increment
from epm.tracker import EPMTracker
from epm.trajectory import Judgement, Trajectory, TurnRecord


@dataclass
class _Case:
    id: str


@dataclass
class _Traj:
    case_id: str
    rewards: list[float] = field(default_factory=list)


class StandInEnv(gym.Env):
    """Episodes of ``length`` turns; ``r_t = (#vowels - #consonants) / (len + 1)`` of the reply."""

    def __init__(self, length: int = 3, cases: tuple[str, ...] = ("c0", "c1", "c2", "c3")) -> None:
        self.length = length
        self.cases = tuple(_Case(c) for c in cases)
        self.messages: list[dict[str, str]] = []
        self.trajectory: _Traj | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        case = (options or {}).get("case", self.cases[0].id)
        self.messages = [{"role": "user", "content": f"hello from {case}, I feel low"}]
        self.trajectory = _Traj(case)
        return self.messages[-1]["content"], {"case_id": case}

    def step(self, action: str):
        assert isinstance(action, str)
        vowels = sum(ch in "aeiou" for ch in action.lower())
        consonants = sum(ch.isalpha() and ch not in "aeiou" for ch in action.lower())
        reward = (vowels - consonants) / (len(action) + 1)
        self.trajectory.rewards.append(reward)
        self.messages.append({"role": "assistant", "content": action})
        done = len(self.trajectory.rewards) >= self.length
        user = "" if done else f"user turn {len(self.trajectory.rewards)}"
        if user:
            self.messages.append({"role": "user", "content": user})
        info: dict[str, Any] = {"delta_E": reward}
        if done:
            info["epm"] = {"EPM_Index": 50.0 + sum(self.trajectory.rewards), "success": reward > 0}
        return user, reward, done, False, info


@pytest.fixture(scope="session")
def tiny_tokenizer():
    """The tiny model's tokenizer, trained once per session (it takes seconds)."""
    pytest.importorskip("transformers")
    from baselines.training.hf.tiny import build_tokenizer

    return build_tokenizer()


@pytest.fixture
def standin_env_factory():
    return lambda: StandInEnv()


def build_trajectory(case_id: str, level: int, turns: int = 14, tag: str = "") -> Trajectory:
    """An episode whose every reply earns ``Prog = level`` on all axes (0: nothing, 2: strong)."""
    p0 = [-10.0, -12.0, -9.0]
    tracker = EPMTracker(p0)
    traj = Trajectory(case_id=case_id, p0=p0, opening=f"opening of {case_id}")
    status = tracker.status
    for t in range(1, turns + 1):
        prog = {a: level for a in AXES}
        neg = {a: 0 for a in AXES}
        phys, status = tracker.step(increment(prog, neg))
        traj.turns.append(
            TurnRecord(
                turn=t, reply=f"reply {t} {tag}", judgement=Judgement(prog, neg),
                v=list(phys.v), position=list(phys.position), v_star=list(phys.v_star),
                delta_E=phys.delta_E, alignment=phys.alignment, projection=phys.projection,
                distance=phys.distance, user_message=f"user {t}",
            )
        )  # fmt: skip
        if status.done:
            break
    traj.outcome = status.outcome if status.done else "truncated"
    return traj


@pytest.fixture(scope="session")
def make_trajectory():
    return build_trajectory
