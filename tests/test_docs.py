"""Every example in the README and in examples/ runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
ENV = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_readme_starts_with_the_two_commands():
    bash = _blocks("bash")
    assert "empa bench" in bash[0] and bash[0].startswith("python3 -m venv .venv")
    assert bash[1].strip() == "bash .ci/run"
    ci = (ROOT / ".ci" / "run").read_text()
    # The test command runs the whole suite: no marker selection (-m), no -k, no deselection.
    (run,) = [line for line in ci.splitlines() if line.startswith("exec") and " pytest " in line]
    options = run.split(" pytest ", 1)[1].replace('"$@"', "").split()
    assert not {"-m", "-k", "--deselect", "--ignore", "-x"} & set(options), run


def _python_blocks() -> list[object]:
    """The README's Python blocks; a block that trains with TRL is slow (and needs the train
    extra)."""
    return [
        pytest.param(i, marks=[pytest.mark.slow, pytest.mark.train] if "GRPOTrainer" in b else [])
        for i, b in enumerate(_blocks("python"))
    ]


@pytest.mark.parametrize("index", _python_blocks())
def test_readme_python_blocks_run(index, tmp_path):
    code = _blocks("python")[index]
    if "empa_env.integrations.openenv" in code:
        pytest.importorskip("openenv.core", reason="the openenv extra is not installed")
    if "GRPOTrainer" in code:
        pytest.importorskip("trl", reason="the train extra is not installed")
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


def _shell_blocks() -> list[str]:
    """The README's bash blocks after the two headline commands."""
    return [b for b in _blocks("bash")[2:] if ".venv/bin/empa" in b]


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(_shell_blocks())))
def test_readme_shell_blocks_run(index, tmp_path):
    """Each block runs top to bottom in a fresh directory, with this environment's `empa`."""
    bindir = Path(sys.executable).parent
    script = _shell_blocks()[index].replace(".venv/bin/", f"{bindir}/")
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "examples").glob("*.py")))
def test_examples_run(script, tmp_path):
    if script.startswith("train_"):
        pytest.skip("training examples run in tests/baselines (marked train/slow)")
    if script.startswith("openenv_"):
        pytest.importorskip("openenv.core", reason="the openenv extra is not installed")
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script)],
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
