"""The report's figures draw what a reader needs: every model, success as EPM defines it.

Runs the real environment (offline roles) for two scripted policies on three cases, adds a twin
of one policy with exactly the same scores, and inspects the matplotlib figures themselves.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from benchmarks.report import build as B  # noqa: E402
from benchmarks.report import figures as F  # noqa: E402
from benchmarks.report import tables as T  # noqa: E402
from epm.trajectory import Trajectory  # noqa: E402
from tests.benchmarks.test_report import _run, _three_cases  # noqa: E402


@pytest.fixture(scope="module")
def run() -> tuple[pd.DataFrame, dict[str, Trajectory]]:
    cases = _three_cases()
    rows_a, traj_a = _run(cases, "offline", "attuned")
    rows_b, traj_b = _run(cases, "offline", "lecturer")
    twin = []
    for row in rows_b:  # a second policy with exactly the lecturer's scores
        copy = dict(row, model="lecturer_twin", episode_key=row["episode_key"] + "#twin")
        twin.append(copy)
        traj_b[copy["episode_key"]] = traj_b[row["episode_key"]]
    episodes = B.prepare_episodes(pd.DataFrame(rows_a + rows_b + twin))
    return episodes, {**traj_a, **traj_b}


def _legend_texts(fig: Figure) -> list[str]:
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


@pytest.fixture(scope="module")
def drawn(run) -> dict[str, Figure]:
    """Every figure the report draws, by name (drawn, not rendered to PNG)."""
    episodes, trajectories = run
    captured: list = []
    original = B.render_figures
    B.render_figures = lambda draws, workers=None: captured.extend(draws) or [b""] * len(draws)
    try:
        sections = B.build_sections(episodes, trajectories)
    finally:
        B.render_figures = original
    names = [f.name for s in sections for f in s.figures]
    # every figure stays open for the module's tests (closed below): more than matplotlib's
    # 20-figure notice, by design
    with plt.rc_context({"figure.max_open_warning": 0}):
        figures = {name: draw() for name, draw in zip(names, captured, strict=True)}
    yield figures
    for fig in figures.values():
        plt.close(fig)


def test_identical_series_are_drawn_once_and_labelled_with_every_name(run, drawn) -> None:
    episodes, _ = run
    means = episodes.groupby(["model", "case_id"])[list(F.SCATTER_METRICS)].mean()
    assert F.identical_series(means, T.model_order(episodes)) == [
        ["attuned"],
        ["lecturer", "lecturer_twin"],
    ]
    fig = drawn["fig13_case_scatter"]
    assert "lecturer = lecturer_twin" in _legend_texts(fig)
    assert not {"lecturer", "lecturer_twin"} & set(_legend_texts(fig))
    for ax in fig.axes:
        if ax.get_visible():  # one scatter per distinct series, every case once
            assert [c.get_label() for c in ax.collections] == [
                "attuned",
                "lecturer = lecturer_twin",
            ]
            assert all(len(c.get_offsets()) == 3 for c in ax.collections)


def test_fig16_panels_share_limits_and_draw_the_success_threshold(run, drawn) -> None:
    episodes, trajectories = run
    trajectory_figs = [f for name, f in drawn.items() if name.startswith("fig16_")]
    # one per model, the twins that played exactly the same trajectories drawn once
    assert len(trajectory_figs) == 2
    titles = [f.get_suptitle() for f in trajectory_figs]
    assert "attuned" in titles[0] and "lecturer = lecturer_twin" in titles[1]
    assert "identical play, drawn once" in titles[1] and "identical" not in titles[0]
    planes = {(ax.get_xlim(), ax.get_ylim()) for f in trajectory_figs for ax in f.axes[:3]}
    assert len(planes) == 1  # the same scale on every plane of every model
    ((xlim, ylim),) = planes
    assert xlim == ylim == pytest.approx(F.trajectory_limits(trajectories))
    progress = {f.axes[3].get_ylim() for f in trajectory_figs}
    assert len(progress) == 1
    for fig in trajectory_figs:
        ax = fig.axes[3]
        thresholds = [
            line for line in ax.get_lines() if np.allclose(line.get_ydata(), -F.SUCCESS_ALPHA)
        ]
        assert thresholds and thresholds[0].get_linestyle() == "--"
        assert any("positional success threshold" in t for t in _legend_texts(fig))
        assert not any("goal zone" in t for t in _legend_texts(fig))


def test_models_with_the_same_trajectories_are_grouped_and_no_others(run) -> None:
    episodes, trajectories = run
    order = T.model_order(episodes)
    groups = F.identical_trajectories(episodes, trajectories, order)
    assert sorted(map(sorted, groups)) == [["attuned"], ["lecturer", "lecturer_twin"]]
    # one episode of the twin ending otherwise: no longer the same play
    changed = episodes.copy()
    twin = changed.index[changed["model"] == "lecturer_twin"][0]
    changed.loc[twin, "outcome"] = (
        "success" if changed.loc[twin, "outcome"] != "success" else "failure"
    )
    assert sorted(map(sorted, F.identical_trajectories(changed, trajectories, order))) == [
        ["attuned"],
        ["lecturer"],
        ["lecturer_twin"],
    ]


def test_fig16_draws_each_successful_episodes_half_space(run) -> None:
    episodes, trajectories = run
    episodes = episodes.copy()
    key = episodes["episode_key"].iloc[0]
    model = episodes["model"].iloc[0]
    episodes.loc[episodes["episode_key"] == key, "outcome"] = "success"
    fig = F.fig_trajectory_projections(episodes, trajectories, model)
    dashed = [ln for ln in fig.axes[0].get_lines() if ln.get_linestyle() == "--"]
    assert len(dashed) == 1
    # the segment lies on P . v* = -eps_dir, cut at the end's third coordinate (A-C plane)
    traj = trajectories[key]
    vs, end = np.array(traj.turns[-1].v_star), np.array(traj.turns[-1].position)
    eps = F.SUCCESS_ALPHA * np.linalg.norm(traj.p0)
    i, j, k = 1, 0, 2  # A, C; P fixed
    for x, y in zip(dashed[0].get_xdata(), dashed[0].get_ydata(), strict=True):
        assert vs[i] * x + vs[j] * y + vs[k] * end[k] == pytest.approx(-eps, abs=1e-6)
    plt.close(fig)


def test_fig17_heatmap_has_every_model_in_every_panel(run, drawn) -> None:
    episodes, _ = run
    fig = drawn["fig17_profiles"]
    heatmaps = [ax for ax in fig.axes if ax.images]
    assert len(heatmaps) == len(T.FACETS)
    labels = [t.get_text() for t in heatmaps[0].get_yticklabels()]  # rows shared by the panels
    assert labels == T.model_order(episodes)
    for ax in heatmaps:
        assert ax.images[0].get_array().shape[0] == episodes["model"].nunique()


def test_one_outcome_label_map_for_tables_and_figures(run) -> None:
    episodes, trajectories = run
    episodes = episodes.copy()
    episodes.loc[episodes.index[0], "outcome"] = "director_end"
    episodes.loc[episodes.index[1], "outcome"] = "truncated"
    model = episodes["model"].iloc[0]
    ended, truncated = T.OUTCOME_LABELS["director_end"], T.OUTCOME_LABELS["truncated"]
    table = T.outcome_table(episodes, T.model_order(episodes)).frame
    assert {ended, truncated} <= set(table.columns)
    assert set(T.status_column(episodes)) <= set(T.STATUS_ORDER)
    figs = [
        F.fig_outcome_bars(episodes),
        F.fig_trajectory_projections(episodes, trajectories, model),
    ]
    for fig in figs:
        texts = " | ".join(_legend_texts(fig))
        assert ended in texts and truncated in texts
        assert "director_end" not in texts
        plt.close(fig)
    assert set(F.STATUS_COLORS) == set(T.STATUS_ORDER)
