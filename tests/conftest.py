"""Process-wide settings for the test session (set where the process starts, as the CLI does)."""

from __future__ import annotations

import os

import pytest

# LiteLLM must not fetch its price list, and the Hugging Face libraries must stay offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
for _name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ.setdefault(_name, "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# One BLAS/OpenMP/torch thread per test process (set before numpy or torch is imported; inherited
# by the processes tests start): .ci/run runs one pytest-xdist worker per core, and a second thread
# per process only spins against the other worker. Measured on the static heads reproduction: the
# same bytes, 93 s -> 64 s of CPU.
os.environ.setdefault("OMP_NUM_THREADS", "1")


#: Scheduling hint for parallel runs: the groups that take longest (``--durations``: the real
#: SmolLM2 server, the Ray cluster, the attacks, the static heads reproduction, the training
#: examples, the MiniLM training check), in that order, so that a worker starts each of them at
#: once instead of being left with one at the end (pytest-xdist would otherwise send the files
#: with the most tests first).
LONGEST_FIRST: tuple[str, ...] = (
    "tests/llm/test_smollm2.py",
    "ray_cluster",
    "tests/judge/test_attacks.py",
    "tests/judge/test_semantic_train.py",
    "tests/baselines/test_training_examples.py",
    "minilm_heads",
)


def group_of(item: pytest.Item) -> str:
    """The ``xdist_group`` an item runs in (its file's unless it names one)."""
    marker = item.get_closest_marker("xdist_group")
    if marker is not None:
        return str(marker.args[0] if marker.args else marker.kwargs.get("name", ""))
    return item.nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Parallel runs (``pytest -n 2 --dist loadgroup``, as ``.ci/run`` does) keep each test file
    in one worker, so its module-scoped fixtures (a local LLM server, a fitted attack) are built
    once; a test that names an ``xdist_group`` of its own (the Ray cluster tests) joins that
    group instead, wherever its file is. Groups run longest first (:data:`LONGEST_FIRST`, then
    the groups with tests marked ``slow``, then the rest, each in collection order)."""
    for item in items:
        if not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
    slow_groups = {group_of(item) for item in items if item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> tuple[int, int]:
        group = group_of(item)
        first = LONGEST_FIRST.index(group) if group in LONGEST_FIRST else len(LONGEST_FIRST)
        return first, 0 if group in slow_groups else 1

    items.sort(key=rank)  # stable: each group keeps its files and tests in collection order
