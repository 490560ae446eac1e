"""The reading judge reads meaning, not the shape of words (issue 31): a cut-off or respelt word of
the user's is their word, not a paraphrase; a slot that an auxiliary and a bare verb make a subject
takes a noun; word vectors that put a stock line near a message are checked by the sentence's
meaning; a kind line that says a little of them in other words earns more of its small credit than
one that fits anyone; advice is a form, not a guess of the act head's."""

from __future__ import annotations

import numpy as np
import pytest

from empa_env.offline.credit import (
    CREDIT_FLOOR,
    GENERIC_TOTAL,
    MEANING_CONFIRMS,
    PARAPHRASE_STRONG,
    reply_credit,
)
from empa_env.offline.default import offline_judger
from empa_env.offline.semantic.grounding import MEANING_POOL_FILE
from empa_env.reading.reply import own_words, read_reply
from empa_env.reading.tokens import tokens_of
from empa_env.reading.world import in_place
from empa_env.roles.views import JudgeView, Message


@pytest.fixture(scope="module")
def judge():
    return offline_judger()


def rate(judge, user: str, reply: str):  # noqa: ANN001
    return judge.judge(JudgeView(None, (Message("user", user),), reply, 1))  # type: ignore[arg-type]


def test_a_word_of_theirs_cut_off_or_respelt_is_not_a_word_of_ones_own():
    said = frozenset({"bénédicte", "wedding", "dress"})
    own = own_words(tokens_of("I think Bened and Benedicte will love the gown you chose."), said)
    assert not {"bened", "benedicte"} & {w.lower() for w in own}
    assert {"gown", "chose"} <= set(own)
    # a word no dictionary knows and none of theirs resembles stays the sentence's own
    assert "quorvath" in own_words(tokens_of("Quorvath is on my mind."), said)


@pytest.mark.parametrize(
    ("sentence", "word", "placed"),
    [
        ("What does folded bring up for you?", "folded", False),
        ("What does running bring up for you?", "running", True),
        ("What does Dee bring to it?", "dee", True),
        ("Did you fold the letter?", "you", True),
        ("You did fold it, then.", "fold", True),
        # a number alone names nothing, and a word that can be an adjective is one there
        ("What does five bring up for you?", "five", False),
        ("What does 30 bring up for you?", "30", False),
        ("What does small bring up for you?", "small", False),
        ("What does grief bring up for you?", "grief", True),
        ("What do the five of them say?", "five", True),
        # a subject: an adjective (or a word that is an adjective or a noun only) stands bare
        # there only out of place (v8)
        ("It sounds like silly is weighing on you so much.", "silly", False),
        ("It sounds like home is weighing on you.", "home", True),
        ("It sounds like the future is scary.", "future", True),
        ("It sounds like money is tight.", "money", True),
    ],
)
def test_after_an_auxiliary_and_before_a_bare_verb_stands_a_subject(sentence, word, placed):
    toks = tokens_of(sentence)
    k = next(i for i, t in enumerate(toks) if t.text == word)
    assert in_place(toks, k) is placed


def test_a_stock_line_near_a_message_by_its_words_is_checked_by_its_meaning(judge):
    """Word vectors put "No wonder it keeps coming back to you" as near a worried message as a
    strong paraphrase; its whole meaning is not, and it earns no understanding."""
    user = "I'm confused, and a bit hurt, and worried I'm being paranoid."
    s = read_reply("No wonder it keeps coming back to you.", (user,)).sentences[0]
    assert s.paraphrase >= PARAPHRASE_STRONG  # what the word vectors say
    assert s.meaning < MEANING_CONFIRMS  # what the sentence says
    assert rate(judge, user, "No wonder it keeps coming back to you.").prog["C"] == 0


def test_a_paraphrase_whose_meaning_agrees_keeps_its_strength():
    user = "Every night I lie awake replaying the argument with my son."
    reply = "Those sleepless nights spent rerunning the row with him must wear you down."
    s = read_reply(reply, (user,)).sentences[0]
    assert s.paraphrase >= PARAPHRASE_STRONG and s.meaning >= MEANING_CONFIRMS


def test_the_meaning_is_read_only_for_a_sentence_near_by_its_words():
    s = read_reply("I had pasta for lunch today.", ("My cat died on Sunday.",)).sentences[0]
    assert s.paraphrase < PARAPHRASE_STRONG and s.meaning == -1.0


def test_a_reflection_without_the_form_of_advice_is_not_advice(judge):
    """The act head reads advice into "You're up half the night reliving that fight with your
    son"; nothing in its form advises, and it says back what they told."""
    user = "Every night I lie awake replaying the argument with my son."
    j = rate(judge, user, "You're up half the night reliving that fight with your son.")
    assert j.prog["C"] > 0, j.reasoning
    advice = rate(judge, user, "You should talk to your son about the argument tonight.")
    assert advice.prog["C"] == 0, advice.reasoning


def test_a_kind_line_near_them_earns_more_of_its_small_credit_than_one_that_fits_anyone():
    user = "My dad's funeral was yesterday and I still can't cry."
    near = read_reply("I'm so sorry. Tears sometimes arrive weeks after a burial.", (user,))
    far = read_reply("I'm so sorry. I'm here for you.", (user,))
    near_credit, far_credit = reply_credit(near), reply_credit(far)
    assert not any(near_credit.levels.values()) and not any(far_credit.levels.values())
    n, f = sum(near_credit.generic.values()), sum(far_credit.generic.values())
    assert GENERIC_TOTAL >= n > f >= CREDIT_FLOOR, (near_credit, far_credit)


def test_the_shipped_meaning_pool_is_the_grounding_pools_messages_by_minilm():
    from empa_env.offline.semantic.encoder import shared_encoder

    with np.load(MEANING_POOL_FILE) as z:
        pool = z["pool"].astype(np.float32)
        assert str(z["encoder_sha256"]) == shared_encoder("minilm").sha256
    assert pool.shape == (600, 384)
    np.testing.assert_allclose(np.linalg.norm(pool, axis=1), 1.0, atol=2e-3)


def test_a_greeting_or_a_term_of_address_is_not_what_they_talk_about(judge):
    """ "Good evening, my friend" greets the listener: neither an evening nor a friend is in the
    user's story, and a reply built on them grounds nothing (the strategy experiment's best policy
    once earned IDR +2.3 with "your friend and the evening")."""
    from empa_env.reading.world import user_world

    user = "Good evening, my friend. I am a headmaster and I have done something I must not do."
    items = user_world((user,)).items
    assert "evening" not in items and "friend" not in items and "headmaster" in items
    for told in ("My friend, Ama, told the board.", "I miss my friend, she moved away."):
        assert "friend" in user_world((told,)).items, told
    j = rate(judge, user, "No wonder you feel worn down, with your friend and the evening on you.")
    assert j.prog["C"] == 0 and j.prog["A"] <= GENERIC_TOTAL, j.reasoning


def _judge_after(judge, turns: list[tuple[str, str]], reply: str):  # noqa: ANN001, ANN202
    history = tuple(Message(role, text) for role, text in turns)  # type: ignore[arg-type]
    return judge.judge(JudgeView(None, history, reply, len(turns)))  # type: ignore[arg-type]


def test_a_word_the_user_only_took_up_from_the_listener_is_not_theirs():
    from empa_env.reading.world import borrowed_words, user_world

    turns = [
        ("user", "My landlord wants us out by March and the deposit is gone."),
        ("assistant", "What part of the move feels most like a cliff edge?"),
        ("user", "The cliff edge is March, honestly."),
        ("assistant", "Tell me about the deposit."),
        ("user", "The deposit was two thousand."),
    ]
    borrowed = borrowed_words(turns)
    # "cliff" and "edge" came from the listener; "deposit" and "march" were theirs before
    assert {"cliff", "edge"} <= borrowed and not {"deposit", "march"} & borrowed
    users = [t for r, t in turns if r == "user"]
    items = user_world(users, borrowed=borrowed).items
    assert "cliff" not in items and "deposit" in items and "landlord" in items
    assert "cliff" in user_world(users).items  # read without the conversation, it is theirs


def test_a_frame_whose_words_are_all_theirs_from_earlier_messages_says_nothing_of_its_own(judge):
    """A question frame filled with one word of theirs whose other content word they happened to
    use messages before ("bring" after "my mother still brings me food") says nothing of its own
    about them: it earns as a generic line, not as grounded exploration."""
    turns = [
        ("user", "I'm thirty and my mother still brings me food."),
        ("assistant", "That sounds like a lot of change at once."),
        ("user", "I moved flats too. The new one is quiet."),
        ("assistant", "Quiet can be hard after so long with someone."),
        ("user", "The quiet gets loud at night. I walk at two in the morning."),
    ]
    framed = _judge_after(judge, turns, "What do the walks bring up for you?")
    assert framed.prog["P"] <= 0.5, framed.reasoning
    honest = _judge_after(
        judge, turns, "What keeps you company on those walks when the streets are empty?"
    )
    assert honest.prog["P"] > framed.prog["P"], (honest.reasoning, framed.reasoning)


@pytest.mark.parametrize(
    "sentence",
    [
        "No wonder I'm keeps coming back to you.",
        "It seems like the keeps you up at night.",
        "Maybe you is carrying more than anyone sees.",
        "I think them seems far away now.",
        "That's why that's is so heavy.",
        # v14: a negation or "do" before a full verb, a number before "keeps"
        "No wonder did keeps coming back to you.",
        "No wonder not keeps coming back to you.",
        "No wonder five keeps coming back to you.",
    ],
)
def test_a_word_where_no_subject_can_stand_reads_as_a_slotted_frame(sentence):
    from empa_env.reading.world import slotted, user_world

    world = user_world(("My brother stopped calling after the funeral and I keep waiting.",))
    assert slotted(tokens_of(sentence), world)


@pytest.mark.parametrize(
    "sentence",
    [
        "No wonder it keeps coming back to you.",
        "Who you are is enough.",
        "What he has is a lot of guilt.",
        "She seems tired, and he is angry.",
        "The waiting itself keeps you up.",
        "All he did was call, and all it does is hurt.",
        "No one keeps score, and he just keeps going.",
        "Thirty seems so young, and five has been hard.",
    ],
)
def test_a_grammatical_subject_is_not_a_slot(sentence):
    from empa_env.reading.world import no_subject

    toks = tokens_of(sentence)
    assert not any(no_subject(toks, k) for k in range(len(toks)))


_SAID = (
    "Honestly it's embarrassing. Fun fact, the years went by. He was so proud when I did it. "
    "My books, my kids, my father. Kind of hard.",
)


@pytest.mark.parametrize(
    "sentence",
    [
        # a capital that is no name of theirs is the word it is (the first word of their
        # message, taken with its capital)
        "No wonder Honestly keeps coming back to you.",
        "I hear you. No wonder Kind keeps coming back to you.",
        "It sounds like Honestly is weighing on you.",
        # a plural is no subject of a singular verb
        "No wonder years keeps coming back to you.",
        "It sounds like books is weighing on you.",
        # an adjective after a verb that takes none, opening nothing
        "You've been carrying proud for a long time.",
        "It seems you've been hiding proud from everyone.",
    ],
)
def test_a_word_of_theirs_out_of_its_grammatical_place_is_a_slot(sentence):
    """v14: the capitalised first word of a message, a plural before a singular verb and a
    feeling adjective left alone after a verb were the judge-oracle search's best slots."""
    from empa_env.reading.world import slotted, user_world

    assert slotted(tokens_of(sentence), user_world(_SAID))


@pytest.mark.parametrize(
    "sentence",
    [
        "You wanted to make your father proud.",
        "You just want to see the kids happy again.",
        "Five years is a long time to carry that.",
        "Those years were hard, and he was proud of you.",
        "You've been feeling proud and embarrassed at once.",
        "It's been years of carrying heavy books for your kids.",
        "You said sorry to your father.",
        "He died young, and the years since have been hard.",
        "Your father would be proud.",
        # the complement of a verb that takes one, as a subject's part; a tie of theirs
        "Feeling proud of your kids is a fair response to all of it.",
        "Being embarrassed makes sense, and your pa would understand.",
    ],
)
def test_the_same_words_in_their_places_are_no_slot(sentence):
    from empa_env.reading.world import slotted, user_world

    assert not slotted(tokens_of(sentence), user_world(_SAID))


_STUCK = ("I feel stuck, like the truck with no battery. I just don't want anybody to get hurt.",)


@pytest.mark.parametrize(
    ("sentence", "slot"),
    [
        # a state of theirs set alone after a preposition, as a noun that opens nothing
        ("How are you holding up with stuck?", True),
        ("How do you feel when you think about hurt?", True),
        # the same words where they stand: a state, a participle, a verb after "to"
        ("Feeling stuck like that truck must wear you down.", False),
        ("It sounds like you're stuck between two hard choices.", False),
        ("You don't want anyone to get hurt.", False),
        ("Being stuck with no battery and no way to get going is exhausting.", False),
    ],
)
def test_a_state_of_theirs_set_as_a_bare_noun_is_a_slot(sentence, slot):
    from empa_env.reading.world import slotted, user_world

    assert slotted(tokens_of(sentence), user_world(_STUCK)) is slot


@pytest.mark.parametrize(
    "sentence",
    [
        "Your parents are splitting and somehow the choice of where you live has landed on you.",
        "Losing a rated game to a kid that young clearly stung.",
        "That says a lot about the pair of you.",
        "She sets the food down and doesn't ask: caring without pushing.",
        "Your daughter asking you to 'speak normal' is asking you to hide again.",
        "Letting down someone who believed in you is a hard thing to walk into.",
        "What you told me is that a real man doesn't get scared.",
    ],
)
def test_attentive_sentences_that_v14_first_read_as_slots_are_none(sentence):
    """The blind attentive replies v14's first rules voided (a verb after its subject, a
    participle opening a noun phrase, a mark between two words, an object pronoun before the
    verb of the subject before it, a verb before a participle): sentences, not slots."""
    from empa_env.reading.world import slotted, user_world

    said = (
        "I live with my mum and she doesn't ask. I lost a rated game and it says a lot. "
        "Speak normal, she said. I believed in him. A real man doesn't get scared, I told myself.",
    )
    assert not slotted(tokens_of(sentence), user_world(said))
