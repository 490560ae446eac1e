"""A reward model from the Judger's rankings, with TRL's RewardTrainer (CPU, ~1 min).

At several points of several conversations, K candidate replies (one per reply strategy) are each
played on a copy of the environment; the Judger's increment (delta_E = v_t . v_star) ranks them,
and the best is paired with each of the others. A tiny sequence-classification Llama built offline
learns to score replies; held-out pairs measure how often it agrees with the Judger.

    python examples/train_rm.py [--cases 5] [--turns 3] [--epochs 2]
"""

import argparse
import random

import gymnasium as gym

import empa_env  # noqa: F401
from baselines.training import use_offline_hub
from baselines.training.hf.rewards import SequenceScorer
from baselines.training.hf.rm import RMRunConfig, pairwise_accuracy, train_reward_model
from baselines.training.mica.rollout import candidate_preferences
from baselines.training.strategy.policy import STRATEGIES

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--cases", type=int, default=5, help="conversations to rank replies in")
parser.add_argument("--turns", type=int, default=3, help="ranked points per conversation")
parser.add_argument("--epochs", type=int, default=2, help="passes over the training pairs")
args = parser.parse_args()
use_offline_hub()  # this script is a process start: keep Hugging Face offline

env = gym.make("EMPA-v14")
pairs = []
for case in [c.id for c in env.unwrapped.cases][: args.cases]:
    rng = random.Random(0)
    env.reset(seed=0, options={"case": case})
    for _turn in range(args.turns):
        candidates = [s.reply(env.unwrapped.messages, rng) for s in STRATEGIES]
        pairs += candidate_preferences(
            env, candidates, key="delta_E", mode="best_vs_rest", min_margin=0.5
        )
        env.step(rng.choice(candidates))  # move the conversation on
random.Random(0).shuffle(pairs)
split = int(0.8 * len(pairs))
train, held_out = pairs[:split], pairs[split:]
print(f"{len(pairs)} preference pairs ({len(train)} train / {len(held_out)} held out)")

cfg = RMRunConfig(
    model="tiny",
    output_dir="runs/example-rm",
    epochs=args.epochs,
    batch_size=8,
    learning_rate=1e-3,
    trainer_kwargs={"max_length": 768},
)
trainer = train_reward_model(train, cfg)
scorer = SequenceScorer(trainer.model, trainer.processing_class, max_length=768)
print(
    f"agreement with the Judger: train {pairwise_accuracy(scorer, train[:100]):.2f}, "
    f"held out {pairwise_accuracy(scorer, held_out):.2f} (chance 0.50)"
)
