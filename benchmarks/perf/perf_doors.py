"""What each integration door costs per step over the in-process ``gymnasium.Env``.

The same episodes (cases, seeds and replies: recorded once with the scripted ``attuned`` policy,
then replayed, so the policy costs nothing) are played through each door. Two measures:

1. **The door's own cost.** Each door plays the recorded episodes over a *replay environment*
   (a ``gymnasium.Env`` that returns the recorded observations, rewards and ``info`` at no cost),
   so its time per step is the door's work alone: in CPU time for the in-process doors, in
   wall-clock time at the client for the served path (the one-command server's code, its app
   built over the replay environment, in a process of its own on localhost). It is set against
   the CPU time per step of the real ``gymnasium.Env`` playing the same episodes.
2. **End to end**, as a check: every door plays the real environment, interleaved episode by
   episode (the door order rotating each round) so that the machine's load touches them alike;
   the overhead is paired with the baseline's in the same round (median over rounds). On a busy
   machine this is within a few percent of noise.

    python benchmarks/perf/perf_doors.py [--episodes 4] [--rounds 9] [--judger offline]

The doors: ``Conversation`` (the shared core; ``async`` as the verifiers door plays it), OpenEnv
in process (``EMPAEnvironment``), TRL's ``environment_factory`` (``EMPAToolEnv``), and the OpenEnv
server played by OpenEnv's ``GenericEnvClient`` and the typed ``EMPAEnvClient`` (openenv extra).
Goals (issue 36): <= 10% per step in process; <= 2 ms per step on the localhost server path.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import gymnasium as gym  # noqa: E402

import empa_env  # noqa: E402, F401  (registers the ids)
from empa_env.integrations.conversation import Conversation, json_safe  # noqa: E402
from empa_env.integrations.trl import EMPAToolEnv  # noqa: E402
from empa_env.spaces import UnicodeText  # noqa: E402
from empa_env.testing.policies import attuned  # noqa: E402

ENV_ID = "EMPA-Bench-v14"


@dataclass
class Recorded:
    """One played episode: its case, seed, replies, and what reset and each step returned."""

    case: str
    seed: int
    opening: str
    opening_info: dict[str, Any]
    replies: list[str] = field(default_factory=list)
    steps: list[tuple[str, float, bool, bool, dict[str, Any]]] = field(default_factory=list)


def record(episodes: int, env_kwargs: dict[str, Any]) -> list[Recorded]:
    """The first ``episodes`` cases played by ``attuned`` (seed = case index)."""
    env = gym.make(ENV_ID, **env_kwargs)
    base: Any = env.unwrapped
    played = []
    for index, case in enumerate(c.id for c in base.cases[:episodes]):
        opening, info = env.reset(seed=index, options={"case": case})
        episode = Recorded(case, index, opening, json_safe(info))
        done = False
        while not done:
            episode.replies.append(attuned(base.messages))
            observation, reward, terminated, truncated, info = env.step(episode.replies[-1])
            episode.steps.append(
                (observation, float(reward), terminated, truncated, json_safe(info))
            )
            done = terminated or truncated
        played.append(episode)
    env.close()
    return played


class ReplayEnv(gym.Env[str, str]):
    """Returns the recorded episodes' observations, rewards and ``info`` at no cost."""

    def __init__(self, episodes: list[Recorded]) -> None:
        self.episodes = {(e.case, e.seed): e for e in episodes}
        self.observation_space = UnicodeText()
        self.action_space = UnicodeText()
        self.messages: list[dict[str, str]] = []
        self._steps: list[tuple[str, float, bool, bool, dict[str, Any]]] = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        episode = self.episodes[(str((options or {}).get("case")), int(seed or 0))]
        self._steps = list(reversed(episode.steps))
        self.messages = [{"role": "user", "content": episode.opening}]
        return episode.opening, episode.opening_info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        result = self._steps.pop()
        self.messages.append({"role": "assistant", "content": action})
        if result[0]:
            self.messages.append({"role": "user", "content": result[0]})
        return result

    async def areset(self, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        return self.reset(**kwargs)

    async def astep(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return self.step(action)


Door = Callable[[Recorded], None]


def in_process_doors(make_env: Callable[[], gym.Env]) -> dict[str, Door]:
    """Every in-process door over environments from ``make_env``, plus the plain env."""
    env = make_env()
    conversation, async_conversation = Conversation(make_env()), Conversation(make_env())
    tool_env = EMPAToolEnv(conversation=Conversation(make_env()))

    def gymnasium_env(e: Recorded) -> None:
        env.reset(seed=e.seed, options={"case": e.case})
        for reply in e.replies:
            env.step(reply)

    def core(e: Recorded) -> None:
        conversation.open(seed=e.seed, case=e.case)
        for reply in e.replies:
            conversation.reply(reply)

    def core_async(e: Recorded) -> None:
        async def run() -> None:
            await async_conversation.aopen(seed=e.seed, case=e.case)
            for reply in e.replies:
                await async_conversation.areply(reply)

        asyncio.run(run())

    def trl_door(e: Recorded) -> None:
        tool_env.reset(case=e.case, seed=e.seed)
        for reply in e.replies:
            tool_env.reply(message=reply)

    doors: dict[str, Door] = {
        "gymnasium.Env": gymnasium_env,
        "Conversation": core,
        "Conversation async (verifiers)": core_async,
        "TRL environment_factory": trl_door,
    }
    try:
        from empa_env.integrations.openenv import EMPAAction, EMPAEnvironment
    except ImportError:  # no openenv extra
        return doors
    openenv_env = EMPAEnvironment(ENV_ID, conversation=Conversation(make_env()))

    def openenv_in_process(e: Recorded) -> None:
        openenv_env.reset(seed=e.seed, case=e.case)
        for reply in e.replies:
            openenv_env.step(EMPAAction(message=reply))

    doors["OpenEnv in process"] = openenv_in_process
    return doors


def served_doors(url: str) -> tuple[dict[str, Door], list[Any]]:
    from openenv import GenericEnvClient

    from empa_env.integrations.openenv import EMPAAction, EMPAEnvClient

    generic = GenericEnvClient(base_url=url).sync()
    typed = EMPAEnvClient(base_url=url).sync()
    generic.connect()
    typed.connect()

    def generic_client(e: Recorded) -> None:
        generic.reset(seed=e.seed, case=e.case)
        for reply in e.replies:
            generic.step({"message": reply})

    def typed_client(e: Recorded) -> None:
        typed.reset(seed=e.seed, case=e.case)
        for reply in e.replies:
            typed.step(EMPAAction(message=reply))

    doors: dict[str, Door] = {
        "served, GenericEnvClient": generic_client,
        "served, EMPAEnvClient": typed_client,
    }
    return doors, [generic, typed]


# --- the served path -----------------------------------------------------------------------------
def serve_replay(port: int, recorded: Path) -> None:
    """The one-command server's app (``build_app``'s ``create_app`` with EMPA's types), its
    sessions over the replay environment (``--replay-server``, in a process of its own)."""
    import functools

    import uvicorn
    from openenv.core.env_server.http_server import create_app

    from empa_env.integrations.openenv import EMPAAction, EMPAObservation, EMPAState

    episodes = [Recorded(**e) for e in json.loads(recorded.read_text())]
    factory = functools.partial(_replay_environment, episodes)
    app = create_app(
        factory, EMPAAction, EMPAObservation, env_name=ENV_ID, max_concurrent_envs=4,
        state_cls=EMPAState,
    )  # fmt: skip
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _replay_environment(episodes: list[Recorded]) -> Any:
    from empa_env.integrations.openenv import EMPAEnvironment

    return EMPAEnvironment(ENV_ID, conversation=Conversation(ReplayEnv(episodes)))


def start_server(arguments: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    """``arguments`` (a server command line with ``PORT`` for its port) on a free port, ready."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, *(str(port) if a == "PORT" else a for a in arguments)]
    root = str(Path(__file__).resolve().parents[2])
    process = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": root})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {command}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=1):
                return process, url
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not start in 180 s")


# --- measuring ---------------------------------------------------------------------------------
def measure(
    doors: dict[str, Door], episodes: list[Recorded], rounds: int
) -> dict[str, list[tuple[float, float]]]:
    """Per door, per round: ``(CPU ms, wall ms)`` per step, doors interleaved episode by episode
    (their order rotating each round), after one warm-up episode each."""
    names = list(doors)
    steps = sum(len(e.replies) for e in episodes)
    for door in doors.values():
        door(episodes[0])
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for index in range(rounds):
        totals = {name: [0.0, 0.0] for name in names}
        order = names[index % len(names) :] + names[: index % len(names)]
        for episode in episodes:
            for name in order:
                cpu, wall = time.process_time(), time.perf_counter()
                doors[name](episode)
                totals[name][0] += time.process_time() - cpu
                totals[name][1] += time.perf_counter() - wall
        for name, (cpu, wall) in totals.items():
            figures[name].append((cpu * 1000 / steps, wall * 1000 / steps))
    return figures


def median(values: list[tuple[float, float]], clock: int) -> float:
    return statistics.median(v[clock] for v in values)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=4, help="cases played per round")
    parser.add_argument("--rounds", type=int, default=9, help="rounds (medians are reported)")
    parser.add_argument("--judger", default="offline", help="the Judger backend")
    parser.add_argument(
        "--replay-server", nargs=2, metavar=("PORT", "FILE"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.replay_server:
        serve_replay(int(args.replay_server[0]), Path(args.replay_server[1]))
        return
    env_kwargs = {"judger": args.judger}
    episodes = record(args.episodes, env_kwargs)
    steps = sum(len(e.replies) for e in episodes)

    # 1. the doors' own cost, over the replay environment
    real = in_process_doors(lambda: gym.make(ENV_ID, **env_kwargs))
    replay = in_process_doors(lambda: ReplayEnv(episodes))
    own = measure({"real gymnasium.Env": real["gymnasium.Env"], **replay}, episodes, args.rounds)
    servers, clients = [], []
    served_real: dict[str, Door] = {}
    if "OpenEnv in process" in replay:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
            json.dump([e.__dict__ for e in episodes], file)
        process, url = start_server([__file__, "--replay-server", "PORT", file.name])
        servers.append(process)
        served, opened = served_doors(url)
        clients += opened
        own |= measure(served, episodes, args.rounds)
        process, url = start_server(
            ["-m", "empa_env.integrations.openenv.server", "--env", ENV_ID, "--port", "PORT",
             "--judger", args.judger]
        )  # fmt: skip
        servers.append(process)
        served_real, opened = served_doors(url)
        clients += opened
    # 2. end to end, paired with the plain env in the same round
    try:
        both = measure({**real, **served_real}, episodes, args.rounds)
    finally:
        for client in clients:
            client.close()
        for process in servers:
            process.terminate()
            process.wait(timeout=30)

    load = os.getloadavg()[0]
    step_cpu = median(own["real gymnasium.Env"], 0)
    print(
        f"{args.episodes} episodes ({steps} steps) x {args.rounds} rounds, judger {args.judger}, "
        f"1-min load {load:.1f} at the end"
    )
    print(f"the real gymnasium.Env: {step_cpu:.3f} ms CPU per step")
    print("1. each door's own cost per step (over a replay environment):")
    for name, values in own.items():
        if name in ("real gymnasium.Env", "gymnasium.Env"):
            continue
        on_server = name.startswith("served")
        cost = (
            median(values, 1) if on_server else median(values, 0) - median(own["gymnasium.Env"], 0)
        )
        label = "wall" if on_server else "CPU "
        print(f"   {name:34s} {label} {cost:+.3f} ms  ({cost / step_cpu:+.1%} of a real step)")
    print("2. end to end, overhead paired with gymnasium.Env in the same round:")
    base = both["gymnasium.Env"]
    for name, values in both.items():
        if name == "gymnasium.Env":
            continue
        clock = 1 if name.startswith("served") else 0
        paired = statistics.median(v[clock] - b[clock] for v, b in zip(values, base, strict=True))
        print(
            f"   {name:34s} {'wall' if clock else 'CPU '} {median(values, clock):.3f} ms/step, "
            f"overhead {paired:+.3f} ms ({paired / median(base, clock):+.1%})"
        )


if __name__ == "__main__":
    main()
