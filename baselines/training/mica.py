"""The MICA trainer for Hugging Face causal LMs, on the ``transformers``/TRL trainer machinery.

Algorithm 1 of the MICA paper, one optimiser step per batch of ``B`` cases:

1. play ``K`` whole episodes per case in EMPA environments (any backend) with the current policy
   (:func:`baselines.training.rollout.play_episodes`); each turn yields ``(h_t, a_t, r_t)``;
2. per-turn advantages ``A_t`` from any estimator of :mod:`baselines.advantages` (MICA's mixed
   ``alpha * A^t + (1 - alpha) * A^g`` by default, or GRPO / REINFORCE++ / pure variants);
3. the per-turn clipped policy-gradient loss, as TRL's GRPO loss (``loss_type="grpo"``)::

       ratio = pi_theta(a_t | h_t) / pi_old(a_t | h_t)           (per token)
       l_t   = mean over a_t's tokens of -min(ratio * A_t, clip(ratio, 1 - eps, 1 + eps_high) * A_t)
       L     = (1 / BKT) * sum over all turns of l_t

   Only the reply tokens ``a_t`` are in the loss: the history ``h_t`` (the user's turns and the
   earlier replies) is conditioning only, masked out by ``completion_mask``.

:class:`MICAConfig` is a ``TrainingArguments`` dataclass (so ``HfArgumentParser`` and the CLI can
fill it); :class:`MICATrainer` subclasses ``transformers.Trainer`` and reuses its optimiser,
scheduler, logging, callbacks and checkpointing, plus TRL's ``RepeatSampler`` (to reuse one
rollout batch for ``num_iterations`` updates) and ``selective_log_softmax``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from transformers import Trainer, TrainingArguments
from trl.trainer.utils import RepeatSampler, selective_log_softmax

from baselines.advantages import ESTIMATORS, AdvantageConfig, Estimator
from baselines.training.rollout import GenerationSettings, RolloutBatch, play_episodes


@dataclass
class MICAConfig(TrainingArguments):
    """Configuration of :class:`MICATrainer` (on top of every ``TrainingArguments`` field).

    ``per_device_train_batch_size`` is ``B``, the number of cases per step; ``num_rollouts`` is
    ``K``. Defaults follow the paper where it gives them (``K = 4``, ``alpha = 0.5``,
    ``gamma = 0.95``) and TRL's GRPO elsewhere (``epsilon = 0.2``).
    """

    # --- advantages ---
    estimator: str = field(default="mica", metadata={"help": f"one of {sorted(ESTIMATORS)}"})
    alpha: float = field(default=0.5, metadata={"help": "weight of the turn-level component"})
    gamma: float = field(default=0.95, metadata={"help": "discount of the Monte Carlo returns"})
    advantage_eps: float = field(
        default=1e-6, metadata={"help": "guard in (x - mu) / (sigma + eps)"}
    )
    # --- rollouts ---
    num_rollouts: int = field(default=4, metadata={"help": "K, rollouts per case"})
    env_id: str = field(default="EMPA-v0", metadata={"help": "Gymnasium id of the environment"})
    env_kwargs: dict[str, Any] | None = field(
        default=None, metadata={"help": "keyword arguments of gymnasium.make (e.g. max_turns)"}
    )
    max_new_tokens: int = field(default=48, metadata={"help": "reply length cap in tokens"})
    max_prompt_length: int = field(
        default=512, metadata={"help": "history budget (left-truncated)"}
    )
    temperature: float = field(default=1.0, metadata={"help": "sampling temperature"})
    top_p: float = field(default=1.0, metadata={"help": "nucleus sampling mass"})
    system_prompt: str | None = field(
        default=None, metadata={"help": "system message put before every history"}
    )
    # --- loss ---
    epsilon: float = field(default=0.2, metadata={"help": "lower clip: ratio >= 1 - epsilon"})
    epsilon_high: float | None = field(
        default=None, metadata={"help": "upper clip (default epsilon)"}
    )
    num_iterations: int = field(default=1, metadata={"help": "updates per rollout batch (mu)"})
    turn_batch_size: int = field(default=16, metadata={"help": "turns per forward/backward chunk"})
    # --- TrainingArguments defaults that suit this trainer ---
    remove_unused_columns: bool = field(
        default=False, metadata={"help": "keep the dataset's columns (the trainer needs 'case')"}
    )
    logging_steps: float = field(default=1, metadata={"help": "log every N steps"})
    report_to: None | str | list[str] = field(
        default="none", metadata={"help": "integrations to report to ('none', 'tensorboard', ...)"}
    )
    bf16: bool = field(default=False, metadata={"help": "bfloat16 mixed precision"})
    save_strategy: str = field(
        default="no", metadata={"help": "checkpoint strategy: 'no', 'steps' or 'epoch'"}
    )
    learning_rate: float = field(default=1e-6, metadata={"help": "peak learning rate (AdamW)"})

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.estimator not in ESTIMATORS:
            raise ValueError(
                f"unknown estimator {self.estimator!r}; choose one of {sorted(ESTIMATORS)}"
            )
        if self.num_rollouts < 1 or self.num_iterations < 1:
            raise ValueError("num_rollouts and num_iterations must be >= 1")
        if self.epsilon_high is None:
            self.epsilon_high = self.epsilon

    @property
    def advantage(self) -> AdvantageConfig:
        return AdvantageConfig(self.estimator, self.alpha, self.gamma, self.advantage_eps)

    @property
    def generation(self) -> GenerationSettings:
        return GenerationSettings(
            self.max_new_tokens,
            self.temperature,
            self.top_p,
            self.max_prompt_length,
            self.system_prompt,
        )


@dataclass
class TurnTensors:
    """A padded batch of turn samples: ``input_ids = [h_t ; a_t ; pad]``."""

    input_ids: torch.Tensor  # (N, L)
    attention_mask: torch.Tensor  # (N, L)
    completion_mask: torch.Tensor  # (N, L): 1 on a_t's tokens only
    advantages: torch.Tensor  # (N,)
    old_logps: torch.Tensor | None = None  # (N, L - 1)

    def __len__(self) -> int:
        return int(self.input_ids.shape[0])

    def chunk(self, start: int, stop: int) -> TurnTensors:
        old = self.old_logps[start:stop] if self.old_logps is not None else None
        return TurnTensors(
            self.input_ids[start:stop], self.attention_mask[start:stop],
            self.completion_mask[start:stop], self.advantages[start:stop], old,
        )  # fmt: skip


def turn_tensors(batch: RolloutBatch, advantages: np.ndarray, pad_id: int) -> TurnTensors:
    """Right-padded ``[prompt ; completion]`` rows, one per turn, with ``A[b, k, t]`` attached."""
    samples = batch.samples
    width = max(len(s.prompt_ids) + len(s.completion_ids) for s in samples)
    n = len(samples)
    input_ids = torch.full((n, width), pad_id, dtype=torch.long)
    attention = torch.zeros((n, width), dtype=torch.long)
    completion = torch.zeros((n, width), dtype=torch.long)
    adv = torch.zeros(n, dtype=torch.float32)
    for i, s in enumerate(samples):
        p, c = len(s.prompt_ids), len(s.completion_ids)
        input_ids[i, : p + c] = torch.tensor(s.prompt_ids + s.completion_ids, dtype=torch.long)
        attention[i, : p + c] = 1
        completion[i, p : p + c] = 1
        adv[i] = float(advantages[s.case_index, s.rollout, s.turn])
    return TurnTensors(input_ids, attention, completion, adv)


def per_token_logps(model: Any, tt: TurnTensors, temperature: float = 1.0) -> torch.Tensor:
    """``log pi(token_{j+1} | tokens_{<=j})`` for every position, ``(N, L - 1)``."""
    device = next(model.parameters()).device
    logits = model(
        input_ids=tt.input_ids.to(device), attention_mask=tt.attention_mask.to(device)
    ).logits[:, :-1]
    return selective_log_softmax(logits / temperature, tt.input_ids[:, 1:].to(device))


def clipped_turn_loss(
    logps: torch.Tensor,
    old_logps: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    epsilon_low: float,
    epsilon_high: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-turn clipped PG loss as TRL GRPO ``loss_type="grpo"``: ``(per-turn loss, clipped mask)``.

    ``mask`` selects the reply tokens; each turn's loss is the mean over its reply tokens.
    """
    ratio = torch.exp(logps - old_logps)
    clipped = torch.clamp(ratio, 1 - epsilon_low, 1 + epsilon_high)
    a = advantages.unsqueeze(1)
    per_token = -torch.min(ratio * a, clipped * a)
    per_turn = (per_token * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)
    is_clipped = ((ratio < 1 - epsilon_low) & (a < 0)) | ((ratio > 1 + epsilon_high) & (a > 0))
    return per_turn, is_clipped & mask.bool()


class MICATrainer(Trainer):
    """Multi-turn policy-gradient training of a causal LM in EMPA environments.

    Args:
        model: a causal LM (``PreTrainedModel``).
        args: a :class:`MICAConfig`.
        train_dataset: rows with a ``case`` column (case ids of the environment's pool);
            :func:`case_dataset` builds one.
        processing_class: the tokenizer (with a chat template).
        env_factory: builds one environment (default ``gymnasium.make(args.env_id, **env_kwargs)``);
            ``B * K`` of them are created once and reused.
        estimator: overrides ``args.estimator`` with any callable of the estimators' signature.
    """

    def __init__(
        self,
        model: Any,
        args: MICAConfig,
        train_dataset: Any,
        processing_class: Any,
        env_factory: Callable[[], Any] | None = None,
        estimator: Estimator | None = None,
        callbacks: Sequence[Any] | None = None,
    ) -> None:
        if processing_class.pad_token_id is None:
            raise ValueError("the tokenizer needs a pad token")
        super().__init__(
            model=model,
            args=args,
            train_dataset=train_dataset,
            processing_class=processing_class,
            data_collator=lambda rows: {"case": [r["case"] for r in rows]},
            callbacks=list(callbacks) if callbacks else None,
        )
        self.env_factory = env_factory or self._default_env_factory
        self._envs: list[Any] = []
        self.advantage_config = (
            AdvantageConfig(estimator, args.alpha, args.gamma, args.advantage_eps)
            if estimator is not None
            else args.advantage
        )
        self._buffer: tuple[TurnTensors, RolloutBatch] | None = None
        self._step = 0
        self._metrics: dict[str, list[float]] = defaultdict(list)
        self.last_rollouts: RolloutBatch | None = None

    # --- data ----------------------------------------------------------------------------------
    def _set_signature_columns_if_needed(self) -> None:
        if self._signature_columns is None:
            self._signature_columns = ["case"]

    def _get_train_sampler(self, train_dataset: Any = None) -> RepeatSampler:
        """Each batch of ``B`` cases comes ``num_iterations`` times in a row (one rollout batch,
        ``num_iterations`` updates), as in TRL's GRPO."""
        dataset = train_dataset if train_dataset is not None else self.train_dataset
        return RepeatSampler(
            data_source=dataset,
            mini_repeat_count=1,
            batch_size=self.args.per_device_train_batch_size,
            repeat_count=self.args.num_iterations,
            shuffle=True,
            seed=self.args.seed,
        )

    def _default_env_factory(self) -> Any:
        import gymnasium as gym

        import empa_env  # noqa: F401  (registers the ids)

        return gym.make(self.args.env_id, **(self.args.env_kwargs or {}))

    def _env_pool(self, n: int) -> list[Any]:
        while len(self._envs) < n:
            self._envs.append(self.env_factory())
        return self._envs

    # --- rollouts -> advantages -> tensors ---------------------------------------------------
    def collect(self, case_ids: Sequence[str]) -> tuple[TurnTensors, RolloutBatch]:
        """Play ``K`` episodes per case, compute the advantages, build the turn tensors."""
        args: MICAConfig = self.args
        k = args.num_rollouts
        envs = self._env_pool(len(case_ids) * k)
        batch = play_episodes(
            self.model, self.processing_class, envs, list(case_ids), k, args.generation,
            seed=args.seed * 1_000_003 + self.state.global_step,
        )  # fmt: skip
        advantages = self.advantage_config(batch.rewards, batch.lengths)
        tensors = turn_tensors(batch, advantages, self.processing_class.pad_token_id)
        if args.num_iterations > 1:  # the sampling policy's log-probs, for the ratio later
            with torch.no_grad():
                tensors.old_logps = torch.cat(
                    [
                        per_token_logps(
                            self.model, tensors.chunk(i, i + args.turn_batch_size), args.temperature
                        )
                        for i in range(0, len(tensors), args.turn_batch_size)
                    ]
                ).cpu()
        for key, value in batch.metrics().items():
            self._metrics[key].append(value)
        mask = batch.lengths[..., None] > np.arange(batch.rewards.shape[2])
        self._metrics["advantage_abs_mean"].append(float(np.abs(advantages[mask]).mean()))
        self.last_rollouts = batch
        return tensors, batch

    # --- the update -----------------------------------------------------------------------------
    def compute_loss(
        self, model: Any, inputs: Any, return_outputs: bool = False, num_items_in_batch: Any = None
    ) -> torch.Tensor:
        """``sum`` of the per-turn clipped losses of one chunk, divided by ``num_items_in_batch``
        (the number of turns in the whole rollout batch), so the chunks add up to the mean."""
        if return_outputs:
            raise ValueError("MICATrainer does not return outputs")
        tt: TurnTensors = inputs
        args: MICAConfig = self.args
        logps = per_token_logps(model, tt, args.temperature)
        device = logps.device
        old = tt.old_logps.to(device) if tt.old_logps is not None else logps.detach()
        mask = tt.completion_mask[:, 1:].to(device).float()
        per_turn, clipped = clipped_turn_loss(
            logps, old, tt.advantages.to(device), mask, args.epsilon, float(args.epsilon_high)
        )
        self._metrics["clip_ratio"].append(float(clipped.sum() / mask.sum().clamp(min=1.0)))
        return per_turn.sum() / float(num_items_in_batch or len(tt))

    def training_step(
        self, model: Any, inputs: dict[str, Any], num_items_in_batch: Any = None
    ) -> torch.Tensor:
        """Roll out (every ``num_iterations`` steps), then backward over the turns in chunks."""
        model.train()
        if self._step % self.args.num_iterations == 0 or self._buffer is None:
            self._buffer = self.collect(inputs["case"])
        self._step += 1
        tensors, _ = self._buffer
        n, size = len(tensors), self.args.turn_batch_size
        accumulation = getattr(
            self, "current_gradient_accumulation_steps", self.args.gradient_accumulation_steps
        )
        total = torch.zeros((), device=self.args.device)
        for start in range(0, n, size):
            with self.compute_loss_context_manager():
                loss = self.compute_loss(
                    model, tensors.chunk(start, start + size), num_items_in_batch=n
                )
            loss = loss / accumulation
            self.accelerator.backward(loss)
            total = total + loss.detach()
        return total

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        if "loss" in logs or "train_loss" in logs:
            for key, values in self._metrics.items():
                if values:
                    logs[key] = float(np.mean(values))
            self._metrics.clear()
        super().log(logs, start_time)

    def close(self) -> None:
        """Close the environments."""
        for env in self._envs:
            env.close()
        self._envs.clear()


def case_dataset(case_ids: Sequence[str]) -> Any:
    """A ``datasets.Dataset`` with one ``case`` row per case id."""
    from datasets import Dataset

    return Dataset.from_dict({"case": list(case_ids)})


def env_case_ids(env: Any) -> list[str]:
    """The case ids of an environment's pool."""
    return [c.id for c in env.unwrapped.cases]


__all__ = [
    "MICAConfig", "MICATrainer", "TurnTensors", "case_dataset", "clipped_turn_loss", "env_case_ids",
    "per_token_logps", "turn_tensors",
]  # fmt: skip
