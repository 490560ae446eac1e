"""How fast is the EPM? Time every metric, index and the EPM-Index over many synthetic episodes.

    python -m benchmarks.perf.perf_epm --episodes 10000 --turns 45 --repeats 5

Synthetic episodes come from a seeded numpy RNG and go through the real rubrics: nine IEDR levels
per case give ``P_0``; per turn, six MDEP-PR levels (``X_Prog_level`` in {0, 1, 2},
``X_Neg_level`` in {0, -1, -2}) give ``v_t``. Episode lengths are drawn between ``min_turns`` and
``--turns``. The script prints the time of :func:`epm.evaluate_batch` (all nine metrics, nine
indices, three dimension indices and the EPM-Index for every episode), the microseconds per
episode, and the turn-by-turn :class:`epm.EPMTracker` throughput in steps per second.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass

import numpy as np

from epm import evaluate_batch, get_preset
from epm.rubric import AXES, IEDR_SCORES, NEG_SCORES, PROG_SCORES
from epm.tracker import EPMTracker


@dataclass
class SyntheticEpisodes:
    """``p0`` ``(N, 3)``, ``v`` ``(N, T, 3)``, raw ``levels`` ``(N, T, 6)``, ``lengths``."""

    p0: np.ndarray
    v: np.ndarray
    levels: np.ndarray
    lengths: np.ndarray


def synthetic_episodes(
    episodes: int, turns: int, seed: int = 0, min_turns: int = 12
) -> SyntheticEpisodes:
    """Random but rubric-valid episodes: ``P_0`` from IEDR levels, ``v_t`` from MDEP-PR levels.

    Progress levels lean positive (probabilities 0.3 / 0.45 / 0.25 for 0 / 1 / 2) and negative
    levels are rarer (0.7 / 0.2 / 0.1 for 0 / -1 / -2), roughly like a decent policy.
    """
    rng = np.random.default_rng(seed)
    iedr_levels = rng.integers(0, 4, size=(episodes, len(IEDR_SCORES)))
    p0 = np.zeros((episodes, 3))
    for j, (indicator, scores) in enumerate(IEDR_SCORES.items()):
        p0[:, AXES.index(indicator[0])] += np.asarray(scores, dtype=float)[iedr_levels[:, j]]

    prog = rng.choice(3, size=(episodes, turns, 3), p=[0.3, 0.45, 0.25])
    neg = -rng.choice(3, size=(episodes, turns, 3), p=[0.7, 0.2, 0.1])
    prog_score = np.array([PROG_SCORES[k] for k in (0, 1, 2)], dtype=float)
    v = prog_score[prog]
    for k, axis in enumerate(AXES):
        neg_score = np.array([NEG_SCORES[axis][-k2] for k2 in (0, 1, 2)], dtype=float)
        v[..., k] += neg_score[-neg[..., k]]
    levels = np.concatenate([prog, neg], axis=-1).astype(float)
    low = min(min_turns, turns)
    lengths = rng.integers(low, turns + 1, size=episodes)
    return SyntheticEpisodes(p0=p0, v=v, levels=levels, lengths=lengths)


@dataclass
class PerfResult:
    episodes: int
    turns: int
    repeats: int
    preset: str
    batch_seconds_best: float
    batch_seconds_median: float
    microseconds_per_episode: float
    tracker_steps: int
    tracker_steps_per_second: float
    mean_epm_index: float


def time_batch(data: SyntheticEpisodes, preset: str, repeats: int) -> tuple[list[float], float]:
    """Wall-clock seconds of each :func:`epm.evaluate_batch` call, and the mean EPM-Index."""
    config = get_preset(preset)
    evaluate_batch(data.p0[:8], data.v[:8], data.levels[:8], data.lengths[:8], config)  # warm-up
    seconds = []
    out: dict[str, np.ndarray] = {}
    for _ in range(repeats):
        start = time.perf_counter()
        out = evaluate_batch(data.p0, data.v, data.levels, data.lengths, config)
        seconds.append(time.perf_counter() - start)
    return seconds, float(np.mean(out["EPM_Index"]))


def time_tracker(data: SyntheticEpisodes, preset: str, max_episodes: int) -> tuple[int, float]:
    """Steps and seconds of :class:`EPMTracker` run turn by turn with the ending rules."""
    config = get_preset(preset)
    n = min(max_episodes, len(data.p0))
    rows = [(data.p0[i], data.v[i, : data.lengths[i]].tolist()) for i in range(n)]
    steps = 0
    start = time.perf_counter()
    for p0, increments in rows:
        tracker = EPMTracker(p0, config)
        for v in increments:
            _, status = tracker.step(v)
            steps += 1
            if status.done:
                break
    return steps, time.perf_counter() - start


def run(
    episodes: int = 10_000,
    turns: int = 45,
    repeats: int = 5,
    seed: int = 0,
    preset: str = "official",
    tracker_episodes: int = 2_000,
) -> PerfResult:
    data = synthetic_episodes(episodes, turns, seed, get_preset(preset).ending.min_turns)
    seconds, mean_index = time_batch(data, preset, repeats)
    steps, tracker_seconds = time_tracker(data, preset, tracker_episodes)
    best = min(seconds)
    return PerfResult(
        episodes=episodes,
        turns=turns,
        repeats=repeats,
        preset=preset,
        batch_seconds_best=best,
        batch_seconds_median=statistics.median(seconds),
        microseconds_per_episode=best / max(episodes, 1) * 1e6,
        tracker_steps=steps,
        tracker_steps_per_second=steps / tracker_seconds if tracker_seconds > 0 else float("inf"),
        mean_epm_index=mean_index,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=45, help="maximum turns per episode")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--preset", default="official", choices=["official", "paper"])
    parser.add_argument(
        "--tracker-episodes", type=int, default=2_000, help="episodes stepped through the tracker"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if args.episodes < 1 or args.turns < 1 or args.repeats < 1:
        parser.error("--episodes, --turns and --repeats must be >= 1")
    result = run(
        args.episodes, args.turns, args.repeats, args.seed, args.preset, args.tracker_episodes
    )
    if args.json:
        print(json.dumps(asdict(result), indent=2))
        return 0
    print(
        f"epm.evaluate_batch ({result.preset}): {result.episodes} episodes x up to "
        f"{result.turns} turns, best of {result.repeats}: {result.batch_seconds_best:.4f} s "
        f"(median {result.batch_seconds_median:.4f} s), "
        f"{result.microseconds_per_episode:.2f} us/episode"
    )
    print(
        f"EPMTracker ({result.preset}): {result.tracker_steps} steps, "
        f"{result.tracker_steps_per_second:,.0f} steps/s"
    )
    print(f"mean EPM-Index of the synthetic episodes: {result.mean_epm_index:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
