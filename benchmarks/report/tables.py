"""The report's tables: pandas DataFrames built from per-episode rows with the ``epm`` aggregations.

Every table is a :class:`ReportTable`: a numeric ``frame`` (written to CSV at full precision) and,
where a friendlier layout helps (``mean ± sd`` cells, ranks), a ``display`` frame for the HTML and
Markdown report. Models are ordered by their mean EPM-Index, best first, in every table.

Paper references (Echo-N1, section 5.3.3): Table 8 (per-model means of the nine EPM-Q indices),
Table 9 (the dimension indices S_Outcome, S_Efficiency, S_Stability and the EPM-Index),
Table 10 (NEE sub-scores) and Table 11 (``FCS = 0.6 * EPM-Index + 0.4 * NEE``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from epm.aggregate import model_summary, table8, table9, table11, weighting_table
from epm.indices import DIMENSIONS, INDEX_NAMES
from epm.metrics import METRIC_NAMES
from epm.trajectory import Trajectory
from epm.weighting import WEIGHTINGS

#: Columns every episode row must carry (the keys of ``epm.evaluate`` the report reads, plus
#: the run's own ``model``, ``case_id`` and ``seed``).
REQUIRED_COLUMNS: tuple[str, ...] = (
    "episode_key",
    "model",
    "case_id",
    "seed",
    "outcome",
    "success",
    "victory_type",
    "failure_reason",
    "judge_failures",
    "turns",
    "E_surplus",
    *METRIC_NAMES,
    *INDEX_NAMES,
    *DIMENSIONS,
    "EPM_Index",
)
#: Case metadata the profile tables and figures group by.
META_COLUMNS: tuple[str, ...] = ("domain", "dominant_axis", "difficulty", "empathy_threshold")
NEE_PARTS: tuple[str, ...] = ("naturalness", "pacing", "narrative_arc")

#: The one spelling of each episode outcome (``Trajectory.outcome``) in every table and figure.
OUTCOME_LABELS: dict[str, str] = {
    "success": "success",
    "failure": "failure",
    "truncated": "truncated (max turns)",
    "director_end": "director ended",
    "user_left": "user left",
    "policy_left": "policy left",
    "ongoing": "ongoing",
}


def outcome_label(outcome: str) -> str:
    """How tables and figures spell an outcome (``"director_end"`` -> ``"director ended"``)."""
    return OUTCOME_LABELS.get(outcome, outcome)


#: How an episode ended, one label per (outcome, victory type / failure reason), in plot order.
STATUS_ORDER: tuple[str, ...] = (
    "success: geometric",
    "success: positional",
    "success: alignment",
    OUTCOME_LABELS["director_end"],
    OUTCOME_LABELS["policy_left"],
    OUTCOME_LABELS["truncated"],
    OUTCOME_LABELS["user_left"],
    "failure: stagnation+regression",
    "failure: oscillation",
    "failure: collapse",
    "other",
)
_STATUS_OF: dict[tuple[str, str | None], str] = {
    ("success", "geometric"): "success: geometric",
    ("success", "positional"): "success: positional",
    ("success", "alignment"): "success: alignment",
    ("failure", "collapse"): "failure: collapse",
    ("failure", "stagnation_regression"): "failure: stagnation+regression",
    ("failure", "oscillation"): "failure: oscillation",
}

#: Radar facets of Echo-N1 Fig. 17: stress (routine = easy/medium, challenging = hard/extreme),
#: life domain, and defence (receptive = low/medium empathy threshold, defensive = high).
STRESS_OF: dict[str, str] = {
    "easy": "routine",
    "medium": "routine",
    "hard": "challenging",
    "extreme": "challenging",
}
DEFENCE_OF: dict[str, str] = {"low": "receptive", "medium": "receptive", "high": "defensive"}
DOMAIN_ORDER: tuple[str, ...] = (
    "daily_life",
    "health",
    "leisure",
    "values_identity",
    "relationships",
    "career",
)
AXIS_ORDER: tuple[str, ...] = ("C", "A", "P")
FACETS: tuple[str, ...] = ("stress", "domain", "defence")


@dataclass(frozen=True)
class ReportTable:
    """One table of the report.

    ``frame`` is numeric and goes to ``tables/<name>.csv``; ``display`` (if given) is what the
    HTML and Markdown show instead. ``note`` says how to read it.
    """

    name: str
    title: str
    frame: pd.DataFrame
    note: str = ""
    display: pd.DataFrame | None = None

    @property
    def shown(self) -> pd.DataFrame:
        return self.frame if self.display is None else self.display


# --- helpers ---------------------------------------------------------------------------------
def check_episodes(episodes: pd.DataFrame) -> None:
    """Raise ``ValueError`` naming every required column that is missing."""
    missing = [c for c in REQUIRED_COLUMNS if c not in episodes.columns]
    if missing:
        raise ValueError(f"episodes lack required column(s): {', '.join(missing)}")
    if episodes.empty:
        raise ValueError("episodes is empty: nothing to report")


def model_order(episodes: pd.DataFrame) -> list[str]:
    """Models by mean EPM-Index, best first (ties: by name)."""
    means = episodes.groupby("model")["EPM_Index"].mean()
    return sorted(means.index, key=lambda m: (-_nan_low(means[m]), str(m)))


def _nan_low(x: float) -> float:
    return -math.inf if pd.isna(x) else float(x)


def _ordered(frame: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    out = frame.reindex([m for m in order if m in frame.index])
    out.index.name = "model"
    return out


def norm_p0_column(episodes: pd.DataFrame) -> pd.Series:
    """``||P_0||`` per episode (``norm_p0`` from the runner, ``norm_P0`` from ``epm.evaluate``)."""
    for col in ("norm_p0", "norm_P0"):
        if col in episodes:
            return episodes[col].astype(float)
    return pd.Series(np.nan, index=episodes.index)


def case_order(episodes: pd.DataFrame) -> list[str]:
    """Cases by increasing ``||P_0||`` (the paper's reading: harder to the right), then id."""
    norms = norm_p0_column(episodes).groupby(episodes["case_id"]).first()
    return sorted(norms.index, key=lambda c: (_nan_high(norms[c]), str(c)))


def _nan_high(x: float) -> float:
    return math.inf if pd.isna(x) else float(x)


def status_label(outcome: str, victory_type: str | None, failure_reason: str | None) -> str:
    """One label of :data:`STATUS_ORDER` for an episode's ending."""
    if outcome == "success":
        return _STATUS_OF.get(("success", victory_type), "other")
    if outcome == "failure":
        return _STATUS_OF.get(("failure", failure_reason), "other")
    if outcome in ("truncated", "director_end", "user_left", "policy_left"):
        return outcome_label(outcome)
    return "other"


def status_column(episodes: pd.DataFrame) -> pd.Series:
    def clean(x: object) -> str | None:
        return None if x is None or (isinstance(x, float) and math.isnan(x)) else str(x)

    return pd.Series(
        [
            status_label(str(o), clean(v), clean(f))
            for o, v, f in zip(
                episodes["outcome"],
                episodes["victory_type"],
                episodes["failure_reason"],
                strict=True,
            )
        ],
        index=episodes.index,
        dtype=object,
    )


def mean_sd_text(mean: pd.DataFrame, sd: pd.DataFrame, decimals: int = 2) -> pd.DataFrame:
    """Cells ``"mean ± sd"`` (sd omitted where undefined, e.g. a single episode)."""

    def cell(m: float, s: float) -> str:
        if pd.isna(m):
            return "n/a"
        return f"{m:.{decimals}f}" if pd.isna(s) else f"{m:.{decimals}f} ± {s:.{decimals}f}"

    out = pd.DataFrame(index=mean.index, columns=mean.columns, dtype=object)
    for col in mean.columns:
        out[col] = [cell(m, s) for m, s in zip(mean[col], sd[col], strict=True)]
    return out


# --- Tables 8 and 9 -------------------------------------------------------------------------
def leaderboard_table(episodes: pd.DataFrame, order: Sequence[str]) -> ReportTable:
    """The leaderboard as the terminal and ``results.json`` give it: the mean EPM-Index over
    episodes with its 95% bootstrap interval (same resamples and seed), success rate and n."""
    from benchmarks.results import BOOTSTRAP_RESAMPLES, interval_text, model_aggregates

    rows = {r["model"]: r for r in model_aggregates(episodes)}
    records = []
    for model in [m for m in order if m in rows]:
        r = rows[model]
        lo, hi = r["epm_index_ci95"]
        records.append(
            {
                "model": model,
                "rank": r["rank"],
                "EPM_Index": r["epm_index_mean"],
                "95% CI": interval_text(lo, hi, int(r["n"])),
                "CI low": lo if r["n"] > 1 else None,
                "CI high": hi if r["n"] > 1 else None,
                "success rate": r["success_rate"],
                "n": r["n"],
            }
        )
    frame = pd.DataFrame.from_records(records).set_index("model") if records else pd.DataFrame()
    display = None
    if records:  # one interval column (its bounds stay in the CSV), the success rate in %
        display = frame.drop(columns=["CI low", "CI high"]).rename(
            columns={"EPM_Index": "EPM-Index"}
        )
        display["success rate"] = [f"{100 * x:.0f}%" for x in frame["success rate"]]
    return ReportTable(
        "leaderboard",
        "Leaderboard - mean EPM-Index with its 95% interval",
        frame,
        f"The interval is a percentile bootstrap of the mean over this model's episodes "
        f"({BOOTSTRAP_RESAMPLES} resamples, seed 0), as in the terminal and results.json. Two "
        "models whose intervals overlap may not differ; see the significance tests below.",
        display=display,
    )


def no_success_text(episodes: pd.DataFrame) -> str:
    """When no episode succeeded: that every success rate is 0, what success needs, which of its
    conditions the episodes met, and how they ended instead; empty when some episode succeeded."""
    if episodes.empty or episodes["success"].astype(bool).any():
        return ""
    n = len(episodes)
    energy = int((pd.to_numeric(episodes["E_surplus"], errors="coerce") >= 0).sum())
    share = pd.to_numeric(episodes["E_total"], errors="coerce") / norm_p0_column(episodes)
    by_model = share.groupby(episodes["model"]).mean().dropna()
    closest = (
        f" (closest: {by_model.idxmax()}, {by_model.max():.0%} of it on average)"
        if len(by_model)
        else ""
    )
    endings = status_column(episodes).value_counts()
    ended = ", ".join(
        f"{label} {int(endings[label])}" for label in STATUS_ORDER if label in endings
    )
    return (
        f"No policy succeeded in any of the {n} episodes, so every success rate is 0. "
        f"{SUCCESS_NEEDS} The energy condition (E_total >= ||P_0||) was met in {energy} of {n} "
        f"episodes{closest}. The episodes ended instead: {ended}."
    )


def still_episodes(episodes: pd.DataFrame, trajectories: Mapping[str, Trajectory]) -> pd.Series:
    """Per model, how many episodes never moved: every ``v_t`` zero, a path of length 0.

    The reference defines ``tau = 1`` for such a trajectory (no detour, since no path), so its
    ``Idx_tau`` is 100 and its Efficiency looks high; the report flags them instead of changing
    the definition.
    """
    still = []
    for key, model in zip(episodes["episode_key"], episodes["model"], strict=True):
        traj = trajectories.get(str(key))
        if traj is None:
            continue
        path = float(np.abs(traj.increments()).sum()) if traj.num_turns else 0.0
        still.append((str(model), path == 0.0))
    frame = pd.DataFrame(still, columns=["model", "still"])
    counts = frame.groupby("model")["still"].sum() if len(frame) else pd.Series(dtype=int)
    return counts.reindex(episodes["model"].unique(), fill_value=0).astype(int)


def index_means_table(
    episodes: pd.DataFrame, order: Sequence[str], still: pd.Series | None = None
) -> ReportTable:
    """Echo-N1 Table 8: per-model means of the nine EPM-Q indices (:func:`epm.aggregate.table8`).

    ``still`` (per model, from :func:`still_episodes`) adds the ``episodes that never moved``
    column and flags, in the note, the models whose Efficiency comes from them.
    """
    frame = _ordered(table8(episodes), order)
    note = (
        "Each index maps one EPM metric onto a 0-100 scale anchored to the task (r0, RHO_MAX); "
        "the energy, net-score and density indices have no upper cap, so values above 100 mean "
        "more than the initial deficit ||P_0|| was delivered. Higher is better for all nine "
        "(tau and R_pen are already inverted). Columns: Outcome (RDI, E_total, S_net), "
        "Efficiency (rho, S_proj, tau), Stability (R_pos, cos_theta, R_pen)."
    )
    if still is not None:
        frame["never moved"] = still.reindex(frame.index, fill_value=0).astype(int)
        sizes = episodes.groupby("model").size().reindex(frame.index)
        never = {str(m): int(n) for m, n in frame["never moved"].items()}
        flagged = [m for m, n in never.items() if n > 0]
        note += (
            " 'never moved' counts episodes whose trajectory did not move at all (every v_t = 0): "
            "by the reference's definition their tau is 1 and Idx_tau 100, which is no detour "
            "because there was no path, not efficiency."
        )
        if flagged:
            note += (
                " Here: "
                + "; ".join(f"{m} {never[m]} of {int(sizes[m])}" for m in flagged)
                + " (read their Efficiency and Idx_tau as 'did nothing')."
            )
    return ReportTable("table8_indices", "Table 8 - EPM-Q indices (per-model means)", frame, note)


def composite_table(
    episodes: pd.DataFrame, order: Sequence[str], weights: tuple[float, float, float]
) -> ReportTable:
    """Echo-N1 Table 9: dimensions and EPM-Index from Table 8 (:func:`epm.aggregate.table9`)."""
    scores = _ordered(table9(table8(episodes), weights), order)
    grouped = episodes.groupby("model")
    frame = scores.copy()
    frame["EPM_Index_sd"] = grouped["EPM_Index"].std(ddof=1).reindex(frame.index)
    frame["episodes"] = grouped.size().reindex(frame.index).astype(int)
    frame.insert(0, "rank", frame["EPM_Index"].rank(ascending=False, method="min").astype(int))
    w = ", ".join(f"{d} {x:g}" for d, x in zip(DIMENSIONS, weights, strict=True))
    return ReportTable(
        "table9_composite",
        "Table 9 - Dimension indices and EPM-Index",
        frame,
        f"Outcome, Efficiency and Stability are the means of their three Table-8 indices; "
        f"EPM-Index = weighted sum ({w}). The index is open-ended: 100 anchors the ideal physical "
        "standard, not a ceiling. EPM_Index_sd is the spread over this model's episodes.",
    )


# --- outcomes, turns, energy ----------------------------------------------------------------
#: What an episode needs to succeed (the official preset's rule, in words).
SUCCESS_NEEDS = (
    "Success requires, from turn 12 on, enough accumulated energy (E_total >= ||P_0||) AND "
    "either geometric victory (||P_t|| within 10% of ||P_0||) or positional victory (the "
    "projection onto the ideal direction within 10% of ||P_0||)."
)


def outcome_table(episodes: pd.DataFrame, order: Sequence[str]) -> ReportTable:
    """Per model: success rate, victory types, failure reasons and other endings (counts)."""
    status = status_column(episodes)
    counts = pd.crosstab(episodes["model"], status)
    present = [s for s in STATUS_ORDER if s in counts.columns]
    counts = counts.reindex(columns=present, fill_value=0)
    frame = pd.DataFrame(index=counts.index)
    frame["episodes"] = episodes.groupby("model").size()
    frame["successes"] = episodes.groupby("model")["success"].sum().astype(int)
    frame["success_rate_pct"] = frame["successes"] / frame["episodes"] * 100.0
    frame = pd.concat([frame, counts], axis=1)
    return ReportTable(
        "outcomes",
        "Success rate, victory types and endings",
        _ordered(frame, order),
        f"{SUCCESS_NEEDS} Failures are collapse (5 "
        "consecutive negative turns), stagnation with regression, or (official preset) "
        "oscillation (over 11 turns, an L1 path >= 3 that ends < 3 from where it began); "
        f"'{outcome_label('truncated')}' means the conversation reached max_turns unresolved; "
        f"'{outcome_label('director_end')}' means the Director closed it; "
        f"'{outcome_label('user_left')}' means the simulated user left (mistreated until its "
        f"patience ran out); '{outcome_label('policy_left')}' means the policy said goodbye.",
    )


def summary_table(episodes: pd.DataFrame, order: Sequence[str]) -> ReportTable:
    """Means and standard deviations of turns, E_surplus, the nine metrics and the dimensions."""
    summary = _ordered(model_summary(episodes), order)
    cols = ["turns", "E_surplus", *METRIC_NAMES, *DIMENSIONS, "EPM_Index"]
    mean = summary[[f"{c}_mean" for c in cols]].set_axis(cols, axis=1)
    sd = summary[[f"{c}_std" for c in cols]].set_axis(cols, axis=1)
    frame = summary[[f"{c}_{s}" for c in cols for s in ("mean", "std")] + ["episodes"]]
    return ReportTable(
        "summary_mean_sd",
        "Means and standard deviations (turns, E_surplus, the nine EPM metrics)",
        frame,
        "mean ± sample standard deviation over each model's episodes. The mean is the capability "
        "level, the sd its volatility (Echo-N1 Fig. 15). E_surplus = E_total - ||P_0|| (> 0: more "
        "effective energy than the initial deficit). RDI in %; tau >= 1 (1 = a straight path); "
        "R_pos in %; mean_alignment in [-1, 1]; R_pen = raw penalty per point.",
        display=mean_sd_text(mean, sd),
    )


# --- significance ---------------------------------------------------------------------------
def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm-Bonferroni step-down adjusted p-values (NaN entries stay NaN and do not count)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full_like(p, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = len(valid)
    running = 0.0
    for rank, i in enumerate(valid[np.argsort(p[valid], kind="stable")]):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


class _Keyed:
    """One model's ``metric`` by (case_id, seed), built once for all its pairs."""

    def __init__(self, frame: pd.DataFrame, metric: str) -> None:
        self.series = frame.set_index(["case_id", "seed"])[metric]
        self.keys = frozenset(self.series.index)
        self.unique = not self.series.index.has_duplicates


def _paired_keyed(ka: _Keyed, kb: _Keyed) -> tuple[np.ndarray, np.ndarray] | None:
    """Values of both models aligned on (case_id, seed), or ``None`` if the designs differ."""
    if not (ka.unique and kb.unique) or ka.keys != kb.keys:
        return None
    return ka.series.to_numpy(float), kb.series.reindex(ka.series.index).to_numpy(float)


def _wilcoxon(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Two-sided Wilcoxon signed-rank (zero differences dropped) and the matched-pairs
    rank-biserial correlation ``(W+ - W-) / (W+ + W-)`` (> 0: x tends to be larger)."""
    d = x - y
    d = d[~np.isnan(d) & (d != 0)]
    if len(d) == 0:
        return math.nan, 1.0, 0.0  # identical on every pair: no evidence of a difference
    ranks = stats.rankdata(np.abs(d))
    w_plus, w_minus = ranks[d > 0].sum(), ranks[d < 0].sum()
    res = stats.wilcoxon(d, alternative="two-sided")
    return float(res.statistic), float(res.pvalue), float((w_plus - w_minus) / (w_plus + w_minus))


def _mann_whitney(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Two-sided Mann-Whitney U and the rank-biserial correlation ``2U / (n1 n2) - 1``."""
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    if len(x) == 0 or len(y) == 0:
        return math.nan, math.nan, math.nan
    res = stats.mannwhitneyu(x, y, alternative="two-sided")
    return (
        float(res.statistic),
        float(res.pvalue),
        float(2.0 * res.statistic / (len(x) * len(y)) - 1.0),
    )


def pairwise_tests(
    episodes: pd.DataFrame, order: Sequence[str], metric: str = "EPM_Index", alpha: float = 0.05
) -> pd.DataFrame:
    """Every pair of models compared on ``metric`` per episode, Holm-corrected over all pairs.

    When both models played exactly the same (case_id, seed) episodes, the test is the Wilcoxon
    signed-rank test on the paired differences; otherwise the Mann-Whitney U test. Both two-sided.
    ``effect`` is the (matched-pairs) rank-biserial correlation, > 0 when ``model_a`` scores higher.
    """
    rows = []
    frames = {m: episodes[episodes["model"] == m] for m in order}
    keyed = {m: _Keyed(frame, metric) for m, frame in frames.items()}  # once per model
    for a, b in combinations(order, 2):
        ea, eb = frames[a], frames[b]
        paired = _paired_keyed(keyed[a], keyed[b])
        if paired is not None:
            test, (stat, p, effect), n = "Wilcoxon signed-rank", _wilcoxon(*paired), len(paired[0])
        else:
            xa, xb = ea[metric].to_numpy(float), eb[metric].to_numpy(float)
            test, (stat, p, effect) = "Mann-Whitney U", _mann_whitney(xa, xb)
            n = min(len(xa), len(xb))
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "test": test,
                "n": n,
                "mean_a": ea[metric].mean(),
                "mean_b": eb[metric].mean(),
                "difference": ea[metric].mean() - eb[metric].mean(),
                "statistic": stat,
                "p_value": p,
                "effect": effect,
            }
        )
    cols = [
        "model_a",
        "model_b",
        "test",
        "n",
        "mean_a",
        "mean_b",
        "difference",
        "statistic",
        "p_value",
        "effect",
    ]
    frame = pd.DataFrame(rows, columns=cols)
    frame["p_holm"] = holm(frame["p_value"].to_numpy(float)) if len(frame) else []
    frame["significant"] = frame["p_holm"] < alpha
    return frame


def omnibus_test(
    episodes: pd.DataFrame, order: Sequence[str], metric: str = "EPM_Index"
) -> dict[str, object]:
    """Do the models differ at all? Friedman (same episodes for all) or Kruskal-Wallis."""
    groups = [episodes[episodes["model"] == m] for m in order]
    if len(groups) < 2:
        return {"test": "n/a (one model)", "statistic": math.nan, "p_value": math.nan}
    keys = [set(zip(g["case_id"], g["seed"], strict=True)) for g in groups]
    same = all(k == keys[0] and len(k) == len(g) for k, g in zip(keys, groups, strict=True))
    if same and len(groups) >= 3 and len(keys[0]) >= 2:
        aligned = [
            g.set_index(["case_id", "seed"])[metric].sort_index().to_numpy(float) for g in groups
        ]
        if np.allclose(np.ptp(np.vstack(aligned), axis=0), 0.0):
            return {"test": "Friedman", "statistic": 0.0, "p_value": 1.0}
        res = stats.friedmanchisquare(*aligned)
        return {"test": "Friedman", "statistic": float(res.statistic), "p_value": float(res.pvalue)}
    values = [g[metric].dropna().to_numpy(float) for g in groups]
    if len(np.unique(np.concatenate(values))) < 2:
        return {"test": "Kruskal-Wallis", "statistic": 0.0, "p_value": 1.0}
    res = stats.kruskal(*values)
    return {
        "test": "Kruskal-Wallis",
        "statistic": float(res.statistic),
        "p_value": float(res.pvalue),
    }


def _grouped_tests(
    episodes: pd.DataFrame, order: Sequence[str], groups: Mapping[str, str], alpha: float
) -> tuple[pd.DataFrame, list[dict[str, object]]]:
    """Pairwise tests within each comparability group, Holm-corrected over all tested pairs."""
    frames, omnis = [], []
    for group in dict.fromkeys(groups[m] for m in order):
        members = [m for m in order if groups[m] == group]
        if len(members) < 2:
            continue
        frames.append(pairwise_tests(episodes, members, "EPM_Index", alpha).assign(group=group))
        omnis.append({"group": group, **omnibus_test(episodes, members)})
    if not frames:
        frame = pairwise_tests(episodes, [], "EPM_Index", alpha).assign(group=[])
    else:
        frame = pd.concat(frames, ignore_index=True)
        frame["p_holm"] = holm(frame["p_value"].to_numpy(float))
        frame["significant"] = frame["p_holm"] < alpha
    return frame, omnis


def significance_table(
    episodes: pd.DataFrame,
    order: Sequence[str],
    alpha: float = 0.05,
    groups: Mapping[str, str] | None = None,
    groups_note: str = "",
) -> ReportTable:
    """Pairwise tests on the per-episode EPM-Index.

    ``groups`` (model -> comparability group, e.g. runs with the same suite, roles and preset)
    restricts the tests to pairs in the same group; ``groups_note`` says which pairs were not
    tested and why.
    """
    if groups is not None and len(set(groups[m] for m in order)) > 1:
        return _grouped_significance_table(episodes, order, alpha, groups, groups_note)
    frame = pairwise_tests(episodes, order, "EPM_Index", alpha)
    shown = [
        "model_a",
        "model_b",
        "test",
        "n",
        "difference",
        "p_value",
        "p_holm",
        "effect",
        "significant",
    ]
    omni = omnibus_test(episodes, order)
    tests = sorted(set(frame["test"])) if len(frame) else []
    which = " and ".join(tests) if tests else "no pairwise test (a single model)"
    omni_p = omni["p_value"]
    omni_txt = (
        f" Omnibus {omni['test']} test across all models: p = {omni_p:.3g}."
        if isinstance(omni_p, float) and not math.isnan(omni_p)
        else ""
    )
    return ReportTable(
        "significance_epm_index",
        "Pairwise significance tests on the per-episode EPM-Index",
        frame,
        f"Test used: {which}, two-sided. Wilcoxon signed-rank on paired differences is used when "
        "both models played exactly the same (case, seed) episodes, otherwise Mann-Whitney U. "
        f"p-values are Holm-corrected over all {len(frame)} pairs (p_holm); 'significant' means "
        f"p_holm < {alpha:g}. effect = rank-biserial correlation in [-1, 1], > 0 when model_a "
        f"scores higher.{omni_txt}",
        display=frame[shown],
    )


def _grouped_significance_table(
    episodes: pd.DataFrame,
    order: Sequence[str],
    alpha: float,
    groups: Mapping[str, str],
    groups_note: str,
) -> ReportTable:
    frame, omnis = _grouped_tests(episodes, order, groups, alpha)
    shown = ["group", "model_a", "model_b", "test", "n", "difference", "p_value", "p_holm",
             "effect", "significant"]  # fmt: skip
    omni_txt = " ".join(
        f"Omnibus {o['test']} test in {o['group']}: p = {o['p_value']:.3g}."
        for o in omnis
        if isinstance(o["p_value"], float) and not math.isnan(o["p_value"])
    )
    return ReportTable(
        "significance_epm_index",
        "Pairwise significance tests on the per-episode EPM-Index (comparable runs only)",
        frame,
        "Models are tested only against models of comparable runs (same suite, roles and "
        f"preset). {groups_note} Within a group: Wilcoxon signed-rank on paired differences when "
        "both models played exactly the same (case, seed) episodes, otherwise Mann-Whitney U, "
        f"two-sided; p-values Holm-corrected over all {len(frame)} tested pairs (p_holm); "
        f"'significant' means p_holm < {alpha:g}. effect = rank-biserial correlation in [-1, 1], "
        f"> 0 when model_a scores higher. {omni_txt}".strip(),
        display=frame[shown],
    )


# --- open evaluation paradigm ---------------------------------------------------------------
def weighting_tables(episodes: pd.DataFrame, order: Sequence[str]) -> list[ReportTable]:
    """Each model's index under every registered weighting (:data:`epm.WEIGHTINGS`)."""
    dims = _ordered(table9(table8(episodes))[list(DIMENSIONS)], order)
    values = _ordered(weighting_table(dims), order)
    ranks = values.rank(ascending=False, method="min").astype(int)
    display = pd.DataFrame(index=values.index, dtype=object)
    for col in values.columns:
        display[col] = [f"{v:.2f} (#{r})" for v, r in zip(values[col], ranks[col], strict=True)]
    definitions = pd.DataFrame(
        [
            {
                "weighting": w.name,
                "Outcome": w.outcome,
                "Efficiency": w.efficiency,
                "Stability": w.stability,
                "emphasis": w.description,
            }
            for w in WEIGHTINGS.values()
        ]
    ).set_index("weighting")
    return [
        ReportTable(
            "weightings",
            "Alternative weightings side by side (open evaluation paradigm)",
            values,
            "The same dimension indices (Table 9) weighted for different uses; (#k) is the "
            "model's rank under that weighting. 'official' is the paper's 0.4/0.2/0.4 EPM-Index. "
            "A model whose rank moves a lot between columns has an unbalanced profile.",
            display=display,
        ),
        ReportTable(
            "weighting_definitions",
            "Weightings used",
            definitions,
            "Weights of Outcome, Efficiency and Stability (each row sums to 1).",
        ),
    ]


# --- judge failures -------------------------------------------------------------------------
def judge_failure_table(episodes: pd.DataFrame, order: Sequence[str]) -> ReportTable:
    """Per model: judged turns, failed judgements and the episodes they touched (never hidden)."""
    grouped = episodes.groupby("model")
    frame = pd.DataFrame(
        {
            "episodes": grouped.size(),
            "judged_turns": grouped["turns"].sum().astype(int),
            "failed_judgements": grouped["judge_failures"].sum().astype(int),
            "episodes_with_failures": grouped["judge_failures"].apply(lambda s: int((s > 0).sum())),
        }
    )
    frame["failure_rate_pct"] = (
        frame["failed_judgements"] / frame["judged_turns"].clip(lower=1) * 100.0
    )
    total = int(frame["failed_judgements"].sum())
    return ReportTable(
        "judge_failures",
        f"Judge failures ({total} failed judgement{'s' if total != 1 else ''} in total)",
        _ordered(frame, order),
        "A failed judgement (the Judger raised or returned something unusable) is recorded as a "
        "failure with v_t = 0 for that turn: it neither helps nor hurts the trajectory, but it "
        "does dilute the metrics. Models with many failures should be re-run before their "
        "scores are compared.",
    )


def judge_failure_details(
    episodes: pd.DataFrame, trajectories: Mapping[str, Trajectory]
) -> ReportTable:
    """Every failed judgement: model, case, seed, turn and the error the Judger gave."""
    rows = []
    for _, ep in episodes.iterrows():
        traj = trajectories.get(str(ep["episode_key"]))
        if traj is None:
            continue
        for turn in traj.turns:
            if turn.judgement.failed:
                rows.append(
                    {
                        "model": ep["model"],
                        "case_id": ep["case_id"],
                        "seed": ep["seed"],
                        "turn": turn.turn,
                        "judge": turn.judgement.judge,
                        "error": turn.judgement.error,
                    }
                )
    frame = pd.DataFrame(rows, columns=["model", "case_id", "seed", "turn", "judge", "error"])
    frame["error"] = frame["error"].fillna("").astype(str)
    grouped = frame.groupby(["model", "error"], sort=False)
    display = (
        pd.DataFrame(
            {
                "failed_turns": grouped.size(),
                "episodes": grouped.apply(
                    lambda g: g[["case_id", "seed"]].drop_duplicates().shape[0]
                ),
                "first_seen": grouped.apply(
                    lambda g: (
                        f"{g['case_id'].iat[0]} seed {g['seed'].iat[0]} turn {g['turn'].iat[0]}"
                    )
                ),
            }
        ).reset_index()
        if len(frame)
        else pd.DataFrame(columns=["model", "error", "failed_turns"])
    )
    return ReportTable(
        "judge_failure_details",
        "Failed judgements by model and error",
        frame,
        "Read from the trajectories (turn.judgement.failed); grouped here by the error the Judger "
        "gave. The CSV lists every failed turn (model, case, seed, turn, error). Empty when every "
        "reply was judged.",
        display=display,
    )


# --- NEE and FCS (Tables 10 and 11) ---------------------------------------------------------
def has_nee(episodes: pd.DataFrame) -> bool:
    return "NEE" in episodes and bool(episodes["NEE"].notna().any())


def nee_tables(episodes: pd.DataFrame, order: Sequence[str]) -> list[ReportTable]:
    """Table 10 (NEE and its sub-scores per model) and Table 11 (FCS ranking); empty without NEE."""
    if not has_nee(episodes):
        return []
    with_nee = episodes[episodes["NEE"].notna()]
    grouped = with_nee.groupby("model")
    t10 = pd.DataFrame({"NEE_mean": grouped["NEE"].mean(), "NEE_sd": grouped["NEE"].std(ddof=1)})
    for part in NEE_PARTS:
        if part in with_nee and with_nee[part].notna().any():
            t10[part] = grouped[part].mean()
    t10["episodes_with_NEE"] = grouped.size()
    t10 = _ordered(t10, order)
    epm_means = episodes.groupby("model")["EPM_Index"].mean()
    scored = [m for m in order if m in t10.index]
    t11 = table11(epm_means.reindex(scored), t10.loc[scored, "NEE_mean"])
    t11.index.name = "model"
    t11["episodes_with_NEE"] = t10["episodes_with_NEE"].reindex(t11.index)
    return [
        ReportTable(
            "table10_nee",
            "Table 10 - NEE (narrative and experience evaluation)",
            t10,
            "NEE is the panel's score out of 100: linguistic naturalness (0-30), contextual pacing "
            "(0-40) and narrative arc (0-30). Means over the episodes that have an NEE score.",
        ),
        ReportTable(
            "table11_fcs",
            "Table 11 - Final comprehensive score (FCS)",
            t11,
            "FCS = 0.6 * EPM-Index + 0.4 * NEE (Echo-N1 Table 11), ranked. EPM-Index is the mean "
            "over all the model's episodes, NEE over those with an NEE score.",
        ),
    ]


# --- profiles (Fig. 17) and the per-case matrix (Fig. 14) -------------------------------------
def facet_groups(episodes: pd.DataFrame, facet: str) -> tuple[pd.Series, list[str]]:
    """The group label of every episode for a radar facet, and the spoke order."""
    if facet == "stress":
        stress = episodes["difficulty"].map(STRESS_OF)
        labels = episodes["dominant_axis"].astype(str) + "-" + stress.astype(str)
        spokes = [f"{a}-{s}" for s in ("routine", "challenging") for a in AXIS_ORDER]
        return labels.where(stress.notna()), spokes
    if facet == "defence":
        defence = episodes["empathy_threshold"].map(DEFENCE_OF)
        labels = episodes["dominant_axis"].astype(str) + "-" + defence.astype(str)
        spokes = [f"{a}-{d}" for d in ("receptive", "defensive") for a in AXIS_ORDER]
        return labels.where(defence.notna()), spokes
    if facet == "domain":
        extra = sorted(set(episodes["domain"].dropna().astype(str)) - set(DOMAIN_ORDER))
        return episodes["domain"].astype(str), [*DOMAIN_ORDER, *extra]
    raise ValueError(f"unknown facet {facet!r}; expected one of {FACETS}")


def profile_table(
    episodes: pd.DataFrame, order: Sequence[str], facet: str, metric: str = "EPM_Index"
) -> pd.DataFrame:
    """Mean ``metric`` per model (rows) and facet group (columns; NaN where no case falls)."""
    labels, spokes = facet_groups(episodes, facet)
    frame = episodes.assign(_group=labels).dropna(subset=["_group"])
    means = frame.groupby(["model", "_group"])[metric].mean().unstack("_group")
    means = means.reindex(columns=spokes)
    means.columns.name = None
    return _ordered(means, order)


def profile_tables(episodes: pd.DataFrame, order: Sequence[str]) -> list[ReportTable]:
    if not all(c in episodes for c in META_COLUMNS):
        return []
    titles = {
        "stress": "need type x stress (routine = easy/medium, challenging = hard/extreme)",
        "domain": "life domain",
        "defence": "need type x defence (receptive = low/medium, defensive = high threshold)",
    }
    return [
        ReportTable(
            f"profile_{facet}",
            f"EPM-Index by {titles[facet]}",
            profile_table(episodes, order, facet),
            "Mean EPM-Index of the model's episodes in each group; C/A/P is the case's dominant "
            "need axis. Empty cells: no case of the suite falls in that group.",
        )
        for facet in FACETS
    ]


def case_status_table(episodes: pd.DataFrame, order: Sequence[str]) -> ReportTable:
    """Models x cases: share of successful episodes (cases ordered by ``||P_0||``)."""
    rate = episodes.pivot_table(index="model", columns="case_id", values="success", aggfunc="mean")
    rate = _ordered(rate.astype(float), order).reindex(columns=case_order(episodes))
    rate.columns.name = None
    return ReportTable(
        "case_success_matrix",
        "Per-case success (share of episodes that succeeded)",
        rate,
        "1 = every episode of that model on that case succeeded, 0 = none. Cases ordered by "
        "increasing initial deficit ||P_0||.",
    )
