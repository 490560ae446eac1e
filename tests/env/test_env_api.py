"""The Gymnasium contract of EMPAEnv on the offline backend."""

from __future__ import annotations

import asyncio
import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import RecordEpisodeStatistics, TimeLimit

import empa_env  # noqa: F401  (registers the ids)
from empa_env.env import EMPAEnv
from empa_env.offline.judger import LexiconJudger
from empa_env.roles.base import Judger
from empa_env.spaces import UnicodeText
from empa_env.testing import policies as sp


def play(env, policy, seed=0, case=None):
    obs, info = env.reset(seed=seed, options={"case": case} if case else None)
    steps = []
    while True:
        obs, reward, terminated, truncated, info = env.step(policy(env.unwrapped.messages))
        steps.append((obs, reward, terminated, truncated))
        if terminated or truncated:
            return steps, info


def test_check_env_passes_including_determinism():
    env = gym.make("EMPA-v14").unwrapped
    check_env(env, skip_render_check=True)


def test_spaces_accept_any_unicode_text():
    env = EMPAEnv()
    assert isinstance(env.observation_space, UnicodeText)
    for text in ["", "héllo", "你好，我很难过", "😀 ok", "a\nb\tc", "مرحبا"]:
        assert env.action_space.contains(text)
    assert not env.action_space.contains(42)
    assert not env.action_space.contains("x" * (env.action_space.max_length + 1))


def test_registered_ids_and_pools():
    train = gym.make("EMPA-v14").unwrapped
    bench = gym.make("EMPA-Bench-v14").unwrapped
    bench_ids = {c.id for c in bench.cases}
    assert len(bench_ids) == 30 and all(i.startswith("empa30-") for i in bench_ids)
    assert len(train.cases) >= 500
    assert not bench_ids & {c.id for c in train.cases}, (
        "training pool must never contain benchmark cases"
    )
    obs, info = train.reset(seed=3)
    assert info["case_id"] not in bench_ids and isinstance(obs, str) and obs


def test_reset_options_case_by_id_and_object():
    env = gym.make("EMPA-Bench-v14").unwrapped
    _, info = env.reset(seed=0, options={"case": "empa30-029"})
    assert info["case_id"] == "empa30-029"
    case = env.cases[3]
    _, info = env.reset(seed=0, options={"case": case})
    assert info["case_id"] == case.id
    with pytest.raises(KeyError, match="not in this environment's pool"):
        env.reset(options={"case": "no-such-case"})


def test_step_info_and_final_epm():
    env = gym.make("EMPA-Bench-v14").unwrapped
    env.reset(seed=1, options={"case": "empa30-029"})
    _, reward, terminated, truncated, info = env.step(sp.attuned(env.messages))
    for key in (
        "levels",
        "evidence",
        "increment",
        "position",
        "delta_E",
        "alignment",
        "distance",
        "director",
        "status",
        "judge_failed",
    ):
        assert key in info
    assert info["position"] == list(np.asarray(env.case.p0) + np.asarray(info["increment"]))
    # IDR on the norm: phi(P_0) - phi(P_1)
    assert reward == pytest.approx(np.linalg.norm(env.case.p0) - np.linalg.norm(info["position"]))
    steps, final = play(env, sp.attuned, seed=1, case="empa30-029")
    epm = final["epm"]
    json.dumps(epm, allow_nan=False)  # flat and JSON-safe
    assert epm["turns"] == len(steps) == env.trajectory.num_turns
    assert epm["outcome"] == env.trajectory.outcome
    assert {"EPM_Index", "RDI", "Idx_RDI", "Outcome", "Efficiency", "Stability"} <= set(epm)


def test_seeded_runs_are_bit_for_bit_reproducible_and_seeds_vary():
    def run(seed):
        env = gym.make("EMPA-Bench-v14").unwrapped
        play(env, sp.attuned, seed=seed, case="empa30-029")
        return env.trajectory.to_json()

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_step_before_reset_and_after_end_raise():
    env = EMPAEnv("empa30-v1")
    with pytest.raises(RuntimeError, match="reset"):
        env.step("hello")
    play(env, sp.lecturer, seed=0, case="empa30-001")
    with pytest.raises(RuntimeError, match="ended"):
        env.step("hello")


def test_hostile_actions_have_defined_behaviour():
    env = EMPAEnv("empa30-v1", max_reply_chars=500)
    env.reset(seed=0, options={"case": "empa30-001"})
    with pytest.raises(TypeError, match="str"):
        env.step(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="exceeds"):
        env.step("x" * 501)
    # Unicode, control characters and an empty reply are fine and judged
    for reply in ["你好", "\x00\x07", "", "💔💔💔"]:
        _, _, _, _, info = env.step(reply)
        assert not info["judge_failed"]


def test_wrappers_and_vector_envs():
    env = RecordEpisodeStatistics(TimeLimit(gym.make("EMPA-Bench-v14"), max_episode_steps=5))
    env.reset(seed=0)
    for _ in range(5):
        *_, terminated, truncated, info = env.step("It sounds like a lot. What part weighs most?")
        if terminated or truncated:
            break
    assert truncated and "episode" in info and info["episode"]["l"] == 5

    for mode in ("sync", "async"):
        venv = gym.make_vec("EMPA-Bench-v14", num_envs=2, vectorization_mode=mode)
        obs, infos = venv.reset(seed=[0, 1])
        assert len(obs) == 2 and all(isinstance(o, str) for o in obs)
        obs, rewards, terms, truncs, infos = venv.step(("That sounds hard.", "What happened?"))
        assert rewards.shape == (2,) and len(obs) == 2
        venv.close()


def test_async_api_is_the_same_logic_as_sync():
    def sync_run():
        env = EMPAEnv("empa30-v1")
        play(env, sp.attuned, seed=2, case="empa30-010")
        return env.trajectory.to_json()

    async def async_run():
        env = EMPAEnv("empa30-v1")
        await env.areset(seed=2, options={"case": "empa30-010"})
        while True:
            *_, term, trunc, _ = await env.astep(sp.attuned(env.messages))
            if term or trunc:
                return env.trajectory.to_json()

    assert asyncio.run(async_run()) == sync_run()


def test_many_concurrent_async_episodes():
    """30 environments at once on one event loop, one per suite case: each episode runs to its
    end (at least the 12 turns the official preset requires)."""

    async def main():
        envs = [EMPAEnv("empa30-v1") for _ in range(30)]

        async def one(i, env):
            await env.areset(seed=i, options={"case": env.cases[i]})
            while True:
                *_, term, trunc, info = await env.astep(sp.advice_giver(env.messages))
                if term or trunc:
                    return info["epm"]["turns"]

        return await asyncio.gather(*(one(i, e) for i, e in enumerate(envs)))

    turns = asyncio.run(main())
    assert len(turns) == 30 and all(t >= 12 for t in turns)


def test_presets_and_rewards_are_configurable():
    paper = EMPAEnv("empa30-v1", preset="paper", reward="idr_goal", max_turns=20)
    assert paper.config.name == "paper" and paper.config.ending.max_turns == 20
    steps, info = play(paper, sp.advice_giver, seed=0, case="empa30-003")
    assert info["epm"]["preset"] == "paper" and len(steps) <= 20
    with pytest.raises(ValueError, match="unknown reward"):
        EMPAEnv("empa30-v1", reward="nope")


def test_reset_options_that_are_not_a_mapping_are_a_clear_error():
    env = EMPAEnv("empa30-v1", max_turns=12)
    for bad in (["empa30-001"], "empa30-001", 3):
        with pytest.raises(TypeError, match=r"reset\(options=\.\.\.\) takes a dict"):
            env.reset(options=bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"takes a dict"):
            asyncio.run(env.areset(options=bad))  # type: ignore[arg-type]
    observation, info = env.reset(seed=0, options=None)
    assert observation and info["turn"] == 0


def test_unknown_reset_options_are_refused_naming_the_known_ones():
    env = EMPAEnv("empa30-v1", max_turns=12)
    for bad in ({"bogus": 1}, {"cases": "empa30-001"}, {"case": "empa30-001", "seed": 3}):
        with pytest.raises(ValueError, match=r"unknown reset option.*known: 'case'"):
            env.reset(options=bad)
        with pytest.raises(ValueError, match=r"unknown reset option"):
            asyncio.run(env.areset(options=bad))
    _, info = env.reset(seed=0, options={"case": "empa30-001"})  # still usable
    assert info["case_id"] == "empa30-001"


class _HeldJudge(Judger):
    """The lexicon judge (LexiconJudger), whose first rating waits until the test lets it go."""

    def __init__(self, entered, release):
        self.inner, self.entered, self.release = LexiconJudger(), entered, release

    def judge(self, view):
        if not self.entered.is_set():
            self.entered.set()
            assert self.release.wait(30)
        return self.inner.judge(view)


def test_one_environment_stepped_from_two_threads_refuses_the_second_call():
    import threading

    from empa_env.env import ConcurrentUseError

    entered, release = threading.Event(), threading.Event()
    env = EMPAEnv("empa30-v1", max_turns=12, judger=_HeldJudge(entered, release))
    env.reset(seed=0, options={"case": "empa30-001"})
    first = threading.Thread(target=env.step, args=("That sounds hard. What happened?",))
    first.start()
    assert entered.wait(30)  # the first step is inside the judge
    try:
        for call in (lambda: env.step("Another reply."), lambda: env.reset(seed=1)):
            with pytest.raises(ConcurrentUseError, match="another thread or task"):
                call()
        with pytest.raises(ConcurrentUseError):
            asyncio.run(env.astep("Another reply."))
    finally:
        release.set()
        first.join(30)
    env.step("So what happened after that?")  # free again once the first step ended
    roles = [m["role"] for m in env.unwrapped.messages]
    assert roles == ["user", "assistant"] * 2 + ["user"]  # alternating: nothing interleaved


def test_many_threads_on_one_environment_never_corrupt_it():
    import threading

    from empa_env.env import ConcurrentUseError

    env = EMPAEnv("empa30-v1", max_turns=12)
    env.reset(seed=0, options={"case": "empa30-001"})
    start, refused, done = threading.Barrier(8), [], []

    def play():
        start.wait()
        for _ in range(20):
            try:
                _, _, terminated, truncated, _ = env.step("That sounds hard. What happened?")
            except ConcurrentUseError:
                refused.append(1)
            except RuntimeError:  # the episode ended in another thread
                return
            else:
                if terminated or truncated:
                    done.append(1)
                    return

    threads = [threading.Thread(target=play) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    messages = env.unwrapped.messages
    turns = env.unwrapped.trajectory.num_turns
    assert len(messages) in (2 * turns, 2 * turns + 1)  # the opening, then reply and answer
    assert all(m["role"] == ("user" if i % 2 == 0 else "assistant") for i, m in enumerate(messages))


def test_an_environment_pickles_mid_episode_and_the_copy_plays_on_alike():
    import pickle

    env = gym.make("EMPA-Bench-v14", max_turns=12)
    env.reset(seed=0, options={"case": "empa30-001"})
    env.step("That sounds hard. What happened?")
    copy = pickle.loads(pickle.dumps(env))
    reply = "It sounds like the app made you feel shut out. What would help most now?"
    assert copy.step(reply)[:4] == env.step(reply)[:4]
    assert copy.unwrapped.trajectory == env.unwrapped.trajectory
