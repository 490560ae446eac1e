"""Speed of the reply guards on *new* replies (nothing cached), per reply.

    python -m benchmarks.perf.perf_guards [--n 3000]

Replies are the semantic corpus's own (every family), each made unique by a suffix so that no
cache answers; the fluency model is built before timing. Prints the median of five batches.
Tests never assert wall-clock times; this script is where the figure comes from.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from empa_env.offline.guards import ReplyGuards
from empa_env.offline.semantic.lab.corpus.generator import corpus_path
from empa_env.roles.views import Message


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=3000, help="replies per batch")
    ap.add_argument("--batches", type=int, default=5)
    args = ap.parse_args(argv)
    path = corpus_path()
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()[: args.n]]
    items = [(r["reply"], tuple(Message("user", c) for c in r["context"])) for r in rows]
    guards = ReplyGuards("en")
    guards.warm_up()
    per_reply = []
    for b in range(args.batches):
        g = ReplyGuards("en")  # fresh caches
        start = time.perf_counter()
        for i, (reply, history) in enumerate(items):
            g.inspect(f"{reply} ({b}.{i})", history, "en")
        per_reply.append((time.perf_counter() - start) / len(items))
    ms = statistics.median(per_reply) * 1e3
    print(f"guards: {ms:.3f} ms per new reply (median of {args.batches} x {len(items)})")


if __name__ == "__main__":
    main()
