"""The MICA language-model trainer's rollouts on Ray actors (baselines.training.mica.rollouts):
the actors rebuild the tiny policy from the learner's weights and return its turns; greedy play
equals the learner's own ``play_episodes``, sampled play does not depend on how the episodes are
dealt, training runs with ``rollout_workers=2``, and an actor killed mid-generation is restarted
without losing or repeating an episode.

Timings on the busy 2-core machine (load ~4): the in-process tests ~8 s with the module's setup
(tiny model, tokenizer, 8 environments: ~5 s); the cluster ones (marked slow) share the session's
local cluster with tests/baselines/test_ray_rollouts.py (starting it and two actors ~11 s when
this module comes first), then ~13 s (equality + two training steps) and ~15 s (the kill: the
actor's restart re-imports torch and transformers). The whole file ~51 s.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from baselines.training.mica.rollout import GenerationSettings, play_episodes  # noqa: E402
from baselines.training.mica.rollouts import LMRollout, lm_episodes, rollout_batch  # noqa: E402
from baselines.training.ray_rollouts import PlayedEpisode, play_in_process, shards  # noqa: E402

pytestmark = [pytest.mark.train, pytest.mark.xdist_group("ray_cluster")]
MAX_TURNS = 4
#: The first 8 cases of the default generated pool (``generated:0:8`` is the same stream cut
#: after 8 cases: the same cases, without generating 600 in every process, the actors' too).
ENV_KWARGS = {
    "max_turns": MAX_TURNS, "epm_overrides": {"min_turns": MAX_TURNS}, "case_pool": "generated:0:8",
}  # fmt: skip
#: Prompts are padded to ``max_prompt_length`` (see baselines.training.mica.rollouts); these
#: episodes' prompts stay under 200 tokens, so 256 (the trainers' setting below) truncates none.
SAMPLED = GenerationSettings(max_new_tokens=6, max_prompt_length=256)
GREEDY = GenerationSettings(max_new_tokens=6, greedy=True, max_prompt_length=256)


def _turns(batch) -> list[tuple]:
    return [
        (s.case_index, s.rollout, s.turn, s.prompt_ids, s.completion_ids, s.reply, s.reward)
        for s in batch.samples
    ]


def assert_same_batches(a, b) -> None:
    assert _turns(a) == _turns(b)
    assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.lengths, b.lengths)
    assert a.case_ids == b.case_ids and a.episodes == b.episodes


@pytest.fixture(scope="module")
def setting():
    import gymnasium as gym
    import torch

    import empa_env  # noqa: F401
    from baselines.training.hf.tiny import build_tiny_causal_lm, build_tokenizer

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the trainer and the actors: ~30x faster on a busy 2-core CPU
    tokenizer = build_tokenizer()
    model, _ = build_tiny_causal_lm(tokenizer, seed=0)
    envs = [gym.make("EMPA-v14", **ENV_KWARGS) for _ in range(8)]
    cases = [c.id for c in envs[0].unwrapped.cases][:2]
    yield model, tokenizer, envs, cases
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def greedy_own(setting):
    """The learner's own greedy play (seed 5), the reference of the greedy recipe here and on
    the actors."""
    model, tokenizer, envs, cases = setting
    return play_episodes(model, tokenizer, envs, cases, 2, GREEDY, seed=5)


@pytest.fixture(scope="module")
def sampled_here(setting):
    """The sampled recipe's episodes (seed 7) all played in this process, as one share."""
    model, tokenizer, envs, cases = setting
    recipe = LMRollout.of(model, tokenizer, SAMPLED, seed=7)
    return rollout_batch(play_in_process(envs, recipe, lm_episodes(cases, 2, 7)), cases, 2)


def test_greedy_recipe_plays_exactly_the_learners_play_episodes(setting, greedy_own):
    model, tokenizer, envs, cases = setting
    own = greedy_own
    recipe = LMRollout.of(model, tokenizer, GREEDY, seed=5)
    assert recipe.model() is not model  # rebuilt from the configuration and the weights
    assert_same_batches(rollout_batch(play_in_process(envs, recipe, lm_episodes(cases, 2, 5)), cases, 2), own)  # fmt: skip


def test_sampled_episodes_do_not_depend_on_how_they_are_dealt(setting, sampled_here):
    model, tokenizer, envs, cases = setting
    recipe = LMRollout.of(model, tokenizer, SAMPLED, seed=7)
    episodes = lm_episodes(cases, 2, 7)
    whole = sampled_here
    dealt = [e for part in shards(episodes, 3) for e in play_in_process(envs, recipe, part)]
    assert_same_batches(rollout_batch(dealt, cases, 2), whole)
    first_replies = {tuple(s.completion_ids) for s in whole.samples if s.turn == 0}
    assert len(first_replies) > 1  # really sampled: the two rollouts of a case differ
    again = rollout_batch(play_in_process(envs, LMRollout.of(model, tokenizer, SAMPLED, 8), episodes), cases, 2)  # fmt: skip
    assert _turns(again) != _turns(whole)  # and the seed matters


def test_a_batch_with_a_missing_or_repeated_episode_is_refused():
    extra = {"turn": 0, "prompt_ids": [1], "completion_ids": [2], "reply": "x", "prompt_tokens_read": 1}  # fmt: skip
    played = [PlayedEpisode(i, "c", i, [0.1], [dict(extra)]) for i in (0, 0)]
    with pytest.raises(ValueError, match="missing or repeated"):
        rollout_batch(played, ["c"], 2)


def test_rollout_workers_refuses_what_it_cannot_ship(tmp_path, setting, standin_env_factory):
    from baselines.training.mica.trainer import MICAConfig, MICATrainer, case_dataset

    model, tokenizer, _envs, cases = setting
    with pytest.raises(ValueError, match="reuse_prefix"):
        MICAConfig(output_dir=str(tmp_path), use_cpu=True, rollout_workers=2, reuse_prefix=True)
    with pytest.raises(ValueError, match=">= 0"):
        MICAConfig(output_dir=str(tmp_path), use_cpu=True, rollout_workers=-1)
    config = MICAConfig(output_dir=str(tmp_path), use_cpu=True, rollout_workers=2)
    with pytest.raises(ValueError, match="env_factory"):
        MICATrainer(model, config, case_dataset(cases), tokenizer, env_factory=standin_env_factory)


def test_the_cli_has_the_flag():
    from baselines.train_cli import mica_parser

    config, _ = mica_parser().parse(["--rollout-workers", "3", "--output-dir", "x"])
    assert config.rollout_workers == 3


# --- on the local cluster ------------------------------------------------------------------------
@pytest.fixture(scope="session")
def cluster():
    pytest.importorskip("ray")
    from benchmarks.executors.local_cluster import shared_cluster

    return shared_cluster(workers=2)


@pytest.fixture(scope="module")
def pool(cluster):
    """Two rollout actors (one per worker node) for the tests below."""
    from baselines.training.ray_rollouts import RayRolloutPool

    with RayRolloutPool(2, "EMPA-v14", ENV_KWARGS) as workers:
        yield workers


def _trainer(model, tokenizer, cases, tmp_path, pool, max_steps, max_new_tokens=6, k=2):
    from baselines.training.mica.trainer import MICAConfig, MICATrainer, case_dataset

    config = MICAConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=2, num_rollouts=k,
        max_steps=max_steps, max_new_tokens=max_new_tokens, learning_rate=1e-2, use_cpu=True, seed=0,
        env_kwargs=ENV_KWARGS, rollout_workers=2, max_prompt_length=256,
    )  # fmt: skip
    return MICATrainer(model, config, case_dataset(cases), tokenizer, rollout_pool=pool)


@pytest.mark.slow
def test_actors_play_the_learners_episodes_and_the_trainer_learns_on_them(
    setting, pool, tmp_path, greedy_own, sampled_here
):
    import copy

    import torch

    from baselines.training.mica.distributed import rollout_seed

    model, tokenizer, envs, cases = setting
    assert len({w.split("/")[0] for w in pool.where()}) == 2  # one actor per worker node
    greedy = pool.play(LMRollout.of(model, tokenizer, GREEDY, 5), lm_episodes(cases, 2, 5))
    assert_same_batches(rollout_batch(greedy, cases, 2), greedy_own)
    sampled = LMRollout.of(model, tokenizer, SAMPLED, 7)
    one_worker = sampled_here  # every episode in this process, as one share
    assert_same_batches(rollout_batch(pool.play(sampled, lm_episodes(cases, 2, 7)), cases, 2), one_worker)  # fmt: skip

    # Two optimiser steps on the actors' rollouts: each generation is the one the learner's
    # weights of that step play (step 1 ships the weights step 0 changed).
    policy = copy.deepcopy(model)
    before = {k: v.clone() for k, v in policy.state_dict().items()}
    trainer = _trainer(policy, tokenizer, cases, tmp_path, pool, max_steps=2)
    played: list = []
    real_collect = trainer.collect

    def collect(case_ids):
        weights = {k: v.clone() for k, v in policy.state_dict().items()}
        tensors, batch = real_collect(case_ids)
        played.append((list(case_ids), weights, trainer.state.global_step, batch))
        return tensors, batch

    trainer.collect = collect
    trainer.train()
    trainer.close()
    assert [step for _, _, step, _ in played] == [0, 1]
    assert any(not torch.equal(before[k], v) for k, v in policy.state_dict().items())
    assert np.isfinite([r["loss"] for r in trainer.state.log_history if "loss" in r]).all()
    case_ids, weights, step, batch = played[1]
    reference = copy.deepcopy(model)
    reference.load_state_dict(weights)
    recipe = LMRollout.of(reference, tokenizer, trainer.args.generation, rollout_seed(0, step))
    here = play_in_process(envs, recipe, lm_episodes(case_ids, 2, rollout_seed(0, step)))
    assert_same_batches(batch, rollout_batch(here, case_ids, 2))
    assert pool.actors, "the trainer leaves a pool it was given to its owner"


@pytest.mark.slow
def test_an_actor_killed_mid_generation_is_restarted_and_the_step_completes(setting, pool, tmp_path):  # fmt: skip
    import copy

    import ray

    from baselines.training.mica.distributed import rollout_seed

    model, tokenizer, envs, cases = setting
    where = pool.where()
    playing = threading.Event()

    class Watched:  # the pool, telling when the generation has been handed to the actors
        def play(self, recipe, episodes):
            playing.set()
            return pool.play(recipe, episodes)

    # 8 episodes of long replies (the untrained model rarely ends one): a share of 4 takes an
    # actor about a second.
    trainer = _trainer(
        copy.deepcopy(model), tokenizer, cases, tmp_path, Watched(), max_steps=1,
        max_new_tokens=64, k=4,
    )  # fmt: skip
    thread = threading.Thread(target=trainer.train)
    thread.start()
    assert playing.wait(timeout=60)
    time.sleep(0.3)  # the actors are playing the generation
    assert thread.is_alive() and trainer.last_rollouts is None, "killed too late"
    ray.kill(pool.actors[0], no_restart=False)
    thread.join(timeout=120)
    assert not thread.is_alive(), "the step did not complete"
    assert trainer.state.global_step == 1
    assert pool.where()[0] != where[0]  # a new process
    # Every episode once, as the learner's own process plays them with those weights.
    seed = rollout_seed(0, 0)
    batch = trainer.last_rollouts
    recipe = LMRollout.of(model, tokenizer, trainer.args.generation, seed)
    here = play_in_process(envs, recipe, lm_episodes(batch.case_ids, 4, seed))
    assert_same_batches(batch, rollout_batch(here, batch.case_ids, 4))
