"""Offline environment throughput on one core: ``env.step`` calls per second and episodes per second.

Replies are recorded first (by the scripted ``attuned`` and ``advice_giver`` policies), then
replayed, so the figures measure the environment (Judger, Director, Actor, physics), not the policy.
Each judge is measured side by side in one run (the machine's load affects them alike):

    python benchmarks/perf/perf_env.py [--repeats 3] [--judger offline --judger lexicon ...]

Run it pinned to one core for the one-core figure: ``taskset -c 0 python ...``. The replay is
timed in CPU seconds of this process (the machine's other load does not count) and clears every
cache of analysed text first (:func:`clear_caches`: every reply and user line is new), the "warm"
figure keeps them (a case played again, as in training).

Goals: the default judge >= 100 steps/s on one core (issue 14); the lexicon judge was >= 5,000.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from empa_env.env import EMPAEnv  # noqa: E402
from empa_env.offline.judger import analyse, analyse_user  # noqa: E402
from empa_env.policy import load_policy  # noqa: E402

JUDGES = ("offline", "semantic:minilm", "lexicon")


def clear_caches(env: EMPAEnv) -> None:
    """Forget every analysed text, so every reply and user line is new to the Judger: the phrase
    judge's analyses, the encoder's vectors, the guards' reply facts, fluency scores and tokens,
    and the text layer's reading forms (truly cold)."""
    from empa_env.offline import guards as guards_module
    from empa_env.text import _reading

    analyse.cache_clear()
    analyse_user.cache_clear()
    guards_module._tokens.cache_clear()
    guards_module.script_of.cache_clear()
    _reading.cache_clear()
    judge = env.roles.judger
    for inner in (judge, getattr(judge, "inner", None)):
        encoder = getattr(inner, "encoder", None)
        if encoder is not None and hasattr(encoder, "clear"):
            encoder.clear()
    guards = getattr(judge, "guards", None)
    for cache in ("_facts", "_fluent"):
        fn = getattr(guards, cache, None)
        if fn is not None and hasattr(fn, "cache_clear"):
            fn.cache_clear()


def record(env: EMPAEnv, policy_name: str) -> list[tuple[str, list[str]]]:
    policy = load_policy(f"scripted:{policy_name}")
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


def replay(
    env: EMPAEnv, episodes: list[tuple[str, list[str]]], cold: bool = True
) -> tuple[int, float]:
    if cold:
        clear_caches(env)
    steps = 0
    start = time.process_time()
    for case_id, replies in episodes:
        env.reset(seed=0, options={"case": case_id})
        for reply in replies:
            env.step(reply)
            steps += 1
    return steps, time.process_time() - start


def suite_with_policy(env: EMPAEnv, policy_name: str) -> tuple[int, float]:
    """The whole suite, policy included, as a user would run it."""
    policy = load_policy(f"scripted:{policy_name}")
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
    parser.add_argument(
        "--judger", action="append", help=f"judge spec to measure (repeatable; default {JUDGES})"
    )
    args = parser.parse_args()
    for judger in args.judger or JUDGES:
        env = EMPAEnv("empa30-v1", judger=judger)
        for name in ("attuned", "advice_giver"):
            episodes = record(env, name)
            rates, times = [], []
            for _ in range(args.repeats):
                steps, seconds = replay(env, episodes)
                rates.append(steps / seconds)
                times.append(seconds)
            warm_steps, warm_seconds = replay(env, episodes, cold=False)
            n_ep = len(episodes)
            print(
                f"[{judger:16s} {name:12s}] env only: {statistics.median(rates):8.0f} steps per "
                f"CPU-second cold, {warm_steps / warm_seconds:8.0f} warm ({steps} steps, {n_ep} episodes, "
                f"{n_ep / statistics.median(times):6.1f} episodes/s)",
                flush=True,
            )
            steps, seconds = suite_with_policy(env, name)
            print(
                f"[{judger:16s} {name:12s}] 30-case suite incl. policy: {seconds:.3f} s "
                f"({steps} steps)",
                flush=True,
            )


if __name__ == "__main__":
    main()
