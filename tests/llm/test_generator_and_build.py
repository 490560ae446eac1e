"""The LLM case generator, build_role, and the versioned prompts."""

from __future__ import annotations

import pytest

from empa_env.cases.generator import CaseGenerator
from empa_env.cases.loader import dump_case, parse_case
from empa_env.cases.schema import DOMAINS
from empa_env.llm import LLMActor, LLMDirector, LLMJudger, UsageLedger, build_role
from empa_env.llm.generator import CaseGenerationError, LLMCaseGenerator
from empa_env.llm.prompt import Prompt, available_prompts, load_prompt

from .conftest import MODEL


def test_generator_writes_valid_cases_in_the_project_format(server, opts):
    generator = LLMCaseGenerator(MODEL, **opts)
    assert isinstance(generator, CaseGenerator)
    cases = generator.generate(4, seed=3)
    assert [c.id for c in cases] == [f"llm-3-{i:03d}" for i in range(4)]
    assert [c.domain for c in cases] == [DOMAINS[(3 + i) % 6] for i in range(4)]
    for case in cases:
        assert case.source == f"llm:{MODEL}"
        assert parse_case(case.model_dump(mode="json", by_alias=True)) == case
        assert dump_case(case)
    roles = server.counts()
    assert roles["case-writer"] == 4 and roles["iedr"] == 4


def test_generator_repairs_invalid_drafts_and_reports_failures(server, opts):
    server.inject("malformed", times=1, role="case-writer")
    generator = LLMCaseGenerator(MODEL, **opts)
    assert len(generator.generate(1, seed=0)) == 1
    assert generator.usage()["repairs"] == 1
    server.inject("refusal", times=50, role="case-writer")
    with pytest.raises(CaseGenerationError, match="llm-9-000") as info:
        LLMCaseGenerator(MODEL, max_attempts=2, max_repairs=1, **opts).generate(1, seed=9)
    assert "refusal" in info.value.problems["llm-9-000"]


def test_generator_is_deterministic_through_the_cache(server, opts, tmp_path):
    options = {**opts, "cache_path": str(tmp_path / "gen.sqlite")}
    first = LLMCaseGenerator(MODEL, **options).generate(2, seed=1)
    calls = len(server.requests)
    again = LLMCaseGenerator(MODEL, **options).generate(2, seed=1)
    assert again == first and len(server.requests) == calls


def test_build_role_kinds_and_options():
    ledger = UsageLedger()
    options = {"api_base": "http://127.0.0.1:9/v1", "timeout": 3, "ledger": ledger,
               "function_calling": "json", "require_verbatim_evidence": True}  # fmt: skip
    judger = build_role("judger", MODEL, **options)
    director = build_role("director", MODEL, **options)
    actor = build_role("actor", MODEL, **options)
    assert isinstance(judger, LLMJudger) and judger.require_verbatim_evidence
    assert isinstance(director, LLMDirector) and director.function_calling == "json"
    assert isinstance(actor, LLMActor)
    assert judger.ledger is director.ledger is actor.ledger is ledger
    assert judger.client.config.temperature == 0.0 and actor.client.config.temperature == 0.7
    with pytest.raises(ValueError, match="kind must be one of"):
        build_role("narrator", MODEL)
    with pytest.raises(TypeError, match="unknown LLM option"):
        build_role("judger", MODEL, temprature=0.3)


def test_describe_names_model_and_prompt_version_but_no_key():
    judger = build_role(
        "judger", MODEL, api_key="sk-SECRET-KEY-1", api_base="http://127.0.0.1:9/v1"
    )
    info = judger.describe()
    assert info["name"] == f"llm:{MODEL}" and info["prompt"].startswith("judger@2#")
    assert "sk-SECRET-KEY-1" not in str(info)


def test_every_prompt_loads_and_is_versioned():
    names = available_prompts()
    assert {"judger", "actor", "director", "iedr", "nee", "case_writer"} <= set(names)
    for name in names:
        prompt = load_prompt(name)
        assert prompt.version >= 1 and prompt.version_tag.startswith(f"{name}@{prompt.version}#")


def test_a_prompt_edit_changes_the_version_tag():
    a = Prompt("p", 1, "system text", "user ${x}")
    b = Prompt("p", 1, "system text!", "user ${x}")
    assert a.version_tag != b.version_tag
    assert a.render("user", x=5) == "user 5"
    with pytest.raises(KeyError):
        a.render("user")
