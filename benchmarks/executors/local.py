"""The local executor: every episode on one asyncio loop in this process (``--executor local``).

At most ``concurrency`` episodes are in flight; all of them share the driver's role instances
(``RunWork.shared_env``) and policy objects, so LLM calls of different episodes overlap.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.executors import EpisodeJob, EpisodeOutcome, Record, RunWork
from empa_env.errors import UserError


class LocalExecutor:
    name = "local"

    @classmethod
    def create(cls, *, concurrency: int = 32, address: str | None = None) -> LocalExecutor:
        """The ``local`` entry of :data:`~benchmarks.executors.executors`: no address to go to."""
        if address is not None:
            raise UserError("--ray-address needs --executor ray (local plays in this process)")
        return cls(concurrency=concurrency)

    def __init__(self, concurrency: int = 32) -> None:
        self.concurrency = max(1, concurrency)
        self._work: RunWork | None = None

    async def run(
        self,
        work: RunWork,
        jobs: Sequence[EpisodeJob],
        record: Record,
        stopping: Callable[[], bool],
    ) -> None:
        from benchmarks.episodes import play_and_score

        self._work = work
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(job: EpisodeJob) -> None:
            async with semaphore:
                if stopping():  # the run is stopping: leave the episode for the rerun
                    return
                policy = work.policies[job.policy_index]
                case = work.cases[job.case_index]
                try:
                    metrics, trajectory = await play_and_score(
                        work.shared_env, policy, case, job.seed, work.panel
                    )
                except Exception as exc:  # recorded, visible, and retried by the next run
                    message = "".join(traceback.format_exception_only(exc)).strip()
                    record(EpisodeOutcome(job, error=message))
                else:
                    record(EpisodeOutcome(job, metrics=metrics, trajectory=trajectory))

        await asyncio.gather(*(one(job) for job in jobs))

    def usage(self) -> dict[str, Any]:
        from benchmarks.episodes import run_usage

        if self._work is None:
            return {}
        return run_usage(self._work.roles, self._work.policies)
