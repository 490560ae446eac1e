"""EPM dynamics: state update, ideal direction, work, distance, thresholds (EMPA reference implementation, arXiv 2603.00552).

Two entry points share the same formulas:

* :class:`EPMTracker` advances one turn at a time (what an environment needs, O(1) per step)
  and applies the ending rules of :mod:`epm.ending`;
* :func:`batch_physics` recomputes the same quantities for many padded episodes at once
  (what metrics over thousands of episodes need).

Symbols: ``P_t`` state (deficit, every component <= 0 at the start), ``v_t`` increment,
``v_star`` ideal direction, ``delta_E`` = ``v_t . v_star``, ``alignment`` = cos(theta_t).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from epm.config import EPMConfig, get_preset

_TINY = 1e-12


def dot3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot product over the last axis, written out as ``a0*b0 + a1*b1 + a2*b2``.

    The tracker (one turn) and :func:`batch_physics` (many episodes) both use this, so that
    they agree bit for bit, not only to rounding.
    """
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def norm3(a: np.ndarray) -> np.ndarray:
    """Euclidean norm over the last axis (``||P||``), consistent with :func:`dot3`."""
    return np.sqrt(dot3(a, a))


def goal_distance(p: np.ndarray, epsilon: float = 1.0) -> np.ndarray | float:
    """``d(P) = sqrt(sum over axes of (-epsilon - x)^2 for x < -epsilon)``, on ``(..., 3)``."""
    p = np.asarray(p, dtype=float)
    gap = np.minimum(p + epsilon, 0.0)
    d = norm3(gap)
    return float(d) if d.ndim == 0 else d


def in_goal_zone(p: np.ndarray, epsilon: float = 1.0) -> bool:
    """Every axis ``>= -epsilon``."""
    return bool(np.all(np.asarray(p) >= -epsilon))


def unit_toward_origin(p: np.ndarray) -> np.ndarray:
    """``-p / ||p||`` over the last axis; the zero vector where ``p`` is zero."""
    p = np.asarray(p, dtype=float)
    norm = norm3(p)[..., None]
    safe = np.where(norm > _TINY, norm, 1.0)
    return np.where(norm > _TINY, -p / safe, 0.0)


@dataclass(frozen=True)
class Thresholds:
    """``eps_dist = eps_dir = alpha * ||P_0||`` and ``eps_energy = ||P_0||`` (times a factor)."""

    eps_dist: float
    eps_dir: float
    eps_energy: float

    @classmethod
    def for_start(cls, p0: np.ndarray, config: EPMConfig) -> Thresholds:
        norm0 = float(norm3(np.asarray(p0, dtype=float)))
        return cls(
            eps_dist=config.threshold_alpha * norm0,
            eps_dir=config.threshold_alpha * norm0,
            eps_energy=config.energy_factor * norm0,
        )


@dataclass(frozen=True)
class TurnPhysics:
    """What one increment does to the state."""

    v: np.ndarray
    v_star: np.ndarray
    position: np.ndarray
    delta_E: float
    alignment: float
    projection: float
    distance: float

    def record_fields(self) -> dict[str, Any]:
        """The physics a turn's record keeps (``TurnRecord``'s ``v``, ``position``, ``v_star``,
        ``delta_E``, ``alignment``, ``projection``, ``distance``), as plain Python numbers."""
        return {
            "v": [float(x) for x in self.v],
            "position": [float(x) for x in self.position],
            "v_star": [float(x) for x in self.v_star],
            "delta_E": float(self.delta_E),
            "alignment": float(self.alignment),
            "projection": float(self.projection),
            "distance": float(self.distance),
        }


def turn_physics(
    p_prev: np.ndarray, v: np.ndarray, fixed_v_star: np.ndarray, config: EPMConfig
) -> TurnPhysics:
    """Apply ``v_t`` at ``P_{t-1}``: ``P_t = P_{t-1} + v_t``, ``delta_E = v_t . v*``, ..."""
    v = np.asarray(v, dtype=float)
    v_star = fixed_v_star if config.ideal_direction == "fixed" else unit_toward_origin(p_prev)
    if config.ideal_direction == "dynamic" and not np.any(v_star):
        v_star = fixed_v_star  # P_{t-1} at the origin: keep the starting direction
    position = p_prev + v
    delta_e = float(dot3(v, v_star))
    v_norm = float(norm3(v))
    alignment = delta_e / v_norm if v_norm > _TINY else 0.0
    return TurnPhysics(
        v=v,
        v_star=v_star,
        position=position,
        delta_E=delta_e,
        alignment=alignment,
        projection=float(dot3(position, v_star)),
        distance=float(goal_distance(position, config.goal_epsilon)),
    )


@dataclass
class BatchPhysics:
    """Per-turn physics of ``N`` padded episodes.

    Turn arrays are ``(N, T_max)``; padded turns are 0.

    ``positions`` is ``(N, T_max + 1, 3)`` with point 0 = ``P_0``; after an episode's last turn the
    position stays at ``P_T``.
    """

    positions: np.ndarray
    v_star: np.ndarray
    delta_E: np.ndarray
    alignment: np.ndarray
    projection: np.ndarray
    distance: np.ndarray
    mask: np.ndarray
    lengths: np.ndarray


def batch_physics(
    p0: np.ndarray,
    v: np.ndarray,
    lengths: np.ndarray | None = None,
    config: EPMConfig | str = "official",
) -> BatchPhysics:
    """Vectorised physics for ``p0`` ``(N, 3)`` and increments ``v`` ``(N, T_max, 3)``."""
    config = get_preset(config)
    p0 = np.asarray(p0, dtype=float).reshape(-1, 3)
    v = np.asarray(v, dtype=float)
    if v.ndim == 2:
        v = v[None]
    n, t_max, _ = v.shape
    if lengths is None:
        lengths = np.full(n, t_max, dtype=int)
    lengths = np.asarray(lengths, dtype=int)
    mask = np.arange(t_max)[None, :] < lengths[:, None]
    v = np.where(mask[..., None], v, 0.0)
    # P_t = P_{t-1} + v_t accumulated in the same order as the tracker: cumsum of [P_0, v_1, ...].
    positions = np.cumsum(np.concatenate([p0[:, None, :], v], axis=1), axis=1)
    fixed = unit_toward_origin(p0)[:, None, :]
    if config.ideal_direction == "fixed":
        v_star = np.broadcast_to(fixed, v.shape)
    else:
        v_star = unit_toward_origin(positions[:, :-1, :])
        at_origin = ~np.any(v_star, axis=-1, keepdims=True)
        v_star = np.where(at_origin, fixed, v_star)
    delta_e = dot3(v, v_star)
    v_norm = norm3(v)
    alignment = np.where(v_norm > _TINY, delta_e / np.where(v_norm > _TINY, v_norm, 1.0), 0.0)
    projection = dot3(positions[:, 1:, :], v_star)
    distance = goal_distance(positions[:, 1:, :], config.goal_epsilon)
    return BatchPhysics(
        positions=positions,
        v_star=np.ascontiguousarray(v_star),
        delta_E=delta_e * mask,
        alignment=alignment * mask,
        projection=projection * mask,
        distance=distance * mask,
        mask=mask,
        lengths=lengths,
    )
