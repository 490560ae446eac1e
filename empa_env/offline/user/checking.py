"""Checking a summary (or a question's premise) against what the user knows, part by part.

A reflection can be wrong in several ways while every word of it names something true; the user
hears each and corrects it with the true fact:

* **a relation**: two true people, the wrong tie between them ("So Rania is your daughter" when
  Rania is the wife): :func:`wrong_relation` finds ``NAME ... your RELATION`` (and "your RELATION
  NAME") and compares with the person facts;
* **an attribution**: a true deed given to the wrong person ("So Karim shouted at you about the
  soup" when the user shouted at Rania): :func:`wrong_person` finds the fact the sentence
  retells (two or more shared content words) and checks that the person the sentence names is in
  it;
* **a duration or count**: "five years" where the user's material says "five weeks":
  :func:`wrong_duration`;
* **a feeling**: one of another valence, or of a family the user never voiced ("You must be
  relieved"): :func:`wrong_feeling`, against the feelings named in the user's own material.

Words are read through the project's text layer (the reply's reading form, cut by
:mod:`empa_env.text`) and compared as stems (:func:`empa_env.cases.facts.stems`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from empa_env.cases.facts import GENERIC_WORDS, RELATIONS, stems, wordset
from empa_env.cases.schema import Fact
from empa_env.languages import ENGLISH_STOPWORDS
from empa_env.text import read, sentence_texts

#: Relation words that name the same tie (a summary saying "mum" for "mother" is right).
SAME_TIE: tuple[frozenset[str], ...] = tuple(
    wordset(group)
    for group in (
        "mother mom mum mama",
        "father dad papa",
        "grandmother grandma granny",
        "grandfather grandpa",
        "wife partner spouse",
        "husband partner spouse",
        "boyfriend partner",
        "girlfriend partner",
        "friend friends",
        "boss manager supervisor director",
        "colleague coworker",
        "neighbour neighbor",
        "child kid kids children",
        "parent parents",
        "sibling siblings",
        "flatmate roommate",
    )
)
#: Feeling words by family; ``positive`` is the one valence apart.
FEELINGS: dict[str, frozenset[str]] = {
    "positive": wordset(
        """happy glad relieved excited proud grateful thrilled content delighted pleased calm
        peaceful hopeful cheerful joyful thankful satisfied overjoyed elated ecstatic"""
    ),
    "fear": wordset(
        """afraid scared frightened terrified anxious worried nervous panicked panic fear fearful
        dread terror uneasy insecure"""
    ),
    "anger": wordset(
        """angry mad furious irritated irritable annoyed frustrated resentful bitter rage outraged
        livid cross"""
    ),
    "sadness": wordset(
        """sad unhappy depressed grief grieving heartbroken miserable hopeless lonely isolated
        hurt devastated crushed gloomy sorrow"""
    ),
    "shame": wordset("""ashamed embarrassed guilty humiliated shame guilt"""),
    "boredom": wordset("""bored restless"""),
    "tired": wordset("""exhausted tired drained worn weary burnt"""),
    "confusion": wordset("""confused lost stuck torn"""),
    "jealousy": wordset("""jealous envious"""),
}
_FEELING_FAMILY: dict[str, str] = {
    s: family for family, words in FEELINGS.items() for s in stems(words)
}
_NUMBER_WORDS = (
    "a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    "fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
    "ninety|hundred|several|a few|few|couple of|a couple of|\\d+"
)
_DURATION = re.compile(
    rf"\b((?:{_NUMBER_WORDS})(?:[ -](?:and a half|or so|more))?)\s+"
    r"(years?|months?|weeks?|days?|hours?|decades?|nights?|times)\b",
    re.I,
)
_UNIT_FAMILY = {"year": "year", "decade": "year", "month": "month", "week": "week",
                "day": "day", "night": "day", "hour": "hour", "time": "time"}  # fmt: skip
_PEOPLE_WORDS = RELATIONS | wordset("i me my myself mine")
#: Words of a reflection's frame ("it sounds like you're ..."), not of what it retells.
_FRAME = wordset("sounds sound seems seem hearing hear understand saying mean must mostly")


@dataclass(frozen=True)
class Mistake:
    """What a summary gets wrong: the word the user objects to, and how to put it right."""

    word: str
    #: what it is: "relation", "person", "duration", "amount" or "feeling"
    kind: str = "person"
    #: the true fact to say (None: the truth is kept back, or not a fact)
    fact: Fact | None = None
    #: the true value in the user's words when no fact carries it ("five weeks", "scared")
    truth: str = ""


def _tie(relation: str) -> frozenset[str]:
    for group in SAME_TIE:
        if relation in group:
            return group
    return frozenset([relation])


def _plain(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def people_of(facts: Iterable[Fact]) -> dict[str, str]:
    """``{name: relation}`` from person facts (``about`` = name, relation, ...)."""
    out: dict[str, str] = {}
    for f in facts:
        if f.kind != "person":
            continue
        names = [w for w in f.about if w not in RELATIONS]
        relations = [w for w in f.about if w in RELATIONS]
        if names and relations:
            out.setdefault(names[0], relations[0])
    return out


def _pairs(low: str) -> list[tuple[str, str]]:
    """(name, relation) the sentence ties together: "rania is your daughter", "your daughter
    rania", "rania, your daughter"."""
    rel = "|".join(sorted(RELATIONS, key=len, reverse=True))
    found: list[tuple[str, str]] = []
    for m in re.finditer(
        rf"\b([a-z][a-z'-]+)(?:'s)?\s*(?:,|\(|\bis\b|\bwas\b|\bbeing\b|\bas\b)?\s*(?:is |was )?"
        rf"(?:your|ur)\s+(?:\w+\s+)?({rel})\b",
        low,
    ):
        found.append((m.group(1), m.group(2)))
    for m in re.finditer(rf"\b(?:your|ur)\s+(?:\w+\s+)?({rel}),?\s+([a-z][a-z'-]+)", low):
        found.append((m.group(2), m.group(1)))
    return found


def wrong_relation(
    sentence: str, names: Sequence[str], people: dict[str, str], facts: Sequence[Fact]
) -> Mistake | None:
    """A name the user knows tied to the wrong relation (see the module docstring)."""
    low = _plain(read(sentence)).lower()
    for name, relation in _pairs(low):
        name = name.removesuffix("'s")
        if name not in people or name not in names:
            continue
        if relation in _tie(people[name]):
            continue
        fact = next(
            (
                f
                for f in facts
                if f.kind == "person"
                and name in {_plain(w) for w in f.about}
                and people[name] in f.about
            ),
            None,
        )
        return Mistake(relation, "relation", fact, f"{name.capitalize()} is my {people[name]}")
    return None


def _persons(words: Iterable[str], names: Iterable[str]) -> set[str]:
    return {w for w in words if w in RELATIONS} | set(names)


def wrong_person(
    sentence_words: Sequence[str],
    names: Sequence[str],
    people: dict[str, str],
    facts: Sequence[Fact],
    hidden: Sequence[tuple[str, ...]] = (),
) -> Mistake | None:
    """A deed the story holds, given to someone it does not name there (see the docstring)."""
    named = _persons(sentence_words, names) - {"i", "me", "my"}
    if not named:
        return None
    said = stems(_content(sentence_words)) - stems(_PEOPLE_WORDS) - stems(named)
    said -= stems(people)
    best: tuple[int, Fact | None, tuple[str, ...]] = (0, None, ())
    for f in facts:
        f_words = stems(_content(_words(f.answer))) | stems(f.about)
        overlap = len(said & f_words)
        if overlap > best[0]:
            best = (overlap, f, ())
    for about in hidden:
        overlap = len(said & stems(about))
        if overlap > best[0]:
            best = (overlap, None, about)
    for f in facts:
        if _reversed(sentence_words, named, f.answer):
            return Mistake(sorted(named)[0], "person", f)
    overlap, fact, about = best
    if overlap < 2:
        return None
    in_story = {
        _plain(w) for w in (_words(fact.answer) + list(fact.about) if fact is not None else about)
    }
    # the people of the retold fact, with a name standing for its relation and back
    present = {w for w in in_story if w in RELATIONS or w in people}
    present |= {people[w] for w in present if w in people}
    present |= {n for n, r in people.items() if r in present}
    for who in named:
        if (
            who in present
            or _tie(people.get(who, who)) & present
            or who not in (set(people) | RELATIONS)
        ):
            continue
        return Mistake(who, "person", fact)
    return None


def _reversed(sentence_words: Sequence[str], named: set[str], answer: str) -> bool:
    """The sentence turns a deed round: "Kyle trained you" where the user said "I trained
    Kyle" (who did it to whom swapped)."""
    told = _words(answer)
    told_plain = [_plain(w) for w in told]
    for i, w in enumerate(sentence_words[:-1]):
        if _plain(w) not in named:
            continue
        verb = next(iter(stems([sentence_words[i + 1]])))
        rest = sentence_words[i + 2 : i + 5]
        if "you" not in rest and "your" not in rest:
            continue
        for j in range(len(told) - 1):
            if (
                told[j] == "i"
                and next(iter(stems([told[j + 1]]))) == verb
                and _plain(w) in told_plain[j + 2 : j + 5]
            ):
                return True
    return False


def _content(words: Iterable[str]) -> list[str]:
    """The words that carry content: no stopwords, general words or a reflection's frame."""
    return [
        w
        for w in words
        if len(w) >= 3 and w not in ENGLISH_STOPWORDS and w not in GENERIC_WORDS and w not in _FRAME
    ]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z][a-z'-]*", read(text).lower())


_AMOUNT = re.compile(rf"\b((?:{_NUMBER_WORDS})(?:[.,]\d+)?)\s+([a-z]{{3,}})\b", re.I)


def amounts(text: str) -> list[tuple[str, str, str]]:
    """``(phrase, number, unit stem)`` of each number with the word it counts ("540 euro")."""
    out = []
    for m in _AMOUNT.finditer(read(text).lower()):
        unit = m.group(2)
        if unit in ENGLISH_STOPWORDS or m.group(1) in ("a", "an"):
            continue
        out.append((m.group(0), m.group(1), next(iter(stems([unit])))))
    return out


def wrong_amount(sentence: str, material: Sequence[str], facts: Sequence[Fact]) -> Mistake | None:
    """A number the story gives otherwise for the same thing: "450 euro" for "540 euro"."""
    claimed = amounts(sentence)
    if not claimed:
        return None
    told: list[tuple[str, str, str, Fact | None]] = [
        (*a, f) for f in facts for a in amounts(f.answer)
    ] + [(*a, None) for text in material for a in amounts(text)]
    phrases = {t[0] for t in told}
    for phrase, number, unit in claimed:
        if phrase in phrases:
            continue
        other = next((t for t in told if t[2] == unit and t[1] != number), None)
        if other is not None:
            return Mistake(phrase, "amount", other[3], other[0])
    return None


def durations(text: str) -> list[tuple[str, str, str]]:
    """``(phrase, number, unit family)`` of each duration or count in ``text``."""
    out = []
    for m in _DURATION.finditer(read(text).lower()):
        unit = m.group(2).rstrip("s") if m.group(2) != "times" else "time"
        out.append((m.group(0), m.group(1), _UNIT_FAMILY.get(unit, unit)))
    return out


def wrong_duration(sentence: str, material: Sequence[str], facts: Sequence[Fact]) -> Mistake | None:
    """A duration the user's material does not hold where it holds another of the same topic."""
    claimed = durations(sentence)
    if not claimed:
        return None
    said = stems(_content(_words(sentence)))
    truths: list[tuple[int, str, Fact | None, str]] = []
    for f in facts:
        for phrase, _n, unit in durations(f.answer):
            truths.append((len(said & stems(_content(_words(f.answer)))) + 1, phrase, f, unit))
    for text in material:
        for part in sentence_texts(text):
            for phrase, _n, unit in durations(part):
                truths.append((len(said & stems(_content(_words(part)))), phrase, None, unit))
    known = {t[1] for t in truths}
    for phrase, _number, unit in claimed:
        if phrase in known:
            continue
        same_unit = [t for t in truths if t[3] == unit] or truths
        topical = [t for t in same_unit if t[0] >= 1]
        if not topical:
            continue
        best = max(topical, key=lambda t: t[0])
        return Mistake(phrase, "duration", best[2], best[1])
    return None


def topical_duration(question_words: Sequence[str], material: Sequence[str]) -> str:
    """The duration the user's own prose gives for what a "how long" question names ("five
    weeks"), or "" when none shares a content word with it."""
    asked = stems(_content(question_words))
    best = (0, "")
    for text in material:
        for part in sentence_texts(text):
            found = durations(part)
            if found:
                overlap = len(asked & stems(_content(_words(part))))
                if overlap > best[0]:
                    best = (overlap, found[0][0])
    return best[1]


def feeling_families(vocabulary: frozenset[str]) -> frozenset[str]:
    """The feeling families the user's own material names (its vocabulary's stems)."""
    return frozenset(f for s, f in _FEELING_FAMILY.items() if s in vocabulary)


def wrong_feeling(sentence_words: Sequence[str], vocabulary: frozenset[str]) -> Mistake | None:
    """A feeling of the other valence, or of a family the user never voiced."""
    voiced = feeling_families(vocabulary)
    if not voiced:
        return None
    low = " ".join(sentence_words)
    for word in sentence_words:
        stem = next(iter(stems([word])))
        family = _FEELING_FAMILY.get(stem)
        if family is None or (family in voiced and (family != "positive" or stem in vocabulary)):
            continue  # a good feeling only where the user named that very one
        if re.search(rf"\b(?:not|n't|never|no longer)\s+(?:\w+\s+)?{re.escape(word)}\b", low):
            continue  # "you're not happy" agrees with an unhappy user
        truth = next(
            (
                w
                for fam in ("fear", "sadness", "anger", "shame", "tired", "confusion", "boredom")
                if fam in voiced
                for w in sorted(FEELINGS[fam])
                if next(iter(stems([w]))) in vocabulary
            ),
            "",
        )
        return Mistake(word, "feeling", None, truth)
    return None


__all__ = [
    "FEELINGS",
    "Mistake",
    "durations",
    "feeling_families",
    "people_of",
    "topical_duration",
    "wrong_amount",
    "wrong_duration",
    "wrong_feeling",
    "wrong_person",
    "wrong_relation",
]
