"""What defines a benchmark run: :class:`BenchConfig` (the environment's configuration, the suite
or folder of cases, the selection, seeds, NEE judges and the stop rules)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from empa_env.cases.loader import case_files, load_directory
from empa_env.cases.schema import Case
from empa_env.cases.suites import load_suite
from empa_env.config import EnvConfig
from empa_env.errors import ConfigError


@dataclass
class BenchConfig:
    """Everything that defines a run's results (the store refuses to mix configurations), as
    data: the environment's configuration, the suite (or a folder of case files), the selection
    of cases, the seeds and the NEE panel. :class:`~benchmarks.context.RunContext` resolves it
    and makes the fingerprint."""

    env: EnvConfig = field(default_factory=EnvConfig)
    suite: str = "empa30-v1"
    seeds: int = 1
    #: LiteLLM models of the NEE panel; empty = no NEE (and no FCS) in the results.
    nee_judges: list[str] = field(default_factory=list)
    #: A folder of case files to run instead of ``suite`` (no entry point or manifest needed).
    cases_dir: str | None = None
    #: Run only these case ids (in this order); empty = every case.
    case_ids: list[str] = field(default_factory=list)
    #: Run only the first N cases (after ``case_ids``); ``None`` = all.
    limit: int | None = None

    #: Before the run, one short call per LLM role, LLM policy and NEE judge checks it answers.
    preflight: bool = True
    #: This many episodes in a row failing with the same error stop the run (0: never).
    max_identical_failures: int = 5
    #: An episode whose share of failed judgements exceeds this is invalid: kept and shown,
    #: never ranked, played again by a rerun (a run that never got a judgement is no result).
    max_judge_failure_share: float = 0.2
    #: The same for the Director and the Actor: an episode where more than this share of the
    #: Director's decisions or of the Actor's messages were fallbacks (an LLM role that failed:
    #: empty answer, unknown tool, provider error) is invalid: the run measures its configured
    #: roles only.
    max_role_failure_share: float = 0.2

    def __post_init__(self) -> None:
        if self.seeds < 1:
            raise ConfigError(f"must be >= 1, got {self.seeds}", field="seeds")
        if self.limit is not None and self.limit < 1:
            raise ConfigError(f"must be >= 1, got {self.limit}", field="limit")
        if self.max_identical_failures < 0:
            raise ConfigError(
                f"must be >= 0, got {self.max_identical_failures}", field="max_identical_failures"
            )
        if not 0.0 <= self.max_judge_failure_share <= 1.0:
            raise ConfigError(
                f"must be in [0, 1], got {self.max_judge_failure_share}",
                field="max_judge_failure_share",
            )
        if not 0.0 <= self.max_role_failure_share <= 1.0:
            raise ConfigError(
                f"must be in [0, 1], got {self.max_role_failure_share}",
                field="max_role_failure_share",
            )

    @property
    def selected(self) -> bool:
        return bool(self.case_ids) or self.limit is not None

    def load_cases(self) -> tuple[str, int | str, list[Case]]:
        """``(label, version, cases)``: the suite's or the folder's cases, then the selection.

        A folder's version is the sha256 of its case files, so edited cases are another run."""
        if self.cases_dir is not None:
            folder = Path(self.cases_dir)
            if not folder.is_dir():
                raise ConfigError(
                    f"{folder}: not a directory of case files", field="cases_dir", flag="--cases"
                )
            files = case_files(folder)
            if not files:
                raise ConfigError(
                    f"{folder}: no case files (*.yaml, *.json) in it", field="cases_dir",
                    flag="--cases",
                )  # fmt: skip
            digest = hashlib.sha256()
            for file in files:
                digest.update(file.name.encode() + b"\0" + file.read_bytes())
            label: str = f"dir:{folder.resolve()}"
            version: int | str = f"sha256:{digest.hexdigest()[:16]}"
            cases = list(load_directory(folder))
        else:
            suite = load_suite(self.suite)
            label, version, cases = self.suite, suite.version, list(suite.cases)
        if self.case_ids:
            by_id = {c.id: c for c in cases}
            unknown = [i for i in self.case_ids if i not in by_id]
            if unknown:
                known = ", ".join(list(by_id)[:5]) + (", ..." if len(by_id) > 5 else "")
                raise ConfigError(
                    f"{', '.join(unknown)}: not in {label} ({len(by_id)} cases: {known}); "
                    "`empa cases list` shows them", field="case_ids", flag="--case",
                )  # fmt: skip
            cases = [by_id[i] for i in dict.fromkeys(self.case_ids)]
        if self.limit is not None:
            cases = cases[: self.limit]
        return label, version, cases
