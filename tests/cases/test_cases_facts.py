"""Answerable facts in the case format (issue 22): schema, drafting, the suite, the generator and
``empa cases validate``."""

from __future__ import annotations

import pytest

from empa_env.cases.facts import draft_facts, fact_issues, fact_kind, people, salient_words
from empa_env.cases.loader import CaseError, parse_case
from empa_env.cases.schema import Fact
from empa_env.cases.suites import load_suite
from empa_env.cli import main


def test_every_suite_case_has_usable_facts():
    for case in load_suite("empa30-v1").cases:
        assert fact_issues(case) == [], case.id
        assert len(case.facts) >= 10, case.id
        assert {f.stage for f in case.facts} >= {None, 0, 1, 2, 3}, case.id


def test_facts_are_tied_to_their_stage():
    case = next(c for c in load_suite("empa30-v1").cases if c.id == "empa30-001")
    by_answer = {f.answer: f for f in case.facts}
    assert by_answer["Emre is my grandson."].stage is None
    for i, stage in enumerate(case.plot.stages):
        for line in stage.narration:
            assert by_answer[line].stage == i


def test_generated_cases_get_facts_with_their_cast(small_pool):
    for case in small_pool:
        assert fact_issues(case) == [], case.id
        people_facts = [f for f in case.facts if f.kind == "person"]
        assert len(people_facts) >= 2, case.id  # every situation has a cast of two


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"about": ["Emre"]}, "facts[0].about"),
        ({"stage": 4}, "facts[0].stage"),
        ({"kind": "rumour"}, "facts[0].kind"),
        ({"answer": ""}, "facts[0].answer"),
    ],
)
def test_bad_facts_are_named(case_data, change, field):
    case_data["facts"][0].update(change)
    with pytest.raises(CaseError) as info:
        parse_case(case_data, "x.yaml")
    assert any(i.field == field for i in info.value.issues), info.value.issues


def test_validate_reports_a_case_without_facts(tmp_path, case_data, write_case, capsys):
    case_data["facts"] = []
    path = write_case("nofacts.yaml", case_data)
    assert main(["cases", "validate", str(path)]) == 1
    assert "facts: no answerable facts" in capsys.readouterr().out
    case_data["facts"] = [
        {"kind": "event", "about": ["rent"], "answer": "The rent is due.", "stage": None}
    ]
    path = write_case("onlyone.yaml", case_data)
    assert main(["cases", "validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "no fact is tied to a plot stage" in out and "no person fact" in out


def test_drafting_reads_people_and_kinds():
    assert people(["Her grandson Emre set up the app."]) == {"Emre": "grandson"}
    assert people([], ["Her partner Matteo was quiet."]) == {}  # someone else's partner
    assert fact_kind("Diane told me two years ago the job was mine.") == "said"
    assert fact_kind("I tried the hotline twice.") == "tried"
    assert fact_kind("Nine years at the garage.") == "duration"
    case = load_suite("empa30-v1").cases[0]
    assert [f.answer for f in draft_facts(case)][:1] == ["Emre is my grandson."]


@pytest.mark.parametrize(
    ("fact", "problem"),
    [
        (
            {"kind": "event", "about": ["honestly", "rent"], "answer": "Honestly, the rent."},
            "names no thing",
        ),
        (
            {"kind": "event", "about": ["there's", "rent"], "answer": "There's the rent."},
            "not a word",
        ),
        ({"kind": "person", "about": ["emre"], "answer": "Emre helps."}, "no relation"),
        ({"kind": "duration", "about": ["rent"], "answer": "The rent is due."}, "no duration"),
        (
            {"kind": "event", "about": ["zebra"], "answer": "The rent is due."},
            "neither in the answer",
        ),
    ],
)
def test_poor_facts_are_named_by_validate(case_data, fact, problem):
    """What a question could not use: a subject that names no thing, a person without a
    relation, a duration fact without a duration, a subject from nowhere."""
    case = parse_case(case_data, "x.yaml")
    bad = case.model_copy(update={"facts": (*case.facts, Fact(**fact, stage=None))})
    here = f"facts[{len(case.facts)}]"
    found = [p for field, p in fact_issues(bad) if field.startswith(here)]
    assert any(problem in p for p in found), found


def test_drafting_takes_a_thing_as_the_subject_not_a_filler():
    line = "Honestly, there's Gülten's garden and twenty-seven roses, and Emre laughed."
    words = salient_words(line, known=frozenset({"gülten", "emre"}))
    assert words[0] in ("gülten", "emre") and "honestly" not in words[:3]
    assert "there's" not in words and "twenty-seven" not in words[:3]
    assert fact_kind("My grandson Emre set up the app at Easter.") == "event"  # not a place
