"""IEDR with an LLM: rate the nine initial-deficit indicators of a case, derive ``P_0``.

The model gives *levels* (0..3) with a sentence of reasoning each; ``P_0`` is computed in code by
:func:`epm.rubric.initial_deficit`. Levels outside 0..3 are rejected and re-asked, never
clipped. The reference implementation treats an unparsable level as 1; that behaviour is
available as ``on_failure="reference_default"`` and records which indicators were defaulted.
The benchmark suite keeps its authored levels; this rater is for new cases.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from empa_env.cases.schema import Case
from empa_env.llm.client import Completion, LLMCallError
from empa_env.llm.parsing import OutputError, as_int, as_text, extract_json_object
from empa_env.llm.render import case_text
from empa_env.llm.roles import JSON_OBJECT, LLMRole
from empa_env.sync import run_sync
from epm.rubric import (
    IEDR_DEFAULT_LEVEL,
    IEDR_INDICATORS,
    difficulty_band,
    dominant_axis,
    initial_deficit,
)


class IEDRError(RuntimeError):
    """The rater produced no usable levels (after its re-asks)."""


@dataclass(frozen=True)
class IEDRRating:
    """Nine levels, their reasoning and the derived ``P_0``."""

    levels: dict[str, int]
    p0: tuple[float, float, float]
    rater: str
    reasoning: dict[str, str] = field(default_factory=dict)
    #: Indicators set to the reference default (1) because the model gave nothing usable.
    defaulted: tuple[str, ...] = ()
    error: str | None = None

    @property
    def norm_p0(self) -> float:
        return float(np.linalg.norm(self.p0))

    @property
    def dominant_axis(self) -> str:
        return dominant_axis(np.asarray(self.p0))

    @property
    def difficulty(self) -> str:
        return difficulty_band(self.norm_p0)

    def as_case_levels(self) -> dict[str, int]:
        """The ``iedr`` block of a case file."""
        return {ind: self.levels[ind] for ind in IEDR_INDICATORS}


def _indicator(key: str) -> str | None:
    found = re.fullmatch(r"\s*([CAP])\s*[._ -]?\s*([123])\s*", str(key), re.I)
    return f"{found.group(1).upper()}.{found.group(2)}" if found else None


def parse_iedr(completion: Completion, partial: dict[str, Any] | None = None) -> dict[str, Any]:
    """``{"levels": {...9...}, "reasoning": {...}}`` from an answer; raises :class:`OutputError`.

    ``partial`` (if given) receives whatever valid levels were found, for the lenient default.
    """
    obj = extract_json_object(completion.text)
    raw: dict[str, Any] = obj["levels"] if isinstance(obj.get("levels"), dict) else obj
    found: dict[str, Any] = {}
    for key, value in raw.items():
        ind = _indicator(key)
        if ind is not None:
            found[ind] = value
    levels: dict[str, int] = {}
    problems: list[str] = []
    for ind in IEDR_INDICATORS:
        if ind not in found:
            problems.append(f"{ind} is missing")
            continue
        try:
            level = as_int(found[ind], ind)
        except OutputError as exc:
            problems.append(str(exc))
            continue
        if not 0 <= level <= 3:
            problems.append(f"{ind} must be 0, 1, 2 or 3, got {level}")
            continue
        levels[ind] = level
    if partial is not None:
        partial.clear()
        partial.update(levels)
    if problems:
        raise OutputError("schema", "; ".join(problems))
    reasoning_in: dict[str, Any] = (
        obj["reasoning"] if isinstance(obj.get("reasoning"), dict) else {}
    )
    reasoning = {}
    for key, value in reasoning_in.items():
        ind = _indicator(key)
        if ind is not None:
            reasoning[ind] = as_text(value)
    return {"levels": levels, "reasoning": reasoning}


class LLMIEDRRater(LLMRole):
    """Rates a :class:`~empa_env.cases.schema.Case` or a case draft (a mapping in the case
    format, e.g. from the LLM case generator) on the nine IEDR indicators."""

    kind = "iedr"
    prompt_name = "iedr"
    default_params = {"temperature": 0.0, "max_tokens": 700}

    def __init__(
        self,
        model: str,
        *,
        on_failure: Literal["raise", "reference_default"] = "raise",
        **options: Any,
    ) -> None:
        if on_failure not in ("raise", "reference_default"):
            raise ValueError("on_failure must be 'raise' or 'reference_default'")
        super().__init__(model, **options)
        self.on_failure = on_failure

    def messages(self, case: Case | Mapping[str, Any]) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": self.prompt.render("system")},
            {"role": "user", "content": self.prompt.render("user", case=case_text(case))},
        ]

    async def arate(self, case: Case | Mapping[str, Any]) -> IEDRRating:
        partial: dict[str, int] = {}
        try:
            parsed = await self._ask(
                self.messages(case),
                lambda c: parse_iedr(c, partial),
                response_format=JSON_OBJECT,
            )
        except (OutputError, LLMCallError) as exc:
            kind = exc.kind if isinstance(exc, OutputError) else f"provider_{exc.kind}"
            error = f"{kind}: {exc}"
            if self.on_failure == "raise":
                self._fail(0, kind, error, "IEDRError")
                raise IEDRError(error) from None
            defaulted = tuple(ind for ind in IEDR_INDICATORS if ind not in partial)
            self._fail(0, kind, error, f"reference default level 1 for {', '.join(defaulted)}")
            levels = {ind: partial.get(ind, IEDR_DEFAULT_LEVEL) for ind in IEDR_INDICATORS}
            return self._rating(levels, {}, defaulted, error)
        return self._rating(parsed["levels"], parsed["reasoning"], (), None)

    def rate(self, case: Case | Mapping[str, Any]) -> IEDRRating:
        return run_sync(self.arate(case))

    def _rating(
        self,
        levels: dict[str, int],
        reasoning: dict[str, str],
        defaulted: tuple[str, ...],
        error: str | None,
    ) -> IEDRRating:
        p0 = initial_deficit(levels)
        return IEDRRating(
            levels=dict(levels),
            p0=(float(p0[0]), float(p0[1]), float(p0[2])),
            rater=self.name,
            reasoning=reasoning,
            defaulted=defaulted,
            error=error,
        )
