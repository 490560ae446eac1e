"""The paper's GRPO baseline with TRL's own, unchanged GRPOTrainer on EMPA episodes (CPU, ~1 min).

Each GRPOTrainer sample is one whole EMPA episode played by the policy (TRL's ``rollout_func``;
the user's turns are masked out of the loss), rewarded with its trajectory return
``sum_t r_t`` (IDR); GRPOTrainer standardises it over the ``num_generations`` = K episodes of each
case. A tiny Llama built offline stands in for a real checkpoint (``load_or_build("path")``).

    python examples/train_grpo_trl.py
    empa train grpo-trl --model tiny --num-generations 4 --max-steps 20   # the same from the CLI
"""

import os

import gymnasium as gym
from trl import GRPOConfig

import empa_env  # noqa: F401
from baselines.training import use_offline_hub
from baselines.training.hf.grpo_trl import empa_grpo_trainer
from baselines.training.hf.tiny import build_tiny_causal_lm, no_checkpointing
from baselines.training.mica.trainer import env_case_ids

use_offline_hub()  # this script is a process start: keep Hugging Face offline
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # TRL marks rollout_func experimental

env_kwargs = {"max_turns": 3, "epm_overrides": {"min_turns": 2}}  # short demo episodes
cases = env_case_ids(gym.make("EMPA-v14", **env_kwargs))[:8]
model, tokenizer = build_tiny_causal_lm(seed=0)
args = GRPOConfig(
    output_dir="runs/example-grpo-trl",
    per_device_train_batch_size=4,  # 2 cases x K = 2 episodes per step
    num_generations=2,
    max_steps=2,
    learning_rate=1e-3,
    use_cpu=True,
    bf16=False,
    report_to=[],
    logging_steps=1,
    save_strategy="no",
    **no_checkpointing(GRPOConfig),
)
trainer, rollout = empa_grpo_trainer(
    model, tokenizer, args, cases, lambda: gym.make("EMPA-v14", **env_kwargs), max_new_tokens=12
)
trainer.train()
rollout.close()
for h in trainer.state.log_history:
    if "loss" in h:
        print(
            f"step {h['step']}: loss {h['loss']:+.4f}  return {h['reward']:+.2f}  "
            f"EPM-Index {h['rewards/epm_index_reward/mean']:.1f}  turns {h['empa/turns']:.1f}  "
            f"prompt tokens read/turn {h['empa/tokens/prompt_read_per_turn']:.0f}"
        )
