"""Several runs in one report: ``empa report RUN_DIR [RUN_DIR ...] --out DIR``.

Each run's episodes keep their own store; :func:`load_runs` puts them side by side:

* models are named as in their run; a name used by more than one run is disambiguated with the
  run's label (``gpt-4o [official]``, ``gpt-4o [mine]``), so nothing is merged by accident;
* episode keys are prefixed with the run label, so trajectories never collide;
* runs are *comparable* when they share the suite, the roles (actor, director, judger) and the EPM
  preset; significance tests are run only between models of comparable runs, and the report
  says which runs were not compared and why.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.report.header import roles_text, run_facets, when
from benchmarks.store import DB_NAME, RunStore
from epm.trajectory import Trajectory

#: What two runs must share to be compared by significance tests.
COMPARABLE_ON: tuple[str, ...] = ("suite", "roles", "preset")


@dataclass
class RunSet:
    """Several runs as one report's input."""

    episodes: pd.DataFrame
    trajectories: dict[str, Trajectory]
    #: model (as shown) -> comparability group label
    groups: dict[str, str]
    #: run label -> facts shown at the top of the report (one row per run)
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    note: str = ""
    #: run label -> the run's stored configuration
    configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The runs' stored episodes, as one digest (see :meth:`RunStore.content_digest`).
    stored_digest: str = ""


def run_labels(run_dirs: Sequence[Path]) -> list[str]:
    """Short, distinct labels for run directories (their names; more of the path on a clash)."""
    paths = [Path(p).resolve() for p in run_dirs]
    if len(set(paths)) != len(paths):
        raise ValueError("the same run directory is given twice")
    depth = 1
    while True:
        labels = ["/".join(p.parts[-depth:]) for p in paths]
        if len(set(labels)) == len(labels) or depth >= max(len(p.parts) for p in paths):
            return labels
        depth += 1


def comparability_key(config: dict[str, Any]) -> str:
    facets = run_facets(config)
    return json.dumps({k: facets.get(k) for k in COMPARABLE_ON}, sort_keys=True, default=str)


def load_runs(run_dirs: Sequence[str | Path]) -> RunSet:
    """Read the stores of ``run_dirs`` and put their episodes side by side."""
    dirs = [Path(p) for p in run_dirs]
    for run_dir in dirs:
        if not (run_dir / DB_NAME).exists():
            raise FileNotFoundError(f"{run_dir} is not a run directory (no {DB_NAME})")
    labels = run_labels(dirs)
    frames, configs, trajectories, runs, digests = [], [], {}, {}, []
    for label, run_dir in zip(labels, dirs, strict=True):
        with RunStore(run_dir, read_only=True) as store:
            frame = store.episodes_frame()
            config = store.config
            info = store.run_info()
            errors = len(store.errors())
            trajs = store.trajectories()
            digests.append(f"{label}:{store.content_digest()}")
        if frame.empty:
            raise ValueError(f"no finished episodes in {run_dir}")
        # the run's own folder and model names, for the `empa show` command of a transcript
        frame = frame.assign(run=label, run_dir=str(run_dir), run_model=frame["model"])
        frames.append(frame)
        configs.append(config)
        trajectories.update({f"{label}/{k}": t for k, t in trajs.items()})
        facets = run_facets(config)
        runs[label] = {
            "suite": facets["suite"],
            "preset": facets["preset"],
            "roles (actor | director | judge)": roles_text(facets["roles"]),
            "policies": frame["model"].nunique(),
            "episodes": len(frame),
            "errors": errors,
            "created": when(info.get("created_at")),
            "folder": str(run_dir),
            "fingerprint": info.get("fingerprint"),
        }
    # a model name used by several runs is disambiguated by the run's label
    owners: dict[str, set[str]] = {}
    for frame in frames:
        for model in frame["model"].unique():
            owners.setdefault(model, set()).add(frame["run"].iloc[0])
    episodes = pd.concat(frames, ignore_index=True)
    clash = episodes["model"].map(lambda m: len(owners[m]) > 1)
    episodes.loc[clash, "model"] = episodes.loc[clash, "model"] + " [" + episodes["run"] + "]"
    episodes["episode_key"] = episodes["run"] + "/" + episodes["episode_key"].astype(str)

    keys = [comparability_key(c) for c in configs]
    group_of_key = {k: f"group {i + 1}" for i, k in enumerate(dict.fromkeys(keys))}
    run_group = {label: group_of_key[k] for label, k in zip(labels, keys, strict=True)}
    groups = {m: run_group[r] for m, r in zip(episodes["model"], episodes["run"], strict=True)}
    for label in labels:
        runs[label]["group"] = run_group[label]
    note = _groups_note(labels, configs, run_group)
    configured = dict(zip(labels, configs, strict=True))
    return RunSet(episodes, trajectories, groups, runs, note, configured, " ".join(digests))


def _groups_note(labels: list[str], configs: list[dict], run_group: dict[str, str]) -> str:
    members: dict[str, list[str]] = {}
    for label in labels:
        members.setdefault(run_group[label], []).append(label)
    if len(members) == 1:
        return f"All {len(labels)} runs are comparable."
    parts = [f"{g}: {', '.join(runs)}" for g, runs in members.items()]
    reasons = []
    firsts = {g: labels.index(runs[0]) for g, runs in members.items()}
    names = list(firsts)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ca, cb = run_facets(configs[firsts[a]]), run_facets(configs[firsts[b]])
            differ = [k for k in COMPARABLE_ON if ca.get(k) != cb.get(k)]
            reasons.append(f"{a} vs {b}: different {', '.join(differ)}")
    return (
        f"The runs form {len(members)} comparability groups ({'; '.join(parts)}); models of "
        f"different groups are not tested against each other ({'; '.join(reasons)})."
    )
