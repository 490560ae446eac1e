"""Every episode metric (section 7) and every EPM-Q index (section 8), worked by hand.

The worked episode: P_0 = (-3, -4, 0), three turns judged as

    turn 1: C_Prog 1, A_Prog 2                 -> v_1 = (1, 3, 0)
    turn 2: C_Neg -1                           -> v_2 = (-2, 0, 0)
    turn 3: A_Prog 1, P_Prog 1, A_Neg -1       -> v_3 = (0, 1 - 2, 1) = (0, -1, 1)

Positions: P_0 = (-3, -4, 0), P_1 = (-2, -1, 0), P_2 = (-4, -1, 0), P_3 = (-4, -2, 1).
||P_0|| = 5. Goal-zone distances: d_0 = ||(-2, -3, 0)|| = sqrt(13),
d_3 = ||(-3, -1, 0)|| = sqrt(10).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from epm import INDEX_NAMES, METRIC_NAMES, evaluate_batch, increment
from epm.episode import evaluate
from epm.indices import epm_index, scores_from_indices
from epm.metrics import batch_metrics, pad_episodes
from epm.trajectory import Judgement, Trajectory, TurnRecord

P0 = np.array([-3.0, -4.0, 0.0])
PROG = [{"C": 1, "A": 2, "P": 0}, {"C": 0, "A": 0, "P": 0}, {"C": 0, "A": 1, "P": 1}]
NEG = [{"C": 0, "A": 0, "P": 0}, {"C": -1, "A": 0, "P": 0}, {"C": 0, "A": -1, "P": 0}]
V = np.array([increment(p, n) for p, n in zip(PROG, NEG, strict=True)])
LEVELS = np.array(
    [[p[a] for a in "CAP"] + [n[a] for a in "CAP"] for p, n in zip(PROG, NEG, strict=True)]
)

SQ13, SQ10, SQ2, SQ6, SQ5, SQ17 = (math.sqrt(x) for x in (13, 10, 2, 6, 5, 17))


def _single(config: str = "official", p0=P0, v=V, levels=LEVELS) -> dict[str, float]:
    out = evaluate_batch(np.asarray(p0)[None], np.asarray(v, dtype=float)[None],
                         np.asarray(levels, dtype=float)[None], None, config)  # fmt: skip
    return {k: float(val[0]) for k, val in out.items()}


def test_rubric_gives_the_worked_increments() -> None:
    assert V.tolist() == [[1.0, 3.0, 0.0], [-2.0, 0.0, 0.0], [0.0, -1.0, 1.0]]


def test_official_metrics_by_hand() -> None:
    m = _single("official")
    # v* = (0.6, 0.8, 0): delta_E = 0.6 + 2.4 = 3.0; -1.2; -0.8  -> E_total = 1.0
    assert m["E_total"] == pytest.approx(1.0)
    assert m["E_surplus"] == pytest.approx(1.0 - 5.0)
    # RDI = (d_0 - d_T) / d_0 * 100 = (sqrt13 - sqrt10) / sqrt13 * 100 = 12.294
    assert m["RDI"] == pytest.approx((SQ13 - SQ10) / SQ13 * 100)
    assert m["RDI"] == pytest.approx(12.2941, abs=1e-4)
    # S_net = raw levels: (1 + 2) + (-1) + (1 + 1 - 1) = 3
    assert m["S_net"] == 3.0
    # rho = E_total / T = 1 / 3; S_proj = E_total / (T + 1) = 1 / 4
    assert m["rho"] == pytest.approx(1.0 / 3.0)
    assert m["S_proj"] == pytest.approx(0.25)
    # tau = (||v_1|| + ||v_2|| + ||v_3||) / ||P_3 - P_0|| = (sqrt10 + 2 + sqrt2) / ||(-1, 2, 1)||
    assert m["tau"] == pytest.approx((SQ10 + 2 + SQ2) / SQ6)
    assert m["tau"] == pytest.approx(2.68484, abs=1e-5)
    # R_pos: one point of 4 with delta_E > 0 -> 25 %
    assert m["R_pos"] == pytest.approx(25.0)
    # alignment: 3 / sqrt10, -1.2 / 2 = -0.6, -0.8 / sqrt2; mean over T + 1 = 4 points
    mean_align = (3 / SQ10 - 0.6 - 0.8 / SQ2) / 4
    assert m["mean_alignment"] == pytest.approx(mean_align)
    assert m["mean_alignment"] == pytest.approx(-0.0542505, abs=1e-6)
    # R_pen = (|-1| + |-1|) / 4 = 0.5
    assert m["R_pen"] == pytest.approx(0.5)
    assert m["turns"] == 3 and m["norm_P0"] == pytest.approx(5.0)
    assert m["d0"] == pytest.approx(SQ13) and m["dT"] == pytest.approx(SQ10)


def test_official_indices_by_hand() -> None:
    m = _single("official")
    r0 = SQ13  # official: r0 = d_0
    rdi = (SQ13 - SQ10) / SQ13 * 100
    tau = (SQ10 + 2 + SQ2) / SQ6
    mean_align = (3 / SQ10 - 0.6 - 0.8 / SQ2) / 4
    expected = {
        "Idx_RDI": (rdi + 100) / 2,                     # 56.147
        "Idx_Etot": 1.0 / (1.2 * r0) * 100,            # 23.113 (BETA = 1.2)
        "Idx_Snet": 3.0 / (1.5 * r0) * 100,            # 55.470 (ALPHA = 1.5)
        "Idx_rho": (1 / 3) / 2.5 * 100,                # 13.333 (RHO_MAX = 2.5)
        "Idx_Sproj": 0.25 / 2.5 * 100,                 # 10.0
        "Idx_tau": (3 - tau) / 2 * 100,                # 15.758
        "Idx_Rpos": 25.0,
        "Idx_Align": (mean_align + 1) / 2 * 100,       # 47.287
        "Idx_Pen": (3 - 0.5) / 3 * 100,                # 83.333
    }  # fmt: skip
    for name, value in expected.items():
        assert m[name] == pytest.approx(value), name
    assert m["Idx_Etot"] == pytest.approx(23.1125, abs=1e-4)
    outcome = (expected["Idx_RDI"] + expected["Idx_Etot"] + expected["Idx_Snet"]) / 3
    efficiency = (expected["Idx_rho"] + expected["Idx_Sproj"] + expected["Idx_tau"]) / 3
    stability = (expected["Idx_Rpos"] + expected["Idx_Align"] + expected["Idx_Pen"]) / 3
    assert m["Outcome"] == pytest.approx(outcome)
    assert m["Efficiency"] == pytest.approx(efficiency)
    assert m["Stability"] == pytest.approx(stability)
    assert m["EPM_Index"] == pytest.approx(0.4 * outcome + 0.2 * efficiency + 0.4 * stability)


def test_paper_preset_by_hand() -> None:
    m = _single("paper")
    # v*_1 = -P_0 / 5 = (0.6, 0.8, 0): delta_E_1 = 3
    # v*_2 = -P_1 / ||P_1|| = (2, 1, 0) / sqrt5: delta_E_2 = -4 / sqrt5 = -1.78885
    # v*_3 = -P_2 / ||P_2|| = (4, 1, 0) / sqrt17: delta_E_3 = (0 - 1 + 0) / sqrt17 = -0.24254
    e_total = 3 - 4 / SQ5 - 1 / SQ17
    assert m["E_total"] == pytest.approx(e_total)
    assert m["E_total"] == pytest.approx(0.968610, abs=1e-6)
    # alignments: 3 / sqrt10, (-4 / sqrt5) / 2, (-1 / sqrt17) / sqrt2
    mean_align = (3 / SQ10 - 2 / SQ5 - 1 / (SQ17 * SQ2)) / 4
    assert m["mean_alignment"] == pytest.approx(mean_align)
    # R_pos unchanged (only turn 1 > 0); geometry (RDI, tau) does not depend on v*
    assert m["R_pos"] == pytest.approx(25.0)
    assert m["RDI"] == pytest.approx((SQ13 - SQ10) / SQ13 * 100)
    assert m["tau"] == pytest.approx((SQ10 + 2 + SQ2) / SQ6)
    # paper constants: r0 = ||P_0|| = 5, no BETA, ALPHA = 1.2, RHO_MAX = sqrt(12)
    assert m["Idx_Etot"] == pytest.approx(e_total / 5 * 100)  # 19.372
    assert m["Idx_Snet"] == pytest.approx(3 / (1.2 * 5) * 100)  # 50.0
    assert m["Idx_rho"] == pytest.approx((e_total / 3) / math.sqrt(12) * 100)
    assert m["Idx_Sproj"] == pytest.approx((e_total / 4) / math.sqrt(12) * 100)
    assert m["Idx_Align"] == pytest.approx((mean_align + 1) / 2 * 100)


def test_no_movement_at_all() -> None:
    # five turns of v = 0 (all levels 0): tau = 1 by definition, nothing else moves
    m = _single(v=np.zeros((5, 3)), levels=np.zeros((5, 6)))
    assert m["tau"] == 1.0 and m["Idx_tau"] == 100.0
    assert m["E_total"] == 0.0 and m["mean_alignment"] == 0.0 and m["Idx_Align"] == 50.0
    assert m["RDI"] == 0.0 and m["Idx_RDI"] == 50.0
    assert m["R_pos"] == 0.0 and m["R_pen"] == 0.0 and m["Idx_Pen"] == 100.0
    assert m["Idx_Etot"] == 0.0 and m["Idx_Snet"] == 0.0 and m["Idx_rho"] == 0.0


def test_raw_levels_not_scores_in_s_net_and_r_pen() -> None:
    # C_Prog 1 and C_Neg -1 cancel in the RAW levels (S_net += 1 - 1 = 0) but not in the
    # scores: v = (+1 - 2, 0, 0) = (-1, 0, 0).
    levels = np.array([[1, 0, 0, -1, 0, 0]], dtype=float)
    m = _single(v=np.array([[-1.0, 0.0, 0.0]]), levels=levels)
    assert m["S_net"] == 0.0
    assert m["R_pen"] == pytest.approx(1 / 2)  # |-1| over T + 1 = 2 points
    # delta_E = -1 * 0.6 = -0.6, alignment -0.6 / 1; mean over 2 points = -0.3
    assert m["E_total"] == pytest.approx(-0.6)
    assert m["mean_alignment"] == pytest.approx(-0.3)
    # negative work is clipped at 0 in the indices
    assert m["Idx_Etot"] == 0.0 and m["Idx_rho"] == 0.0 and m["Idx_Sproj"] == 0.0


def test_closed_path_tau_infinite_index_zero_json_none() -> None:
    # there and back: path 2, displacement 0 -> tau = inf -> Idx_tau = 0
    v = np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    m = _single(v=v, levels=np.zeros((2, 6)))
    assert math.isinf(m["tau"]) and m["Idx_tau"] == 0.0
    traj = Trajectory(case_id="closed", p0=P0.tolist())
    pos = P0.copy()
    for i, step in enumerate(v):
        pos = pos + step
        traj.turns.append(
            TurnRecord(
                turn=i + 1, reply="", judgement=Judgement(prog=dict.fromkeys("CAP", 0),
                                                         neg=dict.fromkeys("CAP", 0)),
                v=step.tolist(), position=pos.tolist(), v_star=[0.6, 0.8, 0.0],
                delta_E=float(step @ [0.6, 0.8, 0.0]), alignment=0.0, projection=0.0, distance=0.0,
            )
        )  # fmt: skip
    row = evaluate(traj)
    assert row["tau"] is None
    assert row["Idx_tau"] == 0.0
    json.dumps(row, allow_nan=False)  # JSON-safe


def test_zero_alignment_for_zero_increment_inside_episode() -> None:
    # v_1 = (0, 1, 0): alignment 0.8; v_2 = 0: alignment 0 -> mean over 3 points = 0.8 / 3
    m = _single(v=np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]), levels=np.zeros((2, 6)))
    assert m["mean_alignment"] == pytest.approx(0.8 / 3)


def test_zero_deficit_axis() -> None:
    # P_0 = (0, -10, 0): the C and P axes are already in the zone. Moving on C only
    # (orthogonal to v* = (0, 1, 0)) does no work and leaves the goal distance at 9.
    m = _single(p0=np.array([0.0, -10.0, 0.0]), v=np.array([[2.0, 0.0, 0.0]]),
                levels=np.zeros((1, 6)))  # fmt: skip
    assert m["d0"] == 9.0 and m["dT"] == 9.0 and m["RDI"] == 0.0
    assert m["E_total"] == 0.0 and m["mean_alignment"] == 0.0
    # r0 = d_0 = 9 in the official preset
    m = _single(p0=np.array([0.0, -10.0, 0.0]), v=np.array([[0.0, 3.0, 0.0]]),
                levels=np.array([[0, 2, 0, 0, 0, 0]], dtype=float))  # fmt: skip
    assert m["Idx_Etot"] == pytest.approx(3 / (1.2 * 9) * 100)
    assert m["Idx_Snet"] == pytest.approx(2 / (1.5 * 9) * 100)
    assert m["RDI"] == pytest.approx((9 - 6) / 9 * 100)


def test_d0_zero_uses_r0_one_and_rdi_against_one() -> None:
    # P_0 = (-1, -0.5, 0) is already in the goal zone: d_0 = 0 -> r0 = 1.
    # ||P_0|| = sqrt(1.25), v* = (1, 0.5, 0) / sqrt(1.25)
    p0 = np.array([-1.0, -0.5, 0.0])
    # staying put: RDI = (0 - 0) / 1 * 100 = 0
    m = _single(p0=p0, v=np.zeros((1, 3)), levels=np.zeros((1, 6)))
    assert m["d0"] == 0.0 and m["RDI"] == 0.0 and m["Idx_RDI"] == 50.0
    # moving out to (-3, -0.5, 0): d_T = 2, RDI = (0 - 2) / 1 * 100 = -200 -> Idx_RDI clamps to 0
    m = _single(p0=p0, v=np.array([[-2.0, 0.0, 0.0]]), levels=np.zeros((1, 6)))
    assert m["RDI"] == pytest.approx(-200.0) and m["Idx_RDI"] == 0.0
    # moving in: v = (1, 0.5, 0): delta_E = sqrt(1.25); Idx_Etot = E / (1.2 * 1) * 100
    m = _single(p0=p0, v=np.array([[1.0, 0.5, 0.0]]), levels=np.zeros((1, 6)))
    assert m["Idx_Etot"] == pytest.approx(math.sqrt(1.25) / 1.2 * 100)


def test_zero_turns() -> None:
    # T = 0: one point, nothing happened; rho is defined as 0 (no division by zero)
    v, lv, lengths = pad_episodes([np.zeros((0, 3))], [np.zeros((0, 6))])
    out = evaluate_batch(P0[None], v, lv, lengths)
    m = {k: float(val[0]) for k, val in out.items()}
    assert m["turns"] == 0
    assert m["rho"] == 0.0 and m["S_proj"] == 0.0 and m["E_total"] == 0.0
    assert m["tau"] == 1.0 and m["R_pos"] == 0.0 and m["R_pen"] == 0.0
    assert m["mean_alignment"] == 0.0 and m["RDI"] == 0.0
    assert np.isfinite(list(m.values())).all()


def test_padding_does_not_leak_into_metrics() -> None:
    # the worked episode padded to 6 turns with garbage after T = 3 gives the same metrics
    v = np.concatenate([V, np.full((3, 3), 7.0)])
    lv = np.concatenate([LEVELS, np.full((3, 6), -2.0)])
    out = evaluate_batch(P0[None], v[None], lv[None], np.array([3]))
    ref = _single()
    for name in (*METRIC_NAMES, *INDEX_NAMES, "EPM_Index"):
        assert float(out[name][0]) == pytest.approx(ref[name]), name


def test_batch_metrics_object() -> None:
    bm = batch_metrics(P0[None], V[None], LEVELS[None])
    assert bm.physics.positions[0].tolist() == [[-3, -4, 0], [-2, -1, 0], [-4, -1, 0], [-4, -2, 1]]
    assert bm.turns.tolist() == [3]


def test_uncapped_indices_can_exceed_100() -> None:
    # P_0 = (0, -2, 0): d_0 = 1, r0 = 1. One turn A_Prog 2: v = (0, 3, 0), delta_E = 3.
    # Idx_Etot = 3 / 1.2 * 100 = 250, Idx_Snet = 2 / 1.5 * 100 = 133.3,
    # Idx_rho = 3 / 2.5 * 100 = 120, Idx_Sproj = (3 / 2) / 2.5 * 100 = 60. RDI = 100 -> 100.
    m = _single(p0=np.array([0.0, -2.0, 0.0]), v=np.array([[0.0, 3.0, 0.0]]),
                levels=np.array([[0, 2, 0, 0, 0, 0]], dtype=float))  # fmt: skip
    assert m["Idx_Etot"] == pytest.approx(250.0)
    assert m["Idx_Snet"] == pytest.approx(400.0 / 3.0)
    assert m["Idx_rho"] == pytest.approx(120.0)
    assert m["Idx_Sproj"] == pytest.approx(60.0)
    assert m["Idx_RDI"] == pytest.approx(100.0)


def test_penalty_index_floor_and_tau_index_floor() -> None:
    # every turn all three Neg levels -2: R_pen = 6 * T / (T + 1) = 4.8 for T = 4 -> Idx_Pen 0
    levels = np.tile([0, 0, 0, -2, -2, -2], (4, 1)).astype(float)
    v = np.tile([-4.0, -5.0, -5.0], (4, 1))
    m = _single(v=v, levels=levels)
    assert m["R_pen"] == pytest.approx(4.8) and m["Idx_Pen"] == 0.0
    # tau >= 3 -> Idx_tau 0: zig-zag (1,0,0), (-1,0,0), (1,0,0) -> path 3, displacement 1
    m = _single(v=np.array([[1.0, 0, 0], [-1.0, 0, 0], [1.0, 0, 0]]), levels=np.zeros((3, 6)))
    assert m["tau"] == pytest.approx(3.0) and m["Idx_tau"] == pytest.approx(0.0)


def test_epm_index_weights_and_scores_from_indices() -> None:
    dims = {"Outcome": 100.0, "Efficiency": 50.0, "Stability": 80.0}
    assert epm_index(dims) == pytest.approx(0.4 * 100 + 0.2 * 50 + 0.4 * 80)  # 82
    assert epm_index(dims, (1 / 3, 1 / 3, 1 / 3)) == pytest.approx(230 / 3)
    assert epm_index(dims, {"Outcome": 1.0, "Efficiency": 0.0, "Stability": 0.0}) == 100.0
    idx = dict.fromkeys(INDEX_NAMES, 10.0) | {"Idx_RDI": 40.0}
    s = scores_from_indices(idx)
    assert s["Outcome"] == pytest.approx(20.0)  # (40 + 10 + 10) / 3
    assert s["EPM_Index"] == pytest.approx(0.4 * 20 + 0.2 * 10 + 0.4 * 10)
