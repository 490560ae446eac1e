"""EMPA as a verifiers environment: the taskset and env load by the id ``empa``, and verifiers'
own command (``vf-eval empa``) plays episodes against a local OpenAI-compatible server (the
scripted one) that are the episodes env.step plays, scored by the EPM rubric.

The verifiers extra cannot share an environment with the openenv extra (verifiers 0.4.0 pins
mcp==2.0.0; openenv 0.10.0 needs fastmcp 3, which needs mcp<2), so .ci/run's environment has no
verifiers and these tests skip there; they run in an environment of their own:
``python3 -m venv .venv-verifiers && .venv-verifiers/bin/pip install -e ".[verifiers,dev]"``,
then ``.venv-verifiers/bin/python -m pytest tests/integrations/test_verifiers.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "verifiers.v1",
    reason="the verifiers extra is not installed; it needs an environment of its own "
    "(mcp conflicts with the openenv extra): pip install -e '.[verifiers,dev]' in a new venv",
)

import verifiers.v1 as vf  # noqa: E402

from empa_env.integrations.verifiers import (  # noqa: E402
    EMPAEnvConfig,
    EMPATaskset,
    EMPATasksetConfig,
    EMPAVerifiersEnv,
    load_environment,
)
from empa_env.testing.scripted_server import ScriptedLLMServer, play_policy  # noqa: E402
from tests.integrations.reference import SHORT, assistant_replies, replay  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def test_empa_is_found_by_its_id():
    from verifiers.v1.utils.loaders import environment_class, taskset_class

    assert taskset_class("empa") is EMPATaskset
    assert environment_class("empa") is EMPAVerifiersEnv
    env = vf.load_environment(EMPAEnvConfig(taskset={"id": "empa"}))
    assert isinstance(env, EMPAVerifiersEnv)
    assert isinstance(load_environment(cases=["empa30-002"]), EMPAVerifiersEnv)


def test_the_taskset_is_one_task_per_case_with_its_seed():
    tasks = list(vf.load_taskset(EMPATasksetConfig(id="empa", seed=10)))
    assert len(tasks) == 30
    assert [t.data.case_id for t in tasks[:2]] == ["empa30-001", "empa30-002"]
    assert [t.data.seed for t in tasks[:2]] == [10, 11]
    assert tasks[0].data.prompt is None and tasks[0].data.system_prompt
    chosen = list(vf.load_taskset(EMPATasksetConfig(id="empa", cases=["empa30-007"])))
    assert [t.data.case_id for t in chosen] == ["empa30-007"]


@pytest.mark.slow
def test_vf_eval_plays_the_episodes_env_step_plays(tmp_path):
    """verifiers' own command, its chat harness (run with uv) and the scripted server as the
    model: two cases of three turns; each episode is replayed with env.step."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    env |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    with ScriptedLLMServer() as server:
        command = [
            str(BIN / "vf-eval"), "empa", "--model", "scripted",
            "--client.base-url", server.api_base, "--no-push", "--no-rich", "-n", "2",
            "--env.taskset.env-kwargs", json.dumps(SHORT), "-o", str(tmp_path),
        ]  # fmt: skip
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (traces,) = tmp_path.glob("*/traces.jsonl")
    episodes = [json.loads(line) for line in traces.read_text().splitlines()]
    assert len(episodes) == 2
    for episode in episodes:
        assert episode["ok"], episode["errors"]
        (trace,) = episode["traces"]
        messages = [
            {"role": n["message"]["role"], "content": n["message"]["content"]}
            for n in trace["nodes"]
            if n["message"]["role"] in ("user", "assistant")
        ]
        info = trace["info"]
        replies = assistant_replies(messages)
        assert replies == [play_policy(messages[: 2 * i + 1]) for i in range(len(replies))]
        reference = replay(replies, case=info["case_id"], seed=episode["task"]["data"]["seed"])
        assert messages == reference.messages
        assert info["turn_rewards"] == reference.rewards
        rewards = trace["rewards"]
        assert rewards["idr_sum"] == {"score": sum(reference.rewards), "weight": 1.0}
        assert rewards["epm_index"] == {"score": reference.epm_index, "weight": 0.0}
        assert rewards["success"]["score"] == float(reference.last_info["epm"]["success"])
