"""Echo-N1 Tables 9 and 11 reproduced from Tables 8 and 10 by the project's own code."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import paper_tables as pt

TOL = 0.01


def test_inputs_cover_all_six_models() -> None:
    for table in (pt.TABLE8, pt.TABLE9_PUBLISHED, pt.TABLE10, pt.TABLE11_PUBLISHED):
        assert tuple(table) == pt.MODELS
    assert pt.table8_published().shape == (6, 9)
    assert pt.table10_published().shape == (6, 5)


def test_gemini_worked_example() -> None:
    # Echo-N1 Tables 8-9: RDI 92.59, Etot 90.1, Snet 124.2 -> Outcome 102.30;
    # rho 65.5, Sproj 62.17, tau 81.37 -> Efficiency 69.68; Rpos 88.16, Align 87.12,
    # Pen 93.81 -> Stability 89.70; EPM-Index 90.73; with NEE 91 -> FCS 90.84
    row = pt.table9_computed().loc["Gemini 2.5 Pro"]
    assert row["Outcome"] == pytest.approx((92.59 + 90.1 + 124.2) / 3)
    assert row["Efficiency"] == pytest.approx((65.5 + 62.17 + 81.37) / 3)
    assert row["Stability"] == pytest.approx((88.16 + 87.12 + 93.81) / 3)
    assert row["EPM_Index"] == pytest.approx(90.7333, abs=1e-4)
    t11 = pt.table11_computed().loc["Gemini 2.5 Pro"]
    assert t11["NEE"] == 91.0
    assert t11["FCS"] == pytest.approx(0.6 * row["EPM_Index"] + 0.4 * 91.0)


def test_table9_every_cell_within_tolerance() -> None:
    computed = pt.table9_computed()
    published = pt.table9_published()
    assert list(computed.index) == list(published.index)
    diff = (computed[published.columns] - published).abs()
    assert (diff.to_numpy() <= TOL).all(), diff


def test_table11_every_cell_within_tolerance() -> None:
    computed = pt.table11_computed()
    published = pt.table11_published()
    assert computed["rank"].to_dict() == published["rank"].to_dict()
    assert list(computed.index) == list(published.index)  # same ranking order
    for col in ("EPM_Index", "NEE", "FCS"):
        diff = (computed[col] - published[col]).abs()
        assert (diff <= TOL).all(), (col, diff)


def test_nee_is_rounded_sum_of_subscores_not_the_mean_column() -> None:
    nee = pt.nee_for_table11()
    # 27.26 + 37.04 + 26.7 = 91.00 -> 91, while Table 10's mean column says 90.01
    assert nee["Gemini 2.5 Pro"] == 91.0
    assert pt.table10_published().loc["Gemini 2.5 Pro", "NEE_mean"] == 90.01
    # 24.31 + 33.17 + 24.45 = 81.93 -> 82; 13.73 + 19.96 + 18.30 = 51.99 -> 52
    assert nee["Qwen 3 235B"] == 82.0 and nee["Qwen 3 32B (Base Model)"] == 52.0
    assert nee.to_dict() == {m: float(v[2]) for m, v in pt.TABLE11_PUBLISHED.items()}


def test_comparison_frame_and_json() -> None:
    tables = pt.comparisons()
    for frame in tables.values():
        assert pt.max_abs_diff(frame) <= TOL
        assert set(frame.columns.get_level_values(1)) == {"computed", "published", "diff"}
    payload = pt.to_json_dict(tables)
    assert payload["reproduced"] is True
    cell = payload["table9"]["Echo-N1"]["EPM_Index"]
    assert cell["published"] == 72.57
    assert cell["diff"] == pytest.approx(cell["computed"] - 72.57)
    assert payload["max_abs_diff"] <= TOL


def test_a_wrong_input_is_detected() -> None:
    # perturb one Table-8 cell: the comparison must notice
    t8 = pt.table8_published()
    t8.loc["Echo-N1", "RDI"] += 3.0  # Outcome +1.0, EPM-Index +0.4
    frame = pt.compare(pt.table9_computed(t8), pt.table9_published())
    assert pt.max_abs_diff(frame) == pytest.approx(1.0, abs=0.01)


def _run_cli(argv: list[str]) -> int:
    """The real ``empa`` command line (the ``paper-tables`` entry point)."""
    from empa_env.cli import main

    return main(argv)


def test_subcommand_prints_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run_cli(["paper-tables"]) == 0
    out = capsys.readouterr().out
    assert "Table 9" in out and "Table 11" in out and "Qwen 3 32B (Base Model)" in out
    assert "reproduced" in out


def test_subcommand_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run_cli(["paper-tables", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) >= {"table9", "table11", "max_abs_diff", "reproduced"}
    fcs = [payload["table11"][m]["FCS"]["computed"] for m in pt.MODELS]
    assert np.all(np.diff(fcs) < 0)  # ranked
