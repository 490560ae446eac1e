"""A benchmark run, resolved once: :class:`RunContext`.

A :class:`~benchmarks.config.BenchConfig` is data (the environment's configuration, the suite,
the selection, seeds, the NEE panel, the stop rules); an :class:`Execution` says where and how
many episodes at once are played (which never changes results). :meth:`RunContext.build` turns
them, and the policy specs, into everything the run plays with, once and before anything is
written: the cases, the environment's roles and reward (:class:`~empa_env.context.EnvContext`),
the policies, the NEE panel, the executor. Every executor plays an episode through
:meth:`RunContext.play`, and :meth:`RunContext.fingerprint` is what the run's store binds.

A Ray worker builds its own context from the same data (:meth:`RunContext.data` is what is
shipped), so a run played remotely resolves its roles exactly as the driver does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.config import BenchConfig
from benchmarks.episodes import nee_panel, play_and_score, run_usage
from empa_env import __version__
from empa_env.cases.schema import Case
from empa_env.context import EnvContext
from empa_env.errors import UserError
from empa_env.policy import Policy, load_policy
from empa_env.safe_text import check_name
from epm.trajectory import Trajectory

if TYPE_CHECKING:
    from benchmarks.executors import EpisodeJob, Executor
    from empa_env.llm.nee import NEEPanel


@dataclass(frozen=True)
class Execution:
    """Where a run's episodes are played and how many at once; results never depend on it.

    Attributes:
        executor: a name in :data:`benchmarks.executors.executors` (``"local"``, ``"ray"``).
        concurrency: episodes in flight at once (and the default per-role LLM request limit).
        address: where a remote executor connects (``--ray-address``); ``None`` for local.
    """

    executor: str = "local"
    concurrency: int = 32
    address: str | None = None

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {self.concurrency}")

    def make_executor(self) -> Executor:
        """The executor, ready (one that connects somewhere has connected)."""
        from benchmarks.executors import make_executor

        return make_executor(self.executor, concurrency=self.concurrency, address=self.address)


@dataclass(frozen=True)
class RunData:
    """What defines a run's context as data: all a remote worker needs to build the same one."""

    config: BenchConfig
    cases: list[Case]
    policy_specs: list[Any]
    policy_names: list[str]
    #: Roles or a reward given as instances beside the configuration (shipped as they are).
    instances: dict[str, Any] = field(default_factory=dict)

    def build(self) -> RunContext:
        """The run this data describes, resolved here: what a worker plays with (no
        executor)."""
        return RunContext.build(
            self.config,
            self.policy_specs,
            cases=self.cases,
            policy_names=self.policy_names,
            **self.instances,
        )


@dataclass
class RunContext:
    """Everything a benchmark run plays with, resolved once (see the module docstring).

    Attributes:
        config: the benchmark configuration (data).
        suite_version: the suite's version, or a folder's content digest.
        cases: the selected cases, in order.
        env: the environment's resolved roles, reward and EPM configuration, shared by every
            episode.
        policies: the policies, in order; ``policy_specs`` say how each was given (a spec
            string, or the instance itself).
        panel: the NEE panel, when ``config.nee_judges`` names one.
        executor: where episodes are played (``None`` in a context built on a worker).
        execution: the executor's name, concurrency and address.
        instances: roles or a reward given as instances (a worker gets them too).
    """

    config: BenchConfig
    suite_version: int | str
    cases: list[Case]
    env: EnvContext
    policies: list[Policy]
    policy_specs: list[Any]
    panel: NEEPanel | None = None
    executor: Executor | None = None
    execution: Execution = field(default_factory=Execution)
    instances: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        config: BenchConfig,
        policy_specs: Sequence[str | Policy],
        *,
        execution: Execution | None = None,
        executor: Executor | None = None,
        cases: Sequence[Case] | None = None,
        policy_names: Sequence[str] | None = None,
        **instances: Any,
    ) -> RunContext:
        """Resolve a run: the cases (``config``'s selection, or ``cases`` as given), the roles and
        reward (instances in ``instances``: ``actor``, ``director``, ``judger``, ``reward``),
        the policies (their LLM options are the environment's), the NEE panel and the executor
        (``executor`` as given, else made from ``execution``; neither: no executor, as on a
        worker). Every error a configuration can have is raised here, before a run directory
        exists."""
        if cases is None:
            _label, suite_version, selected = config.load_cases()
        else:
            suite_version, selected = "", list(cases)
        env = EnvContext.build(config.env.replace(case_pool=None), **instances)
        policies = [load_policy(s, llm=config.env.llm_options) for s in policy_specs]
        if policy_names is not None:
            for policy, name in zip(policies, policy_names, strict=True):
                policy.name = name
        names = [check_name(str(p.name), "policy name") for p in policies]
        if len(set(names)) != len(names):
            raise UserError(f"two policies share a name in {names}; rename one with NAME=SPEC")
        if executor is None and execution is not None:
            executor = execution.make_executor()
        return cls(
            config=config,
            suite_version=suite_version,
            cases=list(selected),
            env=env,
            policies=policies,
            policy_specs=list(policy_specs),
            panel=nee_panel(config),
            executor=executor,
            execution=execution or Execution(),
            instances=dict(instances),
        )

    def data(self, policy_specs: Sequence[Any] | None = None) -> RunData:
        """This run as data for a remote worker (``policy_specs`` in place of the specs as
        given, e.g. made portable)."""
        return RunData(
            config=self.config,
            cases=list(self.cases),
            policy_specs=list(self.policy_specs if policy_specs is None else policy_specs),
            policy_names=[p.name for p in self.policies],
            instances=dict(self.instances),
        )

    async def play(self, job: EpisodeJob) -> tuple[dict[str, Any], Trajectory]:
        """One episode of the run played and scored: ``(metrics, trajectory)``."""
        return await play_and_score(
            self.env,
            self.policies[job.policy_index],
            self.cases[job.case_index],
            job.seed,
            self.panel,
        )

    def usage(self) -> dict[str, Any]:
        """Calls, cache hits, tokens and cost so far, per LLM role and per LLM policy."""
        return run_usage(self.env.roles, self.policies)

    def fingerprint(self) -> dict[str, Any]:
        """The configuration that results depend on (what the run's store binds): the
        environment's resolved configuration (:meth:`EnvContext.describe`, with each plug-in's
        source digest; API keys never included), the suite and its cases, the panel."""
        config = self.config
        out: dict[str, Any] = {
            "suite": config.suite,
            "suite_version": self.suite_version,
            "cases": [c.id for c in self.cases],
            "env": self.env.describe(),
            "nee_judges": list(config.nee_judges),
            "max_judge_failure_share": config.max_judge_failure_share,
            "max_role_failure_share": config.max_role_failure_share,
            "package_version": __version__,
        }
        if config.cases_dir is not None:
            out["suite"] = f"dir:{Path(config.cases_dir).resolve()}"
        if config.selected:  # only then, so runs without a selection keep their fingerprint
            out["selection"] = {"case_ids": list(config.case_ids), "limit": config.limit}
        return out


__all__ = ["Execution", "RunContext", "RunData"]
