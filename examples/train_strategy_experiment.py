"""A small run of the CPU experiment: a strategy-level policy trained with MICA and with GRPO at
the same budget, then evaluated on the 30-case suite (CPU, a few minutes). The full experiment
(six estimators, three seeds, figures, a generated write-up) is
``python -m baselines.training.strategy``.

    python examples/train_strategy_experiment.py [--iterations 15] [--cases-per-batch 8]
        [--rollouts 4] [--max-turns N]

``--max-turns N`` caps every episode, training and evaluation, at N turns (and lets it end from
turn N // 2 on): short demo episodes for a quick check of the plumbing, not comparable numbers.
"""

import argparse

from baselines.training.strategy.experiment import ExperimentConfig, markdown, run, table

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--iterations", type=int, default=15, help="training iterations per method")
parser.add_argument("--cases-per-batch", type=int, default=8, help="cases per training batch")
parser.add_argument("--rollouts", type=int, default=4, help="episodes per case (K)")
parser.add_argument(
    "--max-turns", type=int, default=None, help="cap every episode (default: the environments')"
)
args = parser.parse_args()
short = (
    {"max_turns": args.max_turns, "epm_overrides": {"min_turns": max(1, args.max_turns // 2)}}
    if args.max_turns
    else {}
)

cfg = ExperimentConfig(
    methods=("grpo", "mica"),
    seeds=(0,),
    iterations=args.iterations,
    cases_per_batch=args.cases_per_batch,
    rollouts=args.rollouts,
    train_env_kwargs=short,
    eval_env_kwargs=short,
)
results, curves = run(cfg)
print(markdown(table(results)))
window = min(5, cfg.iterations)
last = (
    curves[curves["iteration"] > cfg.iterations - window]
    .groupby("method")[["return", "success_rate"]]
    .mean()
)
print(f"\nlast {window} training iterations:\n", last.round(2))
