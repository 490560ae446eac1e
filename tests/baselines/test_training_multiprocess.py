"""Several processes: the gathered (batch-wide) advantages, the reduced metrics, and a real
``accelerate launch`` of MICA in 2 CPU processes (gloo, DDP)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from baselines.advantages import AdvantageConfig, estimators, is_batch_wide, mica_advantages
from baselines.training.mica.distributed import (
    gathered_advantages,
    reduce_metrics,
    rollout_seed,
)

ROOT = Path(__file__).resolve().parents[2]


def _batch(rng: np.random.Generator, cases: int, k: int, t_max: int):
    lengths = rng.integers(1, t_max + 1, size=(cases, k))
    rewards = rng.normal(size=(cases, k, t_max)) * (np.arange(t_max) < lengths[..., None])
    return rewards, lengths


def _two_processes(parts):
    """What ``gathered_advantages`` computes in each of ``len(parts)`` processes, with a gather
    that hands every process all the parts (as ``gather_object`` does)."""
    every = [(r, lg) for r, lg in parts]
    return lambda config, rank: gathered_advantages(
        config, *parts[rank], gather=lambda items: list(every), process_index=rank
    )


@pytest.mark.parametrize("estimator", estimators.names())
def test_each_process_gets_the_union_computation(estimator):
    """Two processes with different local batches (sizes and lengths) get exactly the rows of the
    single-process computation over the union; batch-wide estimators differ from a local one."""
    rng = np.random.default_rng(3)
    parts = [_batch(rng, 2, 3, 5), _batch(rng, 3, 3, 7)]
    config = AdvantageConfig(estimator)
    union_rewards = np.concatenate([np.pad(parts[0][0], ((0, 0), (0, 0), (0, 2))), parts[1][0]])
    union = config(union_rewards, np.concatenate([parts[0][1], parts[1][1]]))
    run = _two_processes(parts)
    np.testing.assert_allclose(run(config, 0), union[:2, :, :5], atol=1e-12)
    np.testing.assert_allclose(run(config, 1), union[2:], atol=1e-12)
    local = config(*parts[0])
    if is_batch_wide(estimator):
        assert not np.allclose(local, union[:2, :, :5])
    else:  # per case: the other process's cases change nothing
        np.testing.assert_allclose(local, union[:2, :, :5], atol=1e-12)


def test_metrics_are_means_over_every_value_of_every_process():
    gathered = [{"reward": (3.0, 2), "kl": (1.0, 1)}, {"reward": (6.0, 1)}]
    assert reduce_metrics({"reward": [1.0, 2.0]}, gather=lambda items: gathered) == {
        "kl": 1.0,
        "reward": 3.0,
    }
    assert reduce_metrics({"reward": [1.0, 2.0], "empty": []}) == {"reward": 1.5}


def test_rollout_seeds_differ_per_process_and_step():
    seeds = {rollout_seed(0, step, rank) for step in range(50) for rank in range(4)}
    assert len(seeds) == 200
    assert rollout_seed(7, 3) == 7 * 1_000_003 + 3  # one process: the old value


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- the real thing: accelerate launch, 2 processes ---------------------------------------------
@pytest.fixture(scope="module")
def two_process_run(tmp_path_factory):
    pytest.importorskip("trl")
    accelerate = shutil.which("accelerate", path=str(Path(sys.executable).parent))
    if accelerate is None:
        pytest.skip("accelerate's launcher is not installed")
    out = tmp_path_factory.mktemp("two_process")
    env = {
        **os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT),
        "OMP_NUM_THREADS": "1",
    }  # fmt: skip
    # --multi_gpu is accelerate's torchrun launcher; without a GPU each process runs on the CPU
    # with the gloo backend (--cpu alone would start a single process).
    done = subprocess.run(
        [
            accelerate, "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
            "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(_free_port()),
            str(Path(__file__).with_name("two_process_mica.py")), str(out),
        ],
        env=env, capture_output=True, text=True, timeout=300,  # a collective mismatch hangs
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]


@pytest.mark.slow
@pytest.mark.train
def test_two_processes_train_mica_on_distinct_episodes(two_process_run):
    """~35 s. Two gloo processes under DDP: each plays its own cases (no episode twice), trains,
    and ends with the same weights; generation runs on the model unwrapped from DDP."""
    ranks = two_process_run
    assert [r["world_size"] for r in ranks] == [2, 2]
    assert {r["backend"] for r in ranks} == {"gloo"}
    for r in ranks:
        assert {tuple(x) for x in r["generated_on"]} == {
            ("DistributedDataParallel", "LlamaForCausalLM")
        }
    mica = [[g for g in r["generations"] if g["estimator"] == "mica"] for r in ranks]
    assert len(mica[0]) == len(mica[1]) == 2  # one generation per step
    for step in range(2):
        assert not set(mica[0][step]["cases"]) & set(mica[1][step]["cases"])
    assert ranks[0]["weight_sums"] == ranks[1]["weight_sums"]  # DDP kept them in sync
    for r in ranks:  # trained: the weights moved
        assert r["weight_sums"][0] != pytest.approx(r["initial_weight_sums"][0], abs=1e-6)
    for r in ranks:  # MICA per case, computed locally
        for g in r["generations"][:2]:
            expected = mica_advantages(np.array(g["rewards"]), np.array(g["lengths"]))
            np.testing.assert_allclose(np.array(g["advantages"]), expected, atol=1e-9)


@pytest.mark.slow
@pytest.mark.train
def test_two_processes_normalise_reinforce_pp_over_the_global_batch(two_process_run):
    """REINFORCE++ IDR-Batch: each process's advantages are its rows of the computation over
    both processes' episodes (not of its own batch alone)."""
    gens = [
        next(g for g in r["generations"] if g["estimator"] == "reinforce_pp_idr_batch")
        for r in two_process_run
    ]
    rewards = [np.array(g["rewards"]) for g in gens]
    t_max = max(r.shape[2] for r in rewards)
    union_rewards = np.concatenate(
        [np.pad(r, ((0, 0), (0, 0), (0, t_max - r.shape[2]))) for r in rewards]
    )
    union = estimators.get("reinforce_pp_idr_batch")(
        union_rewards, np.concatenate([np.array(g["lengths"]) for g in gens])
    )
    start = 0
    for g, r in zip(gens, rewards, strict=True):
        got = np.array(g["advantages"])
        np.testing.assert_allclose(
            got, union[start : start + r.shape[0], :, : r.shape[2]], atol=1e-9
        )
        local = estimators.get("reinforce_pp_idr_batch")(r, np.array(g["lengths"]))
        assert not np.allclose(got, local)
        start += r.shape[0]


@pytest.mark.slow
@pytest.mark.train
def test_two_processes_log_metrics_reduced_across_processes(two_process_run):
    """Both processes log the same numbers, and the mean IDR is the mean over both batches."""
    logs = [[h for h in r["logs"][0] if "loss" in h] for r in two_process_run]
    assert logs[0] == logs[1] and len(logs[0]) == 2
    mica = [[g for g in r["generations"] if g["estimator"] == "mica"] for r in two_process_run]
    for step, row in enumerate(h for h in logs[0] if "loss" in h):
        means = []
        for per_rank in mica:
            g = per_rank[step]
            rewards, lengths = np.array(g["rewards"]), np.array(g["lengths"])
            means.append(rewards[np.arange(rewards.shape[2]) < lengths[..., None]].mean())
        assert row["reward"] == pytest.approx(np.mean(means), abs=1e-9)
