"""Reward models with TRL's ``RewardTrainer`` (Bradley-Terry on chosen/rejected pairs).

Two sources of pairs:

* the environment: K candidate replies at one context ranked by the Judger's increment
  (:func:`baselines.training.hf.data.preference_pairs`, collected by
  :func:`baselines.training.mica.rollout.candidate_preferences`);
* any dialogue corpus through the Echo-N1 humanlike constructions
  (:func:`baselines.training.hf.data.humanlike_pairs`).

The trained model is a pointwise scorer; :class:`baselines.training.hf.rewards.SequenceScorer`
turns it into the judge behind :class:`~baselines.training.hf.rewards.EmpathyReward` (Bradley-Terry
against a reference) or :class:`~baselines.training.hf.rewards.HumanlikeReward`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from baselines.training.hf.data import to_dataset
from baselines.training.hf.tiny import (
    TrainRunConfig,
    check_precision,
    cpu_trainer_kwargs,
    master_weights,
)


@dataclass
class RMRunConfig(TrainRunConfig):
    """A reward-model run: the model and the ``trl.RewardConfig`` fields.

    The shared fields (:class:`TrainRunConfig`), ``trl.RewardConfig`` fields in
    ``trainer_kwargs``; a batch is pairs."""

    output_dir: str = field(default="runs/rm", metadata={"help": "where the model is written"})
    batch_size: int = field(default=4, metadata={"help": "pairs per device and step"})

    def reward_config(self) -> Any:
        from trl import RewardConfig

        return RewardConfig(**cpu_trainer_kwargs(self, RewardConfig))


def build_reward_trainer(
    pairs: Sequence[dict[str, Any]],
    cfg: RMRunConfig,
    model: Any = None,
    tokenizer: Any = None,
    eval_pairs: Sequence[dict[str, Any]] | None = None,
) -> Any:
    """A ready ``trl.RewardTrainer`` over preference rows (``chosen``/``rejected``, optional
    ``prompt`` and ``margin``; conversational or plain text)."""
    from trl import RewardTrainer

    from baselines.training.hf.models import load_or_build

    if not pairs:
        raise ValueError("no preference pairs")
    if model is None or tokenizer is None:
        model, tokenizer = load_or_build(
            cfg.model, "reward", seed=cfg.seed, precision=cfg.precision
        )
    model = master_weights(model, check_precision(cfg.precision), cfg.learning_rate)
    keep = ("prompt", "chosen", "rejected", "margin")
    dataset = to_dataset([{k: r[k] for k in keep if k in r} for r in pairs])
    eval_dataset = (
        to_dataset([{k: r[k] for k in keep if k in r} for r in eval_pairs]) if eval_pairs else None
    )
    return RewardTrainer(
        model=model,
        args=cfg.reward_config(),
        train_dataset=dataset,
        eval_dataset=eval_dataset,
        processing_class=tokenizer,
    )


def train_reward_model(
    pairs: Sequence[dict[str, Any]], cfg: RMRunConfig | None = None, save: bool = True
) -> Any:
    """Train on ``pairs``, optionally save to ``cfg.output_dir``; returns the trainer."""
    cfg = cfg or RMRunConfig()
    trainer = build_reward_trainer(pairs, cfg)
    trainer.train()
    if save:
        trainer.save_model(cfg.output_dir)
        trainer.processing_class.save_pretrained(cfg.output_dir)
    return trainer


def pairwise_accuracy(scorer: Any, pairs: Sequence[dict[str, Any]]) -> float:
    """Share of pairs where ``score(chosen) > score(rejected)`` (conversational rows)."""
    if not pairs:
        return float("nan")
    wins = 0
    for r in pairs:
        prompt = list(r.get("prompt", []))
        chosen, rejected = [*prompt, *r["chosen"]], [*prompt, *r["rejected"]]
        s_c = scorer(chosen[:-1], chosen[-1]["content"])
        s_r = scorer(rejected[:-1], rejected[-1]["content"])
        wins += s_c > s_r
    return wins / len(pairs)


__all__ = ["RMRunConfig", "build_reward_trainer", "pairwise_accuracy", "train_reward_model"]
