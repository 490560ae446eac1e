"""``empa bench``, ``empa report`` and ``empa export``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.runner import BenchConfig, run_benchmark
from benchmarks.store import DB_NAME, ConfigMismatchError, RunStore, StoreError
from empa_env.config import EnvConfig
from empa_env.policy import policies as policy_kinds


def default_policies() -> list[str]:
    """The policies ``empa bench`` runs when none is given: those the ``scripted`` kind names."""
    if "scripted" not in policy_kinds:
        return []
    return list(getattr(policy_kinds.get("scripted"), "defaults", ()))


def _llm_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.api_base:
        options["api_base"] = args.api_base
    if args.llm_cache:
        options["cache_path"] = str(args.llm_cache)
    if args.llm_timeout:
        options["timeout"] = args.llm_timeout
    for item in args.llm_option or []:
        key, _, value = item.partition("=")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def _open_store(run_dir: Path) -> RunStore:
    if not (run_dir / DB_NAME).exists():
        raise SystemExit(
            f"error: {run_dir} is not a run directory (no {DB_NAME}); run `empa bench --out {run_dir}` first"
        )
    return RunStore(run_dir)


def cmd_bench(args: argparse.Namespace) -> int:
    config = BenchConfig(
        env=EnvConfig(
            actor=args.actor,
            director=args.director,
            judger=args.judger,
            preset=args.preset,
            max_turns=args.max_turns,
            reward=args.reward,
            llm_options=_llm_options(args),
        ),
        suite=args.suite,
        seeds=args.seeds,
        nee_judges=list(args.nee_judge or []),
    )
    policies = args.policy or default_policies()
    try:
        summary = asyncio.run(
            run_benchmark(
                config, policies, args.out, concurrency=args.concurrency, progress=not args.quiet
            )
        )
    except (ConfigMismatchError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(summary)
    status = 0 if summary.ok else 1  # failed or invalid episodes: the run is not a clean result
    if not args.no_report:
        report = cmd_report(argparse.Namespace(run_dir=args.out, report_dir=None, quiet=args.quiet))
        return max(status, report)
    return status


def cmd_report(args: argparse.Namespace) -> int:
    from benchmarks.export import export_jsonl, export_parquet
    from benchmarks.report.build import build_report

    run_dirs = args.run_dir if isinstance(args.run_dir, list) else [args.run_dir]
    if len(run_dirs) > 1:
        return _report_several(run_dirs, args.report_dir)
    run_dir = Path(run_dirs[0])
    with _open_store(run_dir) as store:
        episodes = store.episodes_frame()
        if episodes.empty:
            print(f"error: no finished episodes in {run_dir}", file=sys.stderr)
            return 1
        out = Path(args.report_dir) if args.report_dir else run_dir / "report"
        invalid = int(episodes["invalid"].astype(bool).sum()) if "invalid" in episodes else 0
        info = {"run_dir": str(run_dir), **store.run_info(), "errors": len(store.errors())}
        info["invalid episodes"] = invalid
        export_jsonl(store, run_dir / "episodes.jsonl")
        export_parquet(store, run_dir)
        try:
            html = build_report(episodes, store.trajectories(), out, run_info=info)
        except ValueError as exc:  # nothing rankable: every episode invalid
            print(f"error: {exc}", file=sys.stderr)
            return 1
    print(
        f"report: {html}\nmarkdown: {out / 'report.md'}\nexports: {run_dir / 'episodes.jsonl'}, {run_dir / 'episodes.parquet'}"
    )
    if invalid:
        print(f"{invalid} invalid episode(s): shown, not ranked; rerun to play them again")
        return 1
    return 0


def _report_several(run_dirs: list[Path], out: Path | None) -> int:
    """One report for several runs, side by side (see :mod:`benchmarks.report.multi`)."""
    from benchmarks.report.build import build_report
    from benchmarks.report.multi import load_runs

    if out is None:
        print("error: give --out DIR for a report of several runs", file=sys.stderr)
        return 2
    for run_dir in run_dirs:
        _open_store(Path(run_dir)).close()  # a clear message for a directory that is not a run
    try:
        runs = load_runs(run_dirs)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    info = {
        f"run {label}": ", ".join(f"{k} {v}" for k, v in facts.items())
        for label, facts in runs.runs.items()
    }
    info["comparability"] = runs.note
    html = build_report(
        runs.episodes,
        runs.trajectories,
        Path(out),
        title=f"EMPA benchmark report: {len(run_dirs)} runs",
        run_info=info,
        groups=runs.groups,
        groups_note=runs.note,
    )
    print(f"report: {html}\nmarkdown: {Path(out) / 'report.md'}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from benchmarks.export import export_jsonl, export_parquet

    run_dir = Path(args.run_dir)
    with _open_store(run_dir) as store:
        written = []
        if args.format in ("jsonl", "all"):
            written.append(export_jsonl(store, run_dir / "episodes.jsonl"))
        if args.format in ("parquet", "all"):
            written.extend(export_parquet(store, run_dir))
    print("\n".join(str(p) for p in written))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    bench = subparsers.add_parser(
        "bench",
        help="run policies on a case suite and write a report",
        description="Run every (policy, case, seed) episode, commit each to RUN_DIR/results.sqlite, "
        "then write the report. Rerunning the same command resumes where it stopped.",
    )
    bench.add_argument(
        "--policy",
        action="append",
        metavar="SPEC",
        help="scripted:NAME | python:MODULE:FUNC | python:FILE.py:FUNC | litellm:MODEL | hf:PATH "
        "(repeatable; NAME=SPEC renames). Default: every scripted baseline and probe.",
    )
    bench.add_argument("--suite", default="empa30-v1", help="case suite id (default: %(default)s)")
    bench.add_argument(
        "--seeds", type=int, default=1, help="episodes per policy and case (default: %(default)s)"
    )
    bench.add_argument(
        "--out",
        type=Path,
        default=Path("runs/offline-baselines"),
        help="run directory (default: %(default)s)",
    )
    bench.add_argument(
        "--concurrency",
        type=int,
        default=32,
        help="episodes in flight at once (default: %(default)s)",
    )
    for role in ("actor", "director", "judger"):
        bench.add_argument(
            f"--{role}",
            default="offline",
            metavar="BACKEND",
            help=f"{role} backend: offline | llm:MODEL (default: %(default)s)",
        )
    bench.add_argument(
        "--preset", default="official", choices=["official", "paper"], help="EPM preset"
    )
    bench.add_argument("--max-turns", type=int, default=None, help="override the preset's 45 turns")
    bench.add_argument("--reward", default="idr", help="per-turn reward recorded in trajectories")
    bench.add_argument(
        "--api-base", default=None, help="OpenAI-compatible base URL for llm:/litellm: models"
    )
    bench.add_argument(
        "--llm-cache", type=Path, default=None, help="SQLite response cache for LLM calls"
    )
    bench.add_argument(
        "--llm-timeout", type=float, default=None, help="per-call timeout in seconds"
    )
    bench.add_argument(
        "--llm-option", action="append", metavar="KEY=VALUE", help="further LLM options"
    )
    bench.add_argument(
        "--nee-judge",
        action="append",
        metavar="MODEL",
        help="LiteLLM model of the NEE panel (repeatable); adds NEE and FCS to the results",
    )
    bench.add_argument(
        "--no-report", action="store_true", help="do not write the report at the end"
    )
    bench.add_argument("--quiet", action="store_true", help="no progress bar")
    bench.set_defaults(func=cmd_bench)

    report = subparsers.add_parser(
        "report",
        help="write the report of one run directory, or of several side by side",
        description="One RUN_DIR: its report (default RUN_DIR/report) and exports. Several: one "
        "report with their models side by side (names disambiguated by run where they clash), "
        "significance tests only between comparable runs (same suite, roles and preset); "
        "--out is then required.",
    )
    report.add_argument("run_dir", type=Path, nargs="+", metavar="RUN_DIR")
    report.add_argument(
        "--out",
        "--report-dir",
        dest="report_dir",
        type=Path,
        default=None,
        help="report folder (default for one run: RUN_DIR/report)",
    )
    report.add_argument("--quiet", action="store_true")
    report.set_defaults(func=cmd_report)

    export = subparsers.add_parser("export", help="export a run's episodes to JSONL and Parquet")
    export.add_argument("run_dir", type=Path)
    export.add_argument("--format", choices=["jsonl", "parquet", "all"], default="all")
    export.set_defaults(func=cmd_export)
