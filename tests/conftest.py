"""Process-wide settings for the test session (set where the process starts, as the CLI does)."""

from __future__ import annotations

import os

import pytest

# LiteLLM must not fetch its price list, and the Hugging Face libraries must stay offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
for _name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ.setdefault(_name, "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Parallel runs (``pytest -n 2 --dist loadgroup``, as ``.ci/run`` does) keep each test file
    in one worker, so its module-scoped fixtures (a local LLM server, a fitted attack) are built
    once; a test that names an ``xdist_group`` of its own (the Ray cluster tests) joins that
    group instead, wherever its file is."""
    for item in items:
        if not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
