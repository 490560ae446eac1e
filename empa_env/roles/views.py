"""What each role is allowed to see. Isolation is structural: a role receives only its view.

* The **policy** sees the conversation (the user's words and its own replies), nothing else.
* The **Actor** sees its persona material (:class:`ActorPersona`: no plot, no IEDR, no judge cues),
  the history and the Director's guidance; never the rubric, the state or any score.
* The **Judger** sees the user's profile and cues, the history and the reply to rate; never the
  state, the plot or the Director.
* The **Director** sees everything about the case (hidden plot included), the history and the
  EPM state block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from empa_env.cases.schema import (
    MEMORY_PERIODS,
    Case,
    Cues,
    EmpathyAspect,
    Experience,
    Fact,
    FactKind,
    Persona,
    PlotStage,
    Profile,
    Stance,
    Voice,
)

Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class Message:
    """One utterance. ``user`` is the simulated person, ``assistant`` the policy."""

    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


History = tuple[Message, ...]
#: What plot material a :class:`Release` hands over.
ReleaseKind = Literal["stage", "memory", "turning_point"]


@dataclass(frozen=True)
class ActorPersona:
    """The part of a case the Actor may read: who it is, not what is hidden or how it is scored."""

    case_id: str
    language: str
    persona: Persona
    profile: Profile
    experience: Experience
    scenario_trigger: str
    voice: Voice
    #: The facts the user can tell from the first turn (``stage: null``); the others come with
    #: their stage, through the Director's guidance.
    facts: tuple[Fact, ...] = ()

    @classmethod
    def from_case(cls, case: Case) -> ActorPersona:
        return cls(
            case_id=case.id,
            language=case.language,
            persona=case.persona,
            profile=case.profile,
            experience=case.experience,
            scenario_trigger=case.scenario_trigger,
            voice=case.voice,
            facts=tuple(f for f in case.facts if f.stage is None),
        )


@dataclass(frozen=True)
class Release:
    """Plot material the Director hands to the Actor to speak about.

    ``kind`` is ``"stage"`` (a plot stage), ``"memory"`` (a memory period) or ``"turning_point"``.
    """

    kind: ReleaseKind
    key: str
    summary: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class ActorGuidance:
    """The Director's instruction to the Actor for the next message.

    ``text`` is what an LLM Actor reads; ``stance``, ``focus`` and ``release`` are the same
    instruction in structured form for the offline Actor.
    """

    text: str = ""
    stance: Stance | None = None
    focus: EmpathyAspect | None = None
    release: Release | None = None
    #: Facts released with the plot stages told so far (answerable now).
    facts: tuple[Fact, ...] = ()
    #: The ``about`` words (and kinds) of the facts still kept back: asked about, the user deflects.
    withheld: tuple[tuple[str, ...], ...] = ()
    withheld_kinds: tuple[FactKind, ...] = ()
    #: The user's state as the Director keeps it (None when the Director keeps none): rapport in
    #: [-1, 1], patience left (at 0 the user leaves), and whether the user leaves now.
    rapport: float | None = None
    patience: float | None = None
    leave: bool = False


#: How the Actor can end a conversation: the user leaves, or takes the policy's goodbye.
ENDINGS: tuple[str, ...] = ("user_left", "policy_left")


class ActorLine(str):
    """What the Actor said, as text; ``fallback`` says why a canned line replaced the Actor's own
    (an LLM that failed to answer), so the environment can record it per turn (else ``""``);
    ``ends`` is ``"user_left"`` when the user leaves with this message, ``"policy_left"`` when it
    acknowledges the policy's goodbye (else ``""``: the conversation goes on)."""

    fallback: str
    ends: str

    def __new__(cls, text: str, fallback: str = "", ends: str = "") -> ActorLine:
        if ends and ends not in ENDINGS:
            raise ValueError(f"ends must be one of {ENDINGS} or empty, got {ends!r}")
        line = super().__new__(cls, text)
        line.fallback = fallback
        line.ends = ends
        return line


@dataclass(frozen=True)
class ActorView:
    persona: ActorPersona
    history: History
    guidance: ActorGuidance | None
    turn: int
    seed: int


@dataclass(frozen=True)
class JudgeProfile:
    """The user as the Judger knows them: profile, threshold and the cues a reply can engage with."""

    case_id: str
    persona: Persona
    profile: Profile
    experience: Experience
    empathy_threshold: str
    cues: Cues
    #: Deeper emotions unlocked by plot stages the user has already talked about.
    released_emotions: tuple[str, ...] = ()
    #: The need the most recently told part of the story brings forward (None before any).
    current_focus: EmpathyAspect | None = None
    #: The case's language (``Case.language``): the language replies are expected in.
    language: str = "en"

    @classmethod
    def from_case(
        cls,
        case: Case,
        released_emotions: tuple[str, ...] = (),
        current_focus: EmpathyAspect | None = None,
    ) -> JudgeProfile:
        return cls(
            case_id=case.id,
            persona=case.persona,
            profile=case.profile,
            experience=case.experience,
            empathy_threshold=case.empathy_threshold,
            cues=case.cues,
            released_emotions=released_emotions,
            current_focus=current_focus,
            language=case.language,
        )


@dataclass(frozen=True)
class JudgeView:
    """Rate ``reply`` (the last assistant message) in the context of ``history`` (before it)."""

    profile: JudgeProfile
    history: History
    reply: str
    turn: int


@dataclass(frozen=True)
class PlotRules:
    """What the plot allows now (the rule check itself is :func:`empa_env.plot.violation`)."""

    n_stages: int
    released_stages: tuple[int, ...]
    revealed_memories: tuple[str, ...]
    can_end: bool
    min_turns: int

    @property
    def hidden_stages(self) -> tuple[int, ...]:
        """Stages not yet released, in plot order."""
        return tuple(i for i in range(self.n_stages) if i not in self.released_stages)

    @property
    def memories_left(self) -> tuple[str, ...]:
        """Memory periods not yet revealed, in life order."""
        return tuple(p for p in MEMORY_PERIODS if p not in self.revealed_memories)


@dataclass(frozen=True)
class DirectorView:
    """The omniscient view: the whole case, the history, the EPM state and the plot progress."""

    case: Case
    history: History
    turn: int
    p0: tuple[float, float, float]
    position: tuple[float, float, float]
    last_increment: tuple[float, float, float]
    epm: dict[str, float]
    released_stages: tuple[int, ...]
    revealed_memories: tuple[str, ...]
    can_end: bool
    last_levels: dict[str, float] = field(default_factory=dict)
    #: The turn at which each released stage came out, in release order.
    stage_release_turns: tuple[int, ...] = ()
    #: The first turn at which the conversation may end.
    min_turns: int = 12
    #: delta_E of every turn so far, in order (the Director's memory of how each reply landed).
    delta_E_history: tuple[float, ...] = ()

    @property
    def stages(self) -> tuple[PlotStage, ...]:
        return self.case.plot.stages

    @property
    def rules(self) -> PlotRules:
        """What the plot allows now: hidden stages, memories left, whether it may end."""
        return PlotRules(
            n_stages=len(self.case.plot.stages),
            released_stages=self.released_stages,
            revealed_memories=self.revealed_memories,
            can_end=self.can_end,
            min_turns=self.min_turns,
        )


DirectorTool = Literal[
    "select_and_reveal_fragment",
    "observe_and_wait",
    "continue_without_new_info",
    "reveal_memory",
    "adjust_empathy_strategy",
    "introduce_turning_point",
    "end_conversation",
]
#: The seven tools of the Director (EMPA reference implementation, arXiv 2603.00552), in the reference's order.
DIRECTOR_TOOLS: tuple[str, ...] = get_args(DirectorTool)


@dataclass(frozen=True)
class DirectorAction:
    """One tool call of the Director (EMPA reference implementation, arXiv 2603.00552). ``args`` follow the tool's schema."""

    tool: DirectorTool
    args: dict[str, Any] = field(default_factory=dict)
    #: Set by the environment when a call broke a rule (a memory twice, an end before min_turns).
    rejected: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "args": dict(self.args), "rejected": self.rejected}
