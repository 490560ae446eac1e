"""Episodes per second: the local executor against Ray with 1 and 2 worker nodes (offline roles).

One workload (a scripted policy on the suite's cases, offline Actor, Director and Judger) is run
by ``run_benchmark`` four ways, each into a fresh run directory, and timed from the call to the
summary (roles built, episodes played, every episode committed):

* ``local``: the default executor, one asyncio loop in this process, 32 episodes in flight
  (``--concurrency``'s default); ``local, 1 at once``: the same, one episode at a time (on
  CPU-bound offline episodes interleaving 32 costs time, so this is the fairer baseline);
* ``ray, 1 worker`` / ``ray, 2 workers``: a local Ray cluster of separate processes (a head with
  no CPUs, and 1 or 2 worker nodes of 1 CPU each, :class:`~benchmarks.executors.local_cluster.
  LocalCluster`); each cluster first plays a 2-episode warm-up run so its worker processes exist
  and have imported the package (the cluster's start is printed separately); the local
  executor gets the same warm-up, each local variant in a fresh process. The warm-up is played
  by another policy: the judge caches per process, and must not have seen the workload.

Also printed: Ray's own cost per episode (an empty task's round trip plus moving one episode's
result through the object store), what the driver spends committing an episode (a ceiling for
every executor: only the driver writes the store), and for each cluster the difference per
episode against the faster local way and how many episodes repay the cluster's start.

    python benchmarks/perf/perf_ray.py [--cases 30] [--seeds 2] [--workers 1 2]

Figures depend on the machine's load (printed); on a shared 2-core machine two Ray workers
compete with the driver and with other people's jobs for the same two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.executors import EpisodeJob, EpisodeOutcome  # noqa: E402
from benchmarks.executors.local import LocalExecutor  # noqa: E402
from benchmarks.runner import BenchConfig, run_benchmark  # noqa: E402
from benchmarks.store import EpisodeRow, RunStore  # noqa: E402
from empa_env.config import EnvConfig  # noqa: E402
from epm.trajectory import Trajectory  # noqa: E402


@dataclass(frozen=True)
class Timing:
    label: str
    episodes: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.episodes / self.seconds

    @property
    def per_episode(self) -> float:
        return self.seconds / self.episodes


def timed_run(
    label: str, config: BenchConfig, policies: list[str], out: Path, executor: object
) -> Timing:
    started = time.perf_counter()
    summary = asyncio.run(run_benchmark(config, policies, out, progress=False, executor=executor))  # type: ignore[arg-type]
    seconds = time.perf_counter() - started
    if summary.failed:
        raise SystemExit(f"{label}: {summary.failed} episodes failed: {summary}")
    return Timing(label, summary.finished, seconds)


def local_in_fresh_process(label: str, concurrency: int, argv: Sequence[str]) -> Timing:
    """The local executor timed in a new Python process (after its own warm-up), so no cache of
    an earlier run in this process helps it (the judge's encoder and guards cache per process)."""
    done = subprocess.run(
        [sys.executable, __file__, *argv, "--local-only", str(concurrency)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return Timing(label, figures["episodes"], figures["seconds"])


#: The warm-up's policy: not the workload's, so its conversations are not the workload's.
WARM_UP_POLICY = "scripted:lecturer"


def warm_up(config: BenchConfig) -> BenchConfig:
    """Two episodes of the first case (played by :data:`WARM_UP_POLICY`): processes started,
    modules imported, models loaded, without filling any cache with the workload's texts."""
    first = config.load_cases()[2][0].id
    return BenchConfig(config.env, case_ids=[first], seeds=2, preflight=False)


def empty_task_round_trip(tasks: int = 200) -> float:
    """Seconds per empty Ray task (submit, run, return), on the connected cluster."""
    import ray

    @ray.remote
    def nothing() -> None:
        return None

    ray.get([nothing.remote() for _ in range(10)])  # workers started
    started = time.perf_counter()
    ray.get([nothing.remote() for _ in range(tasks)])
    return (time.perf_counter() - started) / tasks


def stored_outcomes(run_dir: Path) -> list[EpisodeOutcome]:
    """The episodes of a finished run as the executors hand them to the runner."""
    with RunStore(run_dir) as store:
        return [
            EpisodeOutcome(EpisodeJob(0, model, 0, case, seed), metrics, Trajectory.from_json(tj))
            for _k, model, case, seed, metrics, _meta, tj in store.iter_rows()
        ]


def shipping_cost(outcomes: Sequence[EpisodeOutcome]) -> float:
    """Seconds to move one episode's result through Ray's object store (put, then get)."""
    import ray

    started = time.perf_counter()
    for outcome in outcomes:
        ray.get(ray.put(outcome))
    return (time.perf_counter() - started) / len(outcomes)


def commit_cost(outcomes: Sequence[EpisodeOutcome], cases: dict[str, Any], out: Path) -> float:
    """Seconds the driver spends committing one episode (the ceiling of any executor)."""
    with RunStore(out, {"perf": "commit"}) as store:
        started = time.perf_counter()
        for o in outcomes:
            assert o.metrics is not None and o.trajectory is not None
            store.add_episode(
                EpisodeRow(
                    o.job.policy_name, o.job.case_id, o.job.seed, o.metrics,
                    cases[o.job.case_id].metadata(), o.trajectory,
                )
            )  # fmt: skip
        return (time.perf_counter() - started) / len(outcomes)


@dataclass(frozen=True)
class ClusterFigures:
    timing: Timing
    start: float  # seconds to start the head and the worker nodes
    empty_task: float  # seconds per empty task
    shipping: float  # seconds per episode result through the object store


def on_cluster(
    workers: int, config: BenchConfig, policies: list[str], root: Path, sample: Sequence[EpisodeOutcome]
) -> ClusterFigures:  # fmt: skip
    """The workload on a fresh cluster of ``workers`` worker nodes, and Ray's own costs there."""
    from benchmarks.executors.local_cluster import LocalCluster
    from benchmarks.executors.ray_executor import RayExecutor

    started = time.perf_counter()
    with LocalCluster(workers=workers) as cluster:
        start = time.perf_counter() - started
        timed_run("warm-up", warm_up(config), [WARM_UP_POLICY], root / "warm", RayExecutor())
        label = f"ray, {workers} worker{'s' if workers > 1 else ''}"
        timing = timed_run(label, config, policies, root / f"ray{workers}", RayExecutor())
        figures = ClusterFigures(timing, start, empty_task_round_trip(), shipping_cost(sample))
        assert cluster.cpus == workers
    return figures


def crossover_note(local: Timing, runs: Sequence[ClusterFigures], commit: float) -> list[str]:
    """Ray's own cost per episode and where Ray pays off, from the measured figures."""
    own = max(r.empty_task + r.shipping for r in runs)
    lines = [
        f"Ray's own cost per episode: {own * 1000:.1f} ms (an empty task's round trip plus moving "
        f"the episode's result through the object store), {own / local.per_episode:.1%} of an "
        f"offline episode ({local.per_episode * 1000:.0f} ms with {local.label!r}, the faster local way)",
        f"the driver commits an episode in {commit * 1000:.1f} ms: at most {1 / commit:.0f} "
        "episodes/s whatever the executor",
    ]
    for r in runs:
        gain = local.per_episode - r.timing.per_episode
        difference = f"{-gain * 1000:+.0f} ms per episode against local"
        if gain > 0:
            lines.append(
                f"{r.timing.label}: {difference}; a new cluster's {r.start:.0f} s start is repaid "
                f"after {r.start / gain:.0f} episodes"
            )
        else:
            lines.append(f"{r.timing.label}: {difference}; no gain on this machine")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=30, help="first N cases of empa30-v1")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--policy", action="append", default=None, help="(repeatable)")
    parser.add_argument("--max-turns", type=int, default=None)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--local-only", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    policies = args.policy or ["scripted:attuned"]
    config = BenchConfig(
        EnvConfig(max_turns=args.max_turns), limit=args.cases, seeds=args.seeds, preflight=False
    )
    if args.local_only is not None:  # the child process of local_in_fresh_process
        with tempfile.TemporaryDirectory() as tmp:
            timed_run("warm-up", warm_up(config), [WARM_UP_POLICY], Path(tmp) / "warm", "local")
            t = timed_run(
                "local", config, policies, Path(tmp) / "run", LocalExecutor(args.local_only)
            )
        print(json.dumps({"episodes": t.episodes, "seconds": t.seconds}))
        return 0
    n = len(policies) * args.cases * args.seeds
    load = os.getloadavg()
    print(
        f"workload: {n} episodes ({', '.join(policies)} on {args.cases} cases x {args.seeds} "
        f"seeds, offline roles); load average {load[0]:.1f} / {load[1]:.1f} on {os.cpu_count()} CPUs"
    )
    child = [f"--cases={args.cases}", f"--seeds={args.seeds}", *(f"--policy={p}" for p in policies)]
    if args.max_turns:
        child.append(f"--max-turns={args.max_turns}")
    default = local_in_fresh_process("local", 32, child)
    single = local_in_fresh_process("local, 1 at once", 1, child)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        few = BenchConfig(config.env, limit=min(5, args.cases), preflight=False)
        timed_run("sample", few, policies[:1], root / "sample", LocalExecutor(1))
        sample = stored_outcomes(root / "sample")
        commit = commit_cost(sample, {c.id: c for c in config.load_cases()[2]}, root / "commit")
        runs = [on_cluster(w, config, policies, root / f"ray{w}", sample) for w in args.workers]
    local = min(default, single, key=lambda t: t.seconds)  # the faster local way
    print(f"\n{'executor':<16}{'wall s':>9}{'episodes/s':>12}{'ms/episode':>12}{'vs local':>10}")
    for t in [default, single, *(r.timing for r in runs)]:
        print(
            f"{t.label:<16}{t.seconds:>9.2f}{t.per_second:>12.2f}{t.per_episode * 1000:>12.1f}"
            f"{t.per_second / local.per_second:>9.2f}x"
        )
    print(
        f"\ncluster start (head + worker nodes): {', '.join(f'{r.start:.1f} s' for r in runs)}; "
        f"empty Ray task round trip: {', '.join(f'{r.empty_task * 1000:.2f} ms' for r in runs)}; "
        f"an episode's result through the object store: "
        f"{', '.join(f'{r.shipping * 1000:.2f} ms' for r in runs)}"
    )
    for line in crossover_note(local, runs, commit):
        print(line)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
