"""Per-turn rewards for RL (MICA eqs. 6-7).

* IDR: ``r_t = phi(P_{t-1}) - phi(P_t)``, ``phi`` = Euclidean norm (paper) or goal-zone distance
  (the reference trainer);
* ADR: ``r_t = -phi(P_t)`` (absolute distance; the closer, the better);
* potential: ``Phi(P) = a / (a + ||P||)``, ``r_t = gamma * Phi(P_t) - Phi(P_{t-1})``, ``a = 9``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol, get_args, runtime_checkable

import numpy as np

from epm.dynamics import goal_distance, norm3

RewardKind = Literal["idr", "idr_goal", "adr", "adr_goal", "potential"]


@runtime_checkable
class Reward(Protocol):
    """A per-turn reward ``r(P_{t-1}, P_t)``: two deficit vectors (shape ``(3,)``) in, one finite
    float out. :class:`RewardFunction` is the built-in one; any callable of this shape plugs into
    the environment (``reward=...``); ``empa_env.testing.check_role`` checks one."""

    def __call__(self, p_prev: np.ndarray, p_next: np.ndarray, /) -> float: ...


#: ``kind -> formula(reward, p_prev, p_next) -> rewards``; one decorated function per reward.
Formula = Callable[["RewardFunction", np.ndarray, np.ndarray], np.ndarray]
FORMULAS: dict[str, Formula] = {}


def reward_formula(kind: str) -> Callable[[Formula], Formula]:
    """Register the formula of a reward kind (``@reward_formula("mine")``); one place per reward."""

    def add(formula: Formula) -> Formula:
        FORMULAS[kind] = formula
        return formula

    return add


def norm_potential(p: np.ndarray) -> np.ndarray | float:
    """``phi(P) = ||P||``."""
    n = norm3(np.asarray(p, dtype=float))
    return float(n) if n.ndim == 0 else n


@dataclass(frozen=True)
class RewardFunction:
    """A reward ``r(P_{t-1}, P_t)`` of a registered ``kind``; call it with two states or use
    :meth:`batch` for arrays of transitions ``(..., 3)``."""

    kind: str = "idr"
    goal_epsilon: float = 1.0
    potential_a: float = 9.0
    gamma: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in FORMULAS:
            raise ValueError(f"unknown reward {self.kind!r}; choose one of {tuple(FORMULAS)}")

    def goal_distance(self, p: np.ndarray) -> np.ndarray:
        return np.asarray(goal_distance(p, self.goal_epsilon), dtype=float)

    def __call__(self, p_prev: np.ndarray, p_next: np.ndarray) -> float:
        return float(self.batch(np.asarray(p_prev)[None], np.asarray(p_next)[None])[0])

    def batch(self, p_prev: np.ndarray, p_next: np.ndarray) -> np.ndarray:
        """Rewards for arrays of transitions ``(..., 3)``."""
        return np.asarray(FORMULAS[self.kind](self, p_prev, p_next), dtype=float)


@reward_formula("idr")
def _idr(r: RewardFunction, p_prev: np.ndarray, p_next: np.ndarray) -> np.ndarray:
    """IDR on the norm: ``||P_{t-1}|| - ||P_t||`` (MICA eq. 7)."""
    return np.asarray(norm_potential(p_prev) - norm_potential(p_next))


@reward_formula("idr_goal")
def _idr_goal(r: RewardFunction, p_prev: np.ndarray, p_next: np.ndarray) -> np.ndarray:
    """IDR on the goal-zone distance ``d(P)`` (the reference trainer)."""
    return r.goal_distance(p_prev) - r.goal_distance(p_next)


@reward_formula("adr")
def _adr(r: RewardFunction, p_prev: np.ndarray, p_next: np.ndarray) -> np.ndarray:
    """ADR: ``-||P_t||`` (MICA eq. 6)."""
    return -np.asarray(norm_potential(p_next))


@reward_formula("adr_goal")
def _adr_goal(r: RewardFunction, p_prev: np.ndarray, p_next: np.ndarray) -> np.ndarray:
    """ADR on the goal-zone distance: ``-d(P_t)``."""
    return -r.goal_distance(p_next)


@reward_formula("potential")
def _potential(r: RewardFunction, p_prev: np.ndarray, p_next: np.ndarray) -> np.ndarray:
    """Potential-based: ``gamma * Phi(P_t) - Phi(P_{t-1})`` with ``Phi(P) = a / (a + ||P||)``."""
    a = r.potential_a
    phi_next = a / (a + np.asarray(norm_potential(p_next)))
    phi_prev = a / (a + np.asarray(norm_potential(p_prev)))
    return np.asarray(r.gamma * phi_next - phi_prev)


#: The built-in reward kinds (registered above; more can be added with :func:`reward_formula`).
REWARD_KINDS: tuple[str, ...] = get_args(RewardKind)


def trajectory_rewards(positions: np.ndarray, reward: RewardFunction | None = None) -> np.ndarray:
    """Per-turn rewards along ``P_0 .. P_T`` (``(T + 1, 3)`` -> ``(T,)``)."""
    reward = reward or RewardFunction()
    positions = np.asarray(positions, dtype=float)
    return reward.batch(positions[:-1], positions[1:])
