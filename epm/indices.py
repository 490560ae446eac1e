"""EPM-Q indices, dimension indices and the EPM-Index (EMPA reference implementation, arXiv 2603.00552).

``official`` constants: ``RHO_MAX = 2.5``, ``ALPHA = 1.5``, ``BETA = 1.2``, ``r0 = d_0``.
``paper`` constants: ``RHO_MAX = sqrt(12)``, ``ALPHA = 1.2``, no ``BETA``, ``r0 = ||P_0||``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from epm.config import EPMConfig, IndexConstants, get_preset
from epm.metrics import BatchMetrics

INDEX_NAMES: tuple[str, ...] = (
    "Idx_RDI", "Idx_Etot", "Idx_Snet",
    "Idx_rho", "Idx_Sproj", "Idx_tau",
    "Idx_Rpos", "Idx_Align", "Idx_Pen",
)  # fmt: skip
DIMENSIONS: dict[str, tuple[str, str, str]] = {
    "Outcome": ("Idx_RDI", "Idx_Etot", "Idx_Snet"),
    "Efficiency": ("Idx_rho", "Idx_Sproj", "Idx_tau"),
    "Stability": ("Idx_Rpos", "Idx_Align", "Idx_Pen"),
}


def r0_values(metrics: BatchMetrics, constants: IndexConstants) -> np.ndarray:
    """``r0``: goal-zone distance ``d_0`` (official) or ``||P_0||`` (paper); 1 where ~0."""
    r0 = metrics.d0 if constants.r0 == "goal_distance" else metrics.norm_p0
    return np.where(r0 > 1e-9, r0, 1.0)


def batch_indices(
    metrics: BatchMetrics, config: EPMConfig | str = "official"
) -> dict[str, np.ndarray]:
    """The nine indices per episode."""
    c = get_preset(config).indices
    r0 = r0_values(metrics, c)
    energy_scale = r0 if c.beta is None else c.beta * r0
    return {
        "Idx_RDI": np.clip((metrics.RDI + 100.0) / 2.0, 0.0, 100.0),
        "Idx_Etot": np.maximum(0.0, metrics.E_total) / energy_scale * 100.0,
        "Idx_Snet": np.maximum(0.0, metrics.S_net) / (c.alpha * r0) * 100.0,
        "Idx_rho": np.maximum(0.0, metrics.rho) / c.rho_max * 100.0,
        "Idx_Sproj": np.maximum(0.0, metrics.S_proj) / c.rho_max * 100.0,
        "Idx_tau": np.maximum(0.0, (3.0 - np.maximum(metrics.tau, 1.0)) / 2.0 * 100.0),
        "Idx_Rpos": metrics.R_pos.astype(float),
        "Idx_Align": (metrics.mean_alignment + 1.0) / 2.0 * 100.0,
        "Idx_Pen": np.maximum(0.0, (3.0 - metrics.R_pen) / 3.0 * 100.0),
    }


def dimension_indices(indices: Mapping[str, np.ndarray | float]) -> dict[str, np.ndarray | float]:
    """Outcome, Efficiency and Stability: the mean of their three indices."""
    return {
        dim: (indices[a] + indices[b] + indices[c]) / 3.0 for dim, (a, b, c) in DIMENSIONS.items()
    }


def epm_index(
    dimensions: Mapping[str, np.ndarray | float],
    weights: tuple[float, float, float] | Mapping[str, float] = (0.4, 0.2, 0.4),
) -> np.ndarray | float:
    """``EPM-Index = 0.4 * Outcome + 0.2 * Efficiency + 0.4 * Stability`` (weights configurable)."""
    if not isinstance(weights, Mapping):
        weights = dict(zip(DIMENSIONS, weights, strict=True))
    return sum(weights[d] * dimensions[d] for d in DIMENSIONS)


def scores_from_indices(
    indices: Mapping[str, np.ndarray | float],
    weights: tuple[float, float, float] | Mapping[str, float] = (0.4, 0.2, 0.4),
) -> dict[str, np.ndarray | float]:
    """Table 8 -> Table 9: the three dimension indices and the EPM-Index."""
    dims = dimension_indices(indices)
    return {**dims, "EPM_Index": epm_index(dims, weights)}
