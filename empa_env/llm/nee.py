"""The NEE panel (narrative and experience evaluator) with LLM judges (EMPA reference implementation, arXiv 2603.00552).

Each judge first *diagnoses* the person's state over the whole dialogue (a free-text call), then,
with its diagnosis in context, scores three dimensions: linguistic naturalness (0-30), contextual
pacing (0-40) and narrative arc (0-30). Scores outside their ranges are rejected and re-asked.
The panel aggregates the judges that succeeded with :func:`epm.nee.panel_nee` (mean and spread,
which feed FCS); judges that failed are listed, never counted as zero.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from empa_env.cases.schema import Case
from empa_env.llm.client import Completion, LLMCallError, UsageLedger
from empa_env.llm.parsing import OutputError, extract_json_object, is_refusal, strip_reasoning
from empa_env.llm.render import judge_profile_text, transcript_text
from empa_env.llm.roles import JSON_OBJECT, LLMRole
from empa_env.roles.views import JudgeProfile
from empa_env.sync import run_sync
from epm.nee import NEE_MAXIMA, NEEScore, PanelResult, panel_nee
from epm.trajectory import Trajectory

Transcript = Sequence[Mapping[str, str]]


class NEEError(RuntimeError):
    """One judge produced no usable NEE score."""


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool):
        raise OutputError("schema", f"{name} must be a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise OutputError("schema", f"{name} must be a number, got {value!r}") from None
    if number != number:  # NaN
        raise OutputError("schema", f"{name} must be a number, got NaN")
    return number


def parse_nee_scores(completion: Completion, judge: str, diagnosis: str) -> NEEScore:
    """Validate the scoring answer (each dimension within its range; rejected otherwise)."""
    obj = extract_json_object(completion.text)
    values: dict[str, float] = {}
    for name, top in NEE_MAXIMA.items():
        if name not in obj:
            raise OutputError("schema", f"{name} is missing")
        value = _number(obj[name], name)
        if not 0.0 <= value <= top:
            raise OutputError("schema", f"{name} must be within 0..{top:g}, got {value:g}")
        values[name] = value
    return NEEScore(judge=judge, diagnosis=diagnosis, **values)


def parse_diagnosis(completion: Completion) -> str:
    text = strip_reasoning(completion.text)
    if not text:
        raise OutputError("empty", "the diagnosis was empty")
    if is_refusal(text):
        raise OutputError("refusal", f"the model declined: {text[:120]!r}")
    return text


class NEEJudge(LLMRole):
    """One NEE judge model."""

    kind = "nee"
    prompt_name = "nee"
    default_params = {"temperature": 0.0, "max_tokens": 600}

    def messages(self, case: Case, transcript: Transcript) -> list[dict[str, str]]:
        user = self.prompt.render(
            "user",
            profile=judge_profile_text(JudgeProfile.from_case(case)),
            transcript=transcript_text(transcript),
        )
        return [
            {"role": "system", "content": self.prompt.render("system")},
            {"role": "user", "content": user},
        ]

    async def ascore(self, case: Case, transcript: Transcript) -> NEEScore:
        """Diagnose, then score. Raises :class:`NEEError` when no usable score came back."""
        messages = self.messages(case, transcript)
        try:
            diagnosis = await self._ask(messages, parse_diagnosis)
            scoring = messages + [
                {"role": "assistant", "content": diagnosis},
                {"role": "user", "content": self.prompt.render("score")},
            ]
            return await self._ask(
                scoring,
                lambda c: parse_nee_scores(c, self.name, diagnosis),
                response_format=JSON_OBJECT,
            )
        except (OutputError, LLMCallError) as exc:
            kind = exc.kind if isinstance(exc, OutputError) else f"provider_{exc.kind}"
            self._fail(len(transcript), kind, str(exc), "no score from this judge")
            raise NEEError(f"{kind}: {exc}") from None

    def score(self, case: Case, transcript: Transcript) -> NEEScore:
        return run_sync(self.ascore(case, transcript))


@dataclass(frozen=True)
class PanelOutcome:
    """The panel's aggregate (``None`` if every judge failed), each score, and each failure."""

    result: PanelResult | None
    scores: tuple[NEEScore, ...]
    failures: dict[str, str] = field(default_factory=dict)

    @property
    def nee(self) -> float | None:
        return None if self.result is None else self.result.nee

    def as_dict(self) -> dict[str, Any]:
        return {
            "nee": self.nee,
            "nee_std": None if self.result is None else self.result.nee_std,
            "naturalness": None if self.result is None else self.result.naturalness,
            "pacing": None if self.result is None else self.result.pacing,
            "narrative_arc": None if self.result is None else self.result.narrative_arc,
            "judges": [
                {
                    "judge": s.judge,
                    "naturalness": s.naturalness,
                    "pacing": s.pacing,
                    "narrative_arc": s.narrative_arc,
                    "total": s.total,
                    "diagnosis": s.diagnosis,
                }
                for s in self.scores
            ],
            "failures": dict(self.failures),
        }


class NEEPanel:
    """Any number of judge models; ``models`` are LiteLLM model strings or :class:`NEEJudge`\\ s.

    Options (``api_base``, ``cache_path``, ``timeout``, ...) apply to judges built from strings.
    """

    def __init__(
        self,
        models: Sequence[str | NEEJudge],
        *,
        ledger: UsageLedger | None = None,
        **options: Any,
    ) -> None:
        if not models:
            raise ValueError("an NEE panel needs at least one judge model")
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.judges: list[NEEJudge] = [
            m if isinstance(m, NEEJudge) else NEEJudge(m, ledger=self.ledger, **options)
            for m in models
        ]

    def describe(self) -> dict[str, Any]:
        return {"panel": [j.describe() for j in self.judges]}

    async def aevaluate(self, case: Case, dialogue: Trajectory | Transcript) -> PanelOutcome:
        transcript = dialogue.transcript() if isinstance(dialogue, Trajectory) else list(dialogue)
        results = await asyncio.gather(
            *(j.ascore(case, transcript) for j in self.judges), return_exceptions=True
        )
        scores: list[NEEScore] = []
        failures: dict[str, str] = {}
        for index, (judge, result) in enumerate(zip(self.judges, results, strict=True)):
            if isinstance(result, NEEScore):
                scores.append(result)
            elif isinstance(result, NEEError):
                failures[f"{index}:{judge.name}"] = str(result)
            else:
                raise result  # a bug, not a model failure
        return PanelOutcome(
            result=panel_nee(scores) if scores else None,
            scores=tuple(scores),
            failures=failures,
        )

    def evaluate(self, case: Case, dialogue: Trajectory | Transcript) -> PanelOutcome:
        return run_sync(self.aevaluate(case, dialogue))
