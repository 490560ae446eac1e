"""``empa train sft|rm|mica`` argument handling and short end-to-end runs on the tiny model."""

from __future__ import annotations

import argparse
import json

import pytest

from baselines.train_cli import _load_config, main, register


def _parser():
    parser = argparse.ArgumentParser(prog="empa")
    register(parser.add_subparsers(dest="command"))
    return parser


def test_register_adds_the_three_subcommands():
    parser = _parser()
    for sub in ("sft", "rm", "mica"):
        args = parser.parse_args(["train", sub])
        assert callable(args.func)
    args = parser.parse_args(["train", "mica", "--estimator", "grpo", "--alpha", "0.3"])
    assert args.estimator == "grpo" and args.alpha == 0.3
    with pytest.raises(SystemExit):
        parser.parse_args(["train", "mica", "--estimator", "nope"])
    assert parser.parse_args(["train"]).func(None) == 2


def test_config_file_is_overridden_by_flags(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("learning-rate: 0.5\nbatch_size: 7\n")
    assert _load_config(str(cfg)) == {"learning_rate": 0.5, "batch_size": 7}
    from baselines.train_cli import _merge

    parser = _parser()
    sub = (
        parser._subparsers._group_actions[0]
        .choices["train"]
        ._subparsers._group_actions[0]
        .choices["rm"]
    )
    args = parser.parse_args(["train", "rm", "--config", str(cfg), "--batch-size", "2"])
    merged = _merge(args, sub)
    assert merged["learning_rate"] == 0.5 and merged["batch_size"] == 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"nonsense": 1}))
    with pytest.raises(ValueError):
        _merge(parser.parse_args(["train", "rm", "--config", str(bad)]), sub)


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
