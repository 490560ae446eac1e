"""The scripted ``attuned`` baseline's reply planner (issue 14, item 6): replies are grammatical,
seen from the listener's side, answer the user's latest message and do not repeat themselves.

Budget: about 3 s (three offline episodes plus unit checks)."""

from __future__ import annotations

import re

import pytest

from baselines.policies.attuned import plan_reply, read_message
from baselines.policies.attuned.text import noun_phrases, to_listener
from baselines.policies.scripted import AttunedPolicy, scripted_policy
from empa_env.env import EMPAEnv
from empa_env.languages import ENGLISH_STOPWORDS

CASES = ("empa30-005", "empa30-017", "empa30-024")
DETERMINERS = ("the", "a", "an", "my", "your", "their", "our")


def _chat(*turns: str) -> list[dict[str, str]]:
    """A conversation of alternating user and assistant turns, starting with the user."""
    roles = ("user", "assistant")
    return [{"role": roles[i % 2], "content": text} for i, text in enumerate(turns)]


@pytest.fixture(scope="module")
def episodes() -> list[list[tuple[list[dict[str, str]], str]]]:
    env = EMPAEnv("empa30-v1")
    policy = AttunedPolicy()
    out = []
    for case in CASES:
        env.reset(seed=0, options={"case": case})
        turns = []
        while True:
            messages = [dict(m) for m in env.messages]
            reply = policy(messages)
            turns.append((messages, reply))
            *_, term, trunc, _ = env.step(reply)
            if term or trunc:
                break
        out.append(turns)
    return out


def _replies(episodes):
    return [reply for turns in episodes for _, reply in turns]


# --- perspective -----------------------------------------------------------------------------
def test_first_person_is_said_back_as_second_person():
    assert to_listener("I was nine and my dad left.") == "You were nine and your dad left."
    assert to_listener("We had six weeks; I'm tired.") == "You had six weeks; you're tired."
    assert noun_phrases("My son Mikkel works for a wind-farm company in Esbjerg.") == [
        "your son Mikkel",
        "the wind-farm company",
    ]


def test_noun_phrases_are_whole_phrases():
    # the old planner cut "the Morita family" to "the Morita" and took "your driving licence"
    # for every later turn
    assert noun_phrases("The white truck went to the Morita family.") == [
        "the white truck",
        "the Morita family",
    ]
    assert noun_phrases("In 1972 I bought my first truck with the rice money.") == [
        "your first truck",
        "the rice money",
    ]
    assert noun_phrases("I'm a little lonely, numb as a post.") == []


def test_reply_turns_the_users_words_around():
    reply = plan_reply(
        _chat("My son Mikkel works in Esbjerg. I was proud of him. He doesn't want my boat.")
    )
    assert (
        "your" in reply.lower() and "my son" not in reply.lower() and "my boat" not in reply.lower()
    )
    assert not re.search(r"\byou was\b|\bI are\b|\byou am\b", reply, re.I), reply


# --- reading the latest message ----------------------------------------------------------------
def test_reading_finds_feeling_question_and_stance():
    r = read_message(
        "Could be. I'm not sad. I'm furious. I gave them everything and I was the furniture."
    )
    assert r.feeling is not None and r.feeling.word == "furious" and r.denied_feelings == ("sad",)
    assert r.events[0].clause == "you gave them everything and you were the furniture"
    assert read_message("Let's stop here.").stance == "stop"
    assert read_message("Forget it. You don't get it.").stance == "pushback"
    assert read_message("I'd rather not talk about that.").stance == "refusal"
    assert read_message("It's my duty. What to do.").asks_what_to_do


@pytest.mark.parametrize(
    ("said", "expected", "forbidden"),
    [
        ("Let's stop here. That is enough for today.", ".", "?"),  # no further question
        ("So I'm selfish. Okay.", "you're selfish", "hear that you're selfish"),
        ("Now I want three days a week back. Is that wrong?", "wrong", "How did"),
        ("I'm not sad. I'm furious.", "furious", "you're sad"),
        ("You don't understand. Forget it.", "?", "understand instead? What"),
    ],
)
def test_reply_answers_what_the_user_just_did(said, expected, forbidden):
    reply = plan_reply(
        _chat("My father left when I was nine.", "What was that like for you?", said)
    )
    assert expected in reply and forbidden not in reply, reply
    if "selfish" in said:
        assert re.search(r"not saying you're selfish|don't think you're selfish", reply), reply


def test_a_pushback_gets_a_repair_not_a_new_topic():
    reply = plan_reply(
        _chat("I lost my job at the bakery.", "So you lost your job.", "That's a cheap line.")
    )
    assert "job" not in reply and "bakery" not in reply, reply
    assert reply.endswith("?"), reply


# --- whole episodes --------------------------------------------------------------------------
def test_every_reply_is_well_formed(episodes):
    for reply in _replies(episodes):
        for sentence in re.split(r"(?<=[.!?])\s+", reply):
            assert sentence[:1].isupper(), (sentence, reply)
            assert sentence[-1] in ".?!", (sentence, reply)
        for sentence in re.split(r"(?<=[.!?])\s+", reply):
            words = re.findall(r"[\w']+", sentence.lower())
            doubled = [a for a, b in zip(words, words[1:], strict=False) if a == b]
            assert not doubled, (doubled, reply)
        dangling = re.search(rf"\b(?:{'|'.join(DETERMINERS)})\s*[.,;?!]", reply, re.I)
        assert not dangling, reply
        assert not re.search(r"\b(?:the|a|an) (?:your|my|his|her|the)\b", reply, re.I), reply
        assert not re.search(r"\byou (?:was|am)\b|\bI (?:are|were)\b", reply), reply


def test_no_phrase_repeated_in_consecutive_turns(episodes):
    def grams(text: str) -> set[tuple[str, ...]]:
        ws = re.findall(r"[\w']+", text.lower())
        return {
            g
            for g in zip(ws, ws[1:], ws[2:], strict=False)
            if any(w not in ENGLISH_STOPWORDS and len(w) > 2 for w in g)
        }

    for turns in episodes:
        for (_, before), (messages, after) in zip(turns, turns[1:], strict=False):
            # a thing the user just named again ("the day care") is their topic, not a stock
            # phrase of the policy's: only phrases with a content word the user did not just
            # use count as repeated
            latest = set(re.findall(r"[\w']+", messages[-1]["content"].lower()))
            shared = {
                g for g in grams(before) & grams(after)
                if any(w not in latest and w not in ENGLISH_STOPWORDS and len(w) > 2 for w in g)
            }  # fmt: skip
            assert not shared, (shared, before, after)


def test_reply_refers_to_the_latest_message(episodes):
    """When the user tells something (a sentence of five or more words about their life), the
    reply picks up a content word of that message."""
    told = missed = 0
    for turns in episodes:
        for messages, reply in turns:
            latest = messages[-1]["content"]
            reading = read_message(latest)
            if not reading.events or reading.stance in ("stop", "pushback", "refusal"):
                continue
            told += 1
            said = {w for w in re.findall(r"[\w']+", latest.lower()) if w not in ENGLISH_STOPWORDS}
            if not said & set(re.findall(r"[\w']+", reply.lower())):
                missed += 1
    assert told >= 20 and missed <= 0.1 * told, (told, missed)


def test_deterministic():
    env = EMPAEnv("empa30-v1")

    def run() -> list[str]:
        env.reset(seed=4, options={"case": "empa30-010"})
        replies = []
        for _ in range(8):
            replies.append(AttunedPolicy()(env.messages))
            *_, term, trunc, _ = env.step(replies[-1])
            if term or trunc:
                break
        return replies

    assert run() == run()


# --- other languages -------------------------------------------------------------------------
def test_chinese_input_gets_a_short_chinese_reply():
    policy = scripted_policy("attuned")
    messages = _chat("我上个月把驾照还回去了。现在我只能待在家里。")
    first = policy(messages)
    second = policy(
        [
            *messages,
            {"role": "assistant", "content": first},
            {"role": "user", "content": "嗯，也许吧。"},
        ]
    )
    for reply in (first, second):
        assert re.search(r"[\u4e00-\u9fff]", reply) and not re.search(r"[A-Za-z]", reply), reply
        assert reply[-1] in "。？！", reply
    assert "你只能待在家里" in first  # the user's clause, turned around
    assert first != second


def test_an_apology_of_the_user_is_no_event_to_say_back():
    """ "Sorry, it's a long story." is the user excusing themself, not something that happened to
    them ("I hear that Sorry, it's a long story." was attuned's first reply on some cases); an
    opening interjection is left off an event that follows it."""
    from baselines.policies.attuned.reading import _event

    assert _event("Sorry, it's a long story.") is None
    found = _event("Oh, my landlord changed the locks while I was at work.")
    assert found is not None and found.clause.startswith("your landlord"), found
    reply = plan_reply(_chat("Sorry, it's a long story."))
    assert "Sorry" not in reply, reply
