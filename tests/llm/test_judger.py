"""The LLM Judger: strict schema, repairs with the parse error, failures recorded, never zero."""

from __future__ import annotations

import json

import pytest

from empa_env.llm.client import Completion
from empa_env.llm.parsing import OutputError
from empa_env.llm.roles import LLMJudger, failure_kind, parse_judgement

from .conftest import MODEL

GOOD = {
    "evidence": {"A_Prog": "it hurts", "C_Neg": "just a job"},
    "reasoning": {"A_Prog": "names his hurt", "C_Neg": "misses the point"},
    "C_Prog_level": 0, "C_Neg_level": -1, "A_Prog_level": 1,
    "A_Neg_level": 0, "P_Prog_level": 0, "P_Neg_level": 0,
}  # fmt: skip


def _parse(obj, **kwargs):
    text = obj if isinstance(obj, str) else json.dumps(obj)
    return parse_judgement(Completion(text=text), "j", **kwargs)


def test_valid_answer_becomes_levels_and_evidence():
    j = _parse(GOOD)
    assert j.prog == {"C": 0, "A": 1, "P": 0} and j.neg == {"C": -1, "A": 0, "P": 0}
    assert j.evidence == {"A_Prog": "it hurts", "C_Neg": "just a job"}
    assert not j.failed and j.judge == "j"


def test_fenced_nested_and_string_levels_are_read():
    nested = {
        "evidence": GOOD["evidence"],
        "reasoning": GOOD["reasoning"],
        "levels": {"C_Prog": "0", "C_Neg": "-1", "A_Prog": 1, "A_Neg": 0, "P_Prog": 0, "P_Neg": 0},
    }
    j = _parse("Here you go:\n```json\n" + json.dumps(nested) + "\n```")
    assert j.neg["C"] == -1 and j.prog["A"] == 1


@pytest.mark.parametrize(
    "change,message",
    [
        ({"A_Prog_level": 3}, "A_Prog_level must be one of 0, 1, 2, got 3"),
        ({"C_Neg_level": 1}, "C_Neg_level must be one of 0, -1, -2, got 1"),
        ({"P_Neg_level": -3}, "got -3"),
        ({"A_Prog_level": 1.5}, "must be an integer"),
        ({"A_Prog_level": True}, "must be an integer"),
    ],
)
def test_out_of_range_levels_are_rejected_not_clipped(change, message):
    with pytest.raises(OutputError, match=message) as info:
        _parse({**GOOD, **change})
    assert info.value.kind == "schema"


def test_missing_level_and_missing_evidence_are_rejected():
    bad = dict(GOOD)
    del bad["P_Neg_level"]
    with pytest.raises(OutputError, match="P_Neg_level is missing"):
        _parse(bad)
    with pytest.raises(OutputError, match="evidence.A_Prog"):
        _parse({**GOOD, "evidence": {"C_Neg": "x"}})
    with pytest.raises(OutputError, match="reasoning.C_Neg"):
        _parse({**GOOD, "reasoning": {"A_Prog": "x"}})


def test_evidence_for_zero_levels_is_dropped_and_verbatim_check_is_optional():
    j = _parse({**GOOD, "evidence": {**GOOD["evidence"], "P_Prog": "x"}})
    assert "P_Prog" not in j.evidence
    with pytest.raises(OutputError, match="not a quote of the reply"):
        _parse(GOOD, reply="Something else entirely.", require_verbatim_evidence=True)
    assert _parse(GOOD, reply="I think it hurts. It is just a job?", require_verbatim_evidence=True)


@pytest.mark.parametrize(
    "text,kind",
    [
        ("", "empty"),
        ("I'm sorry, but I can't help with that.", "refusal"),
        ('{"C_Prog_level": 1, "evid', "malformed_json"),
        ("the levels are all zero", "malformed_json"),
    ],
)
def test_unusable_text_is_classified(text, kind):
    with pytest.raises(OutputError) as info:
        _parse(text)
    assert info.value.kind == kind


def test_judger_rates_through_the_server(server, opts, judge_view):
    judger = LLMJudger(MODEL, **opts)
    j = judger.judge(judge_view)
    assert not j.failed
    assert j.prog["A"] == 1 and j.prog["C"] == 1  # "It sounds like it hurts", "?"
    assert j.evidence["A_Prog"].startswith("It sounds like it hurts")
    request = server.requests[0]
    assert request.role == "judger" and request.json_mode


def test_judger_sees_profile_history_and_only_rates_the_reply(judge_view):
    judger = LLMJudger(MODEL)
    text = "\n".join(m["content"] for m in judger.messages(judge_view))
    assert "Tomás Herrera" in text and "Fifteen years and a note on the fridge?" in text
    assert judge_view.reply in text
    assert "Hidden plot" not in text and "P_0" not in text  # no state, no plot


def test_malformed_output_is_repaired_with_the_error(server, opts, judge_view):
    server.inject("malformed", times=1, role="judger")
    judger = LLMJudger(MODEL, **opts)
    j = judger.judge(judge_view)
    assert not j.failed
    assert len(server.requests) == 2
    assert judger.usage()["repairs"] == 1 and judger.failures == []


@pytest.mark.parametrize("fault,kind", [("malformed", "malformed_json"), ("refusal", "refusal")])
def test_persistent_bad_output_becomes_a_recorded_failure(server, opts, judge_view, fault, kind):
    server.inject(fault, times=3, role="judger")
    judger = LLMJudger(MODEL, max_repairs=2, **opts)
    j = judger.judge(judge_view)
    assert j.failed and failure_kind(j.error) == kind
    assert j.prog == {"C": 0, "A": 0, "P": 0}  # zero levels, but flagged as failed
    assert len(server.requests) == 3
    assert judger.usage()["failures"] == {kind: 1}
    assert judger.failures[0].turn == judge_view.turn


def test_provider_failure_becomes_a_recorded_failure(server, opts, judge_view):
    server.inject("http_503", times=10)
    judger = LLMJudger(MODEL, **{**opts, "max_retries": 1})
    j = judger.judge(judge_view)
    assert j.failed and failure_kind(j.error) == "provider_server_error"
    assert len(server.requests) == 2


def test_async_api(server, opts, judge_view):
    import asyncio

    judger = LLMJudger(MODEL, **opts)
    j = asyncio.run(judger.ajudge(judge_view))
    assert not j.failed
