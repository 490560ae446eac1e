"""The report's figures (Echo-N1 Figs. 11-17), one function per figure returning a Figure.

Every function takes the per-episode DataFrame (and, for Fig. 16, the trajectories) and a model
order, and sizes itself to the number of models and cases, so that 2 and 12 models both stay
legible. Colours: one fixed colour per model across all figures; outcomes in green (success),
amber (truncated), red (failure).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.artist import Artist  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.colors import BoundaryNorm, ListedColormap, to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Circle, Patch  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from benchmarks.report.tables import (  # noqa: E402
    FACETS,
    OUTCOME_LABELS,
    STATUS_ORDER,
    case_order,
    facet_groups,
    model_order,
    outcome_label,
    profile_table,
    status_column,
)
from epm.metrics import METRIC_NAMES  # noqa: E402
from epm.rubric import AXES  # noqa: E402
from epm.trajectory import Trajectory  # noqa: E402

#: How the paper names the nine metrics (axis labels; the tables' names, in plain text: TeX
#: labels cost a mathtext parse and layout per text, a tenth of a figure's CPU).
METRIC_LABELS: dict[str, str] = {
    "RDI": "RDI (%)",
    "E_total": "E_total",
    "S_net": "S_net (raw levels)",
    "rho": "ρ (energy / turn)",
    "S_proj": "S_proj",
    "tau": "τ (tortuosity)",
    "R_pos": "R_pos (%)",
    "mean_alignment": "mean cos θ",
    "R_pen": "R_pen (penalty / point)",
}
METRIC_GROUP: dict[str, str] = {
    "RDI": "Outcome",
    "E_total": "Outcome",
    "S_net": "Outcome",
    "rho": "Efficiency",
    "S_proj": "Efficiency",
    "tau": "Efficiency",
    "R_pos": "Stability",
    "mean_alignment": "Stability",
    "R_pen": "Stability",
}
#: Metrics of the per-case scatter (Fig. 13).
SCATTER_METRICS: tuple[str, ...] = ("RDI", "E_total", "mean_alignment", "rho", "tau", "R_pen")

STATUS_COLORS: dict[str, str] = {
    "success: geometric": "#1b7837",
    "success: positional": "#5aae61",
    "success: alignment": "#a6dba0",
    OUTCOME_LABELS["director_end"]: "#8c96c6",
    OUTCOME_LABELS["policy_left"]: "#b8b3d8",
    OUTCOME_LABELS["truncated"]: "#f4a582",
    OUTCOME_LABELS["user_left"]: "#ef8a62",
    "failure: stagnation+regression": "#d6604d",
    "failure: oscillation": "#b2182b",
    "failure: collapse": "#67001f",
    "other": "#bababa",
}
STATUS_CODES: dict[str, str] = {
    "success: geometric": "G",
    "success: positional": "P",
    "success: alignment": "Al",
    OUTCOME_LABELS["director_end"]: "D",
    OUTCOME_LABELS["policy_left"]: "PL",
    OUTCOME_LABELS["truncated"]: "T",
    OUTCOME_LABELS["user_left"]: "UL",
    "failure: stagnation+regression": "SR",
    "failure: oscillation": "O",
    "failure: collapse": "C",
    "other": "?",
}
OUTCOME_COLORS: dict[str, str] = {
    "success": "#1b9e3a",
    "failure": "#d7301f",
    "truncated": "#f29e2e",
    "director_end": "#6a51a3",
    "user_left": "#e34a33",
    "policy_left": "#9e9ac8",
    "ongoing": "#888888",
}
#: The planes of Fig. 16: (horizontal axis, vertical axis).
PLANES: tuple[tuple[str, str], ...] = (("A", "C"), ("C", "P"), ("A", "P"))
AXIS_NAMES: dict[str, str] = {"C": "cognitive", "A": "affective", "P": "proactive"}
#: Resolution of the report's PNGs: 80 dpi keeps 7-pt labels legible on the wide figures and
#: saves a third of the time of ``savefig`` (most of a report's time) against 100 dpi.
FIGURE_DPI = 80
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")


#: Distinct colours after tab10's ten (tab20's light twins would be confused with their pairs).
_EXTRA_COLORS: tuple[str, ...] = (
    "#000000", "#ff00ff", "#000080", "#7fff00", "#8b4513", "#00ced1", "#ffd700", "#808000",
)  # fmt: skip


def model_colors(order: Sequence[str]) -> dict[str, str]:
    """A fixed colour per model: tab10, then eight more distinct colours, then repeats."""
    palette = [to_hex(c) for c in plt.get_cmap("tab10")(range(10))] + list(_EXTRA_COLORS)
    return {m: palette[i % len(palette)] for i, m in enumerate(order)}


def identical_series(frame: pd.DataFrame, order: Sequence[str]) -> list[list[str]]:
    """Models (first index level of ``frame``) grouped by identical rows, in ``order``.

    Two policies that scored exactly the same on every case (e.g. ``empty`` and
    ``judge_injection`` under a judge that ignores both) would sit on top of each other in a
    scatter; a figure draws each group once and labels it with every name.
    """
    present = set(frame.index.get_level_values(0))
    groups: list[list[str]] = []
    keys: list[pd.DataFrame | pd.Series] = []
    for m in order:
        if m not in present:
            continue
        sub = frame.loc[m].sort_index()
        for group, key in zip(groups, keys, strict=True):
            if sub.index.equals(key.index) and np.array_equal(
                sub.to_numpy(float), key.to_numpy(float), equal_nan=True
            ):
                group.append(m)
                break
        else:
            groups.append([m])
            keys.append(sub)
    return groups


def series_label(group: Sequence[str]) -> str:
    """``"empty = judge_injection"``: the names of models drawn as one series."""
    return " = ".join(group)


def identical_trajectories(
    episodes: pd.DataFrame, trajectories: Mapping[str, Trajectory], order: Sequence[str]
) -> list[list[str]]:
    """Models grouped by identical play, in ``order``: the same cases and seeds, each with the
    same outcome and the same positions ``P_0 .. P_T`` (Fig. 16 draws such a group once).

    Policies the judge cannot tell apart (``empty``, ``verbose``, ``judge_injection`` under the
    offline judge) walk exactly the same paths; one figure labelled with every name says so,
    where identical figures would make the reader compare them for differences."""
    signatures: dict[str, tuple[object, ...]] = {}
    for m in order:
        rows = episodes[episodes["model"] == m].sort_values(["case_id", "seed"])
        parts: list[object] = []
        for key, case, seed, outcome in zip(
            rows["episode_key"], rows["case_id"], rows["seed"], rows["outcome"], strict=True
        ):
            traj = trajectories.get(str(key))
            path = traj.positions().round(9).tobytes() if traj is not None else b""
            parts.append((str(case), int(seed), str(outcome), path))
        signatures[m] = tuple(parts)
    groups: dict[tuple[object, ...], list[str]] = {}
    for m in order:
        groups.setdefault(signatures[m], []).append(m)
    return list(groups.values())


def _short(name: str, width: int = 22) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _order(episodes: pd.DataFrame, order: Sequence[str] | None) -> list[str]:
    """The given model order, or models by mean EPM-Index (best first)."""
    return list(order) if order is not None else model_order(episodes)


def _metric_values(episodes: pd.DataFrame, model: str, metric: str) -> np.ndarray:
    values = pd.to_numeric(episodes.loc[episodes["model"] == model, metric], errors="coerce")
    arr = values.to_numpy(float)
    return arr[np.isfinite(arr)]


def _few_ticks(ax: Axes, bins: int = 5) -> None:
    """At most ``bins`` + 1 labelled ticks per axis: enough to read a position, and each tick is
    a handful of artists to lay out and draw (most of a figure's CPU is its ticks and texts)."""
    ax.xaxis.set_major_locator(MaxNLocator(bins))
    ax.yaxis.set_major_locator(MaxNLocator(bins))


def _log_if_skewed(ax: Axes, metric: str, values: np.ndarray) -> None:
    """tau (>= 1) has a long right tail; a log axis keeps the typical range readable."""
    if metric == "tau" and len(values) and np.nanmax(values) > 10 * max(np.nanmedian(values), 1.0):
        ax.set_yscale("log")


# --- Fig. 11(a): success / failure stacked bars ---------------------------------------------
def fig_outcome_bars(episodes: pd.DataFrame, order: Sequence[str] | None = None) -> Figure:
    """Share of each model's episodes by ending (success types, truncation, failure types)."""
    order = _order(episodes, order)
    status = status_column(episodes)
    counts = pd.crosstab(episodes["model"], status).reindex(list(order)).fillna(0)
    present = [s for s in STATUS_ORDER if s in counts.columns]
    totals = counts.sum(axis=1)
    shares = counts[present].div(totals, axis=0) * 100.0
    fig, ax = plt.subplots(figsize=(10, 1.6 + 0.45 * len(order)), layout="constrained")
    y = np.arange(len(order))[::-1]  # best model on top
    left = np.zeros(len(order))
    for s in present:
        ax.barh(
            y,
            shares[s].to_numpy(),
            left=left,
            color=STATUS_COLORS[s],
            label=s,
            height=0.7,
            edgecolor="white",
            linewidth=0.5,
        )
        left += shares[s].to_numpy()
    successes = counts[[s for s in present if s.startswith("success")]].sum(axis=1)
    for yi, m in zip(y, order, strict=True):
        ax.text(101, yi, f"{int(successes[m])}/{int(totals[m])} ok", va="center", fontsize=8)
    ax.set_yticks(y, [_short(m, 30) for m in order], fontsize=9)
    ax.set_xlim(0, 112)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("share of episodes (%)")
    ax.set_ylabel("model")
    ax.set_title("Fig. 11 - How episodes ended, per model (successes / episodes at the right)")
    fig.legend(loc="outside lower center", ncol=min(len(present), 5), frameon=False, fontsize=8)
    return fig


# --- Fig. 14 (and 11(b)): per-case status matrix --------------------------------------------
def fig_case_status_heatmap(episodes: pd.DataFrame, order: Sequence[str] | None = None) -> Figure:
    """Models x cases. One episode per cell: its ending (colour, code); several: success share."""
    order = _order(episodes, order)
    cases = case_order(episodes)
    status = status_column(episodes)
    frame = episodes.assign(_status=status)
    per_cell = frame.groupby(["model", "case_id"]).size()
    single = bool((per_cell <= 1).all())
    width = min(24.0, 3.0 + 0.42 * len(cases))
    fig, ax = plt.subplots(figsize=(width, 1.9 + 0.42 * len(order)), layout="constrained")
    if single:
        labels = frame.pivot_table(
            index="model", columns="case_id", values="_status", aggfunc="first"
        )
        labels = labels.reindex(index=list(order), columns=cases)
        present = [s for s in STATUS_ORDER if s in set(status)]
        codes = {s: i for i, s in enumerate(present)}
        grid = labels.apply(lambda col: col.map(codes)).to_numpy(float)
        cmap = ListedColormap([STATUS_COLORS[s] for s in present]).with_extremes(bad="#ffffff")
        norm = BoundaryNorm(np.arange(len(present) + 1) - 0.5, cmap.N)
        ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm, aspect="auto")
        for (i, j), value in np.ndenumerate(labels.to_numpy(object)):
            if isinstance(value, str):
                dark = value.startswith("success: geo") or value.startswith("failure")
                ax.text(
                    j,
                    i,
                    STATUS_CODES[value],
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if dark else "black",
                )
        handles = [Patch(color=STATUS_COLORS[s], label=f"{STATUS_CODES[s]} = {s}") for s in present]
        if np.isnan(grid).any():
            handles.append(Patch(facecolor="white", edgecolor="grey", label="blank = not run"))
        fig.legend(
            handles=handles,
            loc="outside lower center",
            ncol=min(len(present), 5),
            frameon=False,
            fontsize=8,
        )
        title = "Fig. 14 - Ending of every episode (models x cases)"
    else:
        share = frame.pivot_table(
            index="model", columns="case_id", values="success", aggfunc="mean"
        )
        share = share.reindex(index=list(order), columns=cases).astype(float)
        n = frame.pivot_table(index="model", columns="case_id", values="success", aggfunc="size")
        k = frame.pivot_table(index="model", columns="case_id", values="success", aggfunc="sum")
        n = n.reindex(index=list(order), columns=cases)
        k = k.reindex(index=list(order), columns=cases)
        cmap = plt.get_cmap("RdYlGn").with_extremes(bad="#ffffff")
        image = ax.imshow(
            np.ma.masked_invalid(share.to_numpy()), cmap=cmap, vmin=0, vmax=1, aspect="auto"
        )
        shares, successes = share.to_numpy(float), k.to_numpy(float)
        for (i, j), total in np.ndenumerate(n.to_numpy(float)):
            if np.isfinite(total):
                dark = not 0.2 <= shares[i, j] <= 0.8
                ax.text(
                    j,
                    i,
                    f"{int(successes[i, j])}/{int(total)}",
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    color="white" if dark else "black",
                )
        fig.colorbar(image, ax=ax, label="share of seeds that succeeded", shrink=0.8, pad=0.01)
        title = "Fig. 14 - Successful seeds per model and case (k / n)"
    ax.set_xticks(range(len(cases)), cases, rotation=90, fontsize=7)
    ax.set_yticks(range(len(order)), [_short(m, 28) for m in order], fontsize=9)
    ax.set_xlabel("case (ordered by initial deficit ‖P₀‖, harder to the right)")
    ax.set_ylabel("model")
    ax.set_title(title)
    return fig


def _nine_metric_grid(n_models: int, height: float) -> tuple[Figure, np.ndarray]:
    """A 3 x 3 grid, one panel per EPM metric, wide enough for ``n_models`` groups."""
    width = max(11.0, 3.0 + 1.05 * n_models * 3 / 2)
    # one model axis per column: the names under the bottom row only (every panel repeating
    # them cost a third of these figures' drawing and said nothing new)
    return plt.subplots(3, 3, figsize=(min(width, 22.0), height), layout="constrained", sharex=True)


# --- Fig. 12: box plots of the nine metrics -------------------------------------------------
def fig_metric_boxplots(episodes: pd.DataFrame, order: Sequence[str] | None = None) -> Figure:
    """The nine EPM metrics per model (box = IQR, line = median, diamond = mean)."""
    order = _order(episodes, order)
    colors = model_colors(order)
    fig, axes = _nine_metric_grid(len(order), height=11.5)
    for ax, metric in zip(axes.flat, METRIC_NAMES, strict=True):
        data = [_metric_values(episodes, m, metric) for m in order]
        positions = np.arange(1, len(order) + 1)
        keep = [i for i, d in enumerate(data) if len(d)]
        if keep:
            box = ax.boxplot(
                [data[i] for i in keep],
                positions=positions[keep],
                widths=0.6,
                patch_artist=True,
                showmeans=True,
                meanprops={
                    "marker": "D",
                    "markerfacecolor": "white",
                    "markeredgecolor": "black",
                    "markersize": 4,
                },
                medianprops={"color": "black"},
                flierprops={"marker": ".", "markersize": 4},
            )
            for patch, i in zip(box["boxes"], keep, strict=True):
                patch.set_facecolor(colors[order[i]])
                patch.set_alpha(0.75)
        ax.set_xticks(
            positions,
            [_short(m, 18) for m in order],
            rotation=45 if len(order) > 3 else 0,
            ha="right" if len(order) > 3 else "center",
            fontsize=8,
        )
        ax.set_xlim(0.4, len(order) + 0.6)
        _log_if_skewed(ax, metric, np.concatenate(data) if data else np.array([]))
        ax.set_title(f"{METRIC_LABELS[metric]}  [{METRIC_GROUP[metric]}]", fontsize=10)
        ax.set_ylabel(METRIC_LABELS[metric], fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    handles = [
        Line2D(
            [], [], marker="D", color="black", markerfacecolor="white", linestyle="", label="mean"
        ),
        Line2D([], [], color="black", label="median"),
    ]
    fig.legend(handles=handles, loc="outside lower right", ncol=2, fontsize=8, frameon=False)
    fig.suptitle("Fig. 12 - The nine EPM metrics per model (one point per episode)", fontsize=13)
    fig.supxlabel("model", fontsize=10)
    return fig


# --- Fig. 13: per-case scatter --------------------------------------------------------------
def fig_case_scatter(
    episodes: pd.DataFrame,
    order: Sequence[str] | None = None,
    metrics: Sequence[str] = SCATTER_METRICS,
) -> Figure:
    """Key metrics per case and model (mean over seeds); cases ordered by ``||P_0||``."""
    order = _order(episodes, order)
    colors = model_colors(order)
    cases = case_order(episodes)
    x_of = {c: i for i, c in enumerate(cases)}
    ncols = 2
    nrows = math.ceil(len(metrics) / ncols)
    width = min(22.0, max(12.0, 3.0 + 0.26 * len(cases) * ncols))
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(width, 2.6 * nrows + 2.2),
        layout="constrained",
        squeeze=False,
        sharex=True,
    )
    means = episodes.groupby(["model", "case_id"])[list(metrics)].mean(numeric_only=True)
    groups = identical_series(means, order)  # policies with the same scores: one marker
    step = min(0.08, 0.7 / max(len(groups), 1))
    offsets = (np.arange(len(groups)) - (len(groups) - 1) / 2) * step
    style = {g[0]: (colors[g[0]], MARKERS[order.index(g[0]) % len(MARKERS)]) for g in groups}
    for ax, metric in zip(axes.flat, metrics, strict=False):
        for k, group in enumerate(groups):
            series = means.xs(group[0], level="model")[metric].dropna()
            xs = np.array([x_of[c] for c in series.index]) + offsets[k]
            color, marker = style[group[0]]
            ax.scatter(
                xs,
                series.to_numpy(),
                s=22,
                color=color,
                marker=marker,
                alpha=0.85,
                edgecolors="none",
                label=series_label(group),
            )
        _log_if_skewed(ax, metric, means[metric].to_numpy(float))
        ax.set_title(METRIC_LABELS[metric], fontsize=10)
        ax.set_ylabel(METRIC_LABELS[metric], fontsize=9)
        ax.set_xlim(-0.7, len(cases) - 0.3)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(metrics) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xticks(range(len(cases)), cases, rotation=90, fontsize=7)
        ax.tick_params(axis="x", labelbottom=True)
        ax.set_xlabel("case (ordered by ‖P₀‖, harder to the right)", fontsize=9)
    handles = [
        Line2D(
            [],
            [],
            marker=style[g[0]][1],
            color=style[g[0]][0],
            linestyle="",
            label=series_label(g),
        )
        for g in groups
    ]
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncol=min(len(groups), 6),
        frameon=False,
        fontsize=9,
    )
    if len(groups) < sum(1 for m in order if m in means.index.get_level_values(0)):
        fig.text(
            0.5,
            0.0,
            "a = b: these models scored exactly the same on every case, drawn once",
            ha="center",
            va="bottom",
            fontsize=8,
            style="italic",
        )
    fig.suptitle("Fig. 13 - Key metrics per case and model (mean over seeds)", fontsize=12)
    return fig


# --- Fig. 15: mean ± sd bars ----------------------------------------------------------------
#: The values each metric can take (Fig. 15 cuts its error bars there); unbounded otherwise.
METRIC_RANGE: dict[str, tuple[float, float]] = {
    "tau": (1.0, np.inf),
    "R_pos": (0.0, 100.0),
    "mean_alignment": (-1.0, 1.0),
    "R_pen": (0.0, np.inf),
}


def fig_mean_sd_bars(episodes: pd.DataFrame, order: Sequence[str] | None = None) -> Figure:
    """Mean (bar) and standard deviation (error bar) of the nine metrics per model."""
    order = _order(episodes, order)
    colors = model_colors(order)
    fig, axes = _nine_metric_grid(len(order), height=11.0)
    x = np.arange(len(order))
    for ax, metric in zip(axes.flat, METRIC_NAMES, strict=True):
        values = [_metric_values(episodes, m, metric) for m in order]
        mean = np.array([v.mean() if len(v) else np.nan for v in values])
        sd = np.array([v.std(ddof=1) if len(v) > 1 else 0.0 for v in values])
        # mean ± sd, cut to the values the metric can take (tau >= 1, shares in [0, 100], ...)
        low, high = METRIC_RANGE.get(metric, (-np.inf, np.inf))
        below = mean - np.maximum(mean - sd, low)
        above = np.minimum(mean + sd, high) - mean
        ax.bar(
            x,
            mean,
            yerr=np.vstack([np.nan_to_num(below), np.nan_to_num(above)]),
            color=[colors[m] for m in order],
            alpha=0.85,
            capsize=3,
            error_kw={"elinewidth": 1},
        )
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_xticks(
            x,
            [_short(m, 18) for m in order],
            rotation=45 if len(order) > 3 else 0,
            ha="right" if len(order) > 3 else "center",
            fontsize=8,
        )
        ax.set_title(f"{METRIC_LABELS[metric]}  [{METRIC_GROUP[metric]}]", fontsize=10)
        ax.set_ylabel(f"mean ± sd of {METRIC_LABELS[metric]}", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(
        "Fig. 15 - Mean (bar) ± standard deviation (error bar, cut to the metric's range: "
        "tau >= 1, R_pos in [0, 100], ...) of the nine metrics",
        fontsize=13,
    )
    fig.supxlabel("model", fontsize=10)
    return fig


# --- Fig. 16: trajectory projections --------------------------------------------------------
#: ``eps_dist = eps_dir = ALPHA * ||P_0||`` (official preset; see :class:`epm.EPMConfig`).
SUCCESS_ALPHA = 0.10


def _progress(trajectory: Trajectory) -> np.ndarray:
    """``projection_t / ||P_0||`` for t = 0..T: -1 at the start, 0 at the goal.

    ``projection_t = P_t . v*_t`` is what the success check compares with ``-eps_dir``; at
    ``t = 0`` it is ``-||P_0||`` by definition.
    """
    norm0 = float(np.linalg.norm(trajectory.p0)) or 1.0
    return np.array([-norm0] + [t.projection for t in trajectory.turns], dtype=float) / norm0


def trajectory_limits(trajectories: Mapping[str, Trajectory]) -> tuple[float, float]:
    """One axis range for every Fig. 16 plane and model (the common scale)."""
    every = [np.asarray(t.positions()) for t in trajectories.values()]
    points = np.vstack(every) if every else np.zeros((1, 3))
    lo = min(float(points.min()), -2.0)
    hi = max(float(points.max()), 1.0)
    pad = 0.06 * (hi - lo)
    return lo - pad, hi + pad


def progress_limits(trajectories: Mapping[str, Trajectory]) -> tuple[float, float]:
    """One range for the progress panel of every model."""
    values = [_progress(t) for t in trajectories.values()]
    flat = np.concatenate(values) if values else np.array([-1.0, 0.0])
    return min(float(np.nanmin(flat)), -1.0) - 0.05, max(float(np.nanmax(flat)), 0.2) + 0.05


#: Fig. 16's axes (left, bottom, width, height in figure fractions): three square planes and the
#: wider progress panel, above a two-row legend (as the constrained layout engine placed them).
_FIG16_AXES: tuple[tuple[float, float, float, float], ...] = (
    (0.038, 0.18, 0.196, 0.73),
    (0.272, 0.18, 0.196, 0.73),
    (0.506, 0.18, 0.196, 0.73),
    (0.745, 0.18, 0.248, 0.73),
)


def fig_trajectory_projections(
    episodes: pd.DataFrame,
    trajectories: Mapping[str, Trajectory],
    model: str,
    limits: tuple[float, float] | None = None,
    progress_range: tuple[float, float] | None = None,
    same_as: Sequence[str] = (),
) -> Figure:
    """One model's trajectories ``P_0 .. P_T`` on the A-C, C-P and A-P planes, and their progress.

    The origin is the goal (every need met). Success is *positional* as soon as the projection of
    ``P_t`` on the ideal direction ``v*`` reaches ``-eps_dir = -0.1 ||P_0||`` (with
    ``E_total >= ||P_0||``), so a successful path need not come near the origin: the fourth panel
    shows that projection per turn, scaled by ``||P_0||``, with the threshold line; in the planes
    each successful episode's half-space boundary ``P . v* = -eps_dir`` is drawn (dashed) at its
    end. ``limits`` / ``progress_range`` fix the axes (the report passes one range for every
    model, so that panels compare); default: this model's own range. ``same_as``: models that
    played exactly the same trajectories (:func:`identical_trajectories`), named in the title.
    """
    picked = _model_episodes(episodes, trajectories, model)
    own = {str(i): t for i, (t, _) in enumerate(picked)}
    lo, hi = limits if limits is not None else trajectory_limits(own)
    # Fixed positions instead of layout="constrained": every model's figure has the same axes,
    # titles and a two-row legend, so the layout the engine found is written down once (it was
    # most of the CPU of these figures, one per model; see benchmarks/perf/perf_report.py).
    fig = plt.figure(figsize=(19, 5.6))
    axes = [fig.add_axes(rect) for rect in _FIG16_AXES]
    colors = [OUTCOME_COLORS.get(o, "#888888") for _, o in picked]
    norms0 = [float(np.linalg.norm(t.p0)) for t, _ in picked]
    radius = SUCCESS_ALPHA * float(np.median(norms0)) if norms0 else 0.0
    paths = [t.positions() for t, _ in picked]
    for ax, plane in zip(axes[:3], PLANES, strict=True):
        _draw_plane(ax, plane, picked, paths, colors, radius, (lo, hi))
    _draw_progress_panel(axes[3], picked, colors, progress_range or progress_limits(own))
    handles = _fig16_legend_handles([o for _, o in picked])
    fig.legend(
        handles=handles,
        loc="lower center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=min(len(handles), 5),
        frameon=False,
        fontsize=9,
    )
    scale = "common scale for every model" if limits is not None else "this model's scale"
    name = series_label([model, *same_as])
    same = "; identical play, drawn once" if same_as else ""
    fig.suptitle(
        f"Fig. 16 - Trajectories of {name} in the C/A/P deficit space ({len(picked)} episodes"
        f"{' each' if same_as else ''}; {scale}{same})",
        fontsize=13,
    )
    return fig


def _model_episodes(
    episodes: pd.DataFrame, trajectories: Mapping[str, Trajectory], model: str
) -> list[tuple[Trajectory, str]]:
    """``model``'s episodes that have a trajectory, as (trajectory, outcome), in row order."""
    rows = episodes[episodes["model"] == model]
    return [
        (trajectories[str(key)], str(outcome))
        for key, outcome in zip(rows["episode_key"], rows["outcome"], strict=True)
        if str(key) in trajectories
    ]


def _draw_plane(
    ax: Axes,
    plane: tuple[str, str],
    picked: Sequence[tuple[Trajectory, str]],
    paths: Sequence[np.ndarray],
    colors: Sequence[str],
    radius: float,
    limits: tuple[float, float],
) -> None:
    """One plane of Fig. 16: the goal disc, every path (``paths``: the positions of ``picked``)
    with its start and end, the successful ends' threshold segments and the origin, on a square
    ``limits`` range."""
    h, v = plane
    i, j = AXES.index(h), AXES.index(v)
    lo, hi = limits
    ax.add_patch(Circle((0, 0), radius, color="#1b9e3a", alpha=0.25, zorder=0))
    ax.axhline(0, color="grey", linewidth=0.6, zorder=1)
    ax.axvline(0, color="grey", linewidth=0.6, zorder=1)
    segments = [pos[:, [i, j]] for pos in paths]
    ax.add_collection(LineCollection(segments, colors=colors, alpha=0.55, linewidths=1.1, zorder=2))
    if paths:
        starts = np.array([pos[0, [i, j]] for pos in paths])
        ends = np.array([pos[-1, [i, j]] for pos in paths])
        ax.scatter(starts[:, 0], starts[:, 1], s=22, facecolors="none", edgecolors=colors, zorder=3)
        ax.scatter(ends[:, 0], ends[:, 1], s=22, c=colors, marker="X", zorder=3)
    half = 0.18 * (hi - lo)
    for t, o in picked:
        segment = _success_boundary(t, i, j, half) if o == "success" else None
        if segment is not None:
            a, b = segment
            ax.plot(
                [a[0], b[0]], [a[1], b[1]], "--", color=OUTCOME_COLORS["success"], lw=1.2, zorder=3
            )
    ax.plot(0, 0, marker="*", color="black", markersize=11, zorder=4)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel(f"{h} ({AXIS_NAMES[h]} state; 0 = need met)")
    ax.set_ylabel(f"{v} ({AXIS_NAMES[v]} state; 0 = need met)")
    ax.set_title(f"{h}-{v} plane")
    _few_ticks(ax)
    ax.grid(alpha=0.25)


def _success_boundary(
    trajectory: Trajectory, i: int, j: int, half: float
) -> tuple[np.ndarray, np.ndarray] | None:
    """The ends of the segment drawn for the positional success half-space ``P . v* >= -eps_dir``
    on the plane of axes ``i`` and ``j``, cut at the end's third coordinate and centred on the
    boundary's point closest to the origin, ``half`` long each way; None when the trajectory has
    no turn or ``v*`` is perpendicular to the plane."""
    if not trajectory.turns:
        return None
    k = 3 - i - j
    vs = np.asarray(trajectory.turns[-1].v_star, dtype=float)
    end = np.asarray(trajectory.turns[-1].position, dtype=float)
    eps = SUCCESS_ALPHA * float(np.linalg.norm(trajectory.p0))
    normal = vs[[i, j]]
    if float(np.hypot(*normal)) < 1e-9:
        return None
    offset = -eps - vs[k] * end[k]
    foot = normal * offset / float(normal @ normal)  # closest boundary point to 0
    along = np.array([-normal[1], normal[0]]) / float(np.hypot(*normal))
    return foot + along * half, foot - along * half


def _draw_progress_panel(
    ax: Axes,
    picked: Sequence[tuple[Trajectory, str]],
    colors: Sequence[str],
    progress_range: tuple[float, float],
) -> None:
    """Fig. 16's right panel: each episode's progress per turn against the success threshold."""
    ax.axhspan(-SUCCESS_ALPHA, 10.0, color="#1b9e3a", alpha=0.12, zorder=0)
    ax.axhline(-SUCCESS_ALPHA, color=OUTCOME_COLORS["success"], linestyle="--", lw=1.4, zorder=1)
    ax.add_collection(
        LineCollection(
            [np.column_stack([np.arange(len(p)), p]) for p in (_progress(t) for t, _ in picked)],
            colors=colors,
            alpha=0.55,
            linewidths=1.1,
            zorder=2,
        )
    )
    longest = max((t.num_turns for t, _ in picked), default=1)
    ax.set_xlim(0, max(longest, 1))
    ax.set_ylim(*progress_range)
    _few_ticks(ax)
    ax.xaxis.set_major_locator(MaxNLocator(5, integer=True))  # turns are whole numbers
    ax.set_xlabel("turn")
    ax.set_ylabel("progress Pₜ · v*ₜ / ‖P₀‖  (-1 = start, 0 = goal)")
    ax.set_title("Positional success: progress reaches -0.1 (and E_total ≥ ‖P₀‖)", fontsize=10)
    ax.grid(alpha=0.25)


def _fig16_legend_handles(outcomes: Sequence[str]) -> list[Artist]:
    """Fig. 16's legend: one line per ending (with its episode count), then the markers."""
    shown = sorted(
        set(outcomes),
        key=lambda o: list(OUTCOME_COLORS).index(o) if o in OUTCOME_COLORS else 99,
    )
    handles: list[Artist] = [
        Line2D(
            [],
            [],
            color=OUTCOME_COLORS.get(o, "#888888"),
            label=f"{outcome_label(o)} ({sum(1 for x in outcomes if x == o)})",
        )
        for o in shown
    ]
    handles += [
        Line2D(
            [],
            [],
            marker="o",
            markerfacecolor="none",
            markeredgecolor="black",
            linestyle="",
            label="start P₀",
        ),
        Line2D([], [], marker="X", color="black", linestyle="", label="end P_T"),
        Line2D(
            [], [], marker="*", color="black", linestyle="", markersize=10, label="origin (goal)"
        ),
        Patch(
            color="#1b9e3a",
            alpha=0.3,
            label="geometric success ‖P‖ ≤ 0.1 ‖P₀‖ (median case)",
        ),
        Line2D(
            [],
            [],
            color=OUTCOME_COLORS["success"],
            linestyle="--",
            label="positional success threshold P · v* = -0.1 ‖P₀‖",
        ),
    ]
    return handles


# --- Fig. 17: radar profiles ----------------------------------------------------------------
FACET_TITLES: dict[str, str] = {
    "stress": "Need type x stress\n(routine = easy/medium, challenging = hard/extreme)",
    "domain": "Life domain",
    "defence": "Need type x defence\n(receptive = low/medium, defensive = high threshold)",
}


def fig_profile_heatmap(
    episodes: pd.DataFrame, order: Sequence[str] | None = None, metric: str = "EPM_Index"
) -> Figure:
    """Mean EPM-Index per model (rows) and case group (columns), one panel per facet.

    Echo-N1 draws radars; with ten or more models they become a knot, so every value is a
    labelled cell here: stress, life domain, and need type x defence. Rows follow the ranking.
    """
    order = _order(episodes, order)
    tables = {f: profile_table(episodes, order, f, metric) for f in FACETS}
    spokes_of = {f: facet_groups(episodes, f) for f in FACETS}
    widths = [max(len(spokes_of[f][1]), 1) for f in FACETS]
    fig, axes = plt.subplots(
        1,
        len(FACETS),
        figsize=(min(24.0, 5.0 + 0.95 * sum(widths)), 2.6 + 0.36 * len(order)),
        layout="constrained",
        gridspec_kw={"width_ratios": widths},
        sharey=True,
    )
    cells = np.concatenate([t.to_numpy(float).ravel() for t in tables.values()] or [np.empty(0)])
    top = max(100.0, float(np.nanmax(cells))) if np.isfinite(cells).any() else 100.0
    cmap = plt.get_cmap("viridis").with_extremes(bad="#ffffff")
    image = None
    for ax, facet in zip(axes, FACETS, strict=True):
        labels_of, spokes = spokes_of[facet]
        table = tables[facet].reindex(index=list(order), columns=spokes)
        grid = table.to_numpy(float)
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=top, aspect="auto")
        for (i, j), value in np.ndenumerate(grid):
            if np.isfinite(value):
                ax.text(
                    j,
                    i,
                    f"{value:.0f}",
                    ha="center",
                    va="center",
                    fontsize=7.5,
                    color="white" if value < 0.6 * top else "black",
                )
        counts = episodes["case_id"].groupby(labels_of).nunique()
        ax.set_xticks(
            range(len(spokes)),
            [f"{s.replace('_', ' ')}\n(n={int(counts.get(s, 0))})" for s in spokes],
            rotation=45,
            ha="right",
            fontsize=8,
        )
        ax.set_yticks(range(len(order)), [_short(m, 26) for m in order], fontsize=9)
        ax.set_title(FACET_TITLES[facet], fontsize=10)
    if image is not None:
        fig.colorbar(image, ax=list(axes), label=f"mean {metric.replace('_', '-')}", shrink=0.9)
    fig.suptitle(
        f"Fig. 17 - Mean {metric.replace('_', '-')} by case profile "
        "(models by rank; n = cases in the group; blank = no case)",
        fontsize=13,
    )
    return fig


#: The former name (Echo-N1 draws radars); the report draws the heatmap.
fig_radar_profiles = fig_profile_heatmap
