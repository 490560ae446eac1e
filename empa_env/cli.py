"""The ``empa`` command line.

Subcommands are contributed by the installed packages through the ``empa.commands`` entry-point
group (see ``pyproject.toml``): each entry point is a ``register(subparsers)`` function that adds
its parser and sets ``func`` (``args -> exit code``). This keeps the package dependencies one-way:
``empa_env`` never imports ``benchmarks`` or ``baselines``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="empa",
        description="empa-gym: empathetic multi-turn conversation as an RL environment and benchmark.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for ep in sorted(entry_points(group="empa.commands"), key=lambda e: e.name):
        ep.load()(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
