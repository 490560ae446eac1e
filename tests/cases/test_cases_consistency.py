"""Cases that agree with themselves (issue 32): the validator finds a person given two ties and a
secret told before its stage, in the suite (none) and in generated cases (none)."""

from __future__ import annotations

import pytest
import yaml

from empa_env.cases.consistency import contradictions
from empa_env.cases.generator import generate_cases
from empa_env.cases.suites import load_suite
from empa_env.cli import main

SUITE = {c.id: c for c in load_suite("empa30-v1").cases}


def _with_fact(case, index, **changes):
    facts = list(case.facts)
    facts[index] = facts[index].model_copy(update=changes)
    return case.model_copy(update={"facts": tuple(facts)})


def test_the_suite_and_600_generated_cases_agree_with_themselves():
    assert {c.id: contradictions(c) for c in SUITE.values() if contradictions(c)} == {}
    for seed in (0, 1):
        found = {c.id: p for c in generate_cases(300, seed=seed) if (p := contradictions(c))}
        assert found == {}


def test_a_person_with_two_family_ties_is_found():
    case = SUITE["empa30-008"]
    wife = next(i for i, f in enumerate(case.facts) if f.kind == "person" and "wife" in f.about)
    name = case.facts[wife].about[0].capitalize()
    details = (*case.voice.details, f"My daughter {name} phoned again tonight.")
    bad = case.model_copy(update={"voice": case.voice.model_copy(update={"details": details})})
    found = contradictions(bad)
    assert any(name in p and "wife" in p and "daughter" in p for _, p in found), found


def test_a_person_tied_to_the_user_and_to_someone_else_is_found():
    case = SUITE["empa30-029"]  # Kyle is Diane's nephew, not Tomás's
    kyle = next(i for i, f in enumerate(case.facts) if f.about[0] == "kyle" and f.kind == "person")
    bad = _with_fact(case, kyle, about=("kyle", "nephew"), answer="Kyle is my nephew.")
    found = contradictions(bad)
    assert any(f == "experience.current_situation" and "Kyle" in p for f, p in found), found


def test_a_person_fact_that_misses_the_family_tie_is_found():
    case = SUITE["empa30-030"]  # Tunde is the user's cousin
    tunde = next(i for i, f in enumerate(case.facts) if f.kind == "person" and "tunde" in f.about)
    bad = _with_fact(
        case, tunde, about=("tunde", "colleague", "engineers"),
        answer="Tunde was one of our engineers. I laid him off.",
    )  # fmt: skip
    found = contradictions(bad)
    assert any(f == f"facts[{tunde}].about" and "cousin" in p for f, p in found), found


def test_a_secret_told_from_the_first_turn_is_found():
    case = SUITE["empa30-025"]  # stage 2: the Edinburgh offer she has told no one about
    offers = next(i for i, f in enumerate(case.facts) if "leeds" in f.about)
    bad = _with_fact(
        case, offers, answer="I've got offers from Leeds, Manchester and Edinburgh. They only know "
        "about two.",
    )  # fmt: skip
    found = contradictions(bad)
    assert any(f == f"facts[{offers}].answer" and "stage 2" in p for f, p in found), found


def test_a_topic_the_secret_is_about_is_not_the_secret():
    """Saying the weekends may stop is not telling that one has not told the daughter."""
    assert contradictions(SUITE["empa30-003"]) == []
    assert contradictions(SUITE["empa30-005"]) == []


@pytest.mark.parametrize("fixed", [False, True])
def test_cases_validate_reports_a_contradiction(tmp_path, capsys, fixed):
    case = SUITE["empa30-030"]
    tunde = next(i for i, f in enumerate(case.facts) if f.kind == "person" and "tunde" in f.about)
    if not fixed:
        case = _with_fact(case, tunde, about=("tunde", "colleague", "engineers"),
                          answer="Tunde was one of our engineers.")  # fmt: skip
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(case.model_dump(mode="json", by_alias=True)), "utf-8")
    code = main(["cases", "validate", str(path)])
    out = capsys.readouterr().out
    assert code == (0 if fixed else 1), out
    if not fixed:
        assert f"facts[{tunde}].about" in out and "cousin" in out
