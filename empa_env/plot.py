"""The hidden plot's rulebook: what has been released, what may be released, and what one
Director action does to the plot and to the Actor's next message.

The case's hidden plot has stages (exactly four in the case format: evoked memory, reflection,
self-examination, emotional eruption) and memories by life period. The Director releases them with
its tools (Echo-N1 / EMPA, the Director's seven tools):

* ``select_and_reveal_fragment(stage_index)`` and ``introduce_turning_point(stage_index,
  empathy_aspect)`` release a stage that is still hidden;
* ``reveal_memory(memory_period)`` releases each period once;
* ``adjust_empathy_strategy(focus_aspect)`` changes which need the user shows;
* ``end_conversation`` is allowed only once the ending rules allow it (``can_end``);
* ``observe_and_wait`` and ``continue_without_new_info`` change nothing in the plot.

:class:`PlotRules` is the frozen rule check (used by the LLM Director's validation and read by the
offline Director through :attr:`DirectorView.rules`); :class:`PlotState` is one episode's mutable
plot progress, which applies an action and returns the Actor's guidance (used by the env). There
is no other copy of these rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from empa_env.cases.schema import EMPATHY_ASPECTS, MEMORY_PERIODS, STANCES, Case, EmpathyAspect
from empa_env.roles.views import (
    DIRECTOR_TOOLS,
    ActorGuidance,
    DirectorAction,
    Message,
    PlotRules,
    Release,
    ReleaseKind,
)

STAGE_TOOLS: tuple[str, ...] = ("select_and_reveal_fragment", "introduce_turning_point")


def _number(value: Any) -> float | None:
    """A float from a tool argument, or None when absent or not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def violation(rules: PlotRules, tool: str, args: Mapping[str, Any]) -> str | None:
    """Why ``tool(args)`` breaks the plot's rules now, or ``None`` when it is allowed.

    The message names what would be allowed instead, so an LLM Director can act on it.
    """
    if tool not in DIRECTOR_TOOLS:
        return f"unknown tool {tool!r}; the tools are {', '.join(DIRECTOR_TOOLS)}"
    if tool in STAGE_TOOLS:
        index = args.get("stage_index")
        last = rules.n_stages - 1
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= last:
            return f"stage_index must be an integer between 0 and {last}, got {index!r}"
        if index in rules.released_stages:
            hidden = ", ".join(map(str, rules.hidden_stages)) or "none (use another tool)"
            return f"stage {index} is already released; hidden stages: {hidden}"
    elif tool == "reveal_memory":
        period = args.get("memory_period")
        if period not in MEMORY_PERIODS:
            return f"memory_period must be one of {', '.join(MEMORY_PERIODS)}, got {period!r}"
        if period in rules.revealed_memories:
            left = ", ".join(rules.memories_left) or "none (use another tool)"
            return f"the {period} memory was already revealed; left: {left}"
    elif tool == "adjust_empathy_strategy":
        aspect = args.get("focus_aspect")
        if aspect not in EMPATHY_ASPECTS:
            return f"focus_aspect must be one of {', '.join(EMPATHY_ASPECTS)}, got {aspect!r}"
    elif tool == "end_conversation" and not rules.can_end:
        return (
            f"end_conversation is not allowed before turn {rules.min_turns} "
            "(can_end: false); choose another tool"
        )
    return None


@dataclass
class PlotState:
    """One episode's plot progress; :meth:`apply` is the only way it changes."""

    case: Case
    released_stages: list[int] = field(default_factory=list)
    stage_release_turns: list[int] = field(default_factory=list)
    revealed_memories: list[str] = field(default_factory=list)
    #: Deeper emotions unlocked by the stages released so far (the Judger's resonance targets).
    released_emotions: list[str] = field(default_factory=list)
    #: The need the most recently released material brings forward.
    current_focus: EmpathyAspect | None = None
    #: The instruction the Actor follows in its next message.
    guidance: ActorGuidance | None = None

    def rules(self, *, can_end: bool, min_turns: int) -> PlotRules:
        """A frozen snapshot of what may be released now."""
        return PlotRules(
            n_stages=len(self.case.plot.stages),
            released_stages=tuple(self.released_stages),
            revealed_memories=tuple(self.revealed_memories),
            can_end=can_end,
            min_turns=min_turns,
        )

    def apply(
        self,
        action: DirectorAction,
        *,
        turn: int,
        history: Sequence[Message],
        can_end: bool,
        min_turns: int,
    ) -> DirectorAction:
        """Enforce the rules on ``action``, update the plot and set :attr:`guidance`.

        Returns the action as recorded: unchanged when allowed, with ``rejected`` set when it broke
        a rule (a rejected action changes nothing in the plot; the Actor still gets the stance).
        """
        args = action.args
        rejected = action.rejected
        if rejected is None:
            rejected = violation(
                self.rules(can_end=can_end, min_turns=min_turns), action.tool, args
            )
        tool = action.tool if rejected is None else "observe_and_wait"
        release: Release | None = None
        focus: str | None = None
        if tool in STAGE_TOOLS:
            release, focus = self._release_stage(tool, args, turn)
        elif tool == "reveal_memory":
            release = self._reveal_memory(args["memory_period"])
        elif tool == "adjust_empathy_strategy":
            focus = args["focus_aspect"]
        if release is None:
            release = self._unfinished_release(history)
        stance = args.get("stance") if args.get("stance") in STANCES else None
        text = str(args.get("actor_guidance") or args.get("focus_suggestion") or "")
        released = set(self.released_stages)
        hidden = [f for f in self.case.facts if f.stage is not None and f.stage not in released]
        self.guidance = ActorGuidance(
            text=text,
            stance=stance,  # type: ignore[arg-type]
            focus=focus,  # type: ignore[arg-type]
            release=release,
            facts=tuple(f for f in self.case.facts if f.stage is not None and f.stage in released),
            withheld=tuple(f.about for f in hidden),
            withheld_kinds=tuple(f.kind for f in hidden),
            rapport=_number(args.get("rapport")),
            patience=_number(args.get("patience")),
            leave=bool(args.get("leave", False)),
        )
        if rejected != action.rejected:
            return DirectorAction(action.tool, dict(args), rejected=rejected)
        return action

    # --- the effects of the releasing tools ---------------------------------------------------
    def _release_stage(self, tool: str, args: Mapping[str, Any], turn: int) -> tuple[Release, str]:
        index = int(args["stage_index"])
        stage = self.case.plot.stages[index]
        kind: ReleaseKind = "stage" if tool == "select_and_reveal_fragment" else "turning_point"
        self.released_stages.append(index)
        self.stage_release_turns.append(turn)
        self.released_emotions.extend(stage.emotions)
        aspect = args.get("empathy_aspect")
        focus: EmpathyAspect = aspect if aspect in EMPATHY_ASPECTS else stage.focus
        self.current_focus = focus
        return Release(kind, str(index), stage.summary, stage.narration), focus

    def _reveal_memory(self, period: str) -> Release:
        self.revealed_memories.append(period)
        lines = getattr(self.case.voice.memories, period)
        return Release("memory", period, getattr(self.case.experience, period, lines[0]), lines)

    def _unfinished_release(self, history: Sequence[Message]) -> Release | None:
        """Material released earlier that the user has not finished telling (kept until told)."""
        if self.guidance is None or self.guidance.release is None:
            return None
        pending = self.guidance.release
        said = " ".join(m.content for m in history if m.role == "user")
        return pending if any(line not in said for line in pending.lines) else None


__all__ = ["STAGE_TOOLS", "PlotRules", "PlotState", "violation"]
