"""Cases: the format, loading and validation, the generated training pool, suites and sampling.

* :mod:`~empa_env.cases.schema` - the typed case format (``Case`` and its parts).
* :mod:`~empa_env.cases.loader` - YAML / JSON files in and out, errors naming file and field.
* :mod:`~empa_env.cases.generator` - the seeded procedural generator (``CaseGenerator`` protocol).
* :mod:`~empa_env.cases.suites` - suites by id (``empa.suites`` entry points), the training pool,
  and :func:`resolve_pool`.
* :mod:`~empa_env.cases.sampler` - stratified, benchmark-shaped samples from any pool.
"""

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

__all__ = [
    "DOMAINS", "PAPER_QUOTAS", "STAGE_KINDS", "STANCES",
    "Case", "CaseError", "CaseGenerator", "CaseIssue", "LevelSampler", "ProceduralGenerator",
    "Shortfall", "StratifiedSample", "Suite", "SuiteError",
    "available_suites", "dump_case", "generate_cases", "load_case", "load_directory", "load_suite",
    "parse_case", "resolve_pool", "strata_counts", "stratified_sample", "training_pool",
]  # fmt: skip
