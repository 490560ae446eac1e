"""Text from replies, cases, imports and names made safe for where it is shown, and name checks.

Replies, case texts and imported ids are data written by models and strangers: they reach a
terminal (``empa show``, the leaderboard), Markdown (``report.md``) and spreadsheets
(``tables/*.csv``). Each place gets its own escaping here:

* :func:`terminal_safe`: control characters (ANSI escape sequences that clear the screen or set
  the title, carriage returns that overwrite a line, bidirectional overrides) shown as visible
  ``\\x1b``-style escapes; newlines kept or escaped (``single_line``);
* :func:`markdown_safe`: no raw HTML, links or code spans from the text, no table breaks;
* :func:`csv_cell_safe`: a cell a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``,
  tab, carriage return first) starts with ``'``, as OWASP recommends.

:func:`check_name` is the rule for names a person chooses (policy names): printable, one line,
no ``|`` (the episode key's separator), at most :data:`MAX_NAME_CHARS` characters.
"""

from __future__ import annotations

import re
import unicodedata

from empa_env.errors import UserError

MAX_NAME_CHARS = 200
#: C0 and C1 controls, DEL, and the bidirectional embedding/override/isolate marks.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROL_OR_NEWLINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code == 0x0A:
        return "\\n"
    if code == 0x09:
        return "\\t"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: object, *, single_line: bool = False) -> str:
    """``text`` with every control character shown as a visible escape (``\\x1b``); newlines and
    tabs are kept unless ``single_line`` (then ``\\n`` and ``\\t`` too)."""
    pattern = _CONTROL_OR_NEWLINE if single_line else _CONTROL
    return pattern.sub(_visible, str(text))


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


def check_name(name: str, what: str = "name") -> str:
    """``name`` if it is a usable name (see the module docstring), else a :class:`UserError`."""
    if not isinstance(name, str) or not name.strip():
        raise UserError(f"{what} {name!r} is empty")
    if len(name) > MAX_NAME_CHARS:
        raise UserError(f"{what} {name[:40]!r}... is longer than {MAX_NAME_CHARS} characters")
    bad = [ch for ch in name if unicodedata.category(ch)[0] in "CZ" and ch != " "]
    if bad or name != name.strip():
        raise UserError(
            f"{what} {name!r} holds control, line-break or edge whitespace characters; use "
            "letters, digits, spaces and punctuation"
        )
    if "|" in name:
        raise UserError(f"{what} {name!r} holds '|', which separates the parts of episode keys")
    return name


__all__ = ["MAX_NAME_CHARS", "check_name", "csv_cell_safe", "markdown_safe", "terminal_safe"]
