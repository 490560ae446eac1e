"""NEE panel aggregation, FCS (section 9) and the scenario weightings (section 8, open paradigm)."""

from __future__ import annotations

import pytest

from epm import WEIGHTINGS, NEEScore, Weighting, fcs, panel_nee, register_weighting
from epm.nee import NEE_MAXIMA, nee_from_subscores
from epm.weighting import weighted_index


def test_nee_score_total_and_maxima() -> None:
    assert NEE_MAXIMA == {"naturalness": 30.0, "pacing": 40.0, "narrative_arc": 30.0}
    assert NEEScore(27.0, 37.0, 26.0).total == 90.0
    assert NEEScore(30.0, 40.0, 30.0).total == 100.0
    for bad in ((31.0, 0.0, 0.0), (0.0, 40.5, 0.0), (0.0, 0.0, -1.0)):
        with pytest.raises(ValueError):
            NEEScore(*bad)


def test_panel_average_and_spread() -> None:
    # judge totals: 20 + 30 + 20 = 70 and 28 + 36 + 26 = 90 -> mean 80, population sd 10
    panel = panel_nee([NEEScore(20, 30, 20, judge="j1"), NEEScore(28, 36, 26, judge="j2")])
    assert panel.nee == pytest.approx(80.0)
    assert panel.nee_std == pytest.approx(10.0)
    assert (panel.naturalness, panel.pacing, panel.narrative_arc) == pytest.approx((24, 33, 23))
    assert panel.judges == 2
    # the panel NEE equals the sum of the sub-score means
    assert panel.nee == pytest.approx(panel.naturalness + panel.pacing + panel.narrative_arc)
    with pytest.raises(ValueError):
        panel_nee([])


def test_nee_from_subscores_gemini_row() -> None:
    # Echo-N1 Table 10, Gemini 2.5 Pro: 27.26 + 37.04 + 26.7 = 91.0 (Table 11 uses 91)
    assert nee_from_subscores(27.26, 37.04, 26.7) == pytest.approx(91.0)


def test_fcs_is_60_40() -> None:
    # Table 11, Gemini: 0.6 * 90.73 + 0.4 * 91 = 54.438 + 36.4 = 90.838
    assert fcs(90.73, 91.0) == pytest.approx(90.838)
    assert fcs(100.0, 0.0) == pytest.approx(60.0)
    assert fcs(50.0, 50.0, weights=(0.5, 0.5)) == pytest.approx(50.0)


def test_builtin_weightings() -> None:
    assert set(WEIGHTINGS) >= {
        "official", "crisis_intervention", "long_term_companionship", "task_oriented_counselling",
    }  # fmt: skip
    off = WEIGHTINGS["official"]
    assert (off.outcome, off.efficiency, off.stability) == (0.4, 0.2, 0.4)
    # each scenario puts its priority first, as the paper's text says
    crisis = WEIGHTINGS["crisis_intervention"].as_dict()
    assert max(crisis, key=crisis.get) == "Stability"
    companion = WEIGHTINGS["long_term_companionship"].as_dict()
    assert max(companion, key=companion.get) == "Outcome"
    task = WEIGHTINGS["task_oriented_counselling"].as_dict()
    assert max(task, key=task.get) == "Efficiency"
    for w in WEIGHTINGS.values():
        assert sum(w.as_dict().values()) == pytest.approx(1.0)


def test_weighted_index_by_hand() -> None:
    dims = {"Outcome": 100.0, "Efficiency": 50.0, "Stability": 80.0}
    assert weighted_index(dims, "official") == pytest.approx(40 + 10 + 32)
    # crisis: 0.25 * 100 + 0.15 * 50 + 0.60 * 80 = 25 + 7.5 + 48 = 80.5
    assert weighted_index(dims, "crisis_intervention") == pytest.approx(80.5)
    assert weighted_index(dims, Weighting("eq", 0.5, 0.0, 0.5)) == pytest.approx(90.0)


def test_user_defined_weighting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("epm.weighting.WEIGHTINGS", dict(WEIGHTINGS))
    import epm.weighting as w

    register_weighting(Weighting("outcome_only", 1.0, 0.0, 0.0, "only the result counts"))
    assert "outcome_only" in w.WEIGHTINGS
    assert (
        weighted_index({"Outcome": 7.0, "Efficiency": 1.0, "Stability": 1.0}, "outcome_only") == 7.0
    )
    with pytest.raises(ValueError, match="sum to 1"):
        Weighting("bad", 0.5, 0.5, 0.5)
    with pytest.raises(ValueError):
        Weighting("negative", 1.2, -0.2, 0.0)
