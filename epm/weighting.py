"""The open evaluation paradigm: weightings of the three dimensions are data, not code.

``official`` is the paper's 0.4 / 0.2 / 0.4. The scenario weightings follow the paper's text
(section 4.3.3): crisis intervention puts stability first, long-term companionship outcome
first, task-oriented counselling efficiency first. Users add their own with
:func:`register_weighting`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Weighting:
    name: str
    outcome: float
    efficiency: float
    stability: float
    description: str = ""

    def __post_init__(self) -> None:
        w = (self.outcome, self.efficiency, self.stability)
        if min(w) < 0 or not np.isclose(sum(w), 1.0):
            raise ValueError(f"weighting {self.name!r}: weights must be >= 0 and sum to 1, got {w}")

    def as_dict(self) -> dict[str, float]:
        return {"Outcome": self.outcome, "Efficiency": self.efficiency, "Stability": self.stability}


WEIGHTINGS: dict[str, Weighting] = {
    w.name: w
    for w in (
        Weighting("official", 0.4, 0.2, 0.4, "the paper's EPM-Index"),
        Weighting("crisis_intervention", 0.25, 0.15, 0.60, "stability first: safe, no harm"),
        Weighting(
            "long_term_companionship", 0.55, 0.10, 0.35, "outcome first, tolerant of detours"
        ),
        Weighting(
            "task_oriented_counselling", 0.30, 0.50, 0.20, "efficiency first: few, dense turns"
        ),
    )
}


def register_weighting(weighting: Weighting) -> None:
    """Add a user-defined weighting (replaces one of the same name)."""
    WEIGHTINGS[weighting.name] = weighting


def weighted_index(dimensions: Mapping[str, float], weighting: str | Weighting) -> float:
    w = WEIGHTINGS[weighting] if isinstance(weighting, str) else weighting
    return sum(w.as_dict()[d] * dimensions[d] for d in ("Outcome", "Efficiency", "Stability"))
