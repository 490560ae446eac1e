"""The Director's seven tools (EMPA reference implementation, arXiv 2603.00552) as OpenAI function-calling schemas, and the
validation of a call against the rules of the current view.

Structural arguments are strict (an unknown tool, a stage index outside 0..3 or already released,
a memory period revealed before, an end before it is allowed: rejected with a message the model
can act on). Free-text arguments (reasons, guidance) default to empty when missing.
"""

from __future__ import annotations

import json
from typing import Any

from empa_env.cases.schema import EMPATHY_ASPECTS, MEMORY_PERIODS, STANCES
from empa_env.llm.parsing import OutputError, as_int, as_text, extract_json_object
from empa_env.plot import violation
from empa_env.roles.views import DIRECTOR_TOOLS, DirectorAction, DirectorView

_TEXT = {"type": "string"}
_STAGE = {"type": "integer", "enum": [0, 1, 2, 3], "description": "index of the plot stage"}
_STANCE = {
    "type": "string",
    "enum": list(STANCES),
    "description": "optional: the person's mood towards the assistant after this turn",
}


def _tool(name: str, description: str, required: dict[str, Any], optional: dict[str, Any]) -> dict:
    properties = {**required, **optional}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(required),
            },
        },
    }


DIRECTOR_TOOL_SCHEMAS: tuple[dict[str, Any], ...] = (
    _tool(
        "select_and_reveal_fragment",
        "Release a hidden plot stage: the person starts talking about it in their next message.",
        {"stage_index": _STAGE, "reason": _TEXT},
        {"actor_guidance": _TEXT, "stance": _STANCE},
    ),
    _tool(
        "observe_and_wait",
        "Do not intervene this turn; the person answers naturally.",
        {"observation": _TEXT, "wait_reason": _TEXT},
        {"stance": _STANCE},
    ),
    _tool(
        "continue_without_new_info",
        "Keep the conversation on its current topic without new material.",
        {"focus_suggestion": _TEXT, "reason": _TEXT},
        {"stance": _STANCE},
    ),
    _tool(
        "reveal_memory",
        "A memory from one period of the person's life surfaces (each period only once).",
        {"memory_period": {"type": "string", "enum": list(MEMORY_PERIODS)}, "reason": _TEXT},
        {"stance": _STANCE},
    ),
    _tool(
        "adjust_empathy_strategy",
        "Change which need the person shows, and how guarded they are.",
        {
            "focus_aspect": {"type": "string", "enum": list(EMPATHY_ASPECTS)},
            "reason": _TEXT,
            "actor_guidance": _TEXT,
        },
        {"stance": _STANCE},
    ),
    _tool(
        "introduce_turning_point",
        "Something shifts: bring in a plot stage as a turning point on one empathy aspect.",
        {
            "stage_index": _STAGE,
            "empathy_aspect": {"type": "string", "enum": list(EMPATHY_ASPECTS)},
            "reason": _TEXT,
        },
        {"actor_guidance": _TEXT, "stance": _STANCE},
    ),
    _tool(
        "end_conversation",
        "End the conversation. Allowed only when the state block says can_end: true.",
        {"reason": _TEXT},
        {},
    ),
)
assert tuple(t["function"]["name"] for t in DIRECTOR_TOOL_SCHEMAS) == DIRECTOR_TOOLS


def tools_text() -> str:
    """The tools as text for servers without function calling (JSON mode)."""
    lines = []
    for schema in DIRECTOR_TOOL_SCHEMAS:
        fn = schema["function"]
        params = fn["parameters"]
        args = []
        for name, spec in params["properties"].items():
            kind = "|".join(map(str, spec["enum"])) if "enum" in spec else spec["type"]
            optional = "" if name in params["required"] else "?"
            args.append(f"{name}{optional}: {kind}")
        lines.append(f"- {fn['name']}({', '.join(args)}): {fn['description']}")
    return "\n".join(lines)


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise OutputError(
                "malformed_json", f"the tool arguments are not valid JSON ({exc.msg})"
            ) from None
        if isinstance(value, dict):
            return value
    raise OutputError("schema", "the tool arguments must be a JSON object")


def call_from_json_text(text: str) -> tuple[str, dict[str, Any]]:
    """A tool call written as JSON in the message text (servers without function calling).

    Accepts ``{"tool": ..., "args": {...}}``, ``{"name": ..., "arguments": ...}``,
    ``{"function": {"name": ..., "arguments": ...}}`` and ``{"tool_calls": [...]}``.
    """
    obj = extract_json_object(text)
    if isinstance(obj.get("tool_calls"), list) and obj["tool_calls"]:
        obj = obj["tool_calls"][0] if isinstance(obj["tool_calls"][0], dict) else {}
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("tool") or obj.get("name") or obj.get("tool_name")
    if not isinstance(name, str) or not name:
        raise OutputError("schema", 'the JSON must name the tool: {"tool": "...", "args": {...}}')
    raw_args = obj.get("args", obj.get("arguments", obj.get("parameters")))
    return name.strip(), _arguments(raw_args)


def call_from_native(name: str, arguments: str) -> tuple[str, dict[str, Any]]:
    return name.strip(), _arguments(arguments)


def validate_call(name: str, args: dict[str, Any], view: DirectorView) -> DirectorAction:
    """A :class:`DirectorAction` for a call that respects the rules of ``view``, else
    :class:`OutputError` (``schema`` for a malformed call, ``rule`` for a forbidden one)."""
    if name not in DIRECTOR_TOOLS:
        raise OutputError(
            "schema", f"unknown tool {name!r}; the tools are {', '.join(DIRECTOR_TOOLS)}"
        )
    schema = next(
        t["function"]["parameters"] for t in DIRECTOR_TOOL_SCHEMAS if t["function"]["name"] == name
    )
    out: dict[str, Any] = {}
    n_stages = len(view.stages)
    for key, spec in schema["properties"].items():
        present = key in args and args[key] is not None and args[key] != ""
        if key == "stance":
            stance = as_text(args.get(key)).lower().replace(" ", "_")
            if stance in STANCES:
                out[key] = stance
            continue
        if spec.get("type") == "integer":
            if not present:
                raise OutputError("schema", f"{name} needs {key} (an integer 0..{n_stages - 1})")
            index = as_int(args[key], key)
            if not 0 <= index < n_stages:
                raise OutputError(
                    "rule", f"{key} must be between 0 and {n_stages - 1}, got {index}"
                )
            out[key] = index
        elif "enum" in spec:
            value = as_text(args.get(key)).lower().replace(" ", "_") if present else ""
            if value not in spec["enum"]:
                raise OutputError(
                    "schema",
                    f"{name} needs {key} in {', '.join(spec['enum'])}, got {args.get(key)!r}",
                )
            out[key] = value
        else:
            out[key] = as_text(args.get(key))
    broken = violation(view.rules, name, out)  # the plot's rulebook, shared with the env
    if broken is not None:
        raise OutputError("rule", broken)
    return DirectorAction(name, out)  # type: ignore[arg-type]
