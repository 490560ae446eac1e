"""Transcripts read in conversation order: `empa show`, the HTML report and the exports."""

from __future__ import annotations

import json
import re

import pandas as pd

from benchmarks.transcript import StoredEpisode, format_episode, html_episode, pick_examples
from epm.trajectory import Judgement, Trajectory, TurnRecord


def _turn(n: int, reply: str, answer: str, status: str = "ongoing") -> TurnRecord:
    zeros = {"C": 0, "A": 0, "P": 0}
    return TurnRecord(
        turn=n, reply=reply, judgement=Judgement(prog={**zeros, "C": 1}, neg=zeros),
        v=[1.0, 0.0, 0.0], position=[-3.0, -2.0, -1.0], v_star=[1.0, 0.0, 0.0], delta_E=0.1,
        alignment=0.5, projection=0.1, distance=3.7, user_message=answer, status=status,
    )  # fmt: skip


def _episode(key: str = "k", index: float = 50.0, last_answer: str = "ANSWER-2") -> StoredEpisode:
    traj = Trajectory(
        case_id="c1",
        p0=[-4.0, -2.0, -1.0],
        opening="OPENING-MSG",
        turns=[_turn(1, "REPLY-1", "ANSWER-1"), _turn(2, "REPLY-2", last_answer)],
        outcome="truncated",
    )
    return StoredEpisode(key, "m", "c1", 0, {"EPM_Index": index}, traj)


def _order(text: str, *needles: str) -> list[int]:
    return [text.index(n) for n in needles]


def test_show_prints_the_opening_first_then_each_reply_before_its_answer():
    out = format_episode(_episode())
    positions = _order(out, "OPENING-MSG", "REPLY-1", "ANSWER-1", "REPLY-2", "ANSWER-2")
    assert positions == sorted(positions)
    # the judgement of a reply sits between the reply and the user's answer to it
    assert out.index("REPLY-1") < out.index("levels:") < out.index("ANSWER-1")


def test_the_judges_reasons_are_shown_where_its_levels_are():
    episode = _episode()
    episode.trajectory.turns[0].judgement.reasoning.update(
        {"guards": "repeats an earlier reply's template", "A_Prog": "progress vetoed [no anchor]",
         "C_Prog": "names what the user said"}
    )  # fmt: skip
    out = format_episode(episode)
    turn1 = out.split("turn 1", 1)[1].split("turn 2", 1)[0]
    # under the levels, in the levels' order (C before A), then the judge's other notes
    assert turn1.index("levels:") < turn1.index("why:    C_Prog: names what the user said")
    assert turn1.index("C_Prog: names") < turn1.index("A_Prog: progress vetoed [no anchor]")
    assert turn1.index("A_Prog: progress") < turn1.index("guards: repeats an earlier reply's")
    assert turn1.index("guards:") < turn1.index("ANSWER-1")
    fragment = html_episode(episode)
    assert "<li>guards: repeats an earlier reply&#x27;s template</li>" in fragment
    assert fragment.index("C_Prog +1") < fragment.index("<ul class='why'>")
    assert "why:" not in format_episode(_episode()).split("turn 2")[1]  # no reasons, no line


def test_html_rows_put_the_message_a_reply_answers_on_its_left():
    fragment = html_episode(_episode())
    rows = re.findall(r"<tr>(.*?)</tr>", fragment)[1:]  # the header row first
    assert "OPENING-MSG" in rows[0] and rows[0].index("OPENING-MSG") < rows[0].index("REPLY-1")
    assert rows[1].index("ANSWER-1") < rows[1].index("REPLY-2")
    assert "ANSWER-2" in rows[2] and "REPLY" not in rows[2]  # the answer to the last reply
    # an episode that ended (the user said nothing after the last reply) has no trailing row
    assert len(re.findall(r"<tr>", html_episode(_episode(last_answer="")))) == 3
    # cut at max_turns: no answer row after the cut
    cut = html_episode(_episode(), max_turns=1)
    assert "ANSWER-1" not in cut and "1 more turns" in cut


def test_examples_are_listed_best_median_worst_and_labelled_so():
    eps = [_episode(f"k{i}", index) for i, index in enumerate([10.0, 90.0, 50.0, 30.0, 70.0])]
    picked = [(ex.pick, float(ex.episode.metrics["EPM_Index"])) for ex in pick_examples(eps)]
    assert picked == [("best", 90.0), ("median", 50.0), ("worst", 10.0)]
    # a model with fewer episodes: one episode that is several picks says so
    assert [ex.pick for ex in pick_examples(eps[:2])] == ["best", "median / worst"]
    assert [ex.pick for ex in pick_examples(eps[:1])] == ["best / median / worst"]
    fragment = html_episode(eps[0], pick="worst", command="empa show runs/x --model m")
    assert "<span class='pick'>worst</span> m | c1" in fragment
    assert "In a terminal: <code>empa show runs/x --model m</code>" in fragment


def test_exports_carry_the_conversation_in_order(tmp_path):
    from benchmarks.export import export_jsonl, export_parquet

    traj = _episode().trajectory

    class Store:  # the methods the exports read (RunStore's decoding of stored JSON)
        def iter_rows(self):
            yield "k", "m", "c1", 0, {"EPM_Index": 50.0}, {}, traj.to_json()

        def decode(self, key, what, text):  # noqa: ANN001, ANN202
            return json.loads(text)

        def trajectory(self, key, text):  # noqa: ANN001, ANN202
            return type(traj).from_json(text)

        def episodes_frame(self) -> pd.DataFrame:
            return pd.DataFrame([{"episode_key": "k", "model": "m"}])

    line = json.loads(export_jsonl(Store(), tmp_path / "e.jsonl").read_text())  # type: ignore[arg-type]
    assert [m["content"] for m in line["messages"]] == [
        "OPENING-MSG", "REPLY-1", "ANSWER-1", "REPLY-2", "ANSWER-2",
    ]  # fmt: skip
    assert [m["role"] for m in line["messages"]][:2] == ["user", "assistant"]
    turns = pd.read_parquet(export_parquet(Store(), tmp_path)[1])  # type: ignore[arg-type]
    assert list(turns["user_before"]) == ["OPENING-MSG", "ANSWER-1"]
    assert list(turns["reply"]) == ["REPLY-1", "REPLY-2"]
    assert list(turns["user_message"]) == ["ANSWER-1", "ANSWER-2"]
    cols = list(turns.columns)
    assert cols.index("user_before") < cols.index("reply") < cols.index("user_message")
