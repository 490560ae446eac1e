"""``empa import official PATH --out RUN_DIR``: published official EMPA results as a run store."""

from __future__ import annotations

import argparse
from pathlib import Path

from empa_env.errors import UserError


def cmd_import_official(args: argparse.Namespace) -> int:
    from benchmarks.importers.official import import_official

    try:
        report = import_official(args.path, args.out, preset=args.preset)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    print(report)
    print(f"next: empa report {args.out}")
    return 1 if report.errors else 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "import",
        help="import another benchmark's published results as a run directory",
        description="Import published results into a run directory that `empa report` and "
        "`empa export` read like any run of your own.",
    )
    sources = parser.add_subparsers(dest="source", metavar="SOURCE", required=True)
    official = sources.add_parser(
        "official",
        help="the official EMPA benchmark (KAYA-HAI/EMPA-Benchmark-EPMSandbox, CC BY-NC 4.0)",
        description="Read a checkout of the official EMPA repository (or its results folder): "
        "one model per results/benchmark_runs/*/<model>/ folder, every script_NNN_result.json "
        "an episode with its transcript, judge levels, evidence, v_t, P_t and published ending. "
        "Metrics and EPM-Q are recomputed with epm. A file that cannot be read is reported "
        "with its reason (exit code 1); the others are imported.",
    )
    official.add_argument("path", type=Path, help="checkout of the official repository")
    official.add_argument("--out", type=Path, required=True, help="run directory to write")
    official.add_argument(
        "--preset",
        default="official",
        choices=["official", "paper"],
        help="EPM preset for the recomputed metrics (default: %(default)s)",
    )
    official.set_defaults(func=cmd_import_official)
