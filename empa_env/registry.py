"""Registries: every plug-in point of empa-gym is a named registry, never string dispatch.

A :class:`Registry` maps names to factories (classes or functions) of one kind: judger, actor and
director backends, rewards, policy kinds, case suites and languages. A factory gets there in one of
three ways, so that adding one never means editing a dispatch table:

* a decorator in the file that defines it: ``@judgers.register("mine")``;
* an entry point in the ``empa.<kind>`` group of any installed package (``pyproject.toml``), loaded
  lazily the first time the name is asked for; this is how the built-ins are found too;
* a path spec, for a one-off file that is not installed: ``"python:my_judge.py:MyJudge"`` or
  ``"python:package.module:MyJudge"``.

Specs are strings ``NAME`` or ``NAME:ARGUMENT`` (``"offline"``, ``"llm:openai/gpt-4o"``,
``"scripted:attuned"``); the argument is passed to the factory as its first positional argument.
Everything that takes a spec also takes a ready instance. :meth:`Registry.create` records what
built an instance (:class:`Provenance`: registry, name, argument, keyword arguments, and for a
plug-in that is not part of empa-gym the sha256 of its source) on it as ``__empa_spec__``, so run
fingerprints say exactly what was used, down to an edited plug-in file.

What a run hands every factory of a kind (the run's LLM options as ``llm``, a reward's goal zone
as ``goal_epsilon``) is *injected*: a factory receives such a value only when it declares a
parameter of that name, so one that has no use for it never sees it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Generic, TypeVar

from empa_env.errors import UserError
from empa_env.secrets import is_secret_option

T = TypeVar("T")

#: Attribute under which :meth:`Registry.create` records an instance's :class:`Provenance`.
SPEC_ATTRIBUTE = "__empa_spec__"


class RegistryError(UserError, ValueError):
    """An unknown name or an unloadable spec; the message lists what is available."""


@dataclass(frozen=True)
class Provenance:
    """What built an object: ``registry`` (kind), ``name``, the spec ``argument`` and keywords."""

    registry: str
    name: str
    argument: str | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    #: ``sha256:<hex>`` of the plug-in's source (the file of ``python:FILE.py:NAME``, the module
    #: of ``python:MODULE:NAME``, of an entry point or of a registered factory, with the code it
    #: comes with: :func:`plugin_sources`), so that an edited plug-in, or an edited module it
    #: imports from beside it, is another configuration; ``None`` for empa-gym's own code, which
    #: the package version identifies (:func:`plugin_digest`).
    source_sha256: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"registry": self.registry, "name": self.name}
        if self.argument is not None:
            out["argument"] = self.argument
        if self.kwargs:
            out["kwargs"] = {k: _plain(v) for k, v in sorted(self.kwargs.items())}
        if self.source_sha256 is not None:
            out["source_sha256"] = self.source_sha256
        return out


def _plain(value: Any) -> Any:
    """A JSON-friendly rendering of a constructor argument (secrets never pass through here)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items())}
    plain = getattr(value, "plain", None)
    if callable(plain):  # a typed configuration object (e.g. LLMOptions): its recorded form
        return _plain(plain())
    return f"<{type(value).__name__}>"


def provenance(obj: object) -> Provenance | None:
    """The :class:`Provenance` recorded on ``obj`` by :meth:`Registry.create`, if any."""
    found = getattr(obj, SPEC_ATTRIBUTE, None)
    return found if isinstance(found, Provenance) else None


def file_digest(target: str) -> str | None:
    """The source digest of a ``FILE.py:ATTR`` target (``None`` for ``MODULE:ATTR``): of the
    file and the code it comes with (:func:`plugin_sources`), so that an edited file, or an
    edited module beside it that it imports, is another configuration. :func:`load_object`
    runs exactly the file's content hashed here."""
    module_part = target.rpartition(":")[0]
    if not module_part.endswith(".py"):
        return None
    path = Path(module_part)
    _read_source(path)  # a missing or unreadable file is named as such
    return sources_digest(*plugin_sources(path))


#: The packages of empa-gym itself: their code is identified by the package version.
OWN_PACKAGES: frozenset[str] = frozenset(
    {"epm", "empa_env", "baselines", "benchmarks", "empa_gym", "perf"}
)


def module_digest(module: str) -> str | None:
    """The source digest of a module and the code it comes with (:func:`plugin_sources`: its
    top-level package's files); ``None`` for empa-gym's own modules and for modules without a
    source file (built-in, compiled, or not found)."""
    if not module or module.partition(".")[0] in OWN_PACKAGES:
        return None
    loaded = sys.modules.get(module)
    origin = getattr(loaded, "__file__", None) if loaded is not None else None
    if origin is None:
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            return None
        origin = found.origin if found is not None else None
    if not origin or not str(origin).endswith(".py"):
        return None
    try:
        return sources_digest(*plugin_sources(Path(origin)))
    except RegistryError:
        return None


def plugin_sources(origin: Path) -> tuple[Path, list[Path]]:
    """``(root, files)``: the Python files that make up the plug-in whose code is in ``origin``,
    and the folder their names are taken relative to.

    * A file inside a package (its folder has ``__init__.py``): every ``.py`` file of its
      top-level package, at any depth.
    * Any other file: the ``.py`` files beside it and every package beside it (what it can
      import as its neighbours), unless its folder is an installation's (``site-packages``, the
      standard library), whose neighbours are other distributions: then the file alone.
    """
    origin = origin.resolve()
    folder, package = origin.parent, None
    while (folder / "__init__.py").is_file():
        package, folder = folder, folder.parent
    if package is not None:
        return folder, _package_files(package)
    if folder in _installation_folders():
        return folder, [origin]
    files = [p for p in folder.glob("*.py") if p.is_file()]
    for sub in sorted(folder.iterdir()):
        if sub.is_dir() and not sub.name.startswith(".") and (sub / "__init__.py").is_file():
            files += _package_files(sub)
    return folder, sorted(set(files))


def _package_files(package: Path) -> list[Path]:
    return sorted(
        p
        for p in package.rglob("*.py")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(package).parts)
    )


def _installation_folders() -> set[Path]:
    import site
    import sysconfig

    paths = sysconfig.get_paths()
    found = [paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    found += [*site.getsitepackages(), site.getusersitepackages()]
    return {Path(p).resolve() for p in found if p}


def sources_digest(root: Path, files: list[Path]) -> str:
    """``sha256:<hex>`` over ``files``: each one's path relative to ``root`` and content."""
    digest = hashlib.sha256()
    for path in sorted(files):
        name = path.relative_to(root).as_posix().encode()
        digest.update(name + b"\0" + hashlib.sha256(_read_source(path)).digest())
    return f"sha256:{digest.hexdigest()}"


def plugin_digest(factory: object) -> str | None:
    """The :attr:`Provenance.source_sha256` of a factory found by name (registered in code or
    an entry point): its module's source digest (:func:`module_digest`)."""
    return module_digest(str(getattr(factory, "__module__", "") or ""))


def target_digest(target: str) -> str | None:
    """The source digest of a ``python:`` target: the file of ``FILE.py:NAME``
    (:func:`file_digest`), the module of ``MODULE:NAME`` (:func:`module_digest`)."""
    module_part = target.rpartition(":")[0]
    if module_part.endswith(".py"):
        return file_digest(target)
    return module_digest(module_part)


def declared(factory: Callable[..., Any], inject: Mapping[str, Any] | None) -> dict[str, Any]:
    """The values of ``inject`` whose names ``factory`` declares as parameters (a ``**kwargs``
    catch-all declares none: a value is handed only to a factory that asks for it by name)."""
    if not inject:
        return {}
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return {}
    named = {n for n, p in params.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    return {k: v for k, v in inject.items() if k in named}


def _read_source(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise RegistryError(f"file {path} does not exist") from None
    except OSError as exc:
        raise RegistryError(f"cannot read {path}: {exc.strerror or exc}") from None


def load_object(target: str) -> Any:
    """``MODULE:ATTR`` or ``path/to/file.py:ATTR`` -> the object (clear errors otherwise).

    A file is imported once per path *and content*: after an edit, the same process imports the
    new content (whose digest :func:`file_digest` reports), never a stale module."""
    module_part, sep, attr = target.rpartition(":")
    if not sep or not module_part or not attr:
        raise RegistryError(f"expected MODULE:NAME or FILE.py:NAME, got {target!r}")
    if module_part.endswith(".py"):
        path = Path(module_part)
        if not path.is_file():
            raise RegistryError(f"file {path} does not exist")
        source = _read_source(path)
        where = hashlib.sha256(str(path.resolve()).encode() + b"\0" + source).hexdigest()[:16]
        name = f"_empa_plugin_{path.stem}_{where}"
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise RegistryError(f"cannot import {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:  # the content hashed above, not a second read of a file that may change
                exec(compile(source, str(path), "exec"), module.__dict__)
            except Exception as exc:
                del sys.modules[name]
                raise RegistryError(
                    f"{path} failed to import: {type(exc).__name__}: {exc}"
                ) from exc
    else:
        try:
            module = importlib.import_module(module_part)
        except ImportError as exc:
            raise RegistryError(f"cannot import module {module_part!r}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise RegistryError(f"{module_part} has no attribute {attr!r}") from None


class Registry(Generic[T]):
    """Named factories of one kind; see the module docstring.

    Args:
        kind: what the registry holds, for messages and provenance (``"judger"``, ``"reward"``).
        group: the entry-point group searched for names not registered in code
            (``"empa.judgers"``); ``None`` for a registry filled by code only.
    """

    def __init__(self, kind: str, group: str | None = None) -> None:
        self.kind = kind
        self.group = group
        self._factories: dict[str, Callable[..., T]] = {}

    # --- registration ----------------------------------------------------------------------
    def register(
        self, name: str, factory: Callable[..., T] | None = None, *, replace: bool = False
    ) -> Any:
        """Register ``factory`` under ``name``; used bare as a decorator when ``factory`` is None."""

        def add(obj: Callable[..., T]) -> Callable[..., T]:
            existing = self._factories.get(name)
            if existing is not None and existing is not obj and not replace:
                raise RegistryError(
                    f"{self.kind} {name!r} is already registered ({_qualname(existing)}); "
                    "pass replace=True to override it"
                )
            self._factories[name] = obj
            return obj

        return add if factory is None else add(factory)

    def unregister(self, name: str) -> None:
        self._factories.pop(name, None)

    # --- lookup ----------------------------------------------------------------------------
    def _entry_points(self) -> dict[str, Any]:
        if self.group is None:
            return {}
        return {ep.name: ep for ep in entry_points(group=self.group)}

    def names(self) -> list[str]:
        """Every registered name (code and entry points), sorted."""
        return sorted(set(self._factories) | set(self._entry_points()))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._factories or name in self._entry_points())

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def get(self, name: str) -> Callable[..., T]:
        """The factory registered as ``name`` (entry points are loaded on first use)."""
        if name in self._factories:
            return self._factories[name]
        ep = self._entry_points().get(name)
        if ep is None:
            known = ", ".join(self.names()) or "none"
            raise RegistryError(f"unknown {self.kind} {name!r}; known: {known}")
        try:
            loaded = ep.load()
        except Exception as exc:
            raise RegistryError(
                f"the {self.kind} {name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}"
            ) from exc
        # A decorated module registers itself on import; keep whichever object that was.
        return self._factories.setdefault(name, loaded)

    # --- construction ----------------------------------------------------------------------
    def create(self, spec: str, /, *, inject: Mapping[str, Any] | None = None, **kwargs: Any) -> T:
        """Build an instance from ``NAME``, ``NAME:ARGUMENT`` or ``python:TARGET``.

        ``python:TARGET`` loads ``TARGET`` (``MODULE:ATTR`` or ``FILE.py:ATTR``): a class or
        function is called with ``kwargs``, anything else is returned as the instance.
        ``inject``: values the factory gets only under a parameter name it declares
        (:func:`declared`); they are recorded with the keywords.
        """
        name, _, argument = spec.partition(":")
        digest = target_digest(argument) if name == "python" and argument else None
        extra: dict[str, Any] = {}
        if name == "python" and argument and "python" not in self._factories:
            obj = load_object(argument)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                extra = declared(obj, inject)
                instance: Any = obj(**kwargs, **extra)
            else:
                instance = obj
        else:
            factory = self.get(name)
            if digest is None:
                digest = plugin_digest(factory)
            extra = declared(factory, inject)
            args = (argument,) if argument else ()
            try:
                instance = factory(*args, **kwargs, **extra)
            except TypeError as exc:
                if argument and _takes_no_argument(factory):
                    raise RegistryError(
                        f"{self.kind} {name!r} takes no ':ARGUMENT', got {spec!r}"
                    ) from exc
                raise
        used = {**kwargs, **extra}
        safe = {k: v for k, v in used.items() if not is_secret_option(k)}
        _record(instance, Provenance(self.kind, name, argument or None, safe, digest))
        return instance  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, group={self.group!r}, names={self.names()})"


def _takes_no_argument(factory: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return not any(p.kind in positional or p.kind == p.VAR_POSITIONAL for p in params)


def _record(instance: object, spec: Provenance) -> None:
    # Frozen or slotted objects simply go unrecorded.
    with contextlib.suppress(AttributeError, TypeError):
        setattr(instance, SPEC_ATTRIBUTE, spec)


def _qualname(obj: object) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


__all__ = [
    "OWN_PACKAGES", "SPEC_ATTRIBUTE", "Provenance", "Registry", "RegistryError", "declared",
    "file_digest", "load_object", "module_digest", "plugin_digest", "plugin_sources", "provenance",
    "sources_digest", "target_digest",
]  # fmt: skip
