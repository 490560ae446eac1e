"""The deterministic rubrics: levels in, scores out (EMPA reference implementation, arXiv 2603.00552).

Judges (LLM or rule-based) produce *levels* and evidence; only this module turns levels into
numbers. Axes are always ordered ``(C, A, P)``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

AXES: tuple[str, str, str] = ("C", "A", "P")

#: IEDR: indicator -> score for level 0, 1, 2, 3.
IEDR_SCORES: dict[str, tuple[int, int, int, int]] = {
    "C.1": (0, -2, -4, -6),  # complexity of the situation
    "C.2": (0, -2, -4, -6),  # depth of the cognitive knot
    "C.3": (0, -3, -6, -9),  # priority of cognitive empathy
    "A.1": (0, -2, -4, -6),  # emotional intensity
    "A.2": (0, -4, -8, -12),  # emotional accessibility (how hard to reach)
    "A.3": (0, -3, -6, -9),  # priority of affective empathy
    "P.1": (0, -2, -4, -6),  # initial agency (0 = high agency)
    "P.2": (0, -4, -8, -12),  # relevance to the user's core values
    "P.3": (0, -3, -6, -9),  # priority of motivational empathy
}
IEDR_INDICATORS: tuple[str, ...] = tuple(IEDR_SCORES)
IEDR_DESCRIPTIONS: dict[str, str] = {
    "C.1": "complexity of the situation",
    "C.2": "depth of the cognitive knot",
    "C.3": "priority of cognitive empathy for this user",
    "A.1": "emotional intensity",
    "A.2": "emotional accessibility (how hard the user is to reach)",
    "A.3": "priority of affective empathy",
    "P.1": "initial agency (0 = high agency)",
    "P.2": "relevance to the user's core values",
    "P.3": "priority of motivational empathy",
}
#: The reference treats an unparsable IEDR level as 1.
IEDR_DEFAULT_LEVEL = 1

#: MDEP-PR: progress level (0, 1, 2) -> score, identical on every axis.
PROG_SCORES: dict[int, int] = {0: 0, 1: 1, 2: 3}
#: MDEP-PR: negative level (0, -1, -2) -> score, per axis.
NEG_SCORES: dict[str, dict[int, int]] = {
    "C": {0: 0, -1: -2, -2: -4},
    "A": {0: 0, -1: -2, -2: -5},
    "P": {0: 0, -1: -2, -2: -5},
}
PROG_LEVELS: tuple[int, ...] = (0, 1, 2)
NEG_LEVELS: tuple[int, ...] = (0, -1, -2)

Level = int | float


def initial_deficit(levels: Mapping[str, int]) -> np.ndarray:
    """``P_0`` from the nine IEDR indicator levels (each 0..3).

    Raises ``ValueError`` for a missing indicator or a level out of range: callers that want the
    reference's lenient default must substitute :data:`IEDR_DEFAULT_LEVEL` themselves.
    """
    p0 = np.zeros(3)
    for indicator, scores in IEDR_SCORES.items():
        if indicator not in levels:
            raise ValueError(
                f"IEDR level for {indicator} ({IEDR_DESCRIPTIONS[indicator]}) is missing"
            )
        level = levels[indicator]
        if (
            isinstance(level, bool)
            or not isinstance(level, (int, np.integer))
            or not 0 <= level <= 3
        ):
            raise ValueError(f"IEDR level for {indicator} must be an integer 0..3, got {level!r}")
        p0[AXES.index(indicator[0])] += scores[int(level)]
    return p0


def _is_level(value: object, lo: int, hi: int) -> bool:
    """An integer level, or a graded one: a real number between the integer levels."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return False
    return lo <= float(value) <= hi and np.isfinite(float(value))


def check_levels(prog: Mapping[str, Level], neg: Mapping[str, Level]) -> None:
    """Validate one MDEP-PR judgement; raises ``ValueError`` naming the bad field.

    Levels are the published integers ``{0, 1, 2}`` and ``{0, -1, -2}``, or graded levels between
    them (a judge that rates finer than the rubric, such as the offline judge: ``1.5`` is half way
    between level 1 and level 2)."""
    for axis in AXES:
        p = prog.get(axis)
        n = neg.get(axis)
        if not _is_level(p, 0, 2):
            raise ValueError(f"{axis}_Prog_level must be in [0, 2] (one of {PROG_LEVELS} or "
                             f"between them), got {p!r}")  # fmt: skip
        if not _is_level(n, -2, 0):
            raise ValueError(f"{axis}_Neg_level must be in [-2, 0] (one of {NEG_LEVELS} or "
                             f"between them), got {n!r}")  # fmt: skip


def _interpolate(table: Mapping[int, int], level: Level) -> float:
    """The score of a level: the table's value at an integer level, linear between them."""
    x = float(level)
    lo = int(np.floor(x)) if x >= 0 else -int(np.floor(-x))
    if x == lo:
        return float(table[lo])
    hi = lo + 1 if x > 0 else lo - 1
    frac = abs(x - lo)
    return float(table[lo]) + frac * (float(table[hi]) - float(table[lo]))


def prog_score(level: Level) -> float:
    """Score of a progress level (:data:`PROG_SCORES`; graded levels linear between)."""
    return _interpolate(PROG_SCORES, level)


def neg_score(axis: str, level: Level) -> float:
    """Score of a negative level on ``axis`` (:data:`NEG_SCORES`; graded levels linear between)."""
    return _interpolate(NEG_SCORES[axis], level)


def increment(prog: Mapping[str, Level], neg: Mapping[str, Level]) -> np.ndarray:
    """``v_t``: per axis, Prog score + Neg score. Integer levels give exactly the published
    scores; a graded level scores linearly between its neighbours (``1.5`` -> 2.0 on Prog)."""
    check_levels(prog, neg)
    return np.array([prog_score(prog[a]) + neg_score(a, neg[a]) for a in AXES], dtype=float)


def dominant_axis(p0: np.ndarray) -> str:
    """The axis with the largest ``|deficit|``; ties broken C, then A, then P."""
    mags = np.abs(np.asarray(p0, dtype=float))
    return AXES[int(np.argmax(mags))]  # argmax returns the first maximum: C < A < P


# Difficulty bands by ||P_0|| relative to the reference pool (mu = 32.32, sd = 4.52).
POOL_NORM_MEAN = 32.32
POOL_NORM_SD = 4.52
DIFFICULTY_BANDS: tuple[str, ...] = ("easy", "medium", "hard", "extreme")


def difficulty_band(norm_p0: float, mu: float = POOL_NORM_MEAN, sd: float = POOL_NORM_SD) -> str:
    """easy < mu - sd <= medium < mu <= hard < mu + sd <= extreme."""
    if norm_p0 < mu - sd:
        return "easy"
    if norm_p0 < mu:
        return "medium"
    if norm_p0 < mu + sd:
        return "hard"
    return "extreme"
