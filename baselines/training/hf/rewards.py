"""Echo-N1's reward functions (sections 3.2-3.3, 5.3.1) in TRL's ``reward_funcs`` signature.

A TRL reward function is called as ``f(prompts=..., completions=..., **columns)`` and returns one
float per completion; extra dataset columns (here ``reference``, ``label``, ``key_steps``) arrive
as keyword lists. Prompts and completions are strings or, for conversational data, lists of
``{"role", "content"}`` messages. Every reward here is a small callable class:

* :class:`HumanlikeReward` - ``r_humanlike = I[p_psi(human | x) > p_psi(machine | x)]`` (eqs. 1-4),
  context-free (``x = y``) or context-aware (``x = (y_T, h)``);
* :class:`EmpathyReward` - against a reference answer ``r`` (eq. 5): discrete
  ``I[p(y in S) > p(r in S)]`` or continuous ``P(y preferred over r)``;
* :class:`ProcessGatedReward` - ``R_empathy = R_process(reasoning) * r_outcome`` (eq. 6), the
  multiplicative "AND" gate used to train a generative judge;
* :class:`TotalReward` - ``R_total = R_empathy + R_humanlike`` (eq. 7), any weighted sum.

The judges behind them are plain callables, so a trained reward model (see
:class:`SequenceScorer`), an LLM client or a rule can stand behind each.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from empa_env.policy import ChatMessage

Context = list[ChatMessage]
#: ``p_human(context, reply) -> P(reply is human)``; ``context`` is ``[]`` for a context-free judge.
HumanJudge = Callable[[Context, str], float]
#: ``preference(context, reply, reference) -> P(reply is preferred over reference)``.
Preference = Callable[[Context, str, str], float]
#: ``score(context, reply) -> real`` (a Bradley-Terry reward model's logit).
Scorer = Callable[[Context, str], float]


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or the last message of a conversational completion."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    raise TypeError(f"cannot read a completion of type {type(completion).__name__}")


def prompt_context(prompt: Any) -> Context:
    """The dialogue history ``h`` (plus the last query ``x_T``) of a prompt, as messages."""
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}] if prompt else []
    return [dict(m) for m in prompt]


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def bradley_terry(scorer: Scorer, temperature: float = 1.0) -> Preference:
    """``P(y > r) = sigmoid((s(y) - s(r)) / temperature)`` from a pointwise scorer."""

    def preference(context: Context, reply: str, reference: str) -> float:
        return sigmoid((scorer(context, reply) - scorer(context, reference)) / temperature)

    return preference


class _RewardFunc:
    """Common plumbing: a ``__name__`` for TRL's logs and the per-sample loop."""

    __name__ = "reward"

    def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float]:
        n = len(completions)
        columns = {k: v for k, v in kwargs.items() if isinstance(v, list) and len(v) == n}
        return [
            float(self.score(prompts[i], completions[i], {k: v[i] for k, v in columns.items()}))
            for i in range(n)
        ]

    def score(self, prompt: Any, completion: Any, row: dict[str, Any]) -> float:  # pragma: no cover
        raise NotImplementedError


@dataclass
class HumanlikeReward(_RewardFunc):
    """``I[p(human) > p(machine)]`` with ``p(machine) = 1 - p(human)``: ``p(human) > threshold``.

    ``context_aware=False`` is the context-free judger (eq. 3: the reply alone); ``True`` passes the
    history (eq. 4). Echo-N1 found only the context-aware judge safe to optimise against.
    """

    judge: HumanJudge
    context_aware: bool = True
    threshold: float = 0.5
    __name__ = "humanlike"

    def score(self, prompt: Any, completion: Any, row: dict[str, Any]) -> float:
        context = prompt_context(prompt) if self.context_aware else []
        return 1.0 if self.judge(context, completion_text(completion)) > self.threshold else 0.0


@dataclass
class EmpathyReward(_RewardFunc):
    """Empathy against the dataset's reference answer (column ``reference_column``).

    ``mode="discrete"``: ``I[P(y > r) > 1/2]`` (eq. 5; Echo-N1 found it harder to hack);
    ``mode="continuous"``: ``P(y > r)`` itself (the prior practice it compares with).
    """

    preference: Preference
    mode: Literal["discrete", "continuous"] = "discrete"
    reference_column: str = "reference"
    __name__ = "empathy"

    def __post_init__(self) -> None:
        if self.mode not in ("discrete", "continuous"):
            raise ValueError("mode must be 'discrete' or 'continuous'")

    def score(self, prompt: Any, completion: Any, row: dict[str, Any]) -> float:
        if self.reference_column not in row:
            raise KeyError(f"the dataset needs a {self.reference_column!r} column")
        reference = completion_text(row[self.reference_column])
        p = float(self.preference(prompt_context(prompt), completion_text(completion), reference))
        return p if self.mode == "continuous" else (1.0 if p > 0.5 else 0.0)


_WORD = re.compile(r"[a-z0-9']+")
_STOP = frozenset(
    ("a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have", "i",
     "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "with",
     "you", "your")
)  # fmt: skip


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


@dataclass
class ProcessGatedReward(_RewardFunc):
    """``R = R_process(r) * r_outcome`` for a generative judge's output (Echo-N1 eq. 6).

    The completion must hold its reasoning and its verdict, by default
    ``<think>...</think><answer>A</answer>``. ``r_outcome = I[answer == label]`` (a hard constraint:
    a wrong verdict scores 0 however well argued). ``R_process`` in ``[0, 1]`` is format
    compliance times the recall of the row's key reasoning steps (column ``key_steps``; a step is
    recalled when at least ``step_match`` of its content words appear in the reasoning) times the
    instruction constraints (reasoning no longer than ``max_reasoning_words``).
    ``gate=False`` drops ``R_process`` (the outcome-only ablation of section 5.2.2).
    """

    reasoning_pattern: str = r"<think>(.*?)</think>"
    answer_pattern: str = r"<answer>\s*(.*?)\s*</answer>"
    label_column: str = "label"
    key_steps_column: str = "key_steps"
    step_match: float = 0.6
    max_reasoning_words: int | None = None
    gate: bool = True
    __name__ = "process_gated"
    _re: dict[str, re.Pattern[str]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self._re = {
            "reasoning": re.compile(self.reasoning_pattern, re.S | re.I),
            "answer": re.compile(self.answer_pattern, re.S | re.I),
        }

    def parse(self, text: str) -> tuple[str | None, str | None]:
        """``(reasoning, answer)``; ``None`` where the format is not met (exactly one of each)."""
        reasoning = self._re["reasoning"].findall(text)
        answer = self._re["answer"].findall(text)
        return (
            reasoning[0] if len(reasoning) == 1 else None,
            answer[0] if len(answer) == 1 else None,
        )

    def process_score(
        self, reasoning: str | None, answer: str | None, key_steps: Sequence[str]
    ) -> float:
        """``R_process`` in ``[0, 1]``: format x key-step recall x instruction constraints."""
        if reasoning is None or answer is None:
            return 0.0
        if (
            self.max_reasoning_words is not None
            and len(reasoning.split()) > self.max_reasoning_words
        ):
            return 0.0
        if not key_steps:
            return 1.0
        words = _content_words(reasoning)
        recalled = 0
        for step in key_steps:
            needed = _content_words(step)
            if needed and len(needed & words) / len(needed) >= self.step_match:
                recalled += 1
        return recalled / len(key_steps)

    def score(self, prompt: Any, completion: Any, row: dict[str, Any]) -> float:
        reasoning, answer = self.parse(completion_text(completion))
        label = row.get(self.label_column)
        outcome = (
            1.0
            if answer is not None
            and label is not None
            and (answer.strip().lower() == str(label).strip().lower())
            else 0.0
        )
        if not self.gate:
            return outcome
        return self.process_score(reasoning, answer, row.get(self.key_steps_column) or []) * outcome


@dataclass
class TotalReward(_RewardFunc):
    """``R_total = sum_i w_i R_i`` (eq. 7 is ``R_empathy + R_humanlike`` with unit weights)."""

    parts: Sequence[Callable[..., list[float]]]
    weights: Sequence[float] | None = None
    __name__ = "total"

    def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float]:
        weights = list(self.weights) if self.weights is not None else [1.0] * len(self.parts)
        if len(weights) != len(self.parts):
            raise ValueError("one weight per part")
        total = [0.0] * len(completions)
        for w, part in zip(weights, self.parts, strict=True):
            values = part(prompts=prompts, completions=completions, **kwargs)
            total = [
                t + w * (v if v is not None else math.nan)
                for t, v in zip(total, values, strict=True)
            ]
        return total


class SequenceScorer:
    """A :data:`Scorer` backed by a sequence-classification reward model (e.g. from
    :func:`baselines.training.hf.rm.train_reward_model`): the chat-templated ``context + reply``
    goes through the model, the single logit is the score."""

    def __init__(self, model: Any, tokenizer: Any, max_length: int = 1024) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.max_length = max_length

    def __call__(self, context: Context, reply: str) -> float:
        return self.batch([context], [reply])[0]

    def batch(self, contexts: Sequence[Context], replies: Sequence[str]) -> list[float]:
        import torch

        texts = [
            self.tokenizer.apply_chat_template(
                [*c, {"role": "assistant", "content": r}], tokenize=False
            )
            for c, r in zip(contexts, replies, strict=True)
        ]
        enc = self.tokenizer(
            texts,
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=self.max_length,
            add_special_tokens=False,
        )
        self.model.eval()
        with torch.no_grad():
            logits = self.model(**enc).logits[:, 0]
        return [float(x) for x in logits]

    def human_probability(self, bias: float = 0.0) -> HumanJudge:
        """``p(human) = sigmoid(score - bias)``, for a model trained on human-vs-machine pairs."""
        return lambda context, reply: sigmoid(self(context, reply) - bias)


__all__ = [
    "EmpathyReward", "HumanlikeReward", "ProcessGatedReward", "SequenceScorer", "TotalReward",
    "bradley_terry", "completion_text", "prompt_context", "sigmoid",
]  # fmt: skip
