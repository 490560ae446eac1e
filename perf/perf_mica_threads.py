"""Time a MICA optimiser step with 1 and 2 torch threads and with torch's default.

    python -m perf.perf_mica_threads                    # tiny Llama, EMPA-v14 (lexicon)
    python -m perf.perf_mica_threads --hidden 256 --layers 4 --steps 3

Each setting runs in a fresh process (``OMP_NUM_THREADS``/``MKL_NUM_THREADS`` removed from its
environment, so "default" is what torch picks on its own; ``1`` and ``2`` are
``MICAConfig.torch_threads``). A step is: roll out ``B x K`` whole episodes of the real
``EMPA-v14`` (offline actor/director, lexicon judger, ``max_turns`` 12) with the model, compute the
advantages, one backward over every turn, one optimiser update. One warm-up step is not timed.
Prints seconds per step (median and best) per setting, and the speed-up over the default.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

SETTINGS = ("1", "2", "default")


def time_steps(args: argparse.Namespace, threads: int) -> dict[str, float | int]:
    """Seconds per MICA step in this process, with ``torch_threads = threads`` (0: default)."""
    import gymnasium as gym
    import torch
    from transformers import TrainerCallback

    import empa_env  # noqa: F401  (registers EMPA-v14)
    from baselines.training.hf.tiny import TinyConfig, build_tiny_causal_lm
    from baselines.training.mica.trainer import MICAConfig, MICATrainer, case_dataset, env_case_ids

    cfg = TinyConfig(
        hidden_size=args.hidden, intermediate_size=2 * args.hidden, num_hidden_layers=args.layers
    )
    model, tokenizer = build_tiny_causal_lm(cfg=cfg, seed=0)
    marks: list[float] = []

    class Clock(TrainerCallback):
        def on_step_begin(self, *_a, **_k):
            marks.append(time.perf_counter())

        def on_train_end(self, *_a, **_k):
            marks.append(time.perf_counter())

    env_kwargs: dict[str, Any] = {"max_turns": 12, "judger": "lexicon"}
    probe = gym.make("EMPA-v14", **env_kwargs)
    cases = env_case_ids(probe)[: args.b * (args.steps + 1)]
    probe.close()
    with tempfile.TemporaryDirectory() as out:
        config = MICAConfig(
            output_dir=out, per_device_train_batch_size=args.b, num_rollouts=args.k,
            max_steps=args.steps + 1, max_new_tokens=args.max_new_tokens, use_cpu=True,
            env_kwargs=env_kwargs, torch_threads=threads, seed=0, disable_tqdm=True,
        )  # fmt: skip
        trainer = MICATrainer(model, config, case_dataset(cases), tokenizer, callbacks=[Clock()])
        trainer.train()
        trainer.close()
    per_step = [b - a for a, b in zip(marks[1:-1], marks[2:], strict=True)]  # drop the warm-up
    return {
        "threads": torch.get_num_threads(),
        "median_s": statistics.median(per_step),
        "best_s": min(per_step),
        "steps": len(per_step),
    }


def run_setting(setting: str, argv: Sequence[str]) -> dict[str, float | int]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    cmd = [sys.executable, "-m", "perf.perf_mica_threads", *argv, "--child", setting]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--b", type=int, default=1, help="cases per step (B)")
    parser.add_argument("--k", type=int, default=2, help="rollouts per case (K)")
    parser.add_argument("--steps", type=int, default=2, help="timed steps per setting")
    parser.add_argument("--hidden", type=int, default=64, help="hidden size of the tiny Llama")
    parser.add_argument("--layers", type=int, default=2, help="layers of the tiny Llama")
    parser.add_argument("--max-new-tokens", type=int, default=24, help="reply length cap")
    parser.add_argument("--child", choices=SETTINGS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        threads = 0 if args.child == "default" else int(args.child)
        print(json.dumps(time_steps(args, threads)))
        return 0
    passed = [a for a in (argv if argv is not None else sys.argv[1:])]
    print(
        f"MICA step, tiny Llama hidden {args.hidden} x {args.layers} layers, B={args.b} K={args.k},"
        f" EMPA-v14 max_turns 12 (lexicon judger), {os.cpu_count()} CPUs"
    )
    results = {s: run_setting(s, passed) for s in SETTINGS}
    base = results["default"]["median_s"]
    for setting, r in results.items():
        print(
            f"  torch threads {setting:>7} ({r['threads']}): median {r['median_s']:7.2f} s/step, "
            f"best {r['best_s']:7.2f} s  ({base / r['median_s']:.2f}x the default)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
