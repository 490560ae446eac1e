"""Companion policies (scripted baselines, LiteLLM and local Hugging Face models), advantage
estimators and trainers. It sits on ``empa_env`` (and ``epm``) and never imports ``benchmarks``.

:data:`__all__` is what other packages may import from here (the public surface, loaded on first
use: nothing of ``torch`` is imported until a trainer is); everything else is internal and may
change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from empa_env.lazy import lazy_exports

if TYPE_CHECKING:
    from baselines.advantages import (
        AdvantageConfig,
        Estimator,
        compute_advantages,
        estimators,
        register_estimator,
    )
    from baselines.policies.scripted import PROBE_POLICIES, REFERENCE_POLICIES, SCRIPTED
    from baselines.training.hf.data import read_trajectories
    from baselines.training.mica.losses import LossType, loss_types
    from baselines.training.mica.trainer import MICAConfig, MICATrainer

#: Public name -> the module that defines it.
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        ("AdvantageConfig", "Estimator", "compute_advantages", "estimators", "register_estimator"),
        "baselines.advantages",
    ),
    **dict.fromkeys(
        ("PROBE_POLICIES", "REFERENCE_POLICIES", "SCRIPTED"), "baselines.policies.scripted"
    ),
    "read_trajectories": "baselines.training.hf.data",
    "LossType": "baselines.training.mica.losses",
    "loss_types": "baselines.training.mica.losses",
    "MICAConfig": "baselines.training.mica.trainer",
    "MICATrainer": "baselines.training.mica.trainer",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "PROBE_POLICIES", "REFERENCE_POLICIES", "SCRIPTED", "AdvantageConfig", "Estimator", "LossType",
    "MICAConfig", "MICATrainer", "compute_advantages", "estimators", "loss_types",
    "read_trajectories", "register_estimator",
]  # fmt: skip
