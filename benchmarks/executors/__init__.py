"""Where a benchmark's episodes are played: in this process or on a Ray cluster.

The runner (:func:`benchmarks.runner.run_benchmark`) decides *which* episodes to play, and commits
each finished one to the run's store; an executor decides *where* they are played. Both
executors hand every finished episode back to the runner as an :class:`EpisodeOutcome` through
one callback, so the store, the progress bar, the stop rules and the failure summary are the same
whichever plays them:

* ``local`` (:class:`~benchmarks.executors.local.LocalExecutor`): one asyncio loop in this process,
  at most ``concurrency`` episodes in flight;
* ``ray`` (:class:`~benchmarks.executors.ray_executor.RayExecutor`): each episode a Ray task on a
  cluster (or a private local Ray instance); needs the ``ray`` extra.

Executors are a registry (:data:`executors`, entry-point group ``empa.executors``): another one is
one file whose factory takes ``concurrency`` and ``address`` (``--ray-address``) as keywords and
returns an :class:`Executor`, plus one registration (``@executors.register("mine")`` in that file,
or an entry point). ``empa bench --executor`` offers every registered name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from empa_env.registry import Registry

if TYPE_CHECKING:
    from epm.trajectory import Trajectory


@dataclass(frozen=True)
class EpisodeJob:
    """One episode to play: the policy (its index in the run's policy list), the case, the seed."""

    policy_index: int
    policy_name: str
    case_index: int
    case_id: str
    seed: int

    @property
    def key(self) -> str:
        from benchmarks.store import episode_key

        return episode_key(self.policy_name, self.case_id, self.seed)


@dataclass
class EpisodeOutcome:
    """A played episode as the runner records it: metrics and trajectory, or the error."""

    job: EpisodeJob
    metrics: dict[str, Any] | None = None
    trajectory: Trajectory | None = None
    #: The error's one-paragraph message when the episode failed (it goes to the errors table).
    error: str | None = None
    #: The fatal LLM failure where the episode ran, if there was one (a refused key, an unknown
    #: model or path: ``empa_env.llm.client.fatal_failure``); it stops the run.
    fatal_failure: str | None = None
    #: The LLM ledger this episode added where it ran (remote executors only; the local
    #: executor's ledger is the driver's own roles').
    usage: dict[str, Any] = field(default_factory=dict)
    #: Where the episode ran (``node id/pid`` for Ray, ``""`` locally).
    worker: str = ""

    @property
    def failed(self) -> bool:
        return self.error is not None


Record = Callable[[EpisodeOutcome], None]


class EpisodeRun(Protocol):
    """A run as an executor sees it (:class:`benchmarks.context.RunContext` is one): it plays
    any of its episodes, keeps the LLM ledger, and gives itself as data for another machine."""

    policy_specs: list[Any]

    async def play(self, job: EpisodeJob) -> tuple[dict[str, Any], Trajectory]:
        """One episode played and scored: ``(metrics, trajectory)``."""
        ...

    def usage(self) -> dict[str, Any]:
        """The LLM ledger of the episodes this process played so far."""
        ...

    def data(self, policy_specs: Sequence[Any] | None = None) -> RunSpec:
        """The run as data, to build the same run on another machine."""
        ...


class RunSpec(Protocol):
    """A run as data (:class:`benchmarks.context.RunData` is one): picklable, and it builds the
    run it describes (roles, policies and panel resolved where it is built)."""

    def build(self) -> EpisodeRun:
        """The run, resolved here (a remote executor's worker plays with it)."""
        ...


class Executor(Protocol):
    """Plays episodes and hands each outcome to ``record`` as soon as it is known."""

    name: str

    async def run(
        self,
        context: EpisodeRun,
        jobs: Sequence[EpisodeJob],
        record: Record,
        stopping: Callable[[], bool],
    ) -> None:
        """Play ``jobs`` of the run ``context`` (``await context.play(job)`` plays one); call
        ``record`` once per finished or failed episode (never twice for a job); stop starting
        episodes once ``stopping()`` is true."""
        ...

    def usage(self) -> dict[str, Any]:
        """The LLM ledger (calls, tokens, cost) of the episodes played so far."""
        ...


#: Where episodes can be played, by name: each factory is called as
#: ``factory(concurrency=N, address=ADDR_OR_NONE)`` and returns a ready :class:`Executor` (one that
#: connects somewhere does it in the factory, so a wrong address fails before a run directory
#: exists; one that takes no address refuses one).
executors: Registry[Executor] = Registry("executor", "empa.executors")


def make_executor(name: str, *, concurrency: int = 32, address: str | None = None) -> Executor:
    """The executor registered as ``name`` (a clear error listing the known ones otherwise)."""
    return executors.create(name, concurrency=concurrency, address=address)


__all__ = [
    "EpisodeJob", "EpisodeOutcome", "EpisodeRun", "Executor", "Record", "RunSpec", "executors",
    "make_executor",
]  # fmt: skip
