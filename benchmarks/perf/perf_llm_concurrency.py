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
and the script prints the limits used. Goals (issues 24 and 33): wall time within 1.3x of the
critical path for 30 concurrent all-LLM episodes at 0.5 s latency (1.5x at a load of 4 on 2
cores).

The run is made once per client transport (``--transport``, default both, side by side): plain
HTTP to the endpoint (``auto``, what a self-hosted OpenAI-compatible endpoint gets) and LiteLLM
(``litellm``, what every other provider gets).

It then measures the client's CPU per call against the same server (no latency, one call at a
time, ``--cpu-calls`` calls each, a request of ten turns of conversation): the client layer with
each transport, LiteLLM alone and the OpenAI SDK alone (what the layers below cost by
themselves). Goals (issue 33): 1.5 ms through the direct transport, 4 ms through LiteLLM.

The server runs in a process of its own (the file ``empa_env/testing/scripted_server.py`` of this
checkout, as an endpoint would be another process): the CPU figures are the client's, not the
server's, and the server's threads do not compete with the run for this process's interpreter.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.runner import BenchConfig, RunSummary, run_benchmark  # noqa: E402
from benchmarks.store import RunStore  # noqa: E402
from empa_env.config import EnvConfig  # noqa: E402
from empa_env.llm.options import LLMOptions  # noqa: E402
from empa_env.policy import load_policy  # noqa: E402
from epm.trajectory import Trajectory  # noqa: E402

MODEL = "openai/scripted"
#: The scripted server of this checkout, run as a file in a process of its own.
SERVER_FILE = Path(__file__).resolve().parents[2] / "empa_env" / "testing" / "scripted_server.py"


class ServerProcess:
    """The scripted server in a process of its own (``with ServerProcess(latency) as s:``):
    ``api_base``, the request log (:meth:`requests`) and :meth:`reset_log` over HTTP."""

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency
        self.process: subprocess.Popen[str] | None = None
        self.api_base = ""

    def __enter__(self) -> ServerProcess:
        command = [sys.executable, str(SERVER_FILE), "--port", "0", "--latency", str(self.latency)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.api_base = self.process.stdout.readline().strip().rpartition(" ")[2]
        if not self.api_base.startswith("http"):
            self.__exit__()
            raise RuntimeError(f"the scripted server did not start ({self.api_base!r})")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            if self.process.stdout is not None:
                self.process.stdout.close()

    def _log(self, method: str) -> Any:
        root = self.api_base.removesuffix("/v1")
        request = urllib.request.Request(f"{root}/_log", method=method)
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())

    def requests(self) -> list[dict[str, Any]]:
        return list(self._log("GET")["requests"])

    def reset_log(self) -> None:
        self._log("DELETE")


def sequential_calls(trajectory: Trajectory) -> int:
    """LLM calls one episode made one after another (no faults, so no retries or re-asks)."""
    calls = 1  # the Actor's opening
    for turn in trajectory.turns:
        calls += 1  # Judger
        calls += turn.director is not None
        calls += bool(turn.user_message)
    return calls


def peak_in_flight(requests: list[dict[str, Any]]) -> int:
    """The most requests the server was answering at one moment."""
    events = sorted([(r["started"], 1) for r in requests] + [(r["finished"], -1) for r in requests])
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
    with ServerProcess(latency) as server, tempfile.TemporaryDirectory() as tmp:
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
            # this process's CPU over the run: runner, roles and client (the server is apart)
            return result, time.perf_counter() - start, time.process_time() - cpu0

        summary, wall, cpu = asyncio.run(timed())
        with RunStore(Path(tmp) / "run") as store:
            trajectories = list(store.trajectories().values())
        calls = [sequential_calls(t) for t in trajectories]
        log = server.requests()
        requests, peak = len(log), peak_in_flight(log)
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
    """CPU per call of the client layer (each transport), of LiteLLM alone and of the OpenAI
    SDK alone, on the same local server."""
    from empa_env.llm.client import ClientConfig, LLMClient
    from empa_env.llm.litellm_setup import import_litellm

    # a mid-episode request: the role's instructions and ten turns of conversation
    line = "It has been a long week and I keep going over what my manager said on Monday. "
    messages: list[Any] = [{"role": "system", "content": "You are the EMPA Actor. " + line * 20}]
    for turn in range(10):
        messages.append({"role": "user", "content": f"({turn}) " + line * 2})
        messages.append({"role": "assistant", "content": f"({turn}) That sounds heavy. " + line})
    messages.append({"role": "user", "content": "How was your day?"})
    out: dict[str, float] = {}
    with ServerProcess(0.0) as server:
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

        def via_litellm() -> Any:
            return litellm.acompletion(
                model=MODEL, messages=messages, api_base=server.api_base, api_key="no-key",
                timeout=60.0, num_retries=0, temperature=0.0, max_tokens=1024,
            )  # fmt: skip

        out["litellm_alone_ms"] = _cpu_per_call(via_litellm, calls)
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
        help="client transport of the run: auto (direct HTTP to this endpoint), litellm, both",
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
    names = {"auto": "direct HTTP (auto)", "litellm": "LiteLLM (transport=litellm)"}
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
            f"client CPU per call (goals: direct <= 1.5 ms, via LiteLLM <= 4 ms; load average "
            f"{os.getloadavg()[0]:.2f}): "
            + ", ".join(
                f"{name} {cpu[key]:.2f} ms"
                for name, key in (
                    ("client, direct (auto)", "direct_ms"),
                    ("client via LiteLLM", "litellm_ms"),
                    ("LiteLLM alone", "litellm_alone_ms"),
                    ("OpenAI SDK alone", "openai_sdk_ms"),
                )
                if key in cpu
            )
        )


if __name__ == "__main__":
    main()
