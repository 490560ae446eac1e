"""The tokens-per-episode benchmark script runs and prints every mode (no timing assertions)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from perf.perf_rollout_tokens import MODES, main  # noqa: E402

pytestmark = pytest.mark.train


@pytest.mark.slow
def test_prints_tokens_and_time_per_episode_for_every_mode(capsys):
    """~8 s: a 32 x 1 Llama, 1 episode of 3 turns per mode."""
    argv = ["--hidden", "32", "--layers", "1", "--episodes", "1", "--turns", "3"]
    assert main([*argv, "--max-new-tokens", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {
        m: line.split()[len(m.split()) :] for m in MODES for line in lines if line.startswith(m)
    }
    assert set(rows) == set(MODES)
    read = {m: float(r[1]) for m, r in rows.items()}
    assert read["reuse"] < read["re-read, per episode"]  # same stream, fewer tokens read
