"""Property tests (hypothesis) for the EPM invariants."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from epm import (
    AXES,
    EPMTracker,
    Judgement,
    RewardFunction,
    Trajectory,
    TurnRecord,
    batch_physics,
    evaluate_batch,
    get_preset,
    increment,
    trajectory_rewards,
    unit_toward_origin,
)
from epm.rubric import IEDR_INDICATORS, initial_deficit

# No wall-clock deadlines: these are correctness tests, not timing tests.
settings.register_profile("epm", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
settings.load_profile("epm")

PRESET_NAMES = st.sampled_from(["official", "paper"])


@st.composite
def p0s(draw: st.DrawFn) -> np.ndarray:
    """``P_0`` from nine IEDR levels (integers, every component <= 0)."""
    levels = {k: draw(st.integers(0, 3)) for k in IEDR_INDICATORS}
    return initial_deficit(levels)


@st.composite
def judged_episodes(
    draw: st.DrawFn, max_turns: int = 45
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(P_0, v (T, 3), levels (T, 6))`` with rubric-valid levels; T may be 0."""
    p0 = draw(p0s())
    t = draw(st.integers(0, max_turns))
    prog = draw(st.lists(st.tuples(*[st.integers(0, 2)] * 3), min_size=t, max_size=t))
    neg = draw(st.lists(st.tuples(*[st.integers(-2, 0)] * 3), min_size=t, max_size=t))
    v = np.array(
        [increment(dict(zip(AXES, p, strict=True)), dict(zip(AXES, n, strict=True)))
         for p, n in zip(prog, neg, strict=True)], dtype=float,
    ).reshape(-1, 3)  # fmt: skip
    levels = np.array([list(p) + list(n) for p, n in zip(prog, neg, strict=True)],
                      dtype=float).reshape(-1, 6)  # fmt: skip
    return p0, v, levels


def _one(p0: np.ndarray, v: np.ndarray, levels: np.ndarray, preset: str) -> dict[str, float]:
    out = evaluate_batch(p0[None], v[None], levels[None], np.array([len(v)]), preset)
    return {k: float(x[0]) for k, x in out.items()}


def _no_early_end(preset: str):
    # checks only at turn 45, so the tracker sees every increment of a <= 45-turn episode
    return get_preset(preset).with_overrides(min_turns=45, max_turns=45)


@given(judged_episodes(), PRESET_NAMES)
def test_e_total_is_the_sum_of_delta_e(ep, preset: str) -> None:
    p0, v, levels = ep
    tracker = EPMTracker(p0, _no_early_end(preset))
    for step in v:
        tracker.step(step)
    m = _one(p0, v, levels, preset)
    assert m["E_total"] == tracker.e_total  # both sum in turn order: bit-identical
    assert math.isclose(m["E_total"], math.fsum(tracker.delta_E), rel_tol=1e-12, abs_tol=1e-9)
    if preset == "official" and len(v):
        # fixed v*: the work telescopes, E_total = (P_T - P_0) . v*
        v_star = unit_toward_origin(p0)
        assert math.isclose(m["E_total"], float((tracker.position - p0) @ v_star), abs_tol=1e-9)


@given(judged_episodes(), PRESET_NAMES)
def test_tracker_matches_batch_physics_exactly(ep, preset: str) -> None:
    p0, v, _ = ep
    tracker = EPMTracker(p0, _no_early_end(preset))
    per_turn = [tracker.step(step)[0] for step in v]
    bp = batch_physics(p0[None], v[None], np.array([len(v)]), preset)
    for t, phys in enumerate(per_turn):
        assert phys.position.tolist() == bp.positions[0, t + 1].tolist()
        assert phys.v_star.tolist() == bp.v_star[0, t].tolist()
        assert phys.delta_E == bp.delta_E[0, t]
        assert phys.alignment == bp.alignment[0, t]
        assert phys.projection == bp.projection[0, t]
        assert phys.distance == bp.distance[0, t]


@st.composite
def float_episodes(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Arbitrary real ``P_0`` and ``v_t`` (not only rubric integers)."""
    p0 = np.array(draw(st.lists(st.floats(-27.0, 0.0), min_size=3, max_size=3)))
    t = draw(st.integers(1, 45))
    v = draw(st.lists(st.lists(st.floats(-5.0, 3.0), min_size=3, max_size=3), min_size=t,
                      max_size=t))  # fmt: skip
    return p0, np.array(v)


@given(float_episodes(), PRESET_NAMES)
def test_tracker_matches_batch_physics_for_real_valued_increments(ep, preset: str) -> None:
    p0, v = ep
    tracker = EPMTracker(p0, _no_early_end(preset))
    per_turn = [tracker.step(step)[0] for step in v]
    bp = batch_physics(p0[None], v[None], None, preset)
    assert [p.delta_E for p in per_turn] == bp.delta_E[0].tolist()
    assert [p.projection for p in per_turn] == bp.projection[0].tolist()
    assert np.array([p.position for p in per_turn]).tolist() == bp.positions[0, 1:].tolist()
    assert tracker.e_total == float(evaluate_batch(p0[None], v[None], np.zeros((1, len(v), 6)),
                                                   None, preset)["E_total"][0])  # fmt: skip


@given(judged_episodes(), PRESET_NAMES)
def test_metric_and_index_bounds(ep, preset: str) -> None:
    p0, v, levels = ep
    m = _one(p0, v, levels, preset)
    assert m["RDI"] <= 100.0 + 1e-9
    for name in ("Idx_RDI", "Idx_tau", "Idx_Rpos", "Idx_Align", "Idx_Pen"):
        assert -1e-9 <= m[name] <= 100.0 + 1e-9, name
    for name in ("Idx_Etot", "Idx_Snet", "Idx_rho", "Idx_Sproj"):
        assert m[name] >= 0.0, name  # uncapped above
    assert -1.0 - 1e-12 <= m["mean_alignment"] <= 1.0 + 1e-12
    assert m["tau"] >= 1.0 - 1e-9
    assert 0.0 <= m["R_pos"] <= 100.0
    # R_pen <= 6 (at most |-2| on each of three axes per turn)
    assert 0.0 <= m["R_pen"] <= 6.0
    assert math.isfinite(m["EPM_Index"])


@st.composite
def straight_runs(draw: st.DrawFn) -> tuple[np.ndarray, list[float]]:
    """Steps c_t > 0 along v* that stop short of the origin (so v*_t never flips)."""
    p0 = draw(p0s().filter(lambda p: np.linalg.norm(p) > 1.0))
    t = draw(st.integers(1, 45))
    weights = draw(st.lists(st.floats(0.1, 1.0), min_size=t, max_size=t))
    budget = draw(st.floats(0.1, 0.95)) * float(np.linalg.norm(p0))
    scale = budget / sum(weights)
    return p0, [w * scale for w in weights]


@given(straight_runs(), PRESET_NAMES)
def test_perfect_straight_run(run, preset: str) -> None:
    p0, steps = run
    v_star = unit_toward_origin(p0)
    v = np.array([c * v_star for c in steps])
    t = len(steps)
    m = _one(p0, v, np.zeros((t, 6)), preset)
    bp = batch_physics(p0[None], v[None], None, preset)
    np.testing.assert_allclose(bp.alignment[0], 1.0, rtol=1e-12)  # every turn cos(theta) = 1
    assert math.isclose(m["tau"], 1.0, rel_tol=1e-9)
    assert math.isclose(m["Idx_tau"], 100.0, rel_tol=1e-9)
    assert math.isclose(m["E_total"], sum(steps), rel_tol=1e-9)
    assert math.isclose(m["R_pos"], 100.0 * t / (t + 1), rel_tol=1e-12)
    # point 0 counts as alignment 0 (EMPA reference implementation, arXiv 2603.00552): mean = T / (T + 1), so
    # Idx_Align = (T / (T + 1) + 1) / 2 * 100 = 100 (2T + 1) / (2T + 2), -> 100 as T grows
    assert math.isclose(m["mean_alignment"], t / (t + 1), rel_tol=1e-12)
    assert math.isclose(m["Idx_Align"], 100.0 * (2 * t + 1) / (2 * t + 2), rel_tol=1e-12)


@given(judged_episodes(max_turns=45), st.sampled_from(["idr", "idr_goal"]))
def test_idr_telescopes(ep, kind: str) -> None:
    p0, v, _ = ep
    positions = np.vstack([p0, p0 + np.cumsum(v, axis=0)]) if len(v) else p0[None]
    rf = RewardFunction(kind)
    r = trajectory_rewards(positions, rf)
    phi = (lambda p: float(np.linalg.norm(p))) if kind == "idr" else (
        lambda p: -RewardFunction("adr_goal")(p, p))  # fmt: skip
    assert math.isclose(math.fsum(r), phi(positions[0]) - phi(positions[-1]), abs_tol=1e-9)


FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)
TEXT = st.text(max_size=30)


@st.composite
def judgements(draw: st.DrawFn) -> Judgement:
    if draw(st.booleans()) and draw(st.booleans()):
        return Judgement.failure(draw(TEXT), judge=draw(TEXT))
    prog = {a: draw(st.integers(0, 2)) for a in AXES}
    neg = {a: draw(st.integers(-2, 0)) for a in AXES}
    keys = st.sampled_from([f"{a}_{k}" for a in AXES for k in ("Prog", "Neg")])
    return Judgement(
        prog=prog, neg=neg, evidence=draw(st.dictionaries(keys, TEXT, max_size=3)),
        reasoning=draw(st.dictionaries(keys, TEXT, max_size=3)), judge=draw(TEXT),
    )  # fmt: skip


JSON_LEAF = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | FINITE | TEXT
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def turn_records(draw: st.DrawFn, turn: int) -> TurnRecord:
    vec = st.lists(FINITE, min_size=3, max_size=3)
    return TurnRecord(
        turn=turn, reply=draw(TEXT), judgement=draw(judgements()), v=draw(vec),
        position=draw(vec), v_star=draw(vec), delta_E=draw(FINITE), alignment=draw(FINITE),
        projection=draw(FINITE), distance=draw(FINITE), reward=draw(FINITE),
        user_message=draw(TEXT),
        director=draw(st.none() | st.dictionaries(TEXT, JSON_VALUE, max_size=3)),
        status=draw(st.sampled_from(["ongoing", "success", "failure", "truncated"])),
    )  # fmt: skip


@st.composite
def trajectories(draw: st.DrawFn) -> Trajectory:
    n = draw(st.integers(0, 6))
    return Trajectory(
        case_id=draw(TEXT), p0=draw(st.lists(FINITE, min_size=3, max_size=3)),
        preset=draw(PRESET_NAMES), opening=draw(TEXT),
        turns=[draw(turn_records(i + 1)) for i in range(n)],
        outcome=draw(st.sampled_from(["ongoing", "success", "failure", "truncated"])),
        victory_type=draw(st.none() | st.sampled_from(["geometric", "positional"])),
        failure_reason=draw(st.none() | st.sampled_from(["collapse", "stagnation_regression"])),
        meta=draw(st.dictionaries(TEXT, JSON_VALUE, max_size=4)),
    )  # fmt: skip


@given(trajectories())
def test_trajectory_json_round_trip_is_exact(traj: Trajectory) -> None:
    text = traj.to_json()
    back = Trajectory.from_json(text)
    assert back == traj
    assert back.to_json() == text
