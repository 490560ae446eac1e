"""``official`` vs ``paper``: ideal direction, index constants and the oscillation stop."""

from __future__ import annotations

import math
from dataclasses import asdict

import numpy as np
import pytest

from epm import OFFICIAL, PAPER, PRESETS, EPMConfig, batch_physics, evaluate_batch, get_preset


def test_official_is_the_default_and_documented_constants() -> None:
    assert EPMConfig() == OFFICIAL
    assert get_preset("official") is OFFICIAL and get_preset("paper") is PAPER
    assert get_preset(PAPER) is PAPER
    assert set(PRESETS) == {"official", "paper"}
    c = OFFICIAL.indices
    assert (c.rho_max, c.alpha, c.beta, c.r0, c.weights) == (2.5, 1.5, 1.2, "goal_distance",
                                                              (0.4, 0.2, 0.4))  # fmt: skip
    c = PAPER.indices
    assert (c.rho_max, c.alpha, c.beta, c.r0) == (math.sqrt(12.0), 1.2, None, "norm")
    assert OFFICIAL.ideal_direction == "fixed" and PAPER.ideal_direction == "dynamic"
    e = OFFICIAL.ending
    assert (e.max_turns, e.min_turns, e.collapse_window, e.stagnation_window) == (45, 12, 5, 5)
    assert (e.stagnation_std, e.regression_window, e.regression_ratio) == (0.5, 8, 0.7)
    assert e.alignment_branch is False
    # the reference's Director-level oscillation stop is on in official (window 11), off in paper
    assert e.oscillation_rule is True and e.oscillation_window == 11
    assert (e.oscillation_min_path, e.oscillation_max_displacement) == (3.0, 3.0)
    assert PAPER.ending.oscillation_rule is False
    assert (OFFICIAL.goal_epsilon, OFFICIAL.threshold_alpha, OFFICIAL.energy_factor) == (
        1.0,
        0.1,
        1.0,
    )


def test_presets_differ_only_in_direction_index_constants_and_oscillation_stop() -> None:
    a, b = asdict(OFFICIAL), asdict(PAPER)
    top = {k for k in a if a[k] != b[k]}
    assert top == {"name", "ideal_direction", "ending", "indices"}
    assert {k for k in a["ending"] if a["ending"][k] != b["ending"][k]} == {"oscillation_rule"}
    idx = {k for k in a["indices"] if a["indices"][k] != b["indices"][k]}
    assert idx == {"rho_max", "alpha", "beta", "r0"}


def test_unknown_preset_and_bad_values() -> None:
    with pytest.raises(KeyError, match="unknown EPM preset"):
        get_preset("nope")
    with pytest.raises(ValueError):
        EPMConfig(ideal_direction="sideways")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        EPMConfig(goal_epsilon=-1.0)


def test_with_overrides_routes_keys() -> None:
    cfg = OFFICIAL.with_overrides(max_turns=30, rho_max=3.0, threshold_alpha=0.2)
    assert cfg.ending.max_turns == 30 and cfg.indices.rho_max == 3.0
    assert cfg.threshold_alpha == 0.2
    assert OFFICIAL.ending.max_turns == 45  # the preset itself is untouched (frozen)
    with pytest.raises(KeyError, match="unknown EPM parameter"):
        OFFICIAL.with_overrides(warp_speed=9)
    assert cfg.to_dict()["ending"]["max_turns"] == 30


def test_same_physics_when_the_state_stays_on_the_start_ray() -> None:
    # P_0 = (-2, -4, -4) (||P_0|| = 6); every v_t is a positive multiple of v* = (1, 2, 2) / 3
    # that stops short of the origin, so -P_{t-1} / ||P_{t-1}|| = v* every turn: the two presets
    # compute the same delta_E, alignment and projection; only the index constants differ.
    p0 = np.array([[-2.0, -4.0, -4.0]])
    v = np.array([[[0.5, 1.0, 1.0], [0.25, 0.5, 0.5], [0.5, 1.0, 1.0]]])
    off = batch_physics(p0, v, config="official")
    pap = batch_physics(p0, v, config="paper")
    np.testing.assert_allclose(off.delta_E, pap.delta_E, rtol=1e-12)
    np.testing.assert_allclose(off.alignment, pap.alignment, rtol=1e-12)
    np.testing.assert_allclose(off.projection, pap.projection, rtol=1e-12)
    # delta_E = ||v_t|| = 1.5, 0.75, 1.5
    assert off.delta_E[0] == pytest.approx([1.5, 0.75, 1.5])
    levels = np.zeros((1, 3, 6))
    mo = evaluate_batch(p0, v, levels, None, "official")
    mp = evaluate_batch(p0, v, levels, None, "paper")
    for name in ("RDI", "E_total", "rho", "S_proj", "tau", "R_pos", "mean_alignment", "R_pen"):
        assert mo[name][0] == pytest.approx(mp[name][0]), name
    # index constants: E_total = 3.75; official r0 = d_0 = ||(-1, -3, -3)|| = sqrt(19),
    # paper r0 = ||P_0|| = 6
    assert mo["Idx_Etot"][0] == pytest.approx(3.75 / (1.2 * math.sqrt(19)) * 100)
    assert mp["Idx_Etot"][0] == pytest.approx(3.75 / 6 * 100)
    assert mo["Idx_rho"][0] == pytest.approx(1.25 / 2.5 * 100)
    assert mp["Idx_rho"][0] == pytest.approx(1.25 / math.sqrt(12) * 100)


def test_presets_diverge_once_the_path_bends() -> None:
    # P_0 = (-3, -4, 0), v = (1, 3, 0), (-2, 0, 0): turn 2 differs (see test_epm_metrics)
    p0 = np.array([[-3.0, -4.0, 0.0]])
    v = np.array([[[1.0, 3.0, 0.0], [-2.0, 0.0, 0.0]]])
    off = batch_physics(p0, v, config="official").delta_E[0]
    pap = batch_physics(p0, v, config="paper").delta_E[0]
    assert off[0] == pytest.approx(pap[0]) == pytest.approx(3.0)
    assert off[1] == pytest.approx(-1.2)
    assert pap[1] == pytest.approx(-4 / math.sqrt(5))
