"""A tiny causal LM that talks through a tool, built offline: the policy of the tests and
examples of TRL's environment path (``GRPOTrainer(environment_factory=...)``).

TRL's environment loop goes on only while the model calls a tool in its chat template's format,
which a randomly initialised model never does. :func:`build_tiny_tool_caller` takes the tiny
Llama of :mod:`baselines.training.hf.tiny`, gives its tokenizer Qwen2.5's chat template (TRL ships
it and parses its ``<tool_call>`` blocks: ``trl.chat_template_utils.add_response_schema``), and
teaches it in a short supervised warm-up (AdamW on its own assistant turns only) to answer a
person by calling ``reply`` with one of a few plain replies, turn after turn. The people it
practises on are EMPA's generated training pool (``EMPA-v14``: their openings and first answers,
never the benchmark cases). Measured: 200 warm-up steps took ~18 s on one busy CPU core, after
which 17 of 20 samples at temperature 1.0 were well-formed ``reply`` calls.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

#: What the warm-up teaches the model to say (through the tool).
WARMUP_REPLIES: tuple[str, ...] = (
    "I hear how heavy this has been for you.",
    "It sounds like the hardest part is not knowing if anyone noticed.",
    "What part of it keeps coming back to you at night?",
    "You have kept going through all of this, and that is not nothing.",
    "Maybe it is less about failing and more about how much you care.",
    "You get to decide what matters most to you here.",
)


def pool_user_messages(env_id: str = "EMPA-v14", episodes: int = 24) -> list[str]:
    """User messages of ``episodes`` episodes of ``env_id``: each opening and the answer to one
    warm-up reply (the people the warm-up practises on)."""
    import gymnasium as gym

    import empa_env  # noqa: F401  (registers the ids)

    env = gym.make(env_id)
    messages: list[str] = []
    for seed in range(episodes):
        opening, _ = env.reset(seed=seed)
        answer, *_ = env.step(WARMUP_REPLIES[seed % len(WARMUP_REPLIES)])
        messages += [opening, answer or "..."]
    env.close()
    return messages


def tool_call_conversations(
    tool_name: str,
    argument: str,
    user_messages: Sequence[str],
    *,
    system_prompt: str,
    count: int = 64,
    turns: int = 2,
    seed: int = 0,
) -> list[list[dict[str, Any]]]:
    """``count`` conversations in which the assistant answers each user message by calling
    ``tool_name(argument=<a warm-up reply>)`` and the tool's result is the person's next
    message, ``turns`` calls each."""
    rng = random.Random(seed)
    conversations = []
    for _ in range(count):
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system_prompt},
            {"role": "user", "content": rng.choice(user_messages)},
        ]
        for _turn in range(turns):
            call = {"name": tool_name, "arguments": {argument: rng.choice(WARMUP_REPLIES)}}
            messages.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"type": "function", "function": call}],
                }
            )
            messages.append(
                {"role": "tool", "name": tool_name, "content": rng.choice(user_messages)}
            )
        conversations.append(messages)
    return conversations


def assistant_labels(
    tokenizer: Any, messages: list[dict[str, Any]], tools: list[Any]
) -> tuple[list[int], list[int]]:
    """``(input_ids, labels)`` of a templated conversation, labels ``-100`` outside the
    assistant turns (each turn: its tokens after the generation prompt, end token included)."""
    full = tokenizer.apply_chat_template(messages, tools=tools, tokenize=True, return_dict=False)
    labels = [-100] * len(full)
    for index, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        before = tokenizer.apply_chat_template(
            messages[:index],
            tools=tools,
            tokenize=True,
            add_generation_prompt=True,
            return_dict=False,
        )
        upto = tokenizer.apply_chat_template(
            messages[: index + 1], tools=tools, tokenize=True, return_dict=False
        )
        if full[: len(before)] != before:
            raise ValueError("the chat template does not render a conversation's prefix stably")
        labels[len(before) : len(upto)] = full[len(before) : len(upto)]
    return full, labels


def build_tiny_tool_caller(
    tool: Callable[..., Any] | None = None,
    *,
    system_prompt: str | None = None,
    steps: int = 600,
    batch_size: int = 4,
    learning_rate: float = 5e-3,
    seed: int = 0,
) -> tuple[Any, Any]:
    """``(model, tokenizer)``: the tiny Llama taught to call ``tool`` (default: EMPA's ``reply``
    tool, :class:`~empa_env.integrations.trl.EMPAToolEnv`), Qwen2.5's chat template and TRL's
    response parser on the tokenizer (see the module)."""
    import torch
    from transformers.utils import get_json_schema
    from trl.chat_template_utils import add_response_schema, qwen2_5_chat_template

    from baselines.training.hf.tiny import (
        TinyConfig,
        build_tiny_causal_lm,
        build_tokenizer,
        default_corpus,
    )
    from empa_env.integrations.trl import SYSTEM_PROMPT, EMPAToolEnv

    if tool is None:
        tool = EMPAToolEnv("EMPA-v14").reply
    schema = get_json_schema(tool)
    (argument,) = schema["function"]["parameters"]["properties"]
    system_prompt = system_prompt or SYSTEM_PROMPT
    conversations = tool_call_conversations(
        schema["function"]["name"],
        argument,
        pool_user_messages(),
        system_prompt=system_prompt,
        seed=seed,
    )
    # The tokenizer learns the template's text too, so a tool call is a few tokens.
    template = build_tokenizer(vocab_size=256)
    template.chat_template = qwen2_5_chat_template
    rendered = [
        template.apply_chat_template(c, tools=[schema], tokenize=False) for c in conversations
    ]
    vocab = 2048
    tokenizer = build_tokenizer([*default_corpus(), *rendered], vocab_size=vocab)
    tokenizer.chat_template = qwen2_5_chat_template
    add_response_schema(tokenizer)
    model, tokenizer = build_tiny_causal_lm(tokenizer, TinyConfig(vocab_size=vocab), seed=seed)

    examples = [assistant_labels(tokenizer, c, [schema]) for c in conversations]
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    # clipped gradients and a rate that falls linearly to a tenth: at a constant 5e-3 unclipped,
    # two user messages more or less in the pool (v14's user answering a warm-up differently)
    # tipped the model into repeating "<tool_call>" on 8 of 8 samples
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: 1.0 - 0.9 * step / max(steps - 1, 1)
    )
    model.train()
    for step in range(steps):
        batch = [examples[(step * batch_size + i) % len(examples)] for i in range(batch_size)]
        width = max(len(ids) for ids, _ in batch)
        pad = tokenizer.pad_token_id
        input_ids = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _ in batch])
        labels = torch.tensor([lab + [-100] * (width - len(lab)) for _, lab in batch])
        mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in batch])
        loss = model(input_ids=input_ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
    model.eval()
    return model, tokenizer


__all__ = [
    "WARMUP_REPLIES", "assistant_labels", "build_tiny_tool_caller", "pool_user_messages",
    "tool_call_conversations",
]  # fmt: skip
