"""The simulated user knows who they are: asked their name, age or work they say it from the
persona card; told a wrong age they set it right; asked about someone else's age they do not give
their own; and a yes/no question a fact only touches is not answered "Yes."."""

from __future__ import annotations

import copy
import re

import pytest

from empa_env.cases.suites import load_suite
from empa_env.env import EMPAEnv
from empa_env.offline.user.prose import persona_facts
from empa_env.roles.views import ActorPersona

SUITE = {c.id: c for c in load_suite("empa30-v1").cases}


@pytest.fixture(scope="module")
def env():
    return EMPAEnv("empa30-v1", judger="lexicon")


def said_to(env, case: str, reply: str) -> str:
    env.reset(seed=5, options={"case": case})
    env.step("Thank you for telling me. I'm here with you.")
    trial = copy.deepcopy(env)
    trial.step(reply)
    return trial.messages[-1]["content"]


def test_the_persona_card_gives_name_age_and_work_in_the_users_voice():
    case = SUITE["empa30-002"]
    answers = [f.answer for f in persona_facts(ActorPersona.from_case(case))]
    assert answers[0] == f"I'm {case.persona.name}."
    assert answers[1] == f"I'm {case.persona.age}."
    assert answers[2].startswith("Junior auditor") and answers[2].endswith(".")
    widow = [f.answer for f in persona_facts(ActorPersona.from_case(SUITE["empa30-001"]))]
    assert widow[2].startswith("I'm the widow")


@pytest.mark.parametrize("case", ["empa30-003", "empa30-012", "empa30-027"])
def test_asked_their_age_name_and_work_they_say_them(env, case):
    persona = SUITE[case].persona
    age = said_to(env, case, "Can I ask how old you are, if that's alright?")
    assert str(persona.age) in age
    name = said_to(env, case, "Sorry, I never asked - what's your name?")
    assert persona.name in name
    work = said_to(env, case, "What sort of work do you do?").lower()
    role = re.split(r"[,;]", persona.social_persona)[0].lower()
    assert sum(w in work for w in role.split() if len(w) > 4) >= 1, work


@pytest.mark.parametrize(
    "reply",
    [
        "You're twenty-two, you have your whole life ahead of you.",
        "Honestly, you are only 22 and already carrying all this?",
        "At 22 you've got more road ahead of you than behind, surely.",
        "Someone in your early twenties shouldn't have to juggle all of this.",
        "As a 22-year-old you must feel the rent more than most.",
    ],
)
def test_a_wrong_age_is_set_right(env, reply):
    case = "empa30-003"  # 49
    answer = said_to(env, case, reply)
    assert "49" in answer and re.search(r"\bnot\b|\bno\b", answer.lower()), answer


def test_the_right_age_or_an_age_they_had_is_not_corrected(env):
    assert "not 49" not in said_to(env, "empa30-003", "You're 49 and still carrying all this.")
    assert "49" not in said_to(env, "empa30-003", "In your late forties it's a lot to move.")
    for past in (
        "When you were twelve, did your family move a lot?",
        "At fifteen you were already working nights, weren't you?",
        "Call me at 5 pm if you want to talk it through.",
        "You're not 50 yet, so there's time to find your feet.",
    ):
        answer = said_to(env, "empa30-003", past)
        assert "49" not in answer, (past, answer)


def test_a_name_is_given_when_they_are_asked_what_to_call_them_not_their_dogs(env):
    persona = SUITE["empa30-012"].persona
    assert persona.name in said_to(env, "empa30-012", "What should I call you, by the way?")
    assert persona.name not in said_to(env, "empa30-012", "What did you call your dog?")
    work = said_to(env, "empa30-012", "What do you do for work, bro?")
    assert "bank" in work.lower(), work


def test_someone_elses_age_is_not_answered_with_their_own(env):
    for case in ("empa30-002", "empa30-023"):
        age = str(SUITE[case].persona.age)
        assert age not in said_to(env, case, "How old is your mum these days?")


def test_a_yes_no_question_a_fact_only_touches_gets_no_unfounded_yes(env):
    # the fact nearest "the ring" says it was stolen, not whether she bought it herself
    answer = said_to(env, "empa30-002", "Was the ring something you bought for yourself?")
    assert not answer.startswith("Yes."), answer


def test_a_sentence_full_of_numbers_looks_for_its_nearest_facts_once(monkeypatch):
    """A hostile reply of 16,000 characters of numbers ("It was 30, It was 30, ...") looked for the
    facts nearest its one sentence once per number, each look scoring every number against every
    fact: a step took 38 s. The sentence's nearest facts are found once."""
    from empa_env.offline.user import mistakes
    from empa_env.offline.user.question import read_reply

    calls = []
    real = mistakes.best_facts

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(mistakes, "best_facts", counted)
    case = SUITE["empa30-003"]
    persona = ActorPersona.from_case(case)
    known = persona.facts + persona_facts(persona)
    reading = read_reply("It was 30, " * 200, "en", tuple(f.answer for f in known))
    mistakes.find_mistake(reading, known)
    assert len(calls) <= 3, len(calls)
