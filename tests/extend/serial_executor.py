"""A new executor in one file: every episode in turn, one at a time (``--executor serial``).

Importing this module registers it; an installed package would name the class's ``create`` in an
``empa.executors`` entry point instead."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.context import RunContext
from benchmarks.executors import EpisodeJob, EpisodeOutcome, Record, executors
from empa_env.errors import UserError


class SerialExecutor:
    name = "serial"
    #: The keys of the episodes every instance played, in order (what the test checks).
    played: list[str] = []

    def __init__(self, *, concurrency: int = 32, address: str | None = None) -> None:
        if address is not None:
            raise UserError("the serial executor plays in this process; it takes no address")
        self.concurrency = concurrency

    async def run(
        self,
        context: RunContext,
        jobs: Sequence[EpisodeJob],
        record: Record,
        stopping: Callable[[], bool],
    ) -> None:
        for job in jobs:
            if stopping():
                return
            metrics, trajectory = await context.play(job)
            SerialExecutor.played.append(job.key)
            record(EpisodeOutcome(job, metrics=metrics, trajectory=trajectory))

    def usage(self) -> dict[str, Any]:
        return {}


executors.register("serial", SerialExecutor, replace=True)
