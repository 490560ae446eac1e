"""Ending rules (EMPA reference implementation, arXiv 2603.00552): success, failure, truncation.

Order each turn: success check, failure check, then (in the environment) the Director.
Every rule applies only from ``min_turns`` on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from epm.config import EndingRules
from epm.dynamics import Thresholds

Outcome = Literal[
    "ongoing", "success", "failure", "truncated", "director_end", "user_left", "policy_left"
]  # fmt: skip
#: Endings the simulated user decides: it leaves, or it takes the policy's goodbye.
USER_ENDINGS: tuple[str, ...] = ("user_left", "policy_left")
VictoryType = Literal["geometric", "positional", "alignment"]
FailureReason = Literal["collapse", "stagnation_regression", "oscillation"]


@dataclass(frozen=True)
class EndStatus:
    """Where an episode stands after a turn."""

    outcome: Outcome = "ongoing"
    victory_type: VictoryType | None = None
    failure_reason: FailureReason | None = None

    @property
    def done(self) -> bool:
        return self.outcome != "ongoing"


ONGOING = EndStatus()


def _sample_stdev(values: Sequence[float]) -> float:
    """Sample standard deviation (ddof = 1, as the reference code's ``statistics.stdev``).

    Fast for a 5-point window; a single value has no spread (0.0).
    """
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return (sum((x - mean) ** 2 for x in values) / (n - 1)) ** 0.5


def check_success(
    turn: int,
    norm_p: float,
    projection: float,
    e_total: float,
    mean_alignment: float,
    thresholds: Thresholds,
    rules: EndingRules,
) -> VictoryType | None:
    """``(||P_t|| <= eps_dist OR projection_t >= -eps_dir) AND E_total >= eps_energy``."""
    if turn < rules.min_turns or e_total < thresholds.eps_energy:
        return None
    if norm_p <= thresholds.eps_dist:
        return "geometric"
    if projection >= -thresholds.eps_dir:
        return "positional"
    if rules.alignment_branch and mean_alignment > rules.tau_align:
        return "alignment"
    return None


def check_failure(
    turn: int,
    delta_e: Sequence[float],
    norms: Sequence[float],
    positions: Sequence[np.ndarray],
    rules: EndingRules,
) -> FailureReason | None:
    """Collapse, or stagnation AND regression, or (if enabled) oscillation.

    ``delta_e`` has one entry per turn so far; ``norms`` and ``positions`` one per point
    (``turn + 1`` entries, point 0 = ``P_0``). Stagnation is the *sample* standard deviation
    (ddof = 1) of ``||P_t||`` over the last ``stagnation_window`` points. Oscillation (the
    reference's Director-level stop, checked last) looks at the ``oscillation_window + 1``
    points ``P_{t-w} .. P_t``: summed L1 size of their ``w`` increments ``>= oscillation_min_path``
    while the L1 distance between ``P_{t-w}`` and ``P_t`` is ``< oscillation_max_displacement``.
    """
    if turn < rules.min_turns:
        return None
    w = rules.collapse_window
    if len(delta_e) >= w and all(x < 0 for x in delta_e[-w:]):
        return "collapse"
    w = rules.stagnation_window
    stagnant = len(norms) >= w and _sample_stdev(norms[-w:]) < rules.stagnation_std
    w = rules.regression_window
    window = delta_e[-w:]
    regressing = (
        len(delta_e) >= w
        and sum(1 for x in window if x < 0) > rules.regression_ratio * w
        and float(sum(window)) < rules.regression_sum
    )
    if stagnant and regressing:
        return "stagnation_regression"
    if rules.oscillation_rule:
        w = rules.oscillation_window
        if len(positions) > w:
            recent = np.asarray(positions[-(w + 1) :])
            path_l1 = float(np.abs(np.diff(recent, axis=0)).sum())
            displacement_l1 = float(np.abs(recent[-1] - recent[0]).sum())
            if (
                path_l1 >= rules.oscillation_min_path
                and displacement_l1 < rules.oscillation_max_displacement
            ):
                return "oscillation"
    return None
