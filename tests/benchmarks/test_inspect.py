"""The inspect_ai task: offline with mockllm and against the scripted OpenAI-compatible server."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# inspect_ai is imported by the tests that use it, not when the file is collected: collecting
# would cost every pytest-xdist worker about eight seconds for a module that one of them runs.
if importlib.util.find_spec("inspect_ai") is None:
    pytest.skip("inspect_ai is not installed (the 'inspect' extra)", allow_module_level=True)
if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

CASES = "empa30-001,empa30-002"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _outside_the_checkout(tmp_path, monkeypatch) -> None:
    """Run as an installed package does: inspect names a task after its installed distribution,
    which a checkout's ``empa_gym.egg-info`` (on ``sys.path`` under pytest) hides, and reads
    ``empa_gym/empa30`` as a path where an ``empa_gym`` folder is in the working directory."""
    monkeypatch.chdir(tmp_path)
    kept = [p for p in sys.path if Path(p or ".").resolve() != REPO]
    monkeypatch.setattr(sys, "path", kept)


def _run(tmp_path, model: str, **model_args: object) -> EvalLog:
    from inspect_ai import eval as inspect_eval

    from benchmarks.inspect_task import use_bundled_tiktoken

    use_bundled_tiktoken()
    (log,) = inspect_eval(
        "empa_gym/empa30",
        model=model,
        model_base_url=model_args.pop("base_url", None),
        task_args={"cases": CASES, "max_turns": 12},
        log_dir=str(tmp_path / "logs"),
        display="none",
        **model_args,
    )
    return log


def _check(log: EvalLog) -> None:
    assert log.status == "success", log.error
    assert log.samples is not None and [s.id for s in log.samples] == CASES.split(",")
    for sample in log.samples:
        assert sample.error is None
        score = sample.scores["epm_scorer"]
        assert 0.0 <= float(score.value) <= 100.0
        assert score.metadata["EPM_Index"] == pytest.approx(float(score.value))
        assert {"RDI", "E_total", "tau", "R_pen", "Idx_Etot"} <= set(score.metadata)
        assert score.answer in {"success", "failure", "truncated", "director_end"}
        # the transcript: system prompt, the person's opening, then reply / message pairs
        roles = [m.role for m in sample.messages]
        assert roles[:3] == ["system", "user", "assistant"]
        assert roles.count("assistant") == score.metadata["turns"] <= 12
    metrics = log.results.scores[0].metrics
    assert set(metrics) == {"mean", "stderr"}


def test_mockllm_policy_runs_the_cases_offline(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    log = _run(tmp_path, "mockllm/model")
    assert os.environ["TIKTOKEN_CACHE_DIR"].endswith("tokenizers")
    _check(log)


def test_policy_behind_the_scripted_openai_server(tmp_path, monkeypatch) -> None:
    from empa_env.testing.scripted_server import ScriptedLLMServer

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    server = ScriptedLLMServer().start()
    try:
        # the scripted server speaks Chat Completions, not the Responses API
        log = _run(
            tmp_path,
            "openai/scripted",
            base_url=server.api_base,
            model_args={"responses_api": False},
        )
        _check(log)
        assert log.samples is not None
        replies = sum(1 for s in log.samples for m in s.messages if m.role == "assistant")
        assert replies >= 2 and server.counts()["unknown"] == replies  # every reply came from it
    finally:
        server.stop()
