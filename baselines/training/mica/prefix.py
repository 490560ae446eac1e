"""One conversation as one growing token stream, generated with its KV cache carried across turns.

Without it a rollout re-reads the whole chat-templated history at every turn, so an episode of
``T`` turns reads ``O(T^2)`` prompt tokens. A :class:`ConversationStream` keeps the exact tokens
the model has read and written so far; the next turn appends only the environment's part (the end
of the assistant message as the chat template writes it, the user's new message, the next
generation prompt: :func:`continuation_ids`) and generation reuses the Hugging Face
``DynamicCache`` of everything before it, so each turn reads only its new tokens. The stream is
also what the model actually conditioned on (its own reply tokens, not a re-tokenisation of their
text), which is what a multi-turn trainer should train on.

Reuse needs a prefix-preserving chat template (rendering a longer conversation extends the
rendering of a shorter one; ChatML and most templates are, :class:`ValueError` otherwise) and a
conversation that fits ``max_prompt_length``: once the stream outgrows it, the oldest tokens are
dropped and that turn is read in full, without the cache.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from empa_env.policy import ChatMessage

_SENTINEL = "\u2063EMPA-REPLY\u2063"


def chat_text(
    tokenizer: Any,
    messages: Sequence[ChatMessage],
    system_prompt: str | None = None,
    add_generation_prompt: bool = True,
) -> str:
    """The chat-templated text of ``messages`` (with ``system_prompt`` first when given)."""
    system = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return str(
        tokenizer.apply_chat_template(
            system + list(messages), tokenize=False, add_generation_prompt=add_generation_prompt
        )
    )


def continuation_ids(
    tokenizer: Any,
    history: Sequence[ChatMessage],
    ended_with_eos: bool,
    system_prompt: str | None = None,
) -> list[int]:
    """The tokens that follow the model's reply in ``history``: ``history[:-1]`` ends with that
    assistant reply and ``history[-1]`` is the user's answer to it.

    They are what the chat template writes after the reply's content (minus the end-of-turn token
    when the model generated it already), the user's message and the next generation prompt."""
    if len(history) < 2 or history[-2].get("role") != "assistant":
        raise ValueError("the history must end with the assistant's reply and a user message")
    before = list(history[:-1])
    rendered = chat_text(tokenizer, before, system_prompt, add_generation_prompt=False)
    full = chat_text(tokenizer, history, system_prompt, add_generation_prompt=True)
    if not full.startswith(rendered):
        raise ValueError(
            "the chat template is not prefix-preserving (a longer conversation does not extend "
            "the rendering of a shorter one): prefix reuse needs one that is"
        )
    marked = chat_text(
        tokenizer, [*before[:-1], {"role": "assistant", "content": _SENTINEL}], system_prompt,
        add_generation_prompt=False,
    )  # fmt: skip
    closing = marked[marked.index(_SENTINEL) + len(_SENTINEL) :]
    eos = tokenizer.eos_token or ""
    if ended_with_eos and eos and closing.startswith(eos):
        closing = closing[len(eos) :]
    text = closing + full[len(rendered) :]
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass
class ConversationStream:
    """The tokens of one conversation so far and the KV cache of (a prefix of) them.

    ``reuse=False`` keeps the stream but reads it in full every turn, with a fresh cache for the
    turn's own generation (the full re-read that reuse must match)."""

    reuse: bool = True
    ids: list[int] = field(default_factory=list)
    cache: Any = None
    cached_ids: list[int] = field(default_factory=list)

    def prompt(
        self,
        tokenizer: Any,
        history: Sequence[ChatMessage],
        max_prompt_length: int | None = None,
        system_prompt: str | None = None,
    ) -> list[int]:
        """The next generation prompt: the whole templated ``history`` on the first turn, then
        the stream plus :func:`continuation_ids`; left-truncated to ``max_prompt_length`` (which
        drops the cache)."""
        if not self.ids:
            text = chat_text(tokenizer, history, system_prompt, add_generation_prompt=True)
            ids = list(tokenizer(text, add_special_tokens=False)["input_ids"])
        else:
            eos = tokenizer.eos_token_id
            ended = bool(self.ids) and eos is not None and self.ids[-1] == eos
            ids = self.ids + continuation_ids(tokenizer, history, ended, system_prompt)
        if max_prompt_length is not None and len(ids) > max_prompt_length:
            ids = ids[-max_prompt_length:]
            self.cache, self.cached_ids = None, []
        self.ids = ids
        return ids

    def generate(self, model: Any, tokenizer: Any, settings: Any) -> tuple[list[int], int]:
        """Generate the reply to :attr:`ids` (``settings``: a ``GenerationSettings``); returns
        ``(completion ids, prompt tokens read)``. The completion joins the stream."""
        import torch
        from transformers import DynamicCache

        prompt = list(self.ids)
        reused = 0
        if self.reuse and self.cache is not None:
            reused = min(_common_prefix(self.cached_ids, prompt), len(prompt) - 1)
            if reused < self.cache.get_seq_length():
                self.cache.crop(reused)
        else:
            self.cache = DynamicCache()
        device = next(model.parameters()).device
        input_ids = torch.tensor([prompt], dtype=torch.long, device=device)
        was_training = model.training
        model.eval()
        with torch.no_grad():
            out = model.generate(
                input_ids=input_ids,
                attention_mask=torch.ones_like(input_ids),
                **{_cache_kwarg(): self.cache},
                **generation_kwargs(tokenizer, settings),
            )
        if was_training:
            model.train()
        completion = _cut_at_eos(out[0, len(prompt) :].tolist(), tokenizer)
        self.cached_ids = out[0].tolist()[: self.cache.get_seq_length()]
        self.ids = prompt + completion
        return completion, len(prompt) - reused


@functools.lru_cache(maxsize=1)
def _cache_kwarg() -> str:
    """``generate``'s name for a cache to continue from: ``cache`` on recent ``transformers``
    (where ``past_key_values`` is deprecated), ``past_key_values`` before."""
    try:
        from transformers.generation.utils import ALL_CACHE_NAMES
    except ImportError:  # pragma: no cover - older transformers
        return "past_key_values"
    return "cache" if "cache" in ALL_CACHE_NAMES else "past_key_values"


def generation_kwargs(tokenizer: Any, settings: Any) -> dict[str, Any]:
    """``generate`` keyword arguments for ``settings`` (sampling, or greedy when
    ``settings.greedy``)."""
    kwargs: dict[str, Any] = {
        "max_new_tokens": settings.max_new_tokens,
        "pad_token_id": tokenizer.pad_token_id,
        "eos_token_id": tokenizer.eos_token_id,
    }
    if getattr(settings, "greedy", False):
        kwargs["do_sample"] = False
    else:
        kwargs.update(do_sample=True, temperature=settings.temperature, top_p=settings.top_p)
        kwargs["top_k"] = 0
    return kwargs


def _cut_at_eos(row: list[int], tokenizer: Any) -> list[int]:
    """Tokens up to and including the first end-of-turn token, trailing padding removed."""
    ids: list[int] = []
    for tok in row:
        ids.append(tok)
        if tok == tokenizer.eos_token_id:
            break
    while ids and ids[-1] == tokenizer.pad_token_id:
        ids.pop()
    return ids


__all__ = ["ConversationStream", "chat_text", "continuation_ids", "generation_kwargs"]
