"""The benchmark runner: every (policy, case, seed) episode, concurrently, committed as it ends.

``run_benchmark`` plays every episode not yet in the run's SQLite store through an executor
(:mod:`benchmarks.executors`): by default all on one asyncio loop in this process
(``EMPAEnv.astep`` and ``Policy.areply``), at most ``concurrency`` at a time; with
``executor="ray"`` each episode is a Ray task. Either way this process commits each finished
episode to the store at once, with a progress bar; a rerun skips what is already there.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm.auto import tqdm

from benchmarks.store import EpisodeRow, RunStore, episode_key
from empa_env import __version__
from empa_env.backends import Roles
from empa_env.cases.loader import case_files, load_directory
from empa_env.cases.schema import Case
from empa_env.cases.suites import load_suite
from empa_env.config import EnvConfig
from empa_env.env import EMPAEnv
from empa_env.errors import UserError
from empa_env.llm.client import auth_failure, clear_auth_failure
from empa_env.policy import Policy, load_policy
from empa_env.rollout import aplay_episode
from epm.episode import evaluate
from epm.nee import fcs
from epm.trajectory import Trajectory

if TYPE_CHECKING:
    from benchmarks.executors import EpisodeOutcome, Executor


@dataclass
class BenchConfig:
    """Everything that defines a run's results (the store refuses to mix configurations): the
    environment's configuration, the suite (or a folder of case files), the selection of cases,
    the seeds and the NEE panel."""

    env: EnvConfig = field(default_factory=EnvConfig)
    suite: str = "empa30-v1"
    seeds: int = 1
    #: LiteLLM models of the NEE panel; empty = no NEE (and no FCS) in the results.
    nee_judges: list[str] = field(default_factory=list)
    #: A folder of case files to run instead of ``suite`` (no entry point or manifest needed).
    cases_dir: str | None = None
    #: Run only these case ids (in this order); empty = every case.
    case_ids: list[str] = field(default_factory=list)
    #: Run only the first N cases (after ``case_ids``); ``None`` = all.
    limit: int | None = None

    #: Before the run, one short call per LLM role, LLM policy and NEE judge checks it answers.
    preflight: bool = True
    #: This many episodes in a row failing with the same error stop the run (0: never).
    max_identical_failures: int = 5
    #: An episode whose share of failed judgements exceeds this is invalid: kept and shown,
    #: never ranked, played again by a rerun (a run that never got a judgement is no result).
    max_judge_failure_share: float = 0.2

    def __post_init__(self) -> None:
        if self.seeds < 1:
            raise UserError(f"--seeds must be >= 1, got {self.seeds}")
        if self.limit is not None and self.limit < 1:
            raise UserError(f"--limit must be >= 1, got {self.limit}")
        if self.max_identical_failures < 0:
            raise UserError(
                f"--max-identical-failures must be >= 0, got {self.max_identical_failures}"
            )
        if not 0.0 <= self.max_judge_failure_share <= 1.0:
            raise UserError(
                f"max_judge_failure_share must be in [0, 1], got {self.max_judge_failure_share}"
            )

    @property
    def selected(self) -> bool:
        return bool(self.case_ids) or self.limit is not None

    def load_cases(self) -> tuple[str, int | str, list[Case]]:
        """``(label, version, cases)``: the suite's or the folder's cases, then the selection.

        A folder's version is the sha256 of its case files, so edited cases are another run."""
        if self.cases_dir is not None:
            folder = Path(self.cases_dir)
            if not folder.is_dir():
                raise UserError(f"--cases {folder}: not a directory of case files")
            files = case_files(folder)
            if not files:
                raise UserError(f"--cases {folder}: no case files (*.yaml, *.json) in it")
            digest = hashlib.sha256()
            for file in files:
                digest.update(file.name.encode() + b"\0" + file.read_bytes())
            label: str = f"dir:{folder.resolve()}"
            version: int | str = f"sha256:{digest.hexdigest()[:16]}"
            cases = list(load_directory(folder))
        else:
            suite = load_suite(self.suite)
            label, version, cases = self.suite, suite.version, list(suite.cases)
        if self.case_ids:
            by_id = {c.id: c for c in cases}
            unknown = [i for i in self.case_ids if i not in by_id]
            if unknown:
                known = ", ".join(list(by_id)[:5]) + (", ..." if len(by_id) > 5 else "")
                raise UserError(
                    f"--case {', '.join(unknown)}: not in {label} ({len(by_id)} cases: {known}); "
                    "`empa cases list` shows them"
                )
            cases = [by_id[i] for i in dict.fromkeys(self.case_ids)]
        if self.limit is not None:
            cases = cases[: self.limit]
        return label, version, cases

    def fingerprint_config(
        self, env: EMPAEnv, suite_version: int, case_ids: Sequence[str]
    ) -> dict[str, Any]:
        """The configuration that results depend on: the env's resolved configuration
        (:meth:`EMPAEnv.describe`, API keys never included), the suite and its cases, the panel."""
        config: dict[str, Any] = {
            "suite": self.suite,
            "suite_version": suite_version,
            "cases": list(case_ids),
            "env": env.describe(),
            "nee_judges": list(self.nee_judges),
            "max_judge_failure_share": self.max_judge_failure_share,
            "package_version": __version__,
        }
        if self.cases_dir is not None:
            config["suite"] = f"dir:{Path(self.cases_dir).resolve()}"
        if self.selected:  # only then, so runs without a selection keep their fingerprint
            config["selection"] = {"case_ids": list(self.case_ids), "limit": self.limit}
        return config


@dataclass(frozen=True)
class RunSummary:
    run_dir: Path
    planned: int
    skipped: int
    finished: int
    failed: int
    #: Failed episodes grouped by error message: message -> episode keys (first = the example).
    failures: dict[str, list[str]] = field(default_factory=dict)
    #: Finished episodes whose judgements failed too often (kept, shown, never ranked).
    invalid: int = 0

    def __str__(self) -> str:
        head = (
            f"{self.finished} episodes finished ({self.invalid} invalid), {self.skipped} already "
            f"in {self.run_dir}, {self.failed} failed"
        )
        if not self.failures:
            return head
        lines = [head + ", by error:"]
        for message, keys in sorted(self.failures.items(), key=lambda kv: -len(kv[1])):
            first, *rest = message.splitlines() or [""]
            lines.append(f"  {len(keys):>4} x {first}{' ...' if rest else ''}")
            lines.append(f"         e.g. episode {keys[0]}")
        lines.append(
            "  (every error is in the errors table of results.sqlite; a rerun retries them)"
        )
        return "\n".join(lines)

    @property
    def ok(self) -> bool:
        """Whether every planned episode finished with a result that can be ranked."""
        return self.failed == 0 and self.invalid == 0


def invalid_reason(metrics: dict[str, Any], max_failure_share: float) -> str:
    """Why an episode's score cannot be trusted (``""`` when it can): too many turns whose
    judgement failed (their ``v_t`` is 0, so the score would measure the outage, not the policy)."""
    turns = int(metrics.get("turns") or 0)
    failures = int(metrics.get("judge_failures") or 0)
    if turns and failures / turns > max_failure_share:
        return (
            f"{failures} of {turns} judgements failed (more than "
            f"{max_failure_share:.0%}); rerun the same command to play it again"
        )
    return ""


def shared_environment(env_config: EnvConfig, cases: Sequence[Case]) -> tuple[EMPAEnv, EnvConfig]:
    """One environment that resolves the roles and the reward once, and the configuration every
    episode's environment is built from so that they all share those instances."""
    template = EMPAEnv(config=env_config.replace(case_pool=list(cases)))
    roles = template.roles
    shared = env_config.replace(
        case_pool=None,
        actor=roles.actor,
        director=roles.director,
        judger=roles.judger,
        reward=template.reward_fn,
    )
    return template, shared


async def play_episode(env: EMPAEnv, policy: Policy, case: Case, seed: int) -> dict[str, Any]:
    """One whole episode through the async API (:func:`empa_env.rollout.aplay_episode`);
    returns the final ``info``."""
    episode = await aplay_episode(env, policy, case=case, seed=seed)
    return episode.info


async def play_and_score(
    shared_env: EnvConfig, policy: Policy, case: Case, seed: int, panel: Any = None
) -> tuple[dict[str, Any], Trajectory]:
    """One episode played and scored: ``(metrics, trajectory)``, the same code whichever executor
    plays it (``shared_env`` has the roles resolved; ``panel`` adds NEE and FCS)."""
    env = EMPAEnv([case], config=shared_env)
    await play_episode(env, policy, case, seed)
    metrics = evaluate(env.trajectory, env.config)  # the JSON-safe record
    if panel is not None:
        metrics.update(await score_nee(panel, case, env, metrics["EPM_Index"]))
    return metrics, env.trajectory


async def run_benchmark(
    config: BenchConfig,
    policy_specs: Sequence[str],
    run_dir: str | Path,
    *,
    concurrency: int = 32,
    progress: bool = True,
    policies: Sequence[Policy] | None = None,
    executor: str | Executor = "local",
    ray_address: str | None = None,
) -> RunSummary:
    """Run (or resume) a benchmark; see the module docstring. ``executor`` says where episodes
    are played (``"local"``, ``"ray"`` with ``ray_address``, or an :class:`Executor`)."""
    from benchmarks.executors import EpisodeJob, RunWork, make_executor

    runner = (
        make_executor(executor, concurrency=concurrency, ray_address=ray_address)
        if isinstance(executor, str)
        else executor
    )
    _label, suite_version, cases = config.load_cases()
    template, shared = shared_environment(config.env, cases)
    roles = template.roles
    loaded = (
        list(policies)
        if policies is not None
        else [load_policy(s, **config.env.llm_options) for s in policy_specs]
    )
    names = [p.name for p in loaded]
    if len(set(names)) != len(names):
        raise ValueError(f"two policies share a name in {names}; rename one with NAME=SPEC")
    panel = _nee_panel(config)
    clear_auth_failure()  # a refused key of an earlier run in this process is not this run's
    if config.preflight:
        await preflight([*_llm_parts(roles, loaded, panel)])

    store = RunStore(
        run_dir, config.fingerprint_config(template, suite_version, [c.id for c in cases])
    )
    try:
        for p in loaded:
            store.register_policy(p.name, p.describe())
    except BaseException:
        store.close()  # a refused policy leaves the run directory free
        raise
    done = store.finished_keys()
    earlier_usage = json.loads(store.run_info().get("usage") or "{}")
    todo = [
        EpisodeJob(pi, p.name, ci, c.id, s)
        for pi, p in enumerate(loaded)
        for ci, c in enumerate(cases)
        for s in range(config.seeds)
        if episode_key(p.name, c.id, s) not in done
    ]
    planned = len(loaded) * len(cases) * config.seeds
    work = RunWork(
        config=config,
        cases=cases,
        shared_env=shared,
        roles=roles,
        policies=loaded,
        policy_specs=list(policies) if policies is not None else list(policy_specs),
        panel=panel,
    )
    bar = tqdm(total=len(todo), desc="episodes", unit="ep", disable=not progress, file=sys.stderr)
    finished = failed = invalid = 0
    failures: dict[str, list[str]] = {}
    streak: list[str] = []  # the messages of the latest failures, while they are identical
    stop: list[str] = []  # why the run stops early (the first reason wins)

    def check_stop(message: str | None, refused_elsewhere: str | None = None) -> None:
        """Stop on a refused key, or on the same failure over and over."""
        refused = auth_failure() or refused_elsewhere
        if refused and not stop:
            stop.append(f"an LLM refused the credentials ({refused}); check the API key")
        if message is None:
            streak.clear()
            return
        if streak and streak[-1] != message:
            streak.clear()
        streak.append(message)
        n = config.max_identical_failures
        if n and len(streak) >= n and not stop:
            first = message.splitlines()[0] if message else message
            stop.append(f"{n} episodes in a row failed with the same error: {first}")

    def record(outcome: EpisodeOutcome) -> None:
        """Commit one played episode (or its error) to the store, once."""
        nonlocal finished, failed, invalid
        job = outcome.job
        if outcome.error is not None or outcome.metrics is None or outcome.trajectory is None:
            failed += 1
            message = outcome.error or "the episode returned no result"
            failures.setdefault(message, []).append(job.key)
            store.add_error(job.key, message)
            bar.set_postfix(failed=failed, refresh=False)
            check_stop(message, outcome.auth_refused)
        else:
            case = cases[job.case_index]
            reason = invalid_reason(outcome.metrics, config.max_judge_failure_share)
            store.add_episode(
                EpisodeRow(
                    model=job.policy_name,
                    case_id=case.id,
                    seed=job.seed,
                    metrics=outcome.metrics,
                    case_meta=case.metadata(),
                    trajectory=outcome.trajectory,
                    invalid=reason,
                )
            )
            finished += 1
            invalid += bool(reason)
            usage = runner.usage()
            if usage:  # this process's ledger on top of the earlier processes' of the run
                store.set_run_value("usage", add_usage(earlier_usage, usage))
            check_stop(reason or None, outcome.auth_refused)
        bar.update(1)

    try:
        await runner.run(work, todo, record, lambda: bool(stop))
    finally:
        bar.close()
        store.close()
    if stop:
        raise RunStopped(f"{stop[0]}; {finished} episodes saved, rerun to resume")
    return RunSummary(
        Path(run_dir), planned, planned - len(todo), finished, failed, failures, invalid
    )


class RunStopped(UserError):
    """The run stopped early for a cause no retry fixes (a refused key, one error over and
    over); what finished is saved and a rerun resumes."""


def _llm_parts(roles: Roles, policies: Sequence[Policy], panel: Any) -> list[tuple[str, Any]]:
    """``(what, client)`` for every LLM client of the run, once per model and endpoint."""
    parts: list[tuple[str, Any]] = []
    for kind in ("actor", "director", "judger"):
        client = getattr(getattr(roles, kind), "client", None)
        if client is not None:
            parts.append((f"{kind} role", client))
    for policy in policies:
        client = getattr(policy, "client", None)
        if client is not None:
            parts.append((f"policy {policy.name!r}", client))
    for judge in getattr(panel, "judges", []) or []:
        client = getattr(judge, "client", None)
        if client is not None:
            parts.append(("NEE judge", client))
    seen: set[tuple[str, str | None]] = set()
    unique = []
    for what, client in parts:
        key = (client.config.model, client.config.api_base)
        if key not in seen:
            seen.add(key)
            unique.append((what, client))
    return unique


async def preflight(parts: Sequence[tuple[str, Any]]) -> None:
    """One short call per LLM client before a run; one clear line when one does not answer."""
    from empa_env.llm.client import LLMCallError

    async def check(what: str, client: Any) -> str | None:
        try:
            await client.preflight()
        except LLMCallError as exc:
            hint = {
                "auth": "check the API key (its environment variable) and the model's access",
                "timeout": "is the server up? (--api-base, --llm-timeout)",
                "connection": "is the server up and reachable? (--api-base)",
                "not_found": "check the model name (a LiteLLM model string)",
            }.get(exc.kind, "see the message")
            return f"the {what} ({client.config.model}) does not answer: {exc}; {hint}"
        return None

    problems = [p for p in await asyncio.gather(*(check(w, c) for w, c in parts)) if p]
    if problems:
        raise RunStopped(problems[0] if len(problems) == 1 else " | ".join(problems))


def _nee_panel(config: BenchConfig) -> Any:
    if not config.nee_judges:
        return None
    from empa_env.llm.client import ClientConfig
    from empa_env.llm.nee import NEEPanel

    client_fields = set(ClientConfig.__dataclass_fields__) - {"model"}
    options = {k: v for k, v in config.env.llm_options.items() if k in client_fields}
    return NEEPanel(config.nee_judges, **options)


async def score_nee(panel: Any, case: Case, env: EMPAEnv, epm_index: float) -> dict[str, Any]:
    """The NEE panel's verdict on a finished episode, and FCS = 0.6 EPM-Index + 0.4 NEE.

    When every judge of the panel failed, NEE and FCS stay empty and the failures are recorded in
    the trajectory (``meta["nee"]``) and counted in ``nee_failures``: never a silent zero.
    """
    outcome = await panel.aevaluate(case, env.trajectory)
    detail = outcome.as_dict()
    env.trajectory.meta["nee"] = detail
    nee = outcome.nee
    return {
        "NEE": nee,
        "NEE_std": detail["nee_std"],
        "naturalness": detail["naturalness"],
        "pacing": detail["pacing"],
        "narrative_arc": detail["narrative_arc"],
        "nee_failures": len(outcome.failures),
        "FCS": None if nee is None else fcs(epm_index, nee),
    }


def add_usage(earlier: Any, now: Any) -> Any:
    """Two ledgers added up: numbers summed, mappings merged key by key (a resumed run's total)."""
    if isinstance(earlier, dict) and isinstance(now, dict):
        return {k: add_usage(earlier.get(k), now.get(k)) for k in {**earlier, **now}}
    if earlier is None:
        return now
    if now is None:
        return earlier
    if isinstance(earlier, int | float) and isinstance(now, int | float):
        return earlier + now
    return now


def run_usage(roles: Roles, policies: Sequence[Policy]) -> dict[str, Any]:
    """Calls, cache hits, tokens and cost so far, per LLM role and per LLM policy."""
    usage: dict[str, Any] = {}
    for kind in ("actor", "director", "judger"):
        role = getattr(roles, kind)
        if hasattr(role, "usage"):
            usage[kind] = role.usage()
    for policy in policies:
        if hasattr(policy, "usage"):
            usage[f"policy:{policy.name}"] = policy.usage()
    return usage
