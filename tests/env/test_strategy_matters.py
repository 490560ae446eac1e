"""On the 30 benchmark cases, strategy matters and degenerate policies do not pay.

The policies are the plain ones in ``empa_env.testing.policies``, written for this test, and the
judge is the transparent ``lexicon`` judge: this checks the environment's mechanics (rubric,
physics, ending rules, Director and Actor) end to end. The default judge's ordering of honest and
gaming policies is tested in ``tests/judge`` (test_baselines.py, test_attacks.py).
"""

from __future__ import annotations

import statistics

import pytest

from empa_env.env import EMPAEnv
from empa_env.testing import policies as sp


def _suite_scores(policy):
    env = EMPAEnv("empa30-v1", judger="lexicon")
    rows = []
    for case in env.cases:
        env.reset(seed=0, options={"case": case})
        while True:
            *_, term, trunc, info = env.step(policy(env.messages))
            if term or trunc:
                rows.append(info["epm"])
                break
    return {
        "epm": statistics.mean(r["EPM_Index"] for r in rows),
        "success": sum(r["success"] for r in rows) / len(rows),
    }


@pytest.fixture(scope="module")
def scores():
    policies = {
        name: getattr(sp, name)
        for name in (
            "attuned",
            "advice_giver",
            "lecturer",
            "empty",
            "keyword_stuffer",
            "very_long",
            "repeater",
            "parrot",
            "injection",
        )
    }
    return {name: _suite_scores(p) for name, p in policies.items()}


def test_attuned_beats_advice_beats_lecturer(scores):
    attuned, advice, lecturer = scores["attuned"], scores["advice_giver"], scores["lecturer"]
    assert attuned["epm"] > advice["epm"] + 15, scores
    # Since the user answers questions from its whole story (issue 32), the story is told sooner
    # and the Director ends more episodes once nothing moves (20 of 30 for ``attuned``): under the
    # keyword judge attuned reaches success on 3 of 30 cases (0.1), advice on none. Success is
    # ordered here; its size is the default judge's to show (tests/judge/test_baselines.py).
    assert attuned["success"] > advice["success"], scores
    assert advice["epm"] > lecturer["epm"] + 3, scores
    assert advice["success"] >= lecturer["success"]


@pytest.mark.parametrize(
    "probe", ["empty", "keyword_stuffer", "very_long", "repeater", "parrot", "injection"]
)
def test_degenerate_policies_score_below_the_generic_advice_giver(scores, probe):
    assert scores[probe]["epm"] < scores["advice_giver"]["epm"], scores
    assert scores[probe]["success"] <= scores["advice_giver"]["success"]
