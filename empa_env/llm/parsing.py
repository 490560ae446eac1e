"""Turning model text into data, and the bounded re-ask loop shared by every structured role.

Malformed output is never repaired silently: :class:`OutputError` names what was wrong
(``kind`` in :data:`OUTPUT_ERROR_KINDS`), the role re-asks with that message a bounded number of
times, and after that the caller records a failure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from empa_env.llm.client import Completion, LLMClient
from empa_env.llm.prompt import Prompt

OUTPUT_ERROR_KINDS: tuple[str, ...] = ("empty", "refusal", "malformed_json", "schema", "rule")

_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_THINK_RE = re.compile(r"<think>.*?</think>", re.S | re.I)
_REFUSAL_RE = re.compile(
    r"^\W*(i'?m sorry|i am sorry|sorry,|i apologi[sz]e|i can(?:'|no)t (?:help|assist|comply|do that)"
    r"|i cannot (?:help|assist|comply|do that)|i won'?t be able|as an ai\b)",
    re.I,
)

T = TypeVar("T")


class OutputError(ValueError):
    """Model output that cannot be used. ``kind`` is one of :data:`OUTPUT_ERROR_KINDS`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def strip_reasoning(text: str) -> str:
    """Drop ``<think>...</think>`` blocks some models emit before the answer."""
    return _THINK_RE.sub("", text or "").strip()


def is_refusal(text: str) -> bool:
    return bool(_REFUSAL_RE.search(strip_reasoning(text)[:200]))


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` (code fences and prose around it are tolerated).

    Raises :class:`OutputError` (``empty``, ``refusal`` or ``malformed_json``).
    """
    text = strip_reasoning(text)
    if not text:
        raise OutputError("empty", "the answer was empty")
    candidates = [m.group(1) for m in _FENCE_RE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        candidate = candidate.strip()
        for start in [i for i, ch in enumerate(candidate) if ch == "{"][:20]:
            try:
                value, _ = decoder.raw_decode(candidate[start:])
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    if is_refusal(text):
        raise OutputError("refusal", f"the model declined: {text[:160]!r}")
    if "{" not in text:
        raise OutputError("malformed_json", f"no JSON object in the answer: {text[:160]!r}")
    try:
        json.loads(text[text.index("{") :])
    except json.JSONDecodeError as exc:
        raise OutputError("malformed_json", f"invalid JSON ({exc.msg} at char {exc.pos})") from None
    raise OutputError("malformed_json", "the JSON in the answer is not an object")


def as_int(value: Any, field: str) -> int:
    """An integer level: ints and integer strings (``"-1"``) pass, anything else is rejected."""
    if isinstance(value, bool):
        raise OutputError("schema", f"{field} must be an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)
    raise OutputError("schema", f"{field} must be an integer, got {value!r}")


def as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return " / ".join(str(v).strip() for v in value if str(v).strip())
    return str(value).strip()


def assistant_echo(completion: Completion) -> dict[str, Any]:
    """The model's previous answer as a plain assistant message, for the re-ask."""
    text = completion.text
    if completion.tool_calls:
        call = completion.tool_calls[0]
        text = json.dumps({"tool": call.name, "args": call.arguments})
    return {"role": "assistant", "content": text or "(empty)"}


async def ask_with_repairs(
    client: LLMClient,
    messages: Sequence[Mapping[str, Any]],
    parse: Callable[[Completion], T],
    *,
    role: str,
    prompt: Prompt,
    max_repairs: int,
    repair_fields: Mapping[str, Any] | None = None,
    request: Callable[[list[dict[str, Any]]], Awaitable[Completion]] | None = None,
    **complete_kwargs: Any,
) -> T:
    """Ask, parse, and on :class:`OutputError` re-ask with the error, at most ``max_repairs`` times.

    Raises the last :class:`OutputError` when every answer was unusable, and lets
    :class:`~empa_env.llm.client.LLMCallError` through.
    """
    convo = [dict(m) for m in messages]
    last: OutputError | None = None
    for attempt in range(max_repairs + 1):
        if attempt:
            client.ledger.record_repair(role)
        if request is not None:
            completion = await request(convo)
        else:
            completion = await client.complete(
                convo,
                role=role,
                prompt_version=prompt.version_tag,
                cache_if=lambda c: _parses(parse, c),
                **complete_kwargs,
            )
        try:
            return parse(completion)
        except OutputError as exc:
            last = exc
            if attempt == max_repairs:
                break
            convo = convo + [
                assistant_echo(completion),
                {
                    "role": "user",
                    "content": prompt.render("repair", error=str(exc), **(repair_fields or {})),
                },
            ]
    assert last is not None
    raise last


def _parses(parse: Callable[[Completion], Any], completion: Completion) -> bool:
    """Whether ``completion`` is a usable answer (only those are cached)."""
    try:
        parse(completion)
    except OutputError:
        return False
    return True
