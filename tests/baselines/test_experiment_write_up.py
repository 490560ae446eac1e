"""The strategy experiment's write-up is generated from its run directory, regenerates byte for
byte, and says when it was made on an environment other than the one the defaults give."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from baselines.training.strategy.experiment import METHODS, ExperimentConfig
from baselines.training.strategy.report import (
    README_BEGIN,
    README_END,
    WRITE_UP,
    readme_block,
    write_run,
    write_up,
)
from empa_env.versions import BENCHMARK_ID, BY_ID, TRAINING_ID

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "results" / "strategy_experiment"
REGENERATE = (
    "python -m baselines.training.strategy --out docs/results/strategy_experiment, then "
    "--write-up docs/results/strategy_experiment --readme README.md"
)


def _synthetic(per_turn_gap: float) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Results, curves and references of a made-up run: the per-turn estimators score
    ``per_turn_gap`` above the trajectory-level ones; content-blind share falls for MICA only."""
    rows, curve = [], []
    for method in ("base", *METHODS):
        for seed in (0, 1, 2):
            score = 40.0 + seed + (per_turn_gap if method in ("mica", "reinforce_pp_idr_batch")
                                   else 0.0)  # fmt: skip
            rows.append({"method": method, "seed": seed, "pass": 2 + seed, "score": score,
                         "turns": 30.0, "content_blind_share": 0.4, "seconds": 1.0,
                         "strategy_share": {"validate": 0.5, "clarify": 0.5}})  # fmt: skip
            if method == "base":
                continue
            for it in range(1, 11):
                curve.append({"method": method, "seed": seed, "iteration": it, "episodes": 12 * it,
                              "loss": 0.0, "grad_norm": 1.0 + (it % 2) * (0.5 if method == "mica"
                                                                            else 0.1),
                              "return": float(it), "turns": 16.0, "success_rate": 0.0,
                              "epm_index": 30.0,
                              "content_blind_share": 0.5 - (0.04 * it if method == "mica" else 0)})  # fmt: skip
    results = pd.DataFrame(rows)
    episode = {"case_id": "empa30-001", "opening": "Hi.", "outcome": "success", "success": True,
               "EPM_Index": 88.0, "turns": [{"strategy": "validate", "reply": "That hurts.",
                                             "user": "It does.", "reward": 1.5}]}  # fmt: skip
    results.attrs["transcripts"] = {f"{m}/{s}": [episode] for m in METHODS for s in (0, 1, 2)}
    references = pd.DataFrame([{"policy": "scripted:reflective", "pass": 30, "score": 91.0,
                                "turns": 21.0}])  # fmt: skip
    return results, pd.DataFrame(curve), references


@pytest.mark.parametrize(("gap", "verdict"), [(10.0, "**holds** here"), (0.0, "**does not hold**")])
def test_the_write_up_is_made_from_the_run_and_remade_byte_for_byte(tmp_path, gap, verdict):
    results, curves, references = _synthetic(gap)
    path = write_run(tmp_path, ExperimentConfig(seeds=(0, 1, 2)), results, curves, references, 12.3)
    first = path.read_text()
    per_turn = next(line for line in first.splitlines() if "Per-turn credit" in line)
    assert verdict in per_turn, per_turn
    assert "It fell for 1 of 6 methods" in first  # only MICA's content-blind share fell
    steadier = next(line for line in first.splitlines() if "gradient norm is steadier" in line)
    assert "mixed 0.21, group-level 0.05" in steadier and "**does not hold**" in steadier, steadier
    assert "**not met**" in first  # 4 passes at best against the scripted 30
    assert "#### empa30-001: EPM-Index 88.0, success" in first
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["environment"]["eval"]["env_id"] == BENCHMARK_ID
    assert config["environment"]["eval"]["digest"] == BY_ID[BENCHMARK_ID].digest
    for name in ("learning_curves.png", "gradient_norm.png", "table.md", "transcripts.json"):
        assert (tmp_path / name).stat().st_size > 0
    (tmp_path / WRITE_UP).unlink()
    assert write_up(tmp_path).read_text() == first


def test_the_committed_write_up_regenerates_byte_for_byte(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(COMMITTED, run)
    assert write_up(run).read_text() == (COMMITTED / WRITE_UP).read_text(), (
        f"the committed write-up was edited by hand or by older code: {REGENERATE}"
    )


def test_the_committed_write_up_was_made_on_the_current_default_environment():
    """A change of the default roles or reward bumps the id (tests/env/test_env_versions.py);
    then the write-up made under the old id is stale until the experiment runs again."""
    environment = json.loads((COMMITTED / "config.json").read_text())["environment"]
    for side, env_id in (("train", TRAINING_ID), ("eval", BENCHMARK_ID)):
        recorded = environment[side]
        assert (recorded["env_id"], recorded["digest"]) == (env_id, BY_ID[env_id].digest), (
            f"docs/results/strategy_experiment was made on {recorded['env_id']} "
            f"({recorded['digest']}); the default is now {env_id} ({BY_ID[env_id].digest}): "
            f"{REGENERATE}"
        )


def test_the_readme_quotes_the_committed_write_up_through_its_generated_block():
    readme = (ROOT / "README.md").read_text()
    start, end = readme.index(README_BEGIN), readme.index(README_END) + len(README_END)
    link = f"docs/results/strategy_experiment/{WRITE_UP}"
    assert readme[start:end] == readme_block(COMMITTED, link), REGENERATE


def test_the_timing_script_runs_the_documented_command():
    """``perf/perf_strategy_experiment.py`` times ``python -m COMMAND_MODULE``: that module must
    be runnable (it once named a module that had lost its ``__main__`` in a move, and timed a
    command that did nothing)."""
    import importlib.util
    import runpy

    script = runpy.run_path(str(ROOT / "perf" / "perf_strategy_experiment.py"), run_name="perf")
    module = script["COMMAND_MODULE"]
    assert importlib.util.find_spec(f"{module}.__main__") is not None, module
    committed = json.loads((COMMITTED / "config.json").read_text())["command"]
    assert committed.startswith(f"python -m {module} "), committed
