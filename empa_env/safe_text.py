"""Text from replies, cases, imports and names made safe for where it is shown, and name checks.

Replies, case texts and imported ids are data written by models and strangers: they reach a
terminal (``empa show``, the leaderboard), Markdown (``report.md``) and spreadsheets
(``tables/*.csv``). Each place gets its own escaping here:

* :func:`terminal_safe`: control and format characters (ANSI escape sequences that clear the
  screen or set the title, carriage returns that overwrite a line, bidirectional overrides and
  marks, zero-width and invisible characters, line separators, lone surrogates) shown as visible
  ``\\x1b``-style escapes; newlines kept or escaped (``single_line``);
* :func:`markdown_safe`: no raw HTML, links or code spans from the text, no table breaks;
* :func:`csv_cell_safe`: a cell a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``,
  tab, carriage return first) starts with ``'``, as OWASP recommends.

:func:`check_name` is the rule for names a person chooses (policy names): printable, one line,
no ``|`` (the episode key's separator), at most :data:`MAX_NAME_CHARS` characters;
:func:`unprintable` is its character rule, which persona names follow too.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TextIO

from empa_env.errors import UserError

MAX_NAME_CHARS = 200
#: Every format (Cf), line and paragraph separator (Zl, Zp) and surrogate (Cs) code point, as of
#: Unicode 15.1: bidirectional overrides, isolates and marks, zero-width spaces and joiners,
#: invisible operators, the byte-order mark, tag characters. ``tests`` checks the list against
#: the running Python's Unicode database.
FORMAT_CHARACTERS = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
#: C0 and C1 controls but newline and tab, DEL, and the format characters.
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{FORMAT_CHARACTERS}]")
_CONTROL_OR_NEWLINE = re.compile(f"[\x00-\x1f\x7f-\x9f{FORMAT_CHARACTERS}]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code == 0x0A:
        return "\\n"
    if code == 0x09:
        return "\\t"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def terminal_safe(text: object, *, single_line: bool = False) -> str:
    """``text`` with every control character shown as a visible escape (``\\x1b``); newlines and
    tabs are kept unless ``single_line`` (then ``\\n`` and ``\\t`` too)."""
    pattern = _CONTROL_OR_NEWLINE if single_line else _CONTROL
    return pattern.sub(_visible, str(text))


def echo(text: object = "", *, end: str = "\n", file: TextIO | None = None) -> None:
    """``print(terminal_safe(text))``: what a command prints of data (case texts, replies,
    names, paths, error messages), with its control and format characters shown as escapes."""
    print(terminal_safe(text), end=end, file=file)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|#!])")


def markdown_safe(text: object) -> str:
    """``text`` for a Markdown paragraph or table cell: HTML characters as entities (no raw
    ``<script>``), Markdown punctuation backslash-escaped (no links, code spans or table breaks),
    control characters visible, one line."""
    out = terminal_safe(text, single_line=True)
    out = out.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", out)


def csv_cell_safe(value: object) -> object:
    """A text cell a spreadsheet would evaluate (``=``, ``+``, ``-``, ``@``, tab or CR first)
    prefixed with ``'``; other values (numbers, ``None``) unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def unprintable(text: str) -> list[str]:
    """The characters of ``text`` a name must not hold: controls, format characters, line
    breaks, separators and whitespace other than the plain space (Unicode categories C*, Z*)."""
    return [ch for ch in text if unicodedata.category(ch)[0] in "CZ" and ch != " "]


def check_name(name: str, what: str = "name") -> str:
    """``name`` if it is a usable name (see the module docstring), else a :class:`UserError`."""
    if not isinstance(name, str) or not name.strip():
        raise UserError(f"{what} {name!r} is empty")
    if len(name) > MAX_NAME_CHARS:
        raise UserError(f"{what} {name[:40]!r}... is longer than {MAX_NAME_CHARS} characters")
    if unprintable(name) or name != name.strip():
        raise UserError(
            f"{what} {name!r} holds control, line-break or edge whitespace characters; use "
            "letters, digits, spaces and punctuation"
        )
    if "|" in name:
        raise UserError(f"{what} {name!r} holds '|', which separates the parts of episode keys")
    return name


__all__ = [
    "FORMAT_CHARACTERS", "MAX_NAME_CHARS", "check_name", "csv_cell_safe", "echo", "markdown_safe",
    "terminal_safe", "unprintable",
]  # fmt: skip
