"""A conversation the user ends early is scored as abandoned, not locked in (epm.episode)."""

from __future__ import annotations

import dataclasses

import numpy as np

from epm.config import get_preset
from epm.episode import evaluate, scored_turns
from epm.trajectory import Trajectory


def _played(outcome: str) -> Trajectory:
    from empa_env.env import EMPAEnv

    env = EMPAEnv("empa30-v1", max_turns=20)
    env.reset(seed=0, options={"case": env.cases[0].id})
    for reply in (
        "Being locked out three days before the rent sounds frightening. What happened at the app?",
        "So the app blocked you after the PIN went wrong, and the rent is due. That is a lot.",
    ):
        env.step(reply)
    traj = Trajectory.from_dict(env.unwrapped.trajectory.to_dict())
    return dataclasses.replace(traj, outcome=outcome)


def test_a_goodbye_before_min_turns_is_scored_as_the_user_left_where_they_were():
    config = get_preset("official")
    left = _played("policy_left")
    inc, levels = scored_turns(left, config)
    assert len(inc) == config.ending.min_turns and not inc[len(left.turns) :].any()
    assert np.array_equal(inc[: len(left.turns)], left.increments())
    assert not levels[len(left.turns) :].any()
    scored = evaluate(left)
    assert scored["turns"] == config.ending.min_turns
    # the same turns ended by the rules (no user ending) are scored as played
    ended = evaluate(_played("failure"))
    assert ended["turns"] == len(left.turns)
    assert scored["EPM_Index"] <= ended["EPM_Index"]


def test_a_user_who_leaves_is_scored_as_if_the_last_move_went_on():
    """Padding a walk-out with zero moves would raise the score of the policy that drove the user
    away (zero moves after negative ones): the last move goes on until ``min_turns``."""
    config = get_preset("official")
    left = _played("user_left")
    inc, levels = scored_turns(left, config)
    n = len(left.turns)
    assert len(inc) == config.ending.min_turns
    assert np.array_equal(inc[:n], left.increments())
    assert (inc[n:] == left.increments()[-1]).all() and (levels[n:] == left.levels()[-1]).all()
