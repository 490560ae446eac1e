"""``empa bench``, ``empa report``, ``empa export`` and ``empa show``.

This module is imported by ``empa --help``: keep its top level light (argparse only) and import
the runner, the store, pandas and matplotlib inside the commands.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from empa_env.errors import INTERRUPTED_EXIT, UserError
from empa_env.runs import DB_NAME
from empa_env.safe_text import echo

if TYPE_CHECKING:
    from benchmarks.store import RunStore
    from empa_env.llm.options import LLMOptions

#: Where ``empa bench`` writes when ``--out`` is not given: one folder per command.
DEFAULT_RUNS_ROOT = Path("runs")


def default_policies() -> list[str]:
    """The policies ``empa bench`` runs when none is given: those the ``scripted`` kind names."""
    from empa_env.policy import policies as policy_kinds

    if "scripted" not in policy_kinds:
        return []
    return list(getattr(policy_kinds.get("scripted"), "defaults", ()))


def _llm_options(args: argparse.Namespace) -> LLMOptions:
    """The run's LLM options from ``--api-base``, ``--llm-cache``, ``--llm-timeout`` and
    ``--llm-option KEY=VALUE``, checked before the run starts: a bad name or value is one
    ``error:`` line, not a traceback from the first role that builds a client."""
    from empa_env.llm.options import LLMOptions

    options: dict[str, Any] = {}
    if args.api_base:
        options["api_base"] = args.api_base
    if args.llm_cache:
        options["cache_path"] = str(args.llm_cache)
    if args.llm_timeout:
        options["timeout"] = args.llm_timeout
    for item in args.llm_option or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UserError(f"--llm-option expects KEY=VALUE (e.g. temperature=0), got {item!r}")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    try:
        return LLMOptions(options)
    except (TypeError, ValueError) as exc:
        raise UserError(f"--llm-option: {exc}") from None


def _open_store(run_dir: Path) -> RunStore:
    from benchmarks.store import RunStore

    if not (run_dir / DB_NAME).exists():
        raise UserError(
            f"{run_dir} is not a run directory (no {DB_NAME}); run `empa bench --out {run_dir}` first"
        )
    return RunStore(run_dir, read_only=True)  # reading never writes: read-only runs work too


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def check_writable(out: Path) -> None:
    """Refuse an ``--out`` that cannot become a run directory, before anything is created."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a directory")
    probe = out
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise UserError(f"--out {out}: {probe} is a file, so the directory cannot be created")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise UserError(f"--out {out}: {probe} is not writable")
    if (out / DB_NAME).exists() and not os.access(out / DB_NAME, os.R_OK | os.W_OK):
        raise UserError(f"--out {out}: {out / DB_NAME} is not writable")


def default_out(args: argparse.Namespace, policies: list[str]) -> Path:
    """``runs/bench-<hash>``: one folder per command (policies, cases, roles, seeds, ...), so
    omitting ``--out`` never adds policies to an earlier run, and the same command resumes."""
    what = {
        "policies": policies,
        "suite": args.suite,
        "cases": str(Path(args.cases).resolve()) if args.cases else None,
        "case": args.case or [],
        "limit": args.limit,
        "seeds": args.seeds,
        "roles": [args.actor, args.director, args.judger],
        "preset": args.preset,
        "max_turns": args.max_turns,
        "reward": args.reward,
        "nee": args.nee_judge or [],
    }
    digest = hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:10]
    return DEFAULT_RUNS_ROOT / f"bench-{digest}"


def _check_max_turns(preset: str, max_turns: int | None) -> None:
    if max_turns is None:
        return
    from epm.config import get_preset

    try:
        get_preset(preset).with_overrides(max_turns=max_turns)
    except ValueError as exc:
        raise UserError(f"--max-turns {max_turns}: {exc}") from None


#: Below this many open files, concurrent LLM calls may run out (one per connection, plus the
#: libraries' own files); ``empa bench`` raises the soft limit to the hard one and warns below it.
MIN_OPEN_FILES = 256


def raise_open_file_limit(minimum: int = MIN_OPEN_FILES) -> str | None:
    """Raise this process's soft open-file limit to its hard limit; a one-line warning when it
    stays below ``minimum`` (``None`` otherwise)."""
    try:
        import resource
    except ImportError:  # not on this platform
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < minimum:
        return (
            f"warning: the open-file limit is {soft} (ulimit -n); concurrent LLM calls may fail "
            f"with 'Too many open files': raise it to {minimum} or more, or lower --concurrency"
        )
    return None


def cmd_bench(args: argparse.Namespace) -> int:
    # Every option is checked before the run directory is created or bound.
    _check_max_turns(args.preset, args.max_turns)
    warning = raise_open_file_limit()
    if warning:
        echo(warning, file=sys.stderr)
    llm_options = _llm_options(args)
    policies = args.policy or default_policies()
    if not policies:
        raise UserError("no policy given and no scripted baselines installed; use --policy SPEC")
    out = Path(args.out) if args.out is not None else default_out(args, policies)
    check_writable(out)
    import asyncio

    from benchmarks.config import BenchConfig
    from benchmarks.context import Execution, RunContext
    from benchmarks.runner import play_run
    from empa_env.config import EnvConfig

    try:
        env_config = EnvConfig(
            actor=args.actor,
            director=args.director,
            judger=args.judger,
            preset=args.preset,
            max_turns=args.max_turns,
            reward=args.reward,
            llm_options=llm_options,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    config = BenchConfig(
        env=env_config,
        suite=args.suite,
        seeds=args.seeds,
        nee_judges=list(args.nee_judge or []),
        max_identical_failures=args.max_identical_failures,
        max_judge_failure_share=args.max_judge_failure_share,
        max_role_failure_share=args.max_role_failure_share,
        preflight=not args.no_preflight,
        cases_dir=str(args.cases) if args.cases else None,
        case_ids=list(args.case or []),
        limit=args.limit,
    )
    # The whole run is resolved before its directory exists: an unknown suite, case or policy,
    # a missing extra or a bad executor address leaves nothing behind.
    execution = Execution(args.executor, args.concurrency, args.ray_address)
    context = RunContext.build(config, policies, execution=execution)
    try:
        summary = asyncio.run(play_run(context, out, progress=not args.quiet))
    except KeyboardInterrupt:
        saved = _saved_episodes(out)
        echo(
            f"interrupted: {saved} episodes saved; rerun the same command to resume",
            file=sys.stderr,
        )
        return INTERRUPTED_EXIT
    echo(summary)
    status = 0 if summary.ok else 1  # failed or invalid episodes: the run is not a clean result
    if not args.no_report:
        return max(status, report_runs([out]))
    _print_results(out)
    return status


def _saved_episodes(run_dir: Path) -> int:
    if not (run_dir / DB_NAME).exists():
        return 0
    from benchmarks.store import RunStore

    with RunStore(run_dir, read_only=True) as store:
        return store.count()


def _print_results(run_dir: Path) -> None:
    """Write ``RUN_DIR/results.json`` and print the leaderboard."""
    from benchmarks.results import leaderboard_text, store_results, write_results

    with _open_store(run_dir) as store:
        document, rows = store_results(store)
    path = write_results(run_dir, document)
    echo(leaderboard_text(rows))
    echo(f"results: {path}")


def cmd_report(args: argparse.Namespace) -> int:
    run_dirs = args.run_dir if isinstance(args.run_dir, list) else [args.run_dir]
    return report_runs([Path(d) for d in run_dirs], args.report_dir)


def report_runs(run_dirs: list[Path], report_dir: Path | None = None) -> int:
    """``empa report``: one run's report, results.json and exports (beside the run, or in
    ``report_dir``), or one report of several runs side by side (``report_dir`` required)."""
    from benchmarks.export import export_jsonl, export_parquet
    from benchmarks.report.build import build_report
    from benchmarks.report.header import run_header

    if len(run_dirs) > 1:
        return _report_several(run_dirs, report_dir)
    run_dir = Path(run_dirs[0])
    from benchmarks.results import (
        leaderboard_text,
        results_document,
        role_failure_text,
        schema_versions,
        write_results,
    )

    started, since = time.perf_counter(), time.time()
    with _open_store(run_dir) as store:
        out, data_dir = _report_places(run_dir, report_dir)
        episodes = store.episodes_frame()
        if episodes.empty:
            raise UserError(f"no finished episodes in {run_dir}")
        errors = store.errors()
        document = results_document(run_dir, store.config, episodes, errors, store.run_info())
        results = write_results(data_dir, document)
        invalid = int(episodes["invalid"].astype(bool).sum()) if "invalid" in episodes else 0
        stored = store.run_info()
        header = run_header(
            run_dir,
            store.config,
            stored,
            episodes,
            errors=len(errors),
            invalid=invalid,
            role_failures=role_failure_text(document["models"]),
            schemas=schema_versions(stored),
        )
        trajectories = store.trajectories()  # read and parsed once for the exports and report
        export_jsonl(store, data_dir / "episodes.jsonl", trajectories)
        export_parquet(store, data_dir, trajectories)
        echo(leaderboard_text(document["models"]))
        try:
            judge = store.config.get("env", {}).get("roles", {}).get("judger")
            html = build_report(
                episodes,
                trajectories,
                out,
                header=header,
                judge=judge,
                run_dir=run_dir,
                stored_digest=store.content_digest(),
            )
        except ValueError as exc:  # nothing rankable: every episode invalid
            echo(f"error: {exc}", file=sys.stderr)
            return 1
    seconds = time.perf_counter() - started
    echo(
        f"report: {html} ({_written(out, since, seconds)})\nmarkdown: {out / 'report.md'}\n"
        f"results: {results}\nexports: {data_dir / 'episodes.jsonl'}, {data_dir / 'episodes.parquet'}"
    )
    if invalid:
        echo(f"{invalid} invalid episode(s): shown, not ranked; rerun to play them again")
        return 1
    return 0


def _written(out: Path, since: float, seconds: float) -> str:
    """How the report came to be: drawn now, or kept (its inputs did not change)."""
    from benchmarks.report.digest import built_since

    if built_since(out, since):
        return f"written in {seconds:.1f} s"
    return "up to date: its inputs did not change since it was written, nothing redrawn"


def _report_places(run_dir: Path, report_dir: Path | None) -> tuple[Path, Path]:
    """``(report folder, folder of results.json and the exports)``: the run directory's own,
    or, when it cannot be written (a read-only copy), ``--out`` for all of them."""
    from empa_env.atomic import ensure_dir

    writable = os.access(run_dir, os.W_OK | os.X_OK)
    if report_dir is None and not writable:
        raise UserError(
            f"{run_dir} is read-only: give --out DIR to write its report, results.json and "
            "exports there"
        )
    out = ensure_dir(Path(report_dir) if report_dir else run_dir / "report")
    return out, (run_dir if writable else out)


def _report_several(run_dirs: list[Path], out: Path | None) -> int:
    """One report for several runs, side by side (see :mod:`benchmarks.report.multi`)."""
    from benchmarks.report.build import build_report
    from benchmarks.report.header import runs_header
    from benchmarks.report.multi import load_runs

    if out is None:
        raise UserError("give --out DIR for a report of several runs")
    for run_dir in run_dirs:
        _open_store(Path(run_dir)).close()  # a clear message for a directory that is not a run
    started, since = time.perf_counter(), time.time()
    try:
        runs = load_runs(run_dirs)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    html = build_report(
        runs.episodes,
        runs.trajectories,
        Path(out),
        title=f"EMPA benchmark report: {len(run_dirs)} runs",
        header=runs_header(runs.runs, runs.configs, runs.episodes, runs.note),
        groups=runs.groups,
        groups_note=runs.note,
        stored_digest=runs.stored_digest,
    )
    seconds = time.perf_counter() - started
    written = _written(Path(out), since, seconds)
    echo(f"report: {html} ({written})\nmarkdown: {Path(out) / 'report.md'}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from benchmarks.export import export_jsonl, export_parquet
    from empa_env.atomic import ensure_dir

    run_dir = Path(args.run_dir)
    with _open_store(run_dir) as store:
        out = ensure_dir(args.out) if getattr(args, "out", None) else run_dir
        written = []
        if args.format in ("jsonl", "all"):
            written.append(export_jsonl(store, out / "episodes.jsonl"))
        if args.format in ("parquet", "all"):
            written.extend(export_parquet(store, out))
    echo("\n".join(str(p) for p in written))
    return 0


def _reward_names() -> str:
    try:
        from empa_env.backends import rewards

        return " | ".join(rewards.names())
    except Exception:  # help text must never break the command line
        return "see empa_env.backends.rewards"


class _RewardAction(argparse._StoreAction):
    """``--reward``: its help lists the registered rewards, looked up only when help is shown
    (the registry imports the simulation, too slow for every ``empa`` start)."""

    @property  # type: ignore[override]
    def help(self) -> str:
        return f"per-turn reward recorded in trajectories: {_reward_names()} (default: %(default)s)"

    @help.setter
    def help(self, _value: str | None) -> None:  # argparse assigns it in __init__
        pass


def register(subparsers: argparse._SubParsersAction) -> None:
    """``empa bench``, ``report``, ``export`` and ``show`` (the ``empa.commands`` entry point)."""
    bench = subparsers.add_parser(
        "bench",
        help="run policies on a case suite and write a report",
        description="Run every (policy, case, seed) episode, commit each to RUN_DIR/results.sqlite, "
        "then print the leaderboard and write RUN_DIR/results.json and the report. Rerunning the "
        "same command resumes where it stopped; a different configuration in the same directory is "
        "refused. Without --out every distinct command gets its own folder runs/bench-<hash>, so "
        "a new policy never joins an earlier run unless you name that run's --out.",
    )
    _bench_run_options(bench)
    _bench_env_options(bench)
    _bench_llm_options(bench)
    _bench_output_options(bench)
    bench.set_defaults(func=cmd_bench)
    _add_report(subparsers)
    _add_export(subparsers)
    _add_show(subparsers)


def _bench_run_options(bench: argparse.ArgumentParser) -> None:
    """What runs where: policies, cases, seeds, the run directory and the executor."""
    bench.add_argument(
        "--policy",
        action="append",
        metavar="SPEC",
        help="scripted:NAME | python:MODULE:FUNC | python:FILE.py:FUNC | litellm:MODEL | hf:PATH "
        "(repeatable; NAME=SPEC renames). Default: every scripted baseline and probe.",
    )
    cases = bench.add_mutually_exclusive_group()
    cases.add_argument("--suite", default="empa30-v1", help="case suite id (default: %(default)s)")
    cases.add_argument(
        "--cases",
        type=Path,
        metavar="DIR",
        help="run a folder of case files instead of a suite (e.g. from `empa cases generate`)",
    )
    bench.add_argument(
        "--case",
        action="append",
        metavar="ID",
        help="run only this case (repeatable); recorded in the run's configuration",
    )
    bench.add_argument(
        "--limit",
        type=_positive_int,
        metavar="N",
        help="run only the first N cases (after --case); recorded in the run's configuration",
    )
    bench.add_argument(
        "--seeds",
        type=_positive_int,
        default=1,
        help="episodes per policy and case (default: %(default)s)",
    )
    bench.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="RUN_DIR",
        help="run directory; rerun with the same one to resume (default: runs/bench-<hash of "
        "the command>, a fresh folder per distinct command)",
    )
    bench.add_argument(
        "--concurrency",
        type=_positive_int,
        default=32,
        help="episodes in flight at once (default: %(default)s)",
    )
    from benchmarks.executors import executors

    bench.add_argument(
        "--executor",
        choices=executors.names(),
        default="local",
        help="where episodes are played: local (one asyncio loop in this process), ray (each "
        "episode a Ray task; needs the ray extra) or another registered executor; results are "
        "the same (default: %(default)s)",
    )
    bench.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="with --executor ray: the cluster's address (HOST:PORT printed by `ray start "
        "--head`, or auto); default RAY_ADDRESS, else a private local Ray instance",
    )


def _bench_env_options(bench: argparse.ArgumentParser) -> None:
    """The environment: its roles, the EPM preset, the turn limit and the reward."""
    for role in ("actor", "director", "judger"):
        bench.add_argument(
            f"--{role}",
            default="offline",
            metavar="BACKEND",
            help=f"{role} backend: offline | llm:MODEL | python:FILE.py:CLASS (default: %(default)s)",
        )
    bench.add_argument(
        "--preset",
        default="official",
        choices=["official", "paper"],
        help="EPM preset: official (the published leaderboard) or paper (default: %(default)s)",
    )
    bench.add_argument(
        "--max-turns",
        type=_positive_int,
        default=None,
        metavar="N",
        help="override the preset's 45 turns (at least the preset's min_turns, 12)",
    )
    bench.add_argument(
        "--reward",
        default="idr",
        metavar="NAME",
        action=_RewardAction,
    )


def _bench_llm_options(bench: argparse.ArgumentParser) -> None:
    """LLM settings of the LLM roles and policies, and the NEE panel."""
    bench.add_argument(
        "--api-base",
        default=None,
        metavar="URL",
        help="OpenAI-compatible base URL for llm:/litellm: models (e.g. http://127.0.0.1:8080/v1)",
    )
    bench.add_argument(
        "--llm-cache",
        type=Path,
        default=None,
        metavar="FILE",
        help="SQLite response cache for LLM calls",
    )
    bench.add_argument(
        "--llm-timeout",
        type=_positive_float,
        default=None,
        metavar="SECONDS",
        help="per-call timeout in seconds",
    )
    bench.add_argument(
        "--llm-option",
        action="append",
        metavar="KEY=VALUE",
        help="further LLM option, VALUE parsed as JSON when it can be (repeatable), e.g. "
        "temperature=0, max_tokens=256, num_retries=2",
    )
    bench.add_argument(
        "--nee-judge",
        action="append",
        metavar="MODEL",
        help="LiteLLM model of the NEE panel (repeatable); adds NEE and FCS to the results",
    )


def _bench_output_options(bench: argparse.ArgumentParser) -> None:
    """When a run stops or marks episodes invalid, and what it prints and writes."""
    bench.add_argument(
        "--max-identical-failures",
        type=int,
        default=5,
        metavar="N",
        help="stop the run when N episodes in a row fail with the same error (0: never; "
        "default 5); what finished is saved and a rerun resumes",
    )
    bench.add_argument(
        "--max-judge-failure-share",
        type=float,
        default=0.2,
        metavar="X",
        help="an episode whose share of failed judgements exceeds X is invalid: shown, never "
        "ranked, played again by a rerun (default 0.2)",
    )
    bench.add_argument(
        "--max-role-failure-share",
        type=float,
        default=0.2,
        metavar="X",
        help="the same for the Director and the Actor: an episode where more than X of the "
        "Director's decisions or of the Actor's messages were fallbacks for a failed call is "
        "invalid (default 0.2)",
    )
    bench.add_argument(
        "--no-preflight",
        action="store_true",
        help="skip the one short call per LLM role, policy and NEE judge made before the run",
    )
    bench.add_argument(
        "--no-report",
        action="store_true",
        help="do not write the HTML report at the end (the leaderboard and results.json still are)",
    )
    bench.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_report(subparsers: argparse._SubParsersAction) -> None:
    """``empa report``."""
    report = subparsers.add_parser(
        "report",
        help="write the report of one run directory, or of several side by side",
        description="One RUN_DIR: print its leaderboard, write RUN_DIR/results.json, its report "
        "(default RUN_DIR/report) and exports. Several: one report with their models side by "
        "side (names disambiguated by run where they clash), significance tests only between "
        "comparable runs (same suite, roles and preset); --out is then required.",
    )
    report.add_argument(
        "run_dir", type=Path, nargs="+", metavar="RUN_DIR", help="run directory (or several)"
    )
    report.add_argument(
        "--out",
        "--report-dir",
        dest="report_dir",
        type=Path,
        default=None,
        help="report folder (default for one run: RUN_DIR/report)",
    )
    report.add_argument("--quiet", action="store_true", help="print less")
    report.set_defaults(func=cmd_report)


def _add_export(subparsers: argparse._SubParsersAction) -> None:
    """``empa export``."""
    export = subparsers.add_parser(
        "export",
        help="export a run's episodes to JSONL and Parquet",
        description="Write RUN_DIR/episodes.jsonl and/or episodes.parquet + turns.parquet.",
    )
    export.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="run directory")
    export.add_argument(
        "--format",
        choices=["jsonl", "parquet", "all"],
        default="all",
        help="which files to write (default: %(default)s)",
    )
    export.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder to write the files to (default: RUN_DIR; give one for a read-only run)",
    )
    export.set_defaults(func=cmd_export)


def _add_show(subparsers: argparse._SubParsersAction) -> None:
    """``empa show``."""
    show = subparsers.add_parser(
        "show",
        help="print an episode's transcript: levels, quoted evidence, v_t and the position",
        description="Print transcripts of a run directory (yours or an imported official run): "
        "in conversation order: the user's opening message, then every turn's reply, the judge's "
        "levels with the quoted evidence highlighted (bold on a terminal), v_t and P_t, and the "
        "user's answer. Without filters: the first episode.",
    )
    show.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="run directory")
    show.add_argument("--model", metavar="M", help="only this model (policy name)")
    show.add_argument("--case", metavar="C", help="only this case id")
    show.add_argument("--seed", type=int, metavar="S", help="only this seed")
    show.add_argument(
        "--all", action="store_true", help="every matching episode (default: the first)"
    )
    show.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        default="auto",
        help="highlight evidence with ANSI bold: auto = when stdout is a terminal (default: auto)",
    )
    show.set_defaults(func=cmd_show)


def cmd_show(args: argparse.Namespace) -> int:
    from benchmarks.transcript import format_episode, select_episodes

    with _open_store(Path(args.run_dir)) as store:
        rows = select_episodes(store, model=args.model, case=args.case, seed=args.seed)
    if not rows:
        raise UserError(
            f"no finished episode in {args.run_dir} matches"
            + "".join(
                f" --{k} {v}"
                for k, v in (("model", args.model), ("case", args.case), ("seed", args.seed))
                if v is not None
            )
        )
    bold = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    chosen = rows if args.all else rows[:1]
    print("\n\n".join(format_episode(r, bold=bold) for r in chosen))
    if len(rows) > len(chosen):
        echo(f"\n({len(rows) - 1} more matching episode(s); --all prints them)")
    return 0
