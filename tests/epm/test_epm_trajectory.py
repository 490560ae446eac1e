"""The trajectory record: validation, array views, transcript, lossless JSON, evaluation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from epm import EPMTracker, Judgement, Trajectory, TurnRecord, evaluate, evaluate_batch
from epm.episode import evaluate_many
from epm.rubric import increment

ZERO = {"C": 0, "A": 0, "P": 0}


def build(p0: list[float], judgements: list[Judgement], preset: str = "official") -> Trajectory:
    """Fill a trajectory the way an environment does: rubric -> v_t -> tracker -> record."""
    tracker = EPMTracker(p0, preset)
    traj = Trajectory(case_id="case-1", p0=p0, preset=preset, opening="我最近很累。")
    for i, j in enumerate(judgements, start=1):
        v = increment(j.prog, j.neg)
        phys, status = tracker.step(v)
        traj.turns.append(
            TurnRecord(
                turn=i, reply=f"reply {i}", judgement=j, v=phys.v, position=phys.position,
                v_star=phys.v_star, delta_E=phys.delta_E, alignment=phys.alignment,
                projection=phys.projection, distance=phys.distance, user_message=f"user {i}",
                status=status.outcome,
            )
        )  # fmt: skip
    traj.outcome = tracker.status.outcome
    return traj


JUDGEMENTS = [
    Judgement(prog={"C": 1, "A": 2, "P": 0}, neg=ZERO, evidence={"C_Prog": "“你是说…”"}),
    Judgement(prog=ZERO, neg={"C": -1, "A": 0, "P": 0}, reasoning={"C_Neg": "missed the point"}),
    Judgement(prog={"C": 0, "A": 1, "P": 1}, neg={"C": 0, "A": -1, "P": 0}, judge="judge-x"),
]


def test_judgement_validation_and_raw_sums() -> None:
    with pytest.raises(ValueError):
        Judgement(prog={"C": 3, "A": 0, "P": 0}, neg=ZERO)
    j = JUDGEMENTS[2]
    assert j.raw_net == 0 + 1 + 1 + 0 - 1 + 0
    assert j.raw_penalty == 1


def test_failed_judgement_is_visible() -> None:
    f = Judgement.failure("timeout", judge="judge-x")
    assert f.failed and f.error == "timeout"
    assert f.prog == ZERO and f.neg == ZERO
    traj = build([-3.0, -4.0, 0.0], [JUDGEMENTS[0], f])
    assert traj.judge_failures == 1
    assert evaluate(traj)["judge_failures"] == 1


def test_array_views() -> None:
    traj = build([-3.0, -4.0, 0.0], JUDGEMENTS)
    assert traj.num_turns == 3
    assert traj.increments().tolist() == [[1, 3, 0], [-2, 0, 0], [0, -1, 1]]
    assert traj.positions().tolist() == [[-3, -4, 0], [-2, -1, 0], [-4, -1, 0], [-4, -2, 1]]
    assert traj.levels().tolist() == [
        [1, 2, 0, 0, 0, 0], [0, 0, 0, -1, 0, 0], [0, 1, 1, 0, -1, 0],
    ]  # fmt: skip
    empty = Trajectory(case_id="e", p0=[0.0, -1.0, -2.0])
    assert empty.increments().shape == (0, 3) and empty.levels().shape == (0, 6)
    assert empty.positions().tolist() == [[0.0, -1.0, -2.0]]


def test_transcript() -> None:
    traj = build([-3.0, -4.0, 0.0], JUDGEMENTS[:1])
    assert traj.transcript() == [
        {"role": "user", "content": "我最近很累。"},
        {"role": "assistant", "content": "reply 1"},
        {"role": "user", "content": "user 1"},
    ]


def test_numpy_inputs_are_stored_as_plain_floats() -> None:
    traj = build([-3.0, -4.0, 0.0], JUDGEMENTS)
    rec = traj.turns[0]
    assert type(rec.v) is list and all(type(x) is float for x in rec.v + rec.position + rec.v_star)
    assert type(rec.delta_E) is float
    assert Trajectory(case_id="x", p0=np.array([-1, -2, -3])).p0 == [-1.0, -2.0, -3.0]
    with pytest.raises(ValueError):
        Trajectory(case_id="x", p0=[1.0, 2.0])


def test_json_round_trip_is_exact() -> None:
    traj = build([-3.0, -4.0, 0.0], JUDGEMENTS + [Judgement.failure("bad json")])
    traj.meta = {"model": "m", "seed": 7, "nested": {"k": [1, 2.5, None]}}
    traj.turns[1].director = {"tool": "observe_and_wait", "args": {"observation": "…"}}
    text = traj.to_json()
    back = Trajectory.from_json(text)
    assert back == traj
    assert back.to_json() == text
    assert isinstance(back.turns[3].judgement, Judgement) and back.turns[3].judgement.failed
    # JSON, not repr: non-ASCII stays readable, floats survive exactly
    assert "我最近很累" in text
    assert json.loads(text)["turns"][0]["alignment"] == traj.turns[0].alignment


def test_evaluate_uses_the_trajectory_preset_and_matches_arrays() -> None:
    traj = build([-3.0, -4.0, 0.0], JUDGEMENTS, preset="paper")
    row = evaluate(traj)
    assert row["preset"] == "paper"
    arrays = evaluate_batch(np.array([traj.p0]), traj.increments()[None], traj.levels()[None],
                            None, "paper")  # fmt: skip
    assert row["E_total"] == pytest.approx(float(arrays["E_total"][0]))
    # and the metric equals the sum of the recorded per-turn delta_E
    assert row["E_total"] == pytest.approx(sum(t.delta_E for t in traj.turns))
    assert row["turns"] == 3 and row["case_id"] == "case-1"
    assert row["outcome"] == "ongoing" and row["success"] is False
    json.dumps(row, allow_nan=False)


def test_evaluate_many_ragged() -> None:
    t1 = build([-3.0, -4.0, 0.0], JUDGEMENTS)
    t2 = build([0.0, -10.0, 0.0], JUDGEMENTS[:1])
    rows = evaluate_many([t1, t2])
    assert [r["turns"] for r in rows] == [3, 1]
    assert rows[0]["E_total"] == pytest.approx(1.0)  # worked in test_epm_metrics
    # t2: v = (1, 3, 0) along v* = (0, 1, 0): delta_E = 3; alignment 3 / sqrt(10)
    assert rows[1]["E_total"] == pytest.approx(3.0)
    assert rows[1]["mean_alignment"] == pytest.approx(3 / np.sqrt(10) / 2)
    assert evaluate_many([]) == []


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (("turns",), "trajectory has no 'turns'"),  # not an episode of no turns
        (("outcome",), "trajectory has no 'outcome'"),
        (("p0",), "trajectory has no 'p0'"),
        (("turns", 1, "status"), "turns[1] has no 'status'"),
        (("turns", 0, "judgement", "failed"), "turns[0].judgement has no 'failed'"),
    ],
)
def test_a_record_without_a_field_it_always_had_is_refused_naming_it(path, message) -> None:
    record = build([-3.0, -4.0, 0.0], JUDGEMENTS).to_dict()
    holder = record
    for step in path[:-1]:
        holder = holder[step]
    del holder[path[-1]]
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Trajectory.from_dict(record)


def test_a_record_written_before_a_field_was_added_reads_with_its_default() -> None:
    traj = build([-3.0, -4.0, 0.0], JUDGEMENTS)
    record = traj.to_dict()
    for turn in record["turns"]:
        del turn["actor_fallback"]  # added after the record's first version
    assert Trajectory.from_dict(record) == traj


def test_unknown_fields_and_wrong_shapes_are_refused() -> None:
    record = build([-3.0, -4.0, 0.0], JUDGEMENTS).to_dict()
    with pytest.raises(ValueError, match="unknown field"):
        Trajectory.from_dict({**record, "extra": 1})
    with pytest.raises(ValueError, match="turns is a dict, not a list"):
        Trajectory.from_dict({**record, "turns": {}})
    with pytest.raises(ValueError, match=r"turns\[0\] is a str, not a record"):
        Trajectory.from_dict({**record, "turns": ["x"]})
