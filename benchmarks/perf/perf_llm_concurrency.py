"""Does the runner overlap LLM calls? The 30-case suite against the scripted server.

Every role (Actor, Director, Judger) is an LLM role talking to the project's scripted
OpenAI-compatible server on localhost, which answers each request after a fixed ``--latency``.
The benchmark runner (:func:`benchmarks.runner.run_benchmark`) plays all 30 episodes at once with
a scripted policy. Within an episode the calls are sequential (opening; then per turn Judger,
Director, Actor), so the **critical path** is the longest episode's number of calls times the
latency: no scheduler can finish sooner. The script prints the wall time against it.

    python benchmarks/perf/perf_llm_concurrency.py [--latency 0.5] [--concurrency 30]

Goal (issue 6): wall time within 1.2x of the critical path at 30-way concurrency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.runner import BenchConfig, RunSummary, run_benchmark  # noqa: E402
from benchmarks.store import RunStore  # noqa: E402
from empa_env.config import EnvConfig  # noqa: E402
from empa_env.policy import load_policy  # noqa: E402
from empa_env.testing.scripted_server import ScriptedLLMServer  # noqa: E402
from epm.trajectory import Trajectory  # noqa: E402

MODEL = "openai/scripted"


def sequential_calls(trajectory: Trajectory) -> int:
    """LLM calls one episode made one after another (no faults, so no retries or re-asks)."""
    calls = 1  # the Actor's opening
    for turn in trajectory.turns:
        calls += 1  # Judger
        calls += turn.director is not None
        calls += bool(turn.user_message)
    return calls


def peak_in_flight(server: ScriptedLLMServer) -> int:
    """The most requests the server was answering at one moment."""
    events = sorted(
        [(r.started, 1) for r in server.requests] + [(r.finished, -1) for r in server.requests]
    )
    peak = current = 0
    for _, step in events:
        current += step
        peak = max(peak, current)
    return peak


async def warm_up(api_base: str) -> None:
    """One call first, so LiteLLM's lazy imports are not timed."""
    from empa_env.llm.client import ClientConfig, LLMClient

    client = LLMClient(ClientConfig(model=MODEL, api_base=api_base))
    messages = [
        {"role": "system", "content": "You are the EMPA Actor."},
        {"role": "user", "content": "hi"},
    ]
    await client.complete(messages, role="actor", prompt_version="warm-up")


def run(latency: float, concurrency: int, policy: str, max_turns: int | None) -> dict[str, float]:
    with ScriptedLLMServer(latency=latency) as server, tempfile.TemporaryDirectory() as tmp:
        spec = f"llm:{MODEL}"
        config = BenchConfig(
            EnvConfig(
                actor=spec,
                director=spec,
                judger=spec,
                max_turns=max_turns,
                llm_options={
                    "api_base": server.api_base,
                    "max_concurrency": max(concurrency, 1) * 2,
                    "timeout": 30 + latency * 4,
                },
            )
        )

        async def timed() -> tuple[RunSummary, float]:
            await warm_up(server.api_base)
            server.reset_log()
            start = time.perf_counter()
            result = await run_benchmark(
                config,
                [policy],
                Path(tmp) / "run",
                concurrency=concurrency,
                progress=False,
                policies=[load_policy(policy)],
            )
            return result, time.perf_counter() - start

        summary, wall = asyncio.run(timed())
        with RunStore(Path(tmp) / "run") as store:
            trajectories = list(store.trajectories().values())
        calls = [sequential_calls(t) for t in trajectories]
        requests = len(server.requests)
        peak = peak_in_flight(server)
    critical = max(calls) * latency
    return {
        "episodes": summary.finished,
        "failed": summary.failed,
        "requests": requests,
        "expected_requests": sum(calls),
        "longest_episode_calls": max(calls),
        "latency_s": latency,
        "critical_path_s": round(critical, 3),
        "wall_s": round(wall, 3),
        "ratio": round(wall / critical, 3),
        "peak_in_flight": peak,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per LLM call")
    parser.add_argument("--concurrency", type=int, default=30, help="episodes at once")
    parser.add_argument("--policy", default="scripted:attuned")
    parser.add_argument("--max-turns", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args()
    result = run(args.latency, args.concurrency, args.policy, args.max_turns)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['episodes']} episodes ({result['failed']} failed), {result['requests']} LLM "
        f"requests (expected {result['expected_requests']}), latency {args.latency:.3f} s/call"
    )
    print(
        f"critical path {result['critical_path_s']:.2f} s "
        f"({result['longest_episode_calls']} sequential calls), wall {result['wall_s']:.2f} s, "
        f"ratio {result['ratio']:.2f}x (goal <= 1.20x); peak {result['peak_in_flight']} requests "
        "in flight"
    )


if __name__ == "__main__":
    main()
