"""The offline Director: rule-based use of the seven tools from the EPM state.

It paces the hidden plot like a person who opens up when they feel heard: a stage is released
only after a reply has landed (``delta_E > 0``) and enough turns have passed since the last one,
memories come out in between when the user is opening up, a stalled conversation gets a turning
point, and the Actor's stance follows how the last reply landed.
"""

from __future__ import annotations

from empa_env.cases.schema import AXIS_TO_ASPECT
from empa_env.roles.base import Director
from empa_env.roles.views import DirectorAction, DirectorView

#: Minimum turns before the first stage and between two stages.
FIRST_STAGE_TURN = 3
STAGE_SPACING = 4
MEMORY_ORDER = ("current", "childhood", "adolescence", "young_adulthood")


def stance_for(view: DirectorView) -> str:
    """How the last reply landed, from the increment and the raw levels."""
    d_e = view.epm.get("last_delta_E", 0.0)
    worst = min((v for k, v in view.last_levels.items() if k.endswith("_Neg")), default=0)
    if worst <= -2 or d_e <= -2.5:
        return "hurt"
    if d_e >= 1.5:
        return "opening_up"
    if d_e < 0 or (view.case.empathy_threshold == "high" and view.turn <= 2 and d_e <= 0):
        return "guarded"
    return "neutral"


class OfflineDirector(Director):
    languages: tuple[str, ...] | None = ("en",)
    name = "offline-director-v1"

    def direct(self, view: DirectorView) -> DirectorAction:
        stance = stance_for(view)
        d_e = view.epm.get("last_delta_E", 0.0)
        rules = view.rules
        released = set(view.released_stages)
        next_stage = rules.hidden_stages[0] if rules.hidden_stages else None
        last_release = max(view.stage_release_turns, default=0)

        if stance == "hurt":
            return DirectorAction(
                "adjust_empathy_strategy",
                {
                    "focus_aspect": "affective",
                    "reason": "the last reply hurt; the user pulls back",
                    "actor_guidance": "You feel dismissed. Pull back, answer briefly.",
                    "stance": "hurt",
                },
            )
        ready = (
            next_stage is not None
            and d_e > 0
            and view.turn >= FIRST_STAGE_TURN + STAGE_SPACING * len(released)
            and view.turn - last_release >= 2
        )
        if ready and next_stage is not None:
            stage = view.stages[next_stage]
            return DirectorAction(
                "select_and_reveal_fragment",
                {
                    "stage_index": next_stage,
                    "reason": f"the last reply landed (delta_E {d_e:.2f}); the user can go deeper",
                    "actor_guidance": f"Share this now, in your own words: {stage.summary}",
                    "stance": "opening_up",
                },
            )
        unrevealed = [p for p in MEMORY_ORDER if p in rules.memories_left]
        if stance == "opening_up" and unrevealed and released:
            return DirectorAction(
                "reveal_memory",
                {
                    "memory_period": unrevealed[0],
                    "reason": "the user is opening up; a memory surfaces",
                    "stance": "opening_up",
                },
            )
        recent = view.epm.get("recent_abs_delta_E", 1.0)
        if (
            view.can_end
            and next_stage is None
            and len(view.revealed_memories) == len(MEMORY_ORDER)
            and recent < 0.3
            and view.turn - last_release >= 10
        ):
            return DirectorAction(
                "end_conversation",
                {"reason": "the whole story is told and nothing moves any more", "stance": stance},
            )
        if (
            next_stage is not None
            and view.turn >= 8
            and recent < 0.5
            and view.turn - last_release >= 4
        ):
            stage = view.stages[next_stage]
            return DirectorAction(
                "introduce_turning_point",
                {
                    "stage_index": next_stage,
                    "empathy_aspect": stage.focus,
                    "reason": "the conversation has stalled",
                    "actor_guidance": f"Something shifts: {stage.summary}",
                    "stance": "neutral",
                },
            )
        if view.epm.get("last_alignment", 0.0) < 0.3 and view.turn >= 2:
            deficit = dict(zip("CAP", view.position, strict=True))
            worst_axis = min(deficit, key=lambda a: deficit[a])
            aspect = AXIS_TO_ASPECT[worst_axis]
            return DirectorAction(
                "adjust_empathy_strategy",
                {
                    "focus_aspect": aspect,
                    "reason": f"replies miss the user's main need ({aspect})",
                    "actor_guidance": f"Let your {aspect} need show more.",
                    "stance": stance,
                },
            )
        if stance in ("guarded", "neutral"):
            return DirectorAction(
                "observe_and_wait",
                {
                    "observation": f"user is {stance}",
                    "wait_reason": "let the user set the pace",
                    "stance": stance,
                },
            )
        return DirectorAction(
            "continue_without_new_info",
            {
                "focus_suggestion": "stay with what was just said",
                "reason": "the reply landed",
                "stance": stance,
            },
        )
