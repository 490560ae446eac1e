"""Words of a text, cut once: tokens in reading form with their verbatim spans.

Every part of the simulation that reads a reply or a user message by its words goes through
:func:`tokens_of`: the text's reading form (:func:`empa_env.text.reading_form`: look-alike
letters, invisible characters, spaced and leetspeak letters folded) cut into lower-case words by
the language's one word pattern (:class:`empa_env.languages.Language`), each word with the span of
the original text it came from, its lemma and whether it is a closed-class word. A word split by
a space to hide it ("idi ot") is read joined when neither piece is a word and the two together
are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

from empa_env.bounded_cache import lru_bytes, text_weight
from empa_env.languages import language
from empa_env.reading.lexicon import is_english_word, lemma, lexicon
from empa_env.text import reading_form, sentence_spans

_T = TypeVar("_T")


class computed_once(Generic[_T]):  # noqa: N801 (named like the decorator it is)
    """A property computed on first access and then kept in the instance (what
    ``functools.cached_property`` does, without the lock Python 3.11 takes on every first access:
    a word's properties are read some hundred thousand times per benchmark run)."""

    def __init__(self, fn: Callable[[Any], _T]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> computed_once[_T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...
    def __get__(self, obj: object, owner: type | None = None) -> _T | computed_once[_T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


@dataclass(frozen=True)
class Token:
    """One word: ``text`` lower case (reading form), ``start``/``end`` its span in the original
    text, ``lemma`` its dictionary form, ``capital`` whether the original starts upper case."""

    text: str
    start: int
    end: int
    lemma: str
    capital: bool

    @computed_once
    def closed(self) -> bool:
        """A closed-class word (pronoun, determiner, preposition, auxiliary, ...)."""
        return lexicon().is_closed(self.text)

    @computed_once
    def english(self) -> bool:
        return is_english_word(self.text)


def _join_split(tokens: list[Token], original: str) -> list[Token]:
    """Join two adjacent pieces that are no words alone but one word together ("idi ot")."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if i + 1 < len(tokens):
            u = tokens[i + 1]
            joined = t.text + u.text
            if (
                original[t.end : u.start].strip() == ""
                and len(joined) >= 4
                and t.text.isalpha()
                and u.text.isalpha()
                and not (t.capital or u.capital)
                and is_english_word(joined)
                and not (t.english and u.english)
            ):
                out.append(Token(joined, t.start, u.end, lemma(joined), False))
                i += 2
                continue
        out.append(t)
        i += 1
    return out


@lru_bytes(16 << 20, text_weight(per_char=40))
def tokens_of(text: str, code: str = "en") -> tuple[Token, ...]:
    """The words of ``text`` in order (see the module docstring)."""
    reading = reading_form(text)
    pattern = language(code).word_pattern
    low = reading.text.lower()
    found: list[Token] = []
    for m in pattern.finditer(low):
        a, b = reading.span(m.start(), m.end())
        word = m.group(0)
        found.append(Token(word, a, b, lemma(word), text[a : a + 1].isupper()))
    return tuple(_join_split(found, text))


@dataclass(frozen=True)
class Cut:
    """A sentence of a text: its verbatim ``text``, its span and its tokens."""

    text: str
    start: int
    end: int
    tokens: tuple[Token, ...]


@lru_bytes(16 << 20, text_weight(per_char=48))
def sentences_of(text: str, code: str = "en") -> tuple[Cut, ...]:
    """The sentences of ``text`` (the one splitter, :func:`empa_env.text.sentence_spans`), each
    with its words."""
    words = tokens_of(text, code)
    cuts = []
    for a, b in sentence_spans(text) or ([(0, len(text))] if text.strip() else []):
        cuts.append(Cut(text[a:b], a, b, tuple(t for t in words if a <= t.start < b)))
    return tuple(cuts)


__all__ = [
    "Cut", "Token", "computed_once", "has_any_phrase", "has_phrase", "joined_words",
    "sentences_of", "tokens_of", "word_set",
]  # fmt: skip


def word_set(text: str) -> frozenset[str]:
    """The words of a whitespace-separated list, as a set (for the word lists in code)."""
    return frozenset(text.split())


def joined_words(words: Sequence[str]) -> str:
    """Words joined by spaces, with a space at each end: the text :func:`has_phrase` and
    :func:`has_any_phrase` search (build it once for a sentence tested against many phrases)."""
    return f" {' '.join(words)} "


def has_phrase(words: Sequence[str] | str, phrase: tuple[str, ...]) -> bool:
    """Whether the words (a list, or :func:`joined_words` of them) hold ``phrase`` as whole
    consecutive words."""
    text = words if isinstance(words, str) else joined_words(words)
    return f" {' '.join(phrase)} " in text


#: One compiled alternation per phrase list (keyed by the list's id, the list kept with it).
_PHRASE_PATTERNS: dict[int, tuple[tuple[tuple[str, ...], ...], re.Pattern[str]]] = {}


def has_any_phrase(words: Sequence[str] | str, phrases: tuple[tuple[str, ...], ...]) -> bool:
    """Whether any of ``phrases`` stands in the words (see :func:`has_phrase`), by one compiled
    alternation per phrase list (the phrase lists in code are module constants)."""
    text = words if isinstance(words, str) else joined_words(words)
    found = _PHRASE_PATTERNS.get(id(phrases))
    if found is None or found[0] is not phrases:
        alternatives = sorted({" ".join(p) for p in phrases}, key=len, reverse=True)
        pattern = re.compile(" (?:" + "|".join(re.escape(a) for a in alternatives) + ") ")
        found = _PHRASE_PATTERNS[id(phrases)] = (phrases, pattern)
    return found[1].search(text) is not None
