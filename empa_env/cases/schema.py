"""The case format: everything the Actor, the Director and the Judger need to play and rate one person.

A case is a human-editable YAML (or JSON) file. It holds

* what the *Actor* may read (persona card, psychological profile, experience, scenario trigger,
  and ``voice``: the lines the offline Actor speaks with),
* what only the *Director* sees (the hidden four-stage ``plot``, outcome and interlude),
* what grounds the *Judger* (``cues``: the emotions shown and hidden, the cognitive knot, the core
  values, the concrete facts a reply can engage with),
* the nine IEDR indicator levels, from which ``P_0`` and the metadata are derived,
* ``facts``: what the user can answer when asked, each tied to the plot stage that may reveal it.

An LLM Actor and the offline Actor read the same case: the LLM reads the prose, the offline Actor
speaks the ``voice`` lines; both receive released plot material only through the Director.
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from empa_env.safe_text import unprintable
from epm.rubric import IEDR_INDICATORS, difficulty_band, dominant_axis, initial_deficit

Priority = Literal["high", "medium", "low"]
Threshold = Literal["high", "medium", "low"]
Domain = Literal[
    "daily_life", "health", "leisure", "values_identity", "relationships", "career"
]  # fmt: skip
DOMAINS: tuple[str, ...] = (
    "daily_life", "health", "leisure", "values_identity", "relationships", "career"
)  # fmt: skip
DOMAIN_LABELS: dict[str, str] = {
    "daily_life": "daily life",
    "health": "physical and mental health",
    "leisure": "leisure",
    "values_identity": "values and identity",
    "relationships": "relationships",
    "career": "career",
}
StageKind = Literal["evoked_memory", "reflection", "self_examination", "emotional_eruption"]
STAGE_KINDS: tuple[str, ...] = get_args(StageKind)
Stance = Literal["guarded", "neutral", "opening_up", "hurt"]
STANCES: tuple[str, ...] = get_args(Stance)
MemoryPeriod = Literal["childhood", "adolescence", "young_adulthood", "current"]
MEMORY_PERIODS: tuple[str, ...] = get_args(MemoryPeriod)
#: The three kinds of empathy need, named as in the case profile (C, A, P as aspects).
EmpathyAspect = Literal["affective", "motivational", "cognitive"]
EMPATHY_ASPECTS: tuple[str, ...] = get_args(EmpathyAspect)
ASPECT_TO_AXIS: dict[str, str] = {"cognitive": "C", "affective": "A", "motivational": "P"}
AXIS_TO_ASPECT: dict[str, str] = {axis: aspect for aspect, axis in ASPECT_TO_AXIS.items()}

NonEmpty = Field(min_length=1)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Persona(_Strict):
    """The persona card."""

    name: str = NonEmpty
    gender: str = NonEmpty
    age: int = Field(ge=12, le=100)
    social_persona: str = NonEmpty
    inner_core: str = NonEmpty
    speaking_style: str = NonEmpty
    reply_length: str = (
        "short: 20-50 characters; 60-100 when telling a memory or a released part of the story"
    )
    chat_principles: tuple[str, ...] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _printable_name(cls, name: str) -> str:
        """A persona's name is shown in terminals, reports and prompts: the character rule of
        every name a person chooses (:func:`~empa_env.safe_text.unprintable`), as policy names."""
        bad = unprintable(name)
        if bad:
            shown = ", ".join(dict.fromkeys(f"U+{ord(ch):04X}" for ch in bad))
            raise ValueError(
                f"the name holds control, format or line-break characters ({shown}); use "
                "letters, digits, spaces and punctuation"
            )
        return name


class Priorities(_Strict):
    """How much this user needs each kind of empathy."""

    affective: Priority
    motivational: Priority
    cognitive: Priority


class Profile(_Strict):
    """The psychological profile."""

    opening_topic: str = NonEmpty
    vent: str = NonEmpty
    hoped_empathy: str = NonEmpty
    priorities: Priorities


class Experience(_Strict):
    childhood: str = NonEmpty
    adolescence: str = NonEmpty
    young_adulthood: str = NonEmpty
    growth_arc: str = NonEmpty
    current_situation: str = NonEmpty
    goals: str = NonEmpty


class PlotStage(_Strict):
    """One hidden stage; only the Director sees it until it is released."""

    kind: StageKind
    summary: str = NonEmpty
    #: What the user says when the stage is released (the offline Actor speaks these, in order).
    narration: tuple[str, ...] = Field(min_length=2)
    #: Deeper emotions the stage brings up; a reply that names one after the release resonates.
    emotions: tuple[str, ...] = Field(min_length=1)
    #: The need the stage brings forward.
    focus: EmpathyAspect


class Plot(_Strict):
    #: Exactly four stages, in the order of :data:`STAGE_KINDS`.
    stages: tuple[PlotStage, ...]
    outcome: str = NonEmpty
    interlude: str = NonEmpty

    @field_validator("stages")
    @classmethod
    def _stage_order(cls, stages: tuple[PlotStage, ...]) -> tuple[PlotStage, ...]:
        kinds = tuple(s.kind for s in stages)
        if kinds != STAGE_KINDS:
            raise ValueError(
                f"expected exactly four stages, in order, {list(STAGE_KINDS)}; got {len(kinds)}: {list(kinds)}"
            )
        return stages


class Reactions(_Strict):
    """Short reactions by stance, how the last reply landed."""

    guarded: tuple[str, ...] = Field(min_length=4)
    neutral: tuple[str, ...] = Field(min_length=4)
    opening_up: tuple[str, ...] = Field(min_length=4)
    hurt: tuple[str, ...] = Field(min_length=4)


class Memories(_Strict):
    """What the user tells when the Director reveals a memory of that period."""

    childhood: tuple[str, ...] = Field(min_length=1)
    adolescence: tuple[str, ...] = Field(min_length=1)
    young_adulthood: tuple[str, ...] = Field(min_length=1)
    current: tuple[str, ...] = Field(min_length=1)


class Voice(_Strict):
    """The offline Actor's material, in the persona's own words."""

    openings: tuple[str, ...] = Field(min_length=2)
    reactions: Reactions
    memories: Memories
    #: Further concrete things the user can bring up about the situation.
    details: tuple[str, ...] = Field(min_length=4)


FactKind = Literal["person", "duration", "place", "said", "tried", "reason", "event"]
FACT_KINDS: tuple[str, ...] = get_args(FactKind)


class Fact(_Strict):
    """One answerable fact: what the user says when the policy asks about it.

    ``about`` holds the lower-case words a question names to ask about it (a person's name and
    relation, a place, the thing tried); ``stage`` is the plot stage whose release makes the fact
    answerable (``None``: the user can say it from the first turn). Before its stage is released,
    a question about it is deflected; a wrong summary is corrected with a released fact.
    """

    kind: FactKind
    about: tuple[str, ...] = Field(min_length=1)
    answer: str = NonEmpty
    stage: int | None = Field(default=None, ge=0, le=3)

    @field_validator("about")
    @classmethod
    def _lower_words(cls, about: tuple[str, ...]) -> tuple[str, ...]:
        bad = [w for w in about if not w or w != w.lower() or " " in w.strip()]
        if bad:
            raise ValueError(f"about: single lower-case words expected, got {bad}")
        return tuple(w.strip() for w in about)


class Cues(_Strict):
    """What a reply can be grounded in; the Judger rates against these."""

    expressed_emotions: tuple[str, ...] = Field(min_length=1)
    hidden_emotions: tuple[str, ...] = Field(min_length=1)
    cognitive_knot: str = NonEmpty
    knot_keywords: tuple[str, ...] = Field(min_length=2)
    core_values: tuple[str, ...] = Field(min_length=1)
    key_facts: tuple[str, ...] = Field(min_length=2)


class IEDRLevels(_Strict):
    """The nine IEDR indicator levels (0 = no deficit .. 3)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    C1: int = Field(alias="C.1", ge=0, le=3)
    C2: int = Field(alias="C.2", ge=0, le=3)
    C3: int = Field(alias="C.3", ge=0, le=3)
    A1: int = Field(alias="A.1", ge=0, le=3)
    A2: int = Field(alias="A.2", ge=0, le=3)
    A3: int = Field(alias="A.3", ge=0, le=3)
    P1: int = Field(alias="P.1", ge=0, le=3)
    P2: int = Field(alias="P.2", ge=0, le=3)
    P3: int = Field(alias="P.3", ge=0, le=3)

    def as_mapping(self) -> dict[str, int]:
        return {ind: getattr(self, ind.replace(".", "")) for ind in IEDR_INDICATORS}


class Case(_Strict):
    """One simulated user. Derived values (``p0``, ``dominant_axis``, ``norm_p0``, ``difficulty``)
    are computed from the IEDR levels, never typed in by hand."""

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    language: str = "en"
    domain: Domain
    empathy_threshold: Threshold
    persona: Persona
    profile: Profile
    experience: Experience
    scenario_trigger: str = NonEmpty
    plot: Plot
    iedr: IEDRLevels
    voice: Voice
    cues: Cues
    #: Answerable facts (people, durations, places, what was said and tried), each tied to the
    #: plot stage that may reveal it. The offline Actor answers questions from these.
    facts: tuple[Fact, ...] = ()
    source: str = "hand-written"
    #: ``True`` when the offline material (``voice``, ``cues``, the stages' ``narration``,
    #: ``emotions`` and ``focus``) is not the case's own but filled in so the file validates, e.g.
    #: an official EMPA case converted without an LLM case writer. Such a case is for LLM roles
    #: only: offline roles must not play or rate it (their lines and cues would be placeholders).
    llm_roles_only: bool = False

    @model_validator(mode="after")
    def _nonzero_deficit(self) -> Case:
        if not np.any(self.p0):
            raise ValueError("iedr: all nine levels are 0, so P_0 = 0 and there is nothing to do")
        return self

    @property
    def p0(self) -> np.ndarray:
        """``P_0`` = (C, A, P) sums of the IEDR scores (a fresh array on every access, so callers
        may modify it; not cached in the model, so cases compare and hash by their fields)."""
        return initial_deficit(self.iedr.as_mapping())

    @property
    def norm_p0(self) -> float:
        return float(np.linalg.norm(self.p0))

    @property
    def dominant_axis(self) -> str:
        return dominant_axis(self.p0)

    @property
    def difficulty(self) -> str:
        return difficulty_band(self.norm_p0)

    def metadata(self) -> dict[str, object]:
        return {
            "id": self.id,
            "domain": self.domain,
            "dominant_axis": self.dominant_axis,
            "norm_p0": round(self.norm_p0, 4),
            "difficulty": self.difficulty,
            "empathy_threshold": self.empathy_threshold,
            "p0": [float(x) for x in self.p0],
            "source": self.source,
        }
