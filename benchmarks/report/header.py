"""What a reader of the report sees first: one summary line, a few facts, the configuration folded.

:class:`ReportHeader` is built from a run (:func:`run_header`) or from several runs side by side
(:func:`runs_header`) and rendered above the contents by :mod:`benchmarks.report.render`: the
summary says in one line what was run, on which cases and judge, when, and how many episodes
failed to run or were invalid; the facts name the policies, cases, roles, preset and versions in
a short key/value grid; the full stored configuration is there too, folded away (a ``<details>``
block), for whoever needs to reproduce or compare the run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = [
    "ReportHeader",
    "role_name",
    "roles_text",
    "run_facets",
    "run_header",
    "runs_header",
    "when",
]


@dataclass(frozen=True)
class ReportHeader:
    """The report's header (plain text everywhere; the renderers escape it)."""

    #: One line: what was run, on which cases and judge, when, with how many errors and invalid
    #: episodes.
    summary: str
    #: ``(key, value)`` facts, shown as a compact grid.
    facts: tuple[tuple[str, str], ...] = ()
    #: Several runs: one row per run (label, suite, roles, ...).
    runs: pd.DataFrame | None = None
    #: The full stored configuration (one run's, or ``{run label: configuration}``), folded.
    configuration: Mapping[str, Any] = field(default_factory=dict)

    def digest_data(self) -> dict[str, Any]:
        """Everything the header shows, as JSON data (a part of the report's input digest)."""
        runs = None if self.runs is None else self.runs.to_dict("split")
        return {"summary": self.summary, "facts": self.facts, "runs": runs,
                "configuration": self.configuration}  # fmt: skip


def when(created_at: str | None) -> str:
    """``2026-12-06T01:28:16+00:00`` as a person reads it: ``2026-12-06 01:28 UTC``."""
    if not created_at:
        return "unknown"
    try:
        moment = datetime.fromisoformat(created_at)
    except ValueError:
        return created_at
    offset = moment.utcoffset()
    zone = "" if offset is None else " UTC" if not offset else moment.strftime(" %z")
    return moment.strftime("%Y-%m-%d %H:%M") + zone


def run_facets(config: Mapping[str, Any]) -> dict[str, Any]:
    """The suite, roles and preset of a run's stored configuration (a benchmark run keeps the
    roles and preset inside its ``env`` block; an imported run at the top level)."""
    stored_env = config.get("env")
    env: Mapping[str, Any] = stored_env if isinstance(stored_env, Mapping) else {}
    preset = env.get("preset", config.get("preset"))
    if isinstance(preset, Mapping):
        preset = preset.get("name", preset)
    return {"suite": config.get("suite"), "roles": env.get("roles", config.get("roles")),
            "preset": preset}  # fmt: skip


def roles_text(roles: Any) -> str:
    """``actor | director | judger`` names of a run's roles."""
    return " | ".join(role_name(roles, role) for role in ("actor", "director", "judger"))


def role_name(roles: Any, role: str) -> str:
    """The name a run's configuration gives one role (``"judger"``: e.g. ``guarded(...)``)."""
    if not isinstance(roles, Mapping):
        return "unknown"
    spec = roles.get(role)
    if isinstance(spec, Mapping):
        return str(spec.get("name") or spec.get("class") or "unknown")
    return "unknown" if spec is None else str(spec)


def _plural(n: int, word: str, words: str = "") -> str:
    return f"{n} {word}" if n == 1 else f"{n} {words or word + 's'}"


def _cases_text(episodes: pd.DataFrame, suite: Any) -> str:
    cases = episodes["case_id"].nunique()
    return _plural(cases, "case") + (f" of {suite}" if suite else "")


def _errors_text(errors: int, invalid: int) -> str:
    return f"{_plural(errors, 'error')}, {invalid} invalid"


def run_header(
    run_dir: str | Path,
    config: Mapping[str, Any],
    run_info: Mapping[str, str],
    episodes: pd.DataFrame,
    *,
    errors: int,
    invalid: int,
    role_failures: Sequence[str] = (),
    schemas: Mapping[str, Any] | None = None,
) -> ReportHeader:
    """The header of one run's report.

    ``episodes`` are all finished episodes (invalid ones included), ``errors`` the episodes that
    could not run, ``role_failures`` one line per model whose roles failed (see
    :func:`benchmarks.results.role_failure_text`).
    """
    facets = run_facets(config)
    roles = facets["roles"]
    judge = role_name(roles, "judger")
    policies = list(dict.fromkeys(str(m) for m in episodes["model"]))
    seeds = int(episodes["seed"].nunique())
    summary = (
        f"{_plural(len(policies), 'policy', 'policies')} on "
        f"{_cases_text(episodes, facets['suite'])}, judge {judge}: "
        f"{_plural(len(episodes), 'episode')}, {_errors_text(errors, invalid)}; "
        f"run {when(run_info.get('created_at'))}"
    )
    facts: list[tuple[str, str]] = [
        ("run", str(run_dir)),
        ("policies", ", ".join(sorted(policies))),
        ("cases", _cases_text(episodes, facets["suite"]) + f", {_plural(seeds, 'seed')} each"),
        ("roles", f"actor {role_name(roles, 'actor')}, director {role_name(roles, 'director')}, "
                  f"judge {judge}"),
        ("preset", str(facets["preset"])),
        ("created", when(run_info.get("created_at"))),
        ("errors", f"{errors} (episodes that could not run)"),
        ("invalid episodes", f"{invalid} (finished, not ranked)"),
        ("judged turns", f"{int(episodes['turns'].sum())} "
                         f"({int(episodes['judge_failures'].sum())} judge failures)"),
    ]  # fmt: skip
    if isinstance(config.get("env"), Mapping) and facets["suite"]:
        from empa_env.versions import id_for

        env_id = id_for(config["env"], str(facets["suite"]))
        if env_id:
            facts.insert(4, ("environment", env_id))
    if role_failures:
        facts.append(("role failures", "; ".join(line.strip() for line in role_failures)))
    imported = _imported_from(run_info.get("import"))
    if imported:
        facts.append(("imported from", imported))
    facts.append(("fingerprint", str(run_info.get("fingerprint", "unknown"))))
    if schemas:
        facts.append(("schemas", ", ".join(f"{k} {v}" for k, v in schemas.items())))
    return ReportHeader(summary, tuple(facts), None, dict(config))


def _imported_from(blob: str | None) -> str:
    """``from (license)`` of an imported run's ``import`` record; empty for a played run."""
    if not blob:
        return ""
    try:
        record = json.loads(blob)
    except ValueError:
        return ""
    if not isinstance(record, Mapping):
        return ""
    license_ = f" ({record['license']})" if record.get("license") else ""
    return f"{record.get('from', 'unknown')}{license_}"


def runs_header(
    runs: Mapping[str, Mapping[str, Any]],
    configs: Mapping[str, Mapping[str, Any]],
    episodes: pd.DataFrame,
    comparability: str,
) -> ReportHeader:
    """The header of a report of several runs side by side: ``runs`` (label -> facts, one row
    each; ``errors`` and ``group`` read here) and ``configs`` as
    :func:`benchmarks.report.multi.load_runs` gathers them."""
    errors = sum(int(facts.get("errors", 0)) for facts in runs.values())
    invalid = int(episodes["invalid"].astype(bool).sum()) if "invalid" in episodes else 0
    groups = len({facts.get("group") for facts in runs.values()})
    summary = (
        f"{len(runs)} runs, {_plural(episodes['model'].nunique(), 'policy', 'policies')} on "
        f"{_cases_text(episodes, None)}: {_plural(len(episodes), 'episode')}, "
        f"{_errors_text(errors, invalid)}; {_plural(groups, 'comparability group')}"
    )
    table = pd.DataFrame([{"run": label, **facts} for label, facts in runs.items()])
    return ReportHeader(summary, (("comparability", comparability),), table, dict(configs))
