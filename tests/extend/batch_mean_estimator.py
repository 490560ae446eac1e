"""A new advantage estimator in one file: each valid turn's reward minus the mean over every valid
turn of the batch (a batch-wide baseline, so several processes gather the batch first)."""

from __future__ import annotations

from typing import Any

import numpy as np

from baselines.advantages import register_estimator, turn_mask


@register_estimator("batch_mean", batch_wide=True)
def batch_mean_advantages(rewards: np.ndarray, lengths: np.ndarray, **_: Any) -> np.ndarray:
    """``A_t = r_t - mean(r)`` over the batch's valid turns; 0 at padded turns."""
    rewards = np.asarray(rewards, dtype=float)
    mask = turn_mask(lengths, rewards.shape[2])
    mean = rewards[mask].mean() if mask.any() else 0.0
    return np.where(mask, rewards - mean, 0.0)
