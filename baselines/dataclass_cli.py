"""Command-line parsers generated from configuration dataclasses (the ``HfArgumentParser`` idea).

Every ``init`` field of the given dataclasses becomes a flag: ``learning_rate`` is
``--learning-rate``, its type sets the parsing (``bool`` flags take an optional value, so
``--no-save`` and ``--no-save false`` both work; ``Literal`` and ``Enum`` fields get choices;
``list`` fields take several values; ``dict`` fields take JSON), and its help is the field's
``metadata["help"]`` with the default appended. A field whose type is itself a dataclass is
flattened (its fields become flags of their own). ``--config FILE`` reads a YAML or JSON mapping
of the same names (dashes or underscores; a nested dataclass also as a sub-mapping).

Precedence, highest first: a flag given on the command line, the config file, the command's own
default overrides, the dataclass default. Flags are parsed with a sentinel default, so a flag
given explicitly wins over the file even when its value equals the default.

    parser = DataclassParser(SFTRunConfig, RunOptions, prog="empa train sft")
    config, options = parser.parse(argv)
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union

import yaml

from empa_env.errors import ConfigError


class _Unset:
    """The default of every generated flag: tells "not given" from "given with the default"."""

    def __repr__(self) -> str:
        return "<unset>"


UNSET: Any = _Unset()


# ConfigError: empa_env.errors's, one type for every invalid configuration


@dataclass(frozen=True)
class Option:
    """One generated flag: the field it fills (``path`` from the top dataclass) and its parsing."""

    dest: str
    path: tuple[str, ...]
    owner: type
    flags: tuple[str, ...]
    convert: Callable[[str], Any]
    many: bool
    default: Any
    help: str


def _bool(text: str | bool) -> bool:
    if isinstance(text, bool):
        return text
    lowered = text.strip().lower()
    if lowered in {"1", "true", "yes", "y", "on"}:
        return True
    if lowered in {"0", "false", "no", "n", "off"}:
        return False
    raise argparse.ArgumentTypeError(f"expected a boolean (true/false), got {text!r}")


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value


def _loose(members: Sequence[Any]) -> Callable[[str], Any]:
    """For unions such as ``str | bool`` or ``dict | str``: JSON when it parses to one of the
    member types, else the text itself (when ``str`` is a member)."""

    accepted: list[type] = []
    for m in members:
        origin = typing.get_origin(m) or m
        if origin is Literal:
            accepted += [type(v) for v in typing.get_args(m)]
        elif isinstance(origin, type):
            accepted.append(origin)

    def convert(text: str) -> Any:
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        if type(value) in accepted or (isinstance(value, int) and float in accepted):
            return value
        if str in accepted:
            return text
        raise argparse.ArgumentTypeError(f"cannot read {text!r} as {' | '.join(map(str, members))}")

    return convert


def _parsing(tp: Any) -> dict[str, Any] | None:
    """argparse keyword arguments for a field type (``None``: not settable from text)."""
    origin = typing.get_origin(tp)
    members = (
        [a for a in typing.get_args(tp) if a is not type(None)]
        if origin in (Union, types.UnionType)
        else [tp]
    )
    lists = [m for m in members if typing.get_origin(m) in (list, tuple) or m in (list, tuple)]
    if lists:
        element = (typing.get_args(lists[0]) or (str,))[0]
        inner = _parsing(element) if element is not Ellipsis else None
        return {"nargs": "+", "type": (inner or {}).get("type", str)}
    if len(members) == 1:
        m = members[0]
        if m is bool:
            return {"type": _bool, "nargs": "?", "const": True, "metavar": "BOOL"}
        if m in (int, float, str):
            return {"type": m}
        if typing.get_origin(m) is Literal:
            values = typing.get_args(m)
            return {"type": type(values[0]), "choices": list(values)}
        if isinstance(m, type) and issubclass(m, enum.Enum):
            return {"type": str, "choices": [e.value for e in m]}
        if m is dict or typing.get_origin(m) is dict:
            return {"type": _json_object, "metavar": "JSON"}
        if m is Any:
            return {"type": _loose([str, dict, list, int, float, bool])}
        return None
    if all(m is str or (isinstance(m, type) and issubclass(m, enum.Enum)) for m in members):
        return {"type": str}
    if any(typing.get_origin(m) is dict or m is dict for m in members):
        return {"type": _loose(members), "metavar": "JSON|TEXT"}
    return {"type": _loose(members)}


def _plain(text: str) -> str:
    """Docstring text without reStructuredText roles and literals (for ``--help``)."""
    return re.sub(r":\w+:`~?([^`]+)`", r"\1", text).replace("``", "")


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def _show(value: Any) -> str:
    if value is dataclasses.MISSING:
        return "required"
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, dict):
        return f"default: {json.dumps(value)}"
    return f"default: {value}"


class DataclassParser:
    """An ``argparse`` parser whose flags are generated from dataclasses (see the module doc).

    Args:
        dataclass_types: the configuration dataclasses, in the order :meth:`parse` returns them.
        prog, description: as for ``argparse.ArgumentParser``.
        defaults: default overrides by field name (the command's own defaults).
        aliases: extra flags by field name, e.g. ``{"num_train_epochs": ["--epochs"]}``.

    Attributes:
        parser: the ``argparse.ArgumentParser``.
        options: the generated :class:`Option` per field name.
        skipped: fields whose type cannot be given as text (settable only in Python).
    """

    def __init__(
        self,
        *dataclass_types: type,
        prog: str | None = None,
        description: str | None = None,
        defaults: Mapping[str, Any] | None = None,
        aliases: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.dataclass_types = dataclass_types
        self.defaults = dict(defaults or {})
        self.aliases = {k: list(v) for k, v in (aliases or {}).items()}
        self.parser = argparse.ArgumentParser(
            prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        self.parser.add_argument(
            "--config",
            metavar="FILE",
            help="YAML or JSON mapping of any of these options (flags given here win over it)",
        )
        self.options: dict[str, Option] = {}
        self.skipped: list[str] = []
        for cls in dataclass_types:
            doc = (cls.__doc__ or "").strip().splitlines()
            group = self.parser.add_argument_group(cls.__name__, _plain(doc[0]) if doc else None)
            self._add_fields(group, cls, ())
        unknown = (set(self.defaults) | set(self.aliases)) - set(self.options)
        if unknown:
            raise ConfigError(f"defaults/aliases for unknown options: {sorted(unknown)}")

    def _add_fields(self, group: Any, cls: type, prefix: tuple[str, ...]) -> None:
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            tp = hints[f.name]
            if dataclasses.is_dataclass(tp) and isinstance(tp, type):
                self._add_fields(group, tp, (*prefix, f.name))
                continue
            kwargs = _parsing(tp)
            if kwargs is None:
                self.skipped.append(f.name)
                continue
            if f.name in self.options or f.name == "config":
                raise ConfigError(f"two options named {f.name!r} ({cls.__name__})")
            default = self.defaults.get(f.name, _default(f))
            text = str(f.metadata.get("help", "")).strip()
            help_text = f"{text} ({_show(default)})" if text else ""
            flags = (f"--{f.name.replace('_', '-')}", *self.aliases.get(f.name, []))
            group.add_argument(
                *flags, dest=f.name, default=UNSET, help=help_text.replace("%", "%%"), **kwargs
            )
            self.options[f.name] = Option(
                dest=f.name, path=(*prefix, f.name), owner=cls, flags=flags,
                convert=kwargs["type"], many=kwargs.get("nargs") == "+", default=default,
                help=help_text,
            )  # fmt: skip

    # --- values ----------------------------------------------------------------------------------
    def _key(self, name: str) -> str | None:
        key = name.lstrip("-").replace("-", "_")
        if key in self.options:
            return key
        for dest, option in self.options.items():
            if f"--{name.lstrip('-')}" in option.flags:
                return dest
        return None

    def _from_file(self, path: str) -> dict[str, Any]:
        try:
            text = Path(path).read_text(encoding="utf-8")
            data = yaml.safe_load(text) if path.endswith((".yaml", ".yml")) else json.loads(text)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            raise ConfigError(f"{path}: {exc}") from None
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: the config must be a mapping")
        return self.file_values(data, source=path)

    def file_values(self, data: Mapping[str, Any], source: str = "config") -> dict[str, Any]:
        """Config-file values by option name, converted like their flags; sub-mappings under a
        nested dataclass's field name are flattened. Unknown names raise :class:`ConfigError`."""
        nested = {o.path[-2] for o in self.options.values() if len(o.path) > 1}
        out: dict[str, Any] = {}
        for name, value in data.items():
            plain = str(name).replace("-", "_")
            if plain in nested and isinstance(value, dict):
                out.update(self.file_values(value, source))
                continue
            key = self._key(str(name))
            if key is None:
                raise ConfigError(f"unknown option {name!r} in {source}")
            out[key] = self._convert(self.options[key], value, source)
        return out

    @staticmethod
    def _convert(option: Option, value: Any, source: str) -> Any:
        def one(v: Any) -> Any:
            if isinstance(v, str) and option.convert is not str:
                try:
                    return option.convert(v)
                except (argparse.ArgumentTypeError, ValueError) as exc:
                    raise ConfigError(f"{option.dest} in {source}: {exc}") from None
            return v

        if option.many and isinstance(value, list):
            return [one(v) for v in value]
        if option.many and isinstance(value, str):
            return [one(value)]
        return one(value)

    def values(self, argv: Sequence[str] | None = None) -> tuple[dict[str, Any], set[str]]:
        """The merged values by option name, and the names given explicitly as flags."""
        namespace = self.parser.parse_args(list(argv) if argv is not None else None)
        explicit = {k: v for k, v in vars(namespace).items() if k != "config" and v is not UNSET}
        try:
            from_file = self._from_file(namespace.config) if namespace.config else {}
        except ConfigError as exc:
            self.parser.error(str(exc))
        merged = {**self.defaults, **from_file, **explicit}
        return merged, set(explicit)

    def build(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        """One instance per dataclass from ``values`` (missing names keep their defaults)."""
        missing = [
            self.options[name].flags[0]
            for name, option in self.options.items()
            if option.default is dataclasses.MISSING and name not in values
        ]
        if missing:
            self.parser.error(f"the following arguments are required: {', '.join(missing)}")
        return tuple(self._instance(cls, (), values) for cls in self.dataclass_types)

    def _instance(self, cls: type, prefix: tuple[str, ...], values: Mapping[str, Any]) -> Any:
        hints = typing.get_type_hints(cls)
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            tp = hints[f.name]
            if dataclasses.is_dataclass(tp) and isinstance(tp, type):
                kwargs[f.name] = self._instance(tp, (*prefix, f.name), values)
            elif f.name in values and f.name in self.options:
                kwargs[f.name] = values[f.name]
        try:
            return cls(**kwargs)
        except (TypeError, ValueError) as exc:
            self.parser.error(f"{cls.__name__}: {exc}")

    def parse(self, argv: Sequence[str] | None = None) -> tuple[Any, ...]:
        """Parse ``argv`` (and ``--config``) into one instance per dataclass, in order."""
        values, _ = self.values(argv)
        return self.build(values)


__all__ = ["UNSET", "ConfigError", "DataclassParser", "Option"]
