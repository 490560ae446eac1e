"""A run's results without opening files: the terminal leaderboard and ``RUN_DIR/results.json``.

:func:`model_aggregates` reduces a run store to one row per model: the mean EPM-Index with a 95%
percentile-bootstrap interval over episodes (seeded, so the same run always gives the same
interval), the success rate, the number of finished episodes, the episodes that failed to run
(the store's errors table, minus those a later run finished) and the *invalid* episodes (finished,
but their judgements failed too often: kept and counted, never in the mean, the interval or the
ranking; a model with only invalid episodes is listed without a rank). :func:`leaderboard_text` prints it; :func:`results_document`
is the JSON file, whose schema is ``benchmarks/schemas/results.schema.json`` (described in
``docs/results-json.md``).
"""

from __future__ import annotations

import json
import platform
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

RESULTS_NAME = "results.json"
#: Version of the results.json layout (bump on an incompatible change).
RESULTS_SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).parent / "schemas" / "results.schema.json"
#: Resamples and seed of the bootstrap interval.
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
#: Distributions whose versions results.json records (when installed).
KEY_DEPENDENCIES: tuple[str, ...] = (
    "empa-gym", "numpy", "scipy", "pandas", "gymnasium", "litellm", "pydantic",
    "onnxruntime", "torch", "transformers", "trl",
)  # fmt: skip


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float | None, float | None]:
    """Percentile bootstrap interval of the mean over ``values`` (NaNs dropped).

    ``(None, None)`` without values; a single value is its own (zero-width) interval.
    """
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return None, None
    if len(x) == 1:
        return float(x[0]), float(x[0])
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, len(x), size=(resamples, len(x)))].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def _model_of(episode_key: str) -> str:
    return episode_key.split("|", 1)[0]


def unfinished_errors(
    errors: Sequence[Mapping[str, str]], finished: set[str]
) -> dict[str, list[Mapping[str, str]]]:
    """Errors of episodes no run has finished, the last error per episode, grouped by model."""
    last: dict[str, Mapping[str, str]] = {}
    for err in errors:
        if err["episode_key"] not in finished:
            last[err["episode_key"]] = err
    out: dict[str, list[Mapping[str, str]]] = {}
    for key, err in last.items():
        out.setdefault(_model_of(key), []).append(err)
    return out


def model_aggregates(
    episodes: pd.DataFrame,
    errors: Sequence[Mapping[str, str]] = (),
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> list[dict[str, Any]]:
    """One record per model, best mean EPM-Index first (see the module docstring)."""
    finished = set(episodes["episode_key"].astype(str)) if len(episodes) else set()
    failed = unfinished_errors(errors, finished)
    models = list(dict.fromkeys([*episodes.get("model", pd.Series(dtype=str)), *failed]))
    rows = []
    for model in models:
        everything = episodes[episodes["model"] == model] if len(episodes) else episodes
        bad = (
            everything["invalid"].fillna("").astype(str) != ""
            if "invalid" in everything
            else pd.Series(False, index=everything.index)
        )
        mine = everything[~bad]
        index = pd.to_numeric(mine.get("EPM_Index", pd.Series(dtype=float)), errors="coerce")
        values = index.to_numpy(float)
        lo, hi = bootstrap_ci(values, resamples=resamples, seed=seed)
        finite = values[np.isfinite(values)]
        success = mine["success"].astype(bool) if "success" in mine else pd.Series(dtype=bool)
        row: dict[str, Any] = {
            "model": str(model),
            "n": int(len(mine)),
            "epm_index_mean": float(finite.mean()) if len(finite) else None,
            "epm_index_ci95": [lo, hi],
            "epm_index_sd": float(finite.std(ddof=1)) if len(finite) > 1 else None,
            "success_rate": float(success.mean()) if len(success) else None,
            "successes": int(success.sum()) if len(success) else 0,
            "failed_episodes": len(failed.get(model, [])),
            "invalid_episodes": int(bad.sum()),
        }
        row["role_failures"] = role_failure_shares(everything)
        if "FCS" in mine and pd.to_numeric(mine["FCS"], errors="coerce").notna().any():
            fcs = pd.to_numeric(mine["FCS"], errors="coerce").to_numpy(float)
            flo, fhi = bootstrap_ci(fcs, resamples=resamples, seed=seed)
            row["fcs_mean"] = float(np.nanmean(fcs))
            row["fcs_ci95"] = [flo, fhi]
        rows.append(row)
    rows.sort(key=lambda r: -np.inf if r["epm_index_mean"] is None else -r["epm_index_mean"])
    rank = 0
    for row in rows:
        if row["epm_index_mean"] is None:
            row["rank"] = None  # nothing valid to rank
        else:
            rank += 1
            row["rank"] = rank
    return rows


#: role -> (metrics column of its failures, of its calls): what :func:`role_failure_shares` sums.
ROLE_COLUMNS: dict[str, tuple[str, str]] = {
    "judge": ("judge_failures", "turns"),
    "director": ("director_failures", "director_calls"),
    "actor": ("actor_failures", "actor_calls"),
}


def role_failure_shares(episodes: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per role (judge, Director, Actor): failed calls, calls and their share over ``episodes``
    (every finished episode, valid or not); a role whose counts were not recorded (runs made
    before they were, imported runs) is left out."""
    out: dict[str, dict[str, Any]] = {}
    for role, (failed_col, calls_col) in ROLE_COLUMNS.items():
        if failed_col not in episodes or calls_col not in episodes:
            continue
        failed = pd.to_numeric(episodes[failed_col], errors="coerce")
        calls = pd.to_numeric(episodes[calls_col], errors="coerce")
        known = failed.notna() & calls.notna()
        if not known.any():
            continue
        n_failed, n_calls = int(failed[known].sum()), int(calls[known].sum())
        out[role] = {
            "failed": n_failed,
            "calls": n_calls,
            "share": n_failed / n_calls if n_calls else None,
        }
    return out


def role_failure_text(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per model whose roles failed at all: ``model: director 22 of 22 (100%), ...``."""
    from empa_env.safe_text import terminal_safe

    lines = []
    for r in rows:
        parts = [
            f"{role} {f['failed']} of {f['calls']} ({100 * (f['share'] or 0):.0f}%)"
            for role, f in (r.get("role_failures") or {}).items()
            if f.get("failed")
        ]
        if parts:
            lines.append(f"  {terminal_safe(r['model'], single_line=True)}: {', '.join(parts)}")
    return lines


def _num(value: float | None, width: int, decimals: int = 1) -> str:
    return ("–" if value is None else f"{value:.{decimals}f}").rjust(width)


def interval_text(lo: float | None, hi: float | None, n: int) -> str:
    """The 95% interval as shown to people: ``[43.1, 47.9]``, or why there is none."""
    if lo is None or hi is None:
        return "–"
    if n == 1:
        return "n=1, no interval"
    return f"[{lo:.1f}, {hi:.1f}]"


def leaderboard_text(rows: Sequence[Mapping[str, Any]], *, title: str = "leaderboard") -> str:
    """A plain-text table: rank, model, EPM-Index mean [95% CI], success rate, n, failed, invalid."""
    if not rows:
        return f"{title}: no finished episodes"
    from empa_env.safe_text import terminal_safe

    names = [terminal_safe(r["model"], single_line=True) for r in rows]
    width = max(5, *(len(n) for n in names))
    head = (
        f"{'#':>2}  {'model':<{width}}  {'EPM-Index':>9}  {'95% CI':>16}  {'success':>7}  "
        f"{'n':>4}  {'failed':>6}  {'invalid':>7}"
    )
    lines = [f"{title} (EPM-Index mean over episodes, 95% bootstrap interval):", head]
    for name, r in zip(names, rows, strict=True):
        lo, hi = r["epm_index_ci95"]
        ci = interval_text(lo, hi, int(r["n"]))
        rate = r["success_rate"]
        lines.append(
            f"{r['rank'] or '-':>2}  {name:<{width}}  {_num(r['epm_index_mean'], 9)}  {ci:>16}  "
            f"{('–' if rate is None else f'{100 * rate:.0f}%'):>7}  {r['n']:>4}  "
            f"{r['failed_episodes']:>6}  {r['invalid_episodes']:>7}"
        )
    lines.append(
        "failed = episodes that could not run (errors table); invalid = finished episodes whose "
        "judge, Director or Actor failed too often (not in the mean, not ranked; a rerun plays "
        "them again)"
    )
    failures = role_failure_text(rows)
    if failures:
        lines.append("role failures (failed calls of all finished episodes; the run measures its "
                     "configured roles only where they answered):")  # fmt: skip
        lines += failures
    return "\n".join(lines)


def dependency_versions(names: Sequence[str] = KEY_DEPENDENCIES) -> dict[str, str | None]:
    """Installed versions (``None`` when not installed), read from metadata (nothing imported)."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, float | np.floating):
        return None if not np.isfinite(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if value is None or isinstance(value, int | str):
        return value
    if isinstance(value, float):
        return value
    return None if pd.isna(value) else str(value)


_COUNTS = ("turns", "judge_failures", "director_failures", "director_calls", "actor_failures",
           "actor_calls")  # fmt: skip


def per_case_scores(episodes: pd.DataFrame) -> list[dict[str, Any]]:
    """One record per finished episode: model, case, seed, EPM-Index, outcome, success, turns."""
    keep = ("model", "case_id", "seed", "EPM_Index", "outcome", "success", "turns",
            "judge_failures", "director_failures", "director_calls", "actor_failures",
            "actor_calls", "invalid", "FCS")  # fmt: skip
    rows = []
    for record in episodes.to_dict("records"):
        row = {k: _plain(record.get(k)) for k in keep if k in record}
        for k in _COUNTS:  # a column with gaps (older episodes) is float in pandas
            if isinstance(row.get(k), float):
                row[k] = int(row[k])
        rows.append(row)
    return sorted(rows, key=lambda r: (r["model"], r["case_id"], r["seed"]))


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def schema_versions(run_info: Mapping[str, Any]) -> dict[str, Any]:
    """The two schema versions a run has, named for what they version (for the report's header):
    ``results.json`` (:data:`RESULTS_SCHEMA_VERSION`) and the ``results.sqlite`` store's."""
    return {
        "results.json schema": RESULTS_SCHEMA_VERSION,
        "results.sqlite schema": _int_or_none(run_info.get("schema_version")),
    }


def _env_id(config: Mapping[str, Any]) -> str | None:
    """The versioned id the run's environment behaves as (``EMPA-Bench-v14``, or that id with
    what differs); ``None`` for a store written before the environment was described."""
    from empa_env.versions import id_for

    described = config.get("env")
    if not isinstance(described, Mapping):
        return None
    return id_for(described, str(config.get("suite", "")))


def results_document(
    run_dir: str | Path,
    config: Mapping[str, Any],
    episodes: pd.DataFrame,
    errors: Sequence[Mapping[str, str]] = (),
    run_info: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The content of ``RUN_DIR/results.json`` (see ``docs/results-json.md``)."""
    info = dict(run_info or {})
    aggregates = model_aggregates(episodes, errors)
    failed = unfinished_errors(
        errors, set(episodes["episode_key"].astype(str)) if len(episodes) else set()
    )
    return {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "store_schema_version": _int_or_none(info.get("schema_version")),
        "run_dir": str(run_dir),
        "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "fingerprint": info.get("fingerprint"),
        "env_id": _env_id(config),
        "created_at": info.get("created_at"),
        "config": dict(config),
        "versions": dependency_versions(),
        "bootstrap": {"resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED, "level": 0.95},
        "models": aggregates,
        "episodes": per_case_scores(episodes) if len(episodes) else [],
        "errors": [
            {"episode_key": e["episode_key"], "error": e["error"], "at": e["at"]}
            for rows in failed.values()
            for e in rows
        ],
    }


def write_results(run_dir: str | Path, document: Mapping[str, Any]) -> Path:
    """Write ``RUN_DIR/results.json`` atomically (the previous version stays until it is done)."""
    from empa_env.atomic import atomic_write

    path = Path(run_dir) / RESULTS_NAME
    return atomic_write(path, json.dumps(document, indent=2, allow_nan=False) + "\n")


def store_results(store: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(results document, aggregates)`` of an open :class:`benchmarks.store.RunStore`."""
    episodes = store.episodes_frame()
    document = results_document(
        store.run_dir, store.config, episodes, store.errors(), store.run_info()
    )
    return document, document["models"]
