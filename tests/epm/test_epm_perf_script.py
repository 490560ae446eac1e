"""The EPM performance script: synthetic episodes are rubric-valid and the script runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks.perf import perf_epm
from epm import AXES, increment


def test_synthetic_episodes_follow_the_rubric() -> None:
    data = perf_epm.synthetic_episodes(50, 20, seed=3)
    assert (
        data.p0.shape == (50, 3)
        and data.v.shape == (50, 20, 3)
        and data.levels.shape == (50, 20, 6)
    )
    assert (data.lengths >= 12).all() and (data.lengths <= 20).all()
    # P_0 ranges of the IEDR rubric
    assert (data.p0[:, 0] >= -21).all() and (data.p0[:, 1:] >= -27).all() and (data.p0 <= 0).all()
    for i in range(5):
        for t in range(20):
            lv = data.levels[i, t].astype(int)
            prog = dict(zip(AXES, lv[:3].tolist(), strict=True))
            neg = dict(zip(AXES, lv[3:].tolist(), strict=True))
            assert data.v[i, t].tolist() == increment(prog, neg).tolist()


def test_synthetic_episodes_are_seeded() -> None:
    a = perf_epm.synthetic_episodes(10, 15, seed=1)
    b = perf_epm.synthetic_episodes(10, 15, seed=1)
    c = perf_epm.synthetic_episodes(10, 15, seed=2)
    assert np.array_equal(a.v, b.v) and np.array_equal(a.p0, b.p0)
    assert not np.array_equal(a.v, c.v)


@pytest.mark.parametrize("preset", ["official", "paper"])
def test_run_small(preset: str) -> None:
    r = perf_epm.run(episodes=200, turns=30, repeats=2, seed=0, preset=preset, tracker_episodes=20)
    assert r.episodes == 200 and r.repeats == 2
    assert r.batch_seconds_best > 0 and r.batch_seconds_best <= r.batch_seconds_median
    # nothing ends before min_turns = 12, and every synthetic episode has >= 12 turns
    assert r.tracker_steps >= 20 * 12
    assert np.isfinite(r.mean_epm_index)


def test_main_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert perf_epm.main(["--episodes", "50", "--turns", "15", "--repeats", "1",
                          "--tracker-episodes", "5", "--json"]) == 0  # fmt: skip
    payload = json.loads(capsys.readouterr().out)
    assert payload["episodes"] == 50 and payload["turns"] == 15
    assert perf_epm.main(["--episodes", "20", "--turns", "12", "--repeats", "1"]) == 0
    assert "us/episode" in capsys.readouterr().out
