"""An LLM-backed case generator: new simulated users in the project's case format.

For each case the model writes the persona, the profile, the experience, the four hidden stages,
the voice lines and the judge cues (prompt ``case_writer``); the code adds the id, the life domain
(cycled through the six domains, so a batch is balanced), the source, and the nine IEDR levels
from :class:`~empa_env.llm.iedr.LLMIEDRRater`. Every case is validated by
:func:`empa_env.cases.loader.parse_case`, exactly like a hand-written file; validation problems go
back to the model as a re-ask, and a case that still fails is retried with a fresh variation.

Implements :class:`empa_env.cases.generator.CaseGenerator`: ``generate(n, seed)`` returns ``n``
distinct cases, deterministic per seed when the model is (temperature 0, or the response cache).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from empa_env.cases.loader import CaseError, parse_case
from empa_env.cases.schema import DOMAIN_LABELS, DOMAINS, Case
from empa_env.llm.client import Completion, LLMCallError, UsageLedger
from empa_env.llm.iedr import IEDRError, LLMIEDRRater
from empa_env.llm.parsing import OutputError, extract_json_object
from empa_env.llm.roles import JSON_OBJECT, LLMRole
from empa_env.sync import run_sync

#: Fields the code sets; whatever the model writes for them is discarded.
CODE_FIELDS: tuple[str, ...] = ("id", "language", "domain", "iedr", "source")
#: Placeholder levels used only to validate a draft's structure before it is rated.
_PROBE_LEVELS: dict[str, int] = {
    "C.1": 1, "C.2": 1, "C.3": 1, "A.1": 1, "A.2": 1, "A.3": 1, "P.1": 1, "P.2": 1, "P.3": 1,
}  # fmt: skip


class CaseGenerationError(RuntimeError):
    """Some cases could not be generated; ``problems`` says why, per slot."""

    def __init__(self, problems: Mapping[str, str]) -> None:
        self.problems = dict(problems)
        lines = [f"  - {slot}: {why}" for slot, why in self.problems.items()]
        super().__init__("\n".join([f"{len(lines)} case(s) could not be generated:", *lines]))


def assemble_case(
    draft: Mapping[str, Any], case_id: str, domain: str, levels: Mapping[str, int], source: str
) -> dict[str, Any]:
    """A case dict from the model's draft and the fields the code owns."""
    body = {k: v for k, v in draft.items() if k not in CODE_FIELDS}
    return {
        "id": case_id,
        "language": "en",
        "domain": domain,
        **body,
        "iedr": dict(levels),
        "source": source,
    }


class LLMCaseGenerator(LLMRole):
    """``generate(n, seed)`` -> ``n`` validated cases written by ``model``.

    ``iedr_model`` rates the levels (default: the same model); ``id_prefix`` names the cases
    ``<prefix>-<seed>-<index>``; ``max_attempts`` fresh variations per case slot (each with up to
    ``max_repairs`` re-asks).
    """

    kind = "case_writer"
    prompt_name = "case_writer"
    default_params = {"temperature": 0.8, "max_tokens": 4000}

    def __init__(
        self,
        model: str,
        *,
        iedr_model: str | None = None,
        iedr_rater: LLMIEDRRater | None = None,
        id_prefix: str = "llm",
        max_attempts: int = 3,
        ledger: UsageLedger | None = None,
        **options: Any,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        super().__init__(model, ledger=ledger, **options)
        client_options = {k: v for k, v in options.items() if k != "max_repairs"}
        client_options.pop("temperature", None)
        client_options.pop("max_tokens", None)
        self.iedr = iedr_rater or LLMIEDRRater(
            iedr_model or model, ledger=self.ledger, **client_options
        )
        self.id_prefix = id_prefix
        self.max_attempts = max_attempts

    def describe(self) -> dict[str, str]:
        out = super().describe()
        out["iedr"] = self.iedr.prompt.version_tag
        out["iedr_model"] = self.iedr.model
        return out

    def messages(self, domain: str, variation: str) -> list[dict[str, str]]:
        user = self.prompt.render("user", domain=DOMAIN_LABELS[domain], variation=variation)
        return [
            {"role": "system", "content": self.prompt.render("system")},
            {"role": "user", "content": user},
        ]

    @staticmethod
    def parse_draft(completion: Completion, probe_id: str, domain: str) -> dict[str, Any]:
        """The draft if it validates as a case (with placeholder levels); else OutputError."""
        draft = extract_json_object(completion.text)
        try:
            parse_case(assemble_case(draft, probe_id, domain, _PROBE_LEVELS, "probe"), probe_id)
        except CaseError as exc:
            issues = "\n".join(
                f"- {i.field or '(top level)'}: {i.message}" for i in exc.issues[:25]
            )
            raise OutputError("schema", issues) from None
        return draft

    async def _one(self, index: int, seed: int) -> Case:
        domain = DOMAINS[(seed + index) % len(DOMAINS)]
        case_id = f"{self.id_prefix}-{seed}-{index:03d}"
        problems: list[str] = []
        for attempt in range(self.max_attempts):
            variation = f"{seed}.{index}" + (f".{attempt}" if attempt else "")
            overrides = {"seed": seed * 100_003 + index * 101 + attempt}
            try:
                draft = await self._ask(
                    self.messages(domain, variation),
                    lambda c: self.parse_draft(c, case_id, domain),
                    response_format=JSON_OBJECT,
                    overrides=overrides,
                )
                rating = await self.iedr.arate(draft)
                return parse_case(
                    assemble_case(draft, case_id, domain, rating.as_case_levels(), self.name),
                    case_id,
                )
            except (OutputError, LLMCallError, IEDRError, CaseError) as exc:
                kind = getattr(exc, "kind", type(exc).__name__)
                problems.append(f"attempt {attempt + 1}: {kind}: {str(exc)[:300]}")
                self._fail(index, str(kind), str(exc), "retry with a new variation")
        raise CaseGenerationError({case_id: " | ".join(problems)})

    async def agenerate(self, n: int, seed: int = 0) -> list[Case]:
        """``n`` cases, written concurrently (bounded by the client's per-model limit)."""
        if n < 0:
            raise ValueError("n must be >= 0")
        results = await asyncio.gather(
            *(self._one(i, seed) for i in range(n)), return_exceptions=True
        )
        problems: dict[str, str] = {}
        cases: list[Case] = []
        for result in results:
            if isinstance(result, CaseGenerationError):
                problems.update(result.problems)
            elif isinstance(result, BaseException):
                raise result
            else:
                cases.append(result)
        if problems:
            raise CaseGenerationError(problems)
        return cases

    def generate(self, n: int, seed: int = 0) -> list[Case]:
        return run_sync(self.agenerate(n, seed))


#: Language names for prompts (the case's ``language`` code -> what the model is told).
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "zh": "Chinese (简体中文)"}
#: The stage fields :class:`LLMCaseCompleter` writes (the rest of a stage is kept).
STAGE_OFFLINE_FIELDS: tuple[str, ...] = ("narration", "emotions", "focus")


def merge_offline_material(case_data: Mapping[str, Any], written: Mapping[str, Any]) -> dict:
    """``case_data`` with ``voice``, ``cues`` and the stages' narration/emotions/focus taken from
    ``written``; everything else (persona, story, plot text, IEDR, id) stays as given."""
    out = dict(case_data)
    out["voice"] = written.get("voice")
    out["cues"] = written.get("cues")
    plot = dict(out.get("plot") or {})
    new_stages = (written.get("plot") or {}).get("stages") or written.get("stages") or []
    stages = []
    for i, stage in enumerate(plot.get("stages") or []):
        stage = dict(stage)
        new = new_stages[i] if i < len(new_stages) and isinstance(new_stages[i], Mapping) else {}
        for key in STAGE_OFFLINE_FIELDS:
            if key in new:
                stage[key] = new[key]
        stages.append(stage)
    plot["stages"] = stages
    out["plot"] = plot
    out["llm_roles_only"] = False
    return out


class LLMCaseCompleter(LLMRole):
    """Writes the offline material of a case that has everything else (prompt ``case_completer``).

    ``acomplete_material(case_data)`` returns the case dict with ``voice``, ``cues`` and every stage's
    ``narration``, ``emotions`` and ``focus`` written by ``model`` in the case's language, and
    ``llm_roles_only`` cleared; the result validates as a case (problems go back to the model).
    Used to convert official EMPA cases (:mod:`empa_env.cases.official`).
    """

    kind = "case_writer"
    prompt_name = "case_completer"
    default_params = {"temperature": 0.7, "max_tokens": 4000}

    def messages(self, case_data: Mapping[str, Any]) -> list[dict[str, str]]:
        language = LANGUAGE_NAMES.get(str(case_data.get("language", "en")), "English")
        given = {k: v for k, v in case_data.items()
                 if k not in ("voice", "cues", "iedr", "source", "llm_roles_only", "id")}  # fmt: skip
        plot = dict(given.get("plot") or {})
        plot["stages"] = [
            {k: v for k, v in dict(s).items() if k not in STAGE_OFFLINE_FIELDS}
            for s in plot.get("stages") or []
        ]
        given["plot"] = plot
        text = json.dumps(given, ensure_ascii=False, indent=1)
        return [
            {"role": "system", "content": self.prompt.render("system", language=language)},
            {"role": "user", "content": self.prompt.render("user", case=text, language=language)},
        ]

    async def acomplete_material(self, case_data: Mapping[str, Any]) -> dict[str, Any]:
        """The case with the material the offline roles need (voice, cues, plot fields) written
        by the LLM and merged in; the result must validate as a case (else an ``OutputError``)."""
        case_id = str(case_data.get("id", "case"))

        def parse(completion: Completion) -> dict[str, Any]:
            merged = merge_offline_material(case_data, extract_json_object(completion.text))
            try:
                parse_case(merged, case_id)
            except CaseError as exc:
                issues = "\n".join(
                    f"- {i.field or '(top level)'}: {i.message}" for i in exc.issues[:25]
                )
                raise OutputError("schema", issues) from None
            return merged

        return await self._ask(self.messages(case_data), parse, response_format=JSON_OBJECT)
