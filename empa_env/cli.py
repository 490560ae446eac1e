"""The ``empa`` command line.

Subcommands are contributed by the installed packages through the ``empa.commands`` entry-point
group (see ``pyproject.toml``): each entry point is a ``register(subparsers)`` function that adds
its parser and sets ``func`` (``args -> exit code``). This keeps the package dependencies one-way:
``empa_env`` never imports ``benchmarks`` or ``baselines``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="empa",
        description="empa-gym: empathetic multi-turn conversation as an RL environment and benchmark.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for ep in sorted(entry_points(group="empa.commands"), key=lambda e: e.name):
        try:
            register = ep.load()
        except Exception as exc:  # a broken plugin must not take the other commands down
            _register_broken(subparsers, ep.name, exc)
            continue
        register(subparsers)
    return parser


def _register_broken(subparsers: argparse._SubParsersAction, name: str, exc: Exception) -> None:
    message = f"the '{name}' commands could not be loaded: {type(exc).__name__}: {exc}"
    broken = subparsers.add_parser(name, help=f"(unavailable: {type(exc).__name__})")
    broken.add_argument("rest", nargs=argparse.REMAINDER)

    def fail(_args: argparse.Namespace) -> int:
        print(f"error: {message}", file=sys.stderr)
        return 1

    broken.set_defaults(func=fail)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``empa`` command in this process (safe to call from tests and notebooks)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


def console() -> None:
    """The ``empa`` executable: like :func:`main`, and ``empa ... | head`` ends quietly."""
    # The process starts here: LiteLLM must not fetch its price list from the network.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())


if __name__ == "__main__":
    console()
