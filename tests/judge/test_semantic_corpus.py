"""The project's corpus: deterministic, well-formed, every level of every axis, every family."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from empa_env.offline.semantic.lab.corpus.forum import FORUM_FAMILIES
from empa_env.offline.semantic.lab.corpus.generator import (
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
    again = [json.loads(json.dumps(r.to_json(), ensure_ascii=False)) for r in generate()]
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


def test_parts_are_verbatim_and_compose_into_the_reply_levels(shipped):
    with_parts = [r for r in shipped if r.get("parts")]
    assert len(with_parts) > 5000
    for r in with_parts:
        composed = dict.fromkeys(LEVEL_KEYS, 0)
        for part in r["parts"]:
            assert part["text"] in r["reply"], r["id"]
            for key, level in part["levels"].items():
                if abs(level) > abs(composed[key]):
                    composed[key] = level
        assert composed == r["levels"], r["id"]


def test_skeleton_families_count_a_quarter(shipped):
    weights = {(r["family"], r["weight"]) for r in shipped}
    assert ("genuine", 0.25) in weights and ("forum", 1.0) in weights
    assert all(w == 0.25 for f, w in weights if f in {"genuine", "neutral", "genuine_negative"})


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('"parts": [{"text": "not in it", "levels": {}}]', r"parts\[0\]\.text"),
        ('"parts": [{"text": "y", "levels": {"A_Prog": 3}}]', r"parts\[0\]\.levels"),
        ('"parts": "y"', "'parts' must be a list"),
        ('"weight": 0', "'weight' must be a positive number"),
        ('"weight": true', "'weight' must be a positive number"),
    ],
)
def test_bad_parts_or_weight_name_the_line(tmp_path, extra, message):
    from empa_env.offline.semantic.lab.train import CorpusFormatError, load_records

    bad = tmp_path / "bad.jsonl"
    bad.write_text(f'{{"context": ["x"], "reply": "y z", {extra}}}\n', encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=rf"bad.jsonl:1: {message}"):
        load_records(bad)


def test_parts_become_rows_of_their_own_with_the_reply_split_and_weight(tmp_path):
    from empa_env.offline.semantic.lab.train import load_records, with_parts

    path = tmp_path / "parts.jsonl"
    row = {"context": ["I failed the exam."], "reply": "That's rough. What happened?",
           "levels": {"A_Prog": 1, "P_Prog": 1}, "split": "val", "weight": 0.5, "family": "forum",
           "parts": [{"text": "That's rough.", "levels": {"A_Prog": 1}},
                     {"text": "What happened?", "levels": {"P_Prog": 1}}]}  # fmt: skip
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    rows = with_parts(load_records(path))
    assert [r.reply for r in rows] == ["That's rough. What happened?", "That's rough.",
                                       "What happened?"]  # fmt: skip
    assert rows[1].levels["A_Prog"] == 1 and rows[1].levels["P_Prog"] == 0
    assert rows[2].levels["P_Prog"] == 1 and rows[2].levels["A_Prog"] == 0
    assert {(r.split, r.weight, r.context) for r in rows} == {("val", 0.5, ("I failed the exam.",))}
    assert rows[1].family == "forum/part"
