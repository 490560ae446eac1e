"""The MICA trainer for causal language models: the trainer and its config (``trainer``), the
episodes it plays (``rollout``: lockstep generation against the environment; ``fastgen``: the
static-cache decode; ``prefix``: chat-template prefixes reused across turns; ``rollouts``: Ray
workers for its generations), the clipped per-turn loss (``losses``) and several processes
(``distributed``).

``from baselines.training.mica import MICATrainer, MICAConfig`` works as before the room was
made (the names load on first use).
"""

from __future__ import annotations

from empa_env.lazy import lazy_exports

_TRAINER = "baselines.training.mica.trainer"
__getattr__, __dir__ = lazy_exports(
    __name__,
    dict.fromkeys(
        ("MICAConfig", "MICATrainer", "case_dataset", "env_case_ids", "policy_loss"), _TRAINER
    ),
)

__all__ = ["MICAConfig", "MICATrainer", "case_dataset", "env_case_ids", "policy_loss"]
