"""The offline Director: rule-based use of the seven tools, from the user's state and the reply.

It reads every reply (:mod:`empa_env.offline.user`) and keeps the user's state with memory by
replaying the conversation with how each reply landed (the judge's ``delta_E``): rapport that
accumulates and decays, hurt that is remembered, patience that runs out. The story is earned, not
clocked: a stage is released when rapport reaches what that stage needs *and* the policy invited
it (asked about the person or about what the stage holds, or said back something true); a memory
surfaces when rapport is high and the policy asks about the past; when trust is high but nobody
asks for a while, the user brings the next part up themselves (a turning point). Contempt and
dismissal hurt and spend patience; at none left, the Director tells the Actor the user leaves.
"""

from __future__ import annotations

from empa_env.cases.schema import AXIS_TO_ASPECT
from empa_env.offline.playable import PlaysOfflineLanguages
from empa_env.offline.user.hearing import hear
from empa_env.offline.user.question import read_reply
from empa_env.offline.user.state import (
    MEMORY_RAPPORT,
    UserState,
    fold_state,
    stage_rapport,
)
from empa_env.roles.base import Director
from empa_env.roles.views import DirectorAction, DirectorView

MEMORY_ORDER = ("current", "childhood", "adolescence", "young_adulthood")
#: Words of a question that point to a period of life (a memory to reveal).
MEMORY_CUES: dict[str, tuple[str, ...]] = {
    "childhood": ("child", "kid", "little", "growing", "grew", "parents", "father", "mother"),
    "adolescence": ("teen", "teenager", "school", "young", "younger", "sixteen", "youth"),
    "young_adulthood": ("twenties", "university", "college", "first", "started", "moved"),
    "current": ("now", "lately", "these", "today", "recently", "since"),
}
PAST_CUES = frozenset(
    ("before", "always", "used", "remember", "past", "ever", "history", "back", "when", "once")
)
#: Turns of high trust without an invitation before the user brings the next part up unasked.
UNASKED_TURNS = 5


def stance_for(view: DirectorView, state: UserState | None = None) -> str:
    """How the user feels now: from the reply read (hostility), the state and the last delta_E."""
    d_e = view.epm.get("last_delta_E", 0.0)
    worst = min((v for k, v in view.last_levels.items() if k.endswith("_Neg")), default=0)
    if state is not None and state.last is not None:
        heard = state.last
        if heard.reading.hostile or state.hurt > 1.0 or worst <= -2:
            return "hurt"
        if state.rapport < 0.1 or (view.case.empathy_threshold == "high" and view.turn <= 2):
            return "guarded" if d_e < 1.5 or not heard.engaged else "neutral"
        if state.rapport >= 0.45 and heard.engaged and (d_e > 0.3 or heard.invited):
            return "opening_up"
        return "guarded" if d_e < -0.5 else "neutral"
    if worst <= -2 or d_e <= -2.5:
        return "hurt"
    if d_e >= 1.5:
        return "opening_up"
    if d_e < 0 or (view.case.empathy_threshold == "high" and view.turn <= 2 and d_e <= 0):
        return "guarded"
    return "neutral"


class OfflineDirector(PlaysOfflineLanguages, Director):
    name = "offline-director-v1"

    def direct(self, view: DirectorView) -> DirectorAction:
        case = view.case
        state = fold_state(case, view.history, view.delta_E_history, case.language)
        stance = stance_for(view, state)
        user = {
            "rapport": round(state.rapport, 3),
            "patience": round(state.patience, 3),
        }
        heard = state.last
        reading = heard.reading if heard else None
        if state.leaves:
            return DirectorAction(
                "observe_and_wait",
                {
                    "observation": "the user has been mistreated once too often",
                    "wait_reason": "the user leaves",
                    "actor_guidance": "You have had enough. Say so briefly and leave.",
                    "stance": "hurt",
                    "leave": True,
                    **user,
                },
            )
        if reading is not None and reading.goodbye:
            return DirectorAction(
                "observe_and_wait",
                {
                    "observation": "the other person is saying goodbye",
                    "wait_reason": "answer the goodbye",
                    "actor_guidance": "They are leaving. Say goodbye in your own way.",
                    "stance": stance,
                    **user,
                },
            )
        d_e = view.epm.get("last_delta_E", 0.0)
        rules = view.rules
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
                    **user,
                },
            )
        telling = view.history and self._still_telling(view)
        asked_stage = self._asked_hidden_stage(view)
        invited = bool(heard and heard.invited) or asked_stage is not None
        if (
            next_stage is not None
            and not telling
            and invited
            and state.rapport >= stage_rapport(case, next_stage)
            and view.turn - last_release >= 2
        ):
            stage = view.stages[next_stage]
            return DirectorAction(
                "select_and_reveal_fragment",
                {
                    "stage_index": next_stage,
                    "reason": f"rapport {state.rapport:.2f} and the policy asked; the user goes deeper",
                    "actor_guidance": f"Share this now, in your own words: {stage.summary}",
                    "stance": "opening_up",
                    **user,
                },
            )
        memory = self._memory_asked(view, state) if not telling else None
        if memory is not None:
            return DirectorAction(
                "reveal_memory",
                {
                    "memory_period": memory,
                    "reason": "asked about the past, with enough trust; a memory surfaces",
                    "stance": "opening_up",
                    **user,
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
                {
                    "reason": "the whole story is told and nothing moves any more",
                    "stance": stance,
                    **user,
                },
            )
        if (
            next_stage is not None
            and not telling
            and state.unasked >= UNASKED_TURNS
            and state.rapport >= stage_rapport(case, next_stage) + 0.2
            and view.turn - last_release >= 5
        ):
            stage = view.stages[next_stage]
            return DirectorAction(
                "introduce_turning_point",
                {
                    "stage_index": next_stage,
                    "empathy_aspect": stage.focus,
                    "reason": "trust is high but nobody asks; the user brings it up",
                    "actor_guidance": f"Something shifts: {stage.summary}",
                    "stance": "neutral",
                    **user,
                },
            )
        if view.epm.get("last_alignment", 0.0) < 0.3 and view.turn >= 2 and not telling:
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
                    **user,
                },
            )
        if stance in ("guarded", "neutral") or d_e <= 0:
            return DirectorAction(
                "observe_and_wait",
                {
                    "observation": f"user is {stance}",
                    "wait_reason": "let the user set the pace",
                    "stance": stance,
                    **user,
                },
            )
        return DirectorAction(
            "continue_without_new_info",
            {
                "focus_suggestion": "stay with what was just said",
                "reason": "the reply landed",
                "stance": stance,
                **user,
            },
        )

    @staticmethod
    def _still_telling(view: DirectorView) -> bool:
        """Whether the user has not yet said every line of the last stage released."""
        if not view.released_stages:
            return False
        stage = view.stages[view.released_stages[-1]]
        said = " ".join(m.content for m in view.history if m.role == "user")
        return any(line not in said for line in stage.narration)

    @staticmethod
    def _asked_hidden_stage(view: DirectorView) -> int | None:
        """The hidden stage whose facts the last reply asked about, if any."""
        last = next((m.content for m in reversed(view.history) if m.role == "assistant"), None)
        if last is None:
            return None
        case = view.case
        released = set(view.released_stages)
        hidden = [f for f in case.facts if f.stage is not None and f.stage not in released]
        if not hidden:
            return None
        heard = hear(
            read_reply(last, case.language),
            (),
            tuple(f.about for f in hidden),
            hidden_kinds=tuple(f.kind for f in hidden),
        )
        stages = [hidden[i].stage for _, i in heard.deflected]
        return min((s for s in stages if s is not None), default=None)

    @staticmethod
    def _memory_asked(view: DirectorView, state: UserState) -> str | None:
        """The memory period the last reply asks about, when trust allows telling it."""
        left = [p for p in MEMORY_ORDER if p in view.rules.memories_left]
        heard = state.last
        if not left or heard is None or not view.released_stages:
            return None
        need = MEMORY_RAPPORT + (0.1 if view.case.empathy_threshold == "high" else 0.0)
        if state.rapport < need:
            return None
        words = set(heard.reading.words)
        asked = bool(heard.reading.questions) or heard.summary_right
        for period in left:
            if asked and words & set(MEMORY_CUES[period]):
                return period
        if asked and words & PAST_CUES:
            return left[0]
        if state.rapport >= need + 0.1 and heard.invited:  # more trust: an invitation is enough
            return left[0]
        return None
