"""The MICA trainer for Hugging Face causal LMs, on the ``transformers``/TRL trainer machinery.

Algorithm 1 of the MICA paper, one optimiser step per batch of ``B`` cases:

1. play ``K`` whole episodes per case in EMPA environments (any backend) with the current policy
   (:func:`baselines.training.mica.rollout.play_episodes`); each turn yields ``(h_t, a_t, r_t)``;
2. per-turn advantages ``A_t`` from any estimator of :mod:`baselines.advantages` (MICA's mixed
   ``alpha * A^t + (1 - alpha) * A^g`` by default, or GRPO / REINFORCE++ / pure variants);
3. the per-turn clipped policy-gradient loss; ``loss_type`` names the aggregation, as in TRL's
   ``GRPOConfig`` (``ratio = pi_theta / pi_old`` per token, ``c(ratio) = clip(ratio, 1 - eps,
   1 + eps_high)``, ``l = -min(ratio * A_t, c(ratio) * A_t)``; ``N`` turns in the generation)::

       grpo     (default)  L = (1/N) sum_t mean over a_t's tokens of l
       dapo                L = sum over all reply tokens of l / (number of reply tokens)
       dr_grpo             L = sum over all reply tokens of l / (N * max_new_tokens)
       mica_seq            L = (1/N) sum_t -min(R_t A_t, c(R_t) A_t),
                           R_t = pi_theta(a_t | h_t) / pi_old(a_t | h_t) with the whole reply's
                           log-prob summed over its tokens (the paper's Algorithm 1: on-policy its
                           gradient is that of -(1/N) sum_t A_t log pi(a_t | h_t))

   With ``beta > 0`` the per-token KL to a frozen copy of the starting model (TRL's ``k3``
   estimator ``exp(ref - logp) - (ref - logp) - 1``) is added with weight ``beta`` (summed over
   the reply for ``mica_seq``). Only the reply tokens ``a_t`` are in the loss: the history ``h_t``
   (the user's turns and the earlier replies) is conditioning only, masked out by
   ``completion_mask``; ``mask_truncated_completions`` also masks replies cut by
   ``max_new_tokens`` (no end-of-turn token).

Rollouts are generated once per ``steps_per_generation`` micro-steps, as in TRL's
``GRPOTrainer``: the dataloader yields ``B * steps_per_generation`` cases, their turns are shuffled
and split into ``steps_per_generation`` slices, one per micro-step, and the whole generation is
reused ``num_iterations`` times. ``steps_per_generation`` defaults to
``gradient_accumulation_steps``, so with ``num_iterations = 2`` the second pass over a generation
comes after an optimiser step (its ratio is no longer 1), never inside the same accumulation
window.

Several processes (``accelerate launch --num_processes N``, CPU/gloo included) split every
generation batch: each plays its own ``B * steps_per_generation`` cases with its own seeds; MICA,
GRPO and the other per-case estimators are computed per process (a case's ``K`` rollouts never
straddle processes), the REINFORCE++ ones over the gathered global batch, and the logged metrics
are means over all processes (:mod:`baselines.training.mica.distributed`). Generation runs on the model
unwrapped by TRL's ``unwrap_model_for_generation`` (DDP, DeepSpeed ZeRO-3 with its parameters
gathered) inside TRL's ``DistributedBackend.summon_full_params`` (FSDP v1), as in TRL's
``GRPOTrainer``.

With ``rollout_workers = N > 0`` (``empa train mica --rollout-workers N``) the episodes are played
by ``N`` Ray actors instead (:mod:`baselines.training.mica.rollouts`): each generation ships the
policy's weights once, every actor rebuilds the model from its configuration and plays its share
with the same generation settings, and the learner gets the turns back and runs the same
advantage, loss and update code. One learner process (the actors are the parallelism).

:class:`MICAConfig` is a ``TrainingArguments`` dataclass (so ``HfArgumentParser`` and the CLI can
fill it); :class:`MICATrainer` subclasses ``transformers.Trainer`` and reuses its optimiser,
scheduler, logging, callbacks and checkpointing, plus TRL's ``RepeatSampler`` (to reuse one
rollout batch for ``num_iterations`` updates) and ``selective_log_softmax``. ``torch_threads``
(default 1) sets ``torch.set_num_threads``: on a 2-core CPU one thread is much faster than
torch's default for these small per-turn forwards (``perf/perf_mica_threads.py``).
"""

from __future__ import annotations

import contextlib
import copy
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence, Sized
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase, Trainer, TrainingArguments
from trl.trainer.utils import RepeatSampler, selective_log_softmax

from baselines.advantages import AdvantageConfig, Estimator, estimators
from baselines.training.hf.tiny import PRECISION_HELP, check_precision, master_weights
from baselines.training.mica.distributed import gathered_advantages, reduce_metrics, rollout_seed
from baselines.training.mica.losses import ClippedTerms, LossTerms, loss_types
from baselines.training.mica.losses import loss_type as loss_type_named
from baselines.training.mica.rollout import GenerationSettings, RolloutBatch, play_episodes

#: Default of ``MICAConfig.torch_threads``, measured by perf/perf_mica_threads.py on a
#: shared 2-core CPU (B=1, K=2, EMPA-v14 max_turns 12): Llama hidden 256 x 4 layers, 10.8 s/step with
#: 1 thread, 12.3 s with 2, 19.0 s with torch's default (2); the 64 x 2 tiny model, 1.8 / 1.6 /
#: 1.4 s (the environment dominates, differences within the other jobs' noise). The issue saw
#: 23.6 s vs 181 s on a larger model.
DEFAULT_TORCH_THREADS = 1


@dataclass
class MICAConfig(TrainingArguments):
    """Configuration of :class:`MICATrainer` (on top of every ``TrainingArguments`` field).

    ``per_device_train_batch_size`` is ``B``, the number of cases per step; ``num_rollouts`` is
    ``K``. Defaults follow the paper where it gives them (``K = 4``, ``alpha = 0.5``,
    ``gamma = 0.95``) and TRL's GRPO elsewhere (``epsilon = 0.2``).
    """

    # --- advantages ---
    estimator: str = field(default="mica", metadata={"help": f"one of {estimators.names()}"})
    alpha: float = field(default=0.5, metadata={"help": "weight of the turn-level component"})
    gamma: float = field(default=0.95, metadata={"help": "discount of the Monte Carlo returns"})
    advantage_eps: float = field(
        default=1e-6, metadata={"help": "guard in (x - mu) / (sigma + eps)"}
    )
    # --- rollouts ---
    num_rollouts: int = field(default=4, metadata={"help": "K, rollouts per case"})
    env_id: str = field(default="EMPA-v14", metadata={"help": "Gymnasium id of the environment"})
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
    reuse_prefix: bool = field(
        default=False,
        metadata={
            "help": "keep each conversation as one token stream and carry its KV cache across "
            "turns (a turn reads only its new tokens; one generate per episode instead of one "
            "batched generate per turn)"
        },
    )
    decoder: str = field(
        default="auto",
        metadata={
            "help": "rollout decoding: 'fast' (one batched prefill + device-side decode loop per "
            "turn, prefix reuse batched too), 'plain' (model.generate) or 'auto' (fast on CUDA)"
        },
    )
    decode_compile: str = field(
        default="auto",
        metadata={
            "help": "fast decoder: static KV cache + torch.compile'd decode step: 'auto' (on "
            "CUDA), 'on' or 'off' (falls back to eager when compilation fails)"
        },
    )
    # --- loss ---
    epsilon: float = field(default=0.2, metadata={"help": "lower clip: ratio >= 1 - epsilon"})
    epsilon_high: float | None = field(
        default=None, metadata={"help": "upper clip (default epsilon)"}
    )
    num_iterations: int = field(default=1, metadata={"help": "updates per rollout batch (mu)"})
    steps_per_generation: int | None = field(
        default=None,
        metadata={
            "help": "micro-steps per generation: B * this many cases are rolled out at once and "
            "split across that many micro-steps (default gradient_accumulation_steps)"
        },
    )
    loss_type: str = field(default="grpo", metadata={"help": f"one of {loss_types.names()}"})
    beta: float = field(
        default=0.0,
        metadata={"help": "KL weight to a frozen reference model (0: no reference model)"},
    )
    mask_truncated_completions: bool = field(
        default=False,
        metadata={"help": "replies cut by max_new_tokens (no end-of-turn token) get no gradient"},
    )
    turn_batch_size: int = field(default=16, metadata={"help": "turns per forward/backward chunk"})
    ddp_broadcast_buffers: bool | None = field(
        default=False,
        metadata={
            "help": "DDP: broadcast the module buffers at every forward (off: they are the "
            "deterministic rotary tables, and the broadcast is a collective per forward, whose "
            "count differs between processes with different numbers of turns)"
        },
    )
    rollout_workers: int = field(
        default=0,
        metadata={
            "help": "play the rollouts on N Ray actors (each holding its own environments; "
            "RAY_ADDRESS or a private local Ray); 0: in this process"
        },
    )
    torch_threads: int = field(
        default=DEFAULT_TORCH_THREADS,
        metadata={"help": "torch.set_num_threads for training (0: leave torch's default)"},
    )
    # --- TrainingArguments defaults that suit this trainer ---
    remove_unused_columns: bool = field(
        default=False, metadata={"help": "keep the dataset's columns (the trainer needs 'case')"}
    )
    logging_steps: float = field(default=1, metadata={"help": "log every N steps"})
    report_to: None | str | list[str] = field(
        default="none", metadata={"help": "integrations to report to ('none', 'tensorboard', ...)"}
    )
    bf16: bool = field(
        default=False,
        metadata={"help": "bfloat16 mixed precision (fp32 master weights, bf16 autocast)"},
    )
    precision: str = field(default="auto", metadata={"help": PRECISION_HELP})
    save_strategy: str = field(
        default="no", metadata={"help": "checkpoint strategy: 'no', 'steps' or 'epoch'"}
    )
    learning_rate: float = field(default=1e-6, metadata={"help": "peak learning rate (AdamW)"})

    def __post_init__(self) -> None:
        check_precision(self.precision)
        if self.precision == "bf16-mixed":
            self.bf16 = True
        elif self.precision in ("fp32", "bf16-pure"):
            self.bf16 = False  # pure bf16 needs no autocast: the weights are bf16 already
        super().__post_init__()
        if self.estimator not in estimators:
            raise ValueError(
                f"unknown estimator {self.estimator!r}; choose one of {estimators.names()}"
            )
        if self.num_rollouts < 1 or self.num_iterations < 1:
            raise ValueError("num_rollouts and num_iterations must be >= 1")
        if self.epsilon_high is None:
            self.epsilon_high = self.epsilon
        loss_type_named(self.loss_type)  # an unknown name: a ValueError naming the known ones
        if self.steps_per_generation is None:
            self.steps_per_generation = self.gradient_accumulation_steps
        if self.steps_per_generation < 1 or self.torch_threads < 0 or self.beta < 0:
            raise ValueError("steps_per_generation >= 1, torch_threads >= 0 and beta >= 0")
        if self.rollout_workers < 0:
            raise ValueError(f"rollout_workers must be >= 0, got {self.rollout_workers}")
        if self.rollout_workers and self.reuse_prefix:
            raise ValueError("reuse_prefix is not available with rollout_workers (yet)")
        _ = self.generation  # validates decoder and decode_compile

    @property
    def generation_steps(self) -> int:
        """``steps_per_generation`` as resolved (default ``gradient_accumulation_steps``)."""
        steps = self.steps_per_generation
        return self.gradient_accumulation_steps if steps is None else steps

    @property
    def clip_high(self) -> float:
        """``epsilon_high`` as resolved (default ``epsilon``)."""
        return self.epsilon if self.epsilon_high is None else self.epsilon_high

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
            self.reuse_prefix,
            decoder=self.decoder,
            compile=self.decode_compile,
            autocast="bfloat16" if self.bf16 else None,
        )


@dataclass
class TurnTensors:
    """A padded batch of turn samples: ``input_ids = [h_t ; a_t ; pad]``."""

    input_ids: torch.Tensor  # (N, L)
    attention_mask: torch.Tensor  # (N, L)
    completion_mask: torch.Tensor  # (N, L): 1 on a_t's tokens only (0 for masked replies)
    advantages: torch.Tensor  # (N,)
    old_logps: torch.Tensor | None = None  # (N, L - 1)
    ref_logps: torch.Tensor | None = None  # (N, L - 1)
    truncated: torch.Tensor | None = None  # (N,) bool: reply cut by max_new_tokens

    def __len__(self) -> int:
        return int(self.input_ids.shape[0])

    def select(self, index: torch.Tensor | slice) -> TurnTensors:
        """The rows ``index`` (a slice or a tensor of row indices)."""

        def pick(t: torch.Tensor | None) -> torch.Tensor | None:
            return t[index] if t is not None else None

        return TurnTensors(
            self.input_ids[index], self.attention_mask[index], self.completion_mask[index],
            self.advantages[index], pick(self.old_logps), pick(self.ref_logps),
            pick(self.truncated),
        )  # fmt: skip

    def chunk(self, start: int, stop: int) -> TurnTensors:
        return self.select(slice(start, stop))


def turn_tensors(
    batch: RolloutBatch,
    advantages: np.ndarray,
    pad_id: int,
    eos_id: int | None = None,
    mask_truncated: bool = False,
) -> TurnTensors:
    """Right-padded ``[prompt ; completion]`` rows, one per turn, with ``A[b, k, t]`` attached.

    A reply is truncated when it does not end with ``eos_id`` (generation stopped at
    ``max_new_tokens``); with ``mask_truncated`` its completion mask is all zeros."""
    samples = batch.samples
    width = max(len(s.prompt_ids) + len(s.completion_ids) for s in samples)
    n = len(samples)
    input_ids = torch.full((n, width), pad_id, dtype=torch.long)
    attention = torch.zeros((n, width), dtype=torch.long)
    completion = torch.zeros((n, width), dtype=torch.long)
    adv = torch.zeros(n, dtype=torch.float32)
    truncated = torch.zeros(n, dtype=torch.bool)
    for i, s in enumerate(samples):
        p, c = len(s.prompt_ids), len(s.completion_ids)
        input_ids[i, : p + c] = torch.tensor(s.prompt_ids + s.completion_ids, dtype=torch.long)
        attention[i, : p + c] = 1
        truncated[i] = eos_id is not None and (c == 0 or s.completion_ids[-1] != eos_id)
        if not (mask_truncated and truncated[i]):
            completion[i, p : p + c] = 1
        adv[i] = float(advantages[s.case_index, s.rollout, s.turn])
    return TurnTensors(input_ids, attention, completion, adv, truncated=truncated)


def per_token_logps(
    model: Any, tt: TurnTensors, temperature: float = 1.0, batch_size: int | None = None
) -> torch.Tensor:
    """``log pi(token_{j+1} | tokens_{<=j})`` for every position, ``(N, L - 1)`` (forwards of
    ``batch_size`` rows at a time when given)."""
    if batch_size is not None and len(tt) > batch_size:
        return torch.cat(
            [
                per_token_logps(model, tt.chunk(i, i + batch_size), temperature)
                for i in range(0, len(tt), batch_size)
            ]
        )
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


def policy_loss_terms(
    logps: torch.Tensor,
    old_logps: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    loss_type: str = "grpo",
    epsilon_low: float = 0.2,
    epsilon_high: float = 0.2,
    ref_logps: torch.Tensor | None = None,
    beta: float = 0.0,
) -> LossTerms:
    """The clipped policy-gradient loss's numerator for ``loss_type`` (see the module docstring).

    ``grpo`` and ``mica_seq`` sum per-turn values (divide by the number of turns); ``dapo`` and
    ``dr_grpo`` sum per-token values (divide by the reply tokens, or turns x max_new_tokens)."""
    kind = loss_type_named(loss_type)
    on = mask.bool()
    mask = mask.to(logps.dtype)
    a = advantages.to(logps.dtype).unsqueeze(1)
    log_ratio = torch.where(on, logps - old_logps, torch.zeros_like(logps))
    kl = None
    if beta != 0.0:
        if ref_logps is None:
            raise ValueError("beta > 0 needs the reference model's log-probs")
        diff = torch.where(on, ref_logps - logps, torch.zeros_like(logps))
        kl = torch.exp(diff) - diff - 1
    return kind.numerator(ClippedTerms(log_ratio, a, on, mask, kl, epsilon_low, epsilon_high, beta))


def loss_denominator(loss_type: str, turns: int, tokens: int, max_new_tokens: int) -> float:
    """What :attr:`LossTerms.numerator` is divided by over a whole generation of ``turns`` turns
    with ``tokens`` reply tokens in the loss."""
    return loss_type_named(loss_type).denominator(turns, tokens, max_new_tokens)


def policy_loss(
    logps: torch.Tensor,
    old_logps: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    loss_type: str = "grpo",
    epsilon_low: float = 0.2,
    epsilon_high: float = 0.2,
    max_new_tokens: int = 48,
    ref_logps: torch.Tensor | None = None,
    beta: float = 0.0,
) -> torch.Tensor:
    """The loss of one whole batch of turns (numerator over denominator)."""
    terms = policy_loss_terms(
        logps, old_logps, advantages, mask, loss_type, epsilon_low, epsilon_high, ref_logps, beta
    )
    denominator = loss_denominator(loss_type, int(logps.shape[0]), int(mask.sum()), max_new_tokens)
    return terms.numerator / denominator


@dataclass
class Generation:
    """One rollout generation: its tensors, split into ``steps_per_generation`` slices, and the
    totals the loss is normalised by."""

    tensors: TurnTensors
    batch: RolloutBatch
    slices: list[TurnTensors]
    turns: int
    tokens: int


class MICATrainer(Trainer):
    """Multi-turn policy-gradient training of a causal LM in EMPA environments.

    Args:
        model: a causal LM (``PreTrainedModel``).
        args: a :class:`MICAConfig`.
        train_dataset: rows with a ``case`` column (case ids of the environment's pool);
            :func:`case_dataset` builds one.
        processing_class: the tokenizer (with a chat template).
        env_factory: builds one environment (default ``gymnasium.make(args.env_id, **env_kwargs)``);
            ``B * K * steps_per_generation`` of them are created once and reused.
        estimator: overrides ``args.estimator`` with any callable of the estimators' signature.
        ref_model: the frozen reference of the KL term (``beta > 0``); default a copy of ``model``
            as it is when the trainer is built.
        rollout_pool: with ``args.rollout_workers > 0``, what plays the rollouts: anything with
            :meth:`RayRolloutPool.play`'s ``play(recipe, episodes)``; default a
            :class:`~baselines.training.ray_rollouts.RayRolloutPool` of ``rollout_workers``
            actors making ``gymnasium.make(args.env_id, **env_kwargs)``, started at the first
            generation and ended by :meth:`close` (a pool passed in is left to its owner).

    With ``rollout_workers > 0`` each generation ships the policy's weights to the actors once
    (:class:`~baselines.training.mica.rollouts.LMRollout`), the actors play the episodes and
    return their turns; advantages, tensors and the update are the same code as in-process.
    Sampled episodes then draw from per-episode generators, so they do not depend on the number
    of workers, but differ from ``rollout_workers=0`` (torch's global generator); greedy decoding
    is identical (:mod:`baselines.training.mica.rollouts`).

    After each micro-step :attr:`pass_log` holds one row ``{"step", "pass", "ratio_dev",
    "clip_ratio"}`` (``pass`` counts the uses of the current generation from 0, ``ratio_dev`` is
    the mean ``|ratio - 1|`` over its reply tokens); the logs carry their means per step.
    """

    #: ``Trainer`` types these as its own bases; here they are always these.
    args: MICAConfig
    processing_class: PreTrainedTokenizerBase

    def __init__(
        self,
        model: Any,
        args: MICAConfig,
        train_dataset: Any,
        processing_class: Any,
        env_factory: Callable[[], Any] | None = None,
        estimator: Estimator | None = None,
        callbacks: Sequence[Any] | None = None,
        ref_model: Any = None,
        rollout_pool: Any = None,
    ) -> None:
        if processing_class.pad_token_id is None:
            raise ValueError("the tokenizer needs a pad token")
        if args.rollout_workers and env_factory is not None:
            raise ValueError(
                "rollout_workers: the actors make their environments from env_id/env_kwargs; "
                "an env_factory cannot be shipped to them"
            )
        if args.torch_threads:
            torch.set_num_threads(args.torch_threads)
        model = master_weights(model, args.precision, args.learning_rate)
        if args.beta != 0.0 and ref_model is None:
            ref_model = copy.deepcopy(model)
        super().__init__(
            model=model,
            args=args,
            train_dataset=train_dataset,
            processing_class=processing_class,
            data_collator=lambda rows: {"case": [r["case"] for r in rows]},
            callbacks=list(callbacks) if callbacks else None,
        )
        self.ref_model = None
        if args.beta != 0.0:
            self.ref_model = ref_model.to(args.device).eval()
            self.ref_model.requires_grad_(False)
        self.env_factory = env_factory or self._default_env_factory
        self._envs: list[Any] = []
        self._rollout_pool = rollout_pool
        self._owns_rollout_pool = False
        self.advantage_config = (
            AdvantageConfig(estimator, args.alpha, args.gamma, args.advantage_eps)
            if estimator is not None
            else args.advantage
        )
        self._buffer: Generation | None = None
        self._step = 0
        self._metrics: dict[str, list[float]] = defaultdict(list)
        self.last_rollouts: RolloutBatch | None = None
        self.last_advantages: np.ndarray | None = None  # (B, K, T) of the last generation
        self.pass_log: list[dict[str, float]] = []

    # --- data ----------------------------------------------------------------------------------
    def _set_signature_columns_if_needed(self) -> None:
        if self._signature_columns is None:
            # (transformers declares this attribute as None only; it holds column names)
            self._signature_columns = ["case"]  # type: ignore[assignment]

    @property
    def _generate_every(self) -> int:
        return self.args.generation_steps * self.args.num_iterations

    def get_train_dataloader(self) -> Any:
        """One dataloader batch is one *generation*: ``B * steps_per_generation`` cases (as TRL's
        GRPOTrainer); :meth:`training_step` splits its turns across the micro-steps."""
        if self.train_dataset is None:
            raise ValueError("MICATrainer needs a train_dataset")
        return self._get_dataloader(
            dataset=self.train_dataset,
            description="Training",
            batch_size=self._train_batch_size * self.args.generation_steps,
            sampler_fn=self._get_train_sampler,
            is_training=True,
        )

    def _get_train_sampler(self, train_dataset: Any = None) -> RepeatSampler:
        """Each generation batch of ``B * steps_per_generation`` cases comes
        ``num_iterations * steps_per_generation`` times in a row (one rollout per generation,
        reused for every micro-step and iteration), as in TRL's GRPO; with several processes the
        batch is ``B * steps_per_generation * num_processes`` distinct cases."""
        dataset = train_dataset if train_dataset is not None else self.train_dataset
        if not isinstance(dataset, Sized):
            raise ValueError("MICATrainer needs a train_dataset with a length")
        spg = self.args.generation_steps
        # The sampler's batch is the *global* one: the prepared dataloader hands each process
        # its own consecutive B * spg slice of it, so no case is played twice.
        return RepeatSampler(
            data_source=dataset,
            mini_repeat_count=1,
            batch_size=self.args.per_device_train_batch_size * spg * self.accelerator.num_processes,
            repeat_count=self.args.num_iterations * spg,
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
        """Play ``K`` episodes per case, compute the advantages, build the turn tensors (with the
        sampling policy's log-probs when the generation outlives an optimiser step, and the
        reference's when ``beta > 0``)."""
        args: MICAConfig = self.args
        k = args.num_rollouts
        seed = rollout_seed(args.seed, self.state.global_step, self.accelerator.process_index)
        with self.unwrapped_for_generation() as unwrapped:
            if args.rollout_workers:
                batch = self._play_on_workers(unwrapped, list(case_ids), k, seed)
            else:
                envs = self._env_pool(len(case_ids) * k)
                batch = play_episodes(
                    unwrapped, self.processing_class, envs, list(case_ids), k, args.generation,
                    seed=seed,
                )  # fmt: skip
        advantages = gathered_advantages(
            self.advantage_config, batch.rewards, batch.lengths, self._gather,
            self.accelerator.process_index,
        )  # fmt: skip
        tensors = turn_tensors(
            batch, advantages, self.processing_class.pad_token_id,
            self.processing_class.eos_token_id, args.mask_truncated_completions,
        )  # fmt: skip
        # As TRL: the generation is reused after an optimiser step unless the accumulation
        # window is a multiple of steps_per_generation * num_iterations; then the ratio needs
        # the sampling policy's log-probs (otherwise they equal the current ones, detached).
        if args.gradient_accumulation_steps % self._generate_every != 0:
            with torch.no_grad():
                tensors.old_logps = per_token_logps(
                    self.model, tensors, args.temperature, args.turn_batch_size
                ).cpu()
        if self.ref_model is not None:
            with torch.no_grad():
                tensors.ref_logps = per_token_logps(
                    self.ref_model, tensors, args.temperature, args.turn_batch_size
                ).cpu()
        self.last_advantages = advantages
        for key, value in batch.metrics().items():
            self._metrics[key].append(value)
        mask = batch.lengths[..., None] > np.arange(batch.rewards.shape[2])
        self._metrics["advantage_abs_mean"].append(float(np.abs(advantages[mask]).mean()))
        if tensors.truncated is not None:
            self._metrics["truncated_share"].append(float(tensors.truncated.float().mean()))
        self.last_rollouts = batch
        return tensors, batch

    def _play_on_workers(self, model: Any, case_ids: list[str], k: int, seed: int) -> RolloutBatch:
        """The generation's episodes played by the rollout pool (started here the first time)."""
        from baselines.training.mica.rollouts import LMRollout, lm_episodes, rollout_batch

        if self._rollout_pool is None:
            from baselines.training.ray_rollouts import RayRolloutPool

            self._rollout_pool = RayRolloutPool(
                int(self.args.rollout_workers), self.args.env_id, self.args.env_kwargs
            )
            self._owns_rollout_pool = True
        recipe = LMRollout.of(model, self.processing_class, self.args.generation, seed)
        played = self._rollout_pool.play(recipe, lm_episodes(case_ids, k, seed))
        return rollout_batch(played, case_ids, k)

    @contextlib.contextmanager
    def unwrapped_for_generation(self) -> Iterator[Any]:
        """The policy ready for ``generate``, as TRL's GRPOTrainer prepares it: unwrapped from
        DDP / DeepSpeed (ZeRO-3 parameters gathered) and, under FSDP v1, with its full parameters
        summoned."""
        from trl.distributed import DistributedBackend
        from trl.models import unwrap_model_for_generation

        with (
            unwrap_model_for_generation(self.model_wrapped, self.accelerator) as unwrapped,
            DistributedBackend(self.accelerator).summon_full_params(
                self.model_wrapped, recurse=False
            ),
        ):
            yield unwrapped

    def _gather(self, items: list[Any]) -> list[Any]:
        """Every process's ``items`` in process order (``items`` itself in one process)."""
        from accelerate.utils import gather_object

        return list(gather_object(items))

    def _new_generation(self, case_ids: Sequence[str]) -> Generation:
        tensors, batch = self.collect(case_ids)
        spg = self.args.generation_steps
        g = torch.Generator().manual_seed(self.args.seed * 7_919 + self.state.global_step)
        order = torch.randperm(len(tensors), generator=g)
        slices = [tensors.select(part) for part in torch.tensor_split(order, spg)]
        tokens = int(tensors.completion_mask.sum())
        return Generation(tensors, batch, slices, len(tensors), tokens)

    # --- the update -----------------------------------------------------------------------------
    def compute_loss(
        self, model: Any, inputs: Any, return_outputs: bool = False, num_items_in_batch: Any = None
    ) -> torch.Tensor:
        """The chunk's loss numerator divided by ``num_items_in_batch`` (the generation's
        :func:`loss_denominator` for ``loss_type``; default the chunk's own), so chunks add up."""
        if return_outputs:
            raise ValueError("MICATrainer does not return outputs")
        tt: TurnTensors = inputs
        args: MICAConfig = self.args
        logps = per_token_logps(model, tt, args.temperature)
        device = logps.device
        old = tt.old_logps.to(device) if tt.old_logps is not None else logps.detach()
        ref = tt.ref_logps.to(device) if tt.ref_logps is not None else None
        mask = tt.completion_mask[:, 1:].to(device)
        terms = policy_loss_terms(
            logps, old, tt.advantages.to(device), mask, args.loss_type, args.epsilon,
            args.clip_high, ref, args.beta,
        )  # fmt: skip
        on = mask.bool()
        tokens = float(on.sum().clamp(min=1))
        ratio = terms.ratio.expand_as(logps)
        self._chunk_stats.append(
            (float(on.sum()), float((ratio - 1).abs()[on].sum()), float(terms.clipped.sum()))
        )
        self._metrics["clip_ratio"].append(float(terms.clipped.sum()) / tokens)
        if terms.kl is not None:
            self._metrics["kl"].append(float(terms.kl[on].sum()) / tokens)
        if num_items_in_batch is None:
            num_items_in_batch = loss_denominator(
                args.loss_type, len(tt), int(on.sum()), args.max_new_tokens
            )
        return terms.numerator / float(num_items_in_batch)

    def training_step(
        self, model: Any, inputs: dict[str, Any], num_items_in_batch: Any = None
    ) -> torch.Tensor:
        """Roll out once per ``steps_per_generation * num_iterations`` micro-steps, then
        backward over this micro-step's slice of the generation in chunks of turns."""
        model.train()
        args: MICAConfig = self.args
        spg = args.generation_steps
        if self._step % self._generate_every == 0 or self._buffer is None:
            self._buffer = self._new_generation(inputs["case"])
        gen = self._buffer
        tensors = gen.slices[self._step % spg]
        passes = (self._step % self._generate_every) // spg
        self._step += 1
        accumulation = getattr(
            self, "current_gradient_accumulation_steps", args.gradient_accumulation_steps
        )
        # One optimiser step covers accumulation / spg of a generation: the loss over it is the
        # mean over the turns (or tokens) it saw.
        denominator = loss_denominator(args.loss_type, gen.turns, gen.tokens, args.max_new_tokens)
        denominator *= accumulation / spg
        total = torch.zeros((), device=args.device)
        self._chunk_stats: list[tuple[float, float, float]] = []
        starts = list(range(0, len(tensors), args.turn_batch_size))
        if not starts:  # nothing to learn here, but other processes wait for this gradient sync
            self.accelerator.backward(sum(p.sum() * 0.0 for p in model.parameters()))
        for start in starts:
            # Processes have different numbers of turns, hence of chunks: gradients are synced
            # once per micro-step (the last chunk), so every process syncs equally often.
            last = start == starts[-1]
            with (
                contextlib.nullcontext() if last else self.accelerator.no_sync(model),
                self.compute_loss_context_manager(),
            ):
                loss = self.compute_loss(
                    model,
                    tensors.chunk(start, start + args.turn_batch_size),
                    num_items_in_batch=denominator,
                )
                self.accelerator.backward(loss)
            total = total + loss.detach()
        tokens = max(sum(c[0] for c in self._chunk_stats), 1.0)
        row = {
            "step": float(self.state.global_step),
            "pass": float(passes),
            "ratio_dev": sum(c[1] for c in self._chunk_stats) / tokens,
            "clip_ratio": sum(c[2] for c in self._chunk_stats) / tokens,
        }
        self.pass_log.append(row)
        self._metrics["ratio_dev"].append(row["ratio_dev"])
        return total

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        """Adds the rollout and loss metrics since the last log, each the mean of the values
        every process recorded (every process logs at the same steps)."""
        if "loss" in logs or "train_loss" in logs:
            logs.update(reduce_metrics(self._metrics, self._gather))
            self._metrics.clear()
        super().log(logs, start_time)

    def close(self) -> None:
        """Close the environments (and the rollout pool the trainer started)."""
        for env in self._envs:
            env.close()
        self._envs.clear()
        if self._owns_rollout_pool and self._rollout_pool is not None:
            self._rollout_pool.close()
            self._rollout_pool, self._owns_rollout_pool = None, False


def case_dataset(case_ids: Sequence[str]) -> Any:
    """A ``datasets.Dataset`` with one ``case`` row per case id."""
    from datasets import Dataset

    return Dataset.from_dict({"case": list(case_ids)})


def env_case_ids(env: Any) -> list[str]:
    """The case ids of an environment's pool."""
    return [c.id for c in env.unwrapped.cases]


__all__ = [
    "Generation", "LossTerms", "MICAConfig", "MICATrainer", "TurnTensors",
    "case_dataset", "clipped_turn_loss", "env_case_ids", "loss_denominator", "per_token_logps",
    "policy_loss", "policy_loss_terms", "turn_tensors",
]  # fmt: skip
