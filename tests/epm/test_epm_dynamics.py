"""State update, ideal direction, alignment, delta_E, projection, distance, thresholds (sec. 4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from epm import OFFICIAL, PAPER, batch_physics, goal_distance, turn_physics, unit_toward_origin
from epm.dynamics import Thresholds, in_goal_zone


def test_goal_distance_counts_only_axes_below_minus_one() -> None:
    # (-3, -4, 0): gaps min(x + 1, 0) = (-2, -3, 0) -> sqrt(4 + 9) = sqrt(13)
    assert goal_distance(np.array([-3.0, -4.0, 0.0])) == pytest.approx(math.sqrt(13))
    # a zero deficit axis and an axis inside the zone (-0.5) contribute nothing: gap (0, 0, -5)
    assert goal_distance(np.array([0.0, -0.5, -6.0])) == pytest.approx(5.0)
    # exactly -1 is in the zone; positive components (overshoot) never count
    assert goal_distance(np.array([-1.0, 2.0, 5.0])) == 0.0
    assert in_goal_zone(np.array([-1.0, 2.0, 5.0]))
    assert not in_goal_zone(np.array([-1.01, 0.0, 0.0]))


def test_goal_distance_vectorised_and_epsilon() -> None:
    d = goal_distance(np.array([[-3.0, -4.0, 0.0], [-2.0, -2.0, -2.0]]))
    # second row: gaps (-1, -1, -1) -> sqrt(3)
    assert d == pytest.approx([math.sqrt(13), math.sqrt(3)])
    # epsilon = 0: the goal zone shrinks to every axis >= 0 -> ||(-3, -4, 0)|| = 5
    assert goal_distance(np.array([-3.0, -4.0, 0.0]), epsilon=0.0) == pytest.approx(5.0)


def test_unit_toward_origin() -> None:
    assert unit_toward_origin(np.array([-3.0, -4.0, 0.0])) == pytest.approx([0.6, 0.8, 0.0])
    assert unit_toward_origin(np.zeros(3)).tolist() == [0.0, 0.0, 0.0]


def test_thresholds_are_fractions_of_initial_norm() -> None:
    # ||(-6, -8, 0)|| = 10: eps_dist = eps_dir = 0.1 * 10 = 1, eps_energy = 10
    th = Thresholds.for_start(np.array([-6.0, -8.0, 0.0]), OFFICIAL)
    assert (th.eps_dist, th.eps_dir, th.eps_energy) == pytest.approx((1.0, 1.0, 10.0))
    cfg = OFFICIAL.with_overrides(threshold_alpha=0.25, energy_factor=0.5)
    th = Thresholds.for_start(np.array([-6.0, -8.0, 0.0]), cfg)
    assert (th.eps_dist, th.eps_dir, th.eps_energy) == pytest.approx((2.5, 2.5, 5.0))


def test_turn_physics_hand_worked_fixed() -> None:
    # P_0 = (-3, -4, 0), v* = (0.6, 0.8, 0), v_1 = (1, 3, 0)
    p0 = np.array([-3.0, -4.0, 0.0])
    phys = turn_physics(p0, np.array([1.0, 3.0, 0.0]), unit_toward_origin(p0), OFFICIAL)
    assert phys.position.tolist() == [-2.0, -1.0, 0.0]  # P_1 = P_0 + v_1
    assert phys.delta_E == pytest.approx(3.0)  # 0.6 * 1 + 0.8 * 3
    assert phys.alignment == pytest.approx(3.0 / math.sqrt(10))  # delta_E / ||v||
    assert phys.projection == pytest.approx(-2.0)  # -2 * 0.6 + -1 * 0.8
    assert phys.distance == pytest.approx(1.0)  # gaps (-1, 0, 0)


def test_turn_physics_zero_increment_has_zero_alignment() -> None:
    p0 = np.array([-3.0, -4.0, 0.0])
    phys = turn_physics(p0, np.zeros(3), unit_toward_origin(p0), OFFICIAL)
    assert phys.alignment == 0.0
    assert phys.delta_E == 0.0
    assert phys.position.tolist() == p0.tolist()


def test_turn_physics_dynamic_uses_previous_state() -> None:
    # paper preset: v*_t = -P_{t-1} / ||P_{t-1}||. P_{t-1} = (-2, -1, 0) -> v* = (2, 1, 0) / sqrt(5)
    fixed = np.array([0.6, 0.8, 0.0])
    phys = turn_physics(np.array([-2.0, -1.0, 0.0]), np.array([-2.0, 0.0, 0.0]), fixed, PAPER)
    assert phys.v_star == pytest.approx(np.array([2.0, 1.0, 0.0]) / math.sqrt(5))
    assert phys.delta_E == pytest.approx(-4.0 / math.sqrt(5))  # (-2) * 2 / sqrt(5)
    assert phys.alignment == pytest.approx(-2.0 / math.sqrt(5))  # / ||v|| = 2
    # projection_t = P_t . v*_t = (-4 * 2 + -1 * 1) / sqrt(5) = -9 / sqrt(5)
    assert phys.projection == pytest.approx(-9.0 / math.sqrt(5))
    # the official preset ignores P_{t-1} and keeps the fixed direction
    phys_fixed = turn_physics(
        np.array([-2.0, -1.0, 0.0]), np.array([-2.0, 0.0, 0.0]), fixed, OFFICIAL
    )
    assert phys_fixed.delta_E == pytest.approx(-1.2)


def test_turn_physics_dynamic_at_origin_falls_back_to_start_direction() -> None:
    fixed = np.array([0.6, 0.8, 0.0])
    phys = turn_physics(np.zeros(3), np.array([1.0, 0.0, 0.0]), fixed, PAPER)
    assert phys.v_star.tolist() == fixed.tolist()
    assert phys.delta_E == pytest.approx(0.6)


def test_batch_physics_padding_and_hand_values() -> None:
    # two episodes, T_max = 3; the second has only 1 turn (its padded increments are ignored)
    p0 = np.array([[-3.0, -4.0, 0.0], [0.0, -10.0, 0.0]])
    v = np.array(
        [
            [[1.0, 3.0, 0.0], [-2.0, 0.0, 0.0], [0.0, -1.0, 1.0]],
            [[0.0, 2.0, 0.0], [9.0, 9.0, 9.0], [9.0, 9.0, 9.0]],
        ]
    )
    bp = batch_physics(p0, v, np.array([3, 1]), "official")
    # episode 0: delta_E = 3.0, -1.2, -0.8 (see the metric tests for the arithmetic)
    assert bp.delta_E[0] == pytest.approx([3.0, -1.2, -0.8])
    assert bp.positions[0, -1].tolist() == [-4.0, -2.0, 1.0]
    # episode 1: one step of +2 along v* = (0, 1, 0); then the state stays at P_1 = (0, -8, 0)
    assert bp.delta_E[1].tolist() == [2.0, 0.0, 0.0]
    assert bp.positions[1].tolist() == [[0.0, -10.0, 0.0]] + [[0.0, -8.0, 0.0]] * 3
    assert bp.mask.tolist() == [[True, True, True], [True, False, False]]
    assert bp.distance[1].tolist() == [7.0, 0.0, 0.0]  # gap -7 on A; padded turns are 0


def test_batch_physics_accepts_a_single_episode() -> None:
    bp = batch_physics(np.array([0.0, -10.0, 0.0]), np.array([[0.0, 1.0, 0.0]]))
    assert bp.delta_E.shape == (1, 1)
    assert bp.delta_E[0, 0] == 1.0
