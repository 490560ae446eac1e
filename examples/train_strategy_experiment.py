"""A small run of the CPU experiment: a strategy-level policy trained with MICA and with GRPO at
the same budget, then evaluated on the 30-case suite (CPU, a few minutes). The full experiment
(four methods, three seeds, figure) is ``python -m baselines.training.experiment``.

    python examples/train_strategy_experiment.py [--iterations 15] [--cases-per-batch 8]
"""

import argparse

from baselines.training.experiment import ExperimentConfig, markdown, run, table

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--iterations", type=int, default=15, help="training iterations per method")
parser.add_argument("--cases-per-batch", type=int, default=8, help="cases per training batch")
args = parser.parse_args()

cfg = ExperimentConfig(
    methods=("grpo", "mica"),
    seeds=(0,),
    iterations=args.iterations,
    cases_per_batch=args.cases_per_batch,
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
