"""Preference pairs ranked by the real offline Judger (no torch needed)."""

from __future__ import annotations

import pytest

gym = pytest.importorskip("gymnasium")
pytest.importorskip("empa_env.env")

from baselines.training.mica.rollout import candidate_preferences, score_candidates  # noqa: E402


def test_candidates_are_scored_on_copies_and_ranked():
    env = gym.make("EMPA-v14")
    env.reset(seed=0)
    before = [dict(m) for m in env.unwrapped.messages]
    user = before[-1]["content"]
    words = [w.strip(".,!?") for w in user.split() if len(w.strip(".,!?")) > 4][:2]
    engaged = (
        f"It sounds like {' and '.join(words)} weigh on you. What part of it stays with you most?"
    )
    lecture = "You need to stop worrying and just move on. It's not that big a deal."
    scores = score_candidates(env, [engaged, lecture])
    assert env.unwrapped.messages == before  # the original conversation is untouched
    assert env.unwrapped.trajectory.num_turns == 0
    assert scores[0] > scores[1]
    pairs = candidate_preferences(env, [lecture, engaged], with_margin=True)
    assert len(pairs) == 1
    assert pairs[0]["chosen"][0]["content"] == engaged
    assert pairs[0]["prompt"] == before and pairs[0]["margin"] > 0
