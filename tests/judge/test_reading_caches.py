"""The reading's shared machinery does each piece of work once, and its shortcuts give what the
long way gives: a cache key carries a function's defaults, the phrase matcher agrees with a
word-by-word search, a language is made once per factory, and the reading form of prose with
curly quotes is the full fold's."""

from __future__ import annotations

import random
import re

import pytest

from empa_env import text as text_module
from empa_env.bounded_cache import lru_bytes
from empa_env.languages import Language, language, languages
from empa_env.reading.tokens import has_any_phrase, has_phrase, joined_words, tokens_of
from empa_env.registry import RegistryError


def test_a_call_that_leaves_out_a_default_shares_the_entry_of_one_that_gives_it():
    calls: list[tuple[str, str]] = []

    @lru_bytes(1 << 20)
    def words(text: str, code: str = "en") -> tuple[str, ...]:
        calls.append((text, code))
        return tuple(text.split())

    assert words("a b") == words("a b", "en") == ("a", "b")
    assert calls == [("a b", "en")]
    words("a b", "fr")
    assert calls[-1] == ("a b", "fr") and len(calls) == 2
    with pytest.raises(TypeError):
        words()  # a missing argument without a default is still the function's error


def test_tokens_of_a_text_are_made_once_whether_or_not_the_language_is_named():
    text = "A sentence no other test writes, with a cat and a kettle in it."
    first = tokens_of(text)
    assert tokens_of(text, "en") is first


PHRASES = (("take", "care"), ("take", "care", "of"), ("see", "you"), ("it's", "fine"), ("a",))


def _word_by_word(words: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1))


def test_the_phrase_matcher_finds_whole_words_only_as_a_word_by_word_search_does():
    rng = random.Random(7)
    vocabulary = ["take", "care", "of", "see", "you", "it's", "fine", "a", "an", "caress", "it"]
    for _ in range(2000):
        words = [rng.choice(vocabulary) for _ in range(rng.randint(0, 7))]
        expected = any(_word_by_word(words, p) for p in PHRASES)
        assert has_any_phrase(words, PHRASES) is expected, words
        assert has_any_phrase(joined_words(words), PHRASES) is expected, words
        for p in PHRASES:
            assert has_phrase(words, p) is _word_by_word(words, p), (words, p)
    assert not has_any_phrase(["caretake", "careful"], PHRASES)
    assert has_any_phrase(["a+b", "x"], (("a+b",),))  # a phrase is text, not a pattern
    assert not has_any_phrase(["aab"], (("a+b",),))


def test_a_language_is_made_once_per_factory_and_again_when_the_code_is_registered_anew():
    assert language("en") is language("en")

    made: list[int] = []

    def toy() -> Language:
        made.append(1)
        return Language(code="xq", name="Test", word_pattern=re.compile(r"\w+"))

    languages.register("xq", toy)
    try:
        assert language("xq") is language("xq") and len(made) == 1
        languages.register("xq", lambda: toy(), replace=True)
        language("xq")
        assert len(made) == 2  # a new registration is a new language
    finally:
        languages.unregister("xq")
    with pytest.raises(RegistryError, match="unknown language 'xq'"):
        language("xq")


@pytest.mark.parametrize(
    "text",
    [
        "I\u2019m fine, it\u2019s just \u201cstuff\u201d, you know?",
        "She said \u2018no\u2019 and left \u2014 that\u2019s all.",
        "Mum\u2019s ring! It was in the box\u2026",
        "l\u20190ser",  # a quote inside leetspeak: the full fold decides
        "\u201cp a t h e t i c\u201d",
        "soooo tired\u2019",
        "caf\u00e9 \u2019n\u2019 stuff",
    ],
)
def test_prose_with_curly_quotes_reads_as_the_full_fold_reads_it(text):
    fast = text_module.reading_form(text)
    full = text_module._fold(text)
    assert fast.text == full.text
    for start in range(len(fast.text)):
        for end in range(start + 1, len(fast.text) + 1):
            assert fast.quote(start, end) == full.quote(start, end)


def test_a_conversations_folds_weigh_at_least_what_its_longest_fold_holds():
    """A fold's weight counts what it adds to its prefix's (its own containers, the newest
    message, the items that message may add), not every message again: the folds of one
    conversation together still weigh at least what the longest one holds, keys included, so the
    cache's byte budget stays an upper bound however many prefixes it evicts."""
    from empa_env.bounded_cache import approx_size
    from empa_env.cases.suites import load_suite
    from empa_env.reading import world

    case = load_suite("empa30-v1").cases[3]
    texts = (case.experience.current_situation, case.scenario_trigger, *case.voice.openings,
             *case.voice.details, *(f.answer for f in case.facts))  # fmt: skip
    world._fold.cache_clear()
    longest = world._fold(texts, "en")
    info = world._fold.cache_info()
    assert info["entries"] == len(texts) + 1  # every prefix kept, the empty one too
    assert info["bytes"] >= approx_size(longest) + approx_size((texts, "en"))
    # and not each message again at every length (the old weight: 24 bytes a character, summed)
    assert info["bytes"] < sum(24 * sum(map(len, texts[:k])) for k in range(len(texts) + 1))
