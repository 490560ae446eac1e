"""Data constructions: SFT rows from trajectories, preference pairs, Echo-N1 humanlike samples."""

from __future__ import annotations

import random

import pytest

from baselines.training.hf.data import (
    HUMAN,
    MACHINE,
    SFTFilter,
    context_based_samples,
    context_free_samples,
    humanlike_pairs,
    preference_pairs,
    sft_examples,
    shuffled_context_samples,
    trim_to_last_reply,
)


@pytest.fixture(scope="module")
def trajectories(make_trajectory):
    return [
        make_trajectory("a", 2, tag="a-good"),
        make_trajectory("a", 1, tag="a-ok"),
        make_trajectory("a", 0, tag="a-flat"),
        make_trajectory("b", 1, tag="b-ok"),
        make_trajectory("b", 0, tag="b-flat"),
    ]


def test_sft_rows_are_conversations_ending_on_a_reply(trajectories):
    rows = sft_examples(trajectories)
    assert len(rows) == len(trajectories)
    for row in rows:
        msgs = row["messages"]
        assert msgs[0] == {"role": "user", "content": f"opening of {row['case_id']}"}
        assert msgs[-1]["role"] == "assistant"
        assert [m["role"] for m in msgs[:4]] == ["user", "assistant", "user", "assistant"]


def test_sft_filters(trajectories):
    outcomes = {t.turns[0].reply.split()[-1]: t.outcome for t in trajectories}
    assert outcomes["a-good"] == "success" and outcomes["a-flat"] != "success"

    success = sft_examples(trajectories, SFTFilter(success_only=True))
    assert {r["messages"][1]["content"].split()[-1] for r in success} == {
        tag for tag, o in outcomes.items() if o == "success"
    }
    best = sft_examples(trajectories, SFTFilter(best_of_n=1))
    assert sorted(r["messages"][1]["content"].split()[-1] for r in best) == ["a-good", "b-ok"]
    all_scores = [r["epm_index"] for r in sft_examples(trajectories)]
    cut = sorted(all_scores)[2]
    above = sft_examples(trajectories, SFTFilter(min_epm_index=cut))
    assert all(r["epm_index"] >= cut for r in above) and len(above) == 3


def test_sft_system_prompt_and_trim(make_trajectory):
    assert trim_to_last_reply([{"role": "user", "content": "x"}]) == []
    rows = sft_examples([make_trajectory("c", 1, turns=3)], system_prompt="be kind")
    assert rows[0]["messages"][0] == {"role": "system", "content": "be kind"}


def test_preference_pairs_modes_and_margin():
    ctx = [{"role": "user", "content": "I failed again"}]
    cands, scores = ["good", "bad", "mid", "tie-mid"], [3.0, -2.0, 1.0, 1.0]
    rest = preference_pairs(ctx, cands, scores)
    assert [(r["chosen"][0]["content"], r["rejected"][0]["content"]) for r in rest] == [
        ("good", "mid"),
        ("good", "tie-mid"),
        ("good", "bad"),
    ]
    assert all(r["prompt"] == ctx for r in rest)
    worst = preference_pairs(ctx, cands, scores, mode="best_vs_worst", with_margin=True)
    assert worst == [
        {
            "prompt": ctx,
            "chosen": [{"role": "assistant", "content": "good"}],
            "rejected": [{"role": "assistant", "content": "bad"}],
            "margin": 5.0,
        }
    ]
    every = preference_pairs(ctx, cands, scores, mode="all")
    assert len(every) == 5  # 6 pairs minus the tie
    assert preference_pairs(ctx, cands, scores, min_margin=2.5) == preference_pairs(
        ctx, cands, scores, mode="best_vs_rest", min_margin=2.5
    )
    assert len(preference_pairs(ctx, cands, scores, min_margin=2.5)) == 1
    with pytest.raises(ValueError):
        preference_pairs(ctx, cands, scores[:2])


DIALOGUES = [
    [
        {"role": "user", "content": f"u{d}-1"},
        {"role": "assistant", "content": f"h{d}-1"},
        {"role": "user", "content": f"u{d}-2"},
        {"role": "assistant", "content": f"h{d}-2"},
    ]
    for d in range(4)
]


def test_context_free_samples():
    samples = context_free_samples(DIALOGUES, ["m1", "m2"])
    humans = [s for s in samples if s.label == HUMAN]
    machines = [s for s in samples if s.label == MACHINE]
    assert len(humans) == 8 and len(machines) == 2
    assert all(len(s.messages) == 1 and s.messages[0]["role"] == "assistant" for s in samples)


def test_context_based_samples_replace_the_final_assistant_turn():
    seen = []

    def machine(ctx):
        seen.append(ctx)
        return "machine says hi"

    samples = context_based_samples(DIALOGUES, machine, random.Random(3))
    assert len(samples) == 8
    for human, mach in zip(samples[::2], samples[1::2], strict=True):
        assert human.label == HUMAN and mach.label == MACHINE
        assert human.messages[:-1] == mach.messages[:-1]  # same context
        assert human.messages[-1]["content"].startswith("h")
        assert mach.messages[-1]["content"] == "machine says hi"
        assert human.messages[-2]["role"] == "user"
    assert all(ctx[-1]["role"] == "user" for ctx in seen)


def test_shuffled_context_swaps_final_user_turn_only():
    samples = shuffled_context_samples(DIALOGUES, random.Random(0))
    assert len(samples) == 8
    for coherent, shuffled in zip(samples[::2], samples[1::2], strict=True):
        assert coherent.label == HUMAN and shuffled.label == MACHINE
        assert coherent.messages[-1] == shuffled.messages[-1]  # reply kept
        assert coherent.messages[:-2] == shuffled.messages[:-2]  # earlier context kept
        own, other = coherent.messages[-2]["content"], shuffled.messages[-2]["content"]
        assert own != other and other.endswith("-2")  # another dialogue's final user turn
    assert shuffled_context_samples(DIALOGUES[:1]) == []


def test_humanlike_pairs_pair_within_construction_and_origin():
    rng = random.Random(1)
    samples = context_based_samples(DIALOGUES, lambda c: "m", rng) + context_free_samples(
        DIALOGUES[:1], ["mm"]
    )
    pairs = humanlike_pairs(samples, rng)
    based = [p for p in pairs if p["construction"] == "context_based"]
    assert len(based) == 4
    for p in based:
        assert p["chosen"][:-1] == p["rejected"][:-1] and p["rejected"][-1]["content"] == "m"
    free = [p for p in pairs if p["construction"] == "context_free"]
    assert len(free) == 2 and all(p["rejected"][0]["content"] == "mm" for p in free)
