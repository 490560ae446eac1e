"""Per-turn RL rewards: IDR (norm / goal distance), ADR, potential-based (EMPA reference implementation, arXiv 2603.00552)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from epm import REWARD_KINDS, RewardFunction, trajectory_rewards

# P_0 = (-3, -4, 0) -> P_1 = (-2, -1, 0) -> P_2 = (-4, -1, 0)
POSITIONS = np.array([[-3.0, -4.0, 0.0], [-2.0, -1.0, 0.0], [-4.0, -1.0, 0.0]])


def test_idr_euclidean_norm() -> None:
    # ||P_0|| = 5, ||P_1|| = sqrt5, ||P_2|| = sqrt17: r_1 = 5 - sqrt5, r_2 = sqrt5 - sqrt17
    r = trajectory_rewards(POSITIONS, RewardFunction("idr"))
    assert r == pytest.approx([5 - math.sqrt(5), math.sqrt(5) - math.sqrt(17)])
    assert RewardFunction()(POSITIONS[0], POSITIONS[1]) == pytest.approx(5 - math.sqrt(5))


def test_idr_goal_distance() -> None:
    # d(P_0) = sqrt13 (gaps -2, -3), d(P_1) = 1 (gap -1, 0), d(P_2) = 3 (gap -3, 0)
    r = trajectory_rewards(POSITIONS, RewardFunction("idr_goal"))
    assert r == pytest.approx([math.sqrt(13) - 1, 1 - 3])


def test_adr() -> None:
    # ADR: r_t = -phi(P_t)
    assert trajectory_rewards(POSITIONS, RewardFunction("adr")) == pytest.approx(
        [-math.sqrt(5), -math.sqrt(17)]
    )
    assert trajectory_rewards(POSITIONS, RewardFunction("adr_goal")) == pytest.approx([-1.0, -3.0])


def test_potential_based() -> None:
    # Phi(P) = 9 / (9 + ||P||); r_t = gamma * Phi(P_t) - Phi(P_{t-1})
    phi0, phi1 = 9 / (9 + 5), 9 / (9 + math.sqrt(5))
    assert RewardFunction("potential")(POSITIONS[0], POSITIONS[1]) == pytest.approx(phi1 - phi0)
    rf = RewardFunction("potential", gamma=0.95, potential_a=3.0)
    expected = 0.95 * 3 / (3 + math.sqrt(5)) - 3 / (3 + 5)
    assert rf(POSITIONS[0], POSITIONS[1]) == pytest.approx(expected)


def test_goal_epsilon_changes_the_goal_zone() -> None:
    # epsilon = 0: d is the norm of the negative part; d((-2, -1, 0)) = sqrt5, d((-3,-4,0)) = 5
    rf = RewardFunction("idr_goal", goal_epsilon=0.0)
    assert rf(POSITIONS[0], POSITIONS[1]) == pytest.approx(5 - math.sqrt(5))


def test_reward_kinds_and_validation() -> None:
    assert set(REWARD_KINDS) == {"idr", "idr_goal", "adr", "adr_goal", "potential"}
    with pytest.raises(ValueError, match="unknown reward"):
        RewardFunction("bogus")  # type: ignore[arg-type]


def test_single_transition_batch_shape() -> None:
    r = RewardFunction("idr").batch(POSITIONS[:-1], POSITIONS[1:])
    assert r.shape == (2,)
    assert trajectory_rewards(POSITIONS[:1]).shape == (0,)
