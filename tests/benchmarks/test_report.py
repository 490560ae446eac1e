"""The benchmark report: tables equal the epm definitions recomputed here, every figure is written,
NEE adds the FCS table, judge failures are shown.

The fixture runs the real environment (offline roles) with two scripted baselines on three cases
of the empa30-v1 suite; one of them is judged by a Judger that fails on every fifth turn, so the
run has real, recorded judge failures.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

pytest.importorskip("matplotlib")

from baselines.policies.scripted import SCRIPTED  # noqa: E402
from benchmarks.report import tables as T  # noqa: E402
from benchmarks.report.build import build_report, build_sections, prepare_episodes  # noqa: E402
from benchmarks.report.header import run_header  # noqa: E402
from benchmarks.report.render import markdown_table  # noqa: E402
from empa_env.cases.schema import Case  # noqa: E402
from empa_env.env import EMPAEnv  # noqa: E402
from empa_env.offline.judger import LexiconJudger  # noqa: E402
from empa_env.roles.base import Judger  # noqa: E402
from empa_env.roles.views import JudgeView  # noqa: E402
from epm.episode import evaluate  # noqa: E402
from epm.trajectory import Judgement, Trajectory  # noqa: E402
from epm.weighting import WEIGHTINGS  # noqa: E402

SUITE_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "suites" / "empa30-v1"
MODELS = ("attuned", "lecturer")
NINE = (
    "Idx_RDI",
    "Idx_Etot",
    "Idx_Snet",
    "Idx_rho",
    "Idx_Sproj",
    "Idx_tau",
    "Idx_Rpos",
    "Idx_Align",
    "Idx_Pen",
)
LABELS = ("RDI", "E_total", "S_net", "rho", "S_proj", "tau", "R_pos", "cos_theta", "R_pen")
FIGURES = (
    "fig11_outcomes",
    "fig12_metric_boxplots",
    "fig13_case_scatter",
    "fig14_case_status",
    "fig15_mean_sd",
    "fig17_profiles",
)


class FlakyJudger(Judger):
    """The offline Judger, except that every ``every``-th turn it times out."""

    name = "flaky-offline"

    def __init__(self, every: int) -> None:
        self.inner = LexiconJudger()
        self.every = every

    def judge(self, view: JudgeView) -> Judgement:
        if view.turn % self.every == 0:
            raise TimeoutError(f"judge timed out at turn {view.turn}")
        return self.inner.judge(view)


def _three_cases() -> list[Case]:
    """Three suite cases with different dominant axes (so the radar facets have content)."""
    try:
        from empa_env.cases.suites import load_suite

        cases = list(load_suite("empa30-v1").cases)
    except Exception:  # the suite registry is optional here; the files are what matter
        from empa_env.cases.loader import load_directory

        cases = load_directory(SUITE_DIR)
    chosen: dict[str, Case] = {}
    for case in sorted(cases, key=lambda c: c.id):
        chosen.setdefault(case.dominant_axis, case)
    picked = list(chosen.values())
    picked += [c for c in cases if c not in picked][: 3 - len(picked)]
    return picked[:3]


def _run(
    cases: list[Case], judger: Judger | str, model: str, seed: int = 0
) -> tuple[list[dict], dict]:
    env = EMPAEnv(case_pool=cases, judger=judger)
    policy = SCRIPTED[model]()
    rows, trajectories = [], {}
    for case in cases:
        _, info = env.reset(seed=seed, options={"case": case.id})
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(policy.reply(env.messages))
            done = terminated or truncated
        key = f"{model}/{case.id}/{seed}"
        rows.append(
            {
                **info["epm"],
                "episode_key": key,
                "model": model,
                "seed": seed,
                "domain": case.domain,
                "dominant_axis": case.dominant_axis,
                "difficulty": case.difficulty,
                "empathy_threshold": case.empathy_threshold,
                "norm_p0": case.norm_p0,
            }
        )
        trajectories[key] = env.trajectory
    return rows, trajectories


@pytest.fixture(scope="module")
def run() -> tuple[pd.DataFrame, dict[str, Trajectory]]:
    """2 models x 3 cases x 1 seed on the real environment; the lecturer's Judger is flaky."""
    cases = _three_cases()
    rows_a, traj_a = _run(cases, "offline", MODELS[0])
    rows_b, traj_b = _run(cases, FlakyJudger(every=5), MODELS[1])
    return pd.DataFrame(rows_a + rows_b), {**traj_a, **traj_b}


def _with_nee(episodes: pd.DataFrame) -> pd.DataFrame:
    out = episodes.copy()
    rng = np.random.default_rng(7)
    out["naturalness"] = rng.uniform(10, 30, len(out))
    out["pacing"] = rng.uniform(10, 40, len(out))
    out["narrative_arc"] = rng.uniform(10, 30, len(out))
    out["NEE"] = out["naturalness"] + out["pacing"] + out["narrative_arc"]
    return out


@pytest.fixture(scope="module")
def report(run, tmp_path_factory) -> Path:
    """The full report (with NEE columns) written once for the module."""
    episodes, trajectories = run
    out = tmp_path_factory.mktemp("report")
    path = build_report(
        _with_nee(episodes),
        trajectories,
        out,
        title="test report",
        header=run_header(
            "runs/test",
            {"suite": "empa30-v1", "roles": {"judger": {"name": "flaky-offline"}}},
            {"created_at": "2026-01-02T03:04:05+00:00", "fingerprint": "f00"},
            episodes,
            errors=0,
            invalid=0,
        ),
    )
    assert path == out / "report.html"
    return out


def _csv(report: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(report / "tables" / f"{name}.csv", index_col=0)


# --- the fixture itself is what the environment evaluated -----------------------------------
def test_fixture_rows_are_epm_evaluate_of_the_trajectories(run) -> None:
    episodes, trajectories = run
    assert len(episodes) == 6 and set(episodes["model"]) == set(MODELS)
    for _, row in episodes.iterrows():
        again = evaluate(trajectories[row["episode_key"]])
        for key in ("EPM_Index", "Outcome", "Efficiency", "Stability", *NINE):
            assert row[key] == pytest.approx(again[key])
        assert row["judge_failures"] == again["judge_failures"]
    assert episodes.loc[episodes["model"] == "lecturer", "judge_failures"].sum() > 0
    assert episodes.loc[episodes["model"] == "attuned", "judge_failures"].sum() == 0


# --- tables equal the definitions, recomputed independently ---------------------------------
def test_table8_is_the_per_model_mean_of_each_index(run, report) -> None:
    episodes, _ = run
    t8 = _csv(report, "table8_indices")
    assert list(t8.columns) == [*LABELS, "never moved"]  # the nine indices, then the flag
    for model in MODELS:
        mine = episodes[episodes["model"] == model]
        for idx, label in zip(NINE, LABELS, strict=True):
            assert t8.loc[model, label] == pytest.approx(sum(mine[idx]) / len(mine), abs=1e-9)


def test_table9_dimensions_and_epm_index(run, report) -> None:
    episodes, _ = run
    t9 = _csv(report, "table9_composite")
    for model in MODELS:
        mine = episodes[episodes["model"] == model]
        means = {k: float(np.mean(mine[k])) for k in NINE}
        outcome = (means["Idx_RDI"] + means["Idx_Etot"] + means["Idx_Snet"]) / 3
        efficiency = (means["Idx_rho"] + means["Idx_Sproj"] + means["Idx_tau"]) / 3
        stability = (means["Idx_Rpos"] + means["Idx_Align"] + means["Idx_Pen"]) / 3
        assert t9.loc[model, "Outcome"] == pytest.approx(outcome)
        assert t9.loc[model, "Efficiency"] == pytest.approx(efficiency)
        assert t9.loc[model, "Stability"] == pytest.approx(stability)
        assert t9.loc[model, "EPM_Index"] == pytest.approx(
            0.4 * outcome + 0.2 * efficiency + 0.4 * stability
        )
        # the mean of Table 9 equals the mean of the per-episode EPM-Index (it is linear)
        assert t9.loc[model, "EPM_Index"] == pytest.approx(mine["EPM_Index"].mean())
        assert t9.loc[model, "episodes"] == 3
    assert sorted(t9["rank"]) == [1, 2]
    best = t9["EPM_Index"].idxmax()
    assert t9.loc[best, "rank"] == 1 and t9.index[0] == best  # ranked, best first


def test_outcomes_turns_energy_and_mean_sd(run, report) -> None:
    episodes, _ = run
    outcomes = _csv(report, "outcomes")
    summary = _csv(report, "summary_mean_sd")
    for model in MODELS:
        mine = episodes[episodes["model"] == model]
        successes = int(sum(bool(s) for s in mine["success"]))
        assert outcomes.loc[model, "successes"] == successes
        assert outcomes.loc[model, "success_rate_pct"] == pytest.approx(100 * successes / 3)
        endings = [
            c for c in outcomes.columns if c not in ("episodes", "successes", "success_rate_pct")
        ]
        assert outcomes.loc[model, endings].sum() == 3  # every episode counted once
        for col in ("turns", "E_surplus", "RDI", "EPM_Index"):
            values = mine[col].astype(float).to_numpy()
            assert summary.loc[model, f"{col}_mean"] == pytest.approx(values.mean())
            assert summary.loc[model, f"{col}_std"] == pytest.approx(values.std(ddof=1))


def test_weightings_side_by_side(run, report) -> None:
    episodes, _ = run
    table = _csv(report, "weightings")
    assert set(table.columns) == set(WEIGHTINGS)
    for model in MODELS:
        mine = episodes[episodes["model"] == model]
        dims = {d: float(mine[d].mean()) for d in ("Outcome", "Efficiency", "Stability")}
        for name, w in WEIGHTINGS.items():
            expected = (
                w.outcome * dims["Outcome"]
                + w.efficiency * dims["Efficiency"]
                + w.stability * dims["Stability"]
            )
            assert table.loc[model, name] == pytest.approx(expected)


def test_significance_is_the_stated_test(run, report) -> None:
    episodes, _ = run
    sig = pd.read_csv(report / "tables" / "significance_epm_index.csv")
    assert len(sig) == 1
    row = sig.iloc[0]
    assert row["test"] == "Wilcoxon signed-rank"  # same cases and seeds: paired
    a = episodes[episodes["model"] == row["model_a"]].set_index("case_id")["EPM_Index"]
    b = (
        episodes[episodes["model"] == row["model_b"]]
        .set_index("case_id")["EPM_Index"]
        .reindex(a.index)
    )
    expected = stats.wilcoxon(a.to_numpy() - b.to_numpy(), alternative="two-sided")
    assert row["p_value"] == pytest.approx(expected.pvalue)
    assert row["p_holm"] == pytest.approx(expected.pvalue)  # one pair: Holm changes nothing
    html = (report / "report.html").read_text(encoding="utf-8")
    assert "Wilcoxon signed-rank" in html and "Holm" in html


def test_unpaired_designs_use_mann_whitney_with_holm() -> None:
    rng = np.random.default_rng(0)
    rows = [
        {"model": m, "case_id": f"c{i}", "seed": 0, "EPM_Index": float(rng.normal(mu, 5))}
        for m, mu, n in (("x", 60, 8), ("y", 40, 7), ("z", 50, 6))
        for i in range(n)
    ]
    episodes = pd.DataFrame(rows)
    table = T.pairwise_tests(episodes, ["x", "z", "y"])
    assert set(table["test"]) == {"Mann-Whitney U"}
    raw = []
    for _, row in table.iterrows():
        xa = episodes.loc[episodes["model"] == row["model_a"], "EPM_Index"]
        xb = episodes.loc[episodes["model"] == row["model_b"], "EPM_Index"]
        p = stats.mannwhitneyu(xa, xb, alternative="two-sided").pvalue
        assert row["p_value"] == pytest.approx(p)
        raw.append(p)
    # Holm by hand: sort, multiply by (m - rank), running maximum, cap at 1
    order = np.argsort(raw)
    expected = np.empty(3)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (3 - k) * raw[i]))
        expected[i] = running
    assert table["p_holm"].to_numpy() == pytest.approx(expected)


def test_holm_known_values() -> None:
    assert T.holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    out = T.holm([0.2, math.nan, 0.01])
    assert out[0] == pytest.approx(0.2) and math.isnan(out[1]) and out[2] == pytest.approx(0.02)


def test_wilcoxon_identical_models_is_not_significant() -> None:
    episodes = pd.DataFrame(
        [
            {"model": m, "case_id": f"c{i}", "seed": 0, "EPM_Index": float(i)}
            for m in "ab"
            for i in range(5)
        ]
    )
    row = T.pairwise_tests(episodes, ["a", "b"]).iloc[0]
    assert (
        row["test"] == "Wilcoxon signed-rank" and row["p_value"] == 1.0 and not row["significant"]
    )


# --- figures ----------------------------------------------------------------------------------
def test_every_figure_is_written_and_embedded(run, report) -> None:
    episodes, _ = run
    pngs = {p.stem: p for p in (report / "figures").glob("*.png")}
    expected = set(FIGURES) | {f"fig16_trajectories_{m}" for m in MODELS}
    assert expected <= set(pngs)
    for path in pngs.values():
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000
    html = (report / "report.html").read_text(encoding="utf-8")
    assert html.count('src="data:image/png;base64,') == len(expected)
    assert "http://" not in html and "https://" not in html  # self-contained: opens offline
    md = (report / "report.md").read_text(encoding="utf-8")
    for name in expected:
        assert f"](figures/{name}.png)" in md
    assert "How to read this" in html and "How to read this" in md


def test_radar_profile_tables_group_by_case_metadata(run, report) -> None:
    episodes, _ = run
    stress = _csv(report, "profile_stress")
    for _, row in episodes.iterrows():
        group = "routine" if row["difficulty"] in ("easy", "medium") else "challenging"
        col = f"{row['dominant_axis']}-{group}"
        same = episodes[
            (episodes["model"] == row["model"])
            & (episodes["dominant_axis"] == row["dominant_axis"])
            & (episodes["difficulty"].map(T.STRESS_OF) == group)
        ]
        assert stress.loc[row["model"], col] == pytest.approx(same["EPM_Index"].mean())


# --- NEE and FCS --------------------------------------------------------------------------------
def test_nee_columns_add_the_fcs_table(run, report) -> None:
    episodes, _ = run
    with_nee = _with_nee(episodes)
    t11 = _csv(report, "table11_fcs")
    for model in MODELS:
        epm_mean = episodes.loc[episodes["model"] == model, "EPM_Index"].mean()
        nee_mean = with_nee.loc[with_nee["model"] == model, "NEE"].mean()
        assert t11.loc[model, "FCS"] == pytest.approx(0.6 * epm_mean + 0.4 * nee_mean)
    assert list(t11["rank"]) == [1, 2] and t11["FCS"].is_monotonic_decreasing
    t10 = _csv(report, "table10_nee")
    assert {"NEE_mean", "NEE_sd", "naturalness", "pacing", "narrative_arc"} <= set(t10.columns)
    assert "Table 11" in (report / "report.md").read_text(encoding="utf-8")


def test_without_nee_there_is_no_fcs_table(run) -> None:
    episodes, trajectories = run
    names = {
        t.name
        for s in build_sections(prepare_episodes(episodes), trajectories, figures=False)
        for t in s.tables
    }
    assert "table11_fcs" not in names and "table10_nee" not in names
    nan_nee = episodes.assign(NEE=np.nan)  # the column present but never scored
    names = {
        t.name
        for s in build_sections(prepare_episodes(nan_nee), trajectories, figures=False)
        for t in s.tables
    }
    assert "table11_fcs" not in names
    assert {"table8_indices", "table9_composite", "weightings", "judge_failures"} <= names


# --- judge failures -------------------------------------------------------------------------------
def test_judge_failures_are_counted_and_listed(run, report) -> None:
    episodes, trajectories = run
    table = _csv(report, "judge_failures")
    failed = {
        m: sum(
            t.judgement.failed
            for k, tr in trajectories.items()
            if k.startswith(m + "/")
            for t in tr.turns
        )
        for m in MODELS
    }
    assert failed["lecturer"] > 0
    for model in MODELS:
        assert table.loc[model, "failed_judgements"] == failed[model]
        assert (
            table.loc[model, "judged_turns"]
            == episodes.loc[episodes["model"] == model, "turns"].sum()
        )
    details = pd.read_csv(report / "tables" / "judge_failure_details.csv")
    assert len(details) == failed["lecturer"] and set(details["model"]) == {"lecturer"}
    assert details["error"].str.contains("judge timed out").all()
    html = (report / "report.html").read_text(encoding="utf-8")
    md = (report / "report.md").read_text(encoding="utf-8")
    total = failed["lecturer"]
    for text in (html, md):
        assert f"Judge failures ({total} failed judgement" in text
        assert "judge timed out" in text
        assert f"({total} judge failures)" in text  # stated at the top, too


# --- input checks and rendering helpers ---------------------------------------------------------
def test_missing_columns_are_named(run) -> None:
    episodes, _ = run
    with pytest.raises(ValueError, match="Idx_Pen.*EPM_Index|EPM_Index"):
        prepare_episodes(episodes.drop(columns=["Idx_Pen", "EPM_Index"]))
    with pytest.raises(ValueError, match="empty"):
        prepare_episodes(episodes.iloc[0:0])


def test_markdown_table_formats_numbers_and_escapes_pipes() -> None:
    frame = pd.DataFrame(
        {"a": [1.23456, math.nan], "b": ["x|y", "z"]}, index=pd.Index(["m1", "m2"], name="model")
    )
    text = markdown_table(frame)
    lines = text.splitlines()
    assert lines[0] == "| model | a | b |"
    assert lines[2] == "| m1 | 1.23 | x\\|y |"
    assert lines[3] == "| m2 | – | z |"
