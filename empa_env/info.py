"""The ``info`` dict of :class:`~empa_env.env.EMPAEnv`: one documented type for every step.

``reset`` and ``step`` return the same keys with the same types on every call, including the
first and the last step, so Gymnasium's vector environments can batch them (they build one array
per key from the first value's type). Where a value does not exist yet it has a typed empty value:
``""`` for text, ``{}`` for mappings, ``nan`` for an undefined number; never ``None``.
"""

from __future__ import annotations

import math
from typing import Any, TypedDict


class DirectorInfo(TypedDict):
    """The Director's tool call this turn. ``tool`` is ``""`` when the Director did not act
    (at reset, and on a step that ended the episode before the Director's turn)."""

    tool: str
    args: dict[str, Any]
    #: Why the call was refused (a rule it broke, or the Director's failure); ``""`` if accepted.
    rejected: str


class StepInfo(TypedDict):
    """Everything ``reset`` and ``step`` report besides the observation and reward."""

    case_id: str
    #: 0 at reset, then the number of the reply just judged.
    turn: int
    p0: list[float]
    dominant_axis: str
    difficulty: str
    domain: str
    preset: str
    #: ``C_Prog``, ``A_Prog``, ``P_Prog`` in [0, 2]; ``C_Neg``, ``A_Neg``, ``P_Neg`` in [-2, 0]:
    #: integers from the LLM and official judges, multiples of 0.05 from the graded offline judge.
    levels: dict[str, float]
    #: The quote of the reply behind each non-zero level, by the same keys.
    evidence: dict[str, str]
    reasoning: dict[str, str]
    #: A Judger failure is recorded, never a silent zero: ``judge_failed`` and the error.
    judge_failed: bool
    judge_error: str
    #: ``v_t`` and ``P_t`` (C, A, P).
    increment: list[float]
    position: list[float]
    delta_E: float
    alignment: float
    projection: float
    distance: float
    E_total: float
    director: DirectorInfo
    #: ``ongoing``, ``success``, ``failure``, ``director_end``, ``user_left`` (the user
    #: left), ``policy_left`` (the policy said goodbye) or ``truncated``.
    status: str
    victory_type: str
    failure_reason: str
    #: Why the episode was cut short by a role failure (the Actor could not answer); else ``""``.
    aborted: str
    #: Why the user's message is a canned fallback line, not the Actor's own (an LLM Actor that
    #: failed to answer); ``""`` when the Actor spoke for itself. Counted in the trajectory meta.
    actor_fallback: str
    #: EPM metrics, indices and EPM-Index of the finished episode; ``{}`` until the last step.
    #: Numbers are floats (``nan`` where undefined); the JSON-safe record is ``epm.evaluate``'s.
    epm: dict[str, Any]


LEVEL_KEYS: tuple[str, ...] = ("C_Prog", "A_Prog", "P_Prog", "C_Neg", "A_Neg", "P_Neg")
NO_DIRECTOR: DirectorInfo = {"tool": "", "args": {}, "rejected": ""}


def director_info(action: dict[str, Any] | None) -> DirectorInfo:
    """The Director's call as recorded in the trajectory, in its typed ``info`` form."""
    if not action:
        return {"tool": "", "args": {}, "rejected": ""}
    return {
        "tool": str(action.get("tool") or ""),
        "args": dict(action.get("args") or {}),
        "rejected": str(action.get("rejected") or ""),
    }


def typed_metrics(metrics: dict[str, Any]) -> dict[str, Any]:
    """``epm.evaluate``'s row with ``None`` numbers as ``nan`` and ``None`` labels as ``""``."""
    out: dict[str, Any] = {}
    for key, value in metrics.items():
        if value is None:
            out[key] = "" if key in _TEXT_METRICS else math.nan
        else:
            out[key] = value
    return out


_TEXT_METRICS = frozenset({"case_id", "preset", "outcome", "victory_type", "failure_reason"})

__all__ = [
    "LEVEL_KEYS",
    "NO_DIRECTOR",
    "DirectorInfo",
    "StepInfo",
    "director_info",
    "typed_metrics",
]
