"""The ``empa`` command line.

Subcommands are contributed by the installed packages through the ``empa.commands`` entry-point
group (see ``pyproject.toml``): each entry point is a ``register(subparsers)`` function that adds
its parser and sets ``func`` (``args -> exit code``). This keeps the package dependencies one-way:
``empa_env`` never imports ``benchmarks`` or ``baselines``.
"""

from __future__ import annotations

import argparse
import difflib
import os
import signal
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any, NoReturn

from empa_env.errors import INTERRUPTED_EXIT, USER_ERROR_EXIT, ConfigError, UserError
from empa_env.safe_text import terminal_safe

# Keep this module light: ``empa --help`` imports it and every command's ``register`` function,
# so commands import their heavy dependencies inside the functions that run them.


class EmpaArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line ``error: ...`` (exit 2) like every other: no
    usage block before it (``--help`` shows it), an unknown option's nearest known one named."""

    def error(self, message: str) -> NoReturn:
        message = terminal_safe(message, single_line=True)
        self.exit(USER_ERROR_EXIT, f"error: {self.prog}: {message} (see {self.prog} --help)\n")

    def unknown_arguments(self, unknown: Sequence[str]) -> NoReturn:
        """Refuse ``unknown`` (what no parser took), naming the option each one that looks
        like an option probably meant (``--limt`` -> ``--limit``)."""
        known = {o.lstrip("-"): o for action in self._actions for o in action.option_strings}
        meant = {
            flag: known[close[0]]
            for flag in (a.partition("=")[0] for a in unknown if a.startswith("-"))
            if (close := difflib.get_close_matches(flag.lstrip("-"), known, n=1, cutoff=0.7))
        }
        if len(meant) == 1:
            hint = f"; did you mean {next(iter(meant.values()))}?"
        else:
            hint = "; did you mean " + ", ".join(f"{o} for {f}" for f, o in meant.items()) + "?"
        self.error(f"unrecognized arguments: {' '.join(unknown)}" + (hint if meant else ""))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("empa-gym")
    except PackageNotFoundError:  # running from a source tree
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = EmpaArgumentParser(
        prog="empa",
        description="empa-gym: empathetic multi-turn conversation as an RL environment and benchmark.",
        epilog="Every known error ends in one line `error: ...` on stderr with exit code 2; "
        "Ctrl-C exits with 130. `empa COMMAND --help` describes each command.",
    )
    parser.add_argument(
        "--version", action="version", version=f"empa-gym {_version()}", help="print the version"
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
    broken.add_argument("rest", nargs=argparse.REMAINDER, help="(ignored)")

    def fail(_args: argparse.Namespace) -> int:
        raise UserError(message)

    broken.set_defaults(func=fail)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``empa`` command in this process (safe to call from tests and notebooks).

    The one place that reports errors: a :class:`~empa_env.errors.UserError` (see
    :mod:`empa_env.errors` for the family) becomes ``error: MESSAGE`` on stderr and exit code 2;
    Ctrl-C becomes exit code 130. Anything else is a bug and keeps its traceback.
    """
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # reported by the (sub)command they were given to
        chosen = _chosen_parser(parser, args)
        if isinstance(chosen, EmpaArgumentParser):
            chosen.unknown_arguments(unknown)
        chosen.error(f"unrecognized arguments: {' '.join(unknown)}")
    if not getattr(args, "func", None):
        parser.print_help()
        return USER_ERROR_EXIT
    try:
        return int(args.func(args) or 0)
    except ConfigError as exc:  # worded by the flag the user typed
        print(error_line(UserError(exc.as_flag())), file=sys.stderr)
        return USER_ERROR_EXIT
    except UserError as exc:
        print(error_line(exc), file=sys.stderr)
        return USER_ERROR_EXIT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED_EXIT


def _chosen_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Any:
    """The parser of the (sub)command that ``args`` ran (``empa export``, ``empa cases generate``)."""
    current: Any = parser
    while True:
        sub = next((a for a in current._actions if isinstance(a, argparse._SubParsersAction)), None)
        name = getattr(args, sub.dest, None) if sub is not None else None
        if sub is None or not isinstance(name, str) or name not in sub.choices:
            return current
        current = sub.choices[name]


def error_line(exc: BaseException) -> str:
    """``error: ...`` for a user error; a message of several lines keeps its details before.
    Control and format characters (of a file name, a quoted value) are shown as escapes."""
    lines = [
        terminal_safe(line.rstrip(), single_line=True)
        for line in str(exc).splitlines()
        if line.strip()
    ] or [type(exc).__name__]
    if len(lines) == 1:
        return f"error: {lines[0]}"
    if len(lines) == 2:  # "3 problem(s):" + one detail: one line
        return f"error: {lines[0].rstrip(':')}: {lines[1].strip().removeprefix('- ')}"
    return "\n".join([*lines[1:], f"error: {lines[0]}"])


def console() -> None:
    """The ``empa`` executable: like :func:`main`, and ``empa ... | head`` ends quietly."""
    # The process starts here: LiteLLM must not fetch its price list from the network.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())


if __name__ == "__main__":
    console()
