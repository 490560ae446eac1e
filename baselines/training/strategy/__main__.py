"""``python -m baselines.training.strategy``: the strategy experiment's command (see
:mod:`baselines.training.strategy.experiment`); the run directory gets results.csv, curves.csv,
config.json, transcripts.json, the figures and the generated write-up
(:mod:`baselines.training.strategy.report`).

    python -m baselines.training.strategy --out runs/strategy
    python -m baselines.training.strategy --write-up runs/strategy --readme README.md
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from baselines.training.strategy.experiment import (
    METHODS,
    SCRIPTED_REFERENCES,
    ExperimentConfig,
    run,
    table,
)
from baselines.training.strategy.report import WRITE_UP, write_readme, write_run, write_up


def _capped(max_turns: int | None) -> dict[str, Any]:
    """Environment options that cap an episode at ``max_turns`` (and let one that short end
    from its middle on: the preset's ``min_turns`` is 12)."""
    if not max_turns:
        return {}
    if max_turns >= 12:
        return {"max_turns": max_turns}
    return {"max_turns": max_turns, "epm_overrides": {"min_turns": max(1, max_turns // 2)}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m baselines.training.strategy",
        description="The strategy experiment: the MICA paper's training claim in miniature.",
        epilog="The run directory gets results.csv, curves.csv, config.json, transcripts.json, "
        "the figures and the write-up strategy_experiment.md (generated; --write-up DIR "
        "regenerates it from those files).",
    )
    parser.add_argument(
        "--methods", nargs="+", default=list(ExperimentConfig.methods), choices=list(METHODS)
    )
    parser.add_argument("--seeds", nargs="+", type=int, default=list(ExperimentConfig.seeds))
    parser.add_argument("--iterations", type=int, default=ExperimentConfig.iterations)
    parser.add_argument("--cases-per-batch", type=int, default=ExperimentConfig.cases_per_batch)
    parser.add_argument("--rollouts", type=int, default=ExperimentConfig.rollouts)
    parser.add_argument("--learning-rate", type=float, default=ExperimentConfig.learning_rate)
    parser.add_argument("--entropy-coef", type=float, default=ExperimentConfig.entropy_coef)
    parser.add_argument(
        "--max-turns", type=int, default=16, help="training episodes' cap (evaluation: the suite's)"
    )
    for role in ("actor", "director", "judger"):
        parser.add_argument(f"--{role}", default=None, help=f"{role} spec (default: the id's)")
    parser.add_argument("--reward", default=None, help="reward kind (default: the id's, idr)")
    parser.add_argument("--workers", type=int, default=2, help="processes (one job each)")
    parser.add_argument(
        "--rollout-workers",
        type=int,
        default=0,
        help="play training episodes on N Ray actors (the ray extra; RAY_ADDRESS picks a "
        "cluster); use with --workers 1",
    )
    parser.add_argument("--no-base", action="store_true")
    parser.add_argument(
        "--greedy", action="store_true", help="also evaluate each policy greedily (Pass/Score)"
    )
    parser.add_argument("--out", default="runs/strategy_experiment")
    parser.add_argument(
        "--write-up", metavar="RUN_DIR", default=None,
        help="only (re)write RUN_DIR's write-up and figures from its files, and stop",
    )  # fmt: skip
    parser.add_argument(
        "--readme", metavar="README", default=None,
        help="with --write-up: also rewrite README's generated block (the table and the claims)",
    )  # fmt: skip
    a = parser.parse_args(argv)
    if a.write_up:
        print(f"wrote {write_up(Path(a.write_up))}")
        if a.readme:
            write_readme(Path(a.readme), Path(a.write_up), f"{a.write_up.rstrip('/')}/{WRITE_UP}")
            print(f"wrote the generated block of {a.readme}")
        return 0
    roles = {k: getattr(a, k) for k in ("actor", "director", "judger", "reward") if getattr(a, k)}
    cfg = ExperimentConfig(
        methods=tuple(a.methods), seeds=tuple(a.seeds), iterations=a.iterations,
        cases_per_batch=a.cases_per_batch, rollouts=a.rollouts, learning_rate=a.learning_rate,
        entropy_coef=a.entropy_coef, rollout_workers=a.rollout_workers, roles=roles,
        greedy_eval=a.greedy,
        train_env_kwargs=_capped(a.max_turns),
    )  # fmt: skip
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results, curves = run(
        cfg, workers=a.workers, include_base=not a.no_base, references=SCRIPTED_REFERENCES
    )
    references = pd.DataFrame(results.attrs["references"])
    seconds = time.perf_counter() - t0
    path = write_run(out, cfg, results, curves, references, seconds)
    print(table(results).to_string(index=False))
    print(f"\n{len(results)} runs in {seconds:.0f} s; write-up {path}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(main())
