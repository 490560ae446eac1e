"""What the scripted baselines read in a conversation: the user's messages, the turn, common and
feeling words, and the first noun phrase of a message as the listener would say it back.

Shared by :mod:`baselines.policies.scripted` and :mod:`baselines.policies.asking` (neither imports
the other's internals)."""

from __future__ import annotations

import re

from empa_env.offline.guards import load_guard_data
from empa_env.policy import Messages

#: Words too common to name a topic (the scripted baselines skip them when they pick words).
COMMON_WORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "don't",
        "down",
        "even",
        "for",
        "from",
        "get",
        "got",
        "had",
        "has",
        "have",
        "he",
        "her",
        "here",
        "him",
        "his",
        "how",
        "i",
        "i'm",
        "if",
        "in",
        "into",
        "is",
        "it",
        "it's",
        "its",
        "just",
        "know",
        "like",
        "me",
        "more",
        "much",
        "my",
        "no",
        "not",
        "now",
        "of",
        "off",
        "on",
        "one",
        "only",
        "or",
        "our",
        "out",
        "over",
        "really",
        "said",
        "say",
        "she",
        "so",
        "some",
        "still",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "thing",
        "this",
        "those",
        "to",
        "too",
        "up",
        "us",
        "very",
        "was",
        "way",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "why",
        "will",
        "with",
        "would",
        "yeah",
        "yes",
        "you",
        "your",
        "okay",
        "well",
        "maybe",
        "something",
        "want",
        "make",
        "made",
        "going",
        "time",
        "right",
        "guess",
        "kind",
        "sure",
        "told",
        "tell",
        "never",
        "always",
        "nothing",
        "anything",
        "everyone",
        "someone",
        "people",
        "today",
        "since",
        "back",
        "first",
        "last",
        "every",
    ]
)
#: Feeling words the scripted baselines recognise, each with the deeper feeling it may hide.
FEELINGS = {
    "tired": "unseen", "exhausted": "unseen", "angry": "hurt", "furious": "betrayed",
    "frustrated": "unappreciated", "sad": "lonely", "lonely": "abandoned", "scared": "alone",
    "afraid": "alone", "anxious": "afraid", "worried": "afraid", "stressed": "overwhelmed",
    "guilty": "ashamed", "ashamed": "worthless", "hurt": "rejected", "lost": "afraid",
    "stuck": "trapped", "overwhelmed": "alone", "embarrassed": "ashamed", "numb": "grief",
    "upset": "hurt", "confused": "lost", "disappointed": "let down", "jealous": "insecure",
    "nervous": "afraid", "bitter": "betrayed", "empty": "lonely", "broken": "grief",
}  # fmt: skip


def user_texts(messages: Messages) -> list[str]:
    """The user's messages, in order."""
    return [m["content"] for m in messages if m["role"] == "user"]


def turn_count(messages: Messages) -> int:
    """How many replies the policy has given so far."""
    return sum(1 for m in messages if m["role"] == "assistant")


_DETERMINERS = {
    "the": "the", "my": "your", "our": "your", "this": "this", "that": "that", "his": "his",
    "her": "her", "their": "their", "a": "the", "an": "the", "your": "my",
}  # fmt: skip
_NP_RE = re.compile(
    r"\b(the|my|our|this|that|his|her|their|a|an)\s+([A-Za-z][A-Za-z'-]*)(?:\s+([A-Za-z][A-Za-z'-]*))?"
)
_FUNCTION_WORDS = load_guard_data().function_words
_NOT_NOUN = COMMON_WORDS | frozenset(
    [
        "because",
        "very",
        "too",
        "really",
        "quite",
        "just",
        "also",
        "even",
        "still",
        "then",
        "than",
        "been",
        "being",
        "so",
        "such",
        "much",
        "many",
        "more",
        "most",
        "less",
        "few",
        "little",
        "other",
        "same",
        "own",
        "same",
        "first",
        "last",
        "next",
        "whole",
        "only",
        "really",
        "alone",
        "again",
        "anymore",
        "here",
        "there",
        "today",
        "now",
        "yet",
        "third",
        "problem",
        "child",
        "way",
        "end",
        "point",
    ]
)


def noun_phrase(text: str) -> str | None:
    """The first determiner + content word(s) of ``text``, seen from the listener ("my bank" ->
    "your bank"); ``None`` if there is none."""
    for m in _NP_RE.finditer(text):
        det, w1, w2 = m.group(1).lower(), m.group(2), m.group(3)
        if not _nounish(w1) or (w2 and w2.lower() in ("of", "to")):
            continue
        words = [w1]
        if w2 and _nounish(w2) and not w2.lower().endswith("s"):
            words.append(w2)
        if words[-1].lower() in FEELINGS:
            continue
        return " ".join([_DETERMINERS[det], *words]) if det != "your" else None
    return None


def _nounish(word: str) -> bool:
    low = word.lower()
    return (
        len(low) >= 3
        and low not in _NOT_NOUN
        and low not in _FUNCTION_WORDS
        and not low.endswith(("ly", "ed", "'s"))
    )


__all__ = ["COMMON_WORDS", "FEELINGS", "noun_phrase", "turn_count", "user_texts"]
