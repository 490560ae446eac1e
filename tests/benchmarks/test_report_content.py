"""What the report says: the leaderboard's intervals, episodes that never moved (Table 8), error
bars inside each metric's range (Fig. 15), one schema-version story, tables that scroll."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.container import ErrorbarContainer

from benchmarks.report import figures as F
from benchmarks.report import tables as T
from benchmarks.report.build import prepare_episodes
from benchmarks.report.render import render_html
from benchmarks.results import interval_text, leaderboard_text, schema_versions
from epm.episode import evaluate
from epm.trajectory import Judgement, Trajectory, TurnRecord

ZEROS = {"C": 0, "A": 0, "P": 0}


def _trajectory(key: str, moves: bool, turns: int = 4) -> Trajectory:
    p0 = np.array([-6.0, -4.0, -2.0])
    position = p0.copy()
    records = []
    for n in range(1, turns + 1):
        v = np.array([0.5, 0.5, 0.0]) if moves else np.zeros(3)
        position = position + v
        prog = {"C": 1, "A": 1, "P": 0} if moves else ZEROS
        records.append(
            TurnRecord(
                turn=n, reply="r", judgement=Judgement(prog=prog, neg=ZEROS), v=v,
                position=position, v_star=-p0 / np.linalg.norm(p0),
                delta_E=float(v @ (-p0 / np.linalg.norm(p0))), alignment=1.0 if moves else 0.0,
                projection=float(position @ (-p0 / np.linalg.norm(p0))),
                distance=float(np.linalg.norm(position)), user_message="u",
            )
        )  # fmt: skip
    return Trajectory(case_id=key, p0=p0, turns=records, outcome="truncated")


def _episodes() -> tuple[pd.DataFrame, dict[str, Trajectory]]:
    rows, trajs = [], {}
    for model, moves in (("mover", True), ("silent", False)):
        for seed in range(3):
            key = f"{model}|c{seed}|0"
            traj = _trajectory(f"c{seed}", moves, turns=4 + seed)
            trajs[key] = traj
            rows.append({**evaluate(traj), "episode_key": key, "model": model,
                         "case_id": f"c{seed}", "seed": 0})  # fmt: skip
    return prepare_episodes(pd.DataFrame(rows)), trajs


def test_table8_counts_and_names_the_episodes_that_never_moved():
    episodes, trajs = _episodes()
    still = T.still_episodes(episodes, trajs)
    assert still.to_dict() == {"mover": 0, "silent": 3}
    table = T.index_means_table(episodes, ["mover", "silent"], still)
    assert table.frame["never moved"].to_dict() == {"mover": 0, "silent": 3}
    # the reference's definition stays (tau = 1, Idx_tau 100) and the note says what it is
    assert "silent 3 of 3" in table.note and "did nothing" in table.note


def test_the_leaderboard_table_has_the_intervals_of_the_terminal():
    episodes, _ = _episodes()
    table = T.leaderboard_table(episodes, ["mover", "silent"])
    assert list(table.frame.index) == ["mover", "silent"]
    text = leaderboard_text(
        __import__("benchmarks.results", fromlist=["x"]).model_aggregates(episodes)
    )
    for model in ("mover", "silent"):
        shown = table.frame.at[model, "95% CI"]
        assert shown.startswith("[") and shown in text  # the same interval, the same digits
    html = render_html("t", [T_section(table)])
    assert "95% CI" in html and table.frame.at["mover", "95% CI"] in html


def T_section(table):  # noqa: N802 - a tiny helper
    from benchmarks.report.render import Section

    return Section("Ranking", "how", [table])


def test_a_single_episode_interval_is_said_in_words():
    assert interval_text(43.2, 43.2, 1) == "n=1, no interval"
    assert interval_text(40.0, 45.5, 3) == "[40.0, 45.5]"
    assert interval_text(None, None, 0) == "–"
    one = [{"rank": 1, "model": "m", "epm_index_mean": 43.2, "epm_index_ci95": [43.2, 43.2],
            "success_rate": 0.0, "n": 1, "failed_episodes": 0, "invalid_episodes": 0}]  # fmt: skip
    assert "n=1, no interval" in leaderboard_text(one) and "[43.2, 43.2]" not in leaderboard_text(
        one
    )


def test_fig15_error_bars_stay_inside_each_metric_range():
    episodes, _ = _episodes()
    # a skewed tau: mean - sd would fall below 1, which tau cannot be
    episodes.loc[episodes["model"] == "mover", "tau"] = [1.0, 1.0, 9.0]
    fig = F.fig_mean_sd_bars(episodes, ["mover", "silent"])

    def segments(ax):
        found = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        assert found, "no error bars drawn"
        return [np.asarray(seg)[:, 1] for c in found for seg in c.lines[2][0].get_segments()]

    for ax, metric in zip(fig.axes, T.METRIC_NAMES, strict=False):
        low, high = F.METRIC_RANGE.get(metric, (-np.inf, np.inf))
        for ys in segments(ax):
            assert ys.min() >= low - 1e-9 and ys.max() <= high + 1e-9, metric
    tau = segments(fig.axes[list(T.METRIC_NAMES).index("tau")])[0]
    assert tau.min() == 1.0  # cut at 1, not at mean - sd (about -1.3)


def test_the_report_header_names_both_schema_versions():
    versions = schema_versions({"schema_version": "3"})
    assert versions == {"results.json schema": 1, "results.sqlite schema": 3}


def test_wide_tables_scroll_sideways():
    from benchmarks.report.render import Section

    wide = pd.DataFrame([{f"column {i}": 1000.0 * i for i in range(40)}])
    html = render_html("t", [Section("Wide", "how", [T.ReportTable("w", "W", wide, "")])])
    assert '<div class="scroll"><table' in html and ".scroll{overflow-x:auto" in html
