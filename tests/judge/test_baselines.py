"""Honest baselines: the scripted ``attuned`` speaks grammatical English about what the user said,
and the probe set holds the stock-phrase and word-salad probes (issue 14, item 6)."""

from __future__ import annotations

import re

import pytest

from baselines.policies.scripted import PROBE_POLICIES, REFERENCE_POLICIES, SCRIPTED, AttunedPolicy
from empa_env.env import EMPAEnv
from empa_env.offline.guards import ReplyGuards, load_guard_data, split_sentences, tokens
from empa_env.roles.views import Message

CASES = ("empa30-001", "empa30-010", "empa30-017", "empa30-029")


@pytest.fixture(scope="module")
def episodes(judge_under_test):
    env = EMPAEnv("empa30-v1", judger=judge_under_test)
    policy = AttunedPolicy()
    out = []
    for case in CASES:
        env.reset(seed=0, options={"case": case})
        turns = []
        while True:
            messages = env.messages
            reply = policy(messages)
            turns.append((messages, reply))
            *_, term, trunc, _ = env.step(reply)
            if term or trunc:
                break
        out.append(turns)
    return out


def test_attuned_replies_are_grammatical_by_the_fluency_check(episodes):
    guards = ReplyGuards()
    broken = []
    for turns in episodes:
        for _, reply in turns:
            for s in split_sentences(reply):
                ok, why, _ = guards._sentence_fluent(s.text)
                if not ok:
                    broken.append((s.text, why))
    total = sum(len(split_sentences(r)) for turns in episodes for _, r in turns)
    assert len(broken) <= 0.02 * total, broken


def test_attuned_mentions_something_the_user_said(episodes):
    data = load_guard_data()
    misses = []
    for turns in episodes:
        for messages, reply in turns:
            said = {
                w for m in messages if m["role"] == "user" for w in tokens(m["content"])
            } - data.function_words
            words = set(tokens(reply)) - data.function_words
            if not (words & said):
                misses.append(reply)
    n = sum(len(t) for t in episodes)
    assert len(misses) <= 0.2 * n, misses[:5]


def test_attuned_does_not_repeat_a_template_or_salad(episodes):
    guards = ReplyGuards()
    voided = []
    for turns in episodes:
        for messages, reply in turns:
            history = tuple(Message(m["role"], m["content"]) for m in messages)
            verdict = guards.inspect(reply, history)
            if verdict.void_reason:
                voided.append((reply, verdict.void_reason))
    assert len(voided) <= 1, voided


def test_no_keyword_salad_like_the_old_attuned(episodes):
    for turns in episodes:
        for _, reply in turns:
            assert not re.search(r"\b(?:and|between) (?:between|perhaps|and)\b", reply), reply


def test_registries():
    assert {"stock_phrases", "word_salad"} <= set(PROBE_POLICIES)
    assert set(REFERENCE_POLICIES) | set(PROBE_POLICIES) <= set(SCRIPTED)


@pytest.mark.slow
def test_attuned_beats_advice_beats_lecturer_with_the_default_judge(judge_under_test):
    """On the 30 benchmark cases: the honest attuned baseline is above the advice-giver, which is
    far above the lecturer. (Measured with the corpus v2 heads: 45.3 / 42.4 / 10.1; attuned ahead
    on 16 of 30 cases: the two honest baselines are close, and the margin is not asserted. Whether
    a scripted baseline also wins an episode is the judge's strictness: not asserted either.)"""
    import statistics

    from baselines.policies.scripted import AdviceGiverPolicy, LecturerPolicy

    def run(policy) -> tuple[float, int]:  # noqa: ANN001
        env = EMPAEnv("empa30-v1", judger=judge_under_test)
        scores, wins = [], 0
        for case in env.cases:
            env.reset(seed=0, options={"case": case})
            while True:
                *_, term, trunc, info = env.step(policy(env.messages))
                if term or trunc:
                    scores.append(info["epm"]["EPM_Index"])
                    wins += bool(info["epm"]["success"])
                    break
        return statistics.mean(scores), wins

    attuned, advice, lecturer = (
        run(p()) for p in (AttunedPolicy, AdviceGiverPolicy, LecturerPolicy)
    )
    assert attuned[0] > advice[0], (attuned, advice)
    # The listening user leaves the lecturer at about turn 7 (before: failure at turn 12), which
    # cuts its run of negative moves short: 16.5 against 11.5 before; the advice-giver 34.8.
    assert advice[0] > lecturer[0] + 15, (advice, lecturer)
