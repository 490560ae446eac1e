"""The stratified sampler: quotas on every stratum at once, deterministic, never silent."""

from __future__ import annotations

import pytest

from empa_env.cases.sampler import PAPER_QUOTAS, scale_quota, strata_counts, stratified_sample
from empa_env.cases.suites import training_pool

PAPER_DIFFICULTY = {"easy": 4, "medium": 10, "hard": 11, "extreme": 5}


@pytest.fixture(scope="module")
def pool():
    return training_pool(0, 600)


def _ids(sample):
    return [c.id for c in sample.cases]


def test_default_sample_has_the_papers_strata(pool):
    sample = stratified_sample(pool, n=30, seed=0)
    assert sample.complete and len(sample.cases) == 30
    counts = strata_counts(sample.cases)
    assert counts["dominant_axis"] == {"C": 10, "A": 10, "P": 10}
    assert set(counts["domain"].values()) == {5}
    assert counts["difficulty"] == PAPER_DIFFICULTY
    assert len(set(_ids(sample))) == 30 and set(_ids(sample)) <= {c.id for c in pool}


@pytest.mark.parametrize("n", [1, 6, 12, 47, 90])
def test_any_size_scales_the_quotas(pool, n):
    sample = stratified_sample(pool, n=n, seed=3)
    assert sample.complete and len(sample.cases) == n
    for stratum, base in PAPER_QUOTAS.items():
        assert strata_counts(sample.cases)[stratum] == scale_quota(base, n)
        assert sample.quotas[stratum] == scale_quota(base, n)


def test_scale_quota_uses_largest_remainders():
    assert scale_quota(PAPER_QUOTAS["difficulty"], 30) == PAPER_DIFFICULTY
    assert scale_quota(PAPER_QUOTAS["difficulty"], 15) == {
        "easy": 2,
        "medium": 5,
        "hard": 6,
        "extreme": 2,
    }
    assert sum(scale_quota(PAPER_QUOTAS["domain"], 17).values()) == 17
    assert scale_quota({"C": 10, "A": 10, "P": 10}, 1) == {"C": 1, "A": 0, "P": 0}


def test_deterministic_per_seed_and_independent_of_pool_order(pool):
    a = stratified_sample(pool, n=30, seed=5)
    b = stratified_sample(list(reversed(pool)), n=30, seed=5)
    assert _ids(a) == _ids(b)
    assert _ids(stratified_sample(pool, n=30, seed=6)) != _ids(a)


def test_custom_quotas_and_threshold(pool):
    sample = stratified_sample(
        pool, n=12, seed=1, axis_quota={"A": 12}, difficulty_quota={"hard": 6, "extreme": 6},
        domain_quota={"career": 6, "health": 6}, threshold_quota={"high": 8, "medium": 4},
    )  # fmt: skip
    assert sample.complete
    assert all(c.dominant_axis == "A" and c.domain in ("career", "health") for c in sample.cases)
    counts = strata_counts(sample.cases)
    assert counts["difficulty"]["hard"] == 6 and counts["empathy_threshold"]["medium"] == 4


def test_unfillable_strata_are_reported(pool):
    # No C-dominant case can be extreme (||P_0|| <= 36.37 < 36.84), so this cannot be filled.
    sample = stratified_sample(
        pool, n=6, seed=0, axis_quota={"C": 6}, difficulty_quota={"extreme": 6}
    )
    assert not sample.complete and len(sample.cases) == 0
    reported = {(s.stratum, s.value, s.wanted, s.got) for s in sample.shortfalls}
    assert ("dominant_axis", "C", 6, 0) in reported and ("difficulty", "extreme", 6, 0) in reported
    assert "unfilled strata" in sample.report()


def test_small_pool_fills_what_it_can_and_reports_the_rest(pool):
    tiny = [c for c in pool if c.domain != "leisure"][:80]
    sample = stratified_sample(tiny, n=30, seed=2)
    assert not sample.complete
    assert len(sample.cases) == 25  # every other stratum is still within its quota
    assert [
        (s.stratum, s.value, s.wanted, s.got) for s in sample.shortfalls if s.stratum == "domain"
    ] == [("domain", "leisure", 5, 0)]
    counts = strata_counts(sample.cases)
    for stratum, quota in sample.quotas.items():
        assert all(counts[stratum][v] <= q for v, q in quota.items())
    assert "domain=leisure: wanted 5, got 0" in sample.report()


def test_bad_quotas_and_pools_are_rejected(pool):
    with pytest.raises(ValueError, match="sums to 29"):
        stratified_sample(pool, n=30, axis_quota={"C": 10, "A": 10, "P": 9})
    with pytest.raises(ValueError, match="unknown values"):
        stratified_sample(pool, n=3, axis_quota={"X": 3})
    with pytest.raises(ValueError, match="duplicate case ids"):
        stratified_sample([pool[0], pool[0], *pool[1:10]], n=3)
    with pytest.raises(ValueError):
        stratified_sample(pool, n=-1)


def test_empty_request_and_empty_pool(pool):
    assert stratified_sample(pool, n=0).cases == ()
    empty = stratified_sample([], n=3)
    assert empty.cases == () and not empty.complete
