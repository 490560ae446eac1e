"""The project's corpus: deterministic, well-formed, every level of every axis, every family."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict

import pytest

from empa_env.offline.semantic.corpus.forum import FORUM_FAMILIES
from empa_env.offline.semantic.corpus.generator import (
    FAMILIES,
    LEVEL_KEYS,
    CorpusConfig,
    corpus_path,
    generate,
    reflect,
)


@pytest.fixture(scope="module")
def shipped():
    with corpus_path().open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def test_generation_is_deterministic_and_matches_the_shipped_file(shipped):
    again = [json.loads(json.dumps(asdict(r), ensure_ascii=False)) for r in generate()]
    assert again == shipped
    other = generate(CorpusConfig(seed=99, pool_cases=5))
    assert [r.reply for r in other] != [r["reply"] for r in shipped[: len(other)]]


def test_size_levels_and_families(shipped):
    assert len(shipped) >= 3000
    for key in LEVEL_KEYS:
        levels = Counter(r["levels"][key] for r in shipped)
        wanted = (0, 1, 2) if key.endswith("Prog") else (0, -1, -2)
        assert all(levels[lv] >= 100 for lv in wanted), (key, levels)
    assert set(Counter(r["family"] for r in shipped)) == set(FAMILIES) | set(FORUM_FAMILIES)
    assert {r["split"] for r in shipped} == {"train", "val", "test"}


def test_every_nonzero_level_has_verbatim_evidence_and_a_reason(shipped):
    for r in shipped:
        for key, level in r["levels"].items():
            if level:
                assert r["evidence"][key] in r["reply"], r["id"]
                assert r["reasons"][key], r["id"]
        assert r["reason"] and r["context"]


def test_hard_negatives_never_earn_progress(shipped):
    genuine = {"genuine", "genuine_negative", "neutral", "forum"}
    for r in shipped:
        if r["family"] not in genuine:
            assert all(r["levels"][k] == 0 for k in ("C_Prog", "A_Prog", "P_Prog")), r["id"]


def test_splits_are_by_case(shipped):
    split_of = {}
    for r in shipped:
        assert split_of.setdefault(r["case_id"], r["split"]) == r["split"]


def test_reflection_turns_first_person_into_second():
    assert reflect("I was so tired I left my card.") == "you were so tired you left your card"
