"""Suites by id, manifest checks, the training pool and pool resolution."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from empa_env.cases import suites as suites_mod
from empa_env.cases.loader import CaseError, dump_case
from empa_env.cases.suites import (
    Suite,
    SuiteError,
    available_suites,
    check_manifest,
    load_suite,
    resolve_pool,
    training_pool,
)

SUITE_ID = "empa30-v1"
SUITE_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "suites" / SUITE_ID


def _manifest_for(cases, suite_id: str = "fake-v1") -> dict:
    rows = [{"id": c.id, **{k: c.metadata()[k] for k in suites_mod.MANIFEST_FIELDS}} for c in cases]
    return {"suite": suite_id, "version": 1, "cases": rows}


@pytest.fixture
def fake_suite(tmp_path, small_pool):
    """A suite ``fake-v1`` of six generated cases in a folder of its own, registered at run time
    (a suite is a folder: ``manifest.yaml`` + ``cases/``)."""
    cases = small_pool[:6]
    folder = tmp_path / "fake-v1"
    case_dir = folder / "cases"
    case_dir.mkdir(parents=True)
    for c in cases:
        (case_dir / f"{c.id}.yaml").write_text(dump_case(c), encoding="utf-8")
    manifest = folder / "manifest.yaml"
    manifest.write_text(yaml.safe_dump(_manifest_for(cases)), encoding="utf-8")
    assert suites_mod.register_suite(folder) == "fake-v1"
    yield cases, case_dir, manifest
    suites_mod._REGISTERED.pop("fake-v1", None)
    load_suite.cache_clear()


def test_fake_suite_loads_in_manifest_order(fake_suite):
    cases, _, _ = fake_suite
    assert "fake-v1" in available_suites()
    suite = load_suite("fake-v1")
    assert isinstance(suite, Suite) and suite.id == "fake-v1" and suite.version == 1
    assert [c.id for c in suite.cases] == [c.id for c in cases]
    assert suite.case(cases[2].id) == cases[2]
    with pytest.raises(KeyError):
        suite.case("nope")


def test_unknown_suite_id_is_a_clear_error():
    with pytest.raises(SuiteError, match="unknown suite id; available: .*"):
        load_suite("no-such-suite")


def test_manifest_mismatches_are_all_reported(fake_suite):
    cases, case_dir, manifest = fake_suite
    data = yaml.safe_load(manifest.read_text())
    other = "A" if data["cases"][0]["dominant_axis"] != "A" else "C"
    data["cases"][0]["dominant_axis"] = other
    data["cases"][1]["difficulty"] = "nonsense"
    data["cases"].append({"id": "ghost-001", "domain": "leisure", "dominant_axis": "C",
                          "difficulty": "easy", "empathy_threshold": "low"})  # fmt: skip
    manifest.write_text(yaml.safe_dump(data), encoding="utf-8")
    (case_dir / cases[5].id).with_suffix(".yaml").rename(case_dir / "renamed.yaml")  # still present
    with pytest.raises(SuiteError) as err:
        load_suite("fake-v1")
    text = "\n".join(err.value.problems)
    assert f"{cases[0].id}: manifest says dominant_axis = '{other}'" in text
    assert f"{cases[1].id}: manifest says difficulty = 'nonsense'" in text and "||P_0|| =" in text
    assert "ghost-001: in the manifest but no case file has this id" in text
    assert len(err.value.problems) == 3


def test_case_missing_from_the_manifest_and_counts(small_pool):
    cases = list(small_pool[:4])
    manifest = _manifest_for(cases[:3])
    manifest["counts"] = {"domain": {cases[0].domain: 99}}
    problems = check_manifest("fake-v1", manifest, cases)
    assert f"{cases[3].id}: case file not listed in the manifest" in problems
    assert any(
        p.startswith(f"counts: domain = {cases[0].domain}: manifest says 99") for p in problems
    )
    assert check_manifest("other", _manifest_for(cases), cases) == [
        "manifest names suite 'fake-v1', expected 'other'"
    ]
    assert check_manifest("fake-v1", _manifest_for(cases), cases) == []


def test_invalid_case_file_in_a_suite_names_the_file(fake_suite):
    _, case_dir, _ = fake_suite
    bad = case_dir / "zz-bad.yaml"
    bad.write_text("id: zz-bad\nlanguage: en\n", encoding="utf-8")
    with pytest.raises(CaseError) as err:
        load_suite("fake-v1")
    assert {i.path for i in err.value.issues} == {str(bad)}


def test_resolve_pool_accepts_every_documented_form(fake_suite, small_pool):
    cases, case_dir, _ = fake_suite
    assert resolve_pool(None) == training_pool() == resolve_pool("generated")
    small = resolve_pool("generated:3:25")
    assert len(small) == 25 and small[0].id == "gen-s3-0000" and small == training_pool(3, 25)
    assert resolve_pool("generated:3")[:25] == small
    assert [c.id for c in resolve_pool("fake-v1")] == [c.id for c in cases]
    assert {c.id for c in resolve_pool(str(case_dir))} == {c.id for c in cases}
    assert resolve_pool(list(small_pool[:3])) == small_pool[:3]


@pytest.mark.parametrize("spec", ["nonsense", "generated:x", "/no/such/dir", 42, [1, 2]])
def test_resolve_pool_rejects_anything_else(spec):
    with pytest.raises(ValueError, match="expected"):
        resolve_pool(spec)


def test_training_pool_is_disjoint_from_every_suite_id_scheme():
    assert all(c.id.startswith("gen-s0-") for c in training_pool())


# ------------------------------------------------------------------ the real empa30-v1 suite


def test_empa30_v1_strata_are_exactly_as_stated():
    assert SUITE_ID in available_suites(), "empa30-v1 is not found (pip install -e .)"
    assert len(list((SUITE_DIR / "cases").glob("*.yaml"))) == 30
    load_suite.cache_clear()
    suite = load_suite(SUITE_ID)  # also checks every case against the manifest
    assert suite.id == SUITE_ID and suite.version == 1 and len(suite.cases) == 30
    assert Counter(c.dominant_axis for c in suite.cases) == {"C": 10, "A": 10, "P": 10}
    assert Counter(c.domain for c in suite.cases) == {
        d: 5
        for d in ("daily_life", "health", "leisure", "values_identity", "relationships", "career")
    }
    assert Counter(c.difficulty for c in suite.cases) == {
        "easy": 4,
        "medium": 10,
        "hard": 11,
        "extreme": 5,
    }
    high = sum(c.empathy_threshold == "high" for c in suite.cases)
    assert 13 <= high <= 17, f"about half should have a high empathy threshold, got {high}"
    assert all(c.source == "hand-written" and c.language == "en" for c in suite.cases)


def test_empa30_v1_is_disjoint_from_the_training_pool():
    suite = load_suite(SUITE_ID)
    pool = training_pool()
    assert {c.id for c in suite.cases}.isdisjoint(c.id for c in pool)
    assert {c.persona.name for c in suite.cases}.isdisjoint(c.persona.name for c in pool)
