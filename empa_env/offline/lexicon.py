"""The offline Judger's lexicon: behavioural-anchor patterns loaded from ``judge_lexicon.yaml``.

Patterns are written in lower case and matched against lower-cased replies. Each family keeps its
patterns separately: a pattern that starts with a word boundary ``\\b`` is searched without it (so
that the regular-expression engine can scan for its literal prefix, several times faster than one
big alternation) and the boundary is checked on each candidate match instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

WORD_RE = re.compile(r"[a-z][a-z']*")


@dataclass(frozen=True)
class PatternFamily:
    """One behavioural anchor: its patterns, each with whether it must start at a word boundary."""

    name: str
    patterns: tuple[tuple[re.Pattern[str], bool], ...]

    def first(self, text: str) -> tuple[int, int] | None:
        """The leftmost match (ties: the earlier pattern), as ``(start, end)`` in ``text``."""
        best: tuple[int, int] | None = None
        for pattern, boundary in self.patterns:
            m = pattern.search(text)
            while m is not None and boundary and _inside_word(text, m.start()):
                m = pattern.search(text, m.start() + 1)
            if m is not None and (best is None or m.start() < best[0]):
                best = (m.start(), m.end())
        return best

    def count(self, text: str) -> int:
        """How many matches the family's patterns find in ``text``."""
        n = 0
        for pattern, boundary in self.patterns:
            for m in pattern.finditer(text):
                if not (boundary and _inside_word(text, m.start())):
                    n += 1
        return n


def _inside_word(text: str, start: int) -> bool:
    """Whether ``start`` continues a word, i.e. a ``\\b`` before it would fail."""
    if start == 0:
        return False
    c = text[start - 1]
    return c.isalnum() or c == "_"


@dataclass(frozen=True)
class Lexicon:
    """Compiled pattern families and word lists."""

    version: int
    families: dict[str, PatternFamily]
    emotion_words: frozenset[str]
    stopwords: frozenset[str]

    def search(self, family: str, text: str) -> str | None:
        """The first span of ``family`` in ``text`` (any case), or ``None``."""
        lower = text.lower()
        haystack = lower if len(lower) == len(text) else text
        found = self.families[family].first(haystack)
        return text[found[0] : found[1]] if found else None


def _compile(name: str, pattern: str) -> tuple[re.Pattern[str], bool]:
    if pattern != pattern.lower():
        raise ValueError(
            f"lexicon family {name!r}: patterns must be written in lower case: {pattern!r}"
        )
    if pattern.startswith("\\b"):
        return re.compile(pattern[2:]), True
    return re.compile(pattern), False


@lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    raw = yaml.safe_load(
        resources.files("empa_env.offline").joinpath("judge_lexicon.yaml").read_text("utf-8")
    )
    families = {
        name: PatternFamily(name, tuple(_compile(name, p) for p in patterns))
        for name, patterns in raw.items()
        if name not in ("version", "emotion_words", "stopwords")
    }
    return Lexicon(
        version=int(raw["version"]),
        families=families,
        emotion_words=frozenset(raw["emotion_words"].lower().split()),
        stopwords=frozenset(raw["stopwords"].lower().split()),
    )


def words(text: str) -> list[str]:
    """Lower-case word tokens (apostrophes kept)."""
    return WORD_RE.findall(text.lower())


def shingles(tokens: list[str], n: int = 3) -> frozenset[tuple[str, ...]]:
    """Word n-grams; short texts fall back to their single tokens."""
    if len(tokens) < n:
        return frozenset((t,) for t in tokens)
    return frozenset(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
