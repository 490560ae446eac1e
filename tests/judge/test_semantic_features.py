"""Surface features of the shipped heads: what each column reads."""

from __future__ import annotations

import numpy as np

from empa_env.offline.semantic.features import SURFACE_FEATURES, surface_features

USER = "My sister stopped calling after the wedding and I feel invisible."


def column(user: str, reply: str, name: str) -> float:
    return float(surface_features(user, reply)[SURFACE_FEATURES.index(name)])


def test_questions_and_questions_to_the_user():
    reply = "That sounds lonely. What happened at the wedding? Why would anyone do that?"
    assert column(USER, reply, "asks_a_question") == 1.0
    assert np.isclose(column(USER, reply, "question_share"), 2 / 3)
    assert column(USER, reply, "question_to_the_user") == 0.0
    assert column(USER, "How are you holding up?", "question_to_the_user") == 1.0
    assert column(USER, "That sounds lonely.", "asks_a_question") == 0.0


def test_first_person_share_reads_a_shared_experience():
    reply = "I went through the same with my brother. It hurts. I felt invisible for a year."
    assert np.isclose(column(USER, reply, "first_person_share"), 2 / 3)
    assert column(USER, "That hurts.", "first_person_share") == 0.0


def test_the_users_own_words_and_length():
    on = "Feeling invisible to your sister after the wedding sounds awful."
    off = "Bitcoin is up again and football season starts soon."
    assert column(USER, on, "mentions_user_words") == 1.0
    assert column(USER, on, "user_word_share") > column(USER, off, "user_word_share") == 0.0
    assert column(USER, on + " " + on, "log_words") > column(USER, on, "log_words")
    assert surface_features(USER, on).shape == (len(SURFACE_FEATURES),)
