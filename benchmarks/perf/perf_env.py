"""Offline environment throughput on one core: ``env.step`` calls per second and episodes per second.

Replies are recorded first (by the scripted ``attuned`` and ``advice_giver`` policies), then
replayed, so the figures measure the environment (Judger, Director, Actor, physics), not the policy.

    python benchmarks/perf/perf_env.py [--repeats 3]

Goals (issue 4): >= 5,000 steps/s; the whole 30-case suite with one policy in < 2 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from baselines.policies.scripted import SCRIPTED  # noqa: E402
from empa_env.env import EMPAEnv  # noqa: E402
from empa_env.offline.judger import analyse, analyse_user  # noqa: E402


def record(env: EMPAEnv, policy_name: str) -> list[tuple[str, list[str]]]:
    policy = SCRIPTED[policy_name]()
    episodes = []
    for case in env.cases:
        env.reset(seed=0, options={"case": case})
        replies = []
        while True:
            reply = policy.reply(env.messages)
            replies.append(reply)
            *_, term, trunc, _ = env.step(reply)
            if term or trunc:
                break
        episodes.append((case.id, replies))
    return episodes


def replay(env: EMPAEnv, episodes: list[tuple[str, list[str]]]) -> tuple[int, float]:
    analyse.cache_clear()  # every reply is new to the Judger, as in a real run
    analyse_user.cache_clear()  # and so is every line of the simulated user (worst case)
    steps = 0
    start = time.perf_counter()
    for case_id, replies in episodes:
        env.reset(seed=0, options={"case": case_id})
        for reply in replies:
            env.step(reply)
            steps += 1
    return steps, time.perf_counter() - start


def suite_with_policy(env: EMPAEnv, policy_name: str) -> tuple[int, float]:
    """The whole suite, policy included, as a user would run it."""
    policy = SCRIPTED[policy_name]()
    start = time.perf_counter()
    steps = 0
    for case in env.cases:
        env.reset(seed=0, options={"case": case})
        while True:
            *_, term, trunc, _ = env.step(policy.reply(env.messages))
            steps += 1
            if term or trunc:
                break
    return steps, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    env = EMPAEnv("empa30-v1")
    for name in ("attuned", "advice_giver"):
        episodes = record(env, name)
        rates, times = [], []
        for _ in range(args.repeats):
            steps, seconds = replay(env, episodes)
            rates.append(steps / seconds)
            times.append(seconds)
        n_ep = len(episodes)
        print(
            f"[{name:12s}] env only: {statistics.median(rates):8.0f} steps/s "
            f"({steps} steps, {n_ep} episodes, {n_ep / statistics.median(times):6.1f} episodes/s)"
        )
        steps, seconds = suite_with_policy(env, name)
        print(f"[{name:12s}] 30-case suite incl. policy: {seconds:.3f} s ({steps} steps)")


if __name__ == "__main__":
    main()
