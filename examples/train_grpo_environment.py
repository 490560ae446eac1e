"""TRL's environment path on EMPA: stock GRPOTrainer, ``environment_factory`` (CPU, ~1 min).

What a TRL user adds to their own GRPO script is the three marked lines: a dataset of EMPA cases,
the environment (the policy speaks to the person through its ``reply`` tool; ``get_reward`` is
the episode's IDR return) and, optionally, the EPM-Index as a logged reward. TRL runs the
multi-turn loop itself; the per-turn rewards stay on each environment (``env.rewards``) for
per-turn credit. The model must call tools in a format TRL parses (Qwen2.5/Qwen3, Llama 3.1, ...);
here a tiny one built offline and taught to (``build_tiny_tool_caller``, ~20 s) stands in.

    python examples/train_grpo_environment.py
    empa train grpo-trl --model tiny-tools --rollout environment   # the same from the CLI
"""

import os

from trl import GRPOConfig, GRPOTrainer

from baselines.training import use_offline_hub
from baselines.training.hf.tiny import no_checkpointing
from baselines.training.hf.tiny_tools import build_tiny_tool_caller
from empa_env.integrations.trl import EMPAToolEnv, empa_dataset, epm_index_reward

use_offline_hub()  # this script is a process start: keep Hugging Face offline
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # TRL marks environment_factory experimental

model, tokenizer = build_tiny_tool_caller(seed=0)  # your model and tokenizer here
short = {"max_turns": 3, "epm_overrides": {"min_turns": 2}}  # short demo episodes
args = GRPOConfig(
    output_dir="runs/example-grpo-environment",
    per_device_train_batch_size=4,  # 2 cases x K = 2 episodes per step
    num_generations=2,
    max_completion_length=384,  # a whole episode: the replies and the person's answers
    max_steps=2,
    learning_rate=1e-3,
    use_cpu=True,
    bf16=False,
    report_to=[],
    logging_steps=1,
    save_strategy="no",
    **no_checkpointing(GRPOConfig),
)
trainer = GRPOTrainer(
    model=model,
    args=args,
    processing_class=tokenizer,
    train_dataset=empa_dataset("EMPA-v14", cases=8),  # EMPA: one row per case
    environment_factory=lambda: EMPAToolEnv("EMPA-v14", **short),  # EMPA: the environment
    reward_funcs=[epm_index_reward],  # EMPA: EPM-Index (GRPOConfig's reward_weights to weigh it)
)
trainer.train()
for h in trainer.state.log_history:
    if "loss" in h:
        print(
            f"step {h['step']}: loss {h['loss']:+.4f}  IDR return {h['rewards/EMPAToolEnv/mean']:+.2f}  "
            f"EPM-Index {h['rewards/epm_index_reward/mean']:.1f}  turns {h['empa/turns']:.1f}  "
            f"reply calls per episode {h['tools/call_frequency']:.1f}"
        )
