"""The LLM Director: the seven tools as function-calling schemas, the JSON fallback, the rules."""

from __future__ import annotations

import json

import pytest

from empa_env.llm.client import Completion, ToolCall
from empa_env.llm.parsing import OutputError
from empa_env.llm.roles import LLMDirector
from empa_env.llm.tools import DIRECTOR_TOOL_SCHEMAS, call_from_json_text, tools_text, validate_call
from empa_env.roles.views import DIRECTOR_TOOLS

from .conftest import MODEL, director_view


def test_schemas_cover_the_seven_tools():
    names = [t["function"]["name"] for t in DIRECTOR_TOOL_SCHEMAS]
    assert tuple(names) == DIRECTOR_TOOLS
    for tool in DIRECTOR_TOOL_SCHEMAS:
        params = tool["function"]["parameters"]
        assert params["type"] == "object"
        assert set(params["required"]) <= set(params["properties"])
        json.dumps(tool)  # serialisable as sent
    text = tools_text()
    assert all(name in text for name in DIRECTOR_TOOLS)


def test_rules_are_enforced(case):
    view = director_view(case, released_stages=(0,), revealed_memories=("childhood",))
    ok = validate_call("select_and_reveal_fragment", {"stage_index": "1", "reason": "r"}, view)
    assert ok.tool == "select_and_reveal_fragment" and ok.args["stage_index"] == 1
    cases = [
        ("end_conversation", {"reason": "done"}, "not allowed before turn"),
        ("select_and_reveal_fragment", {"stage_index": 0}, "already released"),
        ("select_and_reveal_fragment", {"stage_index": 4}, "between 0 and 3"),
        ("reveal_memory", {"memory_period": "childhood"}, "already revealed"),
        ("reveal_memory", {"memory_period": "infancy"}, "memory_period in"),
        ("adjust_empathy_strategy", {"focus_aspect": "spiritual"}, "focus_aspect in"),
        ("introduce_turning_point", {"empathy_aspect": "affective"}, "needs stage_index"),
        ("fly_away", {}, "unknown tool"),
    ]
    for name, args, message in cases:
        with pytest.raises(OutputError, match=message):
            validate_call(name, args, view)
    assert validate_call("end_conversation", {}, director_view(case, can_end=True)).tool == (
        "end_conversation"
    )


def test_free_text_arguments_default_and_extras_are_dropped(case):
    action = validate_call(
        "observe_and_wait", {"mood": "x", "stance": "Opening up"}, director_view(case)
    )
    assert action.args == {"observation": "", "wait_reason": "", "stance": "opening_up"}


@pytest.mark.parametrize(
    "text",
    [
        '{"tool": "observe_and_wait", "args": {"observation": "o"}}',
        '{"name": "observe_and_wait", "arguments": "{\\"observation\\": \\"o\\"}"}',
        '{"function": {"name": "observe_and_wait", "arguments": {"observation": "o"}}}',
        'Sure! {"tool_calls": [{"name": "observe_and_wait", "arguments": {"observation": "o"}}]}',
    ],
)
def test_json_tool_call_fallback_forms(text):
    assert call_from_json_text(text) == ("observe_and_wait", {"observation": "o"})


def test_only_the_first_native_call_is_used(case):
    completion = Completion(
        text="",
        tool_calls=(
            ToolCall("reveal_memory", '{"memory_period": "current", "reason": "r"}'),
            ToolCall("end_conversation", "{}"),
        ),
    )
    action = LLMDirector.parse(completion, director_view(case))
    assert action.tool == "reveal_memory" and action.args["memory_period"] == "current"


def test_native_function_calling(server, opts, case):
    director = LLMDirector(MODEL, function_calling="native", **opts)
    action = director.direct(director_view(case, turn=2))
    assert action.tool == "select_and_reveal_fragment" and action.args["stage_index"] == 0
    assert server.requests[0].tools and not server.requests[0].json_mode


def test_json_mode(server, opts, case):
    director = LLMDirector(MODEL, function_calling="json", **opts)
    action = director.direct(director_view(case, turn=2, released_stages=(0,)))
    assert action.tool == "select_and_reveal_fragment" and action.args["stage_index"] == 1
    assert not server.requests[0].tools and server.requests[0].json_mode


def test_auto_falls_back_to_json_when_the_server_rejects_tools(server, opts, case):
    server.reject_tools = True
    director = LLMDirector(MODEL, **opts)
    action = director.direct(director_view(case, turn=3))
    assert action.tool == "observe_and_wait" and "director_failure" not in action.args
    assert [r.tools for r in server.requests] == [True, False]
    # the switch is recorded on the turn it happened (the action's args go to the trajectory)
    assert action.args["function_calling_switch"].startswith("native -> json (tools rejected")
    later = director.direct(director_view(case, turn=4))
    assert server.requests[-1].tools is False  # stays in JSON mode
    assert "function_calling_switch" not in later.args


def test_state_block_and_plot_reach_the_director(case):
    director = LLMDirector(MODEL)
    view = director_view(case, released_stages=(1,), can_end=True)
    text = "\n".join(m["content"] for m in director.messages(view, json_mode=False))
    assert "can_end: true" in text and "released stages: 1" in text
    assert "stage 1 (reflection" in text and "[RELEASED]" in text
    assert case.plot.stages[3].summary in text


def test_a_forbidden_end_is_re_asked_then_falls_back(server, opts, case):
    director = LLMDirector(MODEL, max_repairs=1, **opts)
    # The scripted Director ends whenever it reads "can_end: true"; the view forbids it. Each
    # re-ask carries the refusal, and after max_repairs the Director waits, with the reason.
    view = director_view(case, can_end=False, epm={"note": "can_end: true"})
    action = director.direct(view)
    assert action.tool == "observe_and_wait"
    assert "end_conversation is not allowed" in action.args["director_failure"]
    assert len(server.requests) == 2
    assert director.usage()["failures"] == {"rule": 1}


def test_malformed_tool_arguments_are_repaired(server, opts, case):
    server.inject("malformed", times=1, role="director")
    director = LLMDirector(MODEL, function_calling="native", **opts)
    action = director.direct(director_view(case, turn=1))
    assert action.tool == "observe_and_wait" and "director_failure" not in action.args
    assert len(server.requests) == 2 and director.usage()["repairs"] == 1


def test_auto_switches_to_json_when_tools_are_accepted_but_never_called(server, opts, case):
    server.inject("refusal", times=2, role="director")  # prose, no tool call
    director = LLMDirector(MODEL, max_repairs=1, **opts)
    action = director.direct(director_view(case, turn=2))
    assert action.tool == "select_and_reveal_fragment" and "director_failure" not in action.args
    assert [r.tools for r in server.requests] == [True, True, False]
    assert director.failures == []


def test_native_mode_never_switches(server, opts, case):
    server.inject("refusal", times=2, role="director")
    director = LLMDirector(MODEL, function_calling="native", max_repairs=1, **opts)
    action = director.direct(director_view(case, turn=2))
    assert action.tool == "observe_and_wait" and "refusal" in action.args["director_failure"]
    assert [r.tools for r in server.requests] == [True, True]
