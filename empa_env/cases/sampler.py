"""The stratified sampler: a benchmark-shaped set of any size from any pool of cases.

The paper's 30-case set has 10 cases per dominant axis, 5 per life domain and 4 easy / 10 medium /
11 hard / 5 extreme by ``||P_0||``. :func:`stratified_sample` meets such quotas on every stratum at
once (the quotas constrain the margins of the axis x domain x difficulty table, each cell limited
by what the pool holds). That is a small integer program, solved exactly with HiGHS through
:func:`scipy.optimize.milp`; a seeded random tie-break picks among the many solutions, then the cases
inside each cell are drawn with the same seed. When the pool cannot fill a stratum the sampler
returns the largest sample that never exceeds a quota and lists every shortfall.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from empa_env.cases.schema import DOMAINS, Case
from epm.rubric import AXES, DIFFICULTY_BANDS

THRESHOLDS: tuple[str, ...] = ("high", "medium", "low")
#: Strata a sample can be constrained on (attribute of :class:`Case`) and their values.
STRATA: dict[str, tuple[str, ...]] = {
    "dominant_axis": AXES,
    "domain": DOMAINS,
    "difficulty": DIFFICULTY_BANDS,
    "empathy_threshold": THRESHOLDS,
}
#: The paper's 30-case quotas (Echo-N1 section 5.3.3; EMPA, arXiv 2603.00552).
PAPER_QUOTAS: dict[str, dict[str, int]] = {
    "dominant_axis": {"C": 10, "A": 10, "P": 10},
    "domain": {d: 5 for d in DOMAINS},
    "difficulty": {"easy": 4, "medium": 10, "hard": 11, "extreme": 5},
}
PAPER_SIZE = 30


def scale_quota(base: Mapping[str, int], n: int) -> dict[str, int]:
    """Scale quotas to sum to ``n`` (largest remainder; ties go to the larger base quota, then
    to the earlier value)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    total = sum(base.values())
    if total <= 0:
        raise ValueError("base quotas must have a positive sum")
    exact = {k: v * n / total for k, v in base.items()}
    out = {k: int(np.floor(x)) for k, x in exact.items()}
    keys = list(base)
    order = sorted(keys, key=lambda k: (-(exact[k] - out[k]), -base[k], keys.index(k)))
    for k in order[: n - sum(out.values())]:
        out[k] += 1
    return out


@dataclass(frozen=True)
class Shortfall:
    """A stratum value the pool could not fill."""

    stratum: str
    value: str
    wanted: int
    got: int

    def __str__(self) -> str:
        return f"{self.stratum}={self.value}: wanted {self.wanted}, got {self.got}"


@dataclass(frozen=True)
class StratifiedSample:
    """The drawn cases, the quotas they answer to, the counts reached, and every shortfall."""

    cases: tuple[Case, ...]
    n: int
    seed: int
    quotas: dict[str, dict[str, int]]
    counts: dict[str, dict[str, int]]
    shortfalls: tuple[Shortfall, ...]

    @property
    def complete(self) -> bool:
        """True when every quota is met (so ``len(cases) == n``)."""
        return not self.shortfalls

    def report(self) -> str:
        lines = [f"{len(self.cases)} of {self.n} cases drawn (seed {self.seed})"]
        for stratum, quota in self.quotas.items():
            got = self.counts[stratum]
            cells = ", ".join(f"{v} {got.get(v, 0)}/{q}" for v, q in quota.items())
            lines.append(f"  {stratum}: {cells}")
        if self.shortfalls:
            lines.append(
                "unfilled strata (the pool holds too few cases for these quotas together):"
            )
            lines.extend(f"  - {s}" for s in self.shortfalls)
        return "\n".join(lines)


def _check_quota(stratum: str, quota: Mapping[str, int], n: int) -> dict[str, int]:
    values = STRATA[stratum]
    unknown = sorted(set(quota) - set(values))
    if unknown:
        raise ValueError(
            f"{stratum} quota has unknown values {unknown}; expected some of {list(values)}"
        )
    bad = {k: v for k, v in quota.items() if isinstance(v, bool) or not isinstance(v, int) or v < 0}
    if bad:
        raise ValueError(f"{stratum} quota values must be non-negative integers, got {bad}")
    if sum(quota.values()) != n:
        raise ValueError(f"{stratum} quota sums to {sum(quota.values())}, but n = {n}")
    return {v: int(quota.get(v, 0)) for v in values}


def strata_counts(
    cases: Iterable[Case], strata: Iterable[str] = tuple(STRATA)
) -> dict[str, dict[str, int]]:
    """Counts per value of each stratum (all values listed, zeros included)."""
    cases = list(cases)
    out = {}
    for stratum in strata:
        counter = Counter(getattr(c, stratum) for c in cases)
        out[stratum] = {v: counter.get(v, 0) for v in STRATA[stratum]}
    return out


def stratified_sample(
    pool: Iterable[Case],
    n: int = PAPER_SIZE,
    seed: int = 0,
    axis_quota: Mapping[str, int] | None = None,
    domain_quota: Mapping[str, int] | None = None,
    difficulty_quota: Mapping[str, int] | None = None,
    *,
    threshold_quota: Mapping[str, int] | None = None,
) -> StratifiedSample:
    """Draw ``n`` cases from ``pool`` meeting every quota at once; deterministic per ``seed``.

    Quotas default to the paper's (10/10/10 axes, 5 per domain, 4/10/11/5 difficulty) scaled to
    ``n``; the empathy threshold is unconstrained unless ``threshold_quota`` is given. Each given
    quota must sum to ``n``. The result lists every stratum the pool could not fill.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    cases = sorted(pool, key=lambda c: c.id)
    dupes = sorted(i for i, k in Counter(c.id for c in cases).items() if k > 1)
    if dupes:
        raise ValueError(f"the pool has duplicate case ids: {dupes[:10]}")
    given = {
        "dominant_axis": axis_quota, "domain": domain_quota, "difficulty": difficulty_quota,
        "empathy_threshold": threshold_quota,
    }  # fmt: skip
    quotas: dict[str, dict[str, int]] = {}
    for stratum, quota in given.items():
        if quota is not None:
            quotas[stratum] = _check_quota(stratum, quota, n)
        elif stratum in PAPER_QUOTAS:
            quotas[stratum] = scale_quota(PAPER_QUOTAS[stratum], n)

    rng = np.random.default_rng([seed, n])
    strata = list(quotas)
    cells: dict[tuple[str, ...], list[Case]] = {}
    for case in cases:
        cells.setdefault(tuple(getattr(case, s) for s in strata), []).append(case)
    keys = sorted(cells)
    take = _allocate(keys, [len(cells[k]) for k in keys], strata, quotas, n, rng)

    chosen: list[Case] = []
    for key, k in zip(keys, take, strict=True):
        members = cells[key]
        chosen.extend(members[i] for i in sorted(rng.choice(len(members), size=k, replace=False)))
    chosen.sort(key=lambda c: c.id)
    counts = strata_counts(chosen, strata)
    shortfalls = tuple(
        Shortfall(s, v, q, counts[s][v])
        for s in strata
        for v, q in quotas[s].items()
        if counts[s][v] < q
    )
    return StratifiedSample(tuple(chosen), n, seed, quotas, counts, shortfalls)


def _allocate(
    keys: list[tuple[str, ...]],
    capacity: list[int],
    strata: list[str],
    quotas: dict[str, dict[str, int]],
    n: int,
    rng: np.random.Generator,
) -> list[int]:
    """How many cases to take from each cell: the most cases that keep every stratum within its
    quota (all ``n`` when the pool allows), a seeded random choice among the optimal solutions."""
    from scipy.optimize import Bounds, LinearConstraint, milp  # slow to import; needed only here

    if not keys or n == 0:
        return [0] * len(keys)
    rows, upper = [], []
    for j, stratum in enumerate(strata):
        for value, q in quotas[stratum].items():
            rows.append([1.0 if key[j] == value else 0.0 for key in keys])
            upper.append(q)
    if not rows:  # no stratum constrained: any n cases
        rows, upper = [[1.0] * len(keys)], [n]
    # Maximise the number of cases; the perturbation (< 1 in total) only breaks ties.
    tie_break = rng.uniform(0.0, 0.5 / (n + 1), size=len(keys))
    result = milp(
        c=-(1.0 + tie_break),
        constraints=LinearConstraint(np.array(rows), -np.inf, np.array(upper, dtype=float)),
        integrality=np.ones(len(keys)),
        bounds=Bounds(np.zeros(len(keys)), np.array(capacity, dtype=float)),
    )
    if result.x is None:  # cannot happen: x = 0 is always feasible
        raise RuntimeError(f"stratified allocation failed: {result.message}")
    return [int(round(x)) for x in result.x]


__all__ = [
    "PAPER_QUOTAS", "PAPER_SIZE", "STRATA", "Shortfall", "StratifiedSample", "scale_quota",
    "strata_counts", "stratified_sample",
]  # fmt: skip
