"""Cases: the format, loading and validation, the generated training pool, suites and sampling.

* :mod:`~empa_env.cases.schema` - the typed case format (``Case`` and its parts).
* :mod:`~empa_env.cases.loader` - YAML / JSON files in and out, errors naming file and field.
* :mod:`~empa_env.cases.generator` - the seeded procedural generator (``CaseGenerator`` protocol).
* :mod:`~empa_env.cases.suites` - suites by id (``empa.suites`` entry points), the training pool,
  and :func:`resolve_pool`.
* :mod:`~empa_env.cases.sampler` - stratified, benchmark-shaped samples from any pool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from empa_env.lazy import lazy_exports

if TYPE_CHECKING:
    from empa_env.cases.generator import (
        CaseGenerator,
        LevelSampler,
        ProceduralGenerator,
        generate_cases,
    )
    from empa_env.cases.loader import (
        CaseError,
        CaseIssue,
        dump_case,
        load_case,
        load_directory,
        parse_case,
    )
    from empa_env.cases.sampler import (
        PAPER_QUOTAS,
        Shortfall,
        StratifiedSample,
        strata_counts,
        stratified_sample,
    )
    from empa_env.cases.schema import DOMAINS, STAGE_KINDS, STANCES, Case
    from empa_env.cases.suites import (
        Suite,
        SuiteError,
        available_suites,
        load_suite,
        resolve_pool,
        training_pool,
    )

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CaseGenerator": "empa_env.cases.generator",
        "LevelSampler": "empa_env.cases.generator",
        "ProceduralGenerator": "empa_env.cases.generator",
        "generate_cases": "empa_env.cases.generator",
        "CaseError": "empa_env.cases.loader",
        "CaseIssue": "empa_env.cases.loader",
        "dump_case": "empa_env.cases.loader",
        "load_case": "empa_env.cases.loader",
        "load_directory": "empa_env.cases.loader",
        "parse_case": "empa_env.cases.loader",
        "PAPER_QUOTAS": "empa_env.cases.sampler",
        "Shortfall": "empa_env.cases.sampler",
        "StratifiedSample": "empa_env.cases.sampler",
        "strata_counts": "empa_env.cases.sampler",
        "stratified_sample": "empa_env.cases.sampler",
        "DOMAINS": "empa_env.cases.schema",
        "STAGE_KINDS": "empa_env.cases.schema",
        "STANCES": "empa_env.cases.schema",
        "Case": "empa_env.cases.schema",
        "Suite": "empa_env.cases.suites",
        "SuiteError": "empa_env.cases.suites",
        "available_suites": "empa_env.cases.suites",
        "load_suite": "empa_env.cases.suites",
        "resolve_pool": "empa_env.cases.suites",
        "training_pool": "empa_env.cases.suites",
    },
)

__all__ = [
    "DOMAINS", "PAPER_QUOTAS", "STAGE_KINDS", "STANCES",
    "Case", "CaseError", "CaseGenerator", "CaseIssue", "LevelSampler", "ProceduralGenerator",
    "Shortfall", "StratifiedSample", "Suite", "SuiteError",
    "available_suites", "dump_case", "generate_cases", "load_case", "load_directory", "load_suite",
    "parse_case", "resolve_pool", "strata_counts", "stratified_sample", "training_pool",
]  # fmt: skip
