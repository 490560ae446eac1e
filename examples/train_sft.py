"""Supervised fine-tuning on the environment's own episodes, with TRL's SFTTrainer (CPU, ~1 min).

1. play a few episodes in the offline training pool with a simple strategy mix;
2. keep the best episode per case (best-of-N) as conversational SFT data;
3. fine-tune a tiny Llama built offline on the assistant turns only.

    python examples/train_sft.py [--cases 4] [--episodes-per-case 3] [--steps 20]
"""

import argparse
import random

import gymnasium as gym

import empa_env  # noqa: F401  (registers EMPA-v14)
from baselines.training import use_offline_hub
from baselines.training.hf.data import SFTFilter, sft_examples
from baselines.training.hf.sft import SFTRunConfig, train_sft
from baselines.training.strategy.policy import STRATEGIES

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--cases", type=int, default=4, help="cases to play")
parser.add_argument("--episodes-per-case", type=int, default=3, help="N of best-of-N")
parser.add_argument("--steps", type=int, default=20, help="optimiser steps")
args = parser.parse_args()
use_offline_hub()  # this script is a process start: keep Hugging Face offline

GOOD = [
    s for s in STRATEGIES if s.name in ("validate+clarify", "clarify+affirm", "validate+affirm")
]

env = gym.make("EMPA-v14")
cases = [c.id for c in env.unwrapped.cases][: args.cases]
trajectories = []
for case in cases:
    for k in range(args.episodes_per_case):  # best of N episodes per case
        rng = random.Random(k)
        env.reset(seed=k, options={"case": case})
        done = False
        while not done:
            reply = rng.choice(GOOD).reply(env.unwrapped.messages, rng)
            _, _, terminated, truncated, info = env.step(reply)
            done = terminated or truncated
        trajectories.append(env.unwrapped.trajectory)
        print(f"{case} #{k}: {info['epm']['outcome']:9s} EPM-Index {info['epm']['EPM_Index']:.1f}")

rows = sft_examples(trajectories, SFTFilter(best_of_n=1))
print(
    f"\n{len(rows)} SFT conversations kept of {len(trajectories)} (best of {args.episodes_per_case} per case)"
)
cfg = SFTRunConfig(
    model="tiny",
    output_dir="runs/example-sft",
    max_steps=args.steps,
    batch_size=2,
    filter=SFTFilter(best_of_n=1),
    trainer_kwargs={"max_length": 768},
)
trainer = train_sft(trajectories, cfg)
losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}; model saved to {cfg.output_dir}")
