"""Memory of one environment process over many episodes: the offline roles' caches must stay
bounded (goal: < 100 MB of growth per env process after 2,000 episodes).

    python benchmarks/perf/perf_memory.py --episodes 2000 [--judger offline|lexicon]

Prints the resident set size (RSS) before the first episode, after warm-up, and every 500
episodes. Replies vary (word, name and number slots) so that caches keyed by text keep filling.
``--long-replies N`` instead rates N unique 16,000-character replies: the judge's caches are
bounded in bytes, so RSS plateaus (measured: 118 MB at start, 172-175 MB from 150 to 600).
"""

from __future__ import annotations

import argparse
import resource
import time


def rss_mb() -> float:
    """The current resident set size in MB (from /proc; the peak on other systems)."""
    try:
        with open("/proc/self/status", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


TEMPLATES = (
    "That sounds really hard, {n}. What part of {w} weighs on you most?",
    "It makes sense you feel {w} after all {k} of those days.",
    "You kept going through {w}; what helped you, {n}?",
    "So the {w} is what hurts most right now? Tell me more about day {k}.",
)
WORDS = ("work", "the move", "your sister", "the exam", "money", "the silence", "tired", "alone")
NAMES = ("Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Goran", "Hana")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--judger", default="offline", help="judge spec (default: the default)")
    parser.add_argument("--max-turns", type=int, default=14)
    parser.add_argument(
        "--long-replies",
        type=int,
        default=0,
        metavar="N",
        help="instead: judge N unique replies of 16,000 characters (the judge's caches must stay "
        "bounded in bytes; issue 26) and print RSS every N/8",
    )
    args = parser.parse_args(argv)
    if args.long_replies:
        return long_replies(args.long_replies, args.judger)

    from empa_env import EMPAEnv

    start = rss_mb()
    env = EMPAEnv(judger=args.judger, max_turns=args.max_turns)
    t0 = time.perf_counter()
    steps = 0
    warm = None
    for episode in range(args.episodes):
        env.reset(seed=episode)
        turn = 0
        while True:
            k = episode * 7 + turn
            reply = TEMPLATES[k % 4].format(n=NAMES[k % 8], w=WORDS[(k // 3) % 8], k=k % 97)
            *_, terminated, truncated, _ = env.step(reply)
            steps += 1
            turn += 1
            if terminated or truncated:
                break
        if episode == 49:
            warm = rss_mb()
        if (episode + 1) % 500 == 0:
            print(
                f"{episode + 1:>6} episodes  {steps:>7} steps  RSS {rss_mb():7.1f} MB  "
                f"({steps / (time.perf_counter() - t0):.0f} steps/s)",
                flush=True,
            )
    end = rss_mb()
    print(
        f"judger={args.judger}: RSS {start:.1f} MB at start, {warm or end:.1f} MB after 50 "
        f"episodes, {end:.1f} MB after {args.episodes}: growth after warm-up "
        f"{end - (warm or start):.1f} MB"
    )
    return 0


def long_replies(n: int, judger: str) -> int:
    """RSS while the judge rates ``n`` unique 16,000-character replies."""
    import random

    from empa_env.backends import judgers
    from empa_env.roles.views import JudgeView, Message

    judge = judgers.create(judger)
    rng = random.Random(0)
    vocabulary = [w for t in TEMPLATES for w in t.replace("{", " ").replace("}", " ").split()]
    user = (Message("user", "The bank app locked me out three days before the rent."),)
    start = rss_mb()
    print(f"RSS {start:.1f} MB before the first reply", flush=True)
    t0 = time.perf_counter()
    for i in range(n):
        reply = " ".join(rng.choice(vocabulary) for _ in range(3200))[:15990] + f" {i}."
        judge.judge(JudgeView(None, user, reply, 1))  # type: ignore[arg-type]
        if (i + 1) % max(1, n // 8) == 0:
            print(f"{i + 1:>6} replies  RSS {rss_mb():7.1f} MB  "
                  f"({(i + 1) / (time.perf_counter() - t0):.1f} replies/s)", flush=True)  # fmt: skip
    print(
        f"judger={judger}: {n} unique 16k-character replies, RSS {start:.1f} -> {rss_mb():.1f} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
