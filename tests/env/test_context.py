"""Configuration is data, resolved once: EnvConfig holds specs, EnvContext the roles and reward that
environments share, LLMOptions the one checked set of LLM options, and a factory is handed only
what it declares by name."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from empa_env import EMPAEnv, EnvConfig, EnvContext, LLMOptions
from empa_env.backends import judgers, resolve_role, rewards
from empa_env.offline.judger import LexiconJudger
from empa_env.registry import plugin_sources, provenance, sources_digest
from empa_env.rollout import play_episode
from empa_env.testing.policies import attuned
from epm.rewards import RewardFunction


class CountingJudger(LexiconJudger):
    """The offline judge, under another class name (an instance of our own)."""


# --- EnvConfig is data ----------------------------------------------------------------------
def test_an_env_config_refuses_an_instance_and_says_where_it_goes():
    with pytest.raises(TypeError, match=r"EnvConfig\.judger is a spec string.*EMPAEnv\(judger="):
        EnvConfig(judger=CountingJudger())  # type: ignore[arg-type]


def test_an_instance_given_to_the_env_is_recorded_by_class_and_cannot_be_rebuilt():
    judge = CountingJudger()
    env = EMPAEnv("empa30-v1", judger=judge, max_turns=12)
    assert env.roles.judger is judge
    assert env.env_config.judger == "<CountingJudger>"
    assert env.describe()["roles"]["judger"]["class"] == "CountingJudger"
    with pytest.raises(TypeError, match="given as an instance"):
        EnvContext.build(env.env_config)


# --- one context, many environments ---------------------------------------------------------
def test_environments_made_from_one_context_share_its_roles_and_reward():
    context = EnvContext.build(EnvConfig(judger="lexicon", max_turns=12))
    envs = [EMPAEnv("empa30-v1", context=context) for _ in range(3)]
    for env in envs:
        assert env.roles is context.roles and env.reward_fn is context.reward
        assert env.config is context.epm and env.describe() == context.describe()
    assert context.epm.ending.max_turns == 12


def test_a_context_env_takes_only_its_cases():
    context = EnvContext.build()
    with pytest.raises(TypeError, match="belong to the context"):
        EMPAEnv("empa30-v1", context=context, judger="lexicon")
    with pytest.raises(TypeError, match="belong to the context"):
        EMPAEnv("empa30-v1", context=context, config=EnvConfig())


def test_an_episode_on_a_shared_context_equals_one_on_its_own_env():
    context = EnvContext.build(EnvConfig(max_turns=14))
    shared = play_episode(EMPAEnv("empa30-v1", context=context), attuned, case="empa30-004", seed=3)
    alone = play_episode(EMPAEnv("empa30-v1", max_turns=14), attuned, case="empa30-004", seed=3)
    assert shared.rewards == alone.rewards
    assert shared.info["epm"] == alone.info["epm"]


# --- LLM options: one typed object, checked once -------------------------------------------
def test_unknown_llm_options_fail_when_the_configuration_is_made():
    with pytest.raises(TypeError, match=r"unknown LLM option\(s\) \['temprature'\]"):
        EnvConfig(llm_options={"temprature": 0})  # offline roles: nothing would have built


@pytest.mark.parametrize("bad", [{"timeout": 0}, {"transport": "carrier-pigeon"}])
def test_bad_client_values_fail_when_the_configuration_is_made(bad):
    with pytest.raises(ValueError):
        LLMOptions(bad)


def test_each_consumer_gets_its_part_and_the_record_has_no_secret_or_object():
    ledger = object()
    options = LLMOptions(
        {
            "api_base": "http://127.0.0.1:9/v1",
            "api_key": "sk-not-recorded",
            "timeout": 5,
            "max_repairs": 0,
            "function_calling": "json",  # the Director's own option
            "ledger": ledger,
        }
    )
    client = options.client_options()
    assert client == {
        "api_base": "http://127.0.0.1:9/v1",
        "api_key": "sk-not-recorded",
        "timeout": 5,
    }
    actor = options.role_options("actor")
    assert "function_calling" not in actor and actor["max_repairs"] == 0
    assert actor["ledger"] is ledger
    assert options.role_options("director")["function_calling"] == "json"
    assert options.plain() == {
        "api_base": "http://127.0.0.1:9/v1",
        "timeout": 5,
        "max_repairs": 0,
        "function_calling": "json",
    }
    assert EnvConfig(llm_options=options).plain()["llm_options"] == options.plain()
    with pytest.raises(ValueError, match="kind must be one of"):
        options.role_options("narrator")


def test_an_llm_role_is_built_from_its_part_of_the_options():
    options = LLMOptions({"api_base": "http://127.0.0.1:9/v1", "timeout": 7, "max_repairs": 1,
                          "function_calling": "json"})  # fmt: skip
    director = resolve_role("director", "llm:openai/x", options)
    judge = resolve_role("judger", "llm:openai/x", options)
    assert director.function_calling == "json" and director.client.config.timeout == 7
    assert judge.max_repairs == 1 and judge.client.config.api_base == "http://127.0.0.1:9/v1"
    recorded = provenance(judge)
    assert recorded is not None and recorded.as_dict()["kwargs"] == {"llm": options.plain()}


# --- a factory is handed what it declares by name -------------------------------------------
def test_a_factory_gets_the_llm_options_only_when_it_declares_llm():
    seen: dict[str, object] = {}

    def asks(*, llm: LLMOptions) -> LexiconJudger:
        seen["asks"] = llm
        return LexiconJudger()

    def swallows(**anything: object) -> LexiconJudger:
        seen["swallows"] = anything
        return LexiconJudger()

    judgers.register("test-asks-llm", asks, replace=True)
    judgers.register("test-swallows", swallows, replace=True)
    try:
        options = {"api_base": "http://127.0.0.1:9/v1"}
        EMPAEnv("empa30-v1", judger="test-asks-llm", llm_options=options)
        EMPAEnv("empa30-v1", judger="test-swallows", llm_options=options)
    finally:
        judgers.unregister("test-asks-llm")
        judgers.unregister("test-swallows")
    assert isinstance(seen["asks"], LLMOptions) and seen["asks"].plain() == options
    assert seen["swallows"] == {}


def test_a_reward_factory_that_declares_goal_epsilon_gets_the_presets():
    got: list[float] = []

    def zone_reward(*, goal_epsilon: float) -> RewardFunction:
        got.append(goal_epsilon)
        return RewardFunction(kind="idr_goal", goal_epsilon=goal_epsilon)

    rewards.register("test-zone", zone_reward, replace=True)
    try:
        env = EMPAEnv("empa30-v1", reward="test-zone", epm_overrides={"goal_epsilon": 2.5})
        plain = EMPAEnv("empa30-v1", reward="idr", epm_overrides={"goal_epsilon": 2.5})
    finally:
        rewards.unregister("test-zone")
    assert got == [2.5] and env.reward_fn.goal_epsilon == 2.5
    assert plain.reward_fn.goal_epsilon == 2.5  # the EPM formulas declare it too


# --- each plug-in's content in the fingerprint ----------------------------------------------
def test_a_plugin_module_is_identified_by_its_source(tmp_path, monkeypatch):
    module = tmp_path / "my_empa_judge.py"
    source = textwrap.dedent(
        """
        from empa_env.offline.judger import LexiconJudger


        class MyJudge(LexiconJudger):
            pass
        """
    )
    module.write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        env = EMPAEnv("empa30-v1", judger="python:my_empa_judge:MyJudge")
        spec = env.describe()["roles"]["judger"]["spec"]
        assert spec["source_sha256"] == sources_digest(tmp_path, [module])
    finally:
        sys.modules.pop("my_empa_judge", None)
    builtin = EMPAEnv("empa30-v1").describe()["roles"]["judger"]["spec"]
    assert "source_sha256" not in builtin  # empa-gym's own code: the package version names it


def test_a_factory_registered_in_code_is_identified_by_its_module():
    def here() -> LexiconJudger:
        return LexiconJudger()

    judgers.register("test-here", here, replace=True)
    try:
        judge = resolve_role("judger", "test-here")
    finally:
        judgers.unregister("test-here")
    recorded = provenance(judge)
    # this module's package is the test suite: its files, this one among them
    root, files = plugin_sources(Path(__file__))
    assert Path(__file__).resolve() in files and root == Path(__file__).resolve().parents[2]
    assert recorded is not None and recorded.source_sha256 == sources_digest(root, files)
