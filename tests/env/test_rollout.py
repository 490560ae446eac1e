"""The one rollout loop (empa_env.rollout): single episodes sync and async, lockstep batches with
ragged episode lengths, hooks in order, and failures that leave the episode state intact."""

from __future__ import annotations

import asyncio
from typing import Any

import gymnasium as gym
import pytest

import empa_env  # noqa: F401  (registers the ids)
from empa_env.env import EMPAEnv
from empa_env.policy import Policy
from empa_env.rollout import (
    Episode,
    RolloutHooks,
    Step,
    aplay_episode,
    as_policy,
    play_episode,
    play_lockstep,
)
from empa_env.testing import policies as sp


class RaggedEnv(gym.Env):
    """Case ``"cN"`` lasts ``N`` turns; the reward is the reply's length; ``astep`` too."""

    def __init__(self) -> None:
        self.messages: list[dict[str, str]] = []
        self.trajectory: list[str] = []
        self.length = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        case = (options or {}).get("case", "c2")
        self.length = int(case[1:])
        self.messages = [{"role": "user", "content": f"hi from {case} seed {seed}"}]
        self.trajectory = []
        return self.messages[0]["content"], {"case_id": case}

    def step(self, action: str):
        self.trajectory.append(action)
        self.messages.append({"role": "assistant", "content": action})
        done = len(self.trajectory) >= self.length
        user = "" if done else f"user {len(self.trajectory)}"
        if user:
            self.messages.append({"role": "user", "content": user})
        info: dict[str, Any] = {"turn": len(self.trajectory)}
        if done:
            info["epm"] = {"EPM_Index": float(len(self.trajectory)), "success": True}
        return user, float(len(action)), done, False, info

    async def areset(self, **kwargs: Any):
        await asyncio.sleep(0)
        return self.reset(**kwargs)

    async def astep(self, action: str):
        await asyncio.sleep(0)
        return self.step(action)


def echo(messages: list[dict[str, str]]) -> str:
    return f"reply to {len(messages)}"


class Recorder(RolloutHooks):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[Any, ...]] = []

    def on_reset(self, index: int, episode: Episode) -> None:
        self.calls.append(("reset", index, len(episode.steps)))

    def before_turn(self, turn: int, indices: list[int]) -> None:
        self.calls.append(("turn", turn, tuple(indices)))

    def on_step(self, index: int, step: Step) -> None:
        self.calls.append(("step", index, step.turn))

    def on_end(self, index: int, episode: Episode) -> None:
        self.calls.append(("end", index, len(episode.steps)))

    def on_error(self, index: int, episode: Episode, exc: BaseException) -> None:
        self.calls.append(("error", index, len(episode.steps), type(exc).__name__))


def test_play_episode_records_every_step():
    env = RaggedEnv()
    rec = Recorder()
    ep = play_episode(env, echo, case="c3", seed=5, hooks=rec)
    assert (ep.case_id, ep.seed, ep.opening) == ("c3", 5, "hi from c3 seed 5")
    assert len(ep) == 3 and ep.done and [s.turn for s in ep.steps] == [0, 1, 2]
    first = ep.steps[0]
    assert first.messages == [{"role": "user", "content": "hi from c3 seed 5"}]
    assert first.reply == "reply to 1" and first.user_message == "user 1"
    assert first.reward == float(len("reply to 1")) and not first.done
    assert ep.steps[1].messages[-1] == {"role": "user", "content": "user 1"}  # a snapshot
    assert ep.steps[-1].terminated and ep.steps[-1].user_message == ""
    assert ep.epm == {"EPM_Index": 3.0, "success": True} and ep.info is ep.steps[-1].info
    assert ep.rewards == [s.reward for s in ep.steps] and ep.total_reward == sum(ep.rewards)
    assert ep.trajectory == ["reply to 1", "reply to 3", "reply to 5"]
    assert rec.calls == [("reset", 0, 0), ("step", 0, 0), ("step", 0, 1), ("step", 0, 2),
                         ("end", 0, 3)]  # fmt: skip


def test_async_episode_matches_the_sync_one_and_takes_async_policies():
    async def areply(messages):
        await asyncio.sleep(0)
        return echo(messages)

    sync = play_episode(RaggedEnv(), echo, case="c4", seed=1)
    a = asyncio.run(aplay_episode(RaggedEnv(), areply, case="c4", seed=1))
    b = play_episode(RaggedEnv(), areply, case="c4", seed=1)  # async function, sync loop
    for ep in (a, b):
        assert [(s.reply, s.reward, s.user_message) for s in ep.steps] == [
            (s.reply, s.reward, s.user_message) for s in sync.steps
        ]
        assert ep.epm == sync.epm


def test_real_env_sync_and_async_agree():
    sync = play_episode(EMPAEnv(max_turns=12), sp.attuned, case=None, seed=3)
    asyn = asyncio.run(aplay_episode(EMPAEnv(max_turns=12), sp.attuned, seed=3))
    assert sync.case_id == asyn.case_id and sync.done and asyn.done
    assert sync.rewards == asyn.rewards and sync.epm == asyn.epm
    assert len(sync.trajectory.turns) == len(sync.steps)
    wrapped = play_episode(gym.make("EMPA-v14", max_turns=12), sp.attuned, seed=3)
    assert wrapped.rewards == sync.rewards


def test_policy_objects_and_bad_policies():
    class Short(Policy):
        def reply(self, messages):
            return "ok"

    assert play_episode(RaggedEnv(), Short(), case="c1").steps[0].reply == "ok"
    assert as_policy(echo)([{"role": "user", "content": "x"}]) == "reply to 1"
    with pytest.raises(TypeError):
        as_policy("not a policy")  # type: ignore[arg-type]


def test_lockstep_with_ragged_lengths_batches_the_running_episodes():
    envs = [RaggedEnv() for _ in range(4)]
    batches: list[int] = []

    def reply_batch(histories):
        batches.append(len(histories))
        return [echo(h) for h in histories]

    rec = Recorder()
    eps = play_lockstep(
        envs, reply_batch, cases=["c1", "c3", "c2", "c3"], seeds=[0, 1, 2, 3], hooks=rec
    )
    assert [len(e) for e in eps] == [1, 3, 2, 3] and all(e.done for e in eps)
    assert batches == [4, 3, 2]
    assert [e.case_id for e in eps] == ["c1", "c3", "c2", "c3"] and eps[3].seed == 3
    assert rec.calls == [
        ("reset", 0, 0), ("reset", 1, 0), ("reset", 2, 0), ("reset", 3, 0),
        ("turn", 0, (0, 1, 2, 3)),
        ("step", 0, 0), ("end", 0, 1), ("step", 1, 0), ("step", 2, 0), ("step", 3, 0),
        ("turn", 1, (1, 2, 3)),
        ("step", 1, 1), ("step", 2, 1), ("end", 2, 2), ("step", 3, 1),
        ("turn", 2, (1, 3)),
        ("step", 1, 2), ("end", 1, 3), ("step", 3, 2), ("end", 3, 3),
    ]  # fmt: skip
    # the same episodes one at a time
    for ep, case, seed in zip(eps, ["c1", "c3", "c2", "c3"], range(4), strict=True):
        alone = play_episode(RaggedEnv(), echo, case=case, seed=seed)
        assert [s.reply for s in alone.steps] == [s.reply for s in ep.steps]


def test_lockstep_hooks_attach_data_through_a_closure():
    """The trainer's pattern: reply_batch remembers what it generated, on_step attaches it."""
    pending: dict[int, int] = {}
    running: list[int] = []

    def reply_batch(histories):
        for i, h in zip(running, histories, strict=True):
            pending[i] = len(h)  # stands for the generated token ids
        return [echo(h) for h in histories]

    hooks = RolloutHooks(
        before_turn=lambda _turn, indices: running.__setitem__(slice(None), indices),
        on_step=lambda i, step: step.extra.setdefault("tokens", pending.pop(i)),
    )
    eps = play_lockstep([RaggedEnv(), RaggedEnv()], reply_batch, cases=["c2", "c1"], hooks=hooks)
    assert [s.extra["tokens"] for s in eps[0].steps] == [1, 3]
    assert [s.extra["tokens"] for s in eps[1].steps] == [1]
    assert not pending


def test_several_hooks_run_in_order():
    order: list[str] = []
    first = RolloutHooks(on_step=lambda i, s: order.append("a"))
    second = RolloutHooks(on_step=lambda i, s: order.append("b"))
    play_episode(RaggedEnv(), echo, case="c2", hooks=[first, second])
    assert order == ["a", "b", "a", "b"]


def test_lockstep_argument_checks():
    with pytest.raises(ValueError, match="environments"):
        play_lockstep([RaggedEnv()], lambda h: ["x"] * len(h), cases=["c1", "c1"])
    with pytest.raises(ValueError, match="seeds"):
        play_lockstep([RaggedEnv()], lambda h: ["x"] * len(h), cases=["c1"], seeds=[1, 2])
    with pytest.raises(ValueError, match="replies"):
        play_lockstep([RaggedEnv(), RaggedEnv()], lambda h: ["x"], cases=["c1", "c1"])


def test_a_failing_policy_propagates_with_the_episode_intact():
    calls = 0

    def flaky(messages):
        nonlocal calls
        calls += 1
        if calls == 3:
            raise RuntimeError("model down")
        return echo(messages)

    env = RaggedEnv()
    rec = Recorder()
    seen: list[Episode] = []
    hooks = [rec, RolloutHooks(on_error=lambda i, ep, exc: seen.append(ep))]
    with pytest.raises(RuntimeError, match="model down"):
        play_episode(env, flaky, case="c5", hooks=hooks)
    assert rec.calls[-1] == ("error", 0, 2, "RuntimeError")
    assert not any(c[0] == "end" for c in rec.calls)
    (ep,) = seen
    assert len(ep) == 2 and not ep.done and ep.trajectory == env.trajectory
    assert len(env.trajectory) == 2 and env.messages[-1]["role"] == "user"  # the env is intact

    async def afail(messages):
        raise ValueError("async down")

    with pytest.raises(ValueError, match="async down"):
        asyncio.run(aplay_episode(RaggedEnv(), afail, case="c2", hooks=rec))
    assert rec.calls[-1] == ("error", 0, 0, "ValueError")


def test_a_failing_reply_batch_reaches_every_running_episode():
    envs = [RaggedEnv() for _ in range(3)]
    turns = 0

    def reply_batch(histories):
        nonlocal turns
        turns += 1
        if turns == 2:
            raise RuntimeError("generate failed")
        return [echo(h) for h in histories]

    rec = Recorder()
    with pytest.raises(RuntimeError, match="generate failed"):
        play_lockstep(envs, reply_batch, cases=["c1", "c3", "c3"], hooks=rec)
    errors = [c for c in rec.calls if c[0] == "error"]
    assert errors == [("error", 1, 1, "RuntimeError"), ("error", 2, 1, "RuntimeError")]
    assert [len(e.trajectory) for e in envs] == [1, 1, 1]
