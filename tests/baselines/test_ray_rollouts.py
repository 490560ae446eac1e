"""Rollout workers on Ray (baselines.training.ray_rollouts): actors holding EMPA environments play
the learner's episodes; the learner gets the same episodes, and computes the same advantages,
as when everything is played in its own process.

The Ray tests share the session's local cluster (a head node and two worker nodes, see
benchmarks.executors.local_cluster) with tests/benchmarks/test_ray_executor.py; they take about
about 45 s together on a busy 2-core machine and are marked slow; the in-process ones ~15 s.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from baselines.advantages import AdvantageConfig
from baselines.training.ray_rollouts import EpisodeSpec, PlayedEpisode, play_in_process, shards

#: In parallel runs (pytest -n) this file and tests/benchmarks/test_ray_executor.py share one
#: worker process, and so one local Ray cluster (tests/conftest.py reads the group).
pytestmark = [pytest.mark.train, pytest.mark.xdist_group("ray_cluster")]
MAX_TURNS = 12


def _batches_equal(a, b) -> bool:
    return (
        all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("rewards", "lengths", "feats", "actions"))
        and a.epm == b.epm
    )  # fmt: skip


@pytest.fixture(scope="module")
def setting():
    pytest.importorskip("torch")
    import gymnasium as gym

    import empa_env  # noqa: F401
    from baselines.training.strategy.policy import build_policy

    envs = [gym.make("EMPA-v14", max_turns=MAX_TURNS) for _ in range(4)]
    cases = [c.id for c in envs[0].unwrapped.cases][:2]
    return build_policy(seed=3), envs, cases


def test_shards_deal_every_episode_once_in_contiguous_runs():
    episodes = [EpisodeSpec(i, f"c{i // 2}", i) for i in range(7)]
    parts = shards(episodes, 3)
    assert [len(p) for p in parts] == [3, 2, 2]
    assert [e for p in parts for e in p] == episodes
    assert shards(episodes[:1], 4) == [episodes[:1]]


def test_a_batch_with_a_missing_episode_is_refused():
    from baselines.training.strategy.rollouts import episode_batch

    played = [
        PlayedEpisode(i, "c", i, [0.1], [{"action": 0, "features": np.zeros(3)}]) for i in (0, 2)
    ]
    with pytest.raises(ValueError, match="missing or repeated"):
        episode_batch(played, 1)


def test_greedy_recipe_plays_exactly_the_experiments_own_loop(setting):
    """No random draw in greedy play: the recipe is the experiment's policy, bit for bit."""
    from baselines.training.strategy.experiment import play
    from baselines.training.strategy.rollouts import (
        StrategyRollout,
        episode_batch,
        strategy_episodes,
    )

    net, envs, cases = setting
    own = play(net, envs, cases, 2, np.random.default_rng(0), 4, greedy=True, max_turns=MAX_TURNS)
    recipe = StrategyRollout.of(net, 64, 4, greedy=True, max_turns=MAX_TURNS)
    mine = episode_batch(play_in_process(envs, recipe, strategy_episodes(cases, 2, 4)), 2)
    assert _batches_equal(own, mine)


def test_sampled_episodes_do_not_depend_on_how_they_are_dealt(setting):
    from baselines.training.strategy.rollouts import (
        StrategyRollout,
        episode_batch,
        strategy_episodes,
    )

    net, envs, cases = setting
    recipe = StrategyRollout.of(net, 64, 7, max_turns=MAX_TURNS)
    episodes = strategy_episodes(cases, 2, 7)
    whole = episode_batch(play_in_process(envs, recipe, episodes), 2)
    dealt = [e for part in shards(episodes, 4) for e in play_in_process(envs, recipe, part)]
    assert _batches_equal(whole, episode_batch(dealt, 2))
    assert len({tuple(row[:5]) for row in whole.actions.reshape(4, -1)}) > 1  # really sampled


# --- on the local cluster ------------------------------------------------------------------------
@pytest.fixture(scope="session")
def cluster():
    pytest.importorskip("ray")
    from benchmarks.executors.local_cluster import shared_cluster

    return shared_cluster(workers=2)


@pytest.fixture(scope="module")
def pool(cluster):
    """Two rollout actors (one per worker node), shared by the tests below."""
    from baselines.training.ray_rollouts import RayRolloutPool

    with RayRolloutPool(2, "EMPA-v14", {"max_turns": MAX_TURNS}) as workers:
        yield workers


@pytest.mark.slow
def test_ray_actors_return_the_in_process_episodes_and_advantages_even_when_one_dies(setting, pool):
    import ray

    from baselines.training.strategy.experiment import play
    from baselines.training.strategy.rollouts import (
        StrategyRollout,
        episode_batch,
        play_on_workers,
        strategy_episodes,
    )

    net, envs, cases = setting
    where = pool.where()
    assert len({w.split("/")[0] for w in where}) == 2  # one actor per worker node
    remote = play_on_workers(pool, net, 64, cases, 2, seed=11, max_turns=MAX_TURNS)
    recipe = StrategyRollout.of(net, 64, 11, max_turns=MAX_TURNS)
    local = episode_batch(play_in_process(envs, recipe, strategy_episodes(cases, 2, 11)), 2)
    assert _batches_equal(remote, local)
    for method in ("mica", "grpo", "reinforce_pp_idr_batch"):
        estimator = AdvantageConfig(method)
        assert np.array_equal(
            estimator(remote.rewards, remote.lengths), estimator(local.rewards, local.lengths)
        )
    greedy = play_on_workers(pool, net, 64, cases, 2, seed=4, greedy=True, max_turns=MAX_TURNS)
    own = play(net, envs, cases, 2, np.random.default_rng(0), 4, greedy=True, max_turns=MAX_TURNS)
    assert _batches_equal(greedy, own)

    # An actor's process killed in the middle of a call: Ray restarts it (a new process,
    # new environments) and runs the call again; the learner gets every episode once.
    result: list = []
    thread = threading.Thread(
        target=lambda: result.append(pool.play(recipe, strategy_episodes(cases, 2, 11)))
    )
    thread.start()
    time.sleep(0.3)  # the actors are playing
    ray.kill(pool.actors[0], no_restart=False)
    thread.join(timeout=120)
    assert result, "the rollout did not come back"
    # ray.kill is asynchronous: on a busy machine a call right after it can still reach the old
    # process, so wait (bounded) for the restarted one.
    deadline = time.monotonic() + 60
    while pool.where()[0] == where[0] and time.monotonic() < deadline:
        time.sleep(0.5)
    assert pool.where()[0] != where[0]  # a new process
    assert _batches_equal(episode_batch(result[0], 2), local)


@pytest.mark.slow
def test_the_strategy_experiment_trains_the_same_on_ray_workers_as_in_process(
    setting, pool, monkeypatch
):
    """`--rollout-workers 2`: the learner's curve equals the one with the same recipe played in
    its own process, iteration by iteration (the weights it ships change every iteration)."""
    import baselines.training.ray_rollouts as ray_rollouts
    from baselines.training.strategy.experiment import ExperimentConfig, train_method

    class SharedPool:  # the module's actors, as the experiment would start them
        def __init__(self, workers, env_id, env_kwargs=None, **_):
            assert (workers, env_id, env_kwargs) == (2, "EMPA-v14", {"max_turns": MAX_TURNS})

        def play(self, recipe, episodes):
            return pool.play(recipe, episodes)

        def close(self):
            pass

    cfg = ExperimentConfig(
        iterations=2, cases_per_batch=2, rollouts=2, rollout_workers=2,
        train_env_kwargs={"max_turns": MAX_TURNS},
    )  # fmt: skip
    monkeypatch.setattr(ray_rollouts, "RayRolloutPool", SharedPool)
    _, on_ray = train_method("mica", 0, cfg)

    _net, envs, _cases = setting

    class InProcessPool:
        def __init__(self, workers, env_id, env_kwargs=None, **_):
            pass

        def play(self, recipe, episodes):
            return play_in_process(envs, recipe, episodes)

        def close(self):
            pass

    monkeypatch.setattr(ray_rollouts, "RayRolloutPool", InProcessPool)
    _, here = train_method("mica", 0, cfg)
    assert on_ray[["loss", "return", "turns", "epm_index"]].equals(
        here[["loss", "return", "turns", "epm_index"]]
    )
