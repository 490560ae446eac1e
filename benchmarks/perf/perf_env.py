"""Offline environment throughput on one core: ``env.step`` calls per second and episodes per second.

Replies are recorded first (by the scripted ``attuned`` and ``advice_giver`` policies), then
replayed, so the figures measure the environment (Judger, Director, Actor, physics), not the policy.
Each judge is measured side by side in one run (the machine's load affects them alike):

    python benchmarks/perf/perf_env.py [--repeats 3] [--judger offline --judger lexicon ...]
                                       [--lockstep 16]

Run it pinned to one core for the one-core figure: ``taskset -c 0 python ...``. The replay is
timed in CPU seconds of this process (the machine's other load does not count) and clears every
cache of analysed text first (:func:`clear_caches`: every reply and user line is new), the "warm"
figure keeps them (a case played again, as in training).

``--lockstep N`` also plays N cases in lockstep from a cold start twice, with one batched judge
call per turn (:func:`~empa_env.rollout.play_lockstep`) and with one judge call per step, and
prints both (alternating, twice, so that the machine's drift shows).

Goals: the default judge >= 200 steps per CPU-second on one core with every cache cleared
(issue 21); the lexicon judge was >= 5,000.
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
    judge's analyses, the encoder's vectors and every bounded cache (the guards' reply facts,
    fluency scores and tokens, the text layer's reading forms, the grounding readings and content
    stems): truly cold."""
    from empa_env.bounded_cache import clear_all
    from empa_env.offline import guards as guards_module

    analyse.cache_clear()
    analyse_user.cache_clear()
    guards_module.script_of.cache_clear()
    clear_all()
    judge = env.roles.judger
    for inner in (judge, getattr(judge, "inner", None)):
        encoder = getattr(inner, "encoder", None)
        if encoder is not None and hasattr(encoder, "clear"):
            encoder.clear()


def lockstep(judger: str, n: int, batched: bool) -> tuple[int, float]:
    """``n`` cases played in lockstep by ``attuned`` from a cold start: steps and CPU seconds.
    ``batched``: :func:`~empa_env.rollout.play_lockstep` (one ``judge_batch`` call per turn);
    otherwise the same loop stepping each environment with its own judge call."""
    from empa_env.rollout import play_lockstep

    policy = load_policy("scripted:attuned")
    envs = [EMPAEnv("empa30-v1", judger=judger) for _ in range(n)]
    cases = [c.id for c in list(envs[0].cases)[:n]]
    clear_caches(envs[0])
    start = time.process_time()
    if batched:
        played = play_lockstep(
            envs, lambda hs: [policy.reply(h) for h in hs], cases=cases, seeds=[0] * n
        )
        steps = sum(len(e) for e in played)
    else:
        steps = 0
        for env, case in zip(envs, cases, strict=True):
            env.reset(seed=0, options={"case": case})
        alive = list(range(n))
        while alive:
            replies = [policy.reply(envs[i].messages) for i in alive]
            still = []
            for i, reply in zip(alive, replies, strict=True):
                *_, term, trunc, _ = envs[i].step(reply)
                steps += 1
                if not (term or trunc):
                    still.append(i)
            alive = still
    return steps, time.process_time() - start


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
    parser.add_argument(
        "--lockstep", type=int, default=16, help="environments of the lockstep comparison (0: skip)"
    )
    args = parser.parse_args()
    for judger in args.judger or JUDGES:
        if args.lockstep and judger != "lexicon":
            for batched in (False, True, False, True):
                steps, seconds = lockstep(judger, args.lockstep, batched)
                how = "one judge_batch call per turn" if batched else "one judge call per step"
                print(
                    f"[{judger:16s} lockstep x{args.lockstep}] {how:30s}: {steps / seconds:6.0f} "
                    f"steps per CPU-second cold ({steps} steps, {seconds:.2f} CPU-s)",
                    flush=True,
                )
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
