"""Component libraries for the procedural case generator (data files in this directory).

The YAML files hold the *material*: name pools by culture, occupations, speaking styles with their
reactions by stance, childhood / adolescence / young-adulthood pieces, inner patterns, and the
per-domain situations with their plot stages, voice lines and cues. This module types them (so a
typo in a data file fails with the file and the field), checks the cross-file invariants the
generator relies on, and renders ``{slot}`` templates.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from string import Formatter
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from empa_env.cases.loader import YAML_LOADER
from empa_env.cases.schema import DOMAINS, EmpathyAspect, Threshold

Theme = Literal[
    "overlooked", "responsibility", "failure", "belonging", "loss", "control", "approval", "trust"
]  # fmt: skip
THEMES: tuple[str, ...] = (
    "overlooked", "responsibility", "failure", "belonging", "loss", "control", "approval", "trust"
)  # fmt: skip
OccupationKind = Literal["worker", "student", "retired"]
OCCUPATION_KINDS: tuple[str, ...] = ("worker", "student", "retired")
RoleGender = Literal["any", "female", "male"]

#: Cast roles a situation may use. Kin roles have a word per gender (female, male), used as
#: ``{role_word}``; every role has a culture-matched name ``{role}`` and pronoun slots.
ROLE_WORDS: dict[str, tuple[str, str] | None] = {
    "partner": ("wife", "husband"),
    "ex": ("ex-wife", "ex-husband"),
    "sibling": ("sister", "brother"),
    "parent": ("mother", "father"),
    "child": ("daughter", "son"),
    "grandparent": ("grandmother", "grandfather"),
    "friend": None,
    "friend2": None,
    "colleague": None,
    "neighbour": None,
    "director": None,
    "rival": None,
    "doctor": None,
}

LIBRARY_FILES: tuple[str, ...] = (
    "names.yaml", "occupations.yaml", "styles.yaml", "social_personas.yaml", "framing.yaml",
    "backstories.yaml", "patterns.yaml",
    *(f"situations_{d}.yaml" for d in DOMAINS),
)  # fmt: skip


class LibraryError(ValueError):
    """A component library file is malformed or the library breaks a generator invariant."""


class _Lib(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


Text = Field(min_length=1)


class Culture(_Lib):
    id: str
    female: tuple[str, ...] = Field(min_length=3)
    male: tuple[str, ...] = Field(min_length=3)
    neutral: tuple[str, ...] = Field(min_length=1)
    family: tuple[str, ...] = Field(min_length=3)
    hometowns: tuple[str, ...] = Field(min_length=1)
    cities: tuple[str, ...] = Field(min_length=1)
    diaspora: tuple[str, ...] = ()


class Occupation(_Lib):
    id: str
    title: str = Text
    article: Literal["a", "an"]
    trade: str = Text
    kind: OccupationKind
    workplace: str = Text
    boss: str = Text
    peers: str = Text
    task: str = Text
    promotion: str = Text
    age: tuple[int, int]

    @model_validator(mode="after")
    def _age_range(self) -> Occupation:
        if not 12 <= self.age[0] <= self.age[1] <= 100:
            raise ValueError(f"age must be [min, max] within 12..100, got {list(self.age)}")
        return self


class StyleReactions(_Lib):
    guarded: tuple[str, ...] = Field(min_length=8)
    neutral: tuple[str, ...] = Field(min_length=8)
    opening_up: tuple[str, ...] = Field(min_length=8)
    hurt: tuple[str, ...] = Field(min_length=8)


class Style(_Lib):
    """A speaking style; ``accessibility`` lists the IEDR A.2 levels it fits."""

    id: str
    accessibility: tuple[int, ...] = Field(min_length=1)
    description: str = Text
    principles: tuple[str, ...] = Field(min_length=2)
    reactions: StyleReactions

    @model_validator(mode="after")
    def _levels(self) -> Style:
        if any(not 0 <= lv <= 3 for lv in self.accessibility):
            raise ValueError(f"accessibility levels must be 0..3, got {list(self.accessibility)}")
        return self


class StageText(_Lib):
    summary: str = Text
    narration: tuple[str, ...] = Field(min_length=2)
    emotions: tuple[str, ...] = Field(min_length=1)


class SituationStage(StageText):
    focus: EmpathyAspect


class Backstory(_Lib):
    """A childhood or adolescence piece; its ``stage`` can become the evoked-memory stage."""

    id: str
    themes: tuple[Theme, ...] = Field(min_length=1)
    text: str = Text
    memory: str = Text
    stage: StageText
    #: Ids of entries of the next period that would contradict this one.
    excludes: tuple[str, ...] = ()


class YoungAdulthood(_Lib):
    id: str
    kinds: tuple[OccupationKind, ...] = Field(min_length=1)
    min_age: int = Field(ge=12, le=100)
    text: str = Text
    memory: str = Text


class Backstories(_Lib):
    childhood: tuple[Backstory, ...] = Field(min_length=1)
    adolescence: tuple[Backstory, ...] = Field(min_length=1)
    young_adulthood: tuple[YoungAdulthood, ...] = Field(min_length=1)


class Pattern(_Lib):
    """An inner pattern: inner core, the reflection stage, the growth arc."""

    id: str
    theme: Theme
    inner_core: str = Text
    reflection: StageText
    growth_arc: str = Text
    hidden_emotions: tuple[str, ...] = Field(min_length=1)


class HopedEmpathy(_Lib):
    affective: str = Text
    motivational: str = Text
    cognitive: str = Text


class Situation(_Lib):
    """One concrete story in one life domain."""

    id: str
    domain: str
    title: str = Text
    themes: tuple[Theme, ...] = Field(min_length=1)
    age: tuple[int, int]
    kinds: tuple[OccupationKind, ...] = OCCUPATION_KINDS  # type: ignore[assignment]
    diaspora: bool = False
    cast: dict[str, RoleGender] = Field(default_factory=dict)
    opening_topic: str = Text
    vent: str = Text
    hoped_empathy: HopedEmpathy
    current_situation: str = Text
    goals: str = Text
    triggers: tuple[str, ...] = Field(min_length=1)
    self_examination: SituationStage
    emotional_eruption: SituationStage
    outcome: str = Text
    interludes: tuple[str, ...] = Field(min_length=1)
    openings: tuple[str, ...] = Field(min_length=3)
    details: tuple[str, ...] = Field(min_length=6)
    current_memories: tuple[str, ...] = Field(min_length=1)
    expressed_emotions: tuple[str, ...] = Field(min_length=1)
    hidden_emotions: tuple[str, ...] = Field(min_length=1)
    cognitive_knot: str = Text
    knot_keywords: tuple[str, ...] = Field(min_length=2)
    core_values: tuple[str, ...] = Field(min_length=1)
    key_facts: tuple[str, ...] = Field(min_length=2)

    @model_validator(mode="after")
    def _consistent(self) -> Situation:
        if self.domain not in DOMAINS:
            raise ValueError(f"domain must be one of {list(DOMAINS)}, got {self.domain!r}")
        unknown = sorted(set(self.cast) - set(ROLE_WORDS))
        if unknown:
            raise ValueError(f"unknown cast roles {unknown}; known: {sorted(ROLE_WORDS)}")
        if not 12 <= self.age[0] <= self.age[1] <= 100:
            raise ValueError(f"age must be [min, max] within 12..100, got {list(self.age)}")
        return self


class Framing(_Lib):
    #: IEDR P.1 level (initial agency) -> sentences appended to the current situation.
    agency: dict[int, tuple[str, ...]]
    threshold_principles: dict[Threshold, tuple[str, ...]]

    @model_validator(mode="after")
    def _complete(self) -> Framing:
        if sorted(self.agency) != [0, 1, 2, 3] or not all(self.agency.values()):
            raise ValueError("agency needs non-empty sentence lists for P.1 levels 0, 1, 2 and 3")
        if sorted(self.threshold_principles) != ["high", "low", "medium"]:
            raise ValueError("threshold_principles needs entries for high, medium and low")
        return self


class Library(_Lib):
    """Every component the procedural generator composes cases from."""

    cultures: tuple[Culture, ...] = Field(min_length=1)
    occupations: tuple[Occupation, ...] = Field(min_length=1)
    styles: tuple[Style, ...] = Field(min_length=1)
    social_personas: tuple[str, ...] = Field(min_length=1)
    framing: Framing
    backstories: Backstories
    patterns: tuple[Pattern, ...] = Field(min_length=1)
    situations: tuple[Situation, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _invariants(self) -> Library:
        problems = list(_invariant_problems(self))
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def situations_in(self, domain: str) -> tuple[Situation, ...]:
        return tuple(s for s in self.situations if s.domain == domain)

    def templates(self) -> Iterator[tuple[str, str]]:
        """Every template string in the library, as ``(location, text)``."""
        yield from _walk(self.model_dump(mode="python"), "")


def _invariant_problems(lib: Library) -> Iterator[str]:
    for name, items in (
        ("cultures", lib.cultures), ("occupations", lib.occupations), ("styles", lib.styles),
        ("patterns", lib.patterns), ("situations", lib.situations),
        ("childhood", lib.backstories.childhood), ("adolescence", lib.backstories.adolescence),
        ("young_adulthood", lib.backstories.young_adulthood),
    ):  # fmt: skip
        ids = [i.id for i in items]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            yield f"duplicate {name} ids {dupes}"
    for theme in THEMES:
        for period in ("childhood", "adolescence"):
            if sum(theme in b.themes for b in getattr(lib.backstories, period)) < 2:
                yield f"theme {theme!r} needs at least 2 {period} entries"
        if not any(p.theme == theme for p in lib.patterns):
            yield f"theme {theme!r} has no pattern"
    for level in range(4):
        if sum(level in s.accessibility for s in lib.styles) < 2:
            yield f"IEDR A.2 level {level} needs at least 2 styles"
    for domain in DOMAINS:
        if not lib.situations_in(domain):
            yield f"domain {domain!r} has no situation"
    for sit in lib.situations:
        if not any(_fits(sit, occ) for occ in lib.occupations):
            yield f"situation {sit.id!r} fits no occupation (kinds {list(sit.kinds)}, age {list(sit.age)})"
        if sit.diaspora and not any(c.diaspora for c in lib.cultures):
            yield f"situation {sit.id!r} needs a culture with diaspora cities"
    adolescence_ids = {b.id for b in lib.backstories.adolescence}
    for b in lib.backstories.childhood:
        unknown = sorted(set(b.excludes) - adolescence_ids)
        if unknown:
            yield f"childhood {b.id!r} excludes unknown adolescence entries {unknown}"


def _fits(sit: Situation, occ: Occupation) -> bool:
    lo, hi = max(sit.age[0], occ.age[0]), min(sit.age[1], occ.age[1])
    return occ.kind in sit.kinds and lo <= hi


def age_range(sit: Situation, occ: Occupation) -> tuple[int, int] | None:
    """The ages at which ``occ`` can live through ``sit`` (``None`` if they do not fit)."""
    if not _fits(sit, occ):
        return None
    return max(sit.age[0], occ.age[0]), min(sit.age[1], occ.age[1])


_NOT_TEMPLATES = {"id", "domain", "kind", "kinds", "article", "themes", "theme", "cast", "age",
                  "accessibility", "min_age", "excludes", "diaspora", "focus"}  # fmt: skip


def _walk(node: object, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, str):
        yield where, node
    elif isinstance(node, Mapping):
        for key, value in node.items():
            if key not in _NOT_TEMPLATES:
                yield from _walk(value, f"{where}.{key}" if where else str(key))
    elif isinstance(node, (list, tuple)):
        for i, value in enumerate(node):
            yield from _walk(value, f"{where}[{i}]")


def template_slots(text: str) -> set[str]:
    """The ``{slot}`` names used in one template."""
    return {name for _, name, _, _ in Formatter().parse(text) if name}


_SENTENCE_START = re.compile(r"(^|[.!?]\s+|^\W+)$")


def render(text: str, slots: Mapping[str, str], where: str = "", sentence_case: bool = True) -> str:
    """Fill ``{slot}`` fields; an unknown slot raises :class:`LibraryError` naming it.

    With ``sentence_case`` a value that starts a sentence is capitalised ("{boss} said" -> "The
    head chef said"); turn it off for fragments such as key facts.
    """
    out: list[str] = []
    try:
        parsed = list(Formatter().parse(text))
    except ValueError as exc:
        raise LibraryError(f"{where or 'template'}: malformed template {text!r}: {exc}") from None
    for literal, name, spec, conversion in parsed:
        out.append(literal)
        if name is None:
            continue
        if spec or conversion or name not in slots:
            what = "unknown slot" if name not in slots else "format specs are not supported in slot"
            raise LibraryError(f"{where or 'template'}: {what} {{{name}}} in {text!r}")
        value = str(slots[name])
        if sentence_case and value and _SENTENCE_START.search("".join(out)):
            value = value[0].upper() + value[1:]
        out.append(value)
    return "".join(out)


def _read(directory: Path, name: str) -> object:
    path = directory / name
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=YAML_LOADER)
    except (OSError, yaml.YAMLError) as exc:
        raise LibraryError(f"{path}: cannot read component library: {exc}") from None


def _raw_library(directory: Path) -> dict[str, object]:
    situations: list[object] = []
    for domain in DOMAINS:
        name = f"situations_{domain}.yaml"
        items = _read(directory, name)
        if not isinstance(items, list):
            raise LibraryError(f"{directory / name}: expected a list of situations")
        situations.extend(
            {**item, "domain": domain} if isinstance(item, dict) else item for item in items
        )
    return {
        "cultures": _read(directory, "names.yaml"),
        "occupations": _read(directory, "occupations.yaml"),
        "styles": _read(directory, "styles.yaml"),
        "social_personas": _read(directory, "social_personas.yaml"),
        "framing": _read(directory, "framing.yaml"),
        "backstories": _read(directory, "backstories.yaml"),
        "patterns": _read(directory, "patterns.yaml"),
        "situations": situations,
    }


def default_library_dir() -> Path:
    return Path(str(resources.files("empa_env.cases").joinpath("library")))


def load_library(directory: str | Path | None = None) -> Library:
    """Load and validate the component library (the packaged one by default; cached)."""
    return _load_library(str(Path(directory) if directory is not None else default_library_dir()))


@lru_cache(maxsize=8)
def _load_library(directory: str) -> Library:
    try:
        return Library.model_validate(_raw_library(Path(directory)))
    except ValidationError as exc:
        lines = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        raise LibraryError(
            f"{directory}: invalid component library:\n  " + "\n  ".join(lines)
        ) from None


__all__ = [
    "LIBRARY_FILES", "OCCUPATION_KINDS", "ROLE_WORDS", "THEMES",
    "Backstories", "Backstory", "Culture", "Framing", "HopedEmpathy", "Library", "LibraryError",
    "Occupation", "Pattern", "Situation", "SituationStage", "StageText", "Style", "StyleReactions",
    "YoungAdulthood", "age_range", "default_library_dir", "load_library", "render", "template_slots",
]  # fmt: skip
