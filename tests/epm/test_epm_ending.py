"""Every ending rule, hand-worked (EMPA reference implementation, arXiv 2603.00552).

Most cases start at P_0 = (0, -10, 0): ||P_0|| = 10, v* = (0, 1, 0), so delta_E_t is simply the
A component of v_t, and the thresholds are eps_dist = eps_dir = 1, eps_energy = 10. All the
numbers below are exact in binary floating point.
"""

from __future__ import annotations

import numpy as np
import pytest

from epm import OFFICIAL, PAPER, EndingRules, EPMTracker, replay
from epm.ending import check_failure

P0 = [0.0, -10.0, 0.0]
#: The section-5 rules alone (the official preset without its Director-level oscillation stop),
#: for tests of one rule whose back-and-forth pattern the oscillation stop would also catch.
NO_OSCILLATION = OFFICIAL.with_overrides(oscillation_rule=False)


def a(x: float) -> list[float]:
    """An increment along the A axis only: delta_E = x under v* = (0, 1, 0)."""
    return [0.0, x, 0.0]


def run(increments: list[list[float]], config=OFFICIAL, p0=P0) -> tuple[EPMTracker, list[str]]:
    """Step until the episode ends; returns the tracker and the outcome after every turn."""
    tracker = EPMTracker(p0, config)
    outcomes = []
    for v in increments:
        _, status = tracker.step(v)
        outcomes.append(status.outcome)
        if status.done:
            break
    return tracker, outcomes


def test_geometric_success_waits_for_min_turns() -> None:
    # turn 1: v = (0, 10, 0) -> P_1 = origin, ||P_1|| = 0 <= eps_dist = 1, E_total = 10 >= 10.
    # Success is only checked from turn 12, so turns 1..11 are ongoing; turn 12 succeeds.
    tracker, outcomes = run([a(10.0)] + [a(0.0)] * 20)
    assert outcomes == ["ongoing"] * 11 + ["success"]
    assert tracker.turn == 12
    assert tracker.status.victory_type == "geometric"
    assert tracker.status.failure_reason is None


def test_positional_success() -> None:
    # turn 1: v = (4, 10, 0) -> P_1 = (4, 0, 0): ||P|| = 4 > eps_dist = 1 (not geometric),
    # projection = P . v* = 0 >= -eps_dir = -1 (positional), E_total = 10 >= eps_energy = 10.
    tracker, outcomes = run([[4.0, 10.0, 0.0]] + [a(0.0)] * 20)
    assert outcomes[-1] == "success" and tracker.turn == 12
    assert tracker.status.victory_type == "positional"


def test_projection_just_outside_eps_dir_is_not_positional() -> None:
    # P_T = (4, -1.5, 0): projection -1.5 < -1, ||P|| > 1, E_total = 8.5 < 10 -> never success;
    # delta_E = 0 after turn 1, so nothing else ends it: truncated at max_turns = 45.
    tracker, outcomes = run([[4.0, 8.5, 0.0]] + [a(0.0)] * 60)
    assert tracker.status.outcome == "truncated"
    assert tracker.turn == 45
    assert outcomes.count("ongoing") == 44


def test_energy_gate_blocks_success_until_enough_work() -> None:
    # turn 1: v = (0, 9.5, 0) -> P = (0, -0.5, 0): ||P|| = 0.5 <= 1 but E_total = 9.5 < 10.
    # Turns 2..12 add nothing: at turn 12 the gate still blocks (no failure either: delta_E = 0,
    # so no collapse and no regression). Turn 13 adds 0.5: E_total = 10 -> geometric success.
    incs = [a(9.5)] + [a(0.0)] * 11 + [a(0.5)] + [a(0.0)] * 5
    tracker, outcomes = run(incs)
    assert outcomes == ["ongoing"] * 12 + ["success"]
    assert tracker.status.victory_type == "geometric"
    assert tracker.e_total == 10.0


def test_energy_gate_with_overshoot_still_needs_work() -> None:
    # energy_factor 2: eps_energy = 20. v = (0, 10, 0) -> origin, E = 10 < 20: no success by 45.
    cfg = OFFICIAL.with_overrides(energy_factor=2.0)
    tracker, _ = run([a(10.0)] + [a(0.0)] * 50, cfg)
    assert tracker.status.outcome == "truncated"


def _alignment_episode() -> list[list[float]]:
    # 12 turns of v = (0, 0.5, 0): each alignment 1, E_total = 6, P_12 = (0, -4, 0).
    # With energy_factor 0.5 (eps_energy = 5) the gate is open, but ||P|| = 4 > 1 and
    # projection = -4 < -1, so only the optional branch mean alignment > tau_align can fire:
    # mean alignment over the T + 1 = 13 points = 12 / 13 = 0.923 > 0.7.
    return [a(0.5)] * 12 + [a(0.0)] * 40


def test_alignment_branch_only_when_enabled() -> None:
    cfg = OFFICIAL.with_overrides(energy_factor=0.5, alignment_branch=True)
    tracker, outcomes = run(_alignment_episode(), cfg)
    assert outcomes[-1] == "success" and tracker.turn == 12
    assert tracker.status.victory_type == "alignment"
    # default: the branch is off, the episode goes on
    off = OFFICIAL.with_overrides(energy_factor=0.5)
    assert off.ending.alignment_branch is False
    tracker, _ = run(_alignment_episode()[:12], off)
    assert tracker.status.outcome == "ongoing"
    # a higher tau_align (0.95 > 12 / 13) also blocks it
    strict = cfg.with_overrides(tau_align=0.95)
    tracker, _ = run(_alignment_episode()[:12], strict)
    assert tracker.status.outcome == "ongoing"


def test_collapse_last_five_delta_e_negative() -> None:
    # turns 1..7: delta_E = +1; turns 8..12: delta_E = -1 -> the last 5 are all < 0 at turn 12.
    tracker, outcomes = run([a(1.0)] * 7 + [a(-1.0)] * 5 + [a(0.0)] * 5)
    assert outcomes == ["ongoing"] * 11 + ["failure"]
    assert tracker.status.failure_reason == "collapse"


def test_collapse_needs_all_five() -> None:
    # turns 8..11 negative, turn 12 zero: 4 of the last 5 < 0 -> no collapse at turn 12.
    # Last 8 delta_E (turns 5..12) = 1, 1, 1, -1, -1, -1, -1, 0: 4 < 0.7 * 8 -> not regressing.
    tracker, outcomes = run([a(1.0)] * 7 + [a(-1.0)] * 4 + [a(0.0)], NO_OSCILLATION)
    assert outcomes == ["ongoing"] * 12
    # The official preset's oscillation stop does end it: over P_1 .. P_12 the path is 11 >= 3
    # and the L1 displacement |(-7) - (-9)| = 2 < 3.
    tracker, outcomes = run([a(1.0)] * 7 + [a(-1.0)] * 4 + [a(0.0)])
    assert tracker.status.failure_reason == "oscillation" and tracker.turn == 12


def test_no_failure_before_min_turns() -> None:
    # eleven negative turns in a row: collapse would hold from turn 5, but nothing is checked
    # before turn 12; at turn 12 (twelfth negative turn) the episode collapses.
    tracker, outcomes = run([a(-1.0)] * 20)
    assert outcomes == ["ongoing"] * 11 + ["failure"]
    assert tracker.status.failure_reason == "collapse"


def _stagnation_regression(scale: float) -> list[list[float]]:
    # turns 1..4: +0.5 (P_A: -10 -> -8); turns 5..10: -0.25 each; turn 11: +0.25; turn 12: -0.25
    return [a(0.5 * scale)] * 4 + [a(-0.25 * scale)] * 6 + [a(0.25 * scale), a(-0.25 * scale)]


def test_stagnation_and_regression_together_fail() -> None:
    # Last 8 delta_E (turns 5..12): seven -0.25 and one +0.25 -> 7 > 0.7 * 8 = 5.6 negatives,
    # sum = -1.75 + 0.25 = -1.5 < -1: regressing. Not collapsed (turn 11 was positive).
    # ||P_t|| over the last 5 points (turns 8..12): 9.0, 9.25, 9.5, 9.25, 9.5; mean 9.3;
    # squared deviations 0.09 + 0.0025 + 0.04 + 0.0025 + 0.04 = 0.175; sample stdev
    # sqrt(0.175 / 4) = 0.209 < 0.5: stagnant. Both -> failure at turn 12.
    tracker, outcomes = run(_stagnation_regression(1.0))
    assert outcomes == ["ongoing"] * 11 + ["failure"]
    assert tracker.status.failure_reason == "stagnation_regression"
    assert float(np.std(tracker.norms[-5:], ddof=1)) == pytest.approx((0.175 / 4) ** 0.5)


def _regressing_deltas() -> list[float]:
    # 12 turns; the last 8: seven -1 and one +0.5 (not the last 5 all negative: no collapse),
    # 7 > 5.6 negatives and sum -6.5 < -1: regressing.
    return [0.0] * 4 + [-1.0, -1.0, -1.0, -1.0, 0.5, -1.0, -1.0, -1.0]


def test_stagnation_uses_the_sample_standard_deviation() -> None:
    # ||P_t|| over the last 5 points: 9, 9, 10, 10, 10; mean 9.6; squared deviations
    # 0.36 + 0.36 + 0.16 * 3 = 1.2. Population stdev sqrt(1.2 / 5) = 0.490 < 0.5 (would be
    # stagnant); sample stdev (ddof = 1, as the reference) sqrt(1.2 / 4) = 0.548 >= 0.5: not
    # stagnant, so regression alone does not end the episode.
    rules = EndingRules()
    norms = [10.0] * 8 + [9.0, 9.0, 10.0, 10.0, 10.0]
    positions = [np.zeros(3)] * 13
    assert check_failure(12, _regressing_deltas(), norms, positions, rules) is None
    # sample stdev just under 0.5 (9.5, 9.5, 10, 10, 10: sqrt(0.3 / 4) = 0.27): stagnant -> fails
    norms = [10.0] * 8 + [9.5, 9.5, 10.0, 10.0, 10.0]
    assert check_failure(12, _regressing_deltas(), norms, positions, rules) == (
        "stagnation_regression"
    )


def test_regression_alone_does_not_end() -> None:
    # Same pattern four times larger: still regressing (sum of last 8 = -6 < -1, 7 negatives),
    # but ||P_t|| over the last 5 points is 6, 7, 8, 7, 8: mean 7.2, sample variance
    # 2.8 / 4 = 0.7, stdev 0.837 >= 0.5 -> not stagnant -> ongoing.
    tracker, outcomes = run(_stagnation_regression(4.0), NO_OSCILLATION)
    assert outcomes == ["ongoing"] * 12
    assert tracker.norms[-5:] == [6.0, 7.0, 8.0, 7.0, 8.0]
    # (the official oscillation stop catches it: P_1 and P_12 both have A = -8, path 22)
    tracker, _ = run(_stagnation_regression(4.0))
    assert tracker.status.failure_reason == "oscillation"


def test_stagnation_alone_does_not_end_and_truncates_at_max_turns() -> None:
    # No movement at all: ||P_t|| is constant (stdev 0, stagnant) but no delta_E < 0, so not
    # regressing. The episode runs to max_turns = 45 and is truncated.
    tracker, outcomes = run([a(0.0)] * 60)
    assert tracker.turn == 45
    assert outcomes == ["ongoing"] * 44 + ["truncated"]
    assert tracker.status.outcome == "truncated"


def test_truncation_at_configured_max_turns() -> None:
    cfg = OFFICIAL.with_overrides(max_turns=20)
    tracker, outcomes = run([a(0.0)] * 60, cfg)
    assert tracker.turn == 20 and outcomes[-1] == "truncated"


def test_success_is_checked_before_failure() -> None:
    # turns 1..7: +2 each (E = 14, P_A = 4 -> past the origin), turns 8..12: -0.5 each
    # (collapse pattern). At turn 12: P = (0, 1.5, 0), ||P|| = 1.5 > 1, but projection
    # = P . v* = 1.5 >= -1 and E_total = 14 - 2.5 = 11.5 >= 10 -> positional success wins.
    tracker, outcomes = run([a(2.0)] * 7 + [a(-0.5)] * 5)
    assert outcomes[-1] == "success"
    assert tracker.status.victory_type == "positional"


def _oscillation() -> list[list[float]]:
    # back and forth on the C axis (orthogonal to v*: delta_E = 0, never regressing)
    return [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]] * 30


def test_oscillation_stop_is_on_in_official_and_off_in_paper() -> None:
    # Over the last 11 turns (P_1 .. P_12) the summed L1 size of the increments is 11 >= 3, and
    # P_1 = (1, -10, 0), P_12 = (0, -10, 0): L1 displacement 1 < 3 -> oscillation at turn 12.
    assert OFFICIAL.ending.oscillation_rule is True
    tracker, outcomes = run(_oscillation())
    assert outcomes == ["ongoing"] * 11 + ["failure"]
    assert tracker.status.failure_reason == "oscillation"
    # paper (and a bare EndingRules()) has no such stop: the same conversation is stagnant
    # (||P|| alternates 10.05 / 10) but not regressing, so it runs to max_turns.
    assert PAPER.ending.oscillation_rule is False and EndingRules().oscillation_rule is False
    tracker, _ = run(_oscillation(), PAPER)
    assert tracker.status.outcome == "truncated" and tracker.turn == 45
    off = OFFICIAL.with_overrides(oscillation_rule=False)
    tracker, _ = run(_oscillation(), off)
    assert tracker.status.outcome == "truncated" and tracker.turn == 45


def _jump_then_oscillate() -> list[list[float]]:
    # turn 1: no move; turn 2: +3 on C (P_2 = (3, -10, 0)); turns 3..: +1 / -1 on C.
    # P_12 = P_2 (ten alternating steps), P_13 = P_2 + (1, 0, 0). All on C: delta_E = 0.
    return [[0.0, 0.0, 0.0], [3.0, 0.0, 0.0]] + [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]] * 20


def test_oscillation_window_is_eleven_turns() -> None:
    # The default window is 11 increments: at turn 12 the window P_1 .. P_12 has L1
    # displacement |P_12 - P_1| = 3 (not < 3): no stop. At turn 13 the window P_2 .. P_13 has
    # path 1 + 10 = 11 >= 3 and displacement 1 < 3: stop at turn 13.
    assert EndingRules().oscillation_window == 11
    tracker, outcomes = run(_jump_then_oscillate())
    assert outcomes == ["ongoing"] * 12 + ["failure"]
    assert tracker.status.failure_reason == "oscillation"
    # a 10-turn window (the old default) would have stopped one turn early, at turn 12
    # (P_2 .. P_12: path 10, displacement 0)
    ten = OFFICIAL.with_overrides(oscillation_window=10)
    tracker, outcomes = run(_jump_then_oscillate(), ten)
    assert outcomes == ["ongoing"] * 11 + ["failure"]


def test_oscillation_needs_enough_path() -> None:
    # increments of 0.1: path over 11 turns = 1.1 < 3 -> no oscillation stop.
    small = [[0.1, 0.0, 0.0], [-0.1, 0.0, 0.0]] * 30
    tracker, _ = run(small)
    assert tracker.status.outcome == "truncated"


def test_director_end_not_before_min_turns() -> None:
    tracker = EPMTracker(P0)
    for _ in range(11):
        tracker.step(a(0.0))
    assert tracker.end_by_director() is False
    assert tracker.status.outcome == "ongoing"
    tracker.step(a(0.0))
    assert tracker.end_by_director() is True
    assert tracker.status.outcome == "director_end"
    assert tracker.end_by_director() is False  # already ended
    with pytest.raises(RuntimeError):
        tracker.step(a(0.0))


def test_check_failure_directly_respects_min_turns() -> None:
    rules = EndingRules()
    neg = [-1.0] * 11
    norms = [10.0] * 12
    positions = [np.zeros(3)] * 12
    assert check_failure(11, neg, norms, positions, rules) is None
    assert check_failure(12, neg + [-1.0], norms + [10.0], positions + [np.zeros(3)], rules) == (
        "collapse"
    )


def test_ending_rules_validation() -> None:
    with pytest.raises(ValueError):
        EndingRules(min_turns=20, max_turns=10)
    with pytest.raises(ValueError):
        EndingRules(collapse_window=0)
    with pytest.raises(ValueError):
        EndingRules(regression_ratio=1.5)


def test_replay_stops_at_the_ending_turn() -> None:
    status, turns = replay(P0, np.array([a(10.0)] + [a(0.0)] * 30))
    assert (status.outcome, status.victory_type, turns) == ("success", "geometric", 12)
    status, turns = replay(P0, np.array([a(0.0)] * 5))
    assert (status.outcome, turns) == ("ongoing", 5)


def test_paper_preset_ending_uses_dynamic_projection() -> None:
    # paper: projection_t = P_t . v*_t with v*_t = -P_{t-1} / ||P_{t-1}||.
    # turn 1: v = (6, 10, 0) from P_0 = (0, -10, 0): v*_1 = (0, 1, 0), delta_E = 10,
    #   P_1 = (6, 0, 0), ||P_1|| = 6 > 1, projection = 0 >= -1.
    # turns 2..12: v = 0; v*_t = -P_1 / ||P_1|| = (-1, 0, 0); projection = P_t . v*_t = -6 < -1,
    # so no positional victory (the official preset keeps v* = (0, 1, 0): projection 0 -> success).
    tracker, _ = run([[6.0, 10.0, 0.0]] + [a(0.0)] * 11, PAPER)
    assert tracker.status.outcome == "ongoing"
    assert tracker.projection == pytest.approx(-6.0)
    tracker, _ = run([[6.0, 10.0, 0.0]] + [a(0.0)] * 11, OFFICIAL)
    assert tracker.status.victory_type == "positional"


def test_state_block() -> None:
    tracker = EPMTracker([-6.0, -8.0, 0.0])
    block = tracker.state_block()
    # before any turn: projection P_0 . v* = -||P_0|| = -10, no alignment yet
    assert block["projection"] == pytest.approx(-10.0)
    assert block["last_alignment"] == 0.0 and block["turn"] == 0
    tracker.step([3.0, 0.0, 0.0])
    block = tracker.state_block()
    # v* = (0.6, 0.8, 0): delta_E = 1.8, alignment 0.6, P_1 = (-3, -8, 0),
    # projection = -1.8 - 6.4 = -8.2, distance: gaps (-2, -7, 0) -> sqrt(53)
    assert block["last_delta_E"] == pytest.approx(1.8)
    assert block["last_alignment"] == pytest.approx(0.6)
    assert block["projection"] == pytest.approx(-8.2)
    assert block["distance"] == pytest.approx(53**0.5)
    assert block["neg_eps_dir"] == pytest.approx(-1.0)
    assert block["eps_energy"] == pytest.approx(10.0)
