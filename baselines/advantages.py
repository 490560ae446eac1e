"""Per-turn advantage estimators for multi-turn RL (MICA paper, sections 3-4, appendices B and F).

All estimators take the same inputs, a padded batch of rollouts grouped by case (prompt):

* ``rewards`` ``(B, K, T_max)``: the immediate reward ``r_t`` (IDR) of turn ``t`` of rollout ``k``
  of case ``b``; entries at ``t >= lengths[b, k]`` are ignored;
* ``lengths`` ``(B, K)``: the number of turns ``T_k`` of each rollout (0 marks an absent rollout,
  which is how cases with fewer than ``K`` rollouts are padded).

They return advantages ``A`` of shape ``(B, K, T_max)``, exactly 0 at padded turns.

Estimators (names in the :data:`estimators` registry; another is one function plus one
registration, :func:`register_estimator` or an ``empa.estimators`` entry point):

* ``turn``: ``A^t = (G_t - mu_t) / (sigma_t + eps)`` where ``G_t = sum_{t'>=t} gamma^(t'-t) r_t'``
  and ``mu_t, sigma_t`` are taken per case over the rollouts still alive at turn ``t``
  (``I_t = {k | T_k > t}``, ``N_t = |I_t|``; eq. 2);
* ``group``: ``A^g = (r_t - mu) / (sigma + eps)`` with ``mu, sigma`` over all turns of all
  rollouts of the case (eq. 3);
* ``mica``: ``A = alpha * A^t + (1 - alpha) * A^g`` (eq. 4; ``alpha = 0.5``, ``gamma = 0.95``);
* ``grpo``: ``R_traj = sum_t r_t`` standardised per case over its ``K`` rollouts, one advantage
  per trajectory broadcast to all of its turns;
* ``reinforce_pp_traj``: ``R_traj`` standardised over every trajectory of the batch (REINFORCE++);
* ``reinforce_pp_idr_batch``: every valid turn's ``r_t`` standardised over the whole batch
  (REINFORCE++ "IDR-Batch").

Standard deviations are population ones (``1/N``, as in eqs. 2-3); ``eps`` guards a zero
spread (one rollout alive, or all rewards equal), where the advantage is then exactly 0.
Everything is vectorised: no Python loop runs over turns, rollouts or cases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from empa_env.registry import Registry

DEFAULT_ALPHA = 0.5
DEFAULT_GAMMA = 0.95
DEFAULT_EPS = 1e-6

Estimator = Callable[..., np.ndarray]

#: Advantage estimators by name: ``estimators.get(name)(rewards, lengths, alpha=, gamma=, eps=)``.
estimators: Registry[np.ndarray] = Registry("advantage estimator", "empa.estimators")
_BATCH_WIDE: set[str] = set()


def register_estimator(name: str, *, batch_wide: bool = False) -> Callable[[Estimator], Estimator]:
    """Decorator: register an estimator under ``name``. ``batch_wide``: its statistics are taken
    over the whole batch rather than per case (several training processes then gather every
    process's rewards first, :func:`baselines.training.mica.distributed.gathered_advantages`)."""

    def add(fn: Estimator) -> Estimator:
        estimators.register(name, fn)
        if batch_wide:
            _BATCH_WIDE.add(name)
        return fn

    return add


def is_batch_wide(name: str) -> bool:
    """Whether the estimator registered as ``name`` standardises over the whole batch."""
    if name in estimators:
        estimators.get(name)  # an entry point's module declares itself when it is loaded
    return name in _BATCH_WIDE


# --- inputs ---------------------------------------------------------------------------------
def _check(rewards: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rewards = np.asarray(rewards, dtype=float)
    lengths = np.asarray(lengths)
    if rewards.ndim != 3:
        raise ValueError(f"rewards must be (B, K, T_max), got shape {rewards.shape}")
    if lengths.shape != rewards.shape[:2]:
        raise ValueError(f"lengths must be (B, K) = {rewards.shape[:2]}, got {lengths.shape}")
    if lengths.size and (lengths.min() < 0 or lengths.max() > rewards.shape[2]):
        raise ValueError("lengths must lie in [0, T_max]")
    return rewards, lengths.astype(np.int64)


def turn_mask(lengths: np.ndarray, t_max: int) -> np.ndarray:
    """``mask[b, k, t] = t < lengths[b, k]`` (the turns that happened), ``(B, K, T_max)``."""
    return np.arange(t_max) < np.asarray(lengths)[..., None]


def pad_rollouts(groups: Sequence[Sequence[Sequence[float]]]) -> tuple[np.ndarray, np.ndarray]:
    """Ragged per-turn rewards grouped by case -> ``rewards (B, K, T_max)``, ``lengths (B, K)``.

    ``groups[b][k]`` is the reward sequence of rollout ``k`` of case ``b``; cases may have
    different numbers of rollouts (the missing ones get length 0).
    """
    b = len(groups)
    k = max((len(g) for g in groups), default=0)
    t_max = max((len(ep) for g in groups for ep in g), default=0)
    rewards = np.zeros((b, k, t_max))
    lengths = np.zeros((b, k), dtype=np.int64)
    for i, group in enumerate(groups):
        for j, episode in enumerate(group):
            lengths[i, j] = len(episode)
            rewards[i, j, : len(episode)] = episode
    return rewards, lengths


def unpad(advantages: np.ndarray, lengths: np.ndarray) -> list[list[np.ndarray]]:
    """Inverse of :func:`pad_rollouts` for an output: ``out[b][k]`` has ``lengths[b, k]`` items."""
    lengths = np.asarray(lengths)
    return [
        [advantages[i, j, : lengths[i, j]] for j in range(lengths.shape[1])]
        for i in range(lengths.shape[0])
    ]


# --- building blocks ------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _discount_matrix(t_max: int, gamma: float) -> np.ndarray:
    """``D[t, t'] = gamma^(t' - t)`` for ``t' >= t``, else 0; ``G = r @ D.T``."""
    idx = np.arange(t_max)
    power = idx[None, :] - idx[:, None]
    d = np.where(power >= 0, float(gamma) ** np.maximum(power, 0), 0.0)
    d.setflags(write=False)
    return d


def discounted_returns(
    rewards: np.ndarray, lengths: np.ndarray, gamma: float = DEFAULT_GAMMA
) -> np.ndarray:
    """Monte Carlo returns ``G_t = sum_{t'=t}^{T-1} gamma^(t'-t) r_t'`` (MICA eq. 1), 0 padded."""
    rewards, lengths = _check(rewards, lengths)
    if not 0.0 < gamma <= 1.0:
        raise ValueError("gamma must lie in (0, 1]")
    mask = turn_mask(lengths, rewards.shape[2])
    r = np.where(mask, rewards, 0.0)
    return (r @ _discount_matrix(rewards.shape[2], float(gamma)).T) * mask


def masked_standardise(
    x: np.ndarray, mask: np.ndarray, axis: int | tuple[int, ...], eps: float = DEFAULT_EPS
) -> np.ndarray:
    """``(x - mu) / (sigma + eps)`` with ``mu, sigma`` (population) over ``axis`` and ``mask`` only.

    Entries outside ``mask`` are 0 in the output; a group with one entry or no spread gives 0.
    """
    m = mask.astype(float)
    n = np.maximum(m.sum(axis=axis, keepdims=True), 1.0)
    mu = (x * m).sum(axis=axis, keepdims=True) / n
    centred = (x - mu) * m
    sigma = np.sqrt((centred**2).sum(axis=axis, keepdims=True) / n)
    return centred / (sigma + eps)


def trajectory_returns(rewards: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``R_traj = sum_t r_t`` per rollout, ``(B, K)`` (0 for an absent rollout)."""
    rewards, lengths = _check(rewards, lengths)
    return np.where(turn_mask(lengths, rewards.shape[2]), rewards, 0.0).sum(axis=-1)


# --- estimators -----------------------------------------------------------------------------
@register_estimator("turn")
def turn_level_advantages(
    rewards: np.ndarray,
    lengths: np.ndarray,
    *,
    gamma: float = DEFAULT_GAMMA,
    eps: float = DEFAULT_EPS,
    **_: Any,
) -> np.ndarray:
    """``A^t``: ``G_t`` standardised per case and turn index over the rollouts alive at ``t``."""
    rewards, lengths = _check(rewards, lengths)
    mask = turn_mask(lengths, rewards.shape[2])
    return masked_standardise(discounted_returns(rewards, lengths, gamma), mask, axis=1, eps=eps)


@register_estimator("group")
def group_level_advantages(
    rewards: np.ndarray, lengths: np.ndarray, *, eps: float = DEFAULT_EPS, **_: Any
) -> np.ndarray:
    """``A^g``: immediate rewards standardised per case over all turns of all its rollouts."""
    rewards, lengths = _check(rewards, lengths)
    mask = turn_mask(lengths, rewards.shape[2])
    return masked_standardise(rewards, mask, axis=(1, 2), eps=eps)


@register_estimator("mica")
def mica_advantages(
    rewards: np.ndarray,
    lengths: np.ndarray,
    *,
    alpha: float = DEFAULT_ALPHA,
    gamma: float = DEFAULT_GAMMA,
    eps: float = DEFAULT_EPS,
    **_: Any,
) -> np.ndarray:
    """MICA's mixed advantage ``A = alpha * A^t + (1 - alpha) * A^g`` (eq. 4, Algorithm 1)."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError("alpha must lie in [0, 1]")
    a_turn = turn_level_advantages(rewards, lengths, gamma=gamma, eps=eps)
    a_group = group_level_advantages(rewards, lengths, eps=eps)
    return alpha * a_turn + (1.0 - alpha) * a_group


def _broadcast_to_turns(per_trajectory: np.ndarray, lengths: np.ndarray, t_max: int) -> np.ndarray:
    return per_trajectory[..., None] * turn_mask(lengths, t_max)


@register_estimator("grpo")
def grpo_advantages(
    rewards: np.ndarray, lengths: np.ndarray, *, eps: float = DEFAULT_EPS, **_: Any
) -> np.ndarray:
    """GRPO on ``R_traj = sum_t r_t``: standardised per case over its rollouts, on every turn."""
    rewards, lengths = _check(rewards, lengths)
    a = masked_standardise(trajectory_returns(rewards, lengths), lengths > 0, axis=1, eps=eps)
    return _broadcast_to_turns(a, lengths, rewards.shape[2])


@register_estimator("reinforce_pp_traj", batch_wide=True)
def reinforce_pp_traj_advantages(
    rewards: np.ndarray, lengths: np.ndarray, *, eps: float = DEFAULT_EPS, **_: Any
) -> np.ndarray:
    """REINFORCE++ (Traj): ``R_traj`` standardised over all trajectories of the batch."""
    rewards, lengths = _check(rewards, lengths)
    a = masked_standardise(trajectory_returns(rewards, lengths), lengths > 0, axis=(0, 1), eps=eps)
    return _broadcast_to_turns(a, lengths, rewards.shape[2])


@register_estimator("reinforce_pp_idr_batch", batch_wide=True)
def reinforce_pp_idr_batch_advantages(
    rewards: np.ndarray, lengths: np.ndarray, *, eps: float = DEFAULT_EPS, **_: Any
) -> np.ndarray:
    """REINFORCE++ (IDR-Batch): every valid turn's ``r_t`` standardised over the whole batch."""
    rewards, lengths = _check(rewards, lengths)
    mask = turn_mask(lengths, rewards.shape[2])
    return masked_standardise(rewards, mask, axis=(0, 1, 2), eps=eps)


@dataclass(frozen=True)
class AdvantageConfig:
    """Which estimator, with which ``alpha``, ``gamma`` and ``eps``; :meth:`__call__` applies it.

    ``estimator`` is a name in :data:`estimators` or any callable with the same signature.
    """

    estimator: str | Estimator = "mica"
    alpha: float = DEFAULT_ALPHA
    gamma: float = DEFAULT_GAMMA
    eps: float = DEFAULT_EPS

    def __post_init__(self) -> None:
        if isinstance(self.estimator, str) and self.estimator not in estimators:
            raise ValueError(
                f"unknown estimator {self.estimator!r}; choose one of {estimators.names()}"
            )

    @property
    def name(self) -> str:
        e = self.estimator
        return e if isinstance(e, str) else getattr(e, "__name__", type(e).__name__)

    def __call__(self, rewards: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        e = self.estimator
        fn = estimators.get(e) if isinstance(e, str) else e
        return fn(rewards, lengths, alpha=self.alpha, gamma=self.gamma, eps=self.eps)


def compute_advantages(
    estimator: str | Estimator, rewards: np.ndarray, lengths: np.ndarray, **kwargs: Any
) -> np.ndarray:
    """Shorthand for ``AdvantageConfig(estimator, **kwargs)(rewards, lengths)``."""
    return AdvantageConfig(estimator, **kwargs)(rewards, lengths)


def advantages_torch(estimator: str | Estimator, rewards: Any, lengths: Any, **kwargs: Any) -> Any:
    """Torch wrapper: tensors in, a tensor out (same dtype and device as ``rewards``, no grad)."""
    import torch

    out = compute_advantages(
        estimator,
        rewards.detach().cpu().double().numpy(),
        lengths.detach().cpu().numpy(),
        **kwargs,
    )
    return torch.as_tensor(out, dtype=rewards.dtype, device=rewards.device)


# --- appendix B -----------------------------------------------------------------------------
def mixed_variance(alpha: float | np.ndarray, cov: float) -> float | np.ndarray:
    """``Var(alpha X + (1 - alpha) Y) = 1 - 2 alpha (1 - alpha) (1 - Cov(X, Y))`` for standardised
    ``X, Y`` (appendix B, eq. 9); at most 1 on ``[0, 1]`` and minimised at ``alpha* = 1/2``."""
    alpha = np.asarray(alpha, dtype=float)
    out = 1.0 - 2.0 * alpha * (1.0 - alpha) * (1.0 - cov)
    return float(out) if out.ndim == 0 else out


__all__ = [
    "DEFAULT_ALPHA", "DEFAULT_EPS", "DEFAULT_GAMMA", "AdvantageConfig", "Estimator", "estimators",
    "is_batch_wide", "register_estimator",
    "advantages_torch", "compute_advantages", "discounted_returns", "group_level_advantages",
    "grpo_advantages", "masked_standardise", "mica_advantages", "mixed_variance", "pad_rollouts",
    "reinforce_pp_idr_batch_advantages", "reinforce_pp_traj_advantages", "trajectory_returns",
    "turn_level_advantages", "turn_mask", "unpad",
]  # fmt: skip
