"""Plain text handling for the attuned planner: sentences, words, the listener's perspective
("my son" -> "your son", "I was" -> "you were") and whole noun phrases."""

from __future__ import annotations

import re
from functools import lru_cache

from empa_env.languages import ENGLISH_STOPWORDS

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_TOKEN = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*|[^\w\s]")
_CHUNK = re.compile(r"[,;:()\u2014\u2013\"]|\s-\s|[.!?](?:\s|$)")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def _wordset(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``."""
    return frozenset(text.split())


#: First person seen from the listener. ``I`` is handled with its verb (``I was`` -> ``you were``).
_FLIP = {
    "i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
    "we": "you", "us": "you", "our": "your", "ours": "yours", "ourselves": "yourselves",
    "i'm": "you're", "i've": "you've", "i'd": "you'd", "i'll": "you'll", "we're": "you're",
    "we've": "you've", "we'd": "you'd", "we'll": "you'll", "am": "are", "i’m": "you're",
}  # fmt: skip
#: Words that address the listener: a clause holding one cannot be turned around safely.
SECOND_PERSON = frozenset(
    ["you", "your", "yours", "yourself", "you're", "you've", "you'd", "you'll"]
)
_AFTER_I = {"was": "were", "wasn't": "weren't", "am": "are"}

#: Words a noun phrase never ends on (verbs, adverbs and other words that follow a noun).
NOT_NOUN = ENGLISH_STOPWORDS | _wordset(
    "is are was were be been being has had have do does did doing don't doesn't didn't can't "
    "won't isn't wasn't weren't keep keeps kept stay stays stayed go goes went gone come comes "
    "came give gives gave take takes took sit sits sat leave leaves left say says tell tells "
    "see sees saw get gets put puts let lets think thinks thought feel feels felt look looks "
    "need needs try tries call calls work works live lives ask asks bring brings brought run "
    "runs ran stand stands stood hold holds held mean means buy bought drive drove pass passes "
    "lose lost find found sell sells sold start started stop stopped pick set sets hope hopes "
    "whole every each other another same own first last next very too so such much many more "
    "most less few little bit lot again still even also just only ever never always already yet "
    "here there today tonight tomorrow yesterday now then than that this these those one two "
    "three four five six seven eight nine ten anymore anyway either neither nor both all any "
    "some most nobody somebody someone everyone anyone nothing something everything anything "
    "because though although while if when where how why what which who whom whose not no yes "
    "half behind under above across along around against among beside between beyond near "
    "through toward towards upon within without inside outside onto past per via until till "
    "except despite unlike since cost heard won please must might may shall should would could "
    "will ought suppose supposed eleven twelve fifteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million"
)

_DETERMINERS = {
    "my": "your", "our": "your", "the": "the", "his": "his", "her": "her", "their": "their",
    "this": "this", "a": "the", "an": "the",
}  # fmt: skip
#: Words that may stand inside a noun phrase but not end it (``my first truck``).
_MODIFIERS = _wordset(
    "good bad big small long short great real hard nice young single little first last own "
    "whole old new only other best next"
)
#: Nouns that end like adverbs.
_LY_NOUNS = _wordset(
    "family belly bully lily rally jelly ally assembly supply reply july italy folly holly "
    "anomaly monopoly homily melancholy"
)
#: Nouns too general to be a topic (``the word``, ``the part``).
_GENERIC = _wordset(
    "word words thing things part way point answer question idea truth moment size one case end "
    "side kind sort stuff fact facts"
)
#: ``a little``, ``a bit``, ``a lot`` and friends are amounts, not things.
_AMOUNTS = _wordset(
    "day week month year night hour minute time bit lot few while couple kind sort way"
)


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (the end marks kept, leading dots dropped)."""
    text = re.sub(r"\s+", " ", text.replace("…", "...")).strip()
    merged: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if merged and _ABBREVIATION.search(merged[-1]):
            merged[-1] += " " + piece  # "Mr. Khoo" is one sentence
        else:
            merged.append(piece)
    pieces = (p.lstrip(" .").strip() for p in merged)
    return [p for p in pieces if any(ch.isalnum() for ch in p)]


_ABBREVIATION = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Prof|Sr|Jr|Mt)\.$")


def words(text: str) -> list[str]:
    """The words of ``text`` as written (case kept; curly apostrophes made straight)."""
    return [w.replace("’", "'") for w in _WORD.findall(text)]


def lower_words(text: str) -> list[str]:
    return list(_lower_words(text))


@lru_cache(maxsize=8192)
def _lower_words(text: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in words(text))


def content_words(text: str) -> set[str]:
    """The lower-cased words of ``text`` that carry content."""
    return {w for w in lower_words(text) if w not in NOT_NOUN and len(w) > 2}


def has_han(text: str) -> bool:
    """Whether ``text`` holds Chinese characters."""
    return bool(_HAN.search(text))


def addresses_listener(text: str) -> bool:
    return any(w in SECOND_PERSON for w in lower_words(text))


def to_listener(text: str) -> str:
    """``text`` (said by the user about themselves) as the listener says it back: first person
    becomes second person with its verb agreeing (``I was`` -> ``you were``). The caller keeps
    text that addresses the listener (``you``) out: that cannot be turned around safely."""
    out: list[str] = []
    previous = ""
    for tok in _TOKEN.findall(text.replace("’", "'")):
        low = tok.lower()
        if previous in ("i", "we") and low in _AFTER_I:
            new = _AFTER_I[low]
        elif low in _FLIP and not (low == "am" and previous not in ("i",)):
            new = _FLIP[low]
        else:
            new = tok
        at_start = not out or out[-1] in (".", "!", "?")
        if new is not tok and at_start:
            new = new[:1].upper() + new[1:]
        out.append(new)
        previous = low
    return _join(out)


def _join(tokens: list[str]) -> str:
    text = ""
    for tok in tokens:
        if text and (tok[:1].isalnum() or tok in '("') and not text.endswith(("(", '"')):
            text += " "
        text += tok
    return text


def sentence_case(text: str) -> str:
    """``text`` with its first letter upper-cased."""
    return text[:1].upper() + text[1:]


def mid_sentence(text: str) -> str:
    """``text`` as it reads inside a sentence: a capitalised first word is lowered unless it is a
    name (a word that is not a common word) or ``I``."""
    first = words(text)[:1]
    if not first:
        return text
    low = first[0].lower()
    common = low in NOT_NOUN or low in _FLIP or low in SECOND_PERSON or low in _LOWER_STARTS
    common = common or "'" in low or low.endswith(("ed", "ing", "ly")) or low in LOWER_WORDS
    second = [w.lower() for w in words(text)[1:2]]
    opener = bool(second) and second[0] in _SUBJECTS  # "Halfway I sat down": not a name
    return text[:1].lower() + text[1:] if (common or opener) and first[0] != "I" else text


#: Further words that are never names (filled in by the reading: feeling words).
LOWER_WORDS: set[str] = set()
_SUBJECTS = frozenset(["i", "you", "we", "he", "she", "they", "my", "your", "our", "his", "their"])


#: Sentence openers that are ordinary words, lowered inside a sentence.
_LOWER_STARTS = _wordset(
    "at in on after before since during once later last every since sometimes often usually "
    "nobody everybody somebody people mum mom dad father mother"
)


def noun_phrases(text: str) -> list[str]:
    """Whole noun phrases of ``text`` seen from the listener, in order: a determiner or
    possessive and up to three words, with an ``of`` phrase kept (``my can of coffee`` -> ``your
    can of coffee``); ``a``/``an`` become ``the`` (the listener refers back to it). Phrases that
    address the listener (``your ...``) and amounts (``a little``) are left out."""
    found: list[str] = []
    for chunk in _CHUNK.split(text):
        found.extend(p for p in _chunk_phrases(chunk) if p not in found)
    return found


def _chunk_phrases(chunk: str) -> list[str]:
    toks = words(chunk)
    low = [t.lower() for t in toks]
    found: list[str] = []
    i = 0
    while i < len(toks):
        det = low[i]
        simile = i > 0 and low[i - 1] in ("as", "like")  # "numb as a post"
        if det not in _DETERMINERS or i + 1 >= len(toks) or low[i + 1] in _AMOUNTS or simile:
            i += 1
            continue
        body = _phrase_body(toks, low, i + 1)
        after = low[i + 1 + len(body)] if i + 1 + len(body) < len(low) else None
        subject = i == 0 or low[i - 1] in ("and", "but", "so", "then")
        verb_like = bool(body) and body[-1].lower().endswith("s") and not body[-1].endswith("ss")
        if len(body) > 1 and (after is None and subject or after in _OBJECT_STARTS and verb_like):
            body = body[:-1]  # "her kitchen shines", "the engine cost two million": a verb
        if body and (body[-1].lower() in _MODIFIERS or body[-1].lower() in _GENERIC):
            body = []
        if body:
            end = i + 1 + len(body)
            tail = _of_tail(toks, low, end)
            phrase = " ".join([_DETERMINERS[det], *body, *tail])
            found.append(phrase)
            i = end + len(tail)
        else:
            i += 1
    return found


#: Words that start an object: the word before them in a phrase is a verb.
_OBJECT_STARTS = _wordset(
    "the a an my his her their our its me him them us it two three four five six seven eight "
    "nine ten twenty thirty forty fifty hundred"
)


def _phrase_body(toks: list[str], low: list[str], start: int) -> list[str]:
    body: list[str] = []
    for j in range(start, min(start + 3, len(toks))):
        w = low[j]
        if w in _MODIFIERS and j + 1 < len(toks) and low[j + 1] not in NOT_NOUN:
            body.append(toks[j])
            continue
        if "'" in w and w.split("'")[0] in NOT_NOUN | _FLIP.keys() | {"he", "she", "they"}:
            break
        if j > start and w.endswith("ed"):
            break  # "my mother fried char": a verb after the noun
        if w in NOT_NOUN or w in _DETERMINERS or w in SECOND_PERSON or w in _FLIP or w.isdigit():
            break
        body.append(toks[j])
    # A phrase ends on a noun: drop trailing adverbs, participles and names' possessive marks.
    while len(body) > 1 and (_adverb(body[-1]) or body[-1].lower().endswith(("ed", "'s"))):
        body.pop()
    if not body or len(body[-1]) < 3 or _adverb(body[-1]) or body[-1].lower() in _MODIFIERS:
        return []
    if body[-1].lower().endswith("ed") and len(body) == 1:
        return []
    return body


def _adverb(word: str) -> bool:
    low = word.lower()
    return low.endswith("ly") and low not in _LY_NOUNS


def _of_tail(toks: list[str], low: list[str], end: int) -> list[str]:
    if end + 1 < len(toks) and low[end] == "of":
        j = end + 1
        det: list[str] = []
        if low[j] in _DETERMINERS:
            det = [_DETERMINERS[low[j]]]
            j += 1
        body = _phrase_body(toks, low, j)[:2]
        if body:
            return ["of", *det, *body]
    return []


__all__ = [
    "NOT_NOUN", "SECOND_PERSON", "addresses_listener", "content_words", "has_han", "lower_words",
    "mid_sentence", "noun_phrases", "sentence_case", "sentences", "to_listener", "words",
]  # fmt: skip
