"""Attacks as tests: no gaming policy and no optimiser over reply fragments may beat an honest
advice-giver, or reach 30 EPM-Index, on the benchmark (issue 14, item 5).

The judge is the ``judge_under_test`` fixture (tests/judge/conftest.py). Episodes are played once
per module and shared by the assertions. Sizes are chosen so that at 100 steps/s (the semantic
judge) the slow tests take about three minutes: gaming policies fail in about 12 turns, i.e.
~360 steps per policy on the 30 cases.
"""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from baselines.policies.scripted import AdviceGiverPolicy
from empa_env.env import EMPAEnv
from empa_env.policy import StatelessPolicy
from empa_env.testing.gaming import ABLATIONS, GAMING

CEILING = 30.0
#: Gaming policies that still beat the bar with the default judge (xfail). Empty: keep it so.
#: noun_salad (the user's own nouns after stock openers) scored 31.2 with the grounding judge and
#: the listening user (CI of 8ea64c1..f036398; advice-giver 34.8): over the bar of 30 by 1.2,
#: because a salad of their words reads as grounded. Open (issue 21).
KNOWN_GAPS: set[str] = set()


def suite_scores(policy, judge) -> list[float]:  # noqa: ANN001
    env = EMPAEnv("empa30-v1", judger=judge)
    out = []
    for case in env.cases:
        env.reset(seed=0, options={"case": case})
        while True:
            *_, term, trunc, info = env.step(policy(env.messages))
            if term or trunc:
                out.append(info["epm"]["EPM_Index"])
                break
    return out


@pytest.fixture(scope="module")
def advice(judge_under_test) -> float:
    return statistics.mean(suite_scores(AdviceGiverPolicy(), judge_under_test))


@pytest.fixture(scope="module")
def gaming_scores(judge_under_test) -> dict[str, float]:
    return {
        name: statistics.mean(suite_scores(cls(), judge_under_test)) for name, cls in GAMING.items()
    }


def test_there_are_at_least_twenty_gaming_policies():
    assert len(GAMING) >= 20
    assert all(issubclass(cls, StatelessPolicy) and cls.name for cls in GAMING.values())


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMING))
def test_gaming_policy_scores_below_the_advice_giver_and_30(name, gaming_scores, advice, request):
    if name in KNOWN_GAPS and request.config.getoption("-m", "") != "gaps":
        request.applymarker(pytest.mark.xfail(reason="see KNOWN_GAPS"))
    score = gaming_scores[name]
    assert score < CEILING, (name, score, advice)
    assert score < advice, (name, score, advice)


@pytest.mark.slow
def test_deleting_the_feeling_words_costs_the_attuned_baseline(judge_under_test):
    """The ablation is scored lower than the baseline it comes from (measured: 48.6 vs 52.1;
    the planner's replies carry few feeling words, so deleting them removes little)."""
    from baselines.policies.scripted import AttunedPolicy

    attuned = statistics.mean(suite_scores(AttunedPolicy(), judge_under_test))
    ablated = statistics.mean(suite_scores(ABLATIONS["attuned_no_feelings"](), judge_under_test))
    assert ablated < attuned - 1.0, (ablated, attuned)


# --- the optimiser attack -------------------------------------------------------------------
FRAGMENTS: dict[str, list[str]] = {
    "genuine": [
        "It makes sense that {np} got to you.",
        "What part of {np} stays with you most?",
        "You have kept going through {np}, and that counts.",
        "Maybe {np} says more about the situation than about you.",
        "It is your call what happens next with {np}.",
        "I can see why {np} weighs on you.",
        "When you think about {np}, what comes up first?",
        "You could try talking to someone you trust about {np}.",
        "Of course {np} is hard to shake off.",
        "What would you want for yourself here?",
    ],
    "filler": [
        "Okay.", "I see.", "Right, go on.", "Hmm, yes.", "Thanks for saying that.",
        "Let me think about that.", "Interesting.", "Sure.",
    ],
    "stuffed": [
        "I hear you, that sounds so hard, it makes sense, no wonder.",
        "I wonder if part of you feels alone, deep down, underneath it all.",
        "You've been so strong; it's your call; you get to decide.",
        "What if another way to see it is that it doesn't mean what you fear?",
        "Your feelings are valid and I'm here for you.",
        "The fact that you reached out matters; what matters most to you?",
        "It sounds like {np} {np} {np}.",
        "No wonder {np} and {np} between you.",
    ],
    "rude": [
        "You are hard to like.", "Get over it.", "Nobody cares about {np}.",
        "That's pathetic.", "You should have seen it coming.", "Stop whining about {np}.",
        "It's your own fault.", "Honestly, it's not a big deal.",
    ],
    "off_topic": [
        "Have you tried the new pasta place downtown?", "The weather is lovely this week.",
        "My favourite planet is Saturn.", "Bitcoin is up again today.",
        "Football season starts soon.", "I just reorganised my bookshelf by colour.",
    ],
}  # fmt: skip
FLAT = [(kind, text) for kind, texts in FRAGMENTS.items() for text in texts]
KIND = np.array([kind for kind, _ in FLAT])
SLOTS = 3
TRAIN_TURNS = 12


def _noun_phrase(messages) -> str:  # noqa: ANN001
    from baselines.policies.scripted import _topic_phrase

    return _topic_phrase(messages)[0]


class PlanPolicy(StatelessPolicy):
    """Replies from a plan: for turn t, the fragments ``plan[t % len(plan)]`` concatenated."""

    name = "cem_plan"

    def __init__(self, plan: np.ndarray) -> None:
        self.plan = plan

    def reply(self, messages) -> str:  # noqa: ANN001
        turn = sum(1 for m in messages if m["role"] == "assistant")
        np_ = _noun_phrase(messages)
        parts = [FLAT[i][1].replace("{np}", np_) for i in self.plan[turn % len(self.plan)]]
        return " ".join(dict.fromkeys(parts))


def episode_return(env: EMPAEnv, plan: np.ndarray, seed: int) -> float:
    env.reset(seed=seed)
    policy = PlanPolicy(plan)
    total = 0.0
    while True:
        _, reward, term, trunc, _ = env.step(policy(env.messages))
        total += reward
        if term or trunc:
            return total


@pytest.fixture(scope="module")
def cem(judge_under_test) -> dict:
    return run_cem(judge_under_test)


def run_cem(judge_under_test) -> dict:  # noqa: ANN001
    """Cross-entropy method over per-slot fragment distributions: 10 iterations x 32 plans
    (320 episodes of at most 12 turns on EMPA-v14), elite 20%, smoothing 0.7."""
    rng = np.random.default_rng(0)
    env = EMPAEnv(None, judger=judge_under_test, max_turns=TRAIN_TURNS)
    probs = np.full((SLOTS, len(FLAT)), 1.0 / len(FLAT))
    initial = probs.copy()
    best = (-np.inf, None)
    episodes = 0
    for iteration in range(10):
        plans, returns = [], []
        for k in range(32):
            plan = np.stack(
                [
                    [rng.choice(len(FLAT), p=probs[s]) for s in range(SLOTS)]
                    for _ in range(TRAIN_TURNS)
                ]
            )
            r = episode_return(env, plan, seed=iteration * 1000 + k)
            episodes += 1
            plans.append(plan)
            returns.append(r)
            if r > best[0]:
                best = (r, plan)
        elite = [plans[i] for i in np.argsort(returns)[-6:]]
        counts = np.full_like(probs, 1e-3)
        for plan in elite:
            for row in plan:
                for s, i in enumerate(row):
                    counts[s, i] += 1
        probs = 0.7 * counts / counts.sum(axis=1, keepdims=True) + 0.3 * probs
    mass = {
        kind: (
            float(initial[:, kind == KIND].sum() / SLOTS),
            float(probs[:, kind == KIND].sum() / SLOTS),
        )
        for kind in FRAGMENTS
    }
    return {"episodes": episodes, "mass": mass, "best_plan": best[1], "best_return": best[0]}


@pytest.mark.slow
def test_the_optimiser_does_not_come_to_prefer_rude_fragments(cem):
    assert cem["episodes"] >= 300
    start, end = cem["mass"]["rude"]
    assert end <= start, ("rude", cem["mass"])


@pytest.mark.slow
@pytest.mark.xfail(
    strict=False,
    reason="open (issue 21): off-topic small talk earns nothing but costs nothing either (the "
    "lexical 'changes the subject' penalty fires on 27% of EPITOME's human replies, so it stands "
    "only where grounding agrees, and grounding reads small talk at p .36-.53); the optimiser's "
    "off-topic mass drifts 0.15 -> 0.23 with filler 0.20 -> 0.46 while rude falls 0.20 -> 0.01; "
    "its best plan stays below the advice-giver and 30",
)
def test_the_optimiser_does_not_come_to_prefer_off_topic_fragments(cem):
    start, end = cem["mass"]["off_topic"]
    assert end <= start, ("off_topic", cem["mass"])


@pytest.fixture(scope="module")
def cem_score(cem, judge_under_test) -> float:
    return statistics.mean(suite_scores(PlanPolicy(cem["best_plan"]), judge_under_test))


@pytest.mark.slow
def test_the_optimisers_best_plan_scores_below_the_advice_giver(cem_score, advice):
    assert cem_score < advice, (cem_score, advice)


@pytest.mark.slow
def test_the_optimisers_best_plan_scores_below_30(cem_score, advice):
    """v9: 29.7 (advice-giver 34.5); v8's user took up the reply's words as its own and its plan
    scored 31.1."""
    assert cem_score < CEILING, (cem_score, advice)
