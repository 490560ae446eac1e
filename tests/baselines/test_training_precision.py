"""fp32 master weights: a bf16 checkpoint is loaded and trained in fp32 (bf16 only under
autocast) unless ``precision="bf16-pure"`` is asked, so one step at the default learning rate
moves nearly every weight; pure bf16 rounds most of those updates away (and warns)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from baselines.training.hf.models import load_or_build  # noqa: E402
from baselines.training.hf.tiny import build_qwen2_causal_lm, master_weights  # noqa: E402
from baselines.training.mica.trainer import MICAConfig, MICATrainer, case_dataset  # noqa: E402

from .conftest import StandInEnv  # noqa: E402

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def bf16_checkpoint(tmp_path_factory, tiny_tokenizer):
    """A tiny Qwen2-shaped model saved in bf16 (as most published checkpoints are)."""
    model, tokenizer = build_qwen2_causal_lm(tiny_tokenizer, seed=3)
    path = tmp_path_factory.mktemp("bf16-ckpt")
    model.to(torch.bfloat16).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def _share_changed_by_one_step(model, tokenizer, tmp_path, **overrides):
    before = {n: p.detach().float().clone() for n, p in model.named_parameters()}
    args = MICAConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=2, num_rollouts=2, max_steps=1,
        max_new_tokens=6, use_cpu=True, seed=0, **overrides,
    )  # fmt: skip
    trainer = MICATrainer(
        model, args, case_dataset(["c0", "c1"]), tokenizer, env_factory=lambda: StandInEnv(2)
    )
    trainer.train()
    trainer.close()
    changed = total = 0
    for name, p in trainer.model.named_parameters():
        changed += int((p.detach().float() != before[name]).sum())
        total += p.numel()
    return changed / total, trainer.model


def test_a_bf16_checkpoint_loads_as_fp32_master_weights(bf16_checkpoint):
    model, _ = load_or_build(str(bf16_checkpoint))
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    pure, _ = load_or_build(str(bf16_checkpoint), precision="bf16-pure")
    assert {p.dtype for p in pure.parameters()} == {torch.bfloat16}
    with pytest.raises(ValueError, match="precision"):
        load_or_build(str(bf16_checkpoint), precision="fp8")


def test_one_step_at_the_default_lr_moves_nearly_every_weight(bf16_checkpoint, tmp_path):
    model, tokenizer = load_or_build(str(bf16_checkpoint))
    assert MICAConfig(output_dir=str(tmp_path), use_cpu=True).learning_rate == 1e-6
    share, trained = _share_changed_by_one_step(model, tokenizer, tmp_path, precision="bf16-mixed")
    assert share >= 0.9, share
    assert {p.dtype for p in trained.parameters()} == {torch.float32}


def test_a_bf16_model_passed_in_is_upcast_too(bf16_checkpoint, tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(bf16_checkpoint, dtype=torch.bfloat16)
    tokenizer = AutoTokenizer.from_pretrained(bf16_checkpoint)
    share, _ = _share_changed_by_one_step(model, tokenizer, tmp_path)
    assert share >= 0.9, share


def test_pure_bf16_is_explicit_warns_and_rounds_small_updates_away(bf16_checkpoint, tmp_path):
    model, tokenizer = load_or_build(str(bf16_checkpoint), precision="bf16-pure")
    with pytest.warns(UserWarning, match="bf16-pure"):
        share, trained = _share_changed_by_one_step(
            model, tokenizer, tmp_path, precision="bf16-pure"
        )
    assert share < 0.5, share
    assert {p.dtype for p in trained.parameters()} == {torch.bfloat16}


def test_master_weights_for_every_trainer(tiny_tokenizer, tmp_path):
    from baselines.training.hf.rm import RMRunConfig, build_reward_trainer
    from baselines.training.hf.sft import SFTRunConfig, build_sft_trainer
    from baselines.training.hf.tiny import build_tiny_reward_model

    model, _ = build_qwen2_causal_lm(tiny_tokenizer)
    assert master_weights(model.to(torch.bfloat16)) is model
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    rows = [
        {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    ]
    sft = build_sft_trainer(
        rows, SFTRunConfig(output_dir=str(tmp_path / "sft"), max_steps=1, precision="bf16-mixed"),
        model.to(torch.bfloat16), tiny_tokenizer,
    )  # fmt: skip
    assert {p.dtype for p in sft.model.parameters()} == {torch.float32} and sft.args.bf16
    rm_model, _ = build_tiny_reward_model(tiny_tokenizer)
    pairs = [{"prompt": [{"role": "user", "content": "hi"}],
              "chosen": [{"role": "assistant", "content": "hello"}],
              "rejected": [{"role": "assistant", "content": "go"}]}]  # fmt: skip
    rm = build_reward_trainer(
        pairs, RMRunConfig(output_dir=str(tmp_path / "rm"), max_steps=1),
        rm_model.to(torch.bfloat16), tiny_tokenizer,
    )  # fmt: skip
    assert {p.dtype for p in rm.model.parameters()} == {torch.float32} and not rm.args.bf16
