"""Throughput of the semantic judge's encoders and of full judge calls, on one core.

    python benchmarks/perf/perf_semantic_judge.py [--tiers minilm static e5] [--n 200]

Prints absolute figures (texts/s, judge calls/s); nothing is asserted. Judge calls are measured
three ways: *cold* (an empty cache: the user's line and the reply are both new), *typical* (the
user's recent lines are cached, as in a conversation, the reply is new) and *repeat* (the same
reply again: everything cached).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

USER_LINES = [
    "The bank app has locked me out. Three days before the rent. Very nice.",
    "I typed the PIN wrong three times and the young man behind me sighed.",
    "My partner got a dream job abroad and I don't want to go.",
    "I said that's amazing. I've not slept properly since.",
]
REPLY_PARTS = [
    "Of course you feel stupid right now, with a stranger sighing behind you.",
    "It sounds like the hardest part isn't the PIN itself but feeling judged while you tried.",
    "What would help you most with the rent this week?",
    "You get to decide what happens next, and you can make that choice on your terms.",
]


def replies(n: int) -> list[str]:
    """``n`` distinct replies of two or three sentences (typical turn length)."""
    out = []
    for i in range(n):
        k = 2 + i % 2
        parts = [REPLY_PARTS[(i + j) % len(REPLY_PARTS)] for j in range(k)]
        out.append(" ".join(parts) + f" ({i})")
    return out


def rate(n: int, seconds: float) -> str:
    return f"{n / seconds:9.1f}/s"


def bench_encoder(tier: str, n: int) -> None:
    from empa_env.offline.semantic.encoder import load_encoder

    texts = replies(n)
    e = load_encoder(tier)
    e.inner.encode(texts[:4])  # warm up
    t = time.perf_counter()
    for text in texts:
        e.inner.encode([text])
    one = time.perf_counter() - t
    t = time.perf_counter()
    e.inner.encode(texts)
    batched = time.perf_counter() - t
    t = time.perf_counter()
    e.encode(texts)
    e.encode(texts)
    print(f"encoder {tier:7} {e.id:32} one-by-one {rate(n, one)}  batched {rate(n, batched)}")


def bench_judge(tier: str, n: int) -> None:
    from empa_env.offline.semantic.encoder import load_encoder
    from empa_env.offline.semantic.judger import SemanticJudger

    texts = replies(n)
    encoder = load_encoder(tier)
    judger = SemanticJudger(tier=tier, encoder=encoder)
    judger.rate(USER_LINES[0], "Warm up.")
    encoder.clear()
    t = time.perf_counter()
    for i, text in enumerate(texts):
        judger.rate(f"{USER_LINES[i % 4]} ({i})", text)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    for i, text in enumerate(texts):
        judger.rate(USER_LINES[i % 4], text + " ")
    typical = time.perf_counter() - t
    t = time.perf_counter()
    for i, text in enumerate(texts):
        judger.rate(USER_LINES[i % 4], text + " ")
    repeat = time.perf_counter() - t
    t = time.perf_counter()
    judger.score_pairs([USER_LINES[i % 4] for i in range(n)], [x + "  " for x in texts])
    batch = time.perf_counter() - t
    print(
        f"judge   {tier:7} cold {rate(n, cold)}  typical (user lines cached) {rate(n, typical)}  "
        f"repeat {rate(n, repeat)}  batched scores {rate(n, batch)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiers", nargs="+", default=["minilm", "static", "e5"])
    parser.add_argument("--n", type=int, default=200)
    args = parser.parse_args()
    for tier in args.tiers:
        try:
            bench_encoder(tier, args.n if tier != "e5" else max(args.n // 4, 10))
        except Exception as exc:  # an optional tier may be missing
            print(f"encoder {tier:7} unavailable: {exc}")
    for tier in args.tiers:
        if tier in ("minilm", "static"):
            bench_judge(tier, args.n)


if __name__ == "__main__":
    main()
