"""The published episodes of the official EMPA benchmark end where ``epm`` says they end.

Replays ``P_0`` (trajectory point 0) and the published increments ``v_t`` of every episode of the
two models in the shared slice (30 cases each) through :class:`epm.EPMTracker` with the
``official`` preset, and checks each ends at the published turn with the published outcome.

The data (CC BY-NC) is read from ``../shared/data/empa-official`` and never copied into the
repository; the test is skipped when that folder is absent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from epm import OFFICIAL, EPMTracker

OFFICIAL_DATA = Path(
    os.environ.get(
        "EMPA_OFFICIAL_DATA",
        Path(__file__).resolve().parents[3] / "shared" / "data" / "empa-official",
    )
)
RUNS = OFFICIAL_DATA / "results" / "benchmark_runs" / "epm-bench"
MODELS = ("gpt-4o", "claude-4.6-opus")


def published_ending(reason: str) -> tuple[str, str | None]:
    """(outcome, victory type or failure reason) from a published ``termination_reason``."""
    text = reason.lower()
    if "success" in text:
        return "success", "geometric" if "geometric" in text else "positional"
    if "failure" in text:
        return "failure", "collapse" if "collapse" in text else "stagnation_regression"
    if "max turns" in text:
        return "truncated", None
    return "other", reason


def _episodes() -> list[Path]:
    return [p for m in MODELS for p in sorted((RUNS / m).glob("script_*_result.json"))]


needs_data = pytest.mark.skipif(
    not all((RUNS / m).is_dir() for m in MODELS),
    reason=f"official EMPA results not found under {RUNS} (set EMPA_OFFICIAL_DATA to the "
    "empa-official slice or a checkout of the official repository)",
)


@needs_data
def test_slice_has_sixty_episodes() -> None:
    assert len(_episodes()) == 60


@needs_data
@pytest.mark.parametrize(
    "path", _episodes() if RUNS.is_dir() else [], ids=lambda p: p.parent.name + "/" + p.stem
)
def test_published_episode_ends_as_published(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    points = data["epj"]["trajectory"]
    assert points[0]["turn"] == 0
    tracker = EPMTracker(points[0]["P_t"], OFFICIAL)
    for point in points[1:]:
        assert not tracker.status.done, f"ended early, at turn {tracker.turn}"
        tracker.step(point["v_t"])
        assert tracker.position.tolist() == pytest.approx(point["P_t"])
    status = tracker.status
    outcome, detail = published_ending(data["termination_reason"])
    assert tracker.turn == data["total_turns"]
    assert status.outcome == outcome
    assert (status.victory_type or status.failure_reason) == detail
