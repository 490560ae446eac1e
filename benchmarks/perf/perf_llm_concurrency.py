"""Does the runner overlap LLM calls? The 30-case suite against the scripted server.

Every role (Actor, Director, Judger) is an LLM role talking to the project's scripted
OpenAI-compatible server on localhost, which answers each request after a fixed ``--latency``.
The benchmark runner (:func:`benchmarks.runner.run_benchmark`) plays all 30 episodes at once with
a scripted policy. Within an episode the calls are sequential (opening; then per turn Judger,
Director, Actor), so the **critical path** is the longest episode's number of calls times the
latency: no scheduler can finish sooner. The script prints the wall time against it.

    python benchmarks/perf/perf_llm_concurrency.py [--latency 0.5] [--concurrency 30]

The roles set no ``max_concurrency`` of their own: each role's limit is sized from
``--concurrency`` (the runner's default, see :func:`empa_env.llm.client.set_default_concurrency`),
and the script prints the limits used. Goal (issue 24): wall time within 1.3x of the critical path
for 30 concurrent all-LLM episodes at 0.5 s latency.

The run is made once per client transport (``--transport``, default both, side by side): the
``openai`` SDK directly (``auto``, what a self-hosted OpenAI-compatible endpoint gets) and
LiteLLM (``litellm``, what it got before and what every other provider gets).

It then measures the client's CPU per call against the same server (no latency, one call at a
time, ``--cpu-calls`` calls each, a request of ten turns of conversation): the client layer with each transport, LiteLLM with the logging
work it lets a caller switch off, and the OpenAI SDK alone (the floor under any wrapper).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.runner import BenchConfig, RunSummary, run_benchmark  # noqa: E402
from benchmarks.store import RunStore  # noqa: E402
from empa_env.config import EnvConfig  # noqa: E402
from empa_env.llm.options import LLMOptions  # noqa: E402
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


async def warm_up(api_base: str, transport: str) -> None:
    """One call first, so LiteLLM's lazy imports are not timed."""
    from empa_env.llm.client import ClientConfig, LLMClient

    client = LLMClient(ClientConfig(model=MODEL, api_base=api_base, transport=transport))
    messages = [
        {"role": "system", "content": "You are the EMPA Actor."},
        {"role": "user", "content": "hi"},
    ]
    await client.complete(messages, role="actor", prompt_version="warm-up")


def run(
    latency: float, concurrency: int, policy: str, max_turns: int | None, transport: str = "auto"
) -> dict[str, Any]:
    with ScriptedLLMServer(latency=latency) as server, tempfile.TemporaryDirectory() as tmp:
        spec = f"llm:{MODEL}"
        config = BenchConfig(
            EnvConfig(
                actor=spec,
                director=spec,
                judger=spec,
                max_turns=max_turns,
                llm_options=LLMOptions(
                    {
                        "api_base": server.api_base,
                        "timeout": 30 + latency * 4,
                        "transport": transport,
                    }
                ),
            )
        )

        async def timed() -> tuple[RunSummary, float, float]:
            await warm_up(server.api_base, transport)
            server.reset_log()
            cpu0 = time.process_time()
            start = time.perf_counter()
            result = await run_benchmark(
                config,
                [policy],
                Path(tmp) / "run",
                concurrency=concurrency,
                progress=False,
                policies=[load_policy(policy)],
            )
            # this process's CPU over the run: runner, roles, client and the server's threads
            return result, time.perf_counter() - start, time.process_time() - cpu0

        summary, wall, cpu = asyncio.run(timed())
        with RunStore(Path(tmp) / "run") as store:
            trajectories = list(store.trajectories().values())
        calls = [sequential_calls(t) for t in trajectories]
        requests = len(server.requests)
        peak = peak_in_flight(server)
    critical = max(calls) * latency
    return {
        "transport": transport,
        "cpu_s": round(cpu, 2),
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
        "per_role_limit": concurrency,
        "role_limits_from": "--concurrency (no max_concurrency set)",
    }


def _cpu_per_call(make_call: Any, calls: int) -> float:
    """Milliseconds of this process's CPU per call, ``calls`` calls one after another."""

    async def go() -> float:
        for _ in range(5):  # warm: imports, connection pools
            await make_call()
        start = time.process_time()
        for _ in range(calls):
            await make_call()
        return (time.process_time() - start) / calls * 1000.0

    return asyncio.run(go())


def client_cpu(calls: int) -> dict[str, float]:
    """CPU per call of the client layer (each transport), of LiteLLM with its optional logging
    work off, and of the OpenAI SDK alone, on the same local server."""
    from empa_env.llm.client import ClientConfig, LLMClient, import_litellm

    # a mid-episode request: the role's instructions and ten turns of conversation
    line = "It has been a long week and I keep going over what my manager said on Monday. "
    messages: list[Any] = [{"role": "system", "content": "You are the EMPA Actor. " + line * 20}]
    for turn in range(10):
        messages.append({"role": "user", "content": f"({turn}) " + line * 2})
        messages.append({"role": "assistant", "content": f"({turn}) That sounds heavy. " + line})
    messages.append({"role": "user", "content": "How was your day?"})
    out: dict[str, float] = {}
    with ScriptedLLMServer(latency=0.0) as server:
        clients = {
            transport: LLMClient(
                ClientConfig(model=MODEL, api_base=server.api_base, transport=transport)
            )
            for transport in ("auto", "litellm")
        }

        def via(transport: str) -> Any:
            return lambda: clients[transport].complete(
                messages, role="actor", prompt_version="cpu", use_cache=False
            )

        out["direct_ms"] = _cpu_per_call(via("auto"), calls)
        out["litellm_ms"] = _cpu_per_call(via("litellm"), calls)
        litellm = import_litellm()
        knobs = {"turn_off_message_logging": True, "disable_token_counter": True,
                 "disable_end_user_cost_tracking": True, "logging": False}  # fmt: skip
        saved = {k: getattr(litellm, k) for k in knobs}
        try:
            for k, v in knobs.items():
                setattr(litellm, k, v)
            out["litellm_trimmed_ms"] = _cpu_per_call(via("litellm"), calls)
        finally:
            for k, v in saved.items():
                setattr(litellm, k, v)
        from openai import AsyncOpenAI

        sdk = AsyncOpenAI(base_url=server.api_base, api_key="no-key", max_retries=0)

        def via_sdk() -> Any:
            return sdk.chat.completions.create(
                model="scripted", messages=messages, temperature=0.0, max_tokens=1024
            )

        out["openai_sdk_ms"] = _cpu_per_call(via_sdk, calls)
    return {k: round(v, 2) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per LLM call")
    parser.add_argument("--concurrency", type=int, default=30, help="episodes at once")
    parser.add_argument("--policy", default="scripted:attuned")
    parser.add_argument("--max-turns", type=int, default=None)
    parser.add_argument(
        "--transport", choices=("both", "auto", "litellm"), default="both",
        help="client transport of the run: auto (openai SDK for this endpoint), litellm, both",
    )  # fmt: skip
    parser.add_argument("--cpu-calls", type=int, default=200, help="calls per CPU measurement")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args()
    transports = ("auto", "litellm") if args.transport == "both" else (args.transport,)
    runs = [run(args.latency, args.concurrency, args.policy, args.max_turns, t) for t in transports]
    result: dict[str, Any] = {"runs": runs}
    if args.cpu_calls > 0:
        result["client_cpu_per_call"] = client_cpu(args.cpu_calls)
    if args.json:
        print(json.dumps(result))
        return
    names = {"auto": "openai SDK direct (auto)", "litellm": "LiteLLM (transport=litellm)"}
    first = runs[0]
    print(
        f"{first['episodes']} episodes per run, latency {args.latency:.3f} s/call, critical path "
        f"{first['critical_path_s']:.2f} s ({first['longest_episode_calls']} sequential calls); "
        f"limits: {first['per_role_limit']} requests in flight per role (Actor, Director, Judger "
        f"each), from --concurrency {args.concurrency}; load average {os.getloadavg()[0]:.2f}"
    )
    for r in runs:
        print(
            f"  {names[r['transport']]:28s} wall {r['wall_s']:6.2f} s  ratio {r['ratio']:.2f}x "
            f"(goal <= 1.30x)  CPU {r['cpu_s']:6.2f} s  {r['requests']} requests (expected "
            f"{r['expected_requests']}), {r['failed']} failed, peak {r['peak_in_flight']} in flight"
        )
    cpu = result.get("client_cpu_per_call")
    if cpu:
        print(
            "client CPU per call: "
            + ", ".join(
                f"{name} {cpu[key]:.2f} ms"
                for name, key in (
                    ("client via openai SDK (auto)", "direct_ms"),
                    ("client via LiteLLM", "litellm_ms"),
                    ("client via LiteLLM, optional logging off", "litellm_trimmed_ms"),
                    ("OpenAI SDK alone", "openai_sdk_ms"),
                )
                if key in cpu
            )
        )


if __name__ == "__main__":
    main()
