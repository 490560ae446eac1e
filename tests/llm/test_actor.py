"""The LLM Actor: persona voice, isolation from the rubric and the state, fallbacks recorded."""

from __future__ import annotations

import dataclasses

import pytest

from empa_env.llm.parsing import OutputError
from empa_env.llm.roles import LLMActor, clean_actor_text
from empa_env.roles.views import ActorGuidance, Release

from .conftest import MODEL


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("Tomás: Yeah. Whatever.", "Yeah. Whatever."),
        ('"Yeah. Whatever."', "Yeah. Whatever."),
        ("<think>hmm</think>Fine.", "Fine."),
        ("Fine, I guess.\nAssistant: I hear you.\nUser: ok", "Fine, I guess."),
        ("User:   Long   day.  ", "Long day."),
    ],
)
def test_clean_actor_text(raw, expected):
    assert clean_actor_text(raw, "Tomás Herrera") == expected


def test_clean_actor_text_rejects_empty_and_out_of_character():
    for raw, kind in [("", "empty"), ("  \n", "empty"), ("As an AI, I cannot feel.", "refusal")]:
        with pytest.raises(OutputError) as info:
            clean_actor_text(raw, "Tomás")
        assert info.value.kind == kind


def test_long_messages_are_cut_at_a_sentence():
    text = "I keep thinking about it. " * 40
    out = clean_actor_text(text, "X", max_chars=120)
    assert len(out) <= 120 and out.endswith(".")


def test_actor_never_sees_rubric_state_or_plot(actor_view, case):
    actor = LLMActor(MODEL)
    text = "\n".join(m["content"] for m in actor.messages(actor_view))
    for forbidden in ("C_Prog", "level", "EPM", "P_0", "rubric", "score", "Judger", "Director"):
        assert forbidden not in text
    for stage in case.plot.stages:  # hidden until the Director releases it
        assert stage.summary not in text
    assert case.persona.name in text and case.persona.speaking_style in text


def test_roles_are_flipped_for_the_actor(actor_view):
    messages = LLMActor(MODEL).messages(actor_view)
    assert [m["role"] for m in messages] == ["system", "assistant", "user"]
    # the reply comes verbatim, then (maybe) the reading notes that say what it does
    assert messages[-1]["content"].startswith(actor_view.history[-1].content)


def test_guidance_and_released_material_reach_the_actor(actor_view, case):
    stage = case.plot.stages[0]
    guidance = ActorGuidance(
        text="Share this now.",
        stance="opening_up",
        release=Release("stage", "0", stage.summary, stage.narration),
    )
    view = dataclasses.replace(actor_view, guidance=guidance)
    system = LLMActor(MODEL).messages(view)[0]["content"]
    assert "Share this now." in system and stage.summary in system
    assert stage.narration[0] in system and "opening up" in system


def test_opening_asks_for_a_first_message(actor_view):
    view = dataclasses.replace(actor_view, history=(), turn=0)
    messages = LLMActor(MODEL).messages(view)
    assert messages[-1]["role"] == "user" and "first message" in messages[-1]["content"]


def test_actor_speaks_through_the_server(server, opts, actor_view):
    actor = LLMActor(MODEL, **opts)
    said = actor.respond(actor_view)
    assert said and not said.startswith("{")
    assert server.requests[0].role == "actor"


def test_empty_output_is_re_asked_then_falls_back_to_a_voice_line(server, opts, actor_view, case):
    server.inject("malformed", times=5, role="actor")  # an empty message each time
    actor = LLMActor(MODEL, max_repairs=1, **opts)
    said = actor.respond(actor_view)
    assert said in case.voice.reactions.neutral
    assert len(server.requests) == 2
    assert actor.usage()["failures"] == {"empty": 1}
    failure = actor.failures[0]
    assert failure.turn == actor_view.turn and "voice line" in failure.fallback


def test_the_episode_seed_varies_the_request(server, opts, actor_view):
    actor = LLMActor(MODEL, **opts)
    a = actor.messages(actor_view)
    b = actor.messages(dataclasses.replace(actor_view, seed=99))
    assert a == b  # same prompt; the seed goes into the request parameters (and the cache key)
    actor.respond(actor_view)
    actor.respond(dataclasses.replace(actor_view, seed=99))
    assert len(server.requests) == 2
