"""MICA trainer options: generation per ``steps_per_generation`` (so ``num_iterations`` survives
gradient accumulation), loss types, the KL to a reference, truncated replies, torch threads."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

import torch  # noqa: E402

from baselines.training.hf.tiny import build_tiny_causal_lm, build_tokenizer  # noqa: E402
from baselines.training.mica.losses import loss_types  # noqa: E402
from baselines.training.mica.rollout import RolloutBatch, TurnSample  # noqa: E402
from baselines.training.mica.trainer import (  # noqa: E402
    MICAConfig,
    MICATrainer,
    case_dataset,
    loss_denominator,
    per_token_logps,
    policy_loss,
    policy_loss_terms,
    turn_tensors,
)

#: The loss types shipped with the trainer (a test may register more).
BUILTIN_LOSS_TYPES = ("grpo", "dapo", "dr_grpo", "mica_seq")


def test_the_builtin_loss_types_are_registered():
    assert set(BUILTIN_LOSS_TYPES) <= set(loss_types.names())
    with pytest.raises(ValueError, match="unknown loss_type 'nope'; choose one of"):
        MICAConfig(output_dir="unused", loss_type="nope")


pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer()


def _mica(tokenizer, env_factory, tmp_path, **overrides):
    model, _ = build_tiny_causal_lm(tokenizer, seed=0)
    kwargs = dict(
        output_dir=str(tmp_path), per_device_train_batch_size=1, num_rollouts=2, max_steps=2,
        max_new_tokens=6, learning_rate=1e-2, use_cpu=True, seed=0, turn_batch_size=8,
    )  # fmt: skip
    kwargs.update(overrides)
    trainer = MICATrainer(
        model, MICAConfig(**kwargs), case_dataset(["c0", "c1", "c2", "c3"]), tokenizer,
        env_factory=env_factory,
    )  # fmt: skip
    return model, trainer


# --- generation per steps_per_generation --------------------------------------------------------
def test_second_pass_comes_after_an_optimiser_step(tmp_path, tokenizer, standin_env_factory):
    """Accumulation 2 x num_iterations 2: one generation, its second pass after the step."""
    _, trainer = _mica(
        tokenizer, standin_env_factory, tmp_path, gradient_accumulation_steps=2,
        num_iterations=2,
    )  # fmt: skip
    assert trainer.args.steps_per_generation == 2  # defaults to the accumulation
    calls = []
    original = trainer.collect
    trainer.collect = lambda cases: calls.append(list(cases)) or original(cases)
    trainer.train()
    assert len(calls) == 1 and len(calls[0]) == 2  # B * steps_per_generation cases, once
    passes = [(row["step"], row["pass"], row["ratio_dev"]) for row in trainer.pass_log]
    assert [p[:2] for p in passes] == [(0, 0), (0, 0), (1, 1), (1, 1)]
    assert all(dev < 1e-5 for _, p, dev in passes if p == 0)  # on-policy: ratio 1
    assert all(dev > 1e-4 for _, p, dev in passes if p == 1)  # after the update: ratio != 1
    logged = [h for h in trainer.state.log_history if "loss" in h]
    assert logged[0]["ratio_dev"] < 1e-5 < logged[1]["ratio_dev"]


def test_one_step_per_generation_reproduces_the_cancelled_update(
    tmp_path, tokenizer, standin_env_factory
):
    """The old behaviour, still reachable: steps_per_generation 1 puts both passes of a
    generation into the same accumulation window, where the ratio is 1."""
    _, trainer = _mica(
        tokenizer, standin_env_factory, tmp_path, gradient_accumulation_steps=2,
        num_iterations=2, steps_per_generation=1, max_steps=1,
    )  # fmt: skip
    trainer.train()
    assert [row["pass"] for row in trainer.pass_log] == [0, 1]
    assert all(row["ratio_dev"] < 1e-5 for row in trainer.pass_log)


def test_slices_cover_the_generation_once(tmp_path, tokenizer, standin_env_factory):
    _, trainer = _mica(
        tokenizer, standin_env_factory, tmp_path, steps_per_generation=2, max_steps=2
    )
    trainer.train()
    gen = trainer._buffer
    assert len(gen.slices) == 2 and sum(len(s) for s in gen.slices) == gen.turns
    # accumulation 1 < steps_per_generation: the second slice comes after a step -> old log-probs
    assert gen.tensors.old_logps is not None


# --- loss types -------------------------------------------------------------------------------
def _hand_batch():
    """Two turns at ratio 1: turn 0 (A = +1) has 1 reply token, turn 1 (A = -1) has 3."""
    logps = torch.log(torch.full((2, 4), 0.5)).requires_grad_()
    mask = torch.tensor([[1.0, 0, 0, 0], [1, 1, 1, 0]])
    adv = torch.tensor([1.0, -1.0])
    return logps, mask, adv


def test_loss_types_normalise_as_documented():
    logps, mask, adv = _hand_batch()
    old = logps.detach()
    values = {
        t: float(policy_loss(logps, old, adv, mask, t, max_new_tokens=4).detach())
        for t in BUILTIN_LOSS_TYPES
    }
    # per-token loss is -A at ratio 1
    assert values["grpo"] == pytest.approx((-1 + 1) / 2)  # mean of per-turn means
    assert values["dapo"] == pytest.approx((-1 + 3) / 4)  # over the 4 reply tokens
    assert values["dr_grpo"] == pytest.approx((-1 + 3) / (2 * 4))  # over turns x max_new_tokens
    assert values["mica_seq"] == pytest.approx((-1 + 1) / 2)  # per-turn -A, mean over turns
    assert loss_denominator("dapo", 2, 4, 4) == 4 and loss_denominator("grpo", 2, 4, 4) == 2


def test_mica_seq_gradient_is_the_summed_log_prob():
    """On-policy, mica_seq's gradient is that of -(1/N) sum_t A_t sum_tokens log pi: every reply
    token of turn t gets -A_t / N; grpo divides it by the reply's length too."""
    grads = {}
    for loss_type in ("mica_seq", "grpo"):
        logps, mask, adv = _hand_batch()
        policy_loss(logps, logps.detach(), adv, mask, loss_type).backward()
        grads[loss_type] = logps.grad
    expected_seq = torch.tensor([[-0.5, 0, 0, 0], [0.5, 0.5, 0.5, 0]])
    assert torch.allclose(grads["mica_seq"], expected_seq)
    expected_grpo = torch.tensor([[-0.5, 0, 0, 0], [0.5 / 3, 0.5 / 3, 0.5 / 3, 0]])
    assert torch.allclose(grads["grpo"], expected_grpo)


def test_mica_seq_clips_the_sequence_ratio():
    logps = torch.log(torch.tensor([[0.6, 0.6]]))
    old = torch.log(torch.tensor([[0.5, 0.5]]))  # sequence ratio 1.44 > 1.2
    terms = policy_loss_terms(logps, old, torch.tensor([1.0]), torch.ones(1, 2), "mica_seq")
    assert float(terms.numerator) == pytest.approx(-1.2)
    assert bool(terms.clipped.all())


@pytest.mark.parametrize("loss_type", BUILTIN_LOSS_TYPES)
def test_each_loss_type_trains(tmp_path, tokenizer, standin_env_factory, loss_type):
    model, trainer = _mica(tokenizer, standin_env_factory, tmp_path, loss_type=loss_type)
    before = [p.detach().clone() for p in model.parameters()]
    result = trainer.train()
    assert math.isfinite(result.training_loss)
    assert any(not torch.equal(b, p) for b, p in zip(before, model.parameters(), strict=True))


def test_unknown_loss_type_is_refused(tmp_path):
    with pytest.raises(ValueError, match="loss_type"):
        MICAConfig(output_dir=str(tmp_path), loss_type="ppo", use_cpu=True)


# --- KL to the reference ----------------------------------------------------------------------
def test_beta_zero_loads_no_reference(tmp_path, tokenizer, standin_env_factory):
    _, trainer = _mica(tokenizer, standin_env_factory, tmp_path, max_steps=1)
    assert trainer.ref_model is None


def test_kl_term_is_zero_at_step_zero_then_grows(tmp_path, tokenizer, standin_env_factory):
    model, trainer = _mica(tokenizer, standin_env_factory, tmp_path, beta=0.5)
    assert trainer.ref_model is not None and trainer.ref_model is not model
    assert not any(p.requires_grad for p in trainer.ref_model.parameters())
    trainer.train()
    logged = [h for h in trainer.state.log_history if "loss" in h]
    assert logged[0]["kl"] == pytest.approx(0.0, abs=1e-6)
    assert logged[1]["kl"] > 1e-6


def test_kl_adds_beta_times_k3():
    logps = torch.log(torch.tensor([[0.5, 0.5]]))
    ref = torch.log(torch.tensor([[0.25, 0.5]]))
    adv, mask = torch.tensor([0.0]), torch.ones(1, 2)
    plain = policy_loss(logps, logps, adv, mask, "dapo")
    with_kl = policy_loss(logps, logps, adv, mask, "dapo", ref_logps=ref, beta=2.0)
    k3 = math.exp(math.log(0.5)) - math.log(0.5) - 1  # exp(d) - d - 1, d = log(0.25 / 0.5)
    assert float(plain) == 0.0 and float(with_kl) == pytest.approx(2.0 * k3 / 2)


# --- truncated replies ------------------------------------------------------------------------
def _two_turn_batch(eos: int) -> RolloutBatch:
    samples = [
        TurnSample(0, 0, 0, [5, 6, 7], [8, 9, eos], "ended", 1.0),
        TurnSample(0, 1, 0, [5, 6, 7], [8, 9, 10], "cut", -1.0),
    ]
    return RolloutBatch(samples, np.array([[[1.0], [-1.0]]]), np.array([[1, 1]]), ["c0"])


def test_truncated_replies_get_no_gradient(tokenizer):
    model, _ = build_tiny_causal_lm(tokenizer, seed=0)
    eos = tokenizer.eos_token_id
    adv = np.array([[[1.0], [-1.0]]])
    kept = turn_tensors(_two_turn_batch(eos), adv, tokenizer.pad_token_id, eos)
    masked = turn_tensors(_two_turn_batch(eos), adv, tokenizer.pad_token_id, eos, True)
    assert kept.truncated.tolist() == [False, True]
    assert masked.completion_mask[1].sum() == 0 and kept.completion_mask[1].sum() == 3
    assert torch.equal(masked.completion_mask[0], kept.completion_mask[0])
    for loss_type in BUILTIN_LOSS_TYPES:
        model.zero_grad()
        cut = masked.chunk(1, 2)
        logps = per_token_logps(model, cut)
        mask = cut.completion_mask[:, 1:]
        policy_loss(logps, logps.detach(), cut.advantages, mask, loss_type).backward()
        assert all(
            p.grad is None or torch.count_nonzero(p.grad) == 0 for p in model.parameters()
        ), loss_type


def test_mask_truncated_completions_in_training(tmp_path, tokenizer, standin_env_factory):
    model, trainer = _mica(
        tokenizer, standin_env_factory, tmp_path, mask_truncated_completions=True,
        max_new_tokens=1, max_steps=1,
    )  # fmt: skip
    trainer.train()
    tensors = trainer._buffer.tensors
    assert tensors.completion_mask[tensors.truncated].sum() == 0
    logged = [h for h in trainer.state.log_history if "loss" in h]
    assert logged[0]["truncated_share"] == pytest.approx(float(tensors.truncated.float().mean()))


# --- torch threads ----------------------------------------------------------------------------
def test_torch_threads_setting(tmp_path, tokenizer, standin_env_factory):
    before = torch.get_num_threads()
    try:
        _mica(tokenizer, standin_env_factory, tmp_path, torch_threads=1)
        assert torch.get_num_threads() == 1
        assert MICAConfig(output_dir=str(tmp_path), use_cpu=True).torch_threads >= 0
    finally:
        torch.set_num_threads(before)
