"""The GPU check script runs end to end on the CPU with a tiny model (its CI smoke run): every
measurement is there without an error, and one step at the default learning rate moves nearly
every weight of the bf16 checkpoint under fp32 master weights, few under pure bf16."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from perf import perf_gpu_training  # noqa: E402

pytestmark = pytest.mark.train


def test_tiny_run_reports_every_figure(tmp_path, capsys):
    out = tmp_path / "perf.json"
    assert perf_gpu_training.main(["--tiny", "--cpu", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["results"]
    assert not [r for r in rows if "error" in r]
    kinds = {(r["what"], r.get("precision")) for r in rows}
    assert {("mica rollouts", "bf16-mixed"), ("mica step", "bf16-mixed"), ("mica step", "fp32"),
            ("mica step", "bf16-pure"), ("grpo-trl step", "bf16-mixed")} <= kinds  # fmt: skip
    steps = {r["precision"]: r for r in rows if r["what"] == "mica step"}
    assert steps["bf16-mixed"]["weights_changed"] >= 0.9
    assert steps["fp32"]["weights_changed"] >= 0.9
    assert steps["bf16-pure"]["weights_changed"] < 0.5
    assert steps["bf16-pure"]["weight_dtype"] == "bfloat16"
    rollouts = next(r for r in rows if r["what"] == "mica rollouts")
    assert rollouts["tokens"] > 0 and rollouts["tokens_per_s"] > 0
    grpo = next(r for r in rows if r["what"] == "grpo-trl step")
    assert grpo["tokens"] > 0 and grpo["weights_changed"] >= 0.9
    assert "total" in capsys.readouterr().out
