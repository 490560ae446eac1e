"""The fast rollout decoder (:mod:`baselines.training.mica.fastgen`): one batched prefill and a
device-side decode loop per turn, prefix reuse batched, a static cache; its greedy outputs equal
``model.generate``'s and the per-episode prefix-reuse path's, token for token (CPU)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from baselines.training.hf.tiny import build_qwen2_causal_lm, build_tiny_causal_lm  # noqa: E402
from baselines.training.mica.fastgen import FastDecoder  # noqa: E402
from baselines.training.mica.rollout import (  # noqa: E402
    GenerationSettings,
    LMTurns,
    generate_replies,
    play_episodes,
)
from baselines.training.mica.rollouts import EpisodeSampler  # noqa: E402

from .conftest import StandInEnv  # noqa: E402

pytestmark = pytest.mark.train

PROMPTS = [[5, 6, 7, 8, 9], [10, 11], [30] * 20, [40, 41, 42]]


@pytest.fixture(scope="module")
def lm(tiny_tokenizer):
    return build_tiny_causal_lm(tiny_tokenizer, seed=1)


def _samples(model, tok, **settings):
    envs = [StandInEnv(length=4) for _ in range(6)]
    s = GenerationSettings(max_new_tokens=10, greedy=True, **settings)
    batch = play_episodes(model, tok, envs, ["c0", "c1", "c2"], 2, s, seed=0)
    return [(x.prompt_ids, x.completion_ids, x.prompt_tokens_read, x.reward) for x in batch.samples]


@pytest.mark.parametrize(
    "settings",
    [
        {"max_prompt_length": 256},
        {"max_prompt_length": 256, "reuse_prefix": True},
        {"max_prompt_length": 40, "reuse_prefix": True},  # streams outgrow it: cut, read in full
        {"max_prompt_length": 256, "reuse_prefix": True, "static_cache": "on"},
        # a static cache of 60 + 10 columns: turns that no longer fit restart it (read in full)
        {"max_prompt_length": 60, "reuse_prefix": True, "static_cache": "on"},
        {"max_prompt_length": 256, "static_cache": "on"},
    ],
    ids=[
        "full-re-read",
        "reuse-prefix",
        "reuse-prefix-truncated",
        "reuse-prefix-static",
        "reuse-prefix-static-restarts",
        "full-re-read-static",
    ],  # fmt: skip
)
def test_fast_rollouts_equal_the_plain_path_greedy(lm, settings):
    model, tok = lm
    plain = _samples(model, tok, decoder="plain", **settings)
    fast = _samples(model, tok, decoder="fast", **settings)
    assert fast == plain
    if settings.get("reuse_prefix") and settings["max_prompt_length"] > 60:
        full = _samples(model, tok, decoder="fast", max_prompt_length=256)
        assert [s[1] for s in fast] == [s[1] for s in full]  # same replies as re-reading
        assert sum(s[2] for s in fast) < sum(s[2] for s in full)  # fewer prompt tokens read


def test_one_batched_generation_per_turn_over_every_live_episode(lm):
    model, tok = lm
    for reuse in (False, True):
        s = GenerationSettings(max_new_tokens=6, greedy=True, decoder="fast", reuse_prefix=reuse)
        turns = LMTurns(model, tok, s, None)
        from empa_env.rollout import play_lockstep

        envs = [StandInEnv(length=3 + i % 2) for i in range(5)]  # episodes of 3 and 4 turns
        calls = turns.decoder.stats.calls  # the decoder is shared by the model's rollouts
        play_lockstep(envs, turns, cases=["c0"] * 5, hooks=turns)
        assert turns.decoder.stats.calls - calls == 4  # one call per turn, not per episode


def test_decoder_equals_generate_with_early_end_of_turn(lm):
    model, tok = lm
    reference = generate_replies(model, tok, PROMPTS, GenerationSettings(12, greedy=True))
    eos = reference[0][3]  # a token the greedy replies do produce: rows end at different steps
    with torch.no_grad():
        width = max(map(len, PROMPTS))
        ids = torch.full((len(PROMPTS), width), tok.pad_token_id)
        mask = torch.zeros_like(ids)
        for i, p in enumerate(PROMPTS):
            ids[i, width - len(p) :] = torch.tensor(p)
            mask[i, width - len(p) :] = 1
        out = model.generate(
            input_ids=ids, attention_mask=mask, max_new_tokens=12, do_sample=False,
            eos_token_id=eos, pad_token_id=tok.pad_token_id,
        )  # fmt: skip
    expected = []
    for row in out[:, width:].tolist():
        cut = row[: row.index(eos) + 1] if eos in row else row
        expected.append([t for t in cut if t != tok.pad_token_id])
    for static in ("off", "on"):
        dec = FastDecoder(model, tok.pad_token_id, eos, 12, 32, greedy=True, static_cache=static,
                          compile="off", check_every=3)  # fmt: skip
        assert dec.generate(PROMPTS) == expected
        assert any(len(c) < 12 for c in expected)
        assert dec.generate(PROMPTS[:2]) == expected[:2]  # a smaller batch in the same cache


def test_static_cache_and_compile_are_off_on_cpu_unless_asked(lm):
    model, tok = lm
    auto = FastDecoder(model, tok.pad_token_id, tok.eos_token_id)
    assert not auto.use_compile and not auto.use_static
    assert FastDecoder(model, tok.pad_token_id, tok.eos_token_id, compile="on").use_static
    with pytest.raises(ValueError, match="decoder"):
        GenerationSettings(decoder="turbo")


def test_a_failing_compilation_falls_back_to_eager(lm, monkeypatch):
    model, tok = lm
    reference = generate_replies(model, tok, PROMPTS, GenerationSettings(8, greedy=True))

    def broken(fn, **kwargs):
        def run(*args):
            raise RuntimeError("no compiler here")

        return run

    monkeypatch.setattr(torch, "compile", broken)
    dec = FastDecoder(model, tok.pad_token_id, tok.eos_token_id, 8, 32, greedy=True, compile="on")
    with pytest.warns(RuntimeWarning, match="no compiler here"):
        assert dec.generate(PROMPTS) == reference
    assert dec.generate(PROMPTS) == reference and "no compiler" in dec.stats.compile_error


def test_per_episode_sampler_draws_the_same_tokens(lm):
    model, tok = lm
    s = GenerationSettings(10, temperature=0.9, top_p=0.95, max_prompt_length=32)

    def sampler():
        return EpisodeSampler([np.random.default_rng([7, i]) for i in range(4)], 0.9, 0.95)

    plain = generate_replies(model, tok, PROMPTS, s, sampler(), pad_to=32)
    dec = FastDecoder(model, tok.pad_token_id, tok.eos_token_id, 10, 32, static_cache="on")
    assert dec.generate(PROMPTS, sampler(), pad_to=32) == plain


def test_on_device_sampling_respects_temperature_and_top_p(lm):
    model, tok = lm
    dec = FastDecoder(model, tok.pad_token_id, tok.eos_token_id, 6, 32, top_p=1e-6)
    greedy = FastDecoder(model, tok.pad_token_id, tok.eos_token_id, 6, 32, greedy=True)
    assert dec.generate(PROMPTS) == greedy.generate(PROMPTS)  # top_p -> 0 keeps the argmax only
    torch.manual_seed(0)
    hot = FastDecoder(model, tok.pad_token_id, tok.eos_token_id, 6, 32, temperature=5.0)
    assert hot.generate(PROMPTS) != greedy.generate(PROMPTS)


def test_qwen2_greedy_equal_with_prefix_reuse(tiny_tokenizer):
    model, tok = build_qwen2_causal_lm(tiny_tokenizer, seed=2)
    for reuse in (False, True):
        settings = {"max_prompt_length": 256, "reuse_prefix": reuse}
        assert _samples(model, tok, decoder="fast", **settings) == _samples(
            model, tok, decoder="plain", **settings
        )


def test_grouped_attention_equals_repeated_heads():
    from baselines.training.mica.fastgen import grouped_attention

    torch.manual_seed(0)
    q, k, v = torch.randn(3, 6, 5, 8), torch.randn(3, 2, 9, 8), torch.randn(3, 2, 9, 8)
    mask = torch.rand(3, 1, 5, 9) > 0.3
    mask[..., 0] = True
    expected = torch.nn.functional.scaled_dot_product_attention(
        q, k.repeat_interleave(3, dim=1), v.repeat_interleave(3, dim=1), attn_mask=mask
    ).transpose(1, 2)
    out, _ = grouped_attention(None, q, k, v, mask)
    assert torch.allclose(out, expected, atol=1e-5)


def test_grouped_attention_decodes_the_same_greedy_tokens(tiny_tokenizer):
    from baselines.training.mica.fastgen import GROUPED_ATTENTION

    model, tok = build_qwen2_causal_lm(tiny_tokenizer, seed=1)
    reference = generate_replies(model, tok, PROMPTS, GenerationSettings(12, greedy=True))
    for static in ("off", "on"):
        dec = FastDecoder(model, tok.pad_token_id, tok.eos_token_id, 12, 32, greedy=True,
                          static_cache=static, attention="grouped")  # fmt: skip
        assert dec.generate(PROMPTS) == reference
        assert dec.runner is not model
        assert dec.runner.config._attn_implementation == GROUPED_ATTENTION
