"""MICA on a causal LM in the offline environment, with the TRL-based MICATrainer (CPU, ~1 min).

A tiny Llama built offline (random weights, so its replies are noise) plays K = 4 episodes per
case, per-turn mixed advantages are computed, and the clipped per-turn policy gradient updates it.
The point is the plumbing: swap in a real local checkpoint (``load_or_build("path/to/model")``)
and a longer budget for actual training. ``estimator`` can be any of baselines.advantages.

    python examples/train_mica.py [--cases 8] [--steps 6]
    accelerate launch --multi_gpu --num_processes 2 examples/train_mica.py   # 2 CPU processes

Under ``accelerate launch`` each process plays its own cases (``--multi_gpu`` is accelerate's
torchrun launcher; without a GPU the processes run on the CPU with the gloo backend).
"""

import argparse

import gymnasium as gym

import empa_env  # noqa: F401
from baselines.training import use_offline_hub
from baselines.training.hf.tiny import build_tiny_causal_lm
from baselines.training.mica.trainer import MICAConfig, MICATrainer, case_dataset, env_case_ids

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--cases", type=int, default=8, help="cases in the training set")
parser.add_argument("--steps", type=int, default=6, help="optimiser steps")
args = parser.parse_args()
use_offline_hub()  # this script is a process start: keep Hugging Face offline

model, tokenizer = build_tiny_causal_lm(seed=0)
env_kwargs = {"max_turns": 6, "epm_overrides": {"min_turns": 3}}  # short demo episodes
cases = env_case_ids(gym.make("EMPA-v14"))[: args.cases]
args = MICAConfig(
    output_dir="runs/example-mica",
    estimator="mica",
    alpha=0.5,
    gamma=0.95,
    per_device_train_batch_size=2,
    num_rollouts=4,
    max_steps=args.steps,
    learning_rate=1e-3,
    max_new_tokens=24,
    env_kwargs=env_kwargs,
    use_cpu=True,
    logging_steps=1,
)
trainer = MICATrainer(model, args, case_dataset(cases), tokenizer)
trainer.train()
trainer.close()
for h in trainer.state.log_history:
    if "loss" in h:
        print(
            f"step {h['step']}: loss {h['loss']:+.4f}  mean IDR {h['reward']:+.2f}  "
            f"|A| {h['advantage_abs_mean']:.2f}  turns {h['turns']:.1f}"
        )
# Under accelerate launch: take the process group down before exit (a gloo group left alive can
# abort a process at interpreter exit).
trainer.accelerator.end_training()
