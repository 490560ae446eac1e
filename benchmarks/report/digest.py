"""A report is drawn once per set of inputs: rerunning ``empa report`` (or the main job) on a run
that did not change finds the same digest and keeps the files it wrote last time.

:func:`inputs_digest` hashes everything a report is made of: the episodes, their trajectories (as
stored: a run store's :meth:`~benchmarks.store.RunStore.content_digest`, or hashed here), the
header, the title and the other options, the source code that turns them into tables, figures
and text, and the versions of the libraries that draw and compute them. The report folder keeps
the digest and the files it wrote in :data:`RECORD`; :func:`unchanged` says whether a build with
a digest would write exactly what is already there.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Iterable, Mapping
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pandas as pd

from empa_env.atomic import atomic_write
from epm.trajectory import Trajectory

#: The record of the last build, in the report folder.
RECORD = ".report-inputs.json"
#: The code a report is made by: these modules, and every module of these packages.
CODE: tuple[str, ...] = (
    "benchmarks.report",
    "benchmarks.transcript",
    "benchmarks.results",
    "epm",
    "empa_env.safe_text",
    "empa_env.offline.semantic.lab.agreement",
)
#: The libraries whose versions can change a table's numbers or a figure's pixels.
LIBRARIES: tuple[str, ...] = ("matplotlib", "numpy", "pandas", "scipy", "pillow")


def _module_files(name: str) -> list[Path]:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return []
    origin = Path(spec.origin)
    if spec.submodule_search_locations:  # a package: every module in it
        return sorted(origin.parent.rglob("*.py"))
    return [origin]


@cache
def code_digest() -> str:
    """sha256 of the report's source code and its libraries' versions (once per process)."""
    h = hashlib.sha256()
    for name in CODE:
        for path in _module_files(name):
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for library in LIBRARIES:
        try:
            h.update(f"{library}=={version(library)}\0".encode())
        except PackageNotFoundError:
            h.update(f"{library} absent\0".encode())
    return h.hexdigest()


def trajectories_digest(trajectories: Mapping[str, Trajectory]) -> str:
    """sha256 of every trajectory's JSON, in key order (a run store knows it cheaper: its
    :meth:`~benchmarks.store.RunStore.content_digest`)."""
    h = hashlib.sha256()
    for key in sorted(trajectories):
        h.update(key.encode() + b"\0" + trajectories[key].to_json().encode() + b"\0")
    return h.hexdigest()


def inputs_digest(
    episodes: pd.DataFrame,
    trajectories: Mapping[str, Trajectory] | str,
    options: Mapping[str, Any],
) -> str:
    """The digest of one report's inputs: ``episodes`` (every column), ``trajectories`` (or the
    digest of their stored form), ``options`` (title, header, ...: JSON data) and the code."""
    stored = trajectories if isinstance(trajectories, str) else trajectories_digest(trajectories)
    h = hashlib.sha256()
    h.update(code_digest().encode() + b"\0" + stored.encode() + b"\0")
    h.update(episodes.to_json(orient="split", default_handler=str).encode() + b"\0")
    h.update(json.dumps(options, sort_keys=True, default=str).encode())
    return h.hexdigest()


def unchanged(out_dir: Path, digest: str) -> bool:
    """Whether ``out_dir`` holds a report built from inputs with ``digest``, every file intact."""
    try:
        record = json.loads((out_dir / RECORD).read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(record, dict) or record.get("digest") != digest:
        return False
    files = record.get("files")
    return isinstance(files, list) and all((out_dir / str(f)).is_file() for f in files)


def built_since(out_dir: Path, moment: float) -> bool:
    """Whether the report in ``out_dir`` was (re)built after ``moment`` (``time.time()``)."""
    try:
        return (out_dir / RECORD).stat().st_mtime >= moment
    except OSError:
        return False


def forget(out_dir: Path) -> None:
    """Drop the record before a build writes anything: files half rewritten never pass as the
    report of the earlier inputs."""
    (out_dir / RECORD).unlink(missing_ok=True)


def remember(out_dir: Path, digest: str, files: Iterable[str]) -> None:
    """Record that ``out_dir`` now holds ``files``, built from inputs with ``digest`` (written
    last: a build that stops before it leaves no record, and the next one builds again)."""
    record = {"digest": digest, "files": sorted(set(files))}
    atomic_write(out_dir / RECORD, json.dumps(record, indent=1) + "\n")
