"""Supervised fine-tuning on environment trajectories with TRL's ``SFTTrainer``.

Trajectories become conversational rows (:func:`baselines.training.hf.data.sft_examples`) and train
with ``assistant_only_loss=True``: the chat template's ``{% generation %}`` block marks the
assistant's tokens, so the simulated user's turns are context, never targets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from baselines.training.hf.data import SFTFilter, sft_examples, to_dataset
from baselines.training.hf.tiny import (
    TrainRunConfig,
    check_precision,
    cpu_trainer_kwargs,
    master_weights,
)
from epm.trajectory import Trajectory


@dataclass
class SFTRunConfig(TrainRunConfig):
    """A supervised fine-tuning run: what :func:`train_sft` needs besides the data.

    The shared fields (:class:`TrainRunConfig`: ``model`` is ``"tiny"``, built offline, or a
    local checkpoint directory; ``trainer_kwargs`` go straight into ``trl.SFTConfig``, e.g.
    ``{"max_length": 512}``), which conversations to keep, and a system prompt."""

    output_dir: str = field(default="runs/sft", metadata={"help": "where the model is written"})
    filter: SFTFilter = field(default_factory=SFTFilter)
    system_prompt: str | None = field(
        default=None, metadata={"help": "system message put before every conversation"}
    )

    def sft_config(self) -> Any:
        from trl import SFTConfig

        return SFTConfig(**cpu_trainer_kwargs(self, SFTConfig, assistant_only_loss=True))


def build_sft_trainer(
    rows: Sequence[dict[str, Any]], cfg: SFTRunConfig, model: Any = None, tokenizer: Any = None
) -> Any:
    """A ready ``trl.SFTTrainer`` over conversational ``rows`` (``{"messages": [...]}``)."""
    from trl import SFTTrainer

    from baselines.training.hf.models import load_or_build

    if not rows:
        raise ValueError("no SFT examples survived the filters")
    if model is None or tokenizer is None:
        model, tokenizer = load_or_build(
            cfg.model, "causal_lm", seed=cfg.seed, precision=cfg.precision
        )
    model = master_weights(model, check_precision(cfg.precision), cfg.learning_rate)
    dataset = to_dataset([{"messages": r["messages"]} for r in rows])
    return SFTTrainer(
        model=model, args=cfg.sft_config(), train_dataset=dataset, processing_class=tokenizer
    )


def train_sft(
    trajectories: Iterable[Trajectory], cfg: SFTRunConfig | None = None, save: bool = True
) -> Any:
    """Filter trajectories, build the dataset, train, optionally save; returns the trainer."""
    cfg = cfg or SFTRunConfig()
    rows = sft_examples(trajectories, cfg.filter, cfg.system_prompt)
    trainer = build_sft_trainer(rows, cfg)
    trainer.train()
    if save:
        trainer.save_model(cfg.output_dir)
        trainer.processing_class.save_pretrained(cfg.output_dir)
    return trainer


__all__ = ["SFTRunConfig", "build_sft_trainer", "train_sft"]
