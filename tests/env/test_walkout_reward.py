"""A user's walk-out does not cut a stream of negative rewards short (issue 21/22).

The return an optimiser sees must agree with the score: EPM scores a walk-out before
``min_turns`` as the last move going on (``epm.episode.scored_turns``), so the environment adds the
reward of those unplayed turns to the last step. Otherwise rudeness that ends the episode early
raises the return of a policy whose turns lose ground (seen: a cross-entropy optimiser's rude
fragment mass rose 0.20 -> 0.33).
"""

from __future__ import annotations

import numpy as np

from baselines.policies.scripted import LecturerPolicy
from empa_env.env import EMPAEnv
from epm.episode import scored_turns, unplayed_increments


def test_a_walk_out_is_rewarded_as_the_scored_continuation():
    env = EMPAEnv("empa30-v1")
    policy = LecturerPolicy()
    env.reset(seed=0, options={"case": "empa30-001"})
    rewards = []
    while True:
        _, reward, term, trunc, info = env.step(policy.reply(env.messages))
        rewards.append(reward)
        if term or trunc:
            break
    traj = env.trajectory
    min_turns = env.config.ending.min_turns
    assert info["status"] == "user_left" and len(traj.turns) < min_turns
    inc, _ = scored_turns(traj, env.config)
    assert len(inc) == min_turns
    # the return telescopes to the potential at the scored end, not at the walk-out
    end = np.asarray(traj.p0) + inc.sum(axis=0)
    assert np.isclose(sum(rewards), env.reward_fn(np.asarray(traj.p0), end))
    played_end = np.asarray(traj.turns[-1].position)
    assert sum(rewards) < env.reward_fn(np.asarray(traj.p0), played_end)  # walking out costs
    assert traj.turns[-1].reward == rewards[-1]


def test_unplayed_increments_follow_the_scoring():
    from epm.config import get_preset

    cfg = get_preset("official")
    v = np.array([-1.0, 0.0, -2.0])
    assert unplayed_increments("user_left", 5, v, cfg).tolist() == [v.tolist()] * 7
    assert unplayed_increments("policy_left", 10, v, cfg).tolist() == [[0.0, 0.0, 0.0]] * 2
    assert unplayed_increments("user_left", 12, v, cfg).shape == (0, 3)
    assert unplayed_increments("failure", 3, v, cfg).shape == (0, 3)
