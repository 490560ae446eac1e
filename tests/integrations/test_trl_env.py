"""EMPA for TRL's environment_factory, driven by hand the way GRPOTrainer drives it (reset with
the dataset row, then the reply tool): the same messages, rewards and EPM-Index as env.step.
GRPOTrainer itself trains against it in tests/baselines/test_training_grpo_env.py."""

from __future__ import annotations

import inspect

import pytest

from empa_env.integrations.trl import (
    EMPAToolEnv,
    dataset_rows,
    epm_index_reward,
    success_reward,
)
from empa_env.testing.policies import attuned
from tests.integrations.reference import CASE, ENV_ID, SEED, SHORT, play


def _play(env: EMPAToolEnv, row: dict) -> list[str]:
    answers = [env.reset(**row)]
    while env.status == "ongoing":
        answers.append(env.reply(message=attuned(env.messages)))
    return answers


def test_the_tool_env_gives_what_env_step_gives():
    reference = play()
    env = EMPAToolEnv(ENV_ID, **SHORT)
    row = {"prompt": [{"role": "user", "content": ""}], "case": CASE, "seed": SEED}
    answers = _play(env, row)
    assert env.messages == reference.messages
    users = [m["content"] for m in reference.messages if m["role"] == "user"]
    # the last step of a truncated episode has no user message: the tool says it has ended
    assert answers == [*users, "(The conversation has ended.)"]
    assert env.rewards == reference.rewards  # per turn, for per-turn credit
    assert env.get_reward() == sum(reference.rewards)
    assert epm_index_reward([env]) == [reference.epm_index]
    assert success_reward([env]) == [float(reference.last_info["epm"]["success"])]
    assert env.last_info["levels"] == reference.last_info["levels"]


def test_a_reply_after_the_end_is_a_tool_error():
    env = EMPAToolEnv(ENV_ID, **SHORT)
    _play(env, {"case": CASE, "seed": SEED})
    with pytest.raises(RuntimeError, match="has ended"):
        env.reply(message="Are you still there?")


def test_an_episode_that_ends_before_the_user_speaks_says_so():
    env = EMPAToolEnv(ENV_ID, max_turns=1, epm_overrides={"min_turns": 1})
    env.reset(case=CASE, seed=SEED)
    assert env.reply(message="That sounds hard.") == "(The conversation has ended.)"
    assert env.status == "truncated" and len(env.rewards) == 1


def test_reset_starts_a_new_episode_each_time():
    env = EMPAToolEnv(ENV_ID, **SHORT)
    _play(env, {"case": CASE, "seed": SEED})
    opening = env.reset(case="empa30-002", seed=0)
    assert env.rewards == [] and env.status == "ongoing"
    assert env.messages == [{"role": "user", "content": opening}]


def test_only_reply_is_offered_as_a_tool():
    """TRL offers every public function of the class but reset and get_reward as a tool."""
    functions = {n for n, _ in inspect.getmembers(EMPAToolEnv, predicate=inspect.isfunction)}
    assert {n for n in functions if not n.startswith("_")} == {"reset", "get_reward", "reply"}


def test_the_reply_tool_has_a_schema_transformers_can_read():
    utils = pytest.importorskip("transformers.utils", reason="the train extra is not installed")
    schema = utils.get_json_schema(EMPAToolEnv(ENV_ID, **SHORT).reply)
    assert schema["function"]["name"] == "reply"
    assert schema["function"]["parameters"]["required"] == ["message"]


def test_dataset_rows_name_the_case_and_the_seed():
    rows = dataset_rows(ENV_ID, cases=3, seed=5)
    assert [r["case"] for r in rows] == ["empa30-001", "empa30-002", "empa30-003"]
    assert [r["seed"] for r in rows] == [5, 6, 7]
    assert rows[0]["prompt"][-1] == {"role": "user", "content": ""}
    assert dataset_rows(ENV_ID, cases=["empa30-009"])[0]["case"] == "empa30-009"
    assert len(dataset_rows(ENV_ID)) == 30
