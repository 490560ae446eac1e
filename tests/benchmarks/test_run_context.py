"""A benchmark run is data resolved once: RunContext holds the cases, roles, reward, policies,
panel and executor; its fingerprint is what the store binds; a worker's context built from the
shipped data plays the same episodes; an edited plug-in is another configuration."""

from __future__ import annotations

import asyncio
import json
import pickle
import textwrap

import pytest

from benchmarks.config import BenchConfig
from benchmarks.context import Execution, RunContext
from benchmarks.executors import EpisodeJob
from benchmarks.runner import play_run, run_benchmark
from benchmarks.store import ConfigMismatchError, RunStore
from empa_env.config import EnvConfig
from empa_env.errors import UserError
from empa_env.offline.judger import LexiconJudger

CONFIG = BenchConfig(EnvConfig(max_turns=12), limit=2)


def test_a_context_resolves_everything_once_and_the_store_binds_its_fingerprint(tmp_path):
    context = RunContext.build(CONFIG, ["scripted:attuned"], execution=Execution(concurrency=2))
    assert [c.id for c in context.cases] == ["empa30-001", "empa30-002"]
    assert context.executor is not None and context.executor.name == "local"
    summary = asyncio.run(play_run(context, tmp_path, progress=False))
    assert summary.finished == 2 and summary.ok
    with RunStore(tmp_path, read_only=True) as store:
        assert store.config == json.loads(json.dumps(context.fingerprint()))


def test_a_worker_context_from_the_shipped_data_plays_the_same_episode():
    driver = RunContext.build(CONFIG, ["scripted:attuned", "scripted:lecturer"])
    worker = pickle.loads(pickle.dumps(driver.data())).build()
    assert worker.executor is None and worker.fingerprint()["env"] == driver.fingerprint()["env"]
    assert [p.name for p in worker.policies] == ["attuned", "lecturer"]
    job = EpisodeJob(1, "lecturer", 1, "empa30-002", 0)
    here, there = asyncio.run(driver.play(job)), asyncio.run(worker.play(job))
    assert here[0] == there[0]
    assert here[1].to_dict() == there[1].to_dict()


def test_roles_given_as_instances_travel_with_the_data():
    judge = LexiconJudger()
    context = RunContext.build(CONFIG, ["scripted:attuned"], judger=judge)
    assert context.env.roles.judger is judge
    assert context.config.env.judger == "offline"  # the configuration itself stays data
    assert context.env.config.judger == "<LexiconJudger>"
    worker = context.data().build()
    assert worker.env.roles.judger is judge


def test_policy_names_must_differ_before_anything_is_written(tmp_path):
    with pytest.raises(UserError, match="share a name"):
        RunContext.build(CONFIG, ["scripted:attuned", "attuned=scripted:lecturer"])


def test_an_executor_instance_is_used_as_given(tmp_path):
    from benchmarks.executors.local import LocalExecutor

    mine = LocalExecutor(concurrency=1)
    summary = asyncio.run(
        run_benchmark(CONFIG, ["scripted:attuned"], tmp_path, progress=False, executor=mine)
    )
    assert summary.finished == 2 and mine.usage() == {}  # offline roles: no LLM ledger


def test_a_bad_execution_is_refused():
    with pytest.raises(ValueError, match="concurrency"):
        Execution(concurrency=0)
    with pytest.raises(UserError, match="--ray-address needs --executor ray"):
        Execution("local", address="127.0.0.1:1").make_executor()


def test_an_edited_policy_module_is_another_configuration(tmp_path, monkeypatch):
    """A policy class given by module is identified by its source: editing it makes the run's
    store refuse the policy's name for the edited code."""
    module = tmp_path / "my_bench_policy.py"
    code = textwrap.dedent(
        """
        from empa_env.policy import Policy


        class Mine(Policy):
            name = "mine"

            def reply(self, messages):
                return "{line}"
        """
    )
    module.write_text(code.format(line="What happened then?"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    run = tmp_path / "run"
    asyncio.run(run_benchmark(CONFIG, ["python:my_bench_policy:Mine"], run, progress=False))
    module.write_text(code.format(line="Tell me more."), encoding="utf-8")
    import sys

    sys.modules.pop("my_bench_policy", None)
    with pytest.raises(ConfigMismatchError, match="already used"):
        asyncio.run(run_benchmark(CONFIG, ["python:my_bench_policy:Mine"], run, progress=False))
    sys.modules.pop("my_bench_policy", None)
