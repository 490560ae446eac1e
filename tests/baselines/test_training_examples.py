"""The training examples run end to end, each as a script (``__main__``, its own argv, a fresh
working directory) in a process of its own, with smaller budgets (slow).

The processes are forked from one server process that has imported what the examples import
(torch, transformers, TRL, the environment: ~8 s of CPU that five fresh interpreters would each
pay again); everything the examples do happens in their own process. They run with one torch
thread (``OMP_NUM_THREADS=1``): on a busy 2-core machine a second thread mostly spins.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import runpy
import sys
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("train_*.py"))
#: Smaller budgets for the examples that take options (the same code path end to end: play,
#: build the data, train, evaluate; fewer cases, turns and optimiser steps). The strategy
#: experiment plays 6-turn episodes (``--max-turns``), in training and on the 30-case suite.
SMOKE_ARGS = {
    "train_strategy_experiment.py": [
        "--iterations", "2", "--cases-per-batch", "2", "--rollouts", "2", "--max-turns", "6",
    ],
    "train_rm.py": ["--cases", "2", "--turns", "1", "--epochs", "1"],
    "train_mica.py": ["--cases", "2", "--steps", "2"],
    "train_sft.py": ["--cases", "2", "--episodes-per-case", "2", "--steps", "2"],
}  # fmt: skip
#: What the examples import, loaded once by the server process the examples are forked from.
PRELOAD = [
    "torch", "torch._dynamo", "transformers", "transformers.models.llama.modeling_llama",
    "datasets", "accelerate", "trl", "trl.trainer.grpo_trainer", "trl.trainer.sft_trainer", "trl.trainer.reward_trainer",
    "pandas", "gymnasium", "empa_env", "baselines.training.strategy.experiment", "baselines.training.mica.trainer",
    "baselines.training.hf.grpo_trl", "baselines.training.hf.sft", "baselines.training.hf.rm",
    "baselines.training.hf.rewards", "baselines.training.hf.tiny", "baselines.training.hf.tiny_tools",
    "empa_env.integrations.trl",
]  # fmt: skip


def _run_example(script: str, argv: list[str], cwd: str, out: str, err: str) -> None:
    """In the forked process: ``python script *argv`` in ``cwd``, its stdout and stderr (file
    descriptors 1 and 2) into the files ``out`` and ``err``; an exception is exit code 1."""
    with open(out, "w") as stdout, open(err, "w") as stderr:
        os.dup2(stdout.fileno(), 1)
        os.dup2(stderr.fileno(), 2)
    os.chdir(cwd)
    sys.argv = [script, *argv]
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


@pytest.fixture(scope="module")
def forkserver():
    """A multiprocessing context whose processes fork from a server with :data:`PRELOAD`
    imported, started with this process's environment plus one torch thread."""
    context = multiprocessing.get_context("forkserver")
    from multiprocessing import forkserver as server

    context.set_forkserver_preload(PRELOAD)
    env = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "OMP_NUM_THREADS": "1"}
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        server.ensure_running()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value
    yield context
    with contextlib.suppress(Exception):  # private in 3.11; the server also ends with us
        server._forkserver._stop()  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.train
@pytest.mark.parametrize("script", EXAMPLES)
def test_training_example_runs(script, tmp_path, forkserver):
    pytest.importorskip("trl")
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    work = tmp_path / "work"
    work.mkdir()
    args = (str(ROOT / "examples" / script), SMOKE_ARGS.get(script, []), str(work), str(out), str(err))  # fmt: skip
    process = forkserver.Process(target=_run_example, args=args)
    process.start()
    process.join(timeout=900)
    if process.is_alive():
        process.kill()
        process.join()
        pytest.fail(f"{script} did not finish in 900 s")
    assert process.exitcode == 0, err.read_text()[-3000:]
    assert out.read_text().strip()


def test_there_are_training_examples():
    assert {"train_sft.py", "train_rm.py", "train_mica.py"} <= set(EXAMPLES)
