"""Reproduce Echo-N1 Tables 9 and 11 from the published inputs with the project's own ``epm`` code.

Inputs (as printed in the Echo-N1 paper, section 5.3):

* Table 8: the per-model means of the nine EPM-Q indices;
* Table 10: the per-model means of the three NEE sub-scores (naturalness 0-30, contextual
  pacing 0-40, narrative arc 0-30).

Computed here:

* Table 9: ``S_Outcome``, ``S_Efficiency``, ``S_Stability`` (means of their three indices) and
  ``EPM-Index = 0.4 * S_Outcome + 0.2 * S_Efficiency + 0.4 * S_Stability``
  (:func:`epm.aggregate.table9`);
* Table 11: ``FCS = 0.6 * EPM-Index + 0.4 * NEE`` (:func:`epm.aggregate.table11`), where NEE is
  the sum of the three Table-10 sub-score means rounded to an integer, as the paper's Table 11
  does (Gemini 2.5 Pro: 27.26 + 37.04 + 26.7 = 91.0), not Table 10's "NEE Score (Mean)" column.

``empa paper-tables`` prints both computed tables next to the published values and the
difference, and exits non-zero when any cell differs by more than :data:`TOLERANCE`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping
from typing import Any

import pandas as pd

from epm.aggregate import table9, table11

#: Largest accepted |computed - published| per cell (the published figures are rounded to 0.01).
TOLERANCE = 0.01

MODELS: tuple[str, ...] = (
    "Gemini 2.5 Pro",
    "Qwen 3 235B",
    "Kimi k2-0905",
    "Echo-N1",
    "Doubao 1.5 Character",
    "Qwen 3 32B (Base Model)",
)

#: Echo-N1 Table 8: per-model means of the nine EPM-Q indices, columns as the paper labels them.
TABLE8_COLUMNS: tuple[str, ...] = (
    "RDI", "E_total", "S_net", "rho", "S_proj", "tau", "R_pos", "cos_theta", "R_pen",
)  # fmt: skip
TABLE8: dict[str, tuple[float, ...]] = {
    "Gemini 2.5 Pro": (92.59, 90.1, 124.2, 65.5, 62.17, 81.37, 88.16, 87.12, 93.81),
    "Qwen 3 235B": (91.95, 91.71, 121.29, 88.3, 82.55, 74.03, 80.15, 82.0, 82.31),
    "Kimi k2-0905": (87.33, 86.63, 123.17, 72.55, 68.28, 70.18, 80.13, 81.63, 82.11),
    "Echo-N1": (69.76, 68.08, 145.61, 35.65, 34.19, 33.93, 68.13, 71.47, 69.35),
    "Doubao 1.5 Character": (23.76, 12.29, 46.27, 5.19, 5.02, 47.87, 36.54, 41.08, 37.84),
    "Qwen 3 32B (Base Model)": (5.35, 0.04, 7.73, 0.04, 0.04, 77.74, 20.91, 29.97, 7.86),
}

#: Echo-N1 Table 9 as published.
TABLE9_COLUMNS: tuple[str, ...] = ("Outcome", "Efficiency", "Stability", "EPM_Index")
TABLE9_PUBLISHED: dict[str, tuple[float, float, float, float]] = {
    "Gemini 2.5 Pro": (102.3, 69.68, 89.7, 90.73),
    "Qwen 3 235B": (101.65, 81.63, 81.49, 89.58),
    "Kimi k2-0905": (99.04, 70.34, 81.29, 86.2),
    "Echo-N1": (94.48, 34.59, 69.65, 72.57),
    "Doubao 1.5 Character": (27.44, 19.36, 38.49, 30.24),
    "Qwen 3 32B (Base Model)": (4.37, 25.94, 19.58, 14.77),
}

#: Echo-N1 Table 10: panel NEE mean and std, then the three sub-score means.
TABLE10_COLUMNS: tuple[str, ...] = ("NEE_mean", "NEE_std", "naturalness", "pacing", "narrative_arc")
TABLE10: dict[str, tuple[float, float, float, float, float]] = {
    "Gemini 2.5 Pro": (90.01, 3.18, 27.26, 37.04, 26.7),
    "Qwen 3 235B": (81.92, 1.65, 24.31, 33.17, 24.45),
    "Kimi k2-0905": (78.01, 2.04, 23.07, 31.69, 23.34),
    "Echo-N1": (75.01, 6.6, 21.73, 30.70, 22.58),
    "Doubao 1.5 Character": (62.34, 10.15, 18.97, 24.15, 19.23),
    "Qwen 3 32B (Base Model)": (51.99, 9.88, 13.73, 19.96, 18.30),
}

#: Echo-N1 Table 11 as published: rank, EPM-Q, NEE, final score (FCS).
TABLE11_COLUMNS: tuple[str, ...] = ("rank", "EPM_Index", "NEE", "FCS")
TABLE11_PUBLISHED: dict[str, tuple[int, float, float, float]] = {
    "Gemini 2.5 Pro": (1, 90.73, 91, 90.84),
    "Qwen 3 235B": (2, 89.58, 82, 86.55),
    "Kimi k2-0905": (3, 86.20, 78, 82.92),
    "Echo-N1": (4, 72.57, 75, 73.54),
    "Doubao 1.5 Character": (5, 30.24, 62, 42.95),
    "Qwen 3 32B (Base Model)": (6, 14.77, 52, 29.66),
}


def _frame(data: Mapping[str, tuple[float, ...]], columns: tuple[str, ...]) -> pd.DataFrame:
    frame = pd.DataFrame.from_dict(dict(data), orient="index", columns=list(columns))
    frame.index.name = "model"
    return frame


def table8_published() -> pd.DataFrame:
    """Table 8 (index means) as printed."""
    return _frame(TABLE8, TABLE8_COLUMNS)


def table9_published() -> pd.DataFrame:
    return _frame(TABLE9_PUBLISHED, TABLE9_COLUMNS)


def table10_published() -> pd.DataFrame:
    return _frame(TABLE10, TABLE10_COLUMNS)


def table11_published() -> pd.DataFrame:
    frame = _frame(TABLE11_PUBLISHED, TABLE11_COLUMNS)
    frame["rank"] = frame["rank"].astype(int)
    return frame


def _round_half_up(x: float) -> float:
    return float(math.floor(x + 0.5))


def nee_for_table11(table10: pd.DataFrame | None = None) -> pd.Series:
    """NEE as Table 11 uses it: the sum of the three sub-score means, rounded to an integer."""
    t10 = table10 if table10 is not None else table10_published()
    total = t10["naturalness"] + t10["pacing"] + t10["narrative_arc"]
    return total.map(_round_half_up).rename("NEE")


def table9_computed(table8: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 9 computed by :func:`epm.aggregate.table9` from the Table-8 index means."""
    return table9(table8 if table8 is not None else table8_published())


def table11_computed(
    table8: pd.DataFrame | None = None, table10: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Table 11 computed by :func:`epm.aggregate.table11` (EPM-Index from the computed Table 9)."""
    t9 = table9_computed(table8)
    return table11(t9["EPM_Index"], nee_for_table11(table10))


def compare(computed: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Side by side: for every published column, ``computed``, ``published`` and ``diff``."""
    computed = computed.loc[published.index]
    parts = {}
    for col in published.columns:
        parts[(col, "computed")] = computed[col].astype(float)
        parts[(col, "published")] = published[col].astype(float)
        parts[(col, "diff")] = computed[col].astype(float) - published[col].astype(float)
    out = pd.DataFrame(parts)
    out.columns = pd.MultiIndex.from_tuples(list(parts))
    return out


def max_abs_diff(comparison: pd.DataFrame) -> float:
    diffs = comparison.xs("diff", axis=1, level=1)
    return float(diffs.abs().to_numpy().max())


def comparisons() -> dict[str, pd.DataFrame]:
    """Both reproduced tables, compared with the published ones."""
    return {
        "table9": compare(table9_computed(), table9_published()),
        "table11": compare(table11_computed(), table11_published()),
    }


def _pair(key: object) -> tuple[object, object]:
    """A comparison column's key: ``(column, computed | published | diff)``."""
    if not isinstance(key, tuple) or len(key) != 2:
        raise TypeError(f"expected a (column, kind) column key, got {key!r}")
    return key[0], key[1]


def to_json_dict(tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
    """``{table: {model: {column: {computed, published, diff}}}, max_abs_diff, tolerance}``."""
    out: dict[str, Any] = {}
    worst = 0.0
    for name, frame in tables.items():
        rows: dict[str, dict[str, dict[str, float]]] = {}
        for model, row in frame.iterrows():
            cells: dict[str, dict[str, float]] = {}
            for key, value in row.items():
                col, kind = (str(part) for part in _pair(key))
                cells.setdefault(col, {})[kind] = float(value)
            rows[str(model)] = cells
        out[name] = rows
        worst = max(worst, max_abs_diff(frame))
    out["max_abs_diff"] = worst
    out["tolerance"] = TOLERANCE
    out["reproduced"] = worst <= TOLERANCE
    return out


def render(tables: dict[str, pd.DataFrame]) -> str:
    """Plain-text rendering of both comparisons."""
    titles = {
        "table9": "Echo-N1 Table 9: EPM-Q dimensions and EPM-Index, computed from Table 8",
        "table11": "Echo-N1 Table 11: FCS = 0.6 * EPM-Index + 0.4 * NEE "
        "(NEE = rounded sum of Table 10 sub-scores)",
    }
    lines: list[str] = []
    worst = 0.0
    with pd.option_context("display.width", 200, "display.max_columns", 50):
        for name, frame in tables.items():
            lines += [titles.get(name, name), frame.round(4).to_string(), ""]
            worst = max(worst, max_abs_diff(frame))
    verdict = "reproduced" if worst <= TOLERANCE else "NOT reproduced"
    lines.append(f"max |computed - published| = {worst:.4f} (tolerance {TOLERANCE}): {verdict}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    tables = comparisons()
    if args.json:
        payload = to_json_dict(tables)
        print(json.dumps(payload, indent=2))
        return 0 if payload["reproduced"] else 1
    print(render(tables))
    worst = max(max_abs_diff(frame) for frame in tables.values())
    return 0 if worst <= TOLERANCE else 1


def main(argv: list[str] | None = None) -> int:
    """Run without the ``empa`` CLI: ``python -m benchmarks.paper_tables [--json]``."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.paper_tables",
        description="Echo-N1 Tables 9 and 11 recomputed from Tables 8 and 10 with the epm code.",
    )
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    return run(parser.parse_args(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    raise SystemExit(main())
