"""The procedural generator: deterministic, distinct, valid, coherent, with the reference statistics."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter

import numpy as np
import pytest
import yaml

from empa_env.cases.components import load_library
from empa_env.cases.generator import (
    PRIORITY_INDICATOR,
    CaseGenerator,
    LevelSampler,
    ProceduralGenerator,
    priority_consistent,
    truncated_normal_moments,
)
from empa_env.cases.loader import dump_case, parse_case
from empa_env.cases.schema import AXIS_TO_ASPECT, DOMAINS, STANCES
from empa_env.cases.suites import training_pool
from epm.rubric import AXES, POOL_NORM_MEAN, POOL_NORM_SD, dominant_axis, initial_deficit

POOL_SEED = 0
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
POOL_SIZE = 600


@pytest.fixture(scope="module")
def with_provenance():
    return list(itertools.islice(ProceduralGenerator().iter_with_provenance(POOL_SEED), POOL_SIZE))


@pytest.fixture(scope="module")
def pool(with_provenance):
    return [case for case, _ in with_provenance]


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _template_matches(template: str, text: str) -> bool:
    """Whether ``text`` is ``template`` with its slots filled (slots match any text)."""
    parts = re.split(r"\{[A-Za-z_0-9]+\}", " ".join(template.split()))
    pattern = "(?s)" + ".+?".join(re.escape(part) for part in parts)
    return re.fullmatch(pattern, " ".join(text.split()), flags=re.IGNORECASE) is not None


def _text(case) -> str:
    data = case.model_dump(mode="json", by_alias=True)
    data.pop("cues")
    return json.dumps(data, ensure_ascii=False)


def test_procedural_generator_implements_the_protocol():
    assert isinstance(ProceduralGenerator(), CaseGenerator)


def test_deterministic_per_seed_and_prefix_stable():
    gen = ProceduralGenerator()
    a, b = gen.generate(40, seed=7), ProceduralGenerator().generate(40, seed=7)
    assert [dump_case(c) for c in a] == [dump_case(c) for c in b]
    assert [dump_case(c) for c in gen.generate(15, seed=7)] == [dump_case(c) for c in a[:15]]


def test_different_seeds_give_different_cases():
    a, b = ProceduralGenerator().generate(30, 1), ProceduralGenerator().generate(30, 2)
    assert not any(
        dump_case(x).replace(x.id, "") == dump_case(y).replace(y.id, "")
        for x, y in zip(a, b, strict=True)
    )
    assert [c.iedr for c in a] != [c.iedr for c in b]
    assert a[0].id == "gen-s1-0000" and b[0].id == "gen-s2-0000"


def test_training_pool_is_the_generator_output_and_cached(pool):
    assert list(training_pool(POOL_SEED, POOL_SIZE)) == pool
    assert training_pool(POOL_SEED, POOL_SIZE) is training_pool(POOL_SEED, POOL_SIZE)


def test_pool_is_large_valid_and_duplicate_free(pool, with_provenance):
    assert len(pool) >= 500
    ids = [c.id for c in pool]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(rf"gen-s{POOL_SEED}-\d{{4}}", i) for i in ids)
    assert all(c.source == "generated" for c in pool)
    combos = [(c.persona.name, p.situation) for c, p in with_provenance]
    assert len(set(combos)) == len(combos)
    # fresh names are preferred, so at this size no two personas share a name
    assert len({c.persona.name for c in pool}) == len(pool)
    bodies = {_text(c).replace(c.id, "") for c in pool}
    assert len(bodies) == len(pool)
    for case in pool:  # the same schema a hand-written file goes through
        assert parse_case(yaml.load(dump_case(case), Loader=_LOADER), case.id) == case


def test_pool_statistics_match_the_reference(pool):
    norms = np.array([c.norm_p0 for c in pool])
    assert abs(norms.mean() - POOL_NORM_MEAN) < 0.6
    assert abs(norms.std(ddof=1) - POOL_NORM_SD) < 0.6
    assert norms.min() >= 15 and norms.max() <= 42
    assert Counter(c.dominant_axis for c in pool) == {a: POOL_SIZE // 3 for a in AXES}
    assert Counter(c.domain for c in pool) == {d: POOL_SIZE // 6 for d in DOMAINS}
    bands = Counter(c.difficulty for c in pool)
    assert all(bands[b] >= 0.10 * POOL_SIZE for b in ("easy", "medium", "hard", "extreme"))
    high = sum(c.empathy_threshold == "high" for c in pool) / len(pool)
    assert 0.35 <= high <= 0.6
    cross = Counter((c.domain, c.dominant_axis) for c in pool)
    assert min(cross.values()) >= 20  # every domain has plenty of every axis


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_pool_statistics_hold_for_other_seeds(seed):
    norms = np.array([c.norm_p0 for c in ProceduralGenerator().generate(POOL_SIZE, seed)])
    assert abs(norms.mean() - POOL_NORM_MEAN) < 0.6
    assert abs(norms.std(ddof=1) - POOL_NORM_SD) < 0.6


def test_levels_fit_the_persona(pool, with_provenance):
    styles = {s.id: s for s in load_library().styles}
    for case, prov in with_provenance:
        levels = case.iedr.as_mapping()
        for aspect, indicator in PRIORITY_INDICATOR.items():
            assert priority_consistent(getattr(case.profile.priorities, aspect), levels[indicator])
        assert levels["A.2"] in styles[prov.style].accessibility
        assert case.dominant_axis == dominant_axis(initial_deficit(levels))


def test_hoped_empathy_is_written_for_the_top_priority(with_provenance):
    situations = {s.id: s for s in load_library().situations}
    for case, prov in with_provenance[:200]:
        levels = case.iedr.as_mapping()
        top = max(levels[i] for i in PRIORITY_INDICATOR.values())
        hoped = situations[prov.situation].hoped_empathy
        written_for = [
            a
            for a in PRIORITY_INDICATOR
            if _template_matches(getattr(hoped, a), case.profile.hoped_empathy)
        ]
        assert written_for, case.id
        assert all(levels[PRIORITY_INDICATOR[a]] == top for a in written_for), case.id
        if levels[PRIORITY_INDICATOR[AXIS_TO_ASPECT[case.dominant_axis]]] == top:
            assert AXIS_TO_ASPECT[case.dominant_axis] in written_for, case.id


def test_story_is_coherent(with_provenance):
    lib = load_library()
    situations = {s.id: s for s in lib.situations}
    occupations = {o.id: o for o in lib.occupations}
    patterns = {p.id: p for p in lib.patterns}
    stories = {b.id: b for b in (*lib.backstories.childhood, *lib.backstories.adolescence)}
    for case, prov in with_provenance:
        sit, occ = situations[prov.situation], occupations[prov.occupation]
        assert case.domain == sit.domain
        assert occ.kind in sit.kinds
        assert max(sit.age[0], occ.age[0]) <= case.persona.age <= min(sit.age[1], occ.age[1])
        assert prov.theme in sit.themes and patterns[prov.pattern].theme == prov.theme
        evoked = stories[prov.childhood if prov.evoked_from == "childhood" else prov.adolescence]
        assert prov.theme in evoked.themes
        assert prov.adolescence not in stories[prov.childhood].excludes
        text = _text(case)
        if sit.domain == "career":  # a teacher's career story happens at the school
            assert occ.workplace in text or occ.boss in text.lower()
        for role, name in prov.cast:  # the people in the story are named in what the user says
            lines = " ".join([*case.voice.openings, *case.voice.details,
                              *(line for s in case.plot.stages for line in s.narration)])  # fmt: skip
            assert name in lines or role == "doctor", (case.id, role)
        for fact in case.cues.key_facts:  # every key fact is grounded in the case
            assert fact.lower() in text.lower(), (case.id, fact)
        assert not any("{" in s or "}" in s for s in _strings(case.model_dump(mode="json"))), (
            case.id
        )


def test_voice_has_enough_material_for_45_turns(pool):
    for case in pool:
        v = case.voice
        for stance in STANCES:
            assert len(getattr(v.reactions, stance)) >= 6
        assert len(v.details) >= 6 and len(v.openings) >= 2
        lines = [*v.openings, *v.details, *(x for s in STANCES for x in getattr(v.reactions, s)),
                 *(x for p in ("childhood", "adolescence", "young_adulthood", "current")
                   for x in getattr(v.memories, p)),
                 *(x for s in case.plot.stages for x in s.narration)]  # fmt: skip
        assert len(set(lines)) >= 45, case.id


def test_level_sampler_matches_the_reference_distribution():
    sampler = LevelSampler()
    rng = np.random.default_rng(123)
    targets = np.array([sampler.target(a, rng) for _ in range(4000) for a in AXES])
    assert abs(targets.mean() - POOL_NORM_MEAN) < 0.15
    assert abs(targets.std() - POOL_NORM_SD) < 0.15
    assert sampler.cap("C") == pytest.approx(np.sqrt(3) * 21)  # no C-dominant case is extreme
    for axis in AXES:
        levels = sampler.draw(axis, rng)
        assert dominant_axis(initial_deficit(levels)) == axis


@pytest.mark.parametrize("loc, scale, low, high", [(32.9, 5.1, 17.0, 41.0), (0.0, 1.0, -1.0, 2.5),
                                                    (10.0, 3.0, 12.0, 30.0)])  # fmt: skip
def test_truncated_normal_moments_match_scipy(loc, scale, low, high):
    from scipy.stats import truncnorm

    a, b = (low - loc) / scale, (high - loc) / scale
    mean, var = truncnorm.stats(a, b, loc=loc, scale=scale, moments="mv")
    got = truncated_normal_moments(loc, scale, low, high)
    assert got == pytest.approx((float(mean), float(np.sqrt(var))), rel=1e-10)


def test_level_sampler_solves_for_the_reference_mean_and_sd():
    sampler = LevelSampler()
    loc, scale = sampler.loc_scale
    moments = truncated_normal_moments(loc, scale, sampler.low, sampler.high)
    assert moments == pytest.approx((POOL_NORM_MEAN, POOL_NORM_SD), abs=1e-9)
    with pytest.raises(ValueError, match="no truncated normal"):
        _ = LevelSampler(mean=40.9, sd=9.0).loc_scale  # a mean near the edge with a wide sd


def test_generate_rejects_bad_arguments():
    with pytest.raises(ValueError):
        ProceduralGenerator().generate(-1, 0)
    with pytest.raises(ValueError):
        ProceduralGenerator().generate(3, -5)
