"""The training examples run end to end (each takes a minute or more on CPU: slow)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("train_*.py"))
#: Smaller budgets for the examples that take options (the same code path end to end: play,
#: build the data, train, evaluate; fewer cases, turns and optimiser steps).
SMOKE_ARGS = {
    "train_strategy_experiment.py": ["--iterations", "3", "--cases-per-batch", "4"],
    "train_rm.py": ["--cases", "3", "--turns", "2", "--epochs", "1"],
    "train_mica.py": ["--cases", "4", "--steps", "3"],
    "train_sft.py": ["--cases", "2", "--episodes-per-case", "2", "--steps", "8"],
}


@pytest.mark.slow
@pytest.mark.train
@pytest.mark.parametrize("script", EXAMPLES)
def test_training_example_runs(script, tmp_path):
    pytest.importorskip("trl")
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *SMOKE_ARGS.get(script, [])],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip()


def test_there_are_training_examples():
    assert {"train_sft.py", "train_rm.py", "train_mica.py"} <= set(EXAMPLES)
