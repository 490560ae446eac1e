"""Aggregation over many episodes into pandas DataFrames (Echo-N1 Tables 8, 9 and 11 shapes)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

import pandas as pd

from epm.indices import DIMENSIONS, INDEX_NAMES, scores_from_indices
from epm.metrics import METRIC_NAMES
from epm.nee import fcs
from epm.weighting import WEIGHTINGS, weighted_index

#: Column labels as the paper prints them (Table 8).
TABLE8_LABELS: dict[str, str] = {
    "Idx_RDI": "RDI", "Idx_Etot": "E_total", "Idx_Snet": "S_net",
    "Idx_rho": "rho", "Idx_Sproj": "S_proj", "Idx_tau": "tau",
    "Idx_Rpos": "R_pos", "Idx_Align": "cos_theta", "Idx_Pen": "R_pen",
}  # fmt: skip


def episodes_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Per-episode rows (from :func:`epm.episode.evaluate` plus e.g. a ``model`` column)."""
    return pd.DataFrame(list(rows))


def model_summary(episodes: pd.DataFrame, by: str = "model") -> pd.DataFrame:
    """Per-model means and standard deviations of metrics, indices, dimensions and EPM-Index."""
    cols = [
        c
        for c in (*METRIC_NAMES, "E_surplus", "turns", *INDEX_NAMES, *DIMENSIONS, "EPM_Index")
        if c in episodes
    ]
    grouped = episodes.groupby(by, sort=False)
    mean = grouped[cols].mean().add_suffix("_mean")
    std = grouped[cols].std(ddof=1).add_suffix("_std")
    out = pd.concat([mean, std], axis=1)
    out["episodes"] = grouped.size()
    if "success" in episodes:
        out["success_rate"] = grouped["success"].mean() * 100.0
    return out


def table8(episodes: pd.DataFrame, by: str = "model") -> pd.DataFrame:
    """Per-model means of the nine EPM-Q indices, labelled as in Echo-N1 Table 8."""
    return episodes.groupby(by, sort=False)[list(INDEX_NAMES)].mean().rename(columns=TABLE8_LABELS)


def table9(
    index_means: pd.DataFrame, weights: tuple[float, float, float] = (0.4, 0.2, 0.4)
) -> pd.DataFrame:
    """Table 8 (index means, raw or paper-labelled columns) -> dimensions and EPM-Index."""
    inverse = {v: k for k, v in TABLE8_LABELS.items()}
    frame = index_means.rename(columns=inverse)
    columns: dict[str, Any] = {k: frame[k] for k in INDEX_NAMES}  # Series compute like arrays
    scores = scores_from_indices(columns, weights)
    return pd.DataFrame({k: scores[k] for k in (*DIMENSIONS, "EPM_Index")}, index=frame.index)


def table11(epm_index: pd.Series, nee: pd.Series) -> pd.DataFrame:
    """EPM-Index and NEE -> FCS, ranked."""
    out = pd.DataFrame({"EPM_Index": epm_index, "NEE": nee})
    out["FCS"] = fcs(cast(Any, out["EPM_Index"]), cast(Any, out["NEE"]))
    out = out.sort_values("FCS", ascending=False)
    out.insert(0, "rank", range(1, len(out) + 1))
    return out


def weighting_table(
    dimension_means: pd.DataFrame, names: Iterable[str] | None = None
) -> pd.DataFrame:
    """Each model's index under every registered weighting, side by side."""
    names = list(names) if names is not None else list(WEIGHTINGS)
    return pd.DataFrame(
        {
            name: [weighted_index(cast(Any, row), name) for _, row in dimension_means.iterrows()]
            for name in names
        },
        index=dimension_means.index,
    )
