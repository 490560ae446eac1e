"""``empa train sft|rm|mica``: the trainers from the command line.

Each subcommand's flags are generated from its configuration dataclasses
(:class:`baselines.dataclass_cli.DataclassParser`, the ``HfArgumentParser`` pattern):

* ``sft``: :class:`~baselines.training.hf.sft.SFTRunConfig` (with its
  :class:`~baselines.training.hf.data.SFTFilter`) and :class:`SFTCommandOptions`;
* ``rm``: :class:`~baselines.training.hf.rm.RMRunConfig` and :class:`RMCommandOptions`;
* ``mica``: :class:`~baselines.training.mica.trainer.MICAConfig` (every ``TrainingArguments`` field too;
  ``--batch-size`` and ``--epochs`` are short for ``--per-device-train-batch-size`` and
  ``--num-train-epochs``; CPU by default, ``--use-cpu false`` allows an accelerator) and
  :class:`MICACommandOptions`;
* ``grpo-trl``: TRL's own ``GRPOConfig`` (every field; ``--num-generations`` is ``K``) and
  :class:`GRPOTRLCommandOptions`: stock ``trl.GRPOTrainer`` on EMPA episodes
  (:mod:`baselines.training.hf.grpo_trl`), through TRL's environment path
  (``environment_factory``: the policy speaks through a ``reply`` tool) when the model's chat
  template calls tools in a format TRL parses, else through the project's ``rollout_func``
  (plain replies); ``--rollout environment|loop`` chooses.

Every subcommand takes ``--config FILE`` (a YAML or JSON mapping of the same option names, with
dashes or underscores); a flag given on the command line wins over the file. ``empa train
SUBCOMMAND --help`` lists every option with its help and default. Models are ``tiny`` (built
offline), a local checkpoint directory or a Hugging Face id already in the local cache; nothing is
downloaded (the Hugging Face libraries are kept offline for the process).

    empa train sft  --trajectories runs.jsonl --success-only --output-dir runs/sft
    empa train sft  --trajectories RUN_DIR/episodes.jsonl   (empa export's lines, or RUN_DIR)
    empa train rm   --pairs pairs.jsonl --output-dir runs/rm
    empa train rm   --from-run RUN_DIR          (replies of several episodes at one context)
    empa train rm   --from-env EMPA-v14 --candidates 4 --num-cases 8
    empa train rm   --humanlike-corpus dialogues.jsonl --machine-utterances machine.txt
    empa train mica --model tiny --estimator mica --max-steps 20 \\
        --env-kwargs '{"max_turns": 6, "epm_overrides": {"min_turns": 3}}'
    empa train grpo-trl --model tiny --num-generations 4 --max-steps 20
    empa train grpo-trl --model tiny-tools --rollout environment --max-completion-length 384

(an episode cannot be shorter than ``min_turns``, 12 in the official preset, so a shorter
``max_turns`` needs a smaller ``min_turns`` too.)

Registered as an ``empa.commands`` entry point (``train = "baselines.train_cli:register"``). The
subcommands' parsers are built when one runs, so ``empa`` starts without importing the training
libraries.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baselines.dataclass_cli import DataclassParser
from baselines.training import use_offline_hub
from baselines.training.hf.tiny import MODEL_HELP, PRECISION_HELP
from empa_env.errors import UserError

#: What ``empa train`` needs beyond the base install (the ``train`` extra).
TRAIN_PACKAGES = ("torch", "transformers", "trl")
#: How they are installed (the README's words), said in one ``error:`` line when they are missing.
INSTALL_HINT = (
    "empa train needs the 'train' extra (torch, transformers, trl), which is not installed; "
    'install torch first, then the extra: pip install torch==2.13.0 && pip install -e ".[train]" '
    "(from PyPI: pip install 'empa-gym[train]')"
)


def missing_train_packages() -> list[str]:
    """The packages of the ``train`` extra that cannot be imported here."""
    return [name for name in TRAIN_PACKAGES if importlib.util.find_spec(name) is None]


def _read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


# --- the commands' own options ---------------------------------------------------------------
@dataclass
class SFTCommandOptions:
    """What ``empa train sft`` reads and writes besides the training configuration."""

    trajectories: str = field(
        metadata={
            "help": "JSONL of epm.Trajectory records or `empa export`'s episodes.jsonl, or a run "
            "directory"
        }
    )
    no_save: bool = field(default=False, metadata={"help": "do not write the trained model"})


@dataclass
class RMCommandOptions:
    """Where ``empa train rm`` takes its preference pairs (exactly one of four sources)."""

    pairs: str | None = field(
        default=None,
        metadata={"help": "JSONL rows with prompt/chosen/rejected (optional margin)"},
    )
    from_run: str | None = field(
        default=None,
        metadata={
            "help": "run directory (or its episodes.jsonl): replies of episodes that reached the "
            "same context, ranked by the Judger's recorded increment"
        },
    )
    from_env: str | None = field(
        default=None,
        metadata={
            "help": "Gymnasium id (e.g. EMPA-v14): play episodes, rank --candidates replies per "
            "turn by the Judger's increment on copies of the environment"
        },
    )
    candidates: int = field(
        default=4, metadata={"help": "candidate replies per turn with --from-env (>= 2)"}
    )
    candidate_policies: str = field(
        default="scripted:attuned,scripted:advice_giver,scripted:lecturer,scripted:random_mixer",
        metadata={"help": "comma-separated policy specs proposing the --from-env candidates"},
    )
    env_kwargs: dict[str, Any] | None = field(
        default=None,
        metadata={"help": "gymnasium.make keyword arguments for --from-env (JSON object)"},
    )
    num_cases: int = field(
        default=4, metadata={"help": "episodes (first N cases of the pool) with --from-env"}
    )
    pair_key: str = field(
        default="delta_E",
        metadata={"help": "the Judger's per-turn increment that ranks replies (run/env pairs)"},
    )
    with_margin: bool = field(
        default=False, metadata={"help": "add the score difference as each pair's margin"}
    )
    humanlike_corpus: str | None = field(
        default=None,
        metadata={"help": "JSONL of {'messages': [...]} human-written dialogues"},
    )
    machine_utterances: str | None = field(
        default=None,
        metadata={"help": "text file, one machine-written reply per line (humanlike pairs)"},
    )
    constructions: str = field(
        default="context_free,context_based,shuffled_context",
        metadata={"help": "comma-separated humanlike pair constructions to use"},
    )
    no_save: bool = field(default=False, metadata={"help": "do not write the trained model"})


@dataclass
class MICACommandOptions:
    """The policy ``empa train mica`` starts from, and what it plays and writes."""

    model: str = field(default="tiny", metadata={"help": MODEL_HELP})
    num_cases: int | None = field(
        default=None, metadata={"help": "train on the first N cases of the pool only"}
    )
    no_save: bool = field(default=False, metadata={"help": "do not write the trained model"})


@dataclass
class GRPOTRLCommandOptions:
    """The policy ``empa train grpo-trl`` starts from, the environment it plays, and the reply
    budget (``GRPOConfig``'s own sampling fields apply to every turn)."""

    model: str = field(default="tiny", metadata={"help": MODEL_HELP})
    env_id: str = field(default="EMPA-v14", metadata={"help": "Gymnasium id of the environment"})
    env_kwargs: dict[str, Any] | None = field(
        default=None, metadata={"help": "keyword arguments of gymnasium.make (JSON object)"}
    )
    num_cases: int | None = field(
        default=None, metadata={"help": "train on the first N cases of the pool only"}
    )
    turn_max_new_tokens: int = field(
        default=48, metadata={"help": "reply length cap per turn, in tokens"}
    )
    conversation_max_tokens: int = field(
        default=4096, metadata={"help": "token budget of a whole episode (prompt and replies)"}
    )
    epm_index_weight: float = field(
        default=0.0,
        metadata={"help": "weight of the EPM-Index reward next to the trajectory return (1)"},
    )
    precision: str = field(default="auto", metadata={"help": PRECISION_HELP})
    decoder: str = field(
        default="auto",
        metadata={
            "help": "rollout decoding: 'fast', 'plain' (model.generate) or 'auto' (fast on CUDA)"
        },
    )
    decode_compile: str = field(
        default="auto",
        metadata={
            "help": "fast decoder: static KV cache + torch.compile: 'auto' (CUDA), 'on', 'off'"
        },
    )
    rollout: str = field(
        default="auto",
        metadata={
            "help": "'environment': TRL's environment_factory (the policy speaks through a "
            "reply tool; its chat template must call tools in a format TRL parses); 'loop': the "
            "project's rollout_func (plain replies, any chat template; the --turn-max-new-tokens, "
            "--conversation-max-tokens, --decoder and --decode-compile options); 'auto': "
            "environment when the model can, else loop"
        },
    )
    no_save: bool = field(default=False, metadata={"help": "do not write the trained model"})

    def __post_init__(self) -> None:
        from baselines.training.hf.tiny import check_precision
        from baselines.training.mica.rollout import GenerationSettings

        check_precision(self.precision)
        GenerationSettings(decoder=self.decoder, compile=self.decode_compile)  # validates them
        if self.rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {ROLLOUTS}, got {self.rollout!r}")


#: ``empa train grpo-trl --rollout``'s choices.
ROLLOUTS = ("auto", "environment", "loop")


# --- parsers -----------------------------------------------------------------------------------
def sft_parser(prog: str = "empa train sft") -> DataclassParser:
    """The generated parser of ``empa train sft``."""
    from baselines.training.hf.sft import SFTRunConfig

    return DataclassParser(
        SFTRunConfig, SFTCommandOptions, prog=prog, description=COMMANDS["sft"].help
    )


def rm_parser(prog: str = "empa train rm") -> DataclassParser:
    """The generated parser of ``empa train rm``."""
    from baselines.training.hf.rm import RMRunConfig

    return DataclassParser(
        RMRunConfig, RMCommandOptions, prog=prog, description=COMMANDS["rm"].help
    )


#: ``empa train mica``'s defaults where they differ from ``MICAConfig``'s (the same as the other
#: subcommands'): the CPU unless told otherwise, one epoch of 4 cases per step, seed 0, runs/.
MICA_DEFAULTS: dict[str, Any] = {
    "output_dir": "runs/mica",
    "use_cpu": True,
    "per_device_train_batch_size": 4,
    "num_train_epochs": 1.0,
    "seed": 0,
}
MICA_ALIASES: dict[str, list[str]] = {
    "per_device_train_batch_size": ["--batch-size"],
    "num_train_epochs": ["--epochs"],
}


def mica_parser(prog: str = "empa train mica") -> DataclassParser:
    """The generated parser of ``empa train mica`` (imports the MICA trainer: needs torch)."""
    from baselines.training.mica.trainer import MICAConfig

    return DataclassParser(
        MICAConfig, MICACommandOptions, prog=prog, description=COMMANDS["mica"].help,
        defaults=MICA_DEFAULTS, aliases=MICA_ALIASES,
    )  # fmt: skip


#: ``empa train grpo-trl``'s defaults where they differ from ``GRPOConfig``'s: the CPU unless
#: told otherwise, 4 cases x K = 4 rollouts per step, no checkpointing or reporting, runs/.
GRPO_TRL_DEFAULTS: dict[str, Any] = {
    "output_dir": "runs/grpo-trl",
    "use_cpu": True,
    "per_device_train_batch_size": 4,
    "num_generations": 4,
    "num_train_epochs": 1.0,
    "seed": 0,
    "bf16": False,
    "report_to": "none",
    "logging_steps": 1,
    "save_strategy": "no",
    "learning_rate": 1e-6,
}


def grpo_trl_parser(prog: str = "empa train grpo-trl") -> DataclassParser:
    """The generated parser of ``empa train grpo-trl`` (imports TRL's GRPOConfig)."""
    from trl import GRPOConfig

    from baselines.training.hf.tiny import no_checkpointing

    return DataclassParser(
        GRPOConfig, GRPOTRLCommandOptions, prog=prog, description=COMMANDS["grpo-trl"].help,
        defaults={**GRPO_TRL_DEFAULTS, **no_checkpointing(GRPOConfig)}, aliases=MICA_ALIASES,
    )  # fmt: skip


# --- runs --------------------------------------------------------------------------------------
def _print_json(data: dict[str, Any]) -> None:
    print(json.dumps(data))


def run_sft(parser: DataclassParser, argv: Sequence[str]) -> int:
    """``empa train sft``: filter trajectories, fine-tune, save; prints a JSON summary."""
    from baselines.training.hf.data import read_trajectories
    from baselines.training.hf.sft import train_sft

    cfg, opts = parser.parse(argv)
    try:
        trajectories = read_trajectories(opts.trajectories)
    except (OSError, ValueError) as exc:
        parser.parser.error(f"--trajectories: {exc}")
    trainer = _with_model(parser, lambda: train_sft(trajectories, cfg, save=not opts.no_save))
    _print_json(
        {
            "train_loss": trainer.state.log_history[-1].get("train_loss"),
            "examples": len(trainer.train_dataset),
            "output_dir": cfg.output_dir,
        }
    )
    return 0


def _humanlike_rows(opts: RMCommandOptions, seed: int) -> list[dict[str, Any]]:
    from baselines.training.hf.data import (
        context_based_samples,
        context_free_samples,
        humanlike_pairs,
        shuffled_context_samples,
    )

    assert opts.humanlike_corpus is not None
    dialogues = [r["messages"] for r in _read_jsonl(opts.humanlike_corpus)]
    machine: list[str] = []
    if opts.machine_utterances:
        machine = [
            line.strip()
            for line in Path(opts.machine_utterances).read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
    rng = random.Random(seed)
    samples = []
    wanted = set(opts.constructions.split(","))
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


def _with_model(parser: DataclassParser, train: Callable[[], Any]) -> Any:
    """Run ``train``; a model that is neither tiny, a directory nor cached is a one-line error."""
    try:
        return train()
    except FileNotFoundError as exc:
        parser.parser.error(f"--model: {exc}")


def _run_rows(parser: DataclassParser, opts: RMCommandOptions) -> list[dict[str, Any]]:
    from baselines.training.hf.data import read_trajectories, run_preference_pairs

    assert opts.from_run is not None
    try:
        trajectories = read_trajectories(opts.from_run)
    except (OSError, ValueError) as exc:
        parser.parser.error(f"--from-run: {exc}")
    return run_preference_pairs(trajectories, key=opts.pair_key, with_margin=opts.with_margin)


def _env_rows(
    parser: DataclassParser, opts: RMCommandOptions, env_id: str, seed: int
) -> list[dict[str, Any]]:
    import gymnasium as gym

    import empa_env  # noqa: F401  (registers the environment ids)
    from baselines.training.mica.rollout import env_preference_pairs
    from empa_env.env import EMPAEnv
    from empa_env.policy import load_policy

    specs = [s.strip() for s in opts.candidate_policies.split(",") if s.strip()]
    if not 2 <= opts.candidates <= len(specs):
        parser.parser.error(
            f"--candidates must be between 2 and the {len(specs)} --candidate-policies"
        )
    try:
        policies = [load_policy(spec) for spec in specs[: opts.candidates]]
        env = gym.make(env_id, **(opts.env_kwargs or {}))
    except Exception as exc:  # a bad spec, id or keyword: one line
        parser.parser.error(f"--from-env/--candidate-policies/--env-kwargs: {exc}")
    inner = env.unwrapped
    if not isinstance(inner, EMPAEnv):  # pairs need the EMPA case pool and its judge
        env.close()
        parser.parser.error(
            f"--from-env {env_id}: not an EMPA environment ({type(inner).__name__})"
        )
    try:
        cases = [c.id for c in inner.cases][: opts.num_cases]
        return env_preference_pairs(
            env, cases, policies, key=opts.pair_key, seed=seed, with_margin=opts.with_margin
        )
    finally:
        env.close()


def run_rm(parser: DataclassParser, argv: Sequence[str]) -> int:
    """``empa train rm``: a Bradley-Terry reward model on pairs; prints a JSON summary."""
    from baselines.training.hf.rm import train_reward_model

    cfg, opts = parser.parse(argv)
    sources = [opts.pairs, opts.humanlike_corpus, opts.from_run, opts.from_env]
    if sum(bool(x) for x in sources) != 1:
        parser.parser.error(
            "give exactly one of --pairs, --humanlike-corpus, --from-run and --from-env"
        )
    if opts.pairs:
        rows = _read_jsonl(opts.pairs)
    elif opts.humanlike_corpus:
        rows = _humanlike_rows(opts, cfg.seed)
    elif opts.from_run:
        rows = _run_rows(parser, opts)
    else:
        assert opts.from_env is not None  # exactly one source, checked above
        rows = _env_rows(parser, opts, opts.from_env, cfg.seed)
    if not rows:
        parser.parser.error("no preference pairs (every context had a single distinct reply)")
    trainer = _with_model(parser, lambda: train_reward_model(rows, cfg, save=not opts.no_save))
    _print_json(
        {
            "train_loss": trainer.state.log_history[-1].get("train_loss"),
            "pairs": len(rows),
            "output_dir": cfg.output_dir,
        }
    )
    return 0


def run_mica(parser: DataclassParser, argv: Sequence[str]) -> int:
    """``empa train mica``: multi-turn RL in the environment; prints a JSON summary."""
    import gymnasium as gym

    import empa_env  # noqa: F401  (registers the environment ids)
    from baselines.training.hf.models import load_or_build
    from baselines.training.mica.trainer import MICATrainer, case_dataset, env_case_ids

    config, opts = parser.parse(argv)
    try:
        probe = gym.make(config.env_id, **(config.env_kwargs or {}))
    except (TypeError, ValueError) as exc:
        parser.parser.error(f"--env-id/--env-kwargs: {exc}")
    cases = env_case_ids(probe)
    probe.close()
    if opts.num_cases:
        cases = cases[: opts.num_cases]
    model, tokenizer = _with_model(
        parser,
        lambda: load_or_build(
            opts.model, "causal_lm", seed=config.seed, precision=config.precision
        ),
    )
    trainer = MICATrainer(model, config, case_dataset(cases), tokenizer)
    trainer.train()
    trainer.close()
    _finish(trainer, tokenizer, config.output_dir, save=not opts.no_save)
    return 0


def run_grpo_trl(parser: DataclassParser, argv: Sequence[str]) -> int:
    """``empa train grpo-trl``: stock TRL GRPOTrainer on EMPA episodes; prints a JSON summary."""
    import os

    import gymnasium as gym

    import empa_env  # noqa: F401  (registers the environment ids)
    from baselines.training.hf.grpo_trl import (
        empa_environment_grpo_trainer,
        empa_grpo_trainer,
        tool_calling_ready,
    )
    from baselines.training.hf.models import load_or_build
    from baselines.training.mica.trainer import env_case_ids

    config, opts = parser.parse(argv)
    # rollout_func and environment_factory are "experimental" in TRL
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    try:
        probe = gym.make(opts.env_id, **(opts.env_kwargs or {}))
    except (TypeError, ValueError) as exc:
        parser.parser.error(f"--env-id/--env-kwargs: {exc}")
    cases = env_case_ids(probe)[: opts.num_cases or None]
    probe.close()
    model, tokenizer = _with_model(
        parser,
        lambda: load_or_build(opts.model, "causal_lm", seed=config.seed, precision=opts.precision),
    )
    ready, why = tool_calling_ready(tokenizer)
    if opts.rollout == "environment" and not ready:
        parser.parser.error(f"--rollout environment: the model cannot play it: {why}")
    path = (
        "environment"
        if opts.rollout == "environment" or (opts.rollout == "auto" and ready)
        else "loop"
    )
    chosen = {"rollout": path, "rollout_reason": why}
    if path == "environment":
        trainer, _environments = empa_environment_grpo_trainer(
            model, tokenizer, config, cases, opts.env_id, opts.env_kwargs,
            epm_index_weight=opts.epm_index_weight, precision=opts.precision,
        )  # fmt: skip
        trainer.train()
    else:
        trainer, rollout = empa_grpo_trainer(
            model, tokenizer, config, cases, lambda: gym.make(opts.env_id, **(opts.env_kwargs or {})),
            max_new_tokens=opts.turn_max_new_tokens, max_prompt_length=opts.conversation_max_tokens,
            epm_index_weight=opts.epm_index_weight, precision=opts.precision,
            decoder=opts.decoder, decode_compile=opts.decode_compile,
        )  # fmt: skip
        trainer.train()
        rollout.close()
    _finish(trainer, tokenizer, config.output_dir, save=not opts.no_save, extra=chosen)
    return 0


def _finish(
    trainer: Any, tokenizer: Any, output_dir: str, save: bool, extra: dict[str, Any] | None = None
) -> None:
    """Save the model (every process takes part, as the Trainer requires) and, in the main
    process only, the tokenizer and the JSON summary of the last logged step."""
    if save:
        trainer.save_model(output_dir)
    if not trainer.is_world_process_zero():
        return
    if save:
        tokenizer.save_pretrained(output_dir)
    logged = [h for h in trainer.state.log_history if "loss" in h]
    summary = {
        k: v for k, v in (logged[-1] if logged else {}).items() if isinstance(v, (int, float))
    }
    _print_json(
        {"steps": trainer.state.global_step, **summary, **(extra or {}), "output_dir": output_dir}
    )


@dataclass(frozen=True)
class TrainCommand:
    """One ``empa train`` subcommand: its help, its generated parser, and the run."""

    help: str
    parser: Callable[[], DataclassParser]
    run: Callable[[DataclassParser, Sequence[str]], int]


COMMANDS: dict[str, TrainCommand] = {
    "sft": TrainCommand(
        "supervised fine-tuning on trajectories (assistant tokens only)", sft_parser, run_sft
    ),
    "rm": TrainCommand("reward model on preference pairs (Bradley-Terry)", rm_parser, run_rm),
    "mica": TrainCommand(
        "multi-turn RL in the EMPA environment (MICA and baselines)", mica_parser, run_mica
    ),
    "grpo-trl": TrainCommand(
        "stock TRL GRPOTrainer on EMPA episodes (trajectory reward: the GRPO baseline), through "
        "TRL's environment path where the model can call tools",
        grpo_trl_parser,
        run_grpo_trl,
    ),
}


def run_command(name: str, argv: Sequence[str]) -> int:
    """Run ``empa train NAME ARGV...``: a process start (Hugging Face kept offline), the
    ``train`` extra checked (one line and exit code 2 when it is missing), then the
    subcommand's generated parser and its run."""
    use_offline_hub()
    missing = missing_train_packages()
    if missing:  # --help too: the flags are generated from the trainers' own classes
        raise UserError(f"{INSTALL_HINT}; missing: {', '.join(missing)}")
    command = COMMANDS[name]
    return int(command.run(command.parser(), argv) or 0)


class _PassThrough(argparse.ArgumentParser):
    """A subcommand stub of the top-level ``empa`` parser that hands every argument on (its
    real, generated parser is built only when it runs)."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        namespace = namespace if namespace is not None else argparse.Namespace()
        for key, value in self._defaults.items():
            setattr(namespace, key, value)
        namespace.train_argv = list(args if args is not None else sys.argv[1:])
        return namespace, []


def register(subparsers: Any) -> None:
    """Add ``train`` with its ``sft``, ``rm``, ``mica`` and ``grpo-trl`` subcommands to the
    ``empa`` CLI."""
    train = subparsers.add_parser(
        "train",
        help="train policies and reward models (TRL)",
        description="Train policies and reward models. `empa train SUBCOMMAND --help` lists "
        "the options of each.",
    )
    sub = train.add_subparsers(
        dest="train_command", metavar="{" + ",".join(COMMANDS) + "}", parser_class=_PassThrough
    )
    train.set_defaults(func=lambda _args: (train.print_help(), 2)[1])
    for name, command in COMMANDS.items():
        stub = sub.add_parser(name, help=command.help, add_help=False)
        stub.set_defaults(func=lambda args, name=name: run_command(name, args.train_argv))


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone entry (``python -m baselines.train_cli sft ...``): ``empa train ...``, errors
    and all."""
    from empa_env.cli import main as empa

    return empa(["train", *(argv or [])])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
