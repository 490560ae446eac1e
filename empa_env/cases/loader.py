"""Loading and validating case files (YAML or JSON, one case per file)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from empa_env.cases.schema import Case
from empa_env.errors import UserError
from empa_env.safe_text import FORMAT_CHARACTERS

CASE_SUFFIXES: tuple[str, ...] = (".yaml", ".yml", ".json")
# libyaml's C loader and dumper when available (same results, about ten times faster).
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass(frozen=True)
class CaseIssue:
    """One problem in one file: where, which field, what was expected."""

    path: str
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}: {self.field}" if self.field else self.path
        return f"{where}: {self.message}"


class CaseError(UserError, ValueError):
    """A case (or a directory of cases) failed validation; ``issues`` lists every problem."""

    def __init__(self, issues: Iterable[CaseIssue]) -> None:
        self.issues = list(issues)
        files = sorted({i.path for i in self.issues})
        head = f"{len(self.issues)} problem(s) in {len(files)} case file(s):"
        super().__init__("\n".join([head, *(f"  - {i}" for i in self.issues)]))


def _field_path(loc: tuple[object, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts)


def _explain(err: dict) -> str:
    kind = err.get("type", "")
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field (not part of the case format)"
    got = err.get("input")
    shown = repr(got) if not isinstance(got, (dict, list)) else type(got).__name__
    if kind in ("tuple_type", "list_type"):
        return f"expected a list (got {shown})"
    if kind == "value_error":  # our own validators: the message already says what was expected
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        return msg if isinstance(got, (dict, list)) else f"{msg} (got {shown})"
    return f"{err.get('msg', 'invalid value')} (got {shown})"


def issues_from_validation(path: str, exc: ValidationError) -> list[CaseIssue]:
    return [CaseIssue(path, _field_path(tuple(e["loc"])), _explain(dict(e))) for e in exc.errors()]


def parse_case(data: object, source: str = "<data>") -> Case:
    """Validate already-parsed data; raises :class:`CaseError` naming ``source`` and each field."""
    if not isinstance(data, dict):
        raise CaseError(
            [
                CaseIssue(
                    source, "", f"expected a mapping at the top level, got {type(data).__name__}"
                )
            ]
        )
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        raise CaseError(issues_from_validation(source, exc)) from None
    except RecursionError:
        raise CaseError([CaseIssue(source, "", _TOO_DEEP)]) from None


#: A case is a few levels deep; a file nested thousands of levels is not one (and would exhaust
#: Python's recursion limit in the parser or the validation).
_TOO_DEEP = "nested too deeply to be a case (lists or mappings thousands of levels deep)"


def read_case_file(path: str | Path) -> object:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseError([CaseIssue(str(path), "", f"cannot read file: {exc}")]) from None
    try:
        return json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=YAML_LOADER)
    except (yaml.YAMLError, ValueError) as exc:
        # ValueError: a JSON syntax error, and what a parser's own conversions raise (an integer
        # of more than 4,300 digits, a date that does not exist), e.g. "Exceeds the limit (4300
        # digits) for integer string conversion; use sys.set_int_max_str_digits() ...": the
        # advice after ';' is for programmers, the reason before it names the problem.
        reason = str(exc) if isinstance(exc, yaml.YAMLError) else str(exc).split(";")[0]
        raise CaseError(
            [CaseIssue(str(path), "", f"not valid {path.suffix[1:].upper()}: {reason}")]
        ) from None
    except RecursionError:
        raise CaseError([CaseIssue(str(path), "", _TOO_DEEP)]) from None


def load_case(path: str | Path) -> Case:
    """Load one case file; errors name the file, the field and what was expected."""
    return parse_case(read_case_file(path), str(path))


def case_files(directory: str | Path) -> list[Path]:
    directory = Path(directory)
    if not directory.is_dir():
        raise CaseError([CaseIssue(str(directory), "", "not a directory")])
    return sorted(p for p in directory.iterdir() if p.suffix in CASE_SUFFIXES and p.is_file())


def load_directory(directory: str | Path) -> list[Case]:
    """Load every case in a directory; validates all files and reports every bad one at once.

    Duplicate ids across files are an error too.
    """
    cases: list[Case] = []
    issues: list[CaseIssue] = []
    seen: dict[str, str] = {}
    for path in case_files(directory):
        try:
            case = load_case(path)
        except CaseError as exc:
            issues.extend(exc.issues)
            continue
        if case.id in seen:
            issues.append(
                CaseIssue(str(path), "id", f"duplicate id {case.id!r} (also in {seen[case.id]})")
            )
            continue
        seen[case.id] = str(path)
        cases.append(case)
    if issues:
        raise CaseError(issues)
    return cases


#: Characters a written or shown case never holds raw: controls and format characters (a
#: right-to-left override reorders what a terminal shows, a zero-width space hides a word).
_HIDDEN = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{FORMAT_CHARACTERS}]")


class _CaseDumper(YAML_DUMPER):  # type: ignore[valid-type,misc]
    """The YAML dumper of cases: a string holding a hidden character is double-quoted, the one
    style whose escapes (``\\u202e``) YAML reads back as the character."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = '"' if _HIDDEN.search(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_CaseDumper.add_representer(str, _represent_str)


def _yaml_escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def dump_case(case: Case) -> str:
    """The case as YAML, in the field order of the format (round-trips through :func:`parse_case`).

    No control or format character is written raw (they are YAML escapes in double-quoted
    strings), so the text is as safe to print to a terminal as to save."""
    data = case.model_dump(mode="json", by_alias=True)
    if not data.get("llm_roles_only"):  # only LLM-only cases carry the marker
        data.pop("llm_roles_only", None)
    text = yaml.dump(data, Dumper=_CaseDumper, sort_keys=False, allow_unicode=True, width=100)
    # libyaml escapes controls itself but writes format characters raw, even double-quoted; a
    # hidden character can only be inside a double-quoted string here, where \\uXXXX reads back
    return _HIDDEN.sub(_yaml_escape, text)
