"""SFT, reward-model and MICA trainers on a tiny model built offline (CPU, a few steps each)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

import torch  # noqa: E402

from baselines.training.hf.data import sft_examples  # noqa: E402
from baselines.training.hf.rewards import SequenceScorer  # noqa: E402
from baselines.training.hf.rm import RMRunConfig, build_reward_trainer, pairwise_accuracy  # noqa: E402
from baselines.training.hf.sft import SFTRunConfig, build_sft_trainer  # noqa: E402
from baselines.training.hf.tiny import (  # noqa: E402
    build_tiny_causal_lm,
    build_tiny_reward_model,
    build_tokenizer,
)
from baselines.training.mica.rollout import GenerationSettings, play_episodes  # noqa: E402
from baselines.training.mica.trainer import (  # noqa: E402
    MICAConfig,
    MICATrainer,
    case_dataset,
    clipped_turn_loss,
    turn_tensors,
)

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer()


def _snapshot(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def _changed(model, before) -> int:
    return sum(not torch.equal(before[n], p) for n, p in model.named_parameters())


def test_tokenizer_chat_template_marks_only_assistant_tokens(tokenizer):
    msgs = [
        {"role": "system", "content": "be kind"},
        {"role": "user", "content": "I feel tired today."},
        {"role": "assistant", "content": "That sounds heavy."},
        {"role": "user", "content": "yes"},
    ]
    out = tokenizer.apply_chat_template(
        msgs, tokenize=True, return_dict=True, return_assistant_tokens_mask=True
    )
    kept = [i for i, m in zip(out["input_ids"], out["assistant_masks"], strict=True) if m]
    assert tokenizer.decode(kept) == "That sounds heavy.<|im_end|>"
    text = tokenizer.apply_chat_template(msgs[1:2], tokenize=False, add_generation_prompt=True)
    assert text.endswith("<|im_start|>assistant\n")
    ids = tokenizer("plain words, unseen: zqxj", add_special_tokens=False)["input_ids"]
    assert tokenizer.decode(ids) == "plain words, unseen: zqxj"  # byte-level: nothing is unknown


def test_sft_trains_on_assistant_tokens_only(tmp_path, tokenizer, make_trajectory):
    rows = sft_examples([make_trajectory("a", 2, turns=4), make_trajectory("b", 1, turns=4)])
    model, _ = build_tiny_causal_lm(tokenizer)
    before = _snapshot(model)
    cfg = SFTRunConfig(output_dir=str(tmp_path), max_steps=3, batch_size=2)
    trainer = build_sft_trainer(rows, cfg, model, tokenizer)
    batch = next(iter(trainer.get_train_dataloader()))
    for ids, labels in zip(batch["input_ids"], batch["labels"], strict=True):
        target = tokenizer.decode(
            [i for i, lab in zip(ids.tolist(), labels.tolist(), strict=True) if lab != -100]
        )
        assert "reply 1" in target and "user" not in target and "opening" not in target
    result = trainer.train()
    assert math.isfinite(result.training_loss)
    assert _changed(model, before) > 0


def test_reward_model_trains_and_scores(tmp_path, tokenizer):
    ctx = [{"role": "user", "content": "I failed my exam"}]
    pairs = [
        {"prompt": ctx, "chosen": [{"role": "assistant", "content": "That sounds painful."}],
         "rejected": [{"role": "assistant", "content": "Everything happens for a reason."}]}
    ] * 8  # fmt: skip
    model, _ = build_tiny_reward_model(tokenizer)
    before = _snapshot(model)
    trainer = build_reward_trainer(
        pairs, RMRunConfig(output_dir=str(tmp_path), max_steps=6, batch_size=4, learning_rate=3e-3),
        model, tokenizer,
    )  # fmt: skip
    result = trainer.train()
    assert math.isfinite(result.training_loss)
    assert _changed(model, before) > 0
    scorer = SequenceScorer(model, tokenizer)
    assert isinstance(scorer(ctx, "hello"), float)
    assert pairwise_accuracy(scorer, pairs[:1]) == 1.0  # the one pair it saw, learned
    assert 0.0 < scorer.human_probability()(ctx, "hi") < 1.0


# --- MICA ------------------------------------------------------------------------------------
def _mica(tokenizer, env_factory, tmp_path, **overrides):
    model, _ = build_tiny_causal_lm(tokenizer, seed=0)
    kwargs = dict(
        output_dir=str(tmp_path), per_device_train_batch_size=2, num_rollouts=2, max_steps=2,
        max_new_tokens=6, learning_rate=1e-2, use_cpu=True, seed=0, turn_batch_size=5,
    )  # fmt: skip
    kwargs.update(overrides)
    estimator = kwargs.pop("estimator_fn", None)
    args = MICAConfig(**kwargs)
    trainer = MICATrainer(
        model, args, case_dataset(["c0", "c1", "c2", "c3"]), tokenizer,
        env_factory=env_factory, estimator=estimator,
    )  # fmt: skip
    return model, trainer


def test_rollouts_record_whole_episodes(tokenizer, standin_env_factory):
    model, _ = build_tiny_causal_lm(tokenizer)
    envs = [standin_env_factory() for _ in range(4)]
    short = GenerationSettings(max_new_tokens=8)
    batch = play_episodes(model, tokenizer, envs, ["c0", "c1"], num_rollouts=2, settings=short)
    assert batch.rewards.shape == (2, 2, 3) and batch.lengths.tolist() == [[3, 3], [3, 3]]
    assert len(batch.samples) == 12
    for s in batch.samples:
        env = envs[s.case_index * 2 + s.rollout]
        assert env.trajectory.rewards[s.turn] == pytest.approx(s.reward)
        assert batch.rewards[s.case_index, s.rollout, s.turn] == pytest.approx(s.reward)
        assert tokenizer.decode(s.completion_ids, skip_special_tokens=True).strip() == s.reply
    assert set(batch.metrics()) >= {
        "reward",
        "episode_return",
        "turns",
        "success_rate",
        "epm_index",
    }


def test_turn_tensors_put_only_reply_tokens_in_the_loss(tokenizer, standin_env_factory):
    model, _ = build_tiny_causal_lm(tokenizer)
    envs = [standin_env_factory() for _ in range(2)]
    batch = play_episodes(
        model,
        tokenizer,
        envs,
        ["c0"],
        num_rollouts=2,
        settings=GenerationSettings(max_new_tokens=8),
    )
    adv = np.arange(6, dtype=float).reshape(1, 2, 3)
    tt = turn_tensors(batch, adv, tokenizer.pad_token_id)
    for i, s in enumerate(batch.samples):
        masked = tt.input_ids[i][tt.completion_mask[i].bool()].tolist()
        assert masked == s.completion_ids
        assert "user" not in tokenizer.decode(masked)
        assert tt.advantages[i] == adv[0, s.rollout, s.turn]


def test_clipped_turn_loss_matches_the_formula():
    logps = torch.log(torch.tensor([[0.5, 0.9], [0.5, 0.1]]))
    old = torch.log(torch.tensor([[0.25, 0.9], [0.5, 0.2]]))
    adv = torch.tensor([1.0, -1.0])
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    per_turn, clipped = clipped_turn_loss(logps, old, adv, mask, 0.2, 0.2)
    # turn 0: ratios 2 (clipped to 1.2 for A > 0) and 1 -> -(1.2 + 1) / 2; turn 1: ratio 1 -> 1
    assert per_turn.tolist() == pytest.approx([-1.1, 1.0])
    assert clipped.tolist() == [[True, False], [False, False]]


def test_mica_trainer_trains_the_tiny_model(tmp_path, tokenizer, standin_env_factory):
    model, trainer = _mica(tokenizer, standin_env_factory, tmp_path)
    before = _snapshot(model)
    result = trainer.train()
    assert math.isfinite(result.training_loss)
    assert _changed(model, before) > 0
    logged = [h for h in trainer.state.log_history if "loss" in h]
    assert len(logged) == 2 and all(math.isfinite(h["loss"]) for h in logged)
    assert logged[0]["advantage_abs_mean"] > 0 and "episode_return" in logged[0]


def test_zero_advantages_give_zero_gradient(tmp_path, tokenizer, standin_env_factory):
    zeros = lambda rewards, lengths, **_: np.zeros_like(rewards)  # noqa: E731
    model, trainer = _mica(tokenizer, standin_env_factory, tmp_path, estimator_fn=zeros)
    trainer.create_optimizer_and_scheduler(num_training_steps=1)
    model.zero_grad()
    loss = trainer.training_step(model, {"case": ["c0", "c1"]})
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    assert float(loss) == 0.0
    assert all(torch.count_nonzero(g) == 0 for g in grads)
    # ... and with the real estimator the same batch moves the parameters.
    model2, trainer2 = _mica(tokenizer, standin_env_factory, tmp_path)
    model2.zero_grad()
    trainer2.training_step(model2, {"case": ["c0", "c1"]})
    assert any(torch.count_nonzero(p.grad) > 0 for p in model2.parameters() if p.grad is not None)


def test_num_iterations_reuses_one_rollout_batch(tmp_path, tokenizer, standin_env_factory):
    model, trainer = _mica(tokenizer, standin_env_factory, tmp_path, num_iterations=2, max_steps=4)
    calls = []
    original = trainer.collect
    trainer.collect = lambda cases: calls.append(list(cases)) or original(cases)
    trainer.train()
    assert len(calls) == 2  # 4 updates, 2 rollout batches
    assert trainer._buffer.tensors.old_logps is not None


def test_mica_checkpoint_round_trip(tmp_path, tokenizer, standin_env_factory):
    model, trainer = _mica(
        tokenizer, standin_env_factory, tmp_path, save_strategy="steps", save_steps=2
    )
    trainer.train()
    ckpt = tmp_path / "checkpoint-2"
    assert (ckpt / "trainer_state.json").exists() and (ckpt / "model.safetensors").exists()


def test_mica_trainer_on_the_offline_env(tmp_path, tokenizer):
    """The real EMPA-v14 (offline roles), short episodes: end to end through gymnasium.make."""
    gym = pytest.importorskip("gymnasium")
    pytest.importorskip("empa_env.env")
    from baselines.training.mica.trainer import env_case_ids

    env_kwargs = {"max_turns": 3, "epm_overrides": {"min_turns": 2}}
    cases = env_case_ids(gym.make("EMPA-v14"))[:2]
    model, _ = build_tiny_causal_lm(tokenizer, seed=1)
    before = _snapshot(model)
    args = MICAConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=1, num_rollouts=2, max_steps=2,
        max_new_tokens=8, learning_rate=1e-2, use_cpu=True, env_kwargs=env_kwargs, seed=0,
    )  # fmt: skip
    trainer = MICATrainer(model, args, case_dataset(cases), tokenizer)
    result = trainer.train()
    trainer.close()
    assert math.isfinite(result.training_loss) and _changed(model, before) > 0
    batch = trainer.last_rollouts
    assert batch.lengths.max() <= 3 and batch.rewards.shape[:2] == (1, 2)
    for row in batch.episodes:
        for epm in row:
            assert "EPM_Index" in epm


def test_reward_functions_plug_into_trl_grpo(tmp_path, tokenizer):
    """Echo-N1's rewards in TRL's reward_funcs signature, driving TRL's own GRPOTrainer."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from baselines.training.hf.rewards import (
        EmpathyReward,
        HumanlikeReward,
        TotalReward,
        bradley_terry,
    )

    topics = ["work", "home", "school", "love"]
    dataset = Dataset.from_list(
        [
            {"prompt": [{"role": "user", "content": f"I feel sad about {w}"}], "reference": "Hard."}
            for w in topics
        ]
    )
    empathy = EmpathyReward(bradley_terry(lambda c, r: float(len(r) % 7)), mode="continuous")
    humanlike = HumanlikeReward(lambda c, r: 0.9 if len(r) % 2 else 0.2)
    model, _ = build_tiny_causal_lm(tokenizer)
    args = GRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=4, num_generations=4,
        max_completion_length=8, max_steps=1, use_cpu=True, bf16=False, report_to="none",
        logging_steps=1, activation_checkpointing=False, save_strategy="no",
    )  # fmt: skip
    trainer = GRPOTrainer(
        model=model, reward_funcs=[empathy, humanlike, TotalReward([empathy, humanlike])],
        args=args, train_dataset=dataset, processing_class=tokenizer,
    )  # fmt: skip
    trainer.train()
    logged = trainer.state.log_history[0]
    for name in ("empathy", "humanlike", "total"):
        assert f"rewards/{name}/mean" in logged
    total, parts = (
        logged["rewards/total/mean"],
        logged["rewards/empathy/mean"] + logged["rewards/humanlike/mean"],
    )
    assert total == pytest.approx(parts, abs=1e-5)
