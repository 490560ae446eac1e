"""A small Ray cluster of several processes on this machine, for tests and the perf script.

:class:`LocalCluster` starts a head node with no CPUs of its own (so nothing runs on it: every
task goes to a worker node, as on a real cluster where the driver's machine only coordinates)
and ``workers`` worker nodes of ``cpus_per_worker`` CPUs each, every node a separate raylet
with its own worker processes. It keeps Ray small (100 MiB of object store per node, no
dashboard, no usage statistics, worker logs not streamed to the driver) and connects this
process as the driver. Nodes can be added and killed (:meth:`add_worker`, :meth:`kill_worker`);
:meth:`shutdown` stops every process it started.
"""

from __future__ import annotations

import os
from typing import Any

from benchmarks.executors.ray_executor import import_ray, wait_for_cpus

#: Object store per node: Ray's floor is 75 MiB; results of episodes are a few kB each.
OBJECT_STORE_BYTES = 100 * 1024 * 1024
#: Keeps Ray quiet and offline on a test machine.
RAY_ENVIRONMENT = {
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_DEDUP_LOGS": "0",
    "RAY_SCHEDULER_EVENTS": "0",
}


class LocalCluster:
    """A head node (0 CPUs) and ``workers`` worker nodes; this process is connected as driver."""

    def __init__(self, workers: int = 2, cpus_per_worker: int = 1) -> None:
        import_ray()
        from ray.cluster_utils import Cluster

        for name, value in RAY_ENVIRONMENT.items():
            os.environ.setdefault(name, value)
        self.cpus_per_worker = cpus_per_worker
        self.cluster = Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 0,
                "object_store_memory": OBJECT_STORE_BYTES,
                "include_dashboard": False,
            },
        )
        self.nodes: list[Any] = []
        try:
            for _ in range(workers):
                self.add_worker()
            self._connect()
        except BaseException:
            self.shutdown()
            raise

    def _connect(self) -> None:
        ray = import_ray()
        ray.init(address=self.cluster.address, log_to_driver=False, configure_logging=False)
        wait_for_cpus(self.cpus)

    @property
    def address(self) -> str:
        return str(self.cluster.address)

    @property
    def cpus(self) -> int:
        return len(self.nodes) * self.cpus_per_worker

    def add_worker(self) -> Any:
        """Start one more worker node; returns it (for :meth:`kill_worker`)."""
        node = self.cluster.add_node(
            num_cpus=self.cpus_per_worker, object_store_memory=OBJECT_STORE_BYTES
        )
        self.nodes.append(node)
        ray = import_ray()
        if ray.is_initialized():
            wait_for_cpus(self.cpus)
        return node

    def kill_worker(self, node: Any) -> None:
        """Kill a worker node's raylet and worker processes at once (no graceful shutdown), as a
        machine that dies."""
        self.nodes.remove(node)
        self.cluster.remove_node(node, allow_graceful=False)

    @staticmethod
    def node_id(node: Any) -> str:
        return str(node.node_id)

    def shutdown(self) -> None:
        ray = import_ray()
        ray.shutdown()
        self.cluster.shutdown()
        self.nodes.clear()

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


_SHARED: LocalCluster | None = None


def shared_cluster(workers: int = 2) -> LocalCluster:
    """One :class:`LocalCluster` per process (test sessions share it across modules); it is shut
    down when the process exits."""
    global _SHARED
    if _SHARED is None:
        import atexit

        _SHARED = LocalCluster(workers=workers)
        atexit.register(_SHARED.shutdown)
    while len(_SHARED.nodes) < workers:  # a test killed one
        _SHARED.add_worker()
    return _SHARED
