"""The Empathy Physics Model (EPM): pure math, numpy only, no I/O and no LLMs.

The user's state is a deficit vector ``P_t`` in ``R^3`` over the axes (C, A, P). Each reply is
an increment ``v_t`` computed from judge *levels* by a deterministic rubric; the physics turns
the trajectory into work (``delta_E``), alignment, distance, ending rules, rewards, metrics and the
EPM-Q indices.
"""

from epm.config import OFFICIAL, PAPER, PRESETS, EndingRules, EPMConfig, IndexConstants, get_preset
from epm.dynamics import batch_physics, goal_distance, turn_physics, unit_toward_origin
from epm.ending import EndStatus
from epm.episode import evaluate, evaluate_batch, evaluate_many, replay
from epm.indices import DIMENSIONS, INDEX_NAMES, batch_indices, epm_index, scores_from_indices
from epm.metrics import METRIC_NAMES, batch_metrics
from epm.nee import NEEScore, PanelResult, fcs, panel_nee
from epm.rewards import REWARD_KINDS, RewardFunction, trajectory_rewards
from epm.rubric import (
    AXES,
    IEDR_INDICATORS,
    difficulty_band,
    dominant_axis,
    increment,
    initial_deficit,
)
from epm.tracker import EPMTracker
from epm.trajectory import Judgement, Trajectory, TurnRecord
from epm.weighting import WEIGHTINGS, Weighting, register_weighting

__all__ = [
    "AXES", "DIMENSIONS", "IEDR_INDICATORS", "INDEX_NAMES", "METRIC_NAMES", "OFFICIAL", "PAPER",
    "PRESETS", "REWARD_KINDS", "WEIGHTINGS", "EPMConfig", "EPMTracker", "EndStatus", "EndingRules",
    "IndexConstants", "Judgement", "NEEScore", "PanelResult", "RewardFunction", "Trajectory",
    "TurnRecord", "Weighting", "batch_indices", "batch_metrics", "batch_physics",
    "difficulty_band", "dominant_axis", "epm_index", "evaluate", "evaluate_batch", "evaluate_many",
    "fcs", "get_preset", "goal_distance", "increment", "initial_deficit", "panel_nee",
    "register_weighting", "replay", "scores_from_indices", "trajectory_rewards", "turn_physics",
    "unit_toward_origin",
]  # fmt: skip
