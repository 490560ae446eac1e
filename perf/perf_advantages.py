"""Time every advantage estimator on one batch of B cases x K rollouts x T turns, on one core.

    python -m perf.perf_advantages            # B = 32, K = 4, T = 45 (the issue's target)
    python -m perf.perf_advantages --b 64 --t 30

Lengths are drawn in [min_turns, T] so the batch is ragged, as real episodes are. Prints the
median and best time per batch (microseconds) over several repeats of many calls each.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core, as the target says; must precede numpy

import argparse  # noqa: E402
import functools  # noqa: E402
import statistics  # noqa: E402
import timeit  # noqa: E402
from collections.abc import Sequence  # noqa: E402

import numpy as np  # noqa: E402

from baselines.advantages import compute_advantages, estimators  # noqa: E402


def time_estimators(
    b: int = 32,
    k: int = 4,
    t: int = 45,
    min_turns: int = 12,
    number: int = 200,
    repeat: int = 7,
    seed: int = 0,
) -> dict[str, tuple[float, float]]:
    """``{estimator: (median_seconds, best_seconds)}`` per batch."""
    rng = np.random.default_rng(seed)
    rewards = rng.normal(size=(b, k, t))
    lengths = rng.integers(min(min_turns, t), t + 1, size=(b, k))
    out = {}
    for name in estimators.names():
        compute_advantages(name, rewards, lengths)  # warm the discount-matrix cache
        call = functools.partial(compute_advantages, name, rewards, lengths)
        runs = timeit.repeat(call, number=number, repeat=repeat)
        per_call = [r / number for r in runs]
        out[name] = (statistics.median(per_call), min(per_call))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--b", type=int, default=32, help="cases per batch")
    parser.add_argument("--k", type=int, default=4, help="rollouts per case")
    parser.add_argument("--t", type=int, default=45, help="max turns")
    parser.add_argument("--number", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    results = time_estimators(args.b, args.k, args.t, number=args.number, repeat=args.repeat)
    print(f"advantages per batch: B={args.b} x K={args.k} x T={args.t} (one thread)")
    print(f"{'estimator':<24}{'median us':>12}{'best us':>12}")
    for name, (median, best) in results.items():
        print(f"{name:<24}{median * 1e6:>12.1f}{best * 1e6:>12.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
