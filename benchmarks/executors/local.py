"""The local executor: every episode on one asyncio loop in this process (``--executor local``).

At most ``concurrency`` episodes are in flight; all of them share the run context's roles
(:attr:`RunContext.env <benchmarks.context.RunContext.env>`) and policy objects, so LLM calls of
different episodes overlap.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.executors import EpisodeJob, EpisodeOutcome, EpisodeRun, Record
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
        self._context: EpisodeRun | None = None

    async def run(
        self,
        context: EpisodeRun,
        jobs: Sequence[EpisodeJob],
        record: Record,
        stopping: Callable[[], bool],
    ) -> None:
        self._context = context
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(job: EpisodeJob) -> None:
            async with semaphore:
                if stopping():  # the run is stopping: leave the episode for the rerun
                    return
                try:
                    metrics, trajectory = await context.play(job)
                except Exception as exc:  # recorded, visible, and retried by the next run
                    message = "".join(traceback.format_exception_only(exc)).strip()
                    record(EpisodeOutcome(job, error=message))
                else:
                    record(EpisodeOutcome(job, metrics=metrics, trajectory=trajectory))

        await asyncio.gather(*(one(job) for job in jobs))

    def usage(self) -> dict[str, Any]:
        return {} if self._context is None else self._context.usage()
