"""Episode metrics (EMPA reference implementation, arXiv 2603.00552), vectorised over many episodes.

For one episode with ``T`` turns the trajectory has ``T + 1`` points (point 0 = ``P_0``):

* ``RDI = (d_0 - d_T) / d_0 * 100`` on goal-zone distances (``d_0`` taken as 1 when ~0);
* ``E_total = sum_t delta_E_t``; ``E_surplus = E_total - ||P_0||``;
* ``S_net`` = sum of the raw levels (Prog + Neg) over turns and axes;
* ``rho = E_total / T``; ``S_proj = E_total / (T + 1)`` (point 0 counts as 0);
* ``tau`` = path length / ``||P_T - P_0||``; 1 without movement, ``inf`` for a closed path;
* ``R_pos`` = share of the ``T + 1`` points with ``delta_E > 0``, in percent;
* ``mean_alignment`` = sum of ``cos(theta_t)`` / ``(T + 1)``;
* ``R_pen`` = sum of ``|Neg levels|`` / ``(T + 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from epm.config import EPMConfig, get_preset
from epm.dynamics import BatchPhysics, batch_physics, goal_distance, norm3

METRIC_NAMES: tuple[str, ...] = (
    "RDI", "E_total", "S_net", "rho", "S_proj", "tau", "R_pos", "mean_alignment", "R_pen",
)  # fmt: skip
_TINY = 1e-9


@dataclass
class BatchMetrics:
    """Metric arrays, one entry per episode, plus what the indices need."""

    physics: BatchPhysics
    RDI: np.ndarray
    E_total: np.ndarray
    E_surplus: np.ndarray
    S_net: np.ndarray
    rho: np.ndarray
    S_proj: np.ndarray
    tau: np.ndarray
    R_pos: np.ndarray
    mean_alignment: np.ndarray
    R_pen: np.ndarray
    norm_p0: np.ndarray
    d0: np.ndarray
    dT: np.ndarray
    turns: np.ndarray


def batch_metrics(
    p0: np.ndarray,
    v: np.ndarray,
    levels: np.ndarray,
    lengths: np.ndarray | None = None,
    config: EPMConfig | str = "official",
) -> BatchMetrics:
    """Metrics for ``N`` episodes.

    ``p0`` is ``(N, 3)``, ``v`` ``(N, T_max, 3)``, ``levels`` ``(N, T_max, 6)``.

    ``levels`` columns are C/A/P Prog levels then C/A/P Neg levels (raw, not scores).
    """
    config = get_preset(config)
    phys = batch_physics(p0, v, lengths, config)
    n = phys.positions.shape[0]
    t = phys.lengths.astype(float)
    points = t + 1.0
    mask = phys.mask
    levels = np.asarray(levels, dtype=float).reshape(n, -1, 6) * mask[..., None]

    p0 = phys.positions[:, 0, :]
    p_end = phys.positions[np.arange(n), phys.lengths, :]
    d0 = goal_distance(p0, config.goal_epsilon)
    d_t = goal_distance(p_end, config.goal_epsilon)
    d0_safe = np.where(d0 > _TINY, d0, 1.0)
    # Summed in turn order (like the tracker's running E_total), so the two agree exactly.
    e_total = np.cumsum(phys.delta_E, axis=1)[:, -1] if phys.delta_E.shape[1] else np.zeros(n)
    norm_p0 = norm3(p0)

    steps = norm3(np.diff(phys.positions, axis=1))
    path = steps.sum(axis=1)
    displacement = norm3(p_end - p0)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.where(
            path <= _TINY, 1.0, np.where(displacement <= _TINY, np.inf, path / displacement)
        )

    return BatchMetrics(
        physics=phys,
        RDI=(d0 - d_t) / d0_safe * 100.0,
        E_total=e_total,
        E_surplus=e_total - norm_p0,
        S_net=levels.sum(axis=(1, 2)),
        rho=np.where(t > 0, e_total / np.where(t > 0, t, 1.0), 0.0),
        S_proj=e_total / points,
        tau=tau,
        R_pos=((phys.delta_E > 0) & mask).sum(axis=1) / points * 100.0,
        mean_alignment=phys.alignment.sum(axis=1) / points,
        R_pen=np.abs(levels[..., 3:]).sum(axis=(1, 2)) / points,
        norm_p0=norm_p0,
        d0=np.asarray(d0),
        dT=np.asarray(d_t),
        turns=phys.lengths,
    )


def pad_episodes(
    increments: list[np.ndarray], levels: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stack ragged ``(T_i, 3)`` increments and ``(T_i, 6)`` levels into padded arrays."""
    lengths = np.array([len(x) for x in increments], dtype=int)
    t_max = int(lengths.max()) if len(lengths) else 0
    v = np.zeros((len(increments), t_max, 3))
    lv = np.zeros((len(increments), t_max, 6))
    for i, (vi, li) in enumerate(zip(increments, levels, strict=True)):
        v[i, : len(vi)] = vi
        lv[i, : len(li)] = li
    return v, lv, lengths
