"""What changes when a trainer runs in several processes (``accelerate launch --num_processes N``).

* **Rollouts are split, never duplicated**: each process plays its own cases (the sampler hands
  each one a different slice of every generation batch) with its own environment seeds
  (:func:`rollout_seed`).
* **Advantages**: the per-case estimators (MICA, GRPO, turn, group) only ever standardise over the
  ``K`` rollouts of one case, which all live in one process, so every process computes them
  locally. The REINFORCE++ variants standardise over the whole batch
  (registered with ``batch_wide=True``, :func:`baselines.advantages.is_batch_wide`): :func:`gathered_advantages` gathers every process's rewards,
  computes the advantages over their union and keeps this process's rows, so they equal the
  single-process computation over all the episodes.
* **Metrics** are reduced across processes (:func:`reduce_metrics`: a mean over every value any
  process logged).

The functions take a ``gather`` callable (``accelerate.utils.gather_object`` in the trainers: a
list in, every process's lists concatenated in process order out), so they are testable without
a process group.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from baselines.advantages import AdvantageConfig, is_batch_wide

#: ``gather(items)`` -> every process's ``items`` concatenated in process order.
Gather = Callable[[list[Any]], list[Any]]


def rollout_seed(seed: int, step: int, process_index: int = 0) -> int:
    """The environment seed base of one generation: distinct per step and per process (process 0
    keeps the single-process value)."""
    return seed * 1_000_003 + step + process_index * 10_000_019


def gathered_advantages(
    config: AdvantageConfig,
    rewards: np.ndarray,
    lengths: np.ndarray,
    gather: Gather | None = None,
    process_index: int = 0,
) -> np.ndarray:
    """Advantages of this process's ``rewards (B, K, T)``; batch-wide estimators use every
    process's batch (gathered), per-case ones this process's only (identical either way)."""
    if gather is None or not isinstance(config.estimator, str) or not is_batch_wide(config.name):
        return config(rewards, lengths)
    parts = gather([(np.asarray(rewards, dtype=float), np.asarray(lengths))])
    t_max = max(int(r.shape[2]) for r, _ in parts)
    padded = [np.pad(r, ((0, 0), (0, 0), (0, t_max - r.shape[2]))) for r, _ in parts]
    union = config(np.concatenate(padded), np.concatenate([lg for _, lg in parts]))
    start = sum(int(r.shape[0]) for r, _ in parts[:process_index])
    stop = start + int(rewards.shape[0])
    return union[start:stop, :, : rewards.shape[2]]


def reduce_metrics(
    values: Mapping[str, Sequence[float]], gather: Gather | None = None
) -> dict[str, float]:
    """The mean of every key's values over all processes (a key any process logged counts)."""
    local = {key: (float(np.sum(v)), len(v)) for key, v in values.items() if len(v)}
    parts = gather([local]) if gather is not None else [local]
    totals: dict[str, list[float]] = {}
    for part in parts:
        for key, (total, count) in part.items():
            acc = totals.setdefault(key, [0.0, 0.0])
            acc[0] += total
            acc[1] += count
    return {key: total / count for key, (total, count) in sorted(totals.items())}


__all__ = [
    "Gather", "gathered_advantages", "reduce_metrics", "rollout_seed",
]  # fmt: skip
