"""Parallel runs keep each test file (or named group) in one worker (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import LONGEST_FIRST, group_of

ROOT = Path(__file__).resolve().parents[1]


def test_under_loadgroup_this_test_carries_its_group(request):
    """pytest-xdist schedules by the ``@group`` suffix it adds to each nodeid; a pytest that
    ignores that suffix (9.2, hence the pin in pyproject.toml) silently runs every test as its
    own unit, rebuilding module fixtures in each worker."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not a worker of `pytest -n N --dist loadgroup` (as .ci/run runs)")
    assert request.node.nodeid.endswith("@tests/test_parallel_groups.py")


def test_each_longest_group_names_a_test_file_or_a_declared_group():
    """A renamed file or group would silently lose its place at the front of the queue."""
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py"))
    for group in LONGEST_FIRST:
        assert (ROOT / group).is_file() or f'xdist_group("{group}")' in sources, group


def test_a_test_without_its_own_group_is_in_its_files(request):
    assert group_of(request.node) == "tests/test_parallel_groups.py"
