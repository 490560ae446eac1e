"""Aggregation over episodes into DataFrames: per-episode rows, per-model summary, Tables 8/9/11."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from epm import INDEX_NAMES
from epm.aggregate import (
    TABLE8_LABELS,
    episodes_frame,
    model_summary,
    table8,
    table9,
    table11,
    weighting_table,
)


def _episodes() -> pd.DataFrame:
    # model "a": two episodes, every index 60 then 80 (Idx_RDI 100 then 50);
    # model "b": one episode, every index 30.
    rows = []
    for model, value, rdi, success in (("a", 60.0, 100.0, True), ("a", 80.0, 50.0, False),
                                       ("b", 30.0, 30.0, False)):  # fmt: skip
        row = {"model": model, "success": success, "turns": 20, "E_total": value / 10}
        row.update(dict.fromkeys(INDEX_NAMES, value))
        row["Idx_RDI"] = rdi
        rows.append(row)
    return episodes_frame(rows)


def test_table8_means_with_paper_labels() -> None:
    t8 = table8(_episodes())
    assert list(t8.columns) == [TABLE8_LABELS[n] for n in INDEX_NAMES]
    assert list(t8.index) == ["a", "b"]
    # a: RDI mean (100 + 50) / 2 = 75; every other index (60 + 80) / 2 = 70
    assert t8.loc["a", "RDI"] == 75.0 and t8.loc["a", "tau"] == 70.0
    assert t8.loc["b", "cos_theta"] == 30.0


def test_table9_from_table8() -> None:
    t9 = table9(table8(_episodes()))
    # a: Outcome (75 + 70 + 70) / 3 = 71.667, Efficiency 70, Stability 70
    #    EPM-Index = 0.4 * 71.667 + 0.2 * 70 + 0.4 * 70 = 28.667 + 14 + 28 = 70.667
    assert t9.loc["a", "Outcome"] == pytest.approx(215 / 3)
    assert t9.loc["a", "Efficiency"] == pytest.approx(70.0)
    assert t9.loc["a", "EPM_Index"] == pytest.approx(0.4 * 215 / 3 + 0.2 * 70 + 0.4 * 70)
    assert t9.loc["b", "EPM_Index"] == pytest.approx(30.0)
    # raw index column names work too, and custom weights
    raw = _episodes().groupby("model")[list(INDEX_NAMES)].mean()
    t9w = table9(raw, weights=(1.0, 0.0, 0.0))
    assert t9w.loc["a", "EPM_Index"] == pytest.approx(215 / 3)


def test_table11_ranks_by_fcs() -> None:
    epm_idx = pd.Series({"x": 50.0, "y": 90.0, "z": 80.0})
    nee = pd.Series({"x": 100.0, "y": 30.0, "z": 70.0})
    t11 = table11(epm_idx, nee)
    # FCS = 0.6 * EPM-Index + 0.4 * NEE: x = 30 + 40 = 70; y = 54 + 12 = 66; z = 48 + 28 = 76
    assert list(t11.columns) == ["rank", "EPM_Index", "NEE", "FCS"]
    assert list(t11.index) == ["z", "x", "y"]
    assert t11["rank"].tolist() == [1, 2, 3]
    assert t11["FCS"].tolist() == pytest.approx([76.0, 70.0, 66.0])


def test_model_summary_means_std_counts() -> None:
    s = model_summary(_episodes())
    assert s.loc["a", "episodes"] == 2 and s.loc["b", "episodes"] == 1
    assert s.loc["a", "Idx_RDI_mean"] == 75.0
    # sample standard deviation of (100, 50): sqrt(((25)^2 + (25)^2) / 1) = 35.355
    assert s.loc["a", "Idx_RDI_std"] == pytest.approx(np.sqrt(1250.0))
    assert np.isnan(s.loc["b", "Idx_RDI_std"])  # one episode: undefined
    assert s.loc["a", "success_rate"] == 50.0 and s.loc["b", "success_rate"] == 0.0
    assert s.loc["a", "E_total_mean"] == pytest.approx(7.0)
    assert s.loc["a", "turns_mean"] == 20


def test_weighting_table() -> None:
    dims = pd.DataFrame(
        {"Outcome": [100.0, 0.0], "Efficiency": [50.0, 100.0], "Stability": [80.0, 0.0]},
        index=["m1", "m2"],
    )
    wt = weighting_table(dims, ["official", "task_oriented_counselling"])
    assert wt.loc["m1", "official"] == pytest.approx(82.0)  # 40 + 10 + 32
    # m2 has only efficiency: 0.2 * 100 vs 0.5 * 100
    assert wt.loc["m2", "official"] == pytest.approx(20.0)
    assert wt.loc["m2", "task_oriented_counselling"] == pytest.approx(50.0)
    assert len(weighting_table(dims).columns) >= 4
