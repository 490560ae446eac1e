"""Shared fixtures for the case tests: a valid case as plain data, and writing case files."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from empa_env.cases.generator import ProceduralGenerator
from empa_env.cases.schema import Case


@pytest.fixture(scope="session")
def small_pool() -> tuple[Case, ...]:
    """Sixty generated cases (seed 11): 10 per domain, 20 per dominant axis."""
    return tuple(ProceduralGenerator().generate(60, seed=11))


@pytest.fixture
def case_data(small_pool: tuple[Case, ...]) -> dict:
    """A valid case as the plain data a YAML file holds (a fresh deep copy per test)."""
    return copy.deepcopy(small_pool[0].model_dump(mode="json", by_alias=True))


@pytest.fixture
def write_case(tmp_path: Path) -> Callable[..., Path]:
    def write(name: str, data: object, directory: Path | None = None) -> Path:
        target = (directory or tmp_path) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8"
        )
        return target

    return write
