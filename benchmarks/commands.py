"""Light ``register`` functions for ``empa.commands`` entry points whose modules are heavy.

``empa --help`` imports every command's ``register``; these build the parser without importing
pandas or the epm aggregations, which load when the command runs.
"""

from __future__ import annotations

import argparse


def paper_tables(subparsers: argparse._SubParsersAction) -> None:
    """``empa paper-tables``: :mod:`benchmarks.paper_tables`."""
    parser = subparsers.add_parser(
        "paper-tables",
        help="reproduce Echo-N1 Tables 9 and 11 from Tables 8 and 10 with the epm code",
        description="Echo-N1 Tables 9 and 11 recomputed from the published Tables 8 and 10 "
        "with the epm code, compared cell by cell with the published values.",
    )
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")

    def run(args: argparse.Namespace) -> int:
        from benchmarks.paper_tables import run as run_tables

        return run_tables(args)

    parser.set_defaults(func=run)
