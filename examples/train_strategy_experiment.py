"""A small run of the CPU experiment: a strategy-level policy trained with MICA and with GRPO at
the same budget, then evaluated on the 30-case suite (CPU, ~2 min). The full experiment (four
methods, three seeds, figure) is ``python -m baselines.training.experiment``.

    python examples/train_strategy_experiment.py
"""

from baselines.training.experiment import ExperimentConfig, markdown, run, table

cfg = ExperimentConfig(methods=("grpo", "mica"), seeds=(0,), iterations=15)
results, curves = run(cfg)
print(markdown(table(results)))
last = (
    curves[curves["iteration"] > cfg.iterations - 5]
    .groupby("method")[["return", "success_rate"]]
    .mean()
)
print("\nlast 5 training iterations:\n", last.round(2))
