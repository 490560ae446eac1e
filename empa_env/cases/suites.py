"""Case suites by id, the generated training pool, and one resolver for "which cases?".

A suite is a versioned, fixed set of cases (e.g. ``empa30-v1``): a folder holding ``manifest.yaml``
(the suite id, its version and the intended strata of every case) and ``cases/`` (one file per
case). Suites are found without ``empa_env`` importing the package that ships them:

* a **suite collection** is a package registered in the ``empa.suites`` entry-point group; every
  sub-folder of it with a ``manifest.yaml`` is a suite, named by the manifest. Adding a suite to a
  collection is adding one folder (``benchmarks/suites`` is the collection that ships with
  empa-gym);
* :func:`register_suite` adds a folder anywhere at run time;
* an entry point may also name a function returning ``(case_directory, manifest_path)``.

:func:`load_suite` checks the manifest's strata against the metadata *derived* from each case's
IEDR levels, so results always say which cases they used and that the cases are what the suite
claims.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import yaml

from empa_env.errors import UserError

if TYPE_CHECKING:  # the case modules (pydantic, the generator's banks) load on first use
    from empa_env.cases.schema import Case

SUITE_GROUP = "empa.suites"
MANIFEST_NAME = "manifest.yaml"
CASES_DIRNAME = "cases"
DEFAULT_POOL_SEED = 0
DEFAULT_POOL_SIZE = 600
#: Manifest fields checked against :meth:`Case.metadata` (exact match).
MANIFEST_FIELDS: tuple[str, ...] = ("domain", "dominant_axis", "difficulty", "empathy_threshold")
_GENERATED = re.compile(r"^generated(?::(\d+))?(?::(\d+))?$")
_REGISTERED: dict[str, Path] = {}


class SuiteError(UserError, ValueError):
    """A suite id is unknown, or its cases do not match its manifest; lists every problem."""

    def __init__(self, suite_id: str, problems: Sequence[str]) -> None:
        self.suite_id = suite_id
        self.problems = list(problems)
        super().__init__("\n".join([f"suite {suite_id!r}: {len(self.problems)} problem(s):",
                                    *(f"  - {p}" for p in self.problems)]))  # fmt: skip


@dataclass(frozen=True)
class Suite:
    """A loaded, checked suite: its id, version, cases (manifest order) and raw manifest."""

    id: str
    version: int
    cases: tuple[Case, ...]
    manifest: dict

    def case(self, case_id: str) -> Case:
        for c in self.cases:
            if c.id == case_id:
                return c
        raise KeyError(f"suite {self.id!r} has no case {case_id!r}")


def _manifest_id(folder: Path) -> str | None:
    try:
        data = yaml.safe_load((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return folder.name
    return str(data.get("suite", folder.name)) if isinstance(data, Mapping) else folder.name


def register_suite(folder: str | Path) -> str:
    """Make the suite in ``folder`` (``manifest.yaml`` + ``cases/``) loadable by its id."""
    path = Path(folder)
    if not (path / MANIFEST_NAME).is_file():
        raise SuiteError(str(path), [f"{path} has no {MANIFEST_NAME}"])
    suite_id = _manifest_id(path) or path.name
    _REGISTERED[suite_id] = path
    load_suite.cache_clear()
    return suite_id


@lru_cache(maxsize=1)
def _discovered() -> dict[str, tuple[Path, Path]]:
    """Suite id -> (case directory, manifest) for every suite the entry points provide."""
    found: dict[str, tuple[Path, Path]] = {}
    for ep in entry_points(group=SUITE_GROUP):
        target = ep.load()
        if isinstance(target, ModuleType):  # a collection: every sub-folder with a manifest
            for root in getattr(target, "__path__", []):
                for folder in sorted(Path(root).iterdir()):
                    if (folder / MANIFEST_NAME).is_file():
                        suite_id = _manifest_id(folder) or folder.name
                        found[suite_id] = (folder / CASES_DIRNAME, folder / MANIFEST_NAME)
        elif callable(target):
            case_dir, manifest = target()
            found[ep.name] = (Path(case_dir), Path(manifest))
    return found


def available_suites() -> list[str]:
    """Every suite id: registered folders and the ``empa.suites`` entry points."""
    return sorted(set(_discovered()) | set(_REGISTERED))


def suite_paths(suite_id: str) -> tuple[Path, Path]:
    """``(case_directory, manifest_path)`` of a known suite."""
    if suite_id in _REGISTERED:
        folder = _REGISTERED[suite_id]
        return folder / CASES_DIRNAME, folder / MANIFEST_NAME
    found = _discovered()
    if suite_id not in found:
        known = ", ".join(available_suites()) or "none (is the package installed?)"
        raise SuiteError(suite_id, [f"unknown suite id; available: {known}"])
    return found[suite_id]


def check_manifest(suite_id: str, manifest: object, cases: Sequence[Case]) -> list[str]:
    """Every disagreement between a manifest and the cases (empty when they agree).

    The manifest must name the suite, carry an integer version and list each case once with its
    intended ``domain``, ``dominant_axis``, ``difficulty`` and ``empathy_threshold``; each must
    equal the value derived from the case. Cases missing from either side are reported, and an
    optional ``counts`` table (stratum -> value -> count) is checked against the cases.
    """
    if not isinstance(manifest, Mapping):
        return [f"manifest must be a mapping, got {type(manifest).__name__}"]
    problems: list[str] = []
    if manifest.get("suite") != suite_id:
        problems.append(f"manifest names suite {manifest.get('suite')!r}, expected {suite_id!r}")
    version = manifest.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        problems.append(f"manifest version must be an integer, got {version!r}")
    entries = manifest.get("cases")
    if not isinstance(entries, list) or not entries:
        return [*problems, "manifest must list the suite's cases under 'cases'"]

    by_id = {c.id: c for c in cases}
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping) or "id" not in entry:
            problems.append(f"manifest cases[{i}] must be a mapping with an 'id'")
            continue
        cid = str(entry["id"])
        if cid in seen:
            problems.append(f"{cid}: listed twice in the manifest")
            continue
        seen.add(cid)
        unknown = sorted(set(entry) - {"id", *MANIFEST_FIELDS})
        if unknown:
            problems.append(f"{cid}: unknown manifest fields {unknown}")
        case = by_id.get(cid)
        if case is None:
            problems.append(f"{cid}: in the manifest but no case file has this id")
            continue
        meta = case.metadata()
        for key in MANIFEST_FIELDS:
            if key not in entry:
                problems.append(f"{cid}: manifest entry lacks {key!r}")
            elif entry[key] != meta[key]:
                extra = f" (||P_0|| = {meta['norm_p0']:.2f})" if key == "difficulty" else ""
                problems.append(
                    f"{cid}: manifest says {key} = {entry[key]!r}, case derives {meta[key]!r}{extra}"
                )
    problems.extend(
        f"{cid}: case file not listed in the manifest" for cid in sorted(set(by_id) - seen)
    )

    counts = manifest.get("counts")
    if counts is not None:
        if not isinstance(counts, Mapping):
            problems.append("manifest 'counts' must map stratum -> value -> count")
        else:
            for stratum, wanted in counts.items():
                if stratum not in MANIFEST_FIELDS or not isinstance(wanted, Mapping):
                    problems.append(f"manifest counts: unknown stratum {stratum!r}")
                    continue
                got = Counter(str(getattr(c, stratum)) for c in cases)
                for value, k in wanted.items():
                    if got.get(str(value), 0) != k:
                        problems.append(
                            f"counts: {stratum} = {value}: manifest says {k}, cases have {got.get(str(value), 0)}"
                        )
    return problems


@lru_cache(maxsize=16)
def load_suite(suite_id: str) -> Suite:
    """Load a registered suite, validate every case file and check the manifest (cached).

    Raises :class:`SuiteError` for an unknown id or a manifest mismatch, and
    :class:`~empa_env.cases.loader.CaseError` (naming every bad file and field) for invalid cases.
    """
    from empa_env.cases.loader import load_directory

    case_dir, manifest_path = suite_paths(suite_id)
    try:
        manifest = yaml.safe_load(manifest_path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise SuiteError(suite_id, [f"{manifest_path}: cannot read manifest: {exc}"]) from None
    cases = load_directory(case_dir)
    problems = check_manifest(suite_id, manifest, cases)
    if problems:
        raise SuiteError(suite_id, problems)
    order = {str(e["id"]): i for i, e in enumerate(manifest["cases"])}
    ordered = tuple(sorted(cases, key=lambda c: order[c.id]))
    return Suite(suite_id, int(manifest["version"]), ordered, dict(manifest))


@lru_cache(maxsize=8)
def training_pool(seed: int = DEFAULT_POOL_SEED, size: int = DEFAULT_POOL_SIZE) -> tuple[Case, ...]:
    """The generated training pool (ids ``gen-s{seed}-{i:04d}``); disjoint from every suite."""
    from empa_env.cases.generator import ProceduralGenerator

    return tuple(ProceduralGenerator().generate(size, seed))


def is_generated_pool(spec: object) -> bool:
    """Whether ``spec`` names a generated pool (``None``, ``"generated[:SEED[:SIZE]]"``)."""
    return spec is None or (isinstance(spec, str) and _GENERATED.match(spec.strip()) is not None)


def resolve_pool(spec: str | Sequence[Case] | None) -> tuple[Case, ...]:
    """Turn a pool specification into cases.

    ``None`` or ``"generated"`` -> :func:`training_pool`; ``"generated:SEED"`` or
    ``"generated:SEED:SIZE"`` -> ``training_pool(SEED, SIZE)``; a registered suite id -> its cases;
    an existing directory -> every case file in it; a sequence of :class:`Case` -> those cases.
    """
    from empa_env.cases.loader import load_directory
    from empa_env.cases.schema import Case

    if spec is None:
        return training_pool()
    if isinstance(spec, str):
        m = _GENERATED.match(spec.strip())
        if m:
            seed = int(m.group(1)) if m.group(1) is not None else DEFAULT_POOL_SEED
            size = int(m.group(2)) if m.group(2) is not None else DEFAULT_POOL_SIZE
            return training_pool(seed, size)
        if spec in available_suites():
            return load_suite(spec).cases
        if Path(spec).is_dir():
            return tuple(load_directory(spec))
        raise ValueError(
            f"unknown pool {spec!r}: expected 'generated', 'generated:SEED', 'generated:SEED:SIZE', "
            f"a suite id ({', '.join(available_suites()) or 'none registered'}), "
            "an existing directory of case files, or a sequence of Case objects"
        )
    if isinstance(spec, Sequence) and all(isinstance(c, Case) for c in spec):
        return tuple(c for c in spec if isinstance(c, Case))
    raise ValueError(
        f"unknown pool of type {type(spec).__name__}: expected None, a string (generated[:SEED[:SIZE]], "
        "a suite id or a directory) or a sequence of Case objects"
    )


__all__ = [
    "DEFAULT_POOL_SEED", "DEFAULT_POOL_SIZE", "SUITE_GROUP", "Suite", "SuiteError",
    "available_suites", "check_manifest", "is_generated_pool", "load_suite", "register_suite", "resolve_pool",
    "suite_paths", "training_pool",
]  # fmt: skip
