"""The benchmark report: Echo-N1's tables (8-11) and figures (11-17) for one benchmark run.

:func:`build_report` takes one row per finished episode (the keys of :func:`epm.evaluate` plus the
run's ``episode_key``, ``model``, ``case_id``, ``seed`` and the case metadata) and the episodes'
:class:`epm.Trajectory` records, and writes a folder::

    out_dir/report.html    self-contained (CSS inline, figures as base64 PNG); opens offline
    out_dir/report.md      the same report in Markdown, figures linked as files
    out_dir/figures/*.png  every figure
    out_dir/tables/*.csv   every table, numeric, full precision

``empa report RUN_DIR`` (the benchmark CLI) calls it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from benchmarks.report import digest
from benchmarks.report import figures as F
from benchmarks.report import tables as T
from benchmarks.report.header import ReportHeader
from benchmarks.report.render import (
    ReportFigure,
    Section,
    figure_png,
    render_html,
    render_markdown,
)
from benchmarks.report.transcripts import transcript_section
from empa_env.atomic import atomic_open, atomic_write, ensure_dir
from empa_env.lifetime import die_with_parent
from empa_env.safe_text import csv_cell_safe
from epm.indices import DIMENSIONS, INDEX_NAMES
from epm.metrics import METRIC_NAMES
from epm.trajectory import Trajectory

__all__ = [
    "ReportFigure",
    "Section",
    "build_report",
    "build_sections",
    "judge_section",
    "prepare_episodes",
    "transcript_section",
]

_NUMERIC = (
    "seed",
    "judge_failures",
    "turns",
    "E_surplus",
    "norm_p0",
    "norm_P0",
    *METRIC_NAMES,
    *INDEX_NAMES,
    *DIMENSIONS,
    "EPM_Index",
    "NEE",
    *T.NEE_PARTS,
)


def prepare_episodes(episodes: pd.DataFrame) -> pd.DataFrame:
    """A checked copy with numeric metric columns (``None`` -> NaN: ``tau`` of a closed path)."""
    T.check_episodes(episodes)
    out = episodes.copy()
    for col in _NUMERIC:
        if col in out:
            out[col] = pd.to_numeric(out[col], errors="coerce")
    out["success"] = out["success"].astype(bool)
    for col in ("model", "case_id", "episode_key", "outcome"):
        out[col] = out[col].astype(str)
    return out.reset_index(drop=True)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "model"


#: One figure to draw: its file name (no suffix), the function that draws it, and its caption.
FigureSpec = tuple[str, Callable[[], Figure], str]


class _FigureQueue:
    """The report's figures, named while the sections are built and drawn all at once at the end.

    Every figure is independent, so :func:`render_figures` draws them together (in parallel);
    until then each section holds placeholders (empty PNG bytes), in the order they were queued.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.draws: list[Callable[[], Figure]] = []

    def add(self, *specs: FigureSpec) -> list[ReportFigure]:
        """Placeholders for ``specs``, their draws queued; none when figures are off."""
        if not self.enabled:
            return []
        out = []
        for name, draw, caption in specs:
            out.append(ReportFigure(name, caption, b"", f"figures/{name}.png"))
            self.draws.append(draw)
        return out

    def draw_into(self, sections: list[Section]) -> None:
        """Draw every queued figure and put its PNG into its placeholder, section by section."""
        if not self.draws:
            return
        pngs = iter(render_figures(self.draws))
        for section in sections:
            section.figures = [replace(f, png=next(pngs)) for f in section.figures]


def build_sections(
    episodes: pd.DataFrame,
    trajectories: Mapping[str, Trajectory],
    *,
    figures: bool = True,
    groups: Mapping[str, str] | None = None,
    groups_note: str = "",
    run_dir: str | None = None,
) -> list[Section]:
    """Every section of the report (tables as DataFrames, figures rendered to PNG bytes).

    ``episodes`` must have gone through :func:`prepare_episodes`. ``figures=False`` skips
    drawing (the tables alone, e.g. for a quick text summary). ``groups`` (model ->
    comparability group) limits the significance tests to models of comparable runs.
    ``run_dir`` is the folder the transcripts' ``empa show`` commands read.
    """
    order = T.model_order(episodes)
    queue = _FigureQueue(enabled=figures)
    built = [
        _ranking_section(episodes, trajectories, order),
        _endings_section(episodes, order, queue),
        _distributions_section(episodes, order, queue),
        _significance_section(episodes, order, queue, groups, groups_note),
        _weightings_section(episodes, order),
        _nee_section(episodes, order),
        _trajectories_section(episodes, trajectories, order, queue),
        _profiles_section(episodes, order, queue),
        transcript_section(episodes, trajectories, run_dir=run_dir, order=order),
        _judge_failures_section(episodes, trajectories, order),
    ]
    sections = [section for section in built if section is not None]
    queue.draw_into(sections)
    return sections


def _ranking_section(
    episodes: pd.DataFrame, trajectories: Mapping[str, Trajectory], order: list[str]
) -> Section:
    """Tables 9 and 8: the models ranked by EPM-Index, its dimensions and the nine indices."""
    nothing = T.no_success_text(episodes)
    return Section(
        "Ranking: EPM-Q indices and EPM-Index",
        "The leaderboard and Table 9 rank the models by EPM-Index (0.4 Outcome + 0.2 Efficiency "
        "+ 0.4 Stability); Table 8 shows the nine indices the three dimensions average. Look at "
        "the dimensions, not just the total: a high Outcome with low Efficiency means the model "
        "gets there by a long detour. Metrics follow the Empathy Physics Model (EPM) of the "
        "Echo-N1 paper; tables and figures are numbered as in its section 5.3.3.",
        alert=(
            f"No policy succeeded in any of the {len(episodes)} episodes: 'Success and failure' "
            "below says what success needs and how the episodes ended instead."
            if nothing
            else ""
        ),
        tables=[
            T.leaderboard_table(episodes, order),
            T.composite_table(episodes, order, (0.4, 0.2, 0.4)),
            T.index_means_table(episodes, order, T.still_episodes(episodes, trajectories)),
        ],
    )


def _endings_section(episodes: pd.DataFrame, order: list[str], queue: _FigureQueue) -> Section:
    """How the episodes ended: per model (Fig. 11) and per model and case (Fig. 14)."""
    return Section(
        "Success and failure",
        "Fig. 11 shows, per model, the share of episodes by how they ended; Fig. 14 shows "
        "every case (columns, easiest left) for every model (rows). A column that is red for "
        "every model is a hard case; a row with isolated red cells shows where one model "
        "breaks.",
        alert=T.no_success_text(episodes),
        tables=[T.outcome_table(episodes, order), T.case_status_table(episodes, order)],
        figures=queue.add(
            (
                "fig11_outcomes",
                lambda: F.fig_outcome_bars(episodes, order),
                "Fig. 11 - Episode endings per model (stacked shares).",
            ),
            (
                "fig14_case_status",
                lambda: F.fig_case_status_heatmap(episodes, order),
                "Fig. 14 - Ending per model and case.",
            ),
        ),
    )


def _distributions_section(
    episodes: pd.DataFrame, order: list[str], queue: _FigureQueue
) -> Section:
    """The nine metrics' spread per model (Fig. 12) and their means case by case (Fig. 13)."""
    return Section(
        "Metric distributions",
        "Fig. 12: one box per model and metric (box = middle 50% of episodes, line = median, "
        "diamond = mean, dots = outliers); a tall box means the model is inconsistent across "
        "cases. Fig. 13: the same metrics case by case, so dips on particular cases stand out. "
        "Lower is better for tau and R_pen, higher for the rest.",
        [],
        queue.add(
            (
                "fig12_metric_boxplots",
                lambda: F.fig_metric_boxplots(episodes, order),
                "Fig. 12 - Distribution of the nine EPM metrics per model.",
            ),
            (
                "fig13_case_scatter",
                lambda: F.fig_case_scatter(episodes, order),
                "Fig. 13 - Key metrics per case (mean over seeds).",
            ),
        ),
    )


def _significance_section(
    episodes: pd.DataFrame,
    order: list[str],
    queue: _FigureQueue,
    groups: Mapping[str, str] | None,
    groups_note: str,
) -> Section:
    """Means and standard deviations (Fig. 15) and the pairwise tests on the EPM-Index."""
    return Section(
        "Means, standard deviations and significance",
        "Bar height is the mean (the model's level), the error bar the standard deviation "
        "(its volatility). The tests say whether two models' EPM-Index per episode differ more "
        "than chance would explain; with few cases, large differences can still fail to be "
        "significant after the Holm correction.",
        [
            T.summary_table(episodes, order),
            T.significance_table(episodes, order, groups=groups, groups_note=groups_note),
        ],
        queue.add(
            (
                "fig15_mean_sd",
                lambda: F.fig_mean_sd_bars(episodes, order),
                "Fig. 15 - Mean ± sd of the nine EPM metrics per model.",
            )
        ),
    )


def _weightings_section(episodes: pd.DataFrame, order: list[str]) -> Section:
    """The ranking under the other uses' weightings of the three dimensions."""
    return Section(
        "Open evaluation paradigm: alternative weightings",
        "The EPM-Index weights are a choice for one use. Crisis intervention weights "
        "Stability, long-term companionship Outcome, task-oriented counselling Efficiency. "
        "Pick the column that matches your use; a model that ranks well in every column is "
        "robust.",
        T.weighting_tables(episodes, order),
    )


def _nee_section(episodes: pd.DataFrame, order: list[str]) -> Section | None:
    """Tables 10 and 11 (NEE and FCS); None when no episode has an NEE score."""
    nee = T.nee_tables(episodes, order)
    if not nee:
        return None
    return Section(
        "NEE and the final comprehensive score (FCS)",
        "NEE rates how the conversation felt (naturalness, pacing, narrative arc; 0-100) "
        "where EPM measures what it did to the user's state. FCS combines both, 60/40.",
        nee,
    )


def _trajectory_figures(
    episodes: pd.DataFrame, trajectories: Mapping[str, Trajectory], order: list[str]
) -> list[FigureSpec]:
    """Fig. 16, one figure per model on one common scale; models that played exactly the same
    trajectories share one figure, named after them all (file names stay distinct)."""
    specs: list[FigureSpec] = []
    used: set[str] = set()
    limits = F.trajectory_limits(trajectories)  # one scale for every model's panels
    progress = F.progress_limits(trajectories)
    for m, *same in F.identical_trajectories(episodes, trajectories, order):
        slug = _slug(m)
        while slug in used:
            slug += "-x"
        used.add(slug)
        names = F.series_label([m, *same])
        specs.append(
            (
                f"fig16_trajectories_{slug}",
                partial(
                    F.fig_trajectory_projections,
                    episodes, trajectories, m, limits, progress, same_as=tuple(same),
                ),
                f"Fig. 16 - Trajectories of {names} on the A-C, C-P and A-P planes and their "
                "progress towards the goal (the same axes for every model"
                + ("; these models played exactly the same trajectories, drawn once)." if same
                   else ")."),
            )
        )  # fmt: skip
    return specs


def _trajectories_section(
    episodes: pd.DataFrame,
    trajectories: Mapping[str, Trajectory],
    order: list[str],
    queue: _FigureQueue,
) -> Section:
    """Fig. 16: every episode's path in the C/A/P space and its progress towards the goal."""
    return Section(
        "Trajectories in the C/A/P space",
        "Each line is one episode, from its start P_0 (hollow circle) to its end (cross), "
        "projected on two of the three axes. Deficits are negative and the goal is the origin "
        "(star), so good conversations head up and to the right in a straight line. A "
        "conversation succeeds positionally once its progress along the ideal direction "
        "(right panel: projection on v* over ||P_0||, -1 at the start) reaches -0.1 with "
        "enough energy: it need not come near the origin; the dashed segments are that "
        "threshold at each successful end, the small disc the geometric goal. Green = "
        "success, amber = truncated, purple = director ended, red = failure. Every model "
        "is drawn on the same axes; models that played exactly the same trajectories (the "
        "judge could not tell their replies apart) share one figure, named together.",
        figures=queue.add(*_trajectory_figures(episodes, trajectories, order)),
    )


def _profiles_section(
    episodes: pd.DataFrame, order: list[str], queue: _FigureQueue
) -> Section | None:
    """Fig. 17: the mean EPM-Index per model and case profile; None without profile columns."""
    profiles = T.profile_tables(episodes, order)
    if not profiles:
        return None
    return Section(
        "Profiles by need type, life domain and stress",
        "Each column is a group of cases, each row a model (best first); a cell is the "
        "model's mean EPM-Index there. Left: dominant need (C/A/P) under routine vs "
        "challenging deficits. Middle: life domain. Right: dominant need for receptive vs "
        "defensive users. An even row means the model does not depend on the kind of "
        "case; dark cells show where it breaks down.",
        profiles,
        queue.add(
            (
                "fig17_profiles",
                lambda: F.fig_profile_heatmap(episodes, order),
                "Fig. 17 - Mean EPM-Index per model and case profile.",
            )
        ),
    )


def _judge_failures_section(
    episodes: pd.DataFrame, trajectories: Mapping[str, Trajectory], order: list[str]
) -> Section:
    """Failed judgements per model, and each one listed."""
    return Section(
        "Judge failures",
        "Every reply should be judged once. A failed judgement is recorded (v_t = 0 for that "
        "turn), counted here and listed below; it is never silently scored as a real zero.",
        [
            T.judge_failure_table(episodes, order),
            T.judge_failure_details(episodes, trajectories),
        ],
    )


_DRAWERS: list[Callable[[], Figure]] = []
#: Freeze the caller's objects (``gc.freeze``) while the figures are drawn (see
#: :func:`render_figures`); False only to measure the difference (benchmarks/perf/perf_report.py).
FREEZE_BEFORE_FORK = True


def _draw_one(index: int) -> bytes:
    return figure_png(_DRAWERS[index](), dpi=F.FIGURE_DPI)


def render_figures(draws: list[Callable[[], Figure]], workers: int | None = None) -> list[bytes]:
    """PNG bytes of every figure, drawn in forked worker processes when several cores exist.

    Drawing and ``savefig`` take most of a report's time and every figure is independent, so
    the figures are spread over up to 4 processes (the closures are inherited through ``fork``,
    nothing is pickled but the PNG bytes). Serial on one core, without ``fork``, or when other
    threads run (forking them is unsafe: ``empa bench`` draws its report serially).

    Either way the caller's objects are frozen first (``gc.freeze``): matplotlib makes garbage
    by the thousand objects per figure, and every full collection would otherwise walk the whole
    inherited heap too (pandas, the run's trajectories): a tenth less CPU drawing serially in a
    small process, more in ``empa bench``'s large one; in forked workers it also spares the
    copy-on-write of every page the collector touches. A caller's own freeze is left alone.
    """
    import gc
    import multiprocessing
    import os
    import threading

    workers = workers or min(4, len(os.sched_getaffinity(0)), len(draws))
    forkable = "fork" in multiprocessing.get_all_start_methods()
    freeze = FREEZE_BEFORE_FORK and gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        # fork copies one thread: only safe while this process has no other (e.g. LiteLLM's)
        if workers < 2 or not forkable or threading.active_count() > 1:
            return [figure_png(draw(), dpi=F.FIGURE_DPI) for draw in draws]
        _DRAWERS[:] = draws
        # the workers end with this process, even when it is killed (no orphans left drawing)
        fork = multiprocessing.get_context("fork")
        with fork.Pool(workers, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
            # the biggest figures (the per-model trajectories) first, one at a time
            return pool.map(_draw_one, range(len(draws)), chunksize=1)
    finally:
        if freeze:
            gc.unfreeze()
        _DRAWERS.clear()


def judge_section(descriptor: Mapping[str, str]) -> Section:
    """What the run's judge measures, in plain words, with its recorded human agreement."""
    from empa_env.offline.semantic.lab.agreement import GOAL_AUROC, GOAL_SPEARMAN, judge_statement

    statement = judge_statement(descriptor)
    tables = []
    if statement.agreement is not None:
        a = statement.agreement
        frame = pd.DataFrame(
            [
                {"axis": axis, "AUROC (level > 0)": auroc, "Spearman": rho,
                 "meets the bar": auroc >= GOAL_AUROC and rho >= GOAL_SPEARMAN}
                for axis, (auroc, rho) in a.axes.items()
            ]
        )  # fmt: skip
        note = (
            f"{a.dataset}, {a.pairs} pairs; bar: AUROC >= {GOAL_AUROC}, Spearman >= "
            f"{GOAL_SPEARMAN}. Reproduce: empa judge eval --epitome CSV --tier {a.tier}."
        )
        tables.append(T.ReportTable("judge_agreement", "Agreement with human raters", frame, note))
    return Section(f"What the judge measures ({statement.judge})", statement.text, tables, [])


def _invalid_section(invalid: pd.DataFrame) -> Section:
    """Episodes kept but not ranked: which, and why."""
    frame = invalid[["model", "case_id", "seed", "invalid"]].rename(columns={"invalid": "reason"})
    frame = frame.sort_values(["model", "case_id", "seed"]).reset_index(drop=True)
    note = (
        f"{len(frame)} episode(s) are invalid: their judge, Director or Actor failed too often "
        "for the score to measure the policy with the configured roles. They are excluded from every table and figure above and below; "
        "rerun the same command to play them again."
    )
    table = T.ReportTable("invalid_episodes", "Invalid episodes (not ranked)", frame, note)
    return Section("Invalid episodes", "", [table], [])


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` for a CSV file a spreadsheet may open: no text cell, index value or header is a
    formula (see :func:`empa_env.safe_text.csv_cell_safe`); numbers unchanged."""
    out = frame.copy()
    for i in range(out.shape[1]):
        column = out.iloc[:, i]
        if not pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            out.isetitem(i, column.astype(object).map(csv_cell_safe).to_numpy(object))
    out.columns = out.columns.map(_safe_label)
    out.index = out.index.map(_safe_label)
    return out


def _safe_label(label: Any) -> Any:
    if isinstance(label, tuple):  # a MultiIndex entry
        return tuple(csv_cell_safe(x) for x in label)
    return csv_cell_safe(label)


def _fallback_header(episodes: pd.DataFrame) -> ReportHeader:
    """A header from the episodes alone (a report built without its run's facts)."""
    return ReportHeader(
        f"{episodes['model'].nunique()} policies on {episodes['case_id'].nunique()} cases: "
        f"{len(episodes)} episodes, {int(episodes['turns'].sum())} judged turns, "
        f"{int(episodes['judge_failures'].sum())} judge failures"
    )


def build_report(
    episodes: pd.DataFrame,
    trajectories: Mapping[str, Trajectory],
    out_dir: Path,
    *,
    title: str = "EMPA benchmark report",
    header: ReportHeader | None = None,
    groups: Mapping[str, str] | None = None,
    groups_note: str = "",
    judge: Mapping[str, str] | None = None,
    run_dir: str | Path | None = None,
    stored_digest: str | None = None,
) -> Path:
    """Write the report folder and return ``out_dir/report.html``.

    Nothing is written when the folder already holds the report of the same inputs (see
    :mod:`benchmarks.report.digest`): rerunning a report of a run that did not change redraws
    nothing.

    Args:
        episodes: one row per finished episode (see the module docstring for the columns).
        trajectories: ``episode_key -> Trajectory`` (for Fig. 16 and the judge-failure details).
        out_dir: the report folder (created if needed; existing report files are overwritten).
        title: the report's title.
        header: what the report says first (:mod:`benchmarks.report.header`: a one-line summary,
            the run's facts, its configuration); without it, a summary of the episodes.
        groups: model -> comparability group (several runs in one report): significance tests
            only within a group; ``groups_note`` explains the groups in the table's note.
        judge: the run's judge descriptor (``Judger.describe()``, as in the run's configuration):
            a section says in plain words what it measures and how well it agrees with humans.
        run_dir: the run's folder, for the transcripts' ``empa show`` commands (episodes of
            several runs carry their own, in ``run_dir`` and ``run_model`` columns).
        stored_digest: the digest of ``episodes`` and ``trajectories`` as stored, when the caller
            has it (:meth:`benchmarks.store.RunStore.content_digest`); otherwise the
            trajectories are hashed here.
    """
    out_dir = Path(out_dir)
    folder = None if run_dir is None else str(run_dir)
    options = {
        "title": title,
        "header": None if header is None else header.digest_data(),
        "groups": dict(groups or {}),
        "groups_note": groups_note,
        "judge": dict(judge or {}),
        "run_dir": folder,
    }
    key = digest.inputs_digest(episodes, stored_digest or trajectories, options)
    html_path = out_dir / "report.html"
    if digest.unchanged(out_dir, key):
        return html_path
    invalid = episodes[episodes["invalid"].astype(bool)] if "invalid" in episodes else None
    if invalid is not None:  # kept and shown, never ranked
        episodes = episodes[~episodes["invalid"].astype(bool)]
        if episodes.empty:
            raise ValueError(
                f"all {len(invalid)} episodes are invalid (their judge, Director or Actor failed "
                "too often): "
                "nothing to rank; rerun the benchmark once the roles answer"
            )
    episodes = prepare_episodes(episodes)
    fig_dir, table_dir = out_dir / "figures", out_dir / "tables"
    ensure_dir(fig_dir)
    ensure_dir(table_dir)
    digest.forget(out_dir)
    # models may differ from a previous run; Fig. 17 was a radar before
    for stale in [*fig_dir.glob("fig16_trajectories_*.png"), fig_dir / "fig17_radar_profiles.png"]:
        stale.unlink(missing_ok=True)

    sections = build_sections(
        episodes, trajectories, groups=groups, groups_note=groups_note, run_dir=folder
    )
    if judge:
        sections.insert(1, judge_section(judge))
    if invalid is not None and not invalid.empty:
        sections.insert(1, _invalid_section(invalid))
    written = []
    for section in sections:
        for table in section.tables:
            keyed = not isinstance(table.frame.index, pd.RangeIndex)  # e.g. one row per model
            with atomic_open(table_dir / f"{table.name}.csv", "w") as fh:
                csv_safe(table.frame).to_csv(fh, index=keyed)
            written.append(f"tables/{table.name}.csv")
        for figure in section.figures:
            atomic_write(out_dir / figure.path, figure.png)
            written.append(figure.path)
    header = header or _fallback_header(episodes)
    atomic_write(out_dir / "report.md", render_markdown(title, sections, header))
    atomic_write(html_path, render_html(title, sections, header))
    digest.remember(out_dir, key, [*written, "report.md", "report.html"])
    return html_path
