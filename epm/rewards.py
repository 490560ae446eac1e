"""Per-turn rewards for RL (reference section 6; MICA eqs. 6-7).

* IDR: ``r_t = phi(P_{t-1}) - phi(P_t)``, ``phi`` = Euclidean norm (paper) or goal-zone distance
  (the reference trainer);
* ADR: ``r_t = -phi(P_t)`` (absolute distance; the closer, the better);
* potential: ``Phi(P) = a / (a + ||P||)``, ``r_t = gamma * Phi(P_t) - Phi(P_{t-1})``, ``a = 9``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from epm.dynamics import goal_distance, norm3

RewardKind = Literal["idr", "idr_goal", "adr", "adr_goal", "potential"]
REWARD_KINDS: tuple[str, ...] = ("idr", "idr_goal", "adr", "adr_goal", "potential")


def norm_potential(p: np.ndarray) -> np.ndarray | float:
    """``phi(P) = ||P||``."""
    n = norm3(np.asarray(p, dtype=float))
    return float(n) if n.ndim == 0 else n


@dataclass(frozen=True)
class RewardFunction:
    """A reward ``r(P_{t-1}, P_t)``; call it with two states or use :meth:`batch`."""

    kind: RewardKind = "idr"
    goal_epsilon: float = 1.0
    potential_a: float = 9.0
    gamma: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in REWARD_KINDS:
            raise ValueError(f"unknown reward {self.kind!r}; choose one of {REWARD_KINDS}")

    def _phi(self) -> Callable[[np.ndarray], np.ndarray | float]:
        if self.kind.endswith("_goal"):
            return lambda p: goal_distance(p, self.goal_epsilon)
        return norm_potential

    def __call__(self, p_prev: np.ndarray, p_next: np.ndarray) -> float:
        return float(self.batch(np.asarray(p_prev)[None], np.asarray(p_next)[None])[0])

    def batch(self, p_prev: np.ndarray, p_next: np.ndarray) -> np.ndarray:
        """Rewards for arrays of transitions ``(..., 3)``."""
        if self.kind == "potential":
            a = self.potential_a
            big_phi = lambda p: a / (a + norm_potential(p))  # noqa: E731
            return self.gamma * big_phi(p_next) - big_phi(p_prev)
        phi = self._phi()
        if self.kind.startswith("idr"):
            return np.asarray(phi(p_prev) - phi(p_next), dtype=float)
        return -np.asarray(phi(p_next), dtype=float)


def trajectory_rewards(positions: np.ndarray, reward: RewardFunction | None = None) -> np.ndarray:
    """Per-turn rewards along ``P_0 .. P_T`` (``(T + 1, 3)`` -> ``(T,)``)."""
    reward = reward or RewardFunction()
    positions = np.asarray(positions, dtype=float)
    return reward.batch(positions[:-1], positions[1:])
