"""How long the documented strategy experiment takes (issue 34's goal: <= 10 minutes on 2 idle
cores), and where the time goes: wall time of the whole command, seconds per (method, seed) job,
training and evaluation turns played.

    python perf/perf_strategy_experiment.py [--workers 2] [--out runs/perf-strategy] [-- ARGS]

Runs ``python -m baselines.training.strategy`` (with ``ARGS`` after ``--``) in a subprocess,
then reads the run directory it wrote. Compare figures only within one run of the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

#: The documented command's module (``python -m`` runs its ``__main__``).
COMMAND_MODULE = "baselines.training.strategy"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="runs/perf-strategy")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="-- then experiment arguments")
    a = parser.parse_args()
    extra = a.rest[1:] if a.rest[:1] == ["--"] else a.rest
    command = [
        sys.executable,
        "-m",
        COMMAND_MODULE,
        "--out",
        a.out,
        *extra,
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    t0 = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    out = Path(a.out)
    results = pd.read_csv(out / "results.csv")
    curves = pd.read_csv(out / "curves.csv")
    config = json.loads((out / "config.json").read_text())["config"]
    per_iteration = config["cases_per_batch"] * config["rollouts"]
    train_turns = float(curves["turns"].sum() * per_iteration)
    eval_turns = float(results["turns"].sum() * 30)
    print(f"command: {' '.join(command[1:])}")
    print(f"cores: {os.cpu_count()}, load at the end: {os.getloadavg()[0]:.1f}")
    print(f"wall: {wall:.0f} s for {len(results)} jobs (goal: <= 600 s on 2 idle cores)")
    print(
        f"per job: median {results['seconds'].median():.0f} s, max {results['seconds'].max():.0f} s"
    )
    print(
        f"turns played: {train_turns:,.0f} in training, {eval_turns:,.0f} in evaluation; "
        f"{(train_turns + eval_turns) / wall:.0f} turns per wall second"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
