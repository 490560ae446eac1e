"""EMPA as an OpenEnv environment: in process, and served by the one command to OpenEnv's own
clients; each gives the messages, rewards and EPM-Index that env.step gives."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip(
    "openenv.core",
    reason="the openenv extra is not installed (pip install -e '.[openenv]')",
)

from empa_env.integrations.openenv import (  # noqa: E402
    EMPAAction,
    EMPAEnvClient,
    EMPAEnvironment,
    EMPAObservation,
)
from empa_env.testing.policies import attuned  # noqa: E402
from tests.integrations.reference import CASE, ENV_ID, SEED, SHORT, play  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "empa_env.integrations.openenv.server"]
ENV = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url():
    """The one command: an EMPA-Bench-v9 server of 3-turn episodes on a free port."""
    port = _free_port()
    command = [
        *SERVER, "--env", ENV_ID, "--port", str(port), "--max-sessions", "4",
        "--env-kwargs", json.dumps(SHORT),
    ]  # fmt: skip
    process = subprocess.Popen(command, env=ENV, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=1) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if process.poll() is not None:
            pytest.fail(f"the server exited: {process.stderr.read()[-2000:]}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("the server did not answer /health in 120 s")
        time.sleep(0.2)
    yield url
    process.terminate()
    process.wait(timeout=30)


def _observations_match_reference(observations, rewards, messages):
    reference = play()
    assert messages == reference.messages
    assert rewards == reference.rewards
    last = observations[-1]
    assert last.done and last.epm["EPM_Index"] == reference.epm_index
    assert last.levels == reference.last_info["levels"]
    assert last.evidence == reference.last_info["evidence"]
    assert observations[0].reward is None and observations[0].user_message == messages[0]["content"]
    assert all(o.epm == {} for o in observations[:-1])  # the metrics come with the last step


def test_in_process_environment_gives_what_env_step_gives():
    env = EMPAEnvironment(ENV_ID, **SHORT)
    observations = [env.reset(seed=SEED, case=CASE)]
    while not observations[-1].done:
        reply = attuned(env.conversation.messages)
        observations.append(env.step(EMPAAction(message=reply)))
    state = env.state
    _observations_match_reference(observations, state.rewards, state.messages)
    assert [o.reward for o in observations[1:]] == state.rewards
    assert state.step_count == 3 and state.case_id == CASE and state.status == "truncated"
    assert state.episode_id


def test_in_process_async_twins_give_the_same_episode():
    env = EMPAEnvironment(ENV_ID, **SHORT)

    async def run():
        observations = [await env.reset_async(seed=SEED, case=CASE)]
        while not observations[-1].done:
            action = EMPAAction(message=attuned(env.conversation.messages))
            observations.append(await env.step_async(action))
        return observations

    observations = asyncio.run(run())
    _observations_match_reference(observations, env.state.rewards, env.state.messages)


def test_reset_refuses_options_it_does_not_know():
    env = EMPAEnvironment(ENV_ID, **SHORT)
    with pytest.raises(TypeError, match=r"unknown reset option\(s\) \['cases'\]"):
        env.reset(seed=0, cases="empa30-001")


def test_the_served_episode_matches_with_openenvs_generic_client(server_url):
    from openenv import GenericEnvClient

    with GenericEnvClient(base_url=server_url).sync() as env:
        result = env.reset(seed=SEED, case=CASE)
        messages = [{"role": "user", "content": result.observation["user_message"]}]
        observations = [result]
        while not result.done:
            reply = attuned(messages)
            result = env.step({"message": reply})
            observations.append(result)
            messages.append({"role": "assistant", "content": reply})
            if result.observation["user_message"]:
                messages.append({"role": "user", "content": result.observation["user_message"]})
        state = env.state()
    typed = [
        EMPAObservation(**{**r.observation, "reward": r.reward, "done": r.done})
        for r in observations
    ]
    _observations_match_reference(typed, [r.reward for r in observations[1:]], messages)
    assert state["messages"] == messages and state["rewards"] == [
        r.reward for r in observations[1:]
    ]


def test_the_served_episode_matches_with_the_typed_client(server_url):
    with EMPAEnvClient(base_url=server_url).sync() as env:
        result = env.reset(seed=SEED, case=CASE)
        observations = [result.observation]
        while not result.done:
            result = env.step(EMPAAction(message=attuned(env.state().messages)))
            observations.append(result.observation)
        state = env.state()
    _observations_match_reference(observations, state.rewards, state.messages)


def test_sessions_are_separate_episodes(server_url):
    with (
        EMPAEnvClient(base_url=server_url).sync() as first,
        EMPAEnvClient(base_url=server_url).sync() as second,
    ):
        a = first.reset(seed=0, case="empa30-001").observation
        b = second.reset(seed=0, case="empa30-002").observation
        first.step(EMPAAction(message="That sounds exhausting."))
        assert a.info["case_id"] == "empa30-001" and b.info["case_id"] == "empa30-002"
        assert first.state().step_count == 1 and second.state().step_count == 0


def test_the_server_publishes_empas_schemas(server_url):
    with urllib.request.urlopen(f"{server_url}/schema", timeout=5) as response:
        schema = json.load(response)
    assert schema["action"]["required"] == ["message"]
    assert {"user_message", "info", "reward", "done"} <= set(schema["observation"]["properties"])
    assert {"messages", "rewards", "case_id"} <= set(schema["state"]["properties"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--env", "CartPole-v1"],
            "'CartPole-v1' is not an EMPA environment; known: EMPA-Bench-v0, EMPA-Bench-v1, "
            "EMPA-Bench-v10, EMPA-Bench-v11, EMPA-Bench-v12, EMPA-Bench-v13, EMPA-Bench-v14, "
            "EMPA-Bench-v2, EMPA-Bench-v3, EMPA-Bench-v4, EMPA-Bench-v5, EMPA-Bench-v6, "
            "EMPA-Bench-v7, EMPA-Bench-v8, EMPA-Bench-v9, EMPA-v0, EMPA-v1, EMPA-v10, EMPA-v11, "
            "EMPA-v12, EMPA-v13, EMPA-v14, EMPA-v2, EMPA-v3, EMPA-v4, EMPA-v5, EMPA-v6, EMPA-v7, "
            "EMPA-v8, EMPA-v9",
        ),
        (["--judger", "nope"], "unknown judger backend 'nope'"),
        (["--max-turns", "3"], "need 1 <= min_turns <= max_turns"),
        (["--env-kwargs", '{"jduger": "lexicon"}'], "bad environment option"),
        (["--max-sessions", "0"], "--max-sessions must be at least 1"),
    ],
)
def test_bad_options_end_in_one_error_line(args, message):
    done = subprocess.run([*SERVER, *args], env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], done.stderr


def test_empa_serve_is_the_same_command():
    from empa_env.cli import build_parser

    parser = build_parser()
    args = parser.parse_args(["serve", "--env", "EMPA-v9", "--port", "9", "--judger", "lexicon"])
    assert args.env == "EMPA-v9" and args.port == 9 and args.judger == "lexicon"


def test_trls_environment_path_plays_a_served_environment(server_url):
    """EMPAToolEnv over ServedEMPAEnv: TRL's environment class, the episode on the server."""
    from empa_env.integrations.conversation import Conversation
    from empa_env.integrations.openenv import ServedEMPAEnv
    from empa_env.integrations.trl import EMPAToolEnv

    env = EMPAToolEnv(conversation=Conversation(ServedEMPAEnv(server_url)))
    env.reset(case=CASE, seed=SEED)
    while env.status == "ongoing":
        env.reply(message=attuned(env.messages))
    reference = play()
    assert env.messages == reference.messages
    assert env.rewards == reference.rewards
    assert env.last_info["epm"]["EPM_Index"] == reference.epm_index
    env.conversation.close()
