"""The LLM Actor listens too (issue 22): its prompt carries the facts it may tell and the
listening rules; its end markers end the episode (through the scripted server)."""

from __future__ import annotations

import dataclasses

import pytest

from empa_env.env import EMPAEnv
from empa_env.llm.roles import LLMActor, actor_ending
from empa_env.roles.views import ActorGuidance, ActorPersona, ActorView

from .conftest import HISTORY, MODEL


@pytest.mark.parametrize(
    ("raw", "text", "ends"),
    [
        ("Okay. Bye then. [END]", "Okay. Bye then.", "policy_left"),
        ("I'm done. [LEAVE]", "I'm done.", "user_left"),
        ("[ leave ] Fine.", "Fine.", "user_left"),
        ("Just talking.", "Just talking.", ""),
    ],
)
def test_end_markers(raw, text, ends):
    assert actor_ending(raw) == (text, ends)


def test_the_prompt_carries_facts_and_listening_rules_not_hidden_answers(case):
    hidden = [f for f in case.facts if f.stage is not None]
    view = ActorView(
        ActorPersona.from_case(case),
        HISTORY[:2],
        ActorGuidance(withheld=tuple(f.about for f in hidden)),
        1,
        7,
    )
    system = LLMActor(MODEL).messages(view)[0]["content"]
    assert "# What you can tell when asked" in system
    assert all(f.answer in system for f in case.facts if f.stage is None)
    assert not any(f.answer in system for f in hidden)
    assert hidden[0].about[0] in system.split("keep to yourself")[1]
    for rule in ("[END]", "[LEAVE]", "correct it", "empty", "Never repeat"):
        assert rule in system
    leaving = ActorView(view.persona, HISTORY[:2], ActorGuidance(leave=True), 1, 7)
    assert "you leave now" in LLMActor(MODEL).messages(leaving)[0]["content"]


def test_the_llm_actor_takes_a_goodbye_and_ends_the_episode(server, opts):
    env = EMPAEnv("empa30-v1", actor=f"llm:{MODEL}", judger="lexicon", llm_options=opts)
    env.reset(seed=1, options={"case": "empa30-029"})
    env.step("That sounds hard. Who is Kyle to you?")
    obs, _, term, trunc, info = env.step("I need to go now, goodbye.")
    assert term and not trunc and info["status"] == "policy_left"
    assert obs and "[END]" not in obs
    assert env.trajectory.outcome == "policy_left"


def test_the_llm_actor_answers_a_question_from_the_facts(server, opts):
    env = EMPAEnv("empa30-v1", actor=f"llm:{MODEL}", judger="lexicon", llm_options=opts)
    env.reset(seed=1, options={"case": "empa30-029"})
    obs, *_ = env.step("Who is Kyle, the nephew?")
    case = env.cases[[c.id for c in env.cases].index("empa30-029")]
    assert obs in {f.answer for f in case.facts if f.stage is None}, obs


def test_endings_do_not_depend_on_the_models_markers(case):
    """A goodbye ends the episode and spent patience makes the user leave whatever the model
    wrote; a stray marker after an ordinary reply ends nothing."""
    from empa_env.llm.roles import settled_ending
    from empa_env.roles.views import Message

    persona = ActorPersona.from_case(case)

    def view(reply, **guidance):
        history = (Message("user", "It's hard."), Message("assistant", reply))
        return ActorView(persona, history, ActorGuidance(**guidance), 1, 7)

    assert settled_ending(view("Okay, I have to head out now. Take care."), "") == "policy_left"
    assert settled_ending(view("What happened next?"), "policy_left") == ""
    assert settled_ending(view("What happened next?"), "user_left") == ""
    assert settled_ending(view("You're pathetic. Nobody cares."), "user_left") == "user_left"
    assert settled_ending(view("What happened next?", leave=True), "") == "user_left"
    opening = ActorView(persona, (), ActorGuidance(), 0, 7)
    assert settled_ending(opening, "policy_left") == ""
    chinese = ActorView(
        dataclasses.replace(persona, language="zh"),
        (Message("user", "很难。"), Message("assistant", "我得走了，再见。")),
        ActorGuidance(),
        1,
        7,
    )
    assert settled_ending(chinese, "policy_left") == "policy_left"  # the model's marker decides


def test_the_prompt_reads_the_last_reply_for_the_actor(case):
    """The LLM Actor's prompt says what the reply does, as the offline user reads it: the fact a
    question asks for, a goodbye, an empty message, a wrong tie between true people."""
    from empa_env.llm.render import actor_reading_text
    from empa_env.roles.views import Message

    persona = ActorPersona.from_case(case)
    person = next(f for f in case.facts if f.kind == "person" and f.stage is None)

    def note(reply, **guidance):
        history = (Message("user", "It's hard."), Message("assistant", reply))
        return actor_reading_text(ActorView(persona, history, ActorGuidance(**guidance), 1, 7))

    assert person.answer in note(f"Who is {person.about[0].capitalize()}?")
    assert "[END]" in note("I need to go now. Goodbye.")
    assert "empty" in note("   ")
    wrong = "cousin" if "cousin" not in person.about else "uncle"
    assert person.answer in note(f"So {person.about[0].capitalize()} is your {wrong}?")
    assert "patience" in note("You're pathetic.", patience=0.6)


def test_stage_directions_are_cut_and_the_answer_follows_the_question(case):
    """A small model writes "(She sighs.)" around its line; the note saying what to answer
    follows the assistant's message itself, where a small model reads it last."""
    from empa_env.llm.roles import clean_actor_text
    from empa_env.roles.views import Message

    assert clean_actor_text("(She sighs, looking away.) Fine. *shrugs*", "Ana") == "Fine."
    person = next(f for f in case.facts if f.kind == "person" and f.stage is None)
    history = (Message("user", "It's hard."), Message("assistant", f"Who is {person.about[0]}?"))
    view = ActorView(ActorPersona.from_case(case), history, ActorGuidance(), 1, 7)
    last = LLMActor(MODEL).messages(view)[-1]
    assert last["role"] == "user" and last["content"].startswith("Who is")
    assert person.answer in last["content"]
