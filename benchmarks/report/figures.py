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
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.colors import BoundaryNorm, ListedColormap  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

from benchmarks.report.tables import (  # noqa: E402
    FACETS,
    STATUS_ORDER,
    case_order,
    facet_groups,
    model_order,
    profile_table,
    status_column,
)
from epm.metrics import METRIC_NAMES  # noqa: E402
from epm.rubric import AXES  # noqa: E402
from epm.trajectory import Trajectory  # noqa: E402

#: How the paper names the nine metrics (axis labels).
METRIC_LABELS: dict[str, str] = {
    "RDI": "RDI (%)",
    "E_total": r"$E_{total}$",
    "S_net": r"$S_{net}$ (raw levels)",
    "rho": r"$\rho$ (energy / turn)",
    "S_proj": r"$S_{proj}$",
    "tau": r"$\tau$ (tortuosity)",
    "R_pos": r"$R_{pos}$ (%)",
    "mean_alignment": r"$\overline{\cos\theta}$",
    "R_pen": r"$R_{pen}$ (penalty / point)",
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
    "director ended": "#8c96c6",
    "truncated (max turns)": "#f4a582",
    "failure: stagnation+regression": "#d6604d",
    "failure: oscillation": "#b2182b",
    "failure: collapse": "#67001f",
    "other": "#bababa",
}
STATUS_CODES: dict[str, str] = {
    "success: geometric": "G",
    "success: positional": "P",
    "success: alignment": "Al",
    "director ended": "D",
    "truncated (max turns)": "T",
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
    "ongoing": "#888888",
}
#: The planes of Fig. 16: (horizontal axis, vertical axis).
PLANES: tuple[tuple[str, str], ...] = (("A", "C"), ("C", "P"), ("A", "P"))
AXIS_NAMES: dict[str, str] = {"C": "cognitive", "A": "affective", "P": "proactive"}
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")


#: Distinct colours after tab10's ten (tab20's light twins would be confused with their pairs).
_EXTRA_COLORS: tuple[str, ...] = (
    "#000000", "#ff00ff", "#000080", "#7fff00", "#8b4513", "#00ced1", "#ffd700", "#808000",
)  # fmt: skip


def model_colors(order: Sequence[str]) -> dict[str, object]:
    """A fixed colour per model: tab10, then eight more distinct colours, then repeats."""
    palette = [*plt.get_cmap("tab10").colors, *_EXTRA_COLORS]
    return {m: palette[i % len(palette)] for i, m in enumerate(order)}


def _short(name: str, width: int = 22) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _order(episodes: pd.DataFrame, order: Sequence[str] | None) -> list[str]:
    """The given model order, or models by mean EPM-Index (best first)."""
    return list(order) if order is not None else model_order(episodes)


def _metric_values(episodes: pd.DataFrame, model: str, metric: str) -> np.ndarray:
    values = pd.to_numeric(episodes.loc[episodes["model"] == model, metric], errors="coerce")
    arr = values.to_numpy(float)
    return arr[np.isfinite(arr)]


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
        for (i, j), total in np.ndenumerate(n.to_numpy(float)):
            if np.isfinite(total):
                dark = not 0.2 <= share.iat[i, j] <= 0.8
                ax.text(
                    j,
                    i,
                    f"{int(k.iat[i, j])}/{int(total)}",
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    color="white" if dark else "black",
                )
        fig.colorbar(image, ax=ax, label="share of seeds that succeeded", shrink=0.8, pad=0.01)
        title = "Fig. 14 - Successful seeds per model and case (k / n)"
    ax.set_xticks(range(len(cases)), cases, rotation=90, fontsize=7)
    ax.set_yticks(range(len(order)), [_short(m, 28) for m in order], fontsize=9)
    ax.set_xlabel(r"case (ordered by initial deficit $\|P_0\|$, harder to the right)")
    ax.set_ylabel("model")
    ax.set_title(title)
    return fig


def _nine_metric_grid(n_models: int, height: float) -> tuple[Figure, np.ndarray]:
    """A 3 x 3 grid, one panel per EPM metric, wide enough for ``n_models`` groups."""
    width = max(11.0, 3.0 + 1.05 * n_models * 3 / 2)
    return plt.subplots(3, 3, figsize=(min(width, 22.0), height), layout="constrained")


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
    step = min(0.08, 0.7 / max(len(order), 1))
    offsets = (np.arange(len(order)) - (len(order) - 1) / 2) * step
    for ax, metric in zip(axes.flat, metrics, strict=False):
        for k, m in enumerate(order):
            if m not in means.index.get_level_values(0):
                continue
            series = means.loc[m, metric].dropna()
            xs = np.array([x_of[c] for c in series.index]) + offsets[k]
            ax.scatter(
                xs,
                series.to_numpy(),
                s=22,
                color=colors[m],
                marker=MARKERS[k % len(MARKERS)],
                alpha=0.85,
                edgecolors="none",
                label=m,
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
        ax.set_xlabel(r"case (ordered by $\|P_0\|$, harder to the right)", fontsize=9)
    handles = [
        Line2D([], [], marker=MARKERS[k % len(MARKERS)], color=colors[m], linestyle="", label=m)
        for k, m in enumerate(order)
    ]
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncol=min(len(order), 6),
        frameon=False,
        fontsize=9,
    )
    fig.suptitle("Fig. 13 - Key metrics per case and model (mean over seeds)", fontsize=12)
    return fig


# --- Fig. 15: mean ± sd bars ----------------------------------------------------------------
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
        ax.bar(
            x,
            mean,
            yerr=sd,
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
        "Fig. 15 - Mean (bar) ± standard deviation (error bar) of the nine metrics", fontsize=13
    )
    fig.supxlabel("model", fontsize=10)
    return fig


# --- Fig. 16: trajectory projections --------------------------------------------------------
def fig_trajectory_projections(
    episodes: pd.DataFrame, trajectories: Mapping[str, Trajectory], model: str
) -> Figure:
    """One model's trajectories ``P_0 .. P_T`` on the A-C, C-P and A-P planes, coloured by outcome.

    The origin is the goal (every need met); the shaded square is the goal zone (every axis >= -1).
    Deficits are negative, so trajectories start bottom-left and should head up and right.
    """
    rows = episodes[episodes["model"] == model]
    paths = [
        (trajectories[str(key)].positions(), str(outcome))
        for key, outcome in zip(rows["episode_key"], rows["outcome"], strict=True)
        if str(key) in trajectories
    ]
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.8), layout="constrained")
    every = np.vstack([p for p, _ in paths]) if paths else np.zeros((1, 3))
    for ax, (h, v) in zip(axes, PLANES, strict=True):
        i, j = AXES.index(h), AXES.index(v)
        lo = min(every[:, i].min(), every[:, j].min(), -2.0)
        hi = max(every[:, i].max(), every[:, j].max(), 1.0)
        pad = 0.06 * (hi - lo)
        ax.add_patch(
            Rectangle((-1, -1), hi + pad + 1, hi + pad + 1, color="#1b9e3a", alpha=0.12, zorder=0)
        )
        ax.axhline(0, color="grey", linewidth=0.6, zorder=1)
        ax.axvline(0, color="grey", linewidth=0.6, zorder=1)
        colors = [OUTCOME_COLORS.get(o, "#888888") for _, o in paths]
        segments = [pos[:, [i, j]] for pos, _ in paths]
        ax.add_collection(
            LineCollection(segments, colors=colors, alpha=0.55, linewidths=1.1, zorder=2)
        )
        if paths:
            starts = np.array([pos[0, [i, j]] for pos, _ in paths])
            ends = np.array([pos[-1, [i, j]] for pos, _ in paths])
            ax.scatter(
                starts[:, 0], starts[:, 1], s=22, facecolors="none", edgecolors=colors, zorder=3
            )
            ax.scatter(ends[:, 0], ends[:, 1], s=22, c=colors, marker="X", zorder=3)
        ax.plot(0, 0, marker="*", color="black", markersize=11, zorder=4)
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(lo - pad, hi + pad)
        ax.set_aspect("equal")
        ax.set_xlabel(f"{h} ({AXIS_NAMES[h]} state; 0 = need met)")
        ax.set_ylabel(f"{v} ({AXIS_NAMES[v]} state; 0 = need met)")
        ax.set_title(f"{h}-{v} plane")
        ax.grid(alpha=0.25)
    outcomes = sorted(
        {o for _, o in paths},
        key=lambda o: list(OUTCOME_COLORS).index(o) if o in OUTCOME_COLORS else 99,
    )
    handles = [
        Line2D(
            [],
            [],
            color=OUTCOME_COLORS.get(o, "#888888"),
            label=f"{o} ({sum(1 for _, x in paths if x == o)})",
        )
        for o in outcomes
    ]
    handles += [
        Line2D(
            [],
            [],
            marker="o",
            markerfacecolor="none",
            markeredgecolor="black",
            linestyle="",
            label=r"start $P_0$",
        ),
        Line2D([], [], marker="X", color="black", linestyle="", label=r"end $P_T$"),
        Line2D(
            [], [], marker="*", color="black", linestyle="", markersize=10, label="origin (goal)"
        ),
        Patch(color="#1b9e3a", alpha=0.2, label="goal zone (all axes >= -1)"),
    ]
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncol=min(len(handles), 8),
        frameon=False,
        fontsize=9,
    )
    fig.suptitle(
        f"Fig. 16 - Trajectories of {model} in the C/A/P deficit space ({len(paths)} episodes)",
        fontsize=13,
    )
    return fig


# --- Fig. 17: radar profiles ----------------------------------------------------------------
FACET_TITLES: dict[str, str] = {
    "stress": "Need type x stress\n(routine = easy/medium, challenging = hard/extreme)",
    "domain": "Life domain",
    "defence": "Need type x defence\n(receptive = low/medium, defensive = high threshold)",
}


def fig_radar_profiles(
    episodes: pd.DataFrame, order: Sequence[str] | None = None, metric: str = "EPM_Index"
) -> Figure:
    """Mean EPM-Index per model on three radars: stress, life domain, user need and defence."""
    order = _order(episodes, order)
    colors = model_colors(order)
    fig, axes = plt.subplots(
        1, 3, figsize=(18, 6.9), subplot_kw={"projection": "polar"}, layout="constrained"
    )
    tables = {f: profile_table(episodes, order, f, metric) for f in FACETS}
    top = max(
        100.0, float(np.nanmax([t.to_numpy(float) for t in tables.values() if t.size] or [0.0]))
    )
    top = math.ceil(top / 20.0) * 20.0
    for ax, facet in zip(axes, FACETS, strict=True):
        table = tables[facet]
        _, spokes = facet_groups(episodes, facet)
        labels_of, _ = facet_groups(episodes, facet)
        counts = episodes["case_id"].groupby(labels_of).nunique()
        angles = np.linspace(0, 2 * np.pi, len(spokes), endpoint=False)
        closed = np.append(angles, angles[0])
        for m in table.index:
            values = table.loc[m, spokes].to_numpy(float)
            ring = np.append(values, values[0])
            ax.plot(closed, ring, color=colors[m], linewidth=1.6, label=m)
            ax.scatter(angles, values, color=colors[m], s=14)
            if len(order) <= 4:
                ax.fill(closed, np.nan_to_num(ring), color=colors[m], alpha=0.08)
        labels = [
            f"{s.replace('_', ' ')}\n(n={int(counts.get(s, 0))})"
            if counts.get(s, 0)
            else f"{s.replace('_', ' ')}\n(no case)"
            for s in spokes
        ]
        ax.set_xticks(angles, labels, fontsize=8)
        ax.tick_params(axis="x", pad=12)
        ax.set_rlabel_position(180.0 / len(spokes))
        ax.set_ylim(0, top)
        ax.set_yticks(np.linspace(0, top, 6)[1:])
        ax.tick_params(axis="y", labelsize=7)
        ax.set_title(FACET_TITLES[facet], fontsize=10, pad=18)
    handles = [Line2D([], [], color=colors[m], linewidth=2, label=m) for m in order]
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncol=min(len(order), 6),
        frameon=False,
        fontsize=9,
    )
    fig.suptitle(
        f"Fig. 17 - Mean {metric.replace('_', '-')} by case profile "
        "(radius; n = cases in the group)",
        fontsize=13,
    )
    return fig
