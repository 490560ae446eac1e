"""The benchmark: ``empa bench`` and its runner, executors, run store, reports, importers and the
paper tables. It sits on ``empa_env`` (and ``epm``) and never imports ``baselines``.

:data:`__all__` is what other packages may import from here (the public surface, loaded on first
use so ``empa --help`` stays light); everything else is internal and may change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from empa_env.lazy import lazy_exports

if TYPE_CHECKING:
    from benchmarks.config import BenchConfig
    from benchmarks.context import Execution, RunContext, RunData
    from benchmarks.executors import Executor, executors, make_executor
    from benchmarks.export import export_jsonl, export_parquet
    from benchmarks.inspect_task import empa_task
    from benchmarks.runner import RunStopped, RunSummary, play_run, run_benchmark
    from benchmarks.store import RunStore, StoreError

#: Public name -> the module that defines it.
_LAZY: dict[str, str] = {
    "BenchConfig": "benchmarks.config",
    "Execution": "benchmarks.context",
    "RunContext": "benchmarks.context",
    "RunData": "benchmarks.context",
    "Executor": "benchmarks.executors",
    "executors": "benchmarks.executors",
    "make_executor": "benchmarks.executors",
    "export_jsonl": "benchmarks.export",
    "export_parquet": "benchmarks.export",
    "empa_task": "benchmarks.inspect_task",
    "RunStopped": "benchmarks.runner",
    "RunSummary": "benchmarks.runner",
    "run_benchmark": "benchmarks.runner",
    "play_run": "benchmarks.runner",
    "RunStore": "benchmarks.store",
    "StoreError": "benchmarks.store",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "BenchConfig", "Execution", "Executor", "RunContext", "RunData", "RunStopped", "RunStore",
    "RunSummary", "StoreError", "empa_task", "executors", "export_jsonl", "export_parquet",
    "make_executor", "play_run", "run_benchmark",
]  # fmt: skip
