"""SemanticJudger: real behaviour on real encoders and the shipped heads."""

from __future__ import annotations

import numpy as np
import pytest

from empa_env.offline.semantic.judger import (
    GuardVerdict,
    Penalty,
    SemanticJudger,
    sentence_spans,
)
from empa_env.roles.base import Judger
from empa_env.roles.views import Message

USER = (
    "I typed the PIN wrong three times at the terminal and the young man behind me sighed. "
    "Now the app is blocked and the rent is due. I feel so stupid."
)
GOOD = (
    "Of course you feel stupid right now, with a stranger sighing behind you. "
    "It sounds like the hardest part isn't the PIN itself but feeling judged while you tried. "
    "What would help you most with the rent this week?"
)
OTHER_USER = "My dog died last week and the flat is so quiet now. I keep setting out two bowls."


@pytest.fixture(scope="module")
def as_used():
    """``rate`` with the semantic judge as the environment runs it (``judger="semantic"``:
    guards, grounding, levels)."""
    from empa_env.offline.default import semantic_judger
    from empa_env.roles.views import JudgeView

    judge = semantic_judger()
    return lambda user, reply: judge.judge(JudgeView(None, (Message("user", user),), reply, 1))


def test_is_a_judger_and_describes_itself(judger):
    assert isinstance(judger, Judger)
    d = judger.describe()
    assert d["class"] == "SemanticJudger" and len(d["heads_sha256"]) == 64
    assert len(d["encoder_sha256"]) == 64 and d["encoder"]
    assert judger.languages == ("en",)


def test_genuine_reply_earns_progress_with_verbatim_quotes(judger):
    j = judger.rate(USER, GOOD)
    assert not j.failed and sum(j.prog.values()) >= 2
    for key, quote in j.evidence.items():
        assert quote and quote in GOOD, key
    for axis, lv in j.prog.items():
        if lv:
            assert f"{axis}_Prog" in j.evidence


def test_off_topic_reply_gets_less_progress_and_no_clarification(as_used):
    # A reply written for the bank-app conversation, sent to someone whose dog died: the judge
    # as the environment runs it (the bare heads alone do not read relevance; the grounding guard
    # of judger="offline" does).
    j = as_used(OTHER_USER, GOOD)
    assert sum(j.prog.values()) < sum(as_used(USER, GOOD).prog.values())
    assert j.prog["C"] == 0


def test_empty_reply(judger):
    for reply in ("", "   \n"):
        j = judger.rate(USER, reply)
        assert not j.failed and not any(j.prog.values()) and not any(j.neg.values())


def test_non_latin_reply_is_not_scored_as_empty(static_judger):
    j = static_judger.rate(USER, "我明白你的感受，这一定很难受。")
    assert j.failed and "reads en only" in j.error
    zero = SemanticJudger(tier="static", unsupported_language="zero").rate(USER, "我明白你的感受。")
    assert not zero.failed and "reads en only" in zero.reasoning["note"]


def test_insult_is_penalised(judger):
    j = judger.rate(USER, "You are hard to like. I hear you. That sounds really hard.")
    assert j.neg["A"] <= -1 and j.evidence["A_Neg"] in "You are hard to like. I hear you."


def test_guard_hook_vetoes_caps_and_penalises(static_judger):
    calls = []

    def guard(reading, context):
        calls.append((reading, context))
        return GuardVerdict(
            veto=frozenset({"C"}),
            caps={"A": 0},
            penalties={"P": Penalty(-2, "What would help you most", "test penalty")},
            note="test",
        )

    j = SemanticJudger(tier="static", guards=[guard]).rate(USER, GOOD)
    assert j.prog["C"] == 0 and j.prog["A"] == 0 and "C_Prog" not in j.evidence
    assert j.neg["P"] == -2 and j.evidence["P_Neg"] == "What would help you most"
    reading, context = calls[0]
    assert reading.reply == GOOD and context.history[-1] == Message("user", USER)

    def bad(reading, context):
        return GuardVerdict(penalties={"A": Penalty(-1, "not in the reply", "x")})

    with pytest.raises(ValueError, match="verbatim"):
        SemanticJudger(tier="static", guards=[bad]).rate(USER, GOOD)


def test_rate_agrees_with_the_batch_scores(judger):
    replies = [GOOD, "Okay. Noted.", "You've got this! Stay positive!"]
    batch = judger.score_pairs([USER] * 3, replies)
    for i, reply in enumerate(replies):
        j = judger.rate(USER, reply)
        for axis in ("C", "A", "P"):
            assert j.prog[axis] == batch[f"{axis}_Prog"][1][i]
            assert j.neg[axis] == batch[f"{axis}_Neg"][1][i]


def test_judge_view_reads_the_history(static_judger):
    from empa_env.cases.suites import load_suite
    from empa_env.roles.views import JudgeProfile, JudgeView

    case = load_suite("empa30-v1").cases[0]
    view = JudgeView(JudgeProfile.from_case(case), (Message("user", USER),), GOOD, turn=1)
    assert static_judger.judge(view).prog == static_judger.rate(USER, GOOD).prog


def test_sentence_spans():
    text = "Hi there.  How are you?\nFine!"
    assert [text[a:b] for a, b in sentence_spans(text)] == ["Hi there.", "How are you?", "Fine!"]
    assert sentence_spans("...") == []


def test_off_topic_reply_gets_no_progress_on_any_axis(as_used):
    j = as_used(OTHER_USER, GOOD)
    assert not any(j.prog.values()), j.prog


def test_one_warm_sentence_counts_inside_advice(static_judger):
    """The "addressed" heads score a reply with its strongest sentence: warmth toward the person
    is not averaged away by the advice around it, and the score is the documented mean."""
    advice = "Have you tried writing it all down? A lot of banks have a phone line for this."
    warm = "I'm so sorry you're going through this."
    alone = static_judger.read([USER], advice)
    mixed = static_judger.read([USER], f"{advice} {warm}")
    assert alone.levels["A_Prog"] == 0 and mixed.levels["A_Prog"] >= 1
    reply_score = float(static_judger.heads.heads["A_Prog"].expected(
        np.asarray([mixed.probabilities["A_Prog"]]))[0])  # fmt: skip
    strongest = max(mixed.sentence_scores["A_Prog"])
    assert mixed.scores["A_Prog"] == pytest.approx(0.5 * (reply_score + strongest))
    assert mixed.sentence(int(np.argmax(mixed.sentence_scores["A_Prog"]))) == warm


def test_the_writers_own_feelings_are_not_warmth_toward_the_user(static_judger):
    """A story of one's own that names feelings is a shared experience (C), not compassion for
    the person (A): the sentences about the writer and those addressed to the user are pooled
    apart. EPITOME's raters draw the same line (MODEL_CARD.md)."""
    story = "I felt so stupid when that happened to me last year, I couldn't sleep for days."
    compassion = "I'm so sorry, feeling stupid in front of a stranger is awful."
    own = static_judger.read([USER], story)
    toward = static_judger.read([USER], compassion)
    assert own.levels["A_Prog"] == 0 and own.levels["C_Prog"] >= 1, own.scores
    assert toward.levels["A_Prog"] >= 1, toward.scores
