"""``empa train sft|rm|mica``: the trainers from the command line.

Every subcommand takes ``--config FILE`` (YAML or JSON mapping of the same option names, with
dashes or underscores) and flags that override it. Models are ``tiny`` (built offline) or a local
checkpoint directory; nothing is downloaded.

    empa train sft  --trajectories runs.jsonl --success-only --output-dir runs/sft
    empa train rm   --pairs pairs.jsonl --output-dir runs/rm
    empa train rm   --humanlike-corpus dialogues.jsonl --machine-utterances machine.txt
    empa train mica --model tiny --env-kwargs '{"max_turns": 6}' --estimator mica --max-steps 20

Registered as an ``empa.commands`` entry point (``train = "baselines.train_cli:register"``).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from baselines.advantages import ESTIMATORS


def _read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def _load_config(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    text = Path(path).read_text(encoding="utf-8")
    data = yaml.safe_load(text) if path.endswith((".yaml", ".yml")) else json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the config must be a mapping")
    return {k.replace("-", "_"): v for k, v in data.items()}


def _merge(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """Config file values, overridden by the flags the user actually gave."""
    merged = {k: v for k, v in vars(args).items() if k not in {"func", "command", "train_command"}}
    file_values = _load_config(getattr(args, "config", None))
    for key, value in file_values.items():
        if key not in merged:
            raise ValueError(f"unknown option {key!r} in {args.config}")
        if merged[key] == parser.get_default(key):
            merged[key] = value
    return merged


def _common(p: argparse.ArgumentParser, output_dir: str, lr: float) -> None:
    p.add_argument("--config", help="YAML/JSON file with any of these options")
    p.add_argument("--model", default="tiny", help="'tiny' or a local checkpoint directory")
    p.add_argument("--output-dir", default=output_dir)
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--max-steps", type=int, default=-1)
    p.add_argument("--learning-rate", type=float, default=lr)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-save", action="store_true", help="do not write the trained model")


# --- sft -------------------------------------------------------------------------------------
def _run_sft(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from baselines.training.data import SFTFilter
    from baselines.training.sft import SFTRunConfig, train_sft
    from epm.trajectory import Trajectory

    o = _merge(args, parser)
    if not o["trajectories"]:
        parser.error("--trajectories is required (JSONL, one epm.Trajectory per line)")
    trajectories = [Trajectory.from_dict(r) for r in _read_jsonl(o["trajectories"])]
    cfg = SFTRunConfig(
        model=o["model"], output_dir=o["output_dir"], epochs=o["epochs"],
        learning_rate=o["learning_rate"], batch_size=o["batch_size"], max_steps=o["max_steps"],
        seed=o["seed"], system_prompt=o["system_prompt"],
        filter=SFTFilter(o["success_only"], o["best_of_n"], o["min_epm_index"], o["preset"]),
        trainer_kwargs={"max_length": o["max_length"]},
    )  # fmt: skip
    trainer = train_sft(trajectories, cfg, save=not o["no_save"])
    print(
        json.dumps(
            {
                "train_loss": trainer.state.log_history[-1].get("train_loss"),
                "examples": len(trainer.train_dataset),
                "output_dir": cfg.output_dir,
            }
        )
    )
    return 0


# --- rm --------------------------------------------------------------------------------------
def _humanlike_rows(o: dict[str, Any]) -> list[dict[str, Any]]:
    from baselines.training.data import (
        context_based_samples,
        context_free_samples,
        humanlike_pairs,
        shuffled_context_samples,
    )

    dialogues = [r["messages"] for r in _read_jsonl(o["humanlike_corpus"])]
    machine: list[str] = []
    if o["machine_utterances"]:
        machine = [
            line.strip()
            for line in Path(o["machine_utterances"]).read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
    rng = random.Random(o["seed"])
    samples = []
    wanted = set(o["constructions"].split(","))
    if "context_free" in wanted:
        if not machine:
            raise SystemExit("context_free needs --machine-utterances")
        samples += context_free_samples(dialogues, machine)
    if "context_based" in wanted:
        if not machine:
            raise SystemExit(
                "context_based needs --machine-utterances (used as replacement replies)"
            )
        pool = list(machine)
        samples += context_based_samples(dialogues, lambda _ctx: rng.choice(pool), rng)
    if "shuffled_context" in wanted:
        samples += shuffled_context_samples(dialogues, rng)
    return humanlike_pairs(samples, rng)


def _run_rm(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from baselines.training.rm import RMRunConfig, train_reward_model

    o = _merge(args, parser)
    if bool(o["pairs"]) == bool(o["humanlike_corpus"]):
        parser.error("give exactly one of --pairs and --humanlike-corpus")
    rows = _read_jsonl(o["pairs"]) if o["pairs"] else _humanlike_rows(o)
    cfg = RMRunConfig(
        model=o["model"], output_dir=o["output_dir"], epochs=o["epochs"],
        learning_rate=o["learning_rate"], batch_size=o["batch_size"], max_steps=o["max_steps"],
        seed=o["seed"], trainer_kwargs={"max_length": o["max_length"]},
    )  # fmt: skip
    trainer = train_reward_model(rows, cfg, save=not o["no_save"])
    print(
        json.dumps(
            {
                "train_loss": trainer.state.log_history[-1].get("train_loss"),
                "pairs": len(rows),
                "output_dir": cfg.output_dir,
            }
        )
    )
    return 0


# --- mica ------------------------------------------------------------------------------------
def _run_mica(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    import gymnasium as gym

    import empa_env  # noqa: F401
    from baselines.training.mica import MICAConfig, MICATrainer, case_dataset, env_case_ids
    from baselines.training.tiny import load_or_build

    o = _merge(args, parser)
    env_kwargs = (
        json.loads(o["env_kwargs"]) if isinstance(o["env_kwargs"], str) else o["env_kwargs"]
    )
    model, tokenizer = load_or_build(o["model"], "causal_lm", seed=o["seed"])
    config = MICAConfig(
        output_dir=o["output_dir"], num_train_epochs=o["epochs"], max_steps=o["max_steps"],
        learning_rate=o["learning_rate"], per_device_train_batch_size=o["batch_size"],
        seed=o["seed"], use_cpu=not o["gpu"], estimator=o["estimator"], alpha=o["alpha"],
        gamma=o["gamma"], num_rollouts=o["num_rollouts"], env_id=o["env_id"],
        env_kwargs=env_kwargs or None, max_new_tokens=o["max_new_tokens"],
        max_prompt_length=o["max_prompt_length"], temperature=o["temperature"],
        num_iterations=o["num_iterations"], epsilon=o["epsilon"],
        save_strategy="steps" if o["save_steps"] else "no", save_steps=o["save_steps"] or 500,
    )  # fmt: skip
    probe = gym.make(o["env_id"], **(env_kwargs or {}))
    cases = env_case_ids(probe)[: o["num_cases"]] if o["num_cases"] else env_case_ids(probe)
    probe.close()
    trainer = MICATrainer(model, config, case_dataset(cases), tokenizer)
    trainer.train()
    trainer.close()
    if not o["no_save"]:
        trainer.save_model(o["output_dir"])
        tokenizer.save_pretrained(o["output_dir"])
    logged = [h for h in trainer.state.log_history if "loss" in h]
    summary = {
        k: v for k, v in (logged[-1] if logged else {}).items() if isinstance(v, (int, float))
    }
    print(
        json.dumps({"steps": trainer.state.global_step, **summary, "output_dir": o["output_dir"]})
    )
    return 0


def register(subparsers: Any) -> None:
    """Add ``train`` with its ``sft``, ``rm`` and ``mica`` subcommands to the ``empa`` CLI."""
    train = subparsers.add_parser("train", help="train policies and reward models (TRL)")
    sub = train.add_subparsers(dest="train_command", metavar="{sft,rm,mica}")
    train.set_defaults(func=lambda _args: (train.print_help(), 2)[1])

    sft = sub.add_parser(
        "sft", help="supervised fine-tuning on trajectories (assistant tokens only)"
    )
    _common(sft, "runs/sft", 5e-4)
    sft.add_argument("--trajectories", help="JSONL of epm.Trajectory records")
    sft.add_argument("--success-only", action="store_true")
    sft.add_argument("--best-of-n", type=int, default=None)
    sft.add_argument("--min-epm-index", type=float, default=None)
    sft.add_argument("--preset", default="official")
    sft.add_argument("--system-prompt", default=None)
    sft.add_argument("--max-length", type=int, default=1024)
    sft.set_defaults(func=lambda a: _run_sft(a, sft))

    rm = sub.add_parser("rm", help="reward model on preference pairs (Bradley-Terry)")
    _common(rm, "runs/rm", 5e-4)
    rm.add_argument("--pairs", help="JSONL rows with prompt/chosen/rejected (optional margin)")
    rm.add_argument(
        "--humanlike-corpus", help="JSONL of {'messages': [...]} human-written dialogues"
    )
    rm.add_argument("--machine-utterances", help="text file, one machine-written reply per line")
    rm.add_argument("--constructions", default="context_free,context_based,shuffled_context")
    rm.add_argument("--max-length", type=int, default=1024)
    rm.set_defaults(func=lambda a: _run_rm(a, rm))

    mica = sub.add_parser("mica", help="multi-turn RL in the EMPA environment (MICA and baselines)")
    _common(mica, "runs/mica", 1e-6)
    mica.add_argument("--estimator", default="mica", choices=sorted(ESTIMATORS))
    mica.add_argument("--alpha", type=float, default=0.5)
    mica.add_argument("--gamma", type=float, default=0.95)
    mica.add_argument("--num-rollouts", type=int, default=4, help="K")
    mica.add_argument("--env-id", default="EMPA-v0")
    mica.add_argument("--env-kwargs", default=None, help="JSON for gymnasium.make")
    mica.add_argument("--num-cases", type=int, default=None, help="use the first N cases only")
    mica.add_argument("--max-new-tokens", type=int, default=48)
    mica.add_argument("--max-prompt-length", type=int, default=512)
    mica.add_argument("--temperature", type=float, default=1.0)
    mica.add_argument("--num-iterations", type=int, default=1)
    mica.add_argument("--epsilon", type=float, default=0.2)
    mica.add_argument(
        "--save-steps", type=int, default=0, help="checkpoint every N steps (0: never)"
    )
    mica.add_argument("--gpu", action="store_true", help="allow an accelerator")
    mica.set_defaults(func=lambda a: _run_mica(a, mica))


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone entry (``python -m baselines.train_cli sft ...``)."""
    parser = argparse.ArgumentParser(prog="empa")
    subparsers = parser.add_subparsers(dest="command")
    register(subparsers)
    args = parser.parse_args(["train", *(argv or [])])
    return int(args.func(args) or 0)


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
