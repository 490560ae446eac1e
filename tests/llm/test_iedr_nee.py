"""IEDR ratings (levels -> P_0) and the NEE panel."""

from __future__ import annotations

import json

import numpy as np
import pytest

from empa_env.llm.client import Completion
from empa_env.llm.iedr import IEDRError, LLMIEDRRater, parse_iedr
from empa_env.llm.nee import NEEJudge, NEEPanel, parse_nee_scores
from empa_env.llm.parsing import OutputError
from epm.rubric import initial_deficit

from .conftest import MODEL

LEVELS = {"C.1": 2, "C.2": 3, "C.3": 1, "A.1": 2, "A.2": 2, "A.3": 1, "P.1": 3, "P.2": 3, "P.3": 3}


def test_parse_iedr_accepts_spellings_and_rejects_out_of_range():
    answer = {
        "levels": {k.replace(".", "_"): v for k, v in LEVELS.items()},
        "reasoning": {"C1": "x"},
    }
    parsed = parse_iedr(Completion(text=json.dumps(answer)))
    assert parsed["levels"] == LEVELS and parsed["reasoning"] == {"C.1": "x"}
    partial: dict = {}
    bad = {"levels": {**LEVELS, "A.2": 4, "P.3": "high"}}
    with pytest.raises(OutputError, match="A.2 must be 0, 1, 2 or 3, got 4") as info:
        parse_iedr(Completion(text=json.dumps(bad)), partial)
    assert "P.3 must be an integer" in str(info.value)
    assert set(partial) == set(LEVELS) - {"A.2", "P.3"}


def test_rater_derives_p0_from_levels(server, opts, case):
    rater = LLMIEDRRater(MODEL, **opts)
    rating = rater.rate(case)
    assert set(rating.levels) == set(LEVELS)
    assert np.allclose(rating.p0, initial_deficit(rating.levels))
    assert rating.dominant_axis in "CAP" and rating.difficulty in (
        "easy",
        "medium",
        "hard",
        "extreme",
    )
    assert server.requests[0].role == "iedr"


def test_rater_sees_no_authored_levels(case):
    text = "\n".join(m["content"] for m in LLMIEDRRater(MODEL).messages(case))
    assert "iedr" not in text.lower().split("# the case")[-1]
    assert case.persona.name in text and case.plot.stages[0].summary in text


def test_rater_failure_raises_or_uses_the_reference_default(server, opts, case):
    server.inject("malformed", times=3, role="iedr")
    with pytest.raises(IEDRError, match="malformed_json"):
        LLMIEDRRater(MODEL, max_repairs=2, **opts).rate(case)
    server.inject("malformed", times=3, role="iedr")
    lenient = LLMIEDRRater(MODEL, max_repairs=2, on_failure="reference_default", **opts)
    rating = lenient.rate(case)
    assert rating.levels == {k: 1 for k in LEVELS} and len(rating.defaulted) == 9
    assert rating.error and lenient.usage()["failures"] == {"malformed_json": 1}


def test_nee_scores_are_validated():
    good = {"naturalness": 20, "pacing": 31.5, "narrative_arc": 12}
    score = parse_nee_scores(Completion(text=json.dumps(good)), "j", "diag")
    assert score.total == pytest.approx(63.5) and score.diagnosis == "diag"
    for bad, message in [
        ({**good, "pacing": 41}, "pacing must be within 0..40"),
        ({**good, "naturalness": -1}, "naturalness must be within 0..30"),
        ({"naturalness": 1, "pacing": 2}, "narrative_arc is missing"),
        ({**good, "narrative_arc": "lots"}, "must be a number"),
    ]:
        with pytest.raises(OutputError, match=message):
            parse_nee_scores(Completion(text=json.dumps(bad)), "j", "")


TRANSCRIPT = [
    {"role": "user", "content": "Found out from a schedule on the fridge."},
    {"role": "assistant", "content": "That sounds humiliating, after fifteen years."},
    {"role": "user", "content": "Yeah. It is."},
]


def test_each_judge_diagnoses_first_then_scores(server, opts, case):
    judge = NEEJudge(MODEL, **opts)
    score = judge.score(case, TRANSCRIPT)
    assert score.diagnosis.startswith("Diagnosis:")
    assert [r.json_mode for r in server.requests] == [False, True]
    assert 0 <= score.total <= 100


def test_panel_aggregates_judges_and_lists_failures(server, opts, case):
    panel = NEEPanel([MODEL, MODEL, "openai/scripted-b"], max_repairs=0, **opts)
    outcome = panel.evaluate(case, TRANSCRIPT)
    assert outcome.result is not None and outcome.result.judges == 3
    assert outcome.failures == {}
    server.reset_log()
    server.inject("refusal", times=1, role="nee")
    outcome = panel.evaluate(case, TRANSCRIPT)
    assert outcome.result is not None and outcome.result.judges == 2
    assert len(outcome.failures) == 1 and "refusal" in next(iter(outcome.failures.values()))
    data = outcome.as_dict()
    assert data["nee"] == pytest.approx(np.mean([j["total"] for j in data["judges"]]))


def test_panel_with_every_judge_failing_has_no_score(server, opts, case):
    server.inject("http_400", times=10, role="nee")
    outcome = NEEPanel([MODEL, MODEL], **opts).evaluate(case, TRANSCRIPT)
    assert outcome.result is None and outcome.nee is None and len(outcome.failures) == 2
