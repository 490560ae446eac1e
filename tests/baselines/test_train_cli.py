"""``empa train sft|rm|mica|grpo-trl`` argument handling and short end-to-end runs on the tiny model."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import subprocess
import sys
import typing

import pytest

from baselines.train_cli import main, register


def _parser():
    parser = argparse.ArgumentParser(prog="empa")
    register(parser.add_subparsers(dest="command"))
    return parser


def test_register_adds_the_four_subcommands():
    parser = _parser()
    for sub in ("sft", "rm", "mica", "grpo-trl"):
        args = parser.parse_args(["train", sub])
        assert callable(args.func) and args.train_argv == []
    args = parser.parse_args(["train", "mica", "--estimator", "grpo", "--help"])
    assert args.train_argv == ["--estimator", "grpo", "--help"]  # for the generated parser
    assert parser.parse_args(["train"]).func(None) == 2


def _dataclass_fields(cls):
    """Every init field of ``cls``, nested dataclasses flattened."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if dataclasses.is_dataclass(hints[f.name]):
            yield from _dataclass_fields(hints[f.name])
        else:
            yield f.name


def _check_generated(dp, skipped=()):
    names = [n for cls in dp.dataclass_types for n in _dataclass_fields(cls)]
    assert sorted(dp.skipped) == sorted(skipped)
    assert set(dp.options) == set(names) - set(skipped)
    flags = {a.dest: a for a in dp.parser._actions}
    for name in dp.options:
        assert f"--{name.replace('_', '-')}" in flags[name].option_strings
    for action in dp.parser._actions:  # help text on every flag, and --help renders
        assert action.help and action.help.strip(), action.option_strings
    assert "--config" in dp.parser.format_help()


def test_sft_and_rm_flags_come_from_every_dataclass_field():
    from baselines.train_cli import RMCommandOptions, SFTCommandOptions, rm_parser, sft_parser
    from baselines.training.hf.rm import RMRunConfig
    from baselines.training.hf.sft import SFTRunConfig

    sft = sft_parser()
    assert sft.dataclass_types == (SFTRunConfig, SFTCommandOptions)
    _check_generated(sft)
    assert {"success_only", "best_of_n", "min_epm_index", "preset"} <= set(sft.options)
    rm = rm_parser()
    assert rm.dataclass_types == (RMRunConfig, RMCommandOptions)
    _check_generated(rm)

    cfg, opts = sft.parse(
        ["--trajectories", "t.jsonl", "--success-only", "--best-of-n", "2",
         "--trainer-kwargs", '{"max_length": 256}', "--no-save", "false"]
    )  # fmt: skip
    assert cfg.filter.success_only and cfg.filter.best_of_n == 2
    assert cfg.trainer_kwargs == {"max_length": 256} and opts.no_save is False
    assert opts.trajectories == "t.jsonl"
    with pytest.raises(SystemExit):
        sft.parse([])  # --trajectories is required
    with pytest.raises(SystemExit):
        sft.parse(["--trajectories", "t", "--trainer-kwargs", "[1]"])


@pytest.mark.train
def test_mica_flags_come_from_every_dataclass_field():
    pytest.importorskip("trl")
    from baselines.train_cli import MICACommandOptions, mica_parser
    from baselines.training.mica.trainer import MICAConfig

    dp = mica_parser()
    assert dp.dataclass_types == (MICAConfig, MICACommandOptions)
    _check_generated(dp, skipped=["parallelism_config"])  # an object: Python only
    cfg, opts = dp.parse(
        ["--estimator", "grpo", "--alpha", "0.3", "--batch-size", "2", "--epochs", "3",
         "--env-kwargs", '{"max_turns": 6}', "--num-cases", "5", "--lr-scheduler-type", "cosine"]
    )  # fmt: skip
    assert (cfg.estimator, cfg.alpha, cfg.per_device_train_batch_size) == ("grpo", 0.3, 2)
    assert cfg.num_train_epochs == 3 and cfg.env_kwargs == {"max_turns": 6}
    assert cfg.use_cpu and cfg.output_dir == "runs/mica"  # the command's defaults
    assert cfg.seed == 0 and dp.parse([])[0].per_device_train_batch_size == 4
    assert opts.num_cases == 5 and opts.model == "tiny"
    with pytest.raises(SystemExit):
        dp.parse(["--estimator", "nope"])


@pytest.mark.train
def test_grpo_trl_flags_come_from_every_grpo_config_field():
    pytest.importorskip("trl")
    from trl import GRPOConfig

    from baselines.train_cli import GRPOTRLCommandOptions, grpo_trl_parser

    dp = grpo_trl_parser()
    assert dp.dataclass_types == (GRPOConfig, GRPOTRLCommandOptions)
    _check_generated(dp, skipped=["parallelism_config"])  # an object: Python only
    assert "num_generations" in dp.options and "turn_max_new_tokens" in dp.options
    cfg, opts = dp.parse(
        ["--num-generations", "2", "--batch-size", "2", "--beta", "0.1",
         "--env-kwargs", '{"max_turns": 6}', "--num-cases", "3", "--epm-index-weight", "0.5"]
    )  # fmt: skip
    assert (cfg.num_generations, cfg.per_device_train_batch_size, cfg.beta) == (2, 2, 0.1)
    assert cfg.use_cpu and cfg.output_dir == "runs/grpo-trl" and cfg.seed == 0
    assert opts.env_kwargs == {"max_turns": 6} and opts.num_cases == 3
    assert opts.epm_index_weight == 0.5 and opts.model == "tiny"


def test_config_file_never_overrides_an_explicit_flag(tmp_path):
    from baselines.train_cli import rm_parser, sft_parser

    cfg = tmp_path / "c.yaml"
    cfg.write_text("learning-rate: 5e-1\nbatch_size: 7\nmax-steps: 3\nno_save: true\n")
    dp = rm_parser()
    # --batch-size 4 is the default value, given explicitly: it wins over the file's 7
    values, explicit = dp.values(["--config", str(cfg), "--batch-size", "4", "--pairs", "p"])
    assert explicit == {"batch_size", "pairs"}
    run, opts = dp.build(values)
    assert run.batch_size == 4 and run.learning_rate == 0.5  # "5e-1" read as a float
    assert run.max_steps == 3 and opts.no_save is True and run.epochs == 1.0
    run, _ = dp.parse(["--config", str(cfg)])
    assert run.batch_size == 7
    run, _ = dp.parse(["--config", str(cfg), "--max-steps", "-1"])
    assert run.max_steps == -1

    nested = tmp_path / "sft.json"
    nested.write_text(json.dumps({"filter": {"success-only": True}, "trajectories": "t.jsonl"}))
    run, opts = sft_parser().parse(["--config", str(nested)])
    assert run.filter.success_only and opts.trajectories == "t.jsonl"
    run, _ = sft_parser().parse(["--config", str(nested), "--success-only", "false"])
    assert run.filter.success_only is False

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"nonsense": 1}))
    with pytest.raises(SystemExit):
        dp.parse(["--config", str(bad)])
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("batch_size: many\n")
    with pytest.raises(SystemExit):
        dp.parse(["--config", str(wrong)])


def test_missing_train_extra_prints_one_line_and_exits_2(monkeypatch, capsys):
    import baselines.train_cli as cli

    monkeypatch.setattr(cli, "missing_train_packages", lambda: ["trl"])
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    for sub in ("sft", "rm", "mica", "grpo-trl"):
        assert main([sub, "--help"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
        assert 'pip install -e ".[train]"' in err and "missing: trl" in err  # the README's words
    assert os.environ["HF_HUB_OFFLINE"] == "1"  # use_offline_hub() ran at the command's start


def test_train_help_on_the_base_install_says_how_to_install_in_one_error_line():
    """A process without torch, transformers and trl (as after `pip install -e .`)."""
    code = (
        "import sys; sys.modules.update(torch=None, transformers=None, trl=None); "
        "from empa_env.cli import main; raise SystemExit(main(sys.argv[1:]))"
    )
    for argv in (["train", "mica", "--help"], ["train", "sft", "--help"], ["train", "rm"]):
        done = subprocess.run(
            [sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 2, done.stderr
        err = done.stderr.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: empa train needs the 'train' extra")
        assert (
            'pip install -e ".[train]"' in err[0] and "missing: torch, transformers, trl" in err[0]
        )


def test_importing_the_cli_sets_no_environment_variables():
    code = (
        "import os; before = dict(os.environ); import baselines.train_cli, baselines.training; "
        "import baselines.training.hf.sft, baselines.training.mica.rollout; "
        "print(sorted(set(os.environ) - set(before)))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "[]"


def _docstring_example(command: str) -> list[str]:
    """The ``empa train COMMAND ...`` example of the module docstring, as argv."""
    import baselines.train_cli as cli

    text = cli.__doc__.replace("\\\n", " ")
    line = next(ln for ln in text.splitlines() if ln.strip().startswith(f"empa train {command}"))
    return shlex.split(line)[3:]


@pytest.mark.train
def test_the_docstring_mica_example_runs(tmp_path, capsys):
    pytest.importorskip("trl")
    argv = _docstring_example("mica")
    assert "--env-kwargs" in argv and "--max-steps" in argv
    quick = ["--max-steps", "1", "--batch-size", "1", "--num-rollouts", "2"]
    quick += ["--max-new-tokens", "4", "--num-cases", "1", "--no-save"]
    assert main(["mica", *argv, *quick, "--output-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["steps"] == 1 and out["turns"] >= 3  # min_turns 3 from the example


@pytest.mark.train
def test_sft_and_rm_from_the_command_line(tmp_path, make_trajectory, capsys):
    pytest.importorskip("trl")
    traj = tmp_path / "traj.jsonl"
    traj.write_text("\n".join(make_trajectory(c, 2, turns=3).to_json() for c in "ab") + "\n")
    sft_dir = str(tmp_path / "sft")
    argv = ["sft", "--trajectories", str(traj), "--max-steps", "2", "--batch-size", "2"]
    assert main([*argv, "--output-dir", sft_dir]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["examples"] == 2 and (tmp_path / "sft" / "model.safetensors").exists()

    corpus = tmp_path / "dialogues.jsonl"
    dialogues = [
        [
            {"role": "user", "content": f"user says {i}"},
            {"role": "assistant", "content": f"human reply {i}"},
        ]
        for i in range(4)
    ]
    corpus.write_text("\n".join(json.dumps({"messages": d}) for d in dialogues))
    machine = tmp_path / "machine.txt"
    machine.write_text("As an AI, I understand.\nI am here to help you.\n")
    argv = ["rm", "--humanlike-corpus", str(corpus), "--machine-utterances", str(machine)]
    assert main([*argv, "--max-steps", "2", "--no-save", "--output-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["pairs"] == 12  # 4 context-free + 4 context-based + 4 shuffled-context


@pytest.mark.train
def test_mica_from_the_command_line(tmp_path, capsys):
    pytest.importorskip("trl")
    pytest.importorskip("empa_env.env")
    env_kwargs = json.dumps({"max_turns": 2, "epm_overrides": {"min_turns": 1}})
    argv = ["mica", "--num-cases", "2", "--batch-size", "1", "--num-rollouts", "2"]
    argv += ["--max-steps", "1", "--max-new-tokens", "4", "--env-kwargs", env_kwargs]
    assert main([*argv, "--estimator", "grpo", "--output-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["steps"] == 1 and out["turns"] == 2.0 and "advantage_abs_mean" in out
    assert (tmp_path / "model.safetensors").exists()
