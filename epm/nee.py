"""NEE aggregation and the final comprehensive score FCS (EMPA reference implementation, arXiv 2603.00552).

Each NEE judge scores linguistic naturalness (0-30), contextual pacing (0-40) and narrative arc
(0-30); a judge's NEE is their sum (0-100) and the panel's NEE is the mean over judges.
``FCS = 0.6 * EPM-Index + 0.4 * NEE`` (Echo-N1 Table 11).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

NEE_MAXIMA: dict[str, float] = {"naturalness": 30.0, "pacing": 40.0, "narrative_arc": 30.0}
FCS_WEIGHTS: tuple[float, float] = (0.6, 0.4)


@dataclass(frozen=True)
class NEEScore:
    """One judge's three sub-scores, validated against their maxima."""

    naturalness: float
    pacing: float
    narrative_arc: float
    judge: str = ""
    diagnosis: str = ""

    def __post_init__(self) -> None:
        for name, top in NEE_MAXIMA.items():
            value = getattr(self, name)
            if not 0.0 <= value <= top:
                raise ValueError(f"NEE {name} must be within 0..{top:g}, got {value!r}")

    @property
    def total(self) -> float:
        return self.naturalness + self.pacing + self.narrative_arc


@dataclass(frozen=True)
class PanelResult:
    """The panel's mean NEE and spread, with the mean of each sub-score."""

    nee: float
    nee_std: float
    naturalness: float
    pacing: float
    narrative_arc: float
    judges: int


def panel_nee(scores: Sequence[NEEScore]) -> PanelResult:
    """Average a panel of judges (population standard deviation as the spread)."""
    if not scores:
        raise ValueError("an NEE panel needs at least one judge score")
    totals = np.array([s.total for s in scores])
    return PanelResult(
        nee=float(totals.mean()),
        nee_std=float(totals.std()),
        naturalness=float(np.mean([s.naturalness for s in scores])),
        pacing=float(np.mean([s.pacing for s in scores])),
        narrative_arc=float(np.mean([s.narrative_arc for s in scores])),
        judges=len(scores),
    )


def nee_from_subscores(naturalness: float, pacing: float, narrative_arc: float) -> float:
    """NEE as Table 11 uses it: the sum of the three sub-score means."""
    return naturalness + pacing + narrative_arc


def fcs(epm_index: float, nee: float, weights: tuple[float, float] = FCS_WEIGHTS) -> float:
    """``FCS = 0.6 * EPM-Index + 0.4 * NEE``."""
    return weights[0] * epm_index + weights[1] * nee
