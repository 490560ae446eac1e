"""One call from a trajectory (or raw arrays) to every metric, index and the EPM-Index."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from epm.config import EPMConfig, get_preset
from epm.ending import EndStatus
from epm.indices import INDEX_NAMES, batch_indices, scores_from_indices
from epm.metrics import METRIC_NAMES, batch_metrics, pad_episodes
from epm.tracker import EPMTracker
from epm.trajectory import Trajectory


def _json_float(x: float) -> float | None:
    """JSON has no inf/nan: ``tau`` of a closed path becomes ``None`` (its index is 0 anyway)."""
    return float(x) if math.isfinite(x) else None


def evaluate_batch(
    p0: np.ndarray,
    v: np.ndarray,
    levels: np.ndarray,
    lengths: np.ndarray | None = None,
    config: EPMConfig | str = "official",
) -> dict[str, np.ndarray]:
    """Metrics, indices, dimension indices and EPM-Index for ``N`` padded episodes (arrays)."""
    config = get_preset(config)
    m = batch_metrics(p0, v, levels, lengths, config)
    idx = batch_indices(m, config)
    out: dict[str, np.ndarray] = {name: getattr(m, name) for name in METRIC_NAMES}
    out["E_surplus"] = m.E_surplus
    out["turns"] = m.turns
    out["norm_P0"] = m.norm_p0
    out["d0"] = m.d0
    out["dT"] = m.dT
    out.update(idx)
    out.update(
        {k: np.asarray(v) for k, v in scores_from_indices(idx, config.indices.weights).items()}
    )
    return out


def evaluate(trajectory: Trajectory, config: EPMConfig | str | None = None) -> dict[str, Any]:
    """A flat, JSON-safe dict: outcome, nine metrics, nine indices, dimensions, EPM-Index."""
    return evaluate_many([trajectory], config or trajectory.preset)[0]


def replay(
    p0: Sequence[float],
    increments: np.ndarray,
    config: EPMConfig | str = "official",
) -> tuple[EndStatus, int]:
    """Run the ending rules over recorded increments; returns the status and the turn it ended.

    Increments after the ending turn are ignored, as they would never have happened.
    """
    tracker = EPMTracker(np.asarray(p0, dtype=float), config)
    status = tracker.status
    for v in np.asarray(increments, dtype=float).reshape(-1, 3):
        _, status = tracker.step(v)
        if status.done:
            break
    return status, tracker.turn


def scored_turns(trajectory: Trajectory, config: EPMConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(v_t, levels)`` as scored. A conversation the policy ended with a goodbye before
    ``min_turns`` (``policy_left``) is scored as if the turns up to ``min_turns`` had been played
    with no move (``v_t = 0``, all levels 0): the user is left where they were. Otherwise leaving
    early would lock in a short trajectory's metrics, and a policy could raise its score by saying
    goodbye after a few good turns (measured: 45.6 for 3 attuned turns and a goodbye, 41.7
    scored this way, 47.8 for full play; 10 cases).

    A user who leaves (``user_left``: mistreated until their patience ran out) before
    ``min_turns`` is scored as if the last move had gone on until ``min_turns`` (the user walks
    out in the direction the policy drove them): padding with no move would raise the score of the
    policy that drove them away (zero moves after negative ones; measured: the lecturer 16.5 as
    played, 21.4 padded with zeros), and an optimiser would learn to be rude to end episodes.
    """
    inc, lev = trajectory.increments(), trajectory.levels()
    extra = unplayed_increments(trajectory.outcome, len(inc), inc[-1] if len(inc) else None, config)
    if len(extra):
        last = lev[-1:] if trajectory.outcome == "user_left" else np.zeros((1, lev.shape[1]))
        inc = np.vstack([inc, extra])
        lev = np.vstack([lev, np.repeat(last, len(extra), axis=0)])
    return inc, lev


def unplayed_increments(
    outcome: str, played: int, last_v: np.ndarray | None, config: EPMConfig
) -> np.ndarray:
    """The increments ``v_t`` scored for the turns an early user ending left unplayed (rows
    ``played + 1 .. min_turns``; none after ``min_turns`` or for other endings): ``policy_left``
    no move, ``user_left`` the last move ``last_v`` going on (see :func:`scored_turns`). The
    environment adds the reward of these turns to the last step's, so that the return an
    optimiser sees agrees with the score (a walk-out must not cut a stream of negative rewards
    short)."""
    missing = config.ending.min_turns - played
    if missing <= 0 or outcome not in ("policy_left", "user_left"):
        return np.zeros((0, 3))
    if outcome == "policy_left":
        return np.zeros((missing, 3))
    if last_v is None:
        return np.zeros((0, 3))
    return np.repeat(np.asarray(last_v, dtype=float).reshape(1, 3), missing, axis=0)


def evaluate_many(
    trajectories: Sequence[Trajectory], config: EPMConfig | str = "official"
) -> list[dict[str, Any]]:
    """:func:`evaluate` for many trajectories in one vectorised pass."""
    config = get_preset(config)
    if not trajectories:
        return []
    scored = [scored_turns(t, config) for t in trajectories]
    v, lv, lengths = pad_episodes([inc for inc, _ in scored], [lev for _, lev in scored])
    p0 = np.array([t.p0 for t in trajectories], dtype=float)
    arrays = evaluate_batch(p0, v, lv, lengths, config)
    rows = []
    for i, t in enumerate(trajectories):
        row: dict[str, Any] = {
            "case_id": t.case_id,
            "preset": config.name,
            "outcome": t.outcome,
            "success": t.outcome == "success",
            "victory_type": t.victory_type,
            "failure_reason": t.failure_reason,
            "judge_failures": t.judge_failures,
        }
        for key, value in arrays.items():
            row[key] = int(value[i]) if key == "turns" else _json_float(float(value[i]))
        rows.append(row)
    return rows


__all__ = [
    "INDEX_NAMES",
    "evaluate",
    "evaluate_batch",
    "evaluate_many",
    "replay",
    "scored_turns",
    "unplayed_increments",
]
