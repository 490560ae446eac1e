"""The stock-TRL path: TRL's own GRPOTrainer trains on EMPA episodes through a ``rollout_func``
(one whole episode per sample, the user's turns masked, the trajectory return as reward)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from baselines.training.hf.grpo_trl import (  # noqa: E402
    empa_grpo_trainer,
    episode_streams,
    trajectory_reward,
)
from baselines.training.mica.rollout import RolloutBatch, TurnSample  # noqa: E402

pytestmark = pytest.mark.train

ENV_KWARGS = {"max_turns": 3, "epm_overrides": {"min_turns": 2}}


def _sample(b, t, prompt, completion):
    return TurnSample(b, 0, t, prompt, completion, "", 0.0)


def test_an_episode_is_one_stream_with_the_users_turns_masked():
    batch = RolloutBatch(
        samples=[
            _sample(0, 0, [1, 2], [10, 11]),
            _sample(0, 1, [1, 2, 10, 11, 5, 6], [12]),
            _sample(1, 0, [3], [20]),
        ],
        rewards=np.zeros((2, 1, 2)),
        lengths=np.array([[2], [1]]),
        case_ids=["a", "b"],
    )
    prompts, completions, masks = episode_streams(batch)
    assert prompts == [[1, 2], [3]]
    assert completions == [[10, 11, 5, 6, 12], [20]]
    assert masks == [[1, 1, 0, 0, 1], [1]]
    batch.samples[1].prompt_ids = [2, 10, 11, 5, 6]  # left-truncated: not a continuation
    with pytest.raises(ValueError, match="max_prompt_length"):
        episode_streams(batch)


def test_the_reward_is_the_trajectory_return():
    assert trajectory_reward(["a", "b"], ["x", "y"], trajectory_return=[1.5, -2.0]) == [1.5, -2.0]


def test_the_reward_logs_the_episode_metrics_once_through_trls_hook():
    logged: list[tuple[str, float]] = []
    metrics = {"empa/turns": 2.5, "empa/success_rate": 0.5}
    rewards = trajectory_reward(
        ["a", "b"], ["x", "y"], trajectory_return=[1.0, 2.0], empa_metrics=[metrics, metrics],
        log_metric=lambda name, value: logged.append((name, value)),
    )  # fmt: skip
    assert rewards == [1.0, 2.0]
    assert logged == [("empa/turns", 2.5), ("empa/success_rate", 0.5)]  # once per generation


@pytest.mark.slow
def test_stock_grpo_trainer_trains_on_empa_episodes(tmp_path, tiny_tokenizer, monkeypatch):
    """~15 s. Two real GRPOTrainer steps on the tiny model in the offline EMPA-v14: K = 2 whole
    episodes per case, rewarded with their return, and the weights move."""
    import gymnasium as gym
    from trl import GRPOConfig

    import empa_env  # noqa: F401
    from baselines.training.hf.tiny import build_tiny_causal_lm, no_checkpointing
    from baselines.training.mica.trainer import env_case_ids

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    cases = env_case_ids(gym.make("EMPA-v14", **ENV_KWARGS))[:4]
    model, tok = build_tiny_causal_lm(tiny_tokenizer, seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    args = GRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=2, num_generations=2, max_steps=2,
        learning_rate=1e-2, use_cpu=True, bf16=False, report_to=[], logging_steps=1,
        save_strategy="no", seed=0, **no_checkpointing(GRPOConfig),
    )  # fmt: skip
    trainer, rollout = empa_grpo_trainer(
        model, tok, args, cases, lambda: gym.make("EMPA-v14", **ENV_KWARGS), max_new_tokens=6
    )
    assert trainer.rollout_func is rollout and type(trainer).__name__ == "GRPOTrainer"
    trainer.train()
    rollout.close()
    assert trainer.state.global_step == 2
    assert any(not torch_equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    batch = rollout.last_batch
    assert len(batch.case_ids) == 2 and batch.case_ids[0] == batch.case_ids[1]  # K = 2 of a case
    assert (batch.lengths >= 2).all()  # whole multi-turn episodes, not one reply
    logged = [h for h in trainer.state.log_history if "loss" in h]
    returns = batch.rewards.sum(-1)[:, 0]
    assert logged[-1]["rewards/trajectory_reward/mean"] == pytest.approx(returns.mean(), abs=1e-5)
    assert logged[-1]["reward"] == pytest.approx(returns.mean(), abs=1e-5)  # weight 1, EPM 0
    _, completions, masks = episode_streams(batch)
    model_tokens = sum(len(s.completion_ids) for s in batch.samples)
    assert sum(map(sum, masks)) == model_tokens < sum(map(len, completions))
    assert logged[-1]["completions/mean_length"] == pytest.approx(model_tokens / 2)
    # the rollouts' own metrics, through TRL's public log_metric hook (float32, as TRL logs)
    metrics = batch.metrics()
    empa = {k: v for k, v in logged[-1].items() if k.startswith("empa/")}
    assert set(empa) == {
        "empa/turns", "empa/success_rate", "empa/tokens/prompt_read", "empa/tokens/generated",
        "empa/tokens/prompt_read_per_turn", "empa/tokens/generated_per_turn",
    }  # fmt: skip
    for key, value in empa.items():
        assert value == pytest.approx(metrics[key.removeprefix("empa/")], rel=1e-6), key
    assert empa["empa/tokens/generated"] == model_tokens


def torch_equal(a, b):
    import torch

    return bool(torch.equal(a, b))


@pytest.mark.slow
def test_grpo_trl_from_the_command_line(tmp_path, capsys, monkeypatch):
    """~8 s. ``empa train grpo-trl`` (its docstring example, shortened) runs and summarises."""
    from baselines.train_cli import main

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")  # the command sets it when unset

    from .test_train_cli import _docstring_example

    argv = _docstring_example("grpo-trl")
    assert "--num-generations" in argv
    quick = ["--max-steps", "1", "--batch-size", "2", "--num-generations", "2", "--num-cases", "2"]
    quick += ["--turn-max-new-tokens", "4", "--env-kwargs", json.dumps(ENV_KWARGS)]
    assert main(["grpo-trl", *argv, *quick, "--output-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["steps"] == 1 and "rewards/trajectory_reward/mean" in out
    assert out["rollout"] == "loop"  # the tiny ChatML model cannot call tools: the project's loop
    assert out["empa/turns"] >= 2
    assert (tmp_path / "model.safetensors").exists()
