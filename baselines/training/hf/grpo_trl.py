"""TRL's own ``GRPOTrainer``, unchanged, trained on EMPA episodes with the trajectory reward (the
MICA paper's GRPO baseline), for users who want stock TRL. Two ways, both TRL's documented ones
(``empa train grpo-trl --rollout environment|loop|auto``):

* **TRL's environment path** (:func:`empa_environment_grpo_trainer`):
  ``GRPOTrainer(environment_factory=...)`` with :class:`~empa_env.integrations.trl.EMPAToolEnv`.
  TRL runs the multi-turn loop itself; the conversation goes on while the model calls a tool in
  its chat template's tool-call format (TRL parses it with the tokenizer's response template),
  so the policy speaks through the ``reply`` tool and the person answers as the tool's result.
  It needs a model whose chat template calls tools in a format TRL parses
  (:func:`tool_calling_ready`: Qwen2.5/Qwen3, Llama 3.1/3.2, ...).
* **The project's loop** (:func:`empa_grpo_trainer`), for what TRL's path cannot do:
  ``GRPOTrainer(rollout_func=...)`` hands the per-process prompts to
  :class:`EMPARolloutFunction`, which returns, per prompt, ``prompt_ids``, ``completion_ids`` and
  ``logprobs``, an ``env_mask`` (1 on the model's tokens, 0 on the environment's, which get no
  loss) and extra fields that reach the reward functions: one multi-turn episode per sample. It
  adds: the policy's replies are plain ``assistant`` turns (any chat template, no tool-call
  format: an EMPA user answers whatever the policy writes, which is what the benchmark plays); an
  episode's generation carries the KV cache across turns and every episode of a generation plays
  in lockstep (one batched generation per turn); the rollouts' own metrics (turns, success rate,
  tokens read per turn); the precision and decoder options.

:class:`EMPARolloutFunction` is that ``rollout_func``. Each training row's ``prompt`` is a case id
of the environment's pool (:func:`grpo_dataset`); TRL repeats it ``num_generations`` times (the
``K`` rollouts of GRPO), and every repeat plays one whole episode in its own environment (a pool
made with ``env_factory``, one per concurrent episode) with the policy unwrapped for generation as
TRL does. The episode is returned as one token stream: ``prompt_ids`` is the templated opening,
``completion_ids`` the replies interleaved with the user's turns (:mod:`baselines.training.mica.prefix`,
generated with the KV cache carried across turns), ``env_mask`` 0 on the user's part. The reward
functions read the episode's fields: :func:`trajectory_reward` is ``R_traj = sum_t r_t`` (the sum
of the environment's per-turn rewards, IDR by default), which GRPOTrainer standardises per case
over its ``K`` rollouts, i.e. the GRPO estimator of :mod:`baselines.advantages`;
:func:`epm_index_reward` is the episode's EPM-Index, logged with weight 0 by default.

The rollouts' own numbers (``empa/turns``, ``empa/success_rate``, ``empa/tokens/...``; see
:meth:`~baselines.training.mica.rollout.RolloutBatch.metrics`) reach TRL's log through its public hook
for reward functions: TRL passes every reward function a ``log_metric(name, value)`` callable
(TRL's GRPO documentation, "log_metric"), averages what it receives over the processes and then
over each logging step, like its own ``kl`` or ``entropy``. The rollout function hands them to
:func:`trajectory_reward` as the ``empa_metrics`` field; nothing writes to the trainer's private
state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from baselines.training.mica.distributed import rollout_seed
from baselines.training.mica.rollout import GenerationSettings, RolloutBatch, play_episodes


def grpo_dataset(case_ids: Sequence[str]) -> Any:
    """A ``datasets.Dataset`` whose ``prompt`` column holds the case ids (one row per case)."""
    from datasets import Dataset

    return Dataset.from_dict({"prompt": list(case_ids)})


def episode_streams(
    batch: RolloutBatch,
) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """``(prompt_ids, completion_ids, env_mask)`` of each episode of a one-rollout-per-case batch
    played with ``reuse_prefix``: the opening prompt, then every reply and the user turns between
    them as one sequence, ``env_mask`` 1 on the replies' tokens only."""
    by_episode: dict[int, list[Any]] = {}
    for s in batch.samples:
        by_episode.setdefault(s.case_index, []).append(s)
    prompts, completions, masks = [], [], []
    for b in range(len(batch.case_ids)):
        turns = sorted(by_episode.get(b, []), key=lambda s: s.turn)
        if not turns:
            raise ValueError(f"episode {b} ({batch.case_ids[b]}) has no turn")
        prompt = list(turns[0].prompt_ids)
        completion: list[int] = []
        mask: list[int] = []
        for s in turns:
            stream = prompt + completion
            if s.prompt_ids[: len(stream)] != stream:
                raise ValueError(
                    "the conversation outgrew max_prompt_length (its stream was left-truncated); "
                    "raise max_prompt_length"
                )
            between = s.prompt_ids[len(stream) :]
            completion += between + list(s.completion_ids)
            mask += [0] * len(between) + [1] * len(s.completion_ids)
        prompts.append(prompt)
        completions.append(completion)
        masks.append(mask)
    return prompts, completions, masks


@dataclass
class EMPARolloutFunction:
    """``GRPOTrainer``'s ``rollout_func``: one EMPA episode per prompt (a case id).

    Args:
        env_factory: builds one environment (e.g. ``lambda: gymnasium.make("EMPA-v14")``).
        settings: how replies are generated (``reuse_prefix`` is forced on: the episode must be
            one token stream); ``temperature`` and ``top_p`` should match the ``GRPOConfig``'s.
        seed: the base of the environments' reset seeds (distinct per step and process).
    """

    env_factory: Callable[[], Any]
    settings: GenerationSettings = field(default_factory=GenerationSettings)
    seed: int = 0
    envs: list[Any] = field(default_factory=list)
    last_batch: RolloutBatch | None = None

    def __post_init__(self) -> None:
        self.settings.reuse_prefix = True

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        from trl.distributed import DistributedBackend
        from trl.models import unwrap_model_for_generation

        case_ids = [str(p) for p in prompts]
        while len(self.envs) < len(case_ids):
            self.envs.append(self.env_factory())
        seed = rollout_seed(self.seed, trainer.state.global_step, trainer.accelerator.process_index)
        with (
            unwrap_model_for_generation(
                trainer.model_wrapped,
                trainer.accelerator,
                gather_deepspeed3_params=getattr(trainer.args, "ds3_gather_for_generation", True),
            ) as model,
            DistributedBackend(trainer.accelerator).summon_full_params(
                trainer.model_wrapped, recurse=False
            ),
        ):
            batch = play_episodes(
                model, trainer.processing_class, self.envs, case_ids, 1, self.settings, seed=seed
            )
        self.last_batch = batch
        prompt_ids, completion_ids, env_mask = episode_streams(batch)
        returns = (batch.rewards.sum(-1)[:, 0]).tolist()
        epm = [float((row[0] or {}).get("EPM_Index") or 0.0) for row in batch.episodes]
        return {
            "prompt_ids": prompt_ids,
            "completion_ids": completion_ids,
            "logprobs": None,
            "env_mask": env_mask,
            "trajectory_return": [float(r) for r in returns],
            "epm_index": epm,
            "empa_metrics": [episode_metrics(batch)] * len(case_ids),
        }

    def close(self) -> None:
        """Close the environments."""
        for env in self.envs:
            env.close()
        self.envs.clear()


def episode_metrics(batch: RolloutBatch) -> dict[str, float]:
    """What the rollouts log beside TRL's metrics: ``empa/turns``, ``empa/success_rate`` and the
    token counts ``empa/tokens/...`` of one generation's episodes (this process's)."""
    return {
        f"empa/{key}": value
        for key, value in batch.metrics().items()
        if key.startswith("tokens/") or key in ("turns", "success_rate")
    }


def trajectory_reward(
    prompts: Sequence[Any],
    completions: Sequence[Any],
    trajectory_return: Sequence[float],
    empa_metrics: Sequence[Mapping[str, float]] = (),
    log_metric: Callable[[str, float], None] | None = None,
    **_: Any,
) -> list[float | None]:
    """The episode's ``R_traj = sum_t r_t`` (a GRPOTrainer reward function).

    It also logs the generation's episode metrics (:func:`episode_metrics`, the same mapping on
    every sample) once each through TRL's ``log_metric``, which GRPOTrainer passes to every
    reward function."""
    if log_metric is not None and empa_metrics:
        for name, value in empa_metrics[0].items():
            log_metric(name, value)
    return [float(r) for r in trajectory_return]


def epm_index_reward(
    prompts: Sequence[Any], completions: Sequence[Any], epm_index: Sequence[float], **_: Any
) -> list[float | None]:
    """The episode's EPM-Index (a GRPOTrainer reward function; weight 0 logs it only)."""
    return [float(r) for r in epm_index]


def empa_grpo_trainer(
    model: Any,
    tokenizer: Any,
    args: Any,
    case_ids: Sequence[str],
    env_factory: Callable[[], Any],
    max_new_tokens: int = 48,
    max_prompt_length: int = 4096,
    epm_index_weight: float = 0.0,
    precision: str = "auto",
    decoder: str = "auto",
    decode_compile: str = "auto",
) -> tuple[Any, EMPARolloutFunction]:
    """A stock ``trl.GRPOTrainer`` on EMPA: ``(trainer, rollout_func)``.

    ``args`` is a ``trl.GRPOConfig`` (``num_generations`` is ``K``; its ``reward_weights`` are
    replaced by ``[1, epm_index_weight]``); replies are sampled with its ``temperature`` and
    ``top_p``, at most ``max_new_tokens`` per turn. ``precision`` is one of
    :data:`~baselines.training.hf.tiny.PRECISIONS` (fp32 master weights unless ``bf16-pure``;
    ``bf16-mixed`` turns ``args.bf16`` on). ``decoder`` and ``decode_compile`` choose the
    rollouts' decoding (:class:`~baselines.training.mica.rollout.GenerationSettings`): every episode of
    a generation (``num_generations x`` cases) plays in lockstep, one batched generation per
    turn."""
    from trl import GRPOTrainer

    from baselines.training.hf.tiny import check_precision, master_weights

    check_precision(precision)
    if precision == "bf16-mixed":
        args.bf16 = True
    elif precision in ("fp32", "bf16-pure"):
        args.bf16 = False
    model = master_weights(model, precision, args.learning_rate)
    rollout = EMPARolloutFunction(
        env_factory,
        GenerationSettings(
            max_new_tokens=max_new_tokens,
            temperature=args.temperature,
            top_p=args.top_p,
            max_prompt_length=max_prompt_length,
            decoder=decoder,
            compile=decode_compile,
            autocast="bfloat16" if args.bf16 else None,
        ),
        seed=args.seed,
    )
    args.reward_weights = [1.0, float(epm_index_weight)]
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[trajectory_reward, epm_index_reward],
        args=args,
        train_dataset=grpo_dataset(case_ids),
        processing_class=tokenizer,
        rollout_func=rollout,
    )
    return trainer, rollout


def tool_calling_ready(tokenizer: Any) -> tuple[bool, str]:
    """``(ready, why)``: whether TRL's environment path can drive a model with ``tokenizer``:
    its chat template renders tool calls and TRL parses them (a response template on the
    tokenizer, set by ``trl.chat_template_utils.add_response_schema`` for the templates TRL
    knows)."""
    from trl.chat_template_utils import add_response_schema, supports_tool_calling

    if not supports_tool_calling(tokenizer):
        return False, "its chat template cannot render a tool-calling conversation"
    if getattr(tokenizer, "response_template", None) is None and (
        getattr(tokenizer, "response_schema", None) is None
    ):
        try:
            add_response_schema(tokenizer)
        except ValueError:
            return False, (
                "TRL has no parser for its chat template's tool calls (set the tokenizer's "
                "response_template)"
            )
    return True, "its chat template calls tools in a format TRL parses"


def empa_environment_grpo_trainer(
    model: Any,
    tokenizer: Any,
    args: Any,
    case_ids: Sequence[str],
    env_id: str,
    env_kwargs: Mapping[str, Any] | None = None,
    epm_index_weight: float = 0.0,
    precision: str = "auto",
) -> tuple[Any, list[Any]]:
    """A stock ``trl.GRPOTrainer`` on EMPA through TRL's environment path:
    ``(trainer, environments)`` (the environments TRL made, for per-turn rewards).

    The reward is the environment's ``get_reward`` (the episode's IDR return, weight 1, logged
    as ``rewards/EMPAToolEnv``) plus the EPM-Index with ``epm_index_weight`` (``args``'s
    ``reward_weights`` are replaced by ``[epm_index_weight]``; TRL appends the environment's 1).
    ``args.max_completion_length`` bounds a whole episode (replies and the person's answers)."""
    from trl import GRPOTrainer

    from baselines.training.hf.tiny import check_precision, master_weights
    from empa_env.integrations.trl import EMPAToolEnv, empa_dataset, epm_index_reward

    check_precision(precision)
    if precision == "bf16-mixed":
        args.bf16 = True
    elif precision in ("fp32", "bf16-pure"):
        args.bf16 = False
    model = master_weights(model, precision, args.learning_rate)
    environments: list[EMPAToolEnv] = []
    kwargs = dict(env_kwargs or {})

    def environment() -> EMPAToolEnv:
        environments.append(EMPAToolEnv(env_id, **kwargs))
        return environments[-1]

    args.reward_weights = [float(epm_index_weight)]
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[epm_index_reward],
        args=args,
        train_dataset=empa_dataset(env_id, list(case_ids), seed=args.seed),
        processing_class=tokenizer,
        environment_factory=environment,
    )
    return trainer, environments


__all__ = [
    "EMPARolloutFunction", "empa_environment_grpo_trainer", "empa_grpo_trainer",
    "episode_metrics", "episode_streams", "epm_index_reward", "grpo_dataset",
    "tool_calling_ready", "trajectory_reward",
]  # fmt: skip
