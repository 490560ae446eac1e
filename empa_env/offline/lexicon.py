"""The offline Judger's lexicon: behavioural-anchor patterns loaded from ``judge_lexicon.yaml``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

WORD_RE = re.compile(r"[a-z][a-z']*")


@dataclass(frozen=True)
class Lexicon:
    """Compiled pattern families (one alternation per family) and word lists."""

    version: int
    families: dict[str, re.Pattern[str]]
    emotion_words: frozenset[str]
    stopwords: frozenset[str]

    def search(self, family: str, text: str) -> re.Match[str] | None:
        return self.families[family].search(text)

    def count(self, family: str, text: str) -> int:
        return sum(1 for _ in self.families[family].finditer(text))


@lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    raw = yaml.safe_load(
        resources.files("empa_env.offline").joinpath("judge_lexicon.yaml").read_text("utf-8")
    )
    families = {}
    for name, patterns in raw.items():
        if name in ("version", "emotion_words", "stopwords"):
            continue
        families[name] = re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)
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
