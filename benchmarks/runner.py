"""The benchmark runner: every (policy, case, seed) episode, concurrently, committed as it ends.

``run_benchmark`` plays every episode not yet in the run's SQLite store through an executor
(:mod:`benchmarks.executors`): by default all on one asyncio loop in this process
(``EMPAEnv.astep`` and ``Policy.areply``), at most ``concurrency`` at a time; with
``executor="ray"`` each episode is a Ray task. Either way this process commits each finished
episode to the store at once, with a progress bar; a rerun skips what is already there.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm.auto import tqdm

from benchmarks.config import BenchConfig
from benchmarks.context import Execution, RunContext
from benchmarks.episodes import add_usage
from benchmarks.executors import EpisodeJob
from benchmarks.store import EpisodeRow, RunStore, episode_key
from empa_env.backends import Roles
from empa_env.errors import UserError
from empa_env.llm.client import clear_fatal_failures, fatal_failure
from empa_env.policy import Policy, describe_policy
from empa_env.safe_text import terminal_safe

if TYPE_CHECKING:
    from benchmarks.executors import EpisodeOutcome, Executor
    from empa_env.cases.schema import Case


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
            f"in {terminal_safe(self.run_dir, single_line=True)}, {self.failed} failed"
        )
        if not self.failures:
            return head
        lines = [head + ", by error:"]
        for message, keys in sorted(self.failures.items(), key=lambda kv: -len(kv[1])):
            first, *rest = message.splitlines() or [""]  # an error's text may quote a reply
            first = terminal_safe(first, single_line=True)
            lines.append(f"  {len(keys):>4} x {first}{' ...' if rest else ''}")
            lines.append(f"         e.g. episode {terminal_safe(keys[0], single_line=True)}")
        lines.append(
            "  (every error is in the errors table of results.sqlite; a rerun retries them)"
        )
        return "\n".join(lines)

    @property
    def ok(self) -> bool:
        """Whether every planned episode finished with a result that can be ranked."""
        return self.failed == 0 and self.invalid == 0


#: The roles whose failures can invalidate an episode: (metrics key of the failures, of the
#: calls, the role's name in messages).
ROLE_FAILURES: tuple[tuple[str, str, str], ...] = (
    ("judge_failures", "turns", "judgements"),
    ("director_failures", "director_calls", "Director decisions"),
    ("actor_failures", "actor_calls", "Actor messages"),
)


def invalid_reason(
    metrics: dict[str, Any], max_failure_share: float, max_role_failure_share: float = 1.0
) -> str:
    """Why an episode's score cannot be trusted (``""`` when it can): too many turns whose
    judgement failed (their ``v_t`` is 0, so the score would measure the outage, not the policy),
    or too many Director decisions or Actor messages that were fallbacks (the run would not
    measure its configured roles). The judge's share is compared with ``max_failure_share``,
    the Director's and the Actor's with ``max_role_failure_share``."""
    for failures_key, calls_key, what in ROLE_FAILURES:
        calls = int(metrics.get(calls_key) or 0)
        failures = int(metrics.get(failures_key) or 0)
        limit = max_failure_share if failures_key == "judge_failures" else max_role_failure_share
        if calls and failures / calls > limit:
            return (
                f"{failures} of {calls} {what} failed (more than {limit:.0%}); rerun the same "
                "command to play it again"
            )
    return ""


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
    are played: a name in :data:`benchmarks.executors.executors` (``"local"``, ``"ray"`` with
    ``ray_address``, ...) or an :class:`Executor`; ``policies``: instances in place of
    ``policy_specs``. Builds the run's :class:`~benchmarks.context.RunContext`, then
    :func:`play_run`."""
    given = None if isinstance(executor, str) else executor
    name = executor if isinstance(executor, str) else executor.name
    context = RunContext.build(
        config,
        policies if policies is not None else policy_specs,
        execution=Execution(name, max(1, concurrency), ray_address),
        executor=given,
    )
    return await play_run(context, run_dir, progress=progress)


async def play_run(
    context: RunContext, run_dir: str | Path, *, progress: bool = True
) -> RunSummary:
    """Play every episode of a resolved run not yet in ``run_dir``'s store, committing each as
    it ends (see the module docstring)."""
    from empa_env.llm.client import set_default_concurrency

    config = context.config
    runner = context.executor or context.execution.make_executor()
    # Per-role LLM limits sized from the episodes in flight (clients without max_concurrency):
    # within an episode the calls are sequential, so no role ever waits on another's slots.
    set_default_concurrency(context.execution.concurrency)  # this run's task context only
    clear_fatal_failures()  # a refused key of an earlier run in this process is not this run's
    if config.preflight:
        await preflight([*_llm_parts(context.env.roles, context.policies, context.panel)])

    store = RunStore(run_dir, context.fingerprint())
    try:
        for p in context.policies:
            store.register_policy(p.name, describe_policy(p))
        store.check_episodes()  # what a rerun skips must be readable, or it stops here
    except BaseException:
        store.close()  # a refused policy or a damaged row leaves the run directory free
        raise
    done = store.finished_keys()
    earlier_usage = json.loads(store.run_info().get("usage") or "{}")
    todo = [
        EpisodeJob(pi, p.name, ci, c.id, s)
        for pi, p in enumerate(context.policies)
        for ci, c in enumerate(context.cases)
        for s in range(config.seeds)
        if episode_key(p.name, c.id, s) not in done
    ]
    planned = len(context.policies) * len(context.cases) * config.seeds
    bar = tqdm(total=len(todo), desc="episodes", unit="ep", disable=not progress, file=sys.stderr)
    recorder = _Recorder(config, context.cases, store, runner, bar, earlier_usage)
    try:
        await runner.run(context, todo, recorder.record, recorder.stopping)
    finally:
        bar.close()
        store.close()
    if recorder.stop:
        raise RunStopped(f"{recorder.stop[0]}; {recorder.finished} episodes saved, rerun to resume")
    return RunSummary(
        Path(run_dir),
        planned,
        planned - len(todo),
        recorder.finished,
        recorder.failed,
        recorder.failures,
        recorder.invalid,
    )


class _Recorder:
    """Commits each played episode (or its error) to the store once, counts them, and keeps the
    reasons to stop early (a refused key, one error over and over)."""

    def __init__(
        self,
        config: BenchConfig,
        cases: Sequence[Case],
        store: RunStore,
        runner: Executor,
        bar: Any,
        earlier_usage: dict[str, Any],
    ) -> None:
        self.config, self.cases, self.store, self.runner, self.bar = (
            config,
            cases,
            store,
            runner,
            bar,
        )
        self.earlier_usage = earlier_usage
        self.finished = self.failed = self.invalid = 0
        self.failures: dict[str, list[str]] = {}
        self.streak: list[str] = []  # the messages of the latest failures, while identical
        self.stop: list[str] = []  # why the run stops early (the first reason wins)

    def stopping(self) -> bool:
        return bool(self.stop)

    def check_stop(self, message: str | None, fatal_elsewhere: str | None = None) -> None:
        """Stop on a fatal LLM failure (a refused key, an unknown model or path), or on the same
        failure over and over."""
        fatal = fatal_failure() or fatal_elsewhere
        if fatal and not self.stop:
            self.stop.append(fatal)
        if message is None:
            self.streak.clear()
            return
        if self.streak and self.streak[-1] != message:
            self.streak.clear()
        self.streak.append(message)
        n = self.config.max_identical_failures
        if n and len(self.streak) >= n and not self.stop:
            first = message.splitlines()[0] if message else message
            self.stop.append(f"{n} episodes in a row failed with the same error: {first}")

    def record(self, outcome: EpisodeOutcome) -> None:
        """Commit one played episode (or its error) to the store, once."""
        job = outcome.job
        if outcome.error is not None or outcome.metrics is None or outcome.trajectory is None:
            self.failed += 1
            message = outcome.error or "the episode returned no result"
            self.failures.setdefault(message, []).append(job.key)
            self.store.add_error(job.key, message)
            self.bar.set_postfix(failed=self.failed, refresh=False)
            self.check_stop(message, outcome.fatal_failure)
        else:
            case = self.cases[job.case_index]
            reason = invalid_reason(
                outcome.metrics,
                self.config.max_judge_failure_share,
                self.config.max_role_failure_share,
            )
            self.store.add_episode(
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
            self.finished += 1
            self.invalid += bool(reason)
            usage = self.runner.usage()
            if usage:  # this process's ledger on top of the earlier processes' of the run
                self.store.set_run_value("usage", add_usage(self.earlier_usage, usage))
            self.check_stop(reason or None, outcome.fatal_failure)
        self.bar.update(1)


class RunStopped(UserError):
    """The run stopped early for a cause no retry fixes (a refused key, one error over and
    over); what finished is saved and a rerun resumes."""


def _llm_parts(roles: Roles, policies: Sequence[Policy], panel: Any) -> list[tuple[str, Any]]:
    """``(what, client)`` for every LLM client of the run, once per model and endpoint."""
    from empa_env.usage import LLMBacked

    parts: list[tuple[str, Any]] = []
    for kind, role in (
        ("actor", roles.actor),
        ("director", roles.director),
        ("judger", roles.judger),
    ):
        if isinstance(role, LLMBacked):
            parts.append((f"{kind} role", role.client))
    for policy in policies:
        if isinstance(policy, LLMBacked):
            parts.append((f"policy {policy.name!r}", policy.client))
    for judge in panel.judges if panel is not None else []:
        if isinstance(judge, LLMBacked):
            parts.append(("NEE judge", judge.client))
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
