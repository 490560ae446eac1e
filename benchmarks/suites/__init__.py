"""The benchmark case suites shipped with empa-gym.

Each suite is a directory of case files plus a manifest of its intended strata, registered in the
``empa.suites`` entry-point group (see ``pyproject.toml``) so that ``empa_env`` can load it by id
(``empa_env.cases.suites.load_suite("empa30-v1")``) without importing this package.
"""

from __future__ import annotations

from pathlib import Path

SUITES_DIR = Path(__file__).resolve().parent


def _suite(suite_id: str) -> tuple[Path, Path]:
    return SUITES_DIR / suite_id, SUITES_DIR / f"{suite_id}.manifest.yaml"


def empa30_v1() -> tuple[Path, Path]:
    """``empa30-v1``: the 30 hand-written English cases stratified as in the paper
    (10 per dominant axis, 5 per life domain, 4 easy / 10 medium / 11 hard / 5 extreme)."""
    return _suite("empa30-v1")
