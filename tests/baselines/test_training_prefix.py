"""Tokens processed per turn, and prefix reuse: a conversation as one token stream whose KV cache
is carried across turns gives the same greedy replies as reading the stream in full every turn."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from baselines.training.hf.tiny import build_tiny_causal_lm  # noqa: E402
from baselines.training.mica.prefix import ConversationStream, chat_text, continuation_ids  # noqa: E402
from baselines.training.mica.rollout import GenerationSettings, play_episodes  # noqa: E402

from .conftest import StandInEnv  # noqa: E402

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def lm(tiny_tokenizer):
    model, tokenizer = build_tiny_causal_lm(tiny_tokenizer, seed=1)
    return model, tokenizer


def test_continuation_is_exactly_what_the_template_adds(lm):
    _, tok = lm
    history = [
        {"role": "user", "content": "I feel low."},
        {"role": "assistant", "content": "What happened?"},
        {"role": "user", "content": "Work, again."},
    ]
    before = tok(chat_text(tok, history[:1]), add_special_tokens=False)["input_ids"]
    reply = tok("What happened?", add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    stream = before + reply + continuation_ids(tok, history, ended_with_eos=True)
    assert tok.decode(stream) == chat_text(tok, history)  # the stream renders the same text
    cut = before + reply[:-1] + continuation_ids(tok, history, ended_with_eos=False)
    assert tok.decode(cut) == chat_text(tok, history)  # a truncated reply gets its end-of-turn
    with pytest.raises(ValueError, match="assistant"):
        continuation_ids(tok, history[:2], ended_with_eos=True)


def _play_without_cache(model, tok, env, case, seed, settings):
    """One episode whose every turn reads the whole token stream (a fresh cache per turn)."""
    stream = ConversationStream(reuse=False)
    env.reset(seed=seed, options={"case": case})
    completions, done = [], False
    while not done:
        stream.prompt(tok, env.unwrapped.messages, settings.max_prompt_length)
        completion, read = stream.generate(model, tok, settings)
        assert read == len(stream.ids) - len(completion)  # everything read
        completions.append(completion)
        reply = tok.decode(completion, skip_special_tokens=True).strip()
        _, _, terminated, truncated, _ = env.step(reply)
        done = terminated or truncated
    return completions


def test_reused_prefix_gives_the_full_re_read_greedy_output(lm):
    """~3 s. Greedy replies with the cache carried across turns are token for token those of a
    full re-read of the same stream, and every turn after the first reads far fewer tokens."""
    model, tok = lm
    settings = GenerationSettings(max_new_tokens=6, greedy=True, reuse_prefix=True)
    envs = [StandInEnv(length=4) for _ in range(2)]
    batch = play_episodes(model, tok, envs, ["c0", "c1"], 1, settings, seed=5)
    for b, case in enumerate(["c0", "c1"]):
        reused = [s for s in batch.samples if s.case_index == b]
        full = _play_without_cache(
            model, tok, StandInEnv(length=4), case, 5 * 100_003 + b, settings
        )
        assert [s.completion_ids for s in reused] == full
        assert reused[0].prompt_tokens_read == len(reused[0].prompt_ids)
        for s in reused[1:]:
            assert s.prompt_tokens_read < len(s.prompt_ids) / 2
    by_turn = batch.tokens_by_turn()
    assert by_turn["prompt"][-1] > by_turn["prompt"][0]  # the history grows...
    assert by_turn["prompt_read"][-1] <= by_turn["prompt_read"][0]  # ...what is read does not


def test_rollout_metrics_count_tokens_per_turn_and_in_total(lm):
    model, tok = lm
    settings = GenerationSettings(max_new_tokens=5, greedy=True)
    batch = play_episodes(model, tok, [StandInEnv(length=3) for _ in range(2)], ["c0"], 2, settings)
    m = batch.metrics()
    assert m["tokens/prompt_read"] == sum(len(s.prompt_ids) for s in batch.samples)  # re-read
    assert m["tokens/generated"] == sum(len(s.completion_ids) for s in batch.samples)
    assert m["tokens/generated_per_turn"] == m["tokens/generated"] / 6
    assert m["tokens/prompt_read_per_turn"] == pytest.approx(m["tokens/prompt_read"] / 6)


def test_a_stream_longer_than_the_budget_is_cut_and_read_in_full(lm):
    model, tok = lm
    settings = GenerationSettings(max_new_tokens=4, greedy=True, max_prompt_length=30)
    stream = ConversationStream()
    history = [{"role": "user", "content": "I have had a very long and tiring day. " * 4}]
    ids = stream.prompt(tok, history, settings.max_prompt_length)
    assert len(ids) == 30 and stream.cache is None
    completion, read = stream.generate(model, tok, settings)
    assert read == 30 and stream.ids == ids + completion
