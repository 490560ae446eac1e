"""IEDR -> P_0 and MDEP-PR -> v_t: the deterministic rubrics (EMPA reference implementation, arXiv 2603.00552)."""

from __future__ import annotations

import numpy as np
import pytest

from epm.rubric import (
    IEDR_INDICATORS,
    difficulty_band,
    dominant_axis,
    increment,
    initial_deficit,
)

ZERO = {"C": 0, "A": 0, "P": 0}


def _iedr(**levels: int) -> dict[str, int]:
    out = {k: 0 for k in IEDR_INDICATORS}
    out.update({k.replace("_", "."): v for k, v in levels.items()})
    return out


def test_nine_indicators_in_order() -> None:
    assert IEDR_INDICATORS == ("C.1", "C.2", "C.3", "A.1", "A.2", "A.3", "P.1", "P.2", "P.3")


def test_initial_deficit_all_zero_levels_is_origin() -> None:
    assert initial_deficit(_iedr()).tolist() == [0.0, 0.0, 0.0]


def test_initial_deficit_maximum() -> None:
    # C: -6 - 6 - 9 = -21; A: -6 - 12 - 9 = -27; P: -6 - 12 - 9 = -27
    p0 = initial_deficit({k: 3 for k in IEDR_INDICATORS})
    assert p0.tolist() == [-21.0, -27.0, -27.0]


def test_initial_deficit_mixed_levels() -> None:
    # C.1=1 -> -2, C.2=2 -> -4, C.3=1 -> -3            => C = -9
    # A.1=3 -> -6, A.2=1 -> -4, A.3=2 -> -6            => A = -16
    # P.1=0 ->  0, P.2=2 -> -8, P.3=3 -> -9            => P = -17
    levels = _iedr(C_1=1, C_2=2, C_3=1, A_1=3, A_2=1, A_3=2, P_1=0, P_2=2, P_3=3)
    assert initial_deficit(levels).tolist() == [-9.0, -16.0, -17.0]


@pytest.mark.parametrize(
    ("indicator", "level", "axis", "score"),
    [
        ("C.1", 2, 0, -4), ("C.2", 3, 0, -6), ("C.3", 2, 0, -6),
        ("A.1", 1, 1, -2), ("A.2", 3, 1, -12), ("A.3", 3, 1, -9),
        ("P.1", 3, 2, -6), ("P.2", 1, 2, -4), ("P.3", 1, 2, -3),
    ],
)  # fmt: skip
def test_each_indicator_scores_on_its_axis(
    indicator: str, level: int, axis: int, score: int
) -> None:
    levels = _iedr()
    levels[indicator] = level
    expected = [0.0, 0.0, 0.0]
    expected[axis] = float(score)
    assert initial_deficit(levels).tolist() == expected


def test_initial_deficit_rejects_missing_and_bad_levels() -> None:
    levels = _iedr()
    del levels["A.2"]
    with pytest.raises(ValueError, match="A.2"):
        initial_deficit(levels)
    for bad in (4, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="P.3"):
            initial_deficit({**_iedr(), "P.3": bad})


def test_increment_prog_scores() -> None:
    # Prog 0/1/2 -> 0/+1/+3 on every axis
    assert increment({"C": 1, "A": 2, "P": 0}, ZERO).tolist() == [1.0, 3.0, 0.0]
    assert increment({"C": 2, "A": 0, "P": 1}, ZERO).tolist() == [3.0, 0.0, 1.0]


def test_increment_neg_scores_per_axis() -> None:
    # C.Neg -1/-2 -> -2/-4; A.Neg and P.Neg -1/-2 -> -2/-5
    assert increment(ZERO, {"C": -1, "A": -1, "P": -1}).tolist() == [-2.0, -2.0, -2.0]
    assert increment(ZERO, {"C": -2, "A": -2, "P": -2}).tolist() == [-4.0, -5.0, -5.0]


def test_increment_prog_and_neg_on_same_axis_add_up() -> None:
    # C: +3 - 4 = -1; A: +1 - 5 = -4; P: +3 - 2 = +1
    v = increment({"C": 2, "A": 1, "P": 2}, {"C": -2, "A": -2, "P": -1})
    assert v.tolist() == [-1.0, -4.0, 1.0]


def test_increment_rejects_bad_levels() -> None:
    with pytest.raises(ValueError, match="C_Prog_level"):
        increment({"C": 3, "A": 0, "P": 0}, ZERO)
    with pytest.raises(ValueError, match="A_Neg_level"):
        increment(ZERO, {"C": 0, "A": 1, "P": 0})
    with pytest.raises(ValueError, match="P_Prog_level"):
        increment({"C": 0, "A": 0}, ZERO)
    with pytest.raises(ValueError, match="C_Prog_level"):
        increment({"C": True, "A": 0, "P": 0}, ZERO)


def test_dominant_axis_and_ties() -> None:
    assert dominant_axis(np.array([-3.0, -9.0, -4.0])) == "A"
    assert dominant_axis(np.array([-3.0, -4.0, -12.0])) == "P"
    # ties broken C, then A, then P
    assert dominant_axis(np.array([-9.0, -9.0, -9.0])) == "C"
    assert dominant_axis(np.array([-3.0, -9.0, -9.0])) == "A"


@pytest.mark.parametrize(
    ("norm", "band"),
    [
        (17.0, "easy"), (27.79, "easy"),      # mu - sd = 32.32 - 4.52 = 27.80
        (27.80, "medium"), (32.31, "medium"),
        (32.32, "hard"), (36.83, "hard"),     # mu + sd = 36.84
        (36.84, "extreme"), (41.0, "extreme"),
    ],
)  # fmt: skip
def test_difficulty_band_cut_points(norm: float, band: str) -> None:
    assert difficulty_band(norm) == band
