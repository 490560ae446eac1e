"""Which language a sentence is written in, as the user would notice it.

A sentence is in the case's language when most of its words are words of that language (English:
closed-class words, LemmInflect's lexicon, informal spellings, numbers) besides the names and words
the conversation already uses. Otherwise it is in another language, named by ``py3langid``'s
character model, or **unreadable** (gibberish, or a language the model does not place) when that
model calls it English anyway. Non-Latin script is another language whatever its words. A short
interjection ("Ok.", "Hm?") is the case's language.

Only English is read this way (the offline roles' language); a case in another registered
language reads every sentence as its own language.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache

from empa_env.languages import base_code
from empa_env.reading.tokens import Token

#: The code of a sentence nobody can read (gibberish, a string of non-words).
UNREADABLE = "unreadable"
#: Share of a sentence's words that must be English words for the sentence to be English.
ENGLISH_SHARE = 0.5
#: Fewer words than this are never judged foreign by their words alone ("Ok." is English; so is a
#: two-word sentence with a word the dictionary lacks, "Very shitty.").
MIN_WORDS = 3


def non_latin_share(text: str) -> float:
    """Share of the letters of ``text`` that are not Latin script (0 for no letters)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 0.0
    other = sum(1 for ch in letters if "LATIN" not in unicodedata.name(ch, ""))
    return other / len(letters)


@cache
def _identifier():  # noqa: ANN202 - py3langid's model object
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def identify(text: str) -> tuple[str, float]:
    """``(code, probability)`` of ``text``'s language by py3langid's character model."""
    code, p = _identifier().classify(text)
    return str(code), float(p)


#: Word order so unlike English (the word-class fluency model's mean gain per token) that the
#: English words make no sentence: word salad. At -1.4 "How long have you two been together?"
#: (-1.44: a pronoun, a number and an auxiliary in a row are rare) was word salad; at -1.6 the
#: blind word-salad probes are caught as often (11 of their 54 sentences by this score; the rest
#: by their words) and none of the 434 sentences of the blind attentive replies is.
SALAD_FLUENCY = -1.6
#: ... or this many content words in a row with no function word between them.
SALAD_RUN = 7


#: Words of a sentence this unrelated in meaning (mean pairwise closeness of its content words)
#: with this few function words between them are a string of words, not a sentence (people's
#: sentences: 5th percentile 0.06 and 0.33; strings of random words: 0.03 and 0.2).
SALAD_COHERENCE = 0.05
SALAD_FUNCTION_SHARE = 0.3
#: ... counted only with this many content words ("That's shock piled on top of grief" has four,
#: unrelated in the meaning table and with two function words: a sentence, not a salad).
SALAD_MIN_CONTENT = 5


def _salad(text: str, tokens: Sequence[Token]) -> bool:
    """English words that make no sentence ("Window purple gently the because sandwich"): word
    order unlike English, or unrelated words with hardly a function word among them."""
    if len(tokens) < 5:
        return False
    from empa_env.offline.guards import fluency_model
    from empa_env.reading.lexicon import meanings

    mean, run = fluency_model().score(text)
    if mean < SALAD_FLUENCY or run >= SALAD_RUN:
        return True
    content = [t.text for t in tokens if t.text.isalpha() and not t.closed]
    M, _ = meanings().matrix(content)
    n = len(M)
    if n < SALAD_MIN_CONTENT:
        return False
    coherence = (float((M @ M.T).sum()) - n) / (n * (n - 1))
    function_share = sum(1 for t in tokens if t.closed) / len(tokens)
    return coherence < SALAD_COHERENCE and function_share < SALAD_FUNCTION_SHARE


def sentence_language(
    text: str, tokens: Sequence[Token], case_language: str, known: Iterable[str] = ()
) -> str:
    """The language of one sentence: ``case_language``, another code, or :data:`UNREADABLE`.

    ``known``: words the conversation already uses (the user's own words, names), read as the
    case's language wherever they stand."""
    if base_code(case_language) != "en":
        return case_language
    if non_latin_share(text) > 0.5:
        code, _ = identify(text)
        return code if code != "en" else UNREADABLE
    seen = set(known)
    words = [t for t in tokens if t.text.isalpha()]
    judged = [t for t in words if t.text not in seen and not (t.capital and t is not words[0])]
    english = sum(1 for t in judged if t.english)
    if len(judged) < MIN_WORDS:
        # a short sentence is foreign only when none of its words is English ("Jesteś głupi.")
        if english or len(judged) < 2 and (not judged or judged[0].text.isascii()):
            return case_language
    elif english >= ENGLISH_SHARE * len(judged):
        return UNREADABLE if _salad(text, tokens) else case_language
    code, p = identify(text)
    if code == "en" or p < 0.5:
        return UNREADABLE
    return code


__all__ = ["ENGLISH_SHARE", "UNREADABLE", "identify", "non_latin_share", "sentence_language"]
