"""The Ray executor: each episode a Ray task (``empa bench --executor ray [--ray-address ADDR]``).

The driver (the ``empa bench`` process) ships one :class:`RemoteRun` to the cluster's object store
(the run as data, :class:`~benchmarks.context.RunData`: the benchmark configuration, the cases, the
policy specs) and submits one task per (policy, case, seed). A worker builds the run's
:class:`~benchmarks.context.RunContext` from that data once per run (cached in the worker
process), plays the episode with the same code as the local executor
(:meth:`RunContext.play <benchmarks.context.RunContext.play>`) and returns the metrics and the
trajectory; the driver commits each to the run's SQLite store, once. Only the driver touches the
store.

Failures: an exception inside an episode is an episode error (recorded, like locally, never
retried by Ray, retried by the next run); a worker process or node that dies takes its tasks
with it and Ray runs them again elsewhere (``max_retries``, default 3). Results equal the local
executor's for the offline backend: every episode depends only on its case, seed and policy.

Workers import this package: every machine of the cluster needs empa-gym installed (the same
version), and a ``python:FILE.py:FUNC`` policy needs the file at the same absolute path.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
import traceback
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.executors import EpisodeJob, EpisodeOutcome, EpisodeRun, Record, RunSpec
from empa_env.errors import UserError

#: How ``ray`` is installed when it is missing.
INSTALL_HINT = (
    "--executor ray needs Ray, which is not installed; install the ray extra: "
    "pip install 'empa-gym[ray]' (in a checkout: pip install -e \".[ray]\")"
)
#: How often Ray runs a task again after its worker process or node died.
DEFAULT_MAX_RETRIES = 3


def import_ray() -> Any:
    """The ``ray`` module, or a one-line :class:`UserError` telling how to install it."""
    try:
        import ray
    except ImportError:
        raise UserError(INSTALL_HINT) from None
    return ray


def connect(address: str | None = None) -> bool:
    """Connect this process to Ray; returns whether it started a private local instance (which
    the caller then shuts down).

    ``address``: a cluster's address (``HOST:PORT`` of the head, ``ray://...`` or ``auto``);
    ``None`` uses ``RAY_ADDRESS`` when set, else starts a local instance with this machine's
    CPUs. Already connected (``ray.init`` called by the caller): used as it is."""
    ray = import_ray()
    target = address or os.environ.get("RAY_ADDRESS") or None
    if target is not None:
        _check_reachable(target)
    if ray.is_initialized():
        return False
    try:
        if target is None:
            ray.init(
                address="local",
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
            return True
        ray.init(address=target, log_to_driver=False, configure_logging=False)
    except Exception as exc:  # any failure to connect is one line for the user
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(
            f"--ray-address {target}: cannot connect to a Ray cluster ({first}); start one with "
            "`ray start --head` (RAY_AUTH_MODE and the token as on the cluster, docs/ray.md) "
            "and pass the address it prints"
        ) from None
    return False


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """A ``HOST:PORT`` address that nothing answers on fails at once with one line (Ray itself
    would retry for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or "://" in address or not port.isdigit():
        return  # "auto", "ray://...": Ray's own resolution
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise UserError(
            f"--ray-address {address}: no Ray cluster answers there ({exc.strerror or exc}); "
            "start one with `ray start --head` and pass the address it prints"
        ) from None


def portable_spec(spec: Any) -> Any:
    """A policy spec that means the same on another machine: a ``python:FILE.py:ATTR`` file
    path made absolute (workers do not share the driver's working directory)."""
    if not isinstance(spec, str):
        return spec
    alias, eq, rest = spec.partition("=")
    if not eq or ":" in alias:
        alias, rest = "", spec
    kind, sep, target = rest.partition(":")
    file_part, colon, attr = target.rpartition(":")
    if kind != "python" or not colon or not file_part.endswith(".py"):
        return spec
    absolute = f"{kind}{sep}{Path(file_part).resolve()}:{attr}"
    return f"{alias}={absolute}" if alias else absolute


@dataclass(frozen=True)
class RemoteRun:
    """What a worker needs to play any episode of a run (shipped once through the object store):
    the run as data, under a token naming this run."""

    token: str
    data: RunSpec


@dataclass
class _Prepared:
    context: EpisodeRun
    loop: asyncio.AbstractEventLoop


#: Per worker process: the run context and event loop of the runs it has served.
_PREPARED: dict[str, _Prepared] = {}


def _prepare(run: RemoteRun) -> _Prepared:
    """Build (once per worker process and run) the run's context, as the driver did."""
    prepared = _PREPARED.get(run.token)
    if prepared is not None:
        return prepared
    for token in list(_PREPARED):  # one run at a time per worker is the common case
        _PREPARED.pop(token).loop.close()
    prepared = _Prepared(run.data.build(), asyncio.new_event_loop())
    _PREPARED[run.token] = prepared
    return prepared


def play_remote(run: RemoteRun, job: EpisodeJob) -> EpisodeOutcome:
    """The body of one episode task (runs in a Ray worker; importable so Ray ships it by name)."""
    import ray

    from empa_env.llm.client import fatal_failure

    where = f"{ray.get_runtime_context().get_node_id()[:8]}/{os.getpid()}"
    try:
        prepared = _prepare(run)
        before = prepared.context.usage()
        metrics, trajectory = prepared.loop.run_until_complete(prepared.context.play(job))
    except Exception as exc:  # an episode error, as locally: recorded, not retried by Ray
        message = "".join(traceback.format_exception_only(exc)).strip()
        return EpisodeOutcome(job, error=message, fatal_failure=fatal_failure(), worker=where)
    usage = subtract_usage(prepared.context.usage(), before)
    return EpisodeOutcome(
        job, metrics, trajectory, fatal_failure=fatal_failure(), usage=usage, worker=where
    )


def subtract_usage(after: Any, before: Any) -> Any:
    """``after - before`` for two ledgers (numbers subtracted, mappings key by key): what one
    episode added to a worker's running totals."""
    if isinstance(after, dict):
        earlier = before if isinstance(before, dict) else {}
        return {k: subtract_usage(v, earlier.get(k)) for k, v in after.items()}
    if isinstance(after, int | float) and isinstance(before, int | float):
        return after - before
    return after


class RayExecutor:
    """Episodes as Ray tasks; at most ``max_in_flight`` submitted at once (the rest wait on the
    driver, so a stop or Ctrl-C leaves them unplayed). ``on_outcome`` sees every outcome before
    the runner records it (tests use it to see which worker played what)."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        max_in_flight: int = 32,
        max_retries: int = DEFAULT_MAX_RETRIES,
        on_outcome: Callable[[EpisodeOutcome], None] | None = None,
    ) -> None:
        import_ray()  # a missing extra fails before anything else happens
        self.address = address
        self.max_in_flight = max(1, max_in_flight)
        self.max_retries = max_retries
        self.on_outcome = on_outcome
        self._usage: dict[str, Any] = {}
        self._connected = False
        self._started_ray = False

    @classmethod
    def create(cls, *, concurrency: int = 32, address: str | None = None) -> RayExecutor:
        """The ``ray`` entry of :data:`~benchmarks.executors.executors`, connected already (a
        wrong address fails here, before any run directory exists)."""
        executor = cls(address=address, max_in_flight=concurrency)
        executor.connect()
        return executor

    def connect(self) -> None:
        """Connect to Ray now (``empa bench`` does it before the run directory is created, so a
        wrong address leaves nothing behind); :meth:`run` does it when nobody did."""
        if not self._connected:
            self._started_ray = connect(self.address)
            self._connected = True

    async def run(
        self,
        context: EpisodeRun,
        jobs: Sequence[EpisodeJob],
        record: Record,
        stopping: Callable[[], bool],
    ) -> None:
        ray = import_ray()
        from benchmarks.episodes import add_usage

        self.connect()
        try:
            if not jobs:
                return
            remote = ray.remote(max_retries=self.max_retries, retry_exceptions=False)(play_remote)
            run = RemoteRun(
                token=uuid.uuid4().hex,
                data=context.data([portable_spec(s) for s in context.policy_specs]),
            )
            run_ref = ray.put(run)
            waiting = list(jobs)
            in_flight: dict[Any, EpisodeJob] = {}
            while waiting or in_flight:
                while waiting and len(in_flight) < self.max_in_flight and not stopping():
                    job = waiting.pop(0)
                    in_flight[remote.remote(run_ref, job)] = job
                if stopping():
                    waiting.clear()
                    for ref in in_flight:
                        ray.cancel(ref)
                    break
                if not in_flight:
                    break
                ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=1.0)
                for ref in ready:
                    job = in_flight.pop(ref)
                    outcome = self._result(ray, ref, job)
                    if outcome.usage:
                        self._usage = add_usage(self._usage, outcome.usage)
                    if self.on_outcome is not None:
                        self.on_outcome(outcome)
                    record(outcome)
                await asyncio.sleep(0)  # let other coroutines of the driver's loop run
        finally:
            if self._started_ray:  # a private local instance: stopped with the run
                ray.shutdown()
                self._connected = self._started_ray = False

    @staticmethod
    def _result(ray: Any, ref: Any, job: EpisodeJob) -> EpisodeOutcome:
        """The task's outcome; a task Ray gave up on (its worker died more than ``max_retries``
        times) is an episode error, left for the next run."""
        try:
            outcome: EpisodeOutcome = ray.get(ref)
        except ray.exceptions.RayError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            return EpisodeOutcome(job, error=f"ray: {type(exc).__name__}: {first}")
        return outcome

    def usage(self) -> dict[str, Any]:
        return self._usage


def wait_for_cpus(count: float, timeout: float = 60.0) -> None:
    """Block until the connected cluster offers ``count`` CPUs (nodes that are still starting)."""
    ray = import_ray()
    deadline = time.monotonic() + timeout
    while ray.cluster_resources().get("CPU", 0) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the Ray cluster did not reach {count} CPUs in {timeout:.0f} s")
        time.sleep(0.2)
