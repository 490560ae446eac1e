"""The procedural case generator: the default training pool, disjoint from the benchmark suite.

Each case is composed from the component libraries (``empa_env/cases/library``):

1. **IEDR levels first.** The dominant axis cycles through balanced, shuffled blocks of (C, A, P);
   a target ``||P_0||`` is drawn so that over the pool ``||P_0||`` follows the reference
   distribution (mean 32.32, sd 4.52, range about 17..41, EMPA, arXiv 2603.00552); the levels are a
   uniform draw among the level vectors with that dominant axis and a norm at the target.
2. **The persona fits the levels.** The speaking style must fit A.2 (emotional accessibility), the
   empathy threshold leans on A.2, the profile priorities follow C.3 / A.3 / P.3, the hoped-for
   empathy is written for the highest-priority aspect, and the current situation says as much
   agency as P.1 allows.
3. **One story.** The life domain cycles through balanced blocks; a situation of that domain is
   picked (least used first) and sets the age range, the kind of occupation, the cast and the
   theme. The evoked-memory stage comes from a childhood or adolescence piece of that theme, the
   reflection stage from an inner pattern of that theme, the last two stages from the situation,
   so the four hidden stages tell one arc. Names, places and workplace words fill the templates.

Cases are prefix-stable: ``generate(k, seed) == generate(n, seed)[:k]`` for ``k <= n``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from statistics import NormalDist
from typing import Any, Protocol, runtime_checkable

import numpy as np

from empa_env.cases.components import (
    ROLE_WORDS,
    Backstory,
    Culture,
    Library,
    Occupation,
    Pattern,
    Situation,
    StageText,
    Style,
    YoungAdulthood,
    age_range,
    load_library,
    render,
)
from empa_env.cases.consistency import contradictions
from empa_env.cases.facts import draft_facts
from empa_env.cases.schema import AXIS_TO_ASPECT, DOMAINS, STANCES, Case
from epm.rubric import AXES, IEDR_INDICATORS, IEDR_SCORES, POOL_NORM_MEAN, POOL_NORM_SD

PRIORITY_INDICATOR: dict[str, str] = {"cognitive": "C.3", "affective": "A.3", "motivational": "P.3"}
#: Priorities a C.3 / A.3 / P.3 level is consistent with (the first is the more likely draw).
PRIORITIES_FOR_LEVEL: dict[int, tuple[str, ...]] = {
    0: ("low",), 1: ("medium", "low"), 2: ("high", "medium"), 3: ("high",)
}  # fmt: skip
#: P(empathy threshold = high / medium / low) by A.2 level (how hard the user is to reach); over
#: the pool about half of the users have a high threshold, as in the paper's benchmark.
THRESHOLD_BY_ACCESSIBILITY: dict[int, tuple[float, float, float]] = {
    0: (0.10, 0.35, 0.55),
    1: (0.25, 0.45, 0.30),
    2: (0.45, 0.35, 0.20),
    3: (0.62, 0.28, 0.10),
}
THRESHOLDS: tuple[str, str, str] = ("high", "medium", "low")
#: Share of non-binary personas.
NONBINARY_SHARE = 0.06
#: Reactions per stance a case gets (each style has at least 8).
REACTIONS_PER_STANCE = (6, 8)


def priority_consistent(priority: str, level: int) -> bool:
    """Whether a profile priority fits the IEDR priority indicator level (C.3, A.3 or P.3)."""
    return priority in PRIORITIES_FOR_LEVEL[level]


@runtime_checkable
class CaseGenerator(Protocol):
    """Anything that produces validated cases: the procedural generator, later an LLM-backed one.

    ``generate(n, seed)`` must be deterministic per seed and return ``n`` distinct cases.
    """

    def generate(self, n: int, seed: int = 0) -> list[Case]: ...


# --------------------------------------------------------------------------- IEDR levels


@dataclass(frozen=True)
class LevelSampler:
    """Draws the nine IEDR levels for a dominant axis so that ``||P_0||`` over a pool with balanced
    axes follows the reference pool: mean ``mean``, sd ``sd``, range [``low``, ``high``].

    Targets come from a normal truncated to [``low``, ``high``] whose location and scale are solved
    so that the *truncated* distribution has the reference mean and sd. With C dominant
    ``||P_0||`` cannot exceed ``sqrt(3) * 21 = 36.37``; that axis draws below its cap and the other
    axes take up the missing upper tail, so the mixture over three balanced axes is unchanged.
    """

    mean: float = POOL_NORM_MEAN
    sd: float = POOL_NORM_SD
    low: float = 17.0
    high: float = 41.0
    tolerance: float = 0.5

    @cached_property
    def _table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        levels = np.array(
            list(itertools.product(range(4), repeat=len(IEDR_INDICATORS))), dtype=np.int8
        )
        scores = np.stack(
            [np.asarray(IEDR_SCORES[ind])[levels[:, k]] for k, ind in enumerate(IEDR_INDICATORS)],
            axis=1,
        )
        p0 = np.stack([scores[:, 3 * a : 3 * a + 3].sum(axis=1) for a in range(3)], axis=1)
        norms = np.linalg.norm(p0, axis=1)
        axis = np.argmax(
            np.abs(p0), axis=1
        )  # ties: C, then A, then P (as epm.rubric.dominant_axis)
        return levels, norms, axis

    @cached_property
    def _by_axis(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        levels, norms, axis = self._table
        out = {}
        for a, name in enumerate(AXES):
            idx = np.flatnonzero(axis == a)
            order = np.argsort(norms[idx], kind="stable")
            out[name] = (idx[order], norms[idx][order])
        return out

    @cached_property
    def loc_scale(self) -> tuple[float, float]:
        """Location and scale of the untruncated normal whose truncation has ``mean`` and ``sd``.

        Newton's method on the closed-form moments of the normal truncated to ``[low, high]``
        (no scipy: importing scipy.stats would cost more than generating the whole pool).
        """
        target = np.array([self.mean, self.sd])
        x = target.copy()
        for _ in range(100):
            f = np.array(truncated_normal_moments(x[0], x[1], self.low, self.high)) - target
            if np.max(np.abs(f)) < 1e-12:
                break
            jac = np.empty((2, 2))
            for k, h in enumerate((1e-6 * max(1.0, abs(x[0])), 1e-6 * x[1])):
                step = x.copy()
                step[k] += h
                moved = truncated_normal_moments(step[0], step[1], self.low, self.high)
                jac[:, k] = (np.array(moved) - target - f) / h
            try:
                x = x - np.linalg.solve(jac, f)
            except np.linalg.LinAlgError:
                break
            if not np.all(np.isfinite(x)):
                break
            x[1] = abs(x[1])
        residual = np.array(truncated_normal_moments(x[0], x[1], self.low, self.high)) - target
        if not np.all(np.isfinite(x)) or np.max(np.abs(residual)) > 1e-6:
            raise ValueError(
                f"no truncated normal on [{self.low}, {self.high}] has mean {self.mean} and sd {self.sd}"
            )
        return float(x[0]), float(x[1])

    def cap(self, axis: str) -> float:
        """The largest ``||P_0||`` reachable with ``axis`` dominant, clipped to ``high``."""
        return min(float(self._by_axis[axis][1][-1]), self.high)

    @cached_property
    def _normal(self) -> NormalDist:
        return NormalDist(*self.loc_scale)

    def _cdf(self, x: float) -> float:
        return self._normal.cdf(x)

    def _truncated(self, rng: np.random.Generator, lo: float, hi: float) -> float:
        u = rng.uniform(self._cdf(lo), self._cdf(hi))
        u = min(max(u, 1e-12), 1.0 - 1e-12)
        return float(np.clip(self._normal.inv_cdf(u), lo, hi))

    def target(self, axis: str, rng: np.random.Generator) -> float:
        """A target ``||P_0||`` for one case with this dominant axis."""
        capped = [a for a in AXES if self.cap(a) < self.high]
        if axis in capped:
            return self._truncated(rng, self.low, self.cap(axis))
        if not capped:
            return self._truncated(rng, self.low, self.high)
        # The capped axes leave the mass above their cap to the uncapped ones.
        c = min(self.cap(a) for a in capped)
        total = self._cdf(self.high) - self._cdf(self.low)
        below = (self._cdf(c) - self._cdf(self.low)) / total
        share_capped = len(capped) / len(AXES)
        p_below = (below - share_capped) / (1.0 - share_capped)
        if rng.uniform() < p_below:
            return self._truncated(rng, self.low, c)
        return self._truncated(rng, c, self.high)

    def draw(self, axis: str, rng: np.random.Generator) -> dict[str, int]:
        """Nine IEDR levels with ``axis`` dominant and ``||P_0||`` near a drawn target."""
        idx, norms = self._by_axis[axis]
        t = self.target(axis, rng)
        lo, hi = np.searchsorted(norms, [t - self.tolerance, t + self.tolerance])
        if hi <= lo:  # no vector that close: take the nearest few
            k = int(np.searchsorted(norms, t))
            lo, hi = max(0, k - 10), min(len(norms), k + 10)
        row = self._table[0][idx[int(rng.integers(lo, hi))]]
        return {ind: int(v) for ind, v in zip(IEDR_INDICATORS, row, strict=True)}


def truncated_normal_moments(
    loc: float, scale: float, low: float, high: float
) -> tuple[float, float]:
    """Mean and standard deviation of N(loc, scale^2) truncated to ``[low, high]``.

    With ``alpha = (low - loc) / scale``, ``beta = (high - loc) / scale``,
    ``Z = Phi(beta) - Phi(alpha)``: mean ``loc + scale (phi(alpha) - phi(beta)) / Z`` and variance
    ``scale^2 (1 + (alpha phi(alpha) - beta phi(beta)) / Z - ((phi(alpha) - phi(beta)) / Z)^2)``.
    """
    unit = NormalDist()
    alpha, beta = (low - loc) / scale, (high - loc) / scale
    z = unit.cdf(beta) - unit.cdf(alpha)
    pa, pb = unit.pdf(alpha), unit.pdf(beta)
    mean = loc + scale * (pa - pb) / z
    var = scale**2 * (1.0 + (alpha * pa - beta * pb) / z - ((pa - pb) / z) ** 2)
    return mean, math.sqrt(var) if var >= 0.0 else math.nan  # nan: no such truncation


# --------------------------------------------------------------------------- composition helpers


@dataclass(frozen=True)
class PersonName:
    given: str
    family: str
    gender: str  # female | male | non-binary

    @property
    def full_name(self) -> str:
        return f"{self.given} {self.family}"


_PRONOUNS = {
    "female": ("she", "her", "her", "hers", "herself"),
    "male": ("he", "him", "his", "his", "himself"),
    "non-binary": ("they", "them", "their", "theirs", "themselves"),
}
_VERBS = {  # slot suffix -> (third person singular, plural)
    "are": ("is", "are"), "have": ("has", "have"), "feel": ("feels", "feel"),
    "want": ("wants", "want"), "were": ("was", "were"), "had": ("had", "had"),
    "can": ("can", "can"), "need": ("needs", "need"), "think": ("thinks", "think"),
    "sound": ("sounds", "sound"),
}  # fmt: skip


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def persona_slots(
    person: PersonName, age: int, city: str, hometown: str, occ: Occupation
) -> dict[str, str]:
    """Template slots about the persona: name, pronouns with agreeing verbs, places, work words."""
    they, them, their, theirs, themselves = _PRONOUNS[person.gender]
    plural = person.gender == "non-binary"
    slots = {
        "name": person.given, "full_name": person.full_name, "age": str(age),
        "they": they, "They": they.capitalize(), "them": them, "their": their,
        "Their": their.capitalize(), "theirs": theirs, "themselves": themselves,
        "city": city, "hometown": hometown,
        "occupation": occ.title, "a_occupation": f"{occ.article} {occ.title}",
        "trade": occ.trade, "a_trade": f"{_article(occ.trade)} {occ.trade}",
        "workplace": occ.workplace, "boss": occ.boss, "peers": occ.peers, "task": occ.task,
        "promotion": occ.promotion,
    }  # fmt: skip
    for suffix, (singular, plural_form) in _VERBS.items():
        slots[f"they_{suffix}"] = f"{they} {plural_form if plural else singular}"
    return slots


def role_slots(role: str, name: str, gender: str) -> dict[str, str]:
    """Slots for one cast member: ``{role}``, ``{role_word}`` for kin, pronouns (he/He/him/his/His)."""
    he, him, his = ("she", "her", "her") if gender == "female" else ("he", "him", "his")
    slots = {
        role: name, f"{role}_he": he, f"{role}_He": he.capitalize(), f"{role}_him": him,
        f"{role}_his": his, f"{role}_His": his.capitalize(),
    }  # fmt: skip
    words = ROLE_WORDS[role]
    if words:
        slots[f"{role}_word"] = words[0] if gender == "female" else words[1]
    return slots


def _balanced_blocks(items: Sequence[str], rng: np.random.Generator) -> Iterator[str]:
    while True:
        yield from (items[i] for i in rng.permutation(len(items)))


def _pick(rng: np.random.Generator, items: Sequence):  # noqa: ANN202 - generic helper
    return items[int(rng.integers(len(items)))]


def _sample(rng: np.random.Generator, items: Sequence[str], k: int) -> list[str]:
    return [items[i] for i in rng.choice(len(items), size=min(k, len(items)), replace=False)]


def _shuffled(rng: np.random.Generator, items: Sequence[str]) -> list[str]:
    return [items[i] for i in rng.permutation(len(items))]


# --------------------------------------------------------------------------- the generator


@dataclass(frozen=True)
class Provenance:
    """Which library components one generated case was composed from (for audits and tests)."""

    case_id: str
    situation: str
    theme: str
    culture: str
    occupation: str
    style: str
    pattern: str
    childhood: str
    adolescence: str
    young_adulthood: str
    evoked_from: str  # "childhood" or "adolescence"
    cast: tuple[tuple[str, str], ...]  # (role, name)


@dataclass
class _State:
    """What the generator remembers across cases of one run (for balance and uniqueness)."""

    used_combos: set[tuple[str, str]] = field(default_factory=set)
    used_names: set[str] = field(default_factory=set)
    situation_use: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class _Chosen:
    """The levels of one case and the library components composed to fit them."""

    levels: dict[str, int]
    situation: Situation
    occupation: Occupation
    age: int
    culture: Culture
    person: PersonName
    #: Template slots: the persona's and the cast's names, places and workplace words.
    slots: dict[str, str]
    cast: dict[str, str]
    theme: str
    childhood: Backstory
    adolescence: Backstory
    #: The childhood or adolescence piece whose stage is the evoked memory.
    evoked: Backstory
    pattern: Pattern
    young: YoungAdulthood
    style: Style
    threshold: str
    priorities: dict[str, str]
    hoped: str

    def provenance(self, case_id: str) -> Provenance:
        """Which components the case ``case_id`` was composed from."""
        return Provenance(
            case_id=case_id, situation=self.situation.id, theme=self.theme,
            culture=self.culture.id, occupation=self.occupation.id, style=self.style.id,
            pattern=self.pattern.id, childhood=self.childhood.id, adolescence=self.adolescence.id,
            young_adulthood=self.young.id,
            evoked_from="childhood" if self.evoked is self.childhood else "adolescence",
            cast=tuple((role, self.cast[role]) for role in self.situation.cast),
        )  # fmt: skip


@dataclass(frozen=True)
class _DrawnLines:
    """The template lines drawn for one case among its components' alternatives."""

    reactions: dict[str, list[str]]
    principles: list[str]
    threshold_principle: str
    agency: str
    social_persona: str
    trigger: str
    interlude: str
    #: The situation's openings and details, shuffled.
    openings: list[str]
    details: list[str]


@dataclass(frozen=True)
class _Renderer:
    """Fills one case's templates with its slots; ``where`` names the template in errors."""

    slots: dict[str, str]
    situation_id: str

    def one(self, text: str, where: str) -> str:
        return render(text, self.slots, f"{self.situation_id}.{where}")

    def many(self, texts: Sequence[str], where: str) -> list[str]:
        return [self.one(t, f"{where}[{i}]") for i, t in enumerate(texts)]

    def stage(self, kind: str, source: StageText, focus: str, where: str) -> dict[str, object]:
        """One plot stage of ``source``'s summary, narration and emotions."""
        return {
            "kind": kind, "summary": self.one(source.summary, f"{where}.summary"),
            "narration": self.many(source.narration, f"{where}.narration"),
            "emotions": list(source.emotions), "focus": focus,
        }  # fmt: skip


def _case_data(case_id: str, c: _Chosen, d: _DrawnLines, r: _Renderer) -> dict[str, Any]:
    """The case file's content (before validation) from what was chosen and drawn."""
    situation, style, pattern = c.situation, c.style, c.pattern
    data: dict[str, Any] = {
        "id": case_id,
        "language": "en",
        "domain": situation.domain,
        "empathy_threshold": c.threshold,
        "persona": {
            "name": c.person.full_name,
            "gender": c.person.gender,
            "age": c.age,
            "social_persona": r.one(d.social_persona, "social_persona"),
            "inner_core": r.one(pattern.inner_core, "inner_core"),
            "speaking_style": r.one(style.description, f"{style.id}.description"),
            "chat_principles": [
                *r.many(d.principles, f"{style.id}.principles"),
                r.one(d.threshold_principle, "threshold_principle"),
            ],
        },
        "profile": {
            "opening_topic": r.one(situation.opening_topic, "opening_topic"),
            "vent": r.one(situation.vent, "vent"),
            "hoped_empathy": r.one(getattr(situation.hoped_empathy, c.hoped), "hoped_empathy"),
            "priorities": c.priorities,
        },
        "experience": _experience(c, d, r),
        "scenario_trigger": r.one(d.trigger, "trigger"),
        "plot": _plot(c, d, r),
        "iedr": c.levels,
        "voice": _voice(c, d, r),
        "cues": _cues(c, r),
        "source": "generated",
    }
    cast_people = {
        c.cast[role]: (c.cast.get(f"{role}_word") or role.rstrip("0123456789"))
        for role in situation.cast
    }
    data["facts"] = [f.model_dump(mode="json") for f in draft_facts(data, cast_people)]
    return data


def _experience(c: _Chosen, d: _DrawnLines, r: _Renderer) -> dict[str, str]:
    """The life story: the backstory pieces, the growth arc and the current situation."""
    situation = c.situation
    return {
        "childhood": r.one(c.childhood.text, "childhood"),
        "adolescence": r.one(c.adolescence.text, "adolescence"),
        "young_adulthood": r.one(c.young.text, "young_adulthood"),
        "growth_arc": r.one(c.pattern.growth_arc, "growth_arc"),
        "current_situation": r.one(situation.current_situation, "current_situation")
        + " "
        + r.one(d.agency, "agency"),
        "goals": r.one(situation.goals, "goals"),
    }


def _plot(c: _Chosen, d: _DrawnLines, r: _Renderer) -> dict[str, Any]:
    """The four hidden stages (evoked memory, reflection, self-examination, eruption), the
    outcome and the interlude."""
    situation, pattern, evoked = c.situation, c.pattern, c.evoked
    examination, eruption = situation.self_examination, situation.emotional_eruption
    return {
        "stages": [
            r.stage("evoked_memory", evoked.stage, "affective", f"{evoked.id}.stage"),
            r.stage("reflection", pattern.reflection, "cognitive", f"{pattern.id}.reflection"),
            r.stage("self_examination", examination, examination.focus, "self_examination"),
            r.stage("emotional_eruption", eruption, eruption.focus, "emotional_eruption"),
        ],
        "outcome": r.one(situation.outcome, "outcome"),
        "interlude": r.one(d.interlude, "interlude"),
    }


def _voice(c: _Chosen, d: _DrawnLines, r: _Renderer) -> dict[str, Any]:
    """What the user says: openings, reactions by stance, memories by period, details."""
    situation = c.situation
    return {
        "openings": r.many(d.openings, "openings"),
        "reactions": d.reactions,
        "memories": {
            "childhood": [r.one(c.childhood.memory, "childhood.memory")],
            "adolescence": [r.one(c.adolescence.memory, "adolescence.memory")],
            "young_adulthood": [r.one(c.young.memory, "young_adulthood.memory")],
            "current": r.many(situation.current_memories, "current_memories"),
        },
        "details": r.many(d.details, "details"),
    }


def _cues(c: _Chosen, r: _Renderer) -> dict[str, Any]:
    """What the judge looks for: expressed and hidden emotions, the knot, values, key facts."""
    situation = c.situation
    hidden = list(dict.fromkeys([*situation.hidden_emotions, *c.pattern.hidden_emotions[:2]]))
    return {
        "expressed_emotions": list(situation.expressed_emotions),
        "hidden_emotions": hidden,
        "cognitive_knot": r.one(situation.cognitive_knot, "cognitive_knot"),
        "knot_keywords": list(situation.knot_keywords),
        "core_values": list(situation.core_values),
        "key_facts": [
            render(f, c.slots, f"{situation.id}.key_facts[{i}]", sentence_case=False)
            for i, f in enumerate(situation.key_facts)
        ],
    }


class ProceduralGenerator:
    """Composes distinct, coherent cases from the component library; implements :class:`CaseGenerator`.

    ``id_prefix`` names the cases ``{id_prefix}-s{seed}-{index:04d}`` (default ``gen``).
    """

    def __init__(
        self,
        library: Library | None = None,
        levels: LevelSampler | None = None,
        id_prefix: str = "gen",
    ) -> None:
        self.library = library if library is not None else load_library()
        self.levels = levels if levels is not None else LevelSampler()
        self.id_prefix = id_prefix

    def generate(self, n: int, seed: int = 0) -> list[Case]:
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        return [case for case, _ in itertools.islice(self.iter_with_provenance(seed), n)]

    def iter_cases(self, seed: int = 0) -> Iterator[Case]:
        """An endless, deterministic stream of cases for ``seed``."""
        return (case for case, _ in self.iter_with_provenance(seed))

    def iter_with_provenance(self, seed: int = 0) -> Iterator[tuple[Case, Provenance]]:
        """Like :meth:`iter_cases`, with the components each case was composed from."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        rng = np.random.default_rng([int(seed), 0x45_4D_50_41])  # "EMPA"
        axes = _balanced_blocks(AXES, rng)
        domains = _balanced_blocks(DOMAINS, rng)
        state = _State()
        for index in itertools.count():
            yield self._case(
                f"{self.id_prefix}-s{seed}-{index:04d}", next(axes), next(domains), rng, state
            )

    # -- one case ------------------------------------------------------------------------------

    def _case(
        self, case_id: str, axis: str, domain: str, rng: np.random.Generator, state: _State
    ) -> tuple[Case, Provenance]:
        """One case: its components chosen, then its lines drawn, then written out (the random
        draws happen in that order, so that a seed gives the same cases whatever changes below)."""
        chosen = self._choose(axis, domain, rng, state)
        drawn = self._draw_lines(chosen, rng)
        data = _case_data(case_id, chosen, drawn, _Renderer(chosen.slots, chosen.situation.id))
        state.used_combos.add((chosen.person.full_name, chosen.situation.id))
        state.used_names.add(chosen.person.full_name)
        state.situation_use[chosen.situation.id] += 1
        case = Case.model_validate(data)
        said_twice = contradictions(case)
        if said_twice:  # the component library wrote a case that disagrees with itself
            raise ValueError(f"{case_id}: the drawn case contradicts itself: {said_twice}")
        return case, chosen.provenance(case_id)

    def _choose(self, axis: str, domain: str, rng: np.random.Generator, state: _State) -> _Chosen:
        """The levels and the components that fit them (see the module docstring), in draw
        order."""
        lib = self.library
        levels = self.levels.draw(axis, rng)
        situation = self._situation(domain, rng, state)
        occ, age = self._occupation(situation, rng)
        culture = self._culture(situation, rng)
        person = self._person(culture, situation, rng, state)
        city = _pick(rng, culture.diaspora if situation.diaspora else culture.cities)
        hometown = _pick(rng, culture.hometowns)
        slots = persona_slots(person, age, city, hometown, occ)
        cast = self._cast(situation, culture, person, rng)
        slots.update(cast)
        theme = _pick(rng, situation.themes)
        childhood, adolescence, evoked = self._backstory(theme, rng)
        pattern = _pick(rng, [p for p in lib.patterns if p.theme == theme])
        young = _pick(
            rng,
            [
                y
                for y in lib.backstories.young_adulthood
                if occ.kind in y.kinds and y.min_age <= age
            ],
        )
        style = self._style(levels["A.2"], rng)
        threshold = THRESHOLDS[int(rng.choice(3, p=THRESHOLD_BY_ACCESSIBILITY[levels["A.2"]]))]
        priorities = {
            aspect: _pick(rng, PRIORITIES_FOR_LEVEL[levels[ind]])
            for aspect, ind in PRIORITY_INDICATOR.items()
        }
        hoped = self._hoped_aspect(levels, axis, rng)
        return _Chosen(
            levels=levels, situation=situation, occupation=occ, age=age, culture=culture,
            person=person, slots=slots, cast=cast, theme=theme, childhood=childhood,
            adolescence=adolescence, evoked=evoked, pattern=pattern, young=young, style=style,
            threshold=threshold, priorities=priorities, hoped=hoped,
        )  # fmt: skip

    def _draw_lines(self, chosen: _Chosen, rng: np.random.Generator) -> _DrawnLines:
        """The lines (still templates) picked among the components' alternatives, in draw order."""
        lib, style, situation = self.library, chosen.style, chosen.situation
        n_react = int(rng.integers(REACTIONS_PER_STANCE[0], REACTIONS_PER_STANCE[1] + 1))
        reactions = {s: _sample(rng, getattr(style.reactions, s), n_react) for s in STANCES}
        principles = _sample(rng, style.principles, 2)
        threshold_principle = _pick(rng, lib.framing.threshold_principles[chosen.threshold])  # type: ignore[index]
        return _DrawnLines(
            reactions=reactions,
            principles=principles,
            threshold_principle=threshold_principle,
            agency=_pick(rng, lib.framing.agency[chosen.levels["P.1"]]),
            social_persona=_pick(rng, lib.social_personas),
            trigger=_pick(rng, situation.triggers),
            interlude=_pick(rng, situation.interludes),
            openings=_shuffled(rng, situation.openings),
            details=_shuffled(rng, situation.details),
        )

    # -- parts -----------------------------------------------------------------------------------

    def _situation(self, domain: str, rng: np.random.Generator, state: _State) -> Situation:
        options = self.library.situations_in(domain)
        least = min(state.situation_use[s.id] for s in options)
        return _pick(rng, [s for s in options if state.situation_use[s.id] == least])

    def _occupation(self, sit: Situation, rng: np.random.Generator) -> tuple[Occupation, int]:
        fits = [
            (o, rng_) for o in self.library.occupations if (rng_ := age_range(sit, o)) is not None
        ]
        occ, (lo, hi) = _pick(rng, fits)
        return occ, int(rng.integers(lo, hi + 1))

    def _culture(self, sit: Situation, rng: np.random.Generator) -> Culture:
        cultures = [c for c in self.library.cultures if c.diaspora or not sit.diaspora]
        return _pick(rng, cultures)

    def _person(
        self, culture: Culture, sit: Situation, rng: np.random.Generator, state: _State
    ) -> PersonName:
        """A persona name not used with this situation; fresh names are preferred."""
        for attempt in itertools.count():
            u = rng.uniform()
            gender = (
                "non-binary"
                if u < NONBINARY_SHARE
                else ("female" if u < (1 + NONBINARY_SHARE) / 2 else "male")
            )
            pool = {"female": culture.female, "male": culture.male, "non-binary": culture.neutral}[
                gender
            ]
            person = PersonName(_pick(rng, pool), _pick(rng, culture.family), gender)
            if (person.full_name, sit.id) in state.used_combos:
                continue
            if person.full_name not in state.used_names or attempt >= 30:
                return person
        raise AssertionError("unreachable")

    def _cast(
        self, sit: Situation, culture: Culture, person: PersonName, rng: np.random.Generator
    ) -> dict[str, str]:
        slots: dict[str, str] = {}
        taken = {person.given}
        for role, wanted in sit.cast.items():
            gender = wanted if wanted != "any" else ("female" if rng.uniform() < 0.5 else "male")
            if role == "doctor":
                name = "Dr " + _pick(rng, [f for f in culture.family if f != person.family])
            else:
                pool = [
                    n
                    for n in (culture.female if gender == "female" else culture.male)
                    if n not in taken
                ]
                name = _pick(rng, pool)
            taken.add(name)
            slots.update(role_slots(role, name, gender))
        return slots

    def _backstory(
        self, theme: str, rng: np.random.Generator
    ) -> tuple[Backstory, Backstory, Backstory]:
        """(childhood, adolescence, the one whose stage is the evoked memory, carrying ``theme``)."""
        stories = self.library.backstories
        for evoked_period in _shuffled(rng, ["childhood", "adolescence"]):
            kids = [
                b for b in stories.childhood if evoked_period != "childhood" or theme in b.themes
            ]
            childhood = _pick(rng, kids)
            teens = [
                b for b in stories.adolescence
                if b.id not in childhood.excludes and (evoked_period != "adolescence" or theme in b.themes)
            ]  # fmt: skip
            if teens:
                adolescence = _pick(rng, teens)
                return (
                    childhood,
                    adolescence,
                    childhood if evoked_period == "childhood" else adolescence,
                )
        raise AssertionError(
            f"no coherent backstory for theme {theme!r}"
        )  # library invariants prevent this

    def _style(self, accessibility: int, rng: np.random.Generator) -> Style:
        return _pick(rng, [s for s in self.library.styles if accessibility in s.accessibility])

    def _hoped_aspect(self, levels: Mapping[str, int], axis: str, rng: np.random.Generator) -> str:
        """The aspect with the highest priority level; ties go to the dominant axis, then at random."""
        top = max(levels[ind] for ind in PRIORITY_INDICATOR.values())
        best = [a for a, ind in PRIORITY_INDICATOR.items() if levels[ind] == top]
        if AXIS_TO_ASPECT[axis] in best:
            return AXIS_TO_ASPECT[axis]
        return _pick(rng, best)


def generate_cases(n: int, seed: int = 0, generator: CaseGenerator | None = None) -> list[Case]:
    """``n`` generated cases for ``seed`` (the procedural generator by default)."""
    return (generator or ProceduralGenerator()).generate(n, seed)


__all__ = [
    "PRIORITIES_FOR_LEVEL", "PRIORITY_INDICATOR", "THRESHOLD_BY_ACCESSIBILITY",
    "CaseGenerator", "LevelSampler", "PersonName", "ProceduralGenerator", "Provenance", "generate_cases", "persona_slots",
    "priority_consistent", "role_slots",
]  # fmt: skip
