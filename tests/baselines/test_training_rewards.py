"""Echo-N1 reward functions in TRL's reward_funcs signature."""

from __future__ import annotations

import math

import pytest

from baselines.training.hf.rewards import (
    EmpathyReward,
    HumanlikeReward,
    ProcessGatedReward,
    TotalReward,
    bradley_terry,
    completion_text,
    prompt_context,
    sigmoid,
)

CONV_PROMPTS = [
    [{"role": "user", "content": "my dog died"}],
    [{"role": "user", "content": "I got the job"}],
]
CONV_COMPLETIONS = [
    [{"role": "assistant", "content": "oh no, I'm so sorry. how old was she?"}],
    [{"role": "assistant", "content": "As an AI language model, congratulations."}],
]


def test_text_helpers():
    assert completion_text("plain") == "plain"
    assert completion_text(CONV_COMPLETIONS[0]).startswith("oh no")
    assert prompt_context("hi") == [{"role": "user", "content": "hi"}]
    assert prompt_context(CONV_PROMPTS[0]) == CONV_PROMPTS[0]
    with pytest.raises(TypeError):
        completion_text(3)
    assert sigmoid(0.0) == 0.5 and sigmoid(-800.0) == pytest.approx(0.0)


def test_humanlike_indicator_context_aware_and_free():
    seen = []

    def judge(context, reply):
        seen.append(context)
        return 0.1 if "AI language model" in reply else 0.8

    aware = HumanlikeReward(judge)
    assert aware(prompts=CONV_PROMPTS, completions=CONV_COMPLETIONS) == [1.0, 0.0]
    assert seen[0] == CONV_PROMPTS[0]
    seen.clear()
    free = HumanlikeReward(judge, context_aware=False)
    assert free(prompts=CONV_PROMPTS, completions=CONV_COMPLETIONS) == [1.0, 0.0]
    assert seen == [[], []]
    assert aware.__name__ == "humanlike"


def test_empathy_reward_against_reference_discrete_and_continuous():
    scores = {"warm reply": 2.0, "cold reply": -1.0, "reference": 0.5}
    pref = bradley_terry(lambda ctx, reply: scores[reply])
    kwargs = {"reference": ["reference", "reference"], "trainer_state": object()}
    completions = ["warm reply", "cold reply"]
    discrete = EmpathyReward(pref)
    assert discrete(prompts=["a", "b"], completions=completions, **kwargs) == [1.0, 0.0]
    continuous = EmpathyReward(pref, mode="continuous")
    out = continuous(prompts=["a", "b"], completions=completions, **kwargs)
    assert out == pytest.approx([sigmoid(1.5), sigmoid(-1.5)])
    with pytest.raises(KeyError):
        discrete(prompts=["a"], completions=["warm reply"])
    with pytest.raises(ValueError):
        EmpathyReward(pref, mode="fuzzy")


GOOD = "<think>The user lost a pet. Grief needs validation before advice.</think><answer>A</answer>"


def test_process_gated_reward_is_a_multiplicative_and():
    r = ProcessGatedReward()
    steps = [["user lost pet", "grief needs validation"]] * 5
    completions = [
        GOOD,                                                          # right, full recall
        GOOD.replace("<answer>A", "<answer>B"),                         # wrong verdict -> 0
        "<think>Something unrelated.</think><answer>A</answer>",        # right, no recall -> 0
        "<think>The user lost a pet.</think><answer>A</answer>",        # right, half recall
        "The user lost a pet. <answer>A</answer>",                      # format broken -> 0
    ]  # fmt: skip
    out = r(prompts=[""] * 5, completions=completions, label=["A"] * 5, key_steps=steps)
    assert out == [1.0, 0.0, 0.0, 0.5, 0.0]
    outcome_only = ProcessGatedReward(gate=False)
    out = outcome_only(prompts=[""] * 5, completions=completions, label=["A"] * 5, key_steps=steps)
    assert out == [1.0, 0.0, 1.0, 1.0, 1.0]


def test_process_reward_constraints():
    r = ProcessGatedReward(max_reasoning_words=3)
    assert r(prompts=[""], completions=[GOOD], label=["a"]) == [0.0]  # reasoning too long
    r = ProcessGatedReward()
    assert r(prompts=[""], completions=[GOOD], label=["a"]) == [1.0]  # no key steps: format only
    assert r.parse(GOOD + "<answer>B</answer>")[1] is None  # two verdicts: non-compliant


def test_total_reward_sums_parts():
    empathy = EmpathyReward(bradley_terry(lambda c, r: len(r)))
    humanlike = HumanlikeReward(lambda c, r: 0.9)
    total = TotalReward([empathy, humanlike])
    out = total(prompts=["x", "y"], completions=["longer reply", "s"], reference=["mid", "mid"])
    assert out == [2.0, 1.0]
    weighted = TotalReward([empathy, humanlike], weights=[2.0, 0.5])
    assert weighted(prompts=["x"], completions=["longer reply"], reference=["mid"]) == [2.5]
    with pytest.raises(ValueError):
        TotalReward([empathy], weights=[1.0, 2.0])(
            prompts=["x"], completions=["y"], reference=["z"]
        )
    none_part = TotalReward([lambda prompts, completions, **_: [None]])
    assert math.isnan(none_part(prompts=["x"], completions=["y"])[0])
