"""Run by ``accelerate launch --cpu --num_processes 2`` from test_training_multiprocess.py.

Trains MICA on a tiny model in the real offline EMPA-v14 for a few steps, then one step with the
batch-wide REINFORCE++ IDR-Batch estimator, and writes what each process saw to
``OUT/rank{N}.json``: its cases and seeds, the rewards, lengths and advantages of every
generation, the logged metrics, a fingerprint of the weights, and which model type generation
ran on.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

import gymnasium as gym
import torch

import empa_env  # noqa: F401  (registers EMPA-v14)
from baselines.training import use_offline_hub
from baselines.training.hf.tiny import build_tiny_causal_lm
from baselines.training.mica.trainer import MICAConfig, MICATrainer, case_dataset, env_case_ids

#: ``generated:0:8``: the first 8 cases of the default generated pool (the same cases, without
#: generating the other 592 in each process).
ENV_KWARGS = {"max_turns": 3, "epm_overrides": {"min_turns": 2}, "case_pool": "generated:0:8"}


def _rank() -> int:
    """This process's rank (torchrun's ``RANK``): the processes chunk their turns differently
    (2 vs 6 turns per backward), so they run different numbers of forwards and backwards, as
    processes whose episodes have different lengths do."""
    return int(os.environ.get("RANK", "0"))


def _weight_sum(model: torch.nn.Module) -> float:
    return float(sum(p.detach().double().sum() for p in model.parameters()))


def main(out: Path) -> None:
    use_offline_hub()
    cases = env_case_ids(gym.make("EMPA-v14", **ENV_KWARGS))[:8]
    record: dict[str, list] = {"generations": [], "logs": [], "generated_on": []}
    for estimator, steps in (("mica", 2), ("reinforce_pp_idr_batch", 1)):
        model, tokenizer = build_tiny_causal_lm(seed=0)
        args = MICAConfig(
            output_dir=str(out / estimator), estimator=estimator, per_device_train_batch_size=1,
            num_rollouts=2, max_steps=steps, max_new_tokens=4, learning_rate=1e-2, use_cpu=True,
            seed=0, env_kwargs=ENV_KWARGS, turn_batch_size=2 + 4 * _rank(),
        )  # fmt: skip
        record.setdefault("initial_weight_sums", []).append(_weight_sum(model))
        trainer = MICATrainer(model, args, case_dataset(cases), tokenizer)
        original_collect, original_unwrap = trainer.collect, trainer.unwrapped_for_generation

        def collect(case_ids, _estimator=estimator, _collect=original_collect, _t=trainer):
            tensors, batch = _collect(case_ids)
            record["generations"].append(
                {
                    "estimator": _estimator,
                    "cases": list(case_ids),
                    "rewards": batch.rewards.tolist(),
                    "lengths": batch.lengths.tolist(),
                    "advantages": _t.last_advantages.tolist(),
                    "replies": [s.reply for s in batch.samples],
                }
            )
            return tensors, batch

        @contextlib.contextmanager
        def unwrapped(_unwrap=original_unwrap, _t=trainer):
            with _unwrap() as model:
                record["generated_on"].append(
                    [type(_t.model_wrapped).__name__, type(model).__name__]
                )
                yield model

        trainer.collect = collect
        trainer.unwrapped_for_generation = unwrapped
        trainer.train()
        trainer.close()
        record["logs"].append(
            [h for h in trainer.state.log_history if "loss" in h or "train_loss" in h]
        )
        record.setdefault("weight_sums", []).append(_weight_sum(trainer.model))
    rank = trainer.accelerator.process_index
    record["world_size"] = trainer.accelerator.num_processes
    record["backend"] = (
        str(torch.distributed.get_backend()) if torch.distributed.is_initialized() else ""
    )
    (out / f"rank{rank}.json").write_text(json.dumps(record))
    # Both processes leave together and take the process group down before the interpreter
    # exits: a gloo group left alive ends one process with "terminate called without an active
    # exception" (SIGABRT) at exit, now and then, after the work is done.
    trainer.accelerator.wait_for_everyone()
    trainer.accelerator.end_training()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
    # Taking the group down (above) did not always stop the abort: a thread of torch's gloo
    # backend can still be joinable when the interpreter tears down (seen again in a clean-clone
    # run, after both ranks had written their records). The records are written and closed; leave
    # without the teardown, with the exit status the work earned.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
