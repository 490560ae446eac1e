"""What a reply gets wrong about the user (:func:`find_mistake`): a name, a relation, a number, a
duration, an age, a feeling or a thing put in the place of theirs, anywhere in the reply and
whatever the sentence's shape, with the true value in the user's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from empa_env.cases.schema import Fact
from empa_env.offline.user.facts import (
    ANSWER_BAR,
    DAYS_PER_UNIT,
    PARTNERED_WORDS,
    YOU_WORDS,
    best_facts,
    fact_index,
    is_year,
    known_word,
    name_of,
    says_how_often,
    says_how_often_or_soon,
)
from empa_env.offline.user.question import Question, Reading, content_tokens
from empa_env.reading.lexicon import lemma, lexicon, parts_of_speech, verb_lemma
from empa_env.reading.reply import ReplyReading, SentenceReading, opposed_feelings
from empa_env.reading.tokens import Token, tokens_of, word_set
from empa_env.reading.world import Amount, UserWorld, amounts_in, feeling_family


@dataclass(frozen=True)
class Mistake:
    """What a reply gets wrong: ``kind`` (person, relation, name, duration, amount, feeling,
    thing), the word it said, the truth in the user's words (may be empty) and the fact that
    shows it."""

    kind: str
    word: str
    truth: str = ""
    fact: Fact | None = None
    #: The sentence of the reply that says it.
    sentence: str = ""


def _in_days(value: float, unit: str | None) -> float:
    """A span in days ("two years" -> 730)."""
    return value * DAYS_PER_UNIT.get(unit or "", 1.0)


def _same_span(value: float, unit: str, other: float, other_unit: str | None) -> bool:
    """Two spans of time that are the same within a tenth ("a year" and "twelve months")."""
    a, b = _in_days(value, unit), _in_days(other, other_unit)
    return abs(a - b) <= 0.1 * max(a, b)


def _kind_of(sentence: str, amount: str) -> bool:
    """ "a week like this", "a day when nothing works": an amount that stands for a kind of
    time, not a span said of the user's story."""
    after = _after(sentence, amount).lower().split()[:1]
    return amount.lower().startswith(("a ", "an ")) and after in (["like"], ["when"], ["such"])


def _plural_of(word: str, names: Iterable[str]) -> bool:
    """Whether ``word`` is one of ``names`` with a plural "s" ("Thursdays" of "Thursday")."""
    return word.endswith("s") and word[:-1] in set(names)


def edit_close(a: str, b: str) -> bool:
    """Two names one or two letters apart ("Emir" for "Emre"), or three when both are five
    letters or more and start alike ("Joris" for "Joost")."""
    if a == b or abs(len(a) - len(b)) > 2 or min(len(a), len(b)) < 3 or a[0] != b[0]:
        return False
    allowed = 3 if min(len(a), len(b)) >= 5 and a[:2] == b[:2] else 2
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1] <= allowed


#: What after a number makes it a time of day ("five in the morning", "5 pm", "ten o'clock",
#: "nine to six").
_CLOCK_WORDS = (
    r"in the (?:morning|afternoon|evening)|at night|o'?clock|[ap]\.?m\b|"
    r"(?:to|till|until|-)\s*(?:1[0-2]|[1-9]|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve)\b(?!\s*(?:year|month|week|day|hour|minute|time|people|kid|child))"
)


def _time_of_day(sentence: str, amount: str) -> bool:
    """ "three in the morning", "at two", "5 pm": a time, not an amount."""
    low = sentence.lower()
    at = low.find(amount.lower())
    after = low[at + len(amount) : at + len(amount) + 18] if at >= 0 else ""
    before = low[max(0, at - 4) : at] if at >= 0 else ""
    return bool(re.match(rf"\s*(?:{_CLOCK_WORDS})", after)) or before.endswith("at ")


#: Words that make an amount a rough one ("well over a decade", "nearly six weeks").
_ROUGHLY = re.compile(
    r"(?:over|nearly|almost|about|around|roughly|some|more than|less than|under|close to|"
    r"upwards of|at least|getting on for)\s*$"
)


#: "last month": one of the unit, ago.
_LAST = {unit: f"last {unit}" for unit in ("year", "month", "week", "night")}


def _roughly(sentence: str, amount: str) -> bool:
    """Whether ``amount`` is said roughly: a hedge before it, or "and a half" after it."""
    low = sentence.lower()
    at = low.find(amount.lower())
    if at < 0:
        return False
    after = low[at + len(amount) : at + len(amount) + 12]
    return bool(_ROUGHLY.search(low[max(0, at - 16) : at])) or after.startswith(" and a half")


def _pair(sentence: str, a: Amount) -> bool:
    """ "you two", "the two of you", "both": people, not a count of the story."""
    low = sentence.lower()
    at = low.find(a.text.lower())
    before = low[max(0, at - 5) : at] if at >= 0 else ""
    after = low[at + len(a.text) : at + len(a.text) + 8] if at >= 0 else ""
    return (
        a.value == 2
        and a.unit is None
        and (before.endswith(("you ", "we ")) or after.startswith(" of "))
    )


def _same_count(a: Amount, x: Amount | tuple) -> bool:  # noqa: ANN001
    """Whether a count said is one the user gave: the same number, of the same thing when the
    reply says what it counts ("ten paintings" is not their "at ten")."""
    value, unit, noun = (x.value, x.unit, x.noun) if isinstance(x, Amount) else (x[0], x[1], x[3])
    if unit is not None or a.value != value:
        return False
    # a number of three figures or more ("between 2140 and 2160") or an age ("a seventeen-year-old")
    # is theirs whatever the reply says it counts
    return not a.noun or a.noun == noun or a.value >= 100 or a.noun in lexicon().time_units


def _span_of_theirs(a: Amount, theirs: Sequence[Amount | tuple]) -> bool:
    """Whether a span said is one the user gave, of anything ("two years dancing with Beatriz" in
    a list of their spans; "five years sober" for their "five sober years")."""
    units = lexicon().time_units
    for x in theirs:
        value, unit, noun = (
            (x.value, x.unit, x.noun) if isinstance(x, Amount) else (x[0], x[1], x[3])
        )
        unit = unit or units.get(noun)
        if unit is not None and a.unit is not None and _same_span(a.value, a.unit, value, unit):
            return True
    return False


def _same_order(a: Amount, x: tuple) -> bool:  # noqa: ANN001
    """Whether a span said and a span of a fact are of one order of size (within a factor of
    :data:`SPAN_ORDER`): "two months" may be a slip for "eight months", not for "an hour"."""
    said, told = _in_days(a.value, a.unit), _in_days(x[0], x[1])
    return said > 0 and told > 0 and max(said, told) <= SPAN_ORDER * min(said, told)


#: How far apart two spans may be and still be one said for the other.
SPAN_ORDER = 10.0
#: Ordinal words by the number they count ("the fourth time" says four times).
_ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth",
             7: "seventh", 8: "eighth", 9: "ninth", 10: "tenth", 11: "eleventh", 12: "twelfth",
             20: "twentieth", 30: "thirtieth"}  # fmt: skip


def _ordinal_in(text: str, value: float) -> bool:
    """Whether ``text`` counts ``value`` as an ordinal ("the fourth time", "her 4th")."""
    n = int(value)
    if n != value or n <= 0:
        return False
    low = text.lower()
    word = _ORDINALS.get(n)
    return bool(re.search(rf"\b{n}(?:st|nd|rd|th)\b", low)) or bool(
        word and re.search(rf"\b{word}\b", low)
    )


def find_mistake(
    reading: Reading, known: Sequence[Fact], about_self: frozenset[str] = frozenset()
) -> Mistake | None:
    """The first thing the reply gets wrong among true things, in any sentence (see
    :class:`Mistake`; ``about_self``: as for :func:`best_facts`)."""
    shared = reading.shared
    if shared is None:
        return None
    people: dict[str, tuple[str, Fact]] = {}
    for f in known:
        if f.kind == "person":
            idx = fact_index(f.about, f.answer)
            for n in idx.names:
                people[n] = (next(iter(idx.relations), ""), f)
    ties = {**_ties(shared.world), **{n: r for n, (r, _) in people.items() if r}}
    for s in shared.sentences:
        if not s.readable:
            continue
        found = _doer_slip(s, people, known, ties) or _mistake_in(
            s, people, known, shared, about_self
        )
        if found is not None:
            return replace(found, sentence=s.text)
    return None


#: Words that may stand between a doer and their deed ("Karim really shouted").
_BETWEEN = word_set("really just also even then always never actually once still")


def _asks_outright(s: SentenceReading) -> bool:
    """A question in a question's form: it opens (after discourse words) with a question word or
    an auxiliary ("Did your sister help?"), not a claim with a tag or a rising end."""
    if not s.does("question"):
        return False
    lex = lexicon()
    first = next((t.text for t in s.tokens if t.text not in ("so", "and", "but", "oh", "well")), "")
    return first in lex.wh_words or first in lex.auxiliaries


def _clause_of(s: SentenceReading, k: int) -> tuple[Token, ...]:
    """The tokens of the clause of the sentence's ``k``-th token (between the marks ",;:" or a
    dash around it)."""
    at = s.tokens[k].start - s.start
    breaks = [m.start() for m in re.finditer(r"[,;:]|\s[-–—]\s", s.text)]
    lo = max((b for b in breaks if b < at), default=-1) + s.start
    hi = min((b for b in breaks if b > at), default=len(s.text)) + s.start
    return tuple(t for t in s.tokens if lo < t.start < hi)


def _ties(world: UserWorld) -> dict[str, str]:
    """Name -> the tie the user gave that person, for the names they gave one."""
    return {n: r for n, r in world.names.items() if r}


def _doer_slip(
    s: SentenceReading, people: dict[str, tuple[str, Fact]], known: Sequence[Fact],
    ties: Mapping[str, str],
) -> Mistake | None:  # fmt: skip
    """A deed the user told, given to the wrong person: "So Karim shouted at you about the soup?"
    where the user shouted at Rania, or turned round: "So Kyle trained you?" where the user
    trained Kyle. The doer is a name the user gave or "your <relation>" standing for one; the deed
    is the verb after it, which the fact must hold, with one more content word in common (or the
    user as its object)."""
    lex = lexicon()
    toks = s.tokens
    for k, t in enumerate(toks[:-1]):
        if t.text.endswith(("'s", "s'")):
            continue  # "your dad's unveiling": an owner, not a doer
        who = t.text if t.text in people else None
        rel = lex.relation(t.text)
        by_relation = who is None
        if who is None and rel and k and toks[k - 1].text in ("your", "ur"):
            who = next(
                (n for n, (r, _) in people.items() if r and lex.same_person_kind(r, rel)),
                # no one of theirs has that tie: in a claim, the deed says who had it (a
                # question about someone the story lacks is asked, not claimed; a statement
                # with a tag or a rising end claims: "Your daughter set it up, didn't she?")
                None if _asks_outright(s) else f"<your {rel}>",
            )
        if who is None:
            continue
        j = k + 1
        while j < len(toks) and toks[j].text in _BETWEEN:
            j += 1
        if (
            j >= len(toks) or toks[j].closed or toks[j].capital  # "cousin Pat": a name, no deed
            or "VERB" not in parts_of_speech(toks[j].text)
        ):  # fmt: skip
            continue
        verb = toks[j].lemma
        to_you = any(x.text in ("you", "your") for x in toks[j + 1 : j + 4])
        # what the deed is said of: the clause of the doer, not the rest of a long list
        said = {x.lemma for x in content_tokens(_clause_of(s, k))} - {verb} - set(people)
        for f in known:
            told = tokens_of(f.answer)
            for i, x in enumerate(told[:-1]):
                if (
                    x.text == "i"
                    and told[i + 1].lemma == verb
                    and to_you
                    and who in {y.text for y in told[i + 2 : i + 5]}
                ):
                    return Mistake("person", who.capitalize(), "", f)  # the deed turned round
            if verb not in {x.lemma for x in told}:
                continue
            if not said & {x.lemma for x in content_tokens(told)}:
                continue
            idx = fact_index(f.about, f.answer)
            present = set(idx.names) | {n for n, (r, _) in people.items() if r in idx.relations}
            if who not in present:
                if by_relation and rel and any(lex.same_person_kind(r, rel) for r in idx.relations):
                    continue  # the tie the reply names is the one that did it
                if by_relation and any(not people.get(n, ("", f))[0] for n in idx.names):
                    continue  # "your dad died" where "Hemi died": a tie no fact denies Hemi
                if by_relation:
                    # "your daughter set it up" where the granddaughter did: the tie is wrong,
                    # said back as the reply said it
                    truth = _tie_told(f.answer, s, ties)
                    return Mistake("relation", t.text, f"my {truth}" if truth else "", f)
                return Mistake("person", who.capitalize(), "", f)
    return None


#: Ties said of a woman and the same tie said of a man ("granddaughter" and "grandson").
_SEXES = (
    ("daughter", "son"), ("sister", "brother"), ("mother", "father"), ("mum", "dad"),
    ("mom", "dad"), ("granddaughter", "grandson"), ("grandmother", "grandfather"),
    ("grandma", "grandpa"), ("wife", "husband"), ("girlfriend", "boyfriend"), ("aunt", "uncle"),
    ("niece", "nephew"), ("stepdaughter", "stepson"), ("stepmother", "stepfather"),
)  # fmt: skip
_OTHER_SEX = {**dict(_SEXES), **{b: a for a, b in _SEXES}}
#: Words for several of one tie, of either sex ("my kids" may be a son and a daughter).
_BOTH_SEXES = word_set(
    "children kids sons daughters siblings grandchildren grandkids grandsons granddaughters "
    "parents grandparents"
)


def _yours(words: Sequence[str], k: int) -> bool:
    """Whether the word at ``k`` is said of the user's own people: after "your", or after "your"
    and one word that describes ("your little sister", "your eldest son")."""
    if k and words[k - 1] in ("your", "ur"):
        return True
    return (
        k > 1 and words[k - 2] in ("your", "ur") and not lexicon().relation(words[k - 1])
        and "ADJ" in parts_of_speech(words[k - 1])
    )  # fmt: skip


def _other_sex(word: str, world: ReplyReading) -> str:
    """The user's word for the tie ``word`` names, of the other sex ("son" for a reply's
    "daughter"), when the user says that word and never ``word``, nor a word for several of their
    own of the tie that may hold both sexes ("my kids"); empty otherwise."""
    said = lemma(word)
    other = _OTHER_SEX.get(said, "")
    if not other or _several_of_theirs(tuple(world.world_texts)):
        return ""
    lex = lexicon()
    rel = lex.relation(said)
    theirs = _forms_by_lemma(world.world.vocabulary)
    if other not in theirs or said in theirs:
        return ""
    if rel != lex.relation(other) and any(lex.relation(v) == rel for v in theirs):
        return ""  # "your mum" to a user who says "mother": she is theirs in another word
    # in their own word, as many as the reply said ("your sisters": "my brothers")
    plural = word.removesuffix("'s") != said
    return next((v for v in theirs[other] if (v != other) == plural), theirs[other][0])


@lru_cache(maxsize=256)
def _forms_by_lemma(vocabulary: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """The user's words by lemma, in sorted order ("brother": ("brother", "brothers")); read once
    per vocabulary (do not change the returned mapping)."""
    out: dict[str, list[str]] = {}
    for v in sorted(vocabulary):
        if v.isalpha():
            out.setdefault(lemma(v), []).append(v)
    return {k: tuple(v) for k, v in out.items()}


@lru_cache(maxsize=256)
def _several_of_theirs(texts: tuple[str, ...]) -> bool:
    """Whether the user's material speaks of several of their own of one tie ("my kids", "his
    two daughters"; not "his mother raised four children")."""
    for text in texts:
        toks = tokens_of(text)
        for k, x in enumerate(toks):
            if x.text in _BOTH_SEXES and any(y.text in _OWNERS for y in toks[max(0, k - 3) : k]):
                return True
    return False


#: Words that make a tie the user's own in their material ("my kids", "his daughters").
_OWNERS = word_set("my our his her their")


#: Nouns that count occurrences of whatever the sentence tells ("three times", "four tries").
_OCCURRENCE_NOUNS = word_set("time times try tries attempt attempts go goes")


def _occurrences(a: str, b: str) -> bool:
    """Two count nouns that count the same occurrences: "times" and "tries" of one deed."""
    return bool(a and b) and a in _OCCURRENCE_NOUNS and b in _OCCURRENCE_NOUNS


#: Where a fact line is cut into clauses to find the tie a sentence is about.
_CLAUSE_BREAK = re.compile(r"[,;:]|\b(?:and|but|while|when)\b")


def _tie_told(answer: str, sentence: SentenceReading, ties: Mapping[str, str]) -> str:
    """The tie a fact line gives the person a sentence is about ("wife" out of "My son Karim runs
    the shop, my wife Rania watches me on the stairs" for "your sister keeps watching you climb
    the stairs"): in the clause of the line that shares most words with the sentence, its first
    tie word or the tie of its first name (``ties``: name -> tie, as the user gave them); else
    the same over the whole line; empty when the line gives none."""
    lex = lexicon()
    said = {t.lemma for t in content_tokens(sentence.tokens)}

    def tie_in(tokens: Sequence[Token]) -> str:
        for t in tokens:
            if lex.relation(t.text):
                return t.text
            if ties.get(name_of(t)):
                return ties[name_of(t)]
        return ""

    shared = [
        (len(said & {t.lemma for t in content_tokens(c)}), c)
        for text in _CLAUSE_BREAK.split(answer)
        if (c := tokens_of(text))
    ]
    most, clause = max(shared, key=lambda x: x[0], default=(0, ()))
    return (tie_in(clause) if most else "") or tie_in(tokens_of(answer))


def _true_tie_fact(
    s: SentenceReading, said: str, known: Sequence[Fact], about_self: frozenset[str],
    ties: Mapping[str, str],
) -> Fact | None:  # fmt: skip
    """The fact they may tell that best matches a sentence that gave them the wrong tie ("your
    sons called the meeting" where their daughters did): among those naming a tie of the same
    kind, or a person the user gave such a tie (``ties``: name -> tie), the one nearest the
    sentence, when it reaches the answer bar."""
    lex = lexicon()
    kin = lex.kin(said)
    holders = [
        f for f in known
        if any(lex.relation(t.text) in kin or ties.get(name_of(t), "") in kin
               for t in tokens_of(f.answer))
    ]  # fmt: skip
    if not holders:
        return None
    q = Question(
        s.text, "who", tuple(t.lemma for t in content_tokens(s.tokens)), (), s, asked=False
    )
    ranked = [
        (sc, i) for sc, i in best_facts(q, holders, about_self=about_self) if sc >= ANSWER_BAR
    ]
    return holders[ranked[0][1]] if ranked else None


def _their_feeling_word(said: str, shared: ReplyReading) -> str:
    """The user's own word for a feeling they named that a reply read the wrong way round
    ("gutted" against "relieved"), the first they named (what brought them); empty when none
    is found."""
    for text in shared.world_texts:
        for t in tokens_of(text):
            family = feeling_family(t.text)
            if family and family in shared.world.feelings and opposed_feelings(said, (family,)):
                return t.text
    return ""


def _true_tie_word(said: str, texts: Sequence[str]) -> str:
    """The word the user used for the tie a reply got wrong ("daughters" for "your sons"), from
    their own messages (latest first); empty when they used none."""
    lex = lexicon()
    kin = lex.kin(said)
    for text in reversed(texts):
        for t in tokens_of(text):
            if lex.relation(t.text) in kin:
                return t.text
    return ""


#: What may stand between "you're" and an age ("You're only nineteen"; not "not": "you're not
#: thirty yet" claims no age).
_AGE_QUALIFIERS = word_set("only just nearly almost barely still")
#: Verbs that say an age after "you" ("you are 19", "You turned forty", "you will be sixty"; not
#: "you were twelve", an age they had).
_AGE_VERBS = word_set("are turned turn turning will be")


#: ... and after "at" also the minutes ("at 6:30"): a number there is no age.
_CLOCK = re.compile(rf"\s*(?:{_CLOCK_WORDS}|:\d)")


def _after(text: str, said: str) -> str:
    """The text after the first ``said`` in ``text`` (case aside)."""
    at = text.lower().find(said.lower())
    return text[at + len(said) :] if at >= 0 else ""


def _past(words: Sequence[str]) -> bool:
    """Words that tell of a time gone ("you were", "you moved"), not of now ("you've earned")."""
    if any(w in ("were", "was", "had", "did", "used") for w in words):
        return True
    return any(w.endswith("ed") for w in words) and not any(
        w in ("you've", "have", "has") for w in words
    )


#: The decades of a life as people say them ("in your thirties"), with their first year.
_DECADES = {
    "teens": 13, "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60,
    "seventies": 70, "eighties": 80, "nineties": 90,
}  # fmt: skip


def _age_claimed(s: SentenceReading) -> tuple[str, float, float] | None:
    """The age a sentence tells the listener they are, as (the words, lowest, highest): "You're
    twenty-four", "you are only 19", "you turned forty", "at 58 you're more than able", "in your
    early thirties", "as a 31-year-old" (not "you were twelve" or "at fifteen you left": an age
    they had)."""
    toks = s.tokens
    texts = [t.text for t in toks]
    to_them = any(w in YOU_WORDS or w in ("your", "ur") for w in texts)
    for k, t in enumerate(toks):
        if t.text in ("your", "ur") and to_them:
            decade = _decade_after(texts, k + 1)
            if decade is not None:
                return decade
        # "At 58 you're more than able", "at thirty-eight you'd think", "Being twenty-nine and",
        # "as a thirty-one-year-old"
        framed = (t.text == "at" and to_them) or (t.text == "being" and k == 0 and to_them)
        as_a = t.text == "as" and k + 1 < len(toks) and toks[k + 1].text == "a"
        if t.text not in ("you're", "you", "youre", "ur") and not framed and not as_a:
            continue
        j = k + 2 if as_a else k + 1
        if t.text == "you":
            if j >= len(toks) or toks[j].text not in _AGE_VERBS:
                continue
            j += 1
            if toks[j - 1].text == "will" and j < len(toks) and toks[j].text == "be":
                j += 1
        while j < len(toks) and toks[j].text in _AGE_QUALIFIERS:
            j += 1
        if j >= len(toks) or not (toks[j].text.isdigit() or toks[j].text in lexicon().numbers):
            continue
        found = amounts_in(toks[j:], s.text, s.start)
        if not found or toks[j].text in ("a", "an", "one", "half"):
            continue
        a = found[0]
        rest = [x.text for x in toks[j:]]
        old = "old" in rest[1:5]
        if as_a:
            if old and to_them and 10 <= a.value <= 110:
                said = re.sub(r"[- ]years?$", "", a.text)
                return said, a.value, a.value
            continue
        if framed and (
            a.unit is not None or _CLOCK.match(_after(s.text, a.text)) or old or _past(rest[1:5])
        ):
            continue  # "at 5 pm", "at two years old", "at fifteen you were": not their age now
        if t.text == "at" and not any(w in YOU_WORDS for w in rest[1:4]):
            continue  # "a prize at sixteen", "your dad joined up at nineteen": nobody's age now
        if (a.unit is None or (a.unit == "year" and old)) and 10 <= a.value <= 110:
            return a.text, a.value, a.value
    return None


def _decade_after(words: Sequence[str], j: int) -> tuple[str, float, float] | None:
    """ "thirties", "early forties", "mid-fifties", "late teens" at ``j``: the words and the
    years they span."""
    part = words[j] if j < len(words) else ""
    if part in ("early", "mid", "late") and j + 1 < len(words):
        decade = words[j + 1]
    else:
        decade, part = part, ""
    if decade not in _DECADES:
        return None
    first = _DECADES[decade]
    last = 19 if decade == "teens" else first + 9
    lo, hi = {"early": (first, first + 3), "mid": (first + 3, first + 6),
              "late": (last - 3, last)}.get(part, (first, last))  # fmt: skip
    return (f"{part}-{decade}" if part == "mid" else f"{part} {decade}").strip(), lo, hi


def _mistake_in(
    s: SentenceReading, people: dict[str, tuple[str, Fact]], known: Sequence[Fact],
    shared: ReplyReading, about_self: frozenset[str] = frozenset(),
) -> Mistake | None:  # fmt: skip
    """A name, relation, feeling, age or number of one sentence that is not the one the user
    gave."""
    lex = lexicon()
    words = s.words
    # a name misspelt or mixed up: "Emir" for Emre; a name of their story as well as of the
    # people they may tell of ("Aunty Mary" for their Aunty Mere)
    story_names = {n: None for n in shared.world.names if n not in people}
    for t in s.tokens:
        if (
            t.capital and name_of(t) not in people and name_of(t) not in story_names
            and t is not s.tokens[0] and len(t.text) > 2
            and not _plural_of(name_of(t), (*people, *story_names))  # "Thursdays", "Thursday"
            and name_of(t) not in lex.calendar | lex.calendar_capitalised  # "March" for Marie
        ):  # fmt: skip
            for name, f in [*((n, f) for n, (_, f) in people.items()), *story_names.items()]:
                if edit_close(t.text, name):
                    return Mistake("name", name_of(t).capitalize(), name.capitalize(), f)
    # a relation given to a person the user gave another ("your sister Emre")
    for m in s.misreadings:
        if m.what == "relation":
            named = [name_of(t) for t in s.tokens if name_of(t) in people]
            world_ties = _ties(shared.world)  # read once: every token is looked up in it
            tied = [tie for t in s.tokens if (tie := world_ties.get(name_of(t)))]
            if not named and tied:  # "your cousin Pat" for their brother Pat: the tie given him
                return Mistake("relation", m.said, f"my {tied[0]}", None)
            if named:
                fact: Fact | None = people[named[0]][1]
            else:
                fact = _true_tie_fact(s, m.said, known, about_self, world_ties) or next(
                    (f for n, (r, f) in people.items() if r and r == m.truth), None
                )
            if fact is None:
                # no fact they may tell holds the true tie: name it as they did ("my daughters")
                tie = _true_tie_word(m.said, shared.world_texts)
                return Mistake("relation", m.said, f"my {tie}" if tie else "", None)
            tie = _tie_told(fact.answer, s, world_ties)
            return Mistake("relation", m.said, f"my {tie}" if tie else fact.answer, fact)
        if m.what == "feeling":
            return Mistake("feeling", m.said, _their_feeling_word(m.said, shared) or m.truth)
    # a relation word the user's story has no one for, in a sentence that retells a fact
    for k, w in enumerate(words):
        rel = lex.relation(w)
        if not rel or not _yours(words, k):
            continue
        if rel in ("friend", "family", "doctor", "therapist"):
            continue
        if any(lex.same_person_kind(rel, r) for r in shared.world.relations):
            # "your granddaughter" to a user with a grandson: the tie is theirs in a word that
            # holds both ("grandchild", "child"), the sex is not
            if other := _other_sex(w, shared):
                return Mistake("relation", w.removesuffix("'s"), f"my {other}", None)
            continue
        if rel in lex.relation_groups["partner"] and PARTNERED_WORDS & shared.world.vocabulary:
            continue
        q = Question(
            s.text, "who", tuple(t.lemma for t in content_tokens(s.tokens)), (), s, asked=False
        )
        ranked = [
            (sc, i) for sc, i in best_facts(q, known, about_self=about_self) if sc >= ANSWER_BAR
        ]
        if ranked:
            fact = known[ranked[0][1]]
            idx = fact_index(fact.about, fact.answer)
            if idx.relations or idx.names:
                # the tie the fact gives, to name when the fact itself is not theirs to tell yet
                tie = _tie_told(fact.answer, s, _ties(shared.world))
                return Mistake("relation", w, f"my {tie}" if tie else "", fact)
        if other := _other_sex(w, shared):
            return Mistake("relation", w.removesuffix("'s"), f"my {other}", None)
    # their age, said wrong to them ("You're twenty-four" to someone of twenty-seven)
    claimed = _age_claimed(s)
    age_fact = next((f for f in known if f.answer in about_self and "age" in f.about), None)
    if claimed is not None and age_fact is not None:
        true = amounts_in(tokens_of(age_fact.answer))
        said, lowest, highest = claimed
        if true and not lowest <= true[0].value <= highest:
            return Mistake("amount", said, age_fact.answer.rstrip("."), age_fact)
        if true:
            return None  # said right: no other number of the sentence is checked against facts
    # a number or duration that is not the one the user gave
    nearest: list[tuple[float, int]] | None = None  # the sentence's, found once for all its numbers
    if not s.amounts:
        return _last_checks(s, known, shared, about_self)
    words_said = [t.text for t in s.tokens]
    # "how many days a week ...?", "Where is it, and how long ...?": the number is what it asks,
    # not a claim to set right
    if s.does("question") and any(
        w == "how" and nxt in ("many", "much", "long", "old")
        for w, nxt in zip(words_said, words_said[1:], strict=False)
    ):
        return _last_checks(s, known, shared, about_self)
    # the numbers the user gave, and their words ("last month"), read once for the sentence
    theirs: list[Amount | tuple] = [
        *(x for f in known for x in fact_index(f.about, f.answer).amounts),
        *shared.world.amounts,
    ]
    said_text = " ".join((*shared.world_texts, *(f.answer for f in known))).lower()
    for a in s.amounts:
        if a.unit is None and _time_of_day(s.text, a.text):
            continue
        if _kind_of(s.text, a.text):
            continue  # "a week like this" names no span of theirs
        if _roughly(s.text, a.text) or says_how_often(a.text, words_said) or _pair(s.text, a):
            continue  # "well over a decade", "three times a week", "you two"
        if a.unit is None and a.value == 1:
            continue  # "one big weekend", "in one go": a single one, seldom a count to contest
        ahead = says_how_often_or_soon(
            a.text, words_said
        )  # "in two days": against a time ahead only
        if a.unit is None and any(_same_count(a, x) for x in theirs):
            continue  # a count of theirs ("one flat", "at fifteen"), said of something of theirs
        if a.unit is not None and _span_of_theirs(a, theirs):
            continue  # a span of theirs, said of one of the things it was
        if a.value == 1 and a.unit in _LAST and _LAST[a.unit] in said_text:
            continue  # "a month ago" for their "last month"
        if nearest is None:
            q = Question(
                s.text, "what", tuple(t.lemma for t in content_tokens(s.tokens)), (), s, asked=False
            )
            nearest = best_facts(q, known, about_self=about_self)[:2]
        # the two facts nearest the sentence: a slip only when neither holds the amount said
        # ("your dad's unveiling is in five weeks" is near both "he died eighteen months ago"
        # and "the unveiling is in five weeks")
        slip: Mistake | None = None
        for score, i in nearest:  # noqa: B007
            if score < ANSWER_BAR:
                break
            idx = fact_index(known[i].about, known[i].answer)
            if a.unit is not None:  # a span of time against the spans the fact gives
                # of the same order ("two months" is not a slip for "an hour each way"), and no
                # rate ("three times a week") or time ahead ("in ten days")
                line = [t.text for t in tokens_of(known[i].answer)]
                same = [x for x in idx.amounts if x[1] is not None and _same_order(a, x)
                        and not says_how_often(x[2], line)
                        and (not ahead or says_how_often_or_soon(x[2], line))]  # fmt: skip
                if any(_same_span(a.value, a.unit, x[0], x[1]) for x in same):
                    slip = None
                    break
                if same and slip is None:
                    slip = Mistake("duration", a.text, same[0][2], known[i])
                continue
            answer = known[i].answer
            same = [x for x in idx.amounts if x[1] is None and (
                (x[3] == a.noun != "") or (score >= 1.5 and not (x[3] and a.noun))
                or (score >= 1.5 and _occurrences(x[3], a.noun)))
                and not _time_of_day(answer, x[2])
                and not (is_year(x[0]) and (not is_year(a.value) or (a.noun and not x[3])))
            ]  # fmt: skip
            # a number of the same thing first ("a twelve-year-old" for "a ten-year-old", not
            # the "round three" of the same line); a year only for a year ("1960" is no truth
            # for "when you were only ten")
            same.sort(key=lambda x: x[3] != a.noun)
            if any(x[0] == a.value for x in same) or _ordinal_in(answer, a.value):
                slip = None
                break
            if same and slip is None:
                kind = "duration" if a.unit else "amount"
                slip = Mistake(kind, a.text, _with_noun(answer, same[0]), known[i])
        if slip is not None:
            return slip
        if a.unit is None and a.noun and (counted := _count_of(a, known)) is not None:
            return counted  # "a hundred funerals" where they told of four hundred, elsewhere
    return _last_checks(s, known, shared, about_self)


def _with_noun(answer: str, x: tuple) -> str:  # noqa: ANN001
    """A number of a fact line as the user says it back: joined to what it counts where the line
    joins them ("twelve-year-old", not "twelve": a number alone says back little), else alone."""
    if not x[3]:
        return x[2]
    joined = re.search(rf"(?<![\w-]){re.escape(x[2])}(?:-[^\W\d_]+)+", answer, re.IGNORECASE)
    return joined.group(0) if joined else x[2]


def _count_of(a: Amount, known: Sequence[Fact]) -> Mistake | None:
    """A count of a thing the user counted once, with another number: "a hundred funerals" where
    a fact says "four hundred funerals". None when no fact counts it, one counts it the same, or
    they count it more than once ("nine million kroner" offered, "two million kroner" of debt:
    the sentence's nearest facts decide)."""
    counts: dict[float, Mistake] = {}
    for f in known:
        for x in fact_index(f.about, f.answer).amounts:
            if x[1] is None and x[3] == a.noun:
                counts.setdefault(x[0], Mistake("amount", a.text, x[2], f))
    if len(counts) != 1 or a.value in counts:
        return None
    return next(iter(counts.values()))


def _last_checks(
    s: SentenceReading, known: Sequence[Fact], shared: ReplyReading, about_self: frozenset[str]
) -> Mistake | None:
    """The checks of a sentence that come after its ties and numbers: a name the user never said,
    then a thing put in the place of theirs."""
    return (
        _unknown_name(s, known, shared, about_self)
        or _swapped_thing(s, known, shared, about_self)
        or _other_work(s, known, shared, about_self)
        or _other_time(s, known, shared, about_self)
    )


_MONTHS = word_set(
    "january february march april may june july august september october november december"
)
_WEEKDAYS = word_set("monday tuesday wednesday thursday friday saturday sunday")


def _calendar_name(t: Token) -> str:
    """A month or a weekday a word names ("Tuesdays" -> tuesday; "march" and "may" only with a
    capital), or ``""``."""
    w = t.text.removesuffix("s") if t.text.endswith("days") else t.text
    if w in ("march", "may") and not t.capital:
        return ""
    return w if w in _MONTHS or w in _WEEKDAYS else ""


def _other_time(
    s: SentenceReading, known: Sequence[Fact], shared: ReplyReading, about_self: frozenset[str]
) -> Mistake | None:
    """A month or a weekday the user never said, where one of the two facts nearest the sentence
    gives another of its kind and not this one ("settled in Manchester by September" where they
    must be there by August; "an answer by the first of April" where the bank wants it by the end
    of March). Set right with the fact's."""
    said = [(t, w) for t in s.tokens if (w := _calendar_name(t))]
    if not said or _asks_outright(s):
        return None
    vocabulary = shared.world.vocabulary
    nearest: list[tuple[float, int]] | None = None
    for t, w in said:
        if w in vocabulary or f"{w}s" in vocabulary:
            continue  # a day or a month of theirs
        kind = _MONTHS if w in _MONTHS else _WEEKDAYS
        if nearest is None:
            q = Question(
                s.text, "when", tuple(x.lemma for x in content_tokens(s.tokens)), (), s,
                asked=False,
            )  # fmt: skip
            nearest = best_facts(q, known, about_self=about_self)[:2]
        for score, i in nearest:
            if score < ANSWER_BAR:
                break
            answer = known[i].answer
            names = [(x, n) for x in tokens_of(answer) if (n := _calendar_name(x))]
            if any(n == w for _, n in names):
                break  # the fact says it: said right
            theirs = [x for x, n in names if n in kind]
            if theirs:
                truth = answer[theirs[0].start : theirs[0].end]
                return Mistake("time", t.text.capitalize(), truth, known[i])
    return None


_ARTICLES = word_set("a an the")
#: Words that say a phrase after them is where someone works ("working down at the mine",
#: "double shifts at the warehouse", "a job in a bank").
_WORK_WORDS = word_set("work works worked working job jobs shift shifts career")
#: Words before "as a" that make what follows a living ("her years as a nurse", "worked as a
#: welder"; not "landed as a weight" or "as a son").
_WORK_BEFORE_AS = word_set("work job career year years time day days decade decades life living")
#: Prepositions that lead from such a word to the place of work.
_WORK_PLACE_BEFORE = word_set("at in for on")
#: Words that may stand between a work word and its preposition ("working down at", "worked
#: nights at", "shifts out at").
_WORK_BETWEEN = word_set("down up out over there nights days")
#: Words after "as a" that say what someone is, not what they do for a living ("as a kid", "as a
#: father", "as a result"), and words after a work word that say when or how, not where ("work
#: at night", "shifts on weekends", "work at home").
_NOT_WORK = word_set(
    "kid kids child children boy girl teen teenager baby adult man woman person human people "
    "result whole rule matter team family friend parent couple pair favour favor gift treat "
    "joke reminder way kind sort home house night nights weekend weekends moment time times "
    "once least first last best worst end start beginning all"
)


def _work_claims(text: str, toks: Sequence[Token], offset: int = 0) -> list[tuple[str, int]]:
    """The phrases of a sentence (``text``, its ``toks``, whose spans start ``offset`` before the
    text's) that say what someone does for a living, with the index of the token each starts at:
    the noun phrase after "as a" ("as a nurse", "as a school secretary") and the place after a
    work word ("working down at the mine" -> "the mine")."""
    out: list[tuple[str, int]] = []

    def phrase_from(j: int) -> tuple[str, int] | None:
        if j < len(toks) and toks[j].text in ("the", "a", "an"):
            j += 1
        k = j
        while (
            k < len(toks) and k - j < 3 and toks[k].text.isalpha()
            and (not toks[k].closed or (k == j and toks[k].text == "mine"))  # "at the mine"
            and (k == j or not text[toks[k - 1].end - offset : toks[k].start - offset].strip())
        ):  # fmt: skip
            k += 1
        if k == j or toks[k - 1].lemma in _NOT_WORK or toks[j].lemma in _NOT_WORK:
            return None
        if "NOUN" not in parts_of_speech(toks[k - 1].text) and toks[k - 1].text != "mine":
            return None
        return text[toks[j].start - offset : toks[k - 1].end - offset], j

    for k, t in enumerate(toks):
        if (
            t.text == "as" and 0 < k < len(toks) - 1 and toks[k + 1].text in ("a", "an")
            and toks[k - 1].lemma in _WORK_BEFORE_AS
        ):  # fmt: skip
            found = phrase_from(k + 1)
        elif (
            t.capital and k + 1 < len(toks) and toks[k + 1].text in ("a", "an")
            and text[t.end - offset : toks[k + 1].start - offset].strip() == ","
        ):  # fmt: skip
            found = phrase_from(k + 1)  # "Beatriz, a retired schoolteacher, ..."
        elif t.text in _WORK_WORDS:
            j = k + 1
            while j < len(toks) and toks[j].text in _WORK_BETWEEN:
                j += 1
            # a place: "at the mine", "for a courier firm", "at Tesco" (not "worked for makes
            # complete sense")
            at = (
                j + 1 < len(toks) and toks[j].text in _WORK_PLACE_BEFORE
                and (toks[j + 1].text in _ARTICLES or toks[j + 1].capital)
            )  # fmt: skip
            found = phrase_from(j + 1) if at else None
        else:
            continue
        if found is not None:
            out.append(found)
    return out


def _other_work(
    s: SentenceReading, known: Sequence[Fact], shared: ReplyReading, about_self: frozenset[str]
) -> Mistake | None:
    """Someone's work said as another ("after all her years as a nurse" to a user whose wife
    Lone is a school secretary; "thirty years working down at the mine" to a supervisor at a
    water-treatment plant): a phrase that says what someone does for a living (see
    :func:`_work_claims`) about the person the sentence names before it (a name or a tie of
    theirs; the user when it names none), where the facts that tell that person's work tell it in
    other things (MiniLM cosine below :data:`SWAP_ALIKE`) and neither they nor the user's words
    hold the phrase's words. Set right with the work the fact tells."""
    if _asks_outright(s):
        return None
    claims = _work_claims(s.text, s.tokens, s.start)
    if not claims:
        return None
    world = shared.world
    lex = lexicon()
    for phrase, start in claims:
        content = [t for t in tokens_of(phrase) if not t.closed]
        words = {t.lemma for t in content} | {t.text for t in content}
        if words & world.vocabulary or words & {lemma(w) for w in world.vocabulary}:
            continue  # a word of theirs: said of something they told
        who = ""
        for t in reversed(s.tokens[:start]):  # whose work: the last name or tie said before it
            written = shared.reply[t.start : t.end]
            if name_of(t) in world.names or (
                t.capital and t is not s.tokens[0]
                and any(re.search(rf"\b{re.escape(written)}\b", f.answer) for f in known)
            ):  # fmt: skip
                who = name_of(t)
                break
            rel = lex.relation(t.text)
            if rel and rel not in ("friend", "family"):
                who = rel
                break
        if who:
            facts = [f for f in known if f.answer not in about_self and _tells_of(f.answer, who)]
        else:
            facts = [f for f in known if f.answer in about_self and "job" in f.about]
        for f in facts:
            line = f.answer.lower()
            if any(w in line for w in words if len(w) > 3):
                break  # the fact holds it: said right
            places = _work_claims_of(f.answer) or ([] if who else [f.answer.rstrip(".")])
            if places and all(_alike(phrase, p) < SWAP_ALIKE for p in places):
                return Mistake("thing", phrase, places[0] if who else f.answer.rstrip("."), f)
    return None


def _tells_of(answer: str, who: str) -> bool:
    """Whether a fact line speaks of ``who``: a name (lower case) or a relation of theirs."""
    lex = lexicon()
    line = answer.lower()
    if lex.relation(who) is None:
        return who in re.findall(r"[^\W\d_]+", line)
    return any(
        (r := lex.relation(w)) is not None and lex.same_person_kind(r, who)
        for w in re.findall(r"[a-z']+", line)
    )


@lru_cache(maxsize=4096)
def _work_claims_of(answer: str) -> list[str]:
    """The phrases of a fact line that say what someone does for a living: as
    :func:`_work_claims` reads them, and a noun phrase set off after a name ("Lone, a school
    secretary")."""
    found = [p for p, _ in _work_claims(answer, tokens_of(answer))]
    for m in re.finditer(r"[A-Z][a-z]+, (?:a|an) ((?:[a-z-]+ ){0,2}[a-z-]+)(?=[,.;])", answer):
        found.append(m.group(1))
    return found


#: How alike (MiniLM cosine) a phrase of a reply and the user's phrase it stands in for may be
#: and still name another thing ("textile factory" / "lamp factory" .48, "driving buses" /
#: "driving trams" .57, "teaching maths" / "teaching music" .50 are other things; "basement
#: apartment" / "basement flat" .71, "your lawyer" / "your solicitor" .68, "your boss" / "your
#: manager" .75 one thing in other words).
SWAP_ALIKE = 0.64
#: Words too general to tie a reply's phrase to one of the user's ("the whole time", "that way").
_LOOSE_ANCHORS = word_set(
    "time times thing things way ways lot lots kind sort bit part people person day days year "
    "years week weeks month months night nights life world place end start moment"
)


def _thing_word(t: Token) -> bool:
    """A word that names a thing and only a thing: a noun (not also an adjective), no tie, no
    feeling, no name."""
    pos = parts_of_speech(t.text)
    return (
        not t.closed and t.text.isalpha() and len(t.text) > 2 and not t.capital
        and "NOUN" in pos and "ADJ" not in pos and not lexicon().relation(t.text)
        and feeling_family(t.text) is None
    )  # fmt: skip


def _anchor_word(t: Token, part: str) -> bool:
    """A word that may tie a thing beside it to one of the user's: a noun after a thing that
    qualifies it ("lamp factory"), a verb (no adjective) before its object ("teaching music")."""
    if t.closed or not t.text.isalpha() or len(t.text) <= 3 or t.lemma in _LOOSE_ANCHORS:
        return False
    pos = parts_of_speech(t.text)
    # a verb's -ing form is one, whatever adjective shares it ("driving buses")
    return part in pos and ("ADJ" not in pos or (part == "VERB" and t.text.endswith("ing")))


def _object_word(t: Token) -> bool:
    """A thing after a verb: a noun that is no verb in this form ("music", "trams", "buses";
    not "make" or "pay", which a noun before them may be the doer of)."""
    return _thing_word(t) and ("VERB" not in parts_of_speech(t.text) or t.text.endswith("s"))


#: Words after which a word that may be a noun or a verb is the verb ("you must miss teaching",
#: "to fish trout", "they cook meals").
_VERB_BEFORE = word_set("to i you we they he she it")


def _verb_slot(before: Token) -> bool:
    """Whether the word after ``before`` stands where a verb does (after a modal or an
    auxiliary, "to" or a subject pronoun)."""
    return before.text in _VERB_BEFORE or before.text in lexicon().auxiliaries


@lru_cache(maxsize=4096)
def _anchored(
    text: str, across_article: bool = False
) -> dict[tuple[str, str], tuple[tuple[str, str], ...]]:
    """The two-word phrases of ``text`` that pair a thing with the word beside it ("lamp
    factory", "teaching music"): ``(side, lemma of the word beside) -> ((lemma of the thing,
    the phrase as written), ...)``; side "before" when the thing stands before it. With
    ``across_article``, a verb and its object with an article between too ("drove a tram"): read
    so in the user's lines only, for a reply's "driving buses"; a reply's own "climbing the walls"
    or "call an owner" is an idiom as often as a thing of theirs put wrong."""
    toks = tokens_of(text)
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for k, (a, b) in enumerate(zip(toks, toks[1:], strict=False)):
        if text[a.end : b.start].strip(" -"):
            continue  # a mark between them: no phrase
        phrase = text[a.start : b.end]
        if _thing_word(a) and _anchor_word(b, "NOUN") and not (k and _verb_slot(toks[k - 1])):
            out.setdefault(("before", b.lemma), []).append((a.lemma, phrase))
        if _object_word(b) and _anchor_word(a, "VERB"):  # "Drove trams": the verb "drive"
            out.setdefault(("after", verb_lemma(a.text)), []).append((b.lemma, phrase))
    # a verb and its object with an article between ("drove a tram")
    for a, d, c in zip(toks, toks[1:], toks[2:], strict=False) if across_article else ():
        if d.text not in _ARTICLES or text[a.end : c.start].strip(" -").lower() != d.text:
            continue
        if _object_word(c) and _anchor_word(a, "VERB") and not _object_word(a):
            out.setdefault(("after", verb_lemma(a.text)), []).append(
                (c.lemma, text[a.start : c.end])
            )
    return {k: tuple(v) for k, v in out.items()}


def _swapped_thing(
    s: SentenceReading, known: Sequence[Fact], shared: ReplyReading, about_self: frozenset[str]
) -> Mistake | None:
    """A thing put in the place of the user's in a phrase they said ("a textile factory" where
    they worked at a lamp factory, "teaching maths" where they taught music): the reply's phrase
    pairs a noun the user never used with a word beside it, and a fact near the sentence pairs
    that word, on the same side, with a noun the reply does not say; the two phrases mean other
    things (MiniLM cosine below :data:`SWAP_ALIKE`). Set right with the user's phrase."""
    if _asks_outright(s):
        return None
    said = {t.lemma for t in s.tokens} | {t.text for t in s.tokens}
    vocabulary = shared.world.vocabulary
    mine = {
        key: kept
        for key, pairs in _anchored(s.text).items()
        if (kept := [(w, p) for w, p in pairs if w not in vocabulary])
    }
    if not mine:
        return None
    # the pairs with a phrase of a fact of theirs, found first (cheap): most sentences have none,
    # and then neither the nearest facts nor the phrases' meaning are read
    swaps: dict[int, list[tuple[str, str]]] = {}
    for i, f in enumerate(known):
        theirs = _anchored(f.answer, across_article=True)
        for key, pairs in mine.items():
            for word, phrase in pairs:
                for other, their_phrase in theirs.get(key, ()):
                    if other != word and other not in said:
                        swaps.setdefault(i, []).append((phrase, their_phrase))
    if not swaps:
        return None
    q = Question(
        s.text, "what", tuple(t.lemma for t in content_tokens(s.tokens)), (), s, asked=False
    )
    for _score, i in [x for x in best_facts(q, known, about_self=about_self)[:3]
                      if x[0] >= ANSWER_BAR]:  # fmt: skip
        for phrase, their_phrase in swaps.get(i, ()):
            if _alike(phrase, their_phrase) < SWAP_ALIKE:
                return Mistake("thing", phrase, their_phrase, known[i])
    return None


@lru_cache(maxsize=4096)
def _alike(a: str, b: str) -> float:
    """MiniLM cosine of two short phrases."""
    from empa_env.offline.semantic.encoder import shared_encoder

    x, y = shared_encoder("minilm").encode([a.lower(), b.lower()])
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y) + 1e-12))


#: Words before a name that make it a place ("in Perth", "from Leipzig", "down to Durban").
_PLACE_BEFORE = word_set("in at from to near into outside around through via")


def _unknown_name(
    s: SentenceReading, known: Sequence[Fact], shared: ReplyReading,
    about_self: frozenset[str] = frozenset(),
) -> Mistake | None:  # fmt: skip
    """A name the user never said, where a fact of theirs near the sentence holds another of the
    same kind (a person for a person, a place for a place): "Jeroen cooks now" to someone whose
    partner Joost cooks, "a half-brother in Sydney" for one in Perth. Set right with the name the
    fact gives."""
    lex = lexicon()
    world = shared.world
    toks = s.tokens
    candidates = [
        (k, t) for k, t in enumerate(toks)
        if (k or _opens_with_name(s)) and t.capital and (name := name_of(t)).isalpha()
        and len(name) >= 3
        and not known_word(name) and name not in world.names and name not in world.vocabulary
        and name not in lex.calendar_capitalised
        and not {name, name.removesuffix("s")} & lex.calendar  # "Thursdays"
    ]  # fmt: skip
    if not candidates:  # most sentences: no capitalised word the user's world lacks
        return None
    said = {t.text for t in toks} | {name_of(t) for t in toks}
    told = " ".join(f.answer for f in known).lower()
    for k, t in candidates:
        if name_of(t) in told:
            continue
        start = _run_start(toks, k)
        place = start > 0 and toks[start - 1].text in _PLACE_BEFORE
        if place and _asks_outright(s):
            continue  # "Did you grow up in Texas?" asks where, to be answered, not set right
        end = k + 1
        while end < len(toks) and toks[end].capital and toks[end].start - toks[end - 1].end <= 1:
            end += 1
        beside = _beside(toks, start, end)  # the words around the name, read once
        # the capitalised words before the name, a title among them ("Aunty Rangi", "Uncle Joe")
        titles = frozenset(x.text for x in toks[max(start - 1, 0) : k] if x.capital)
        content = tuple(x.lemma for x in content_tokens(toks) if x is not t)
        q = Question(s.text, "what", content, (), s, asked=False)
        ranked = [x for x in best_facts(q, known, about_self=about_self)[:_NAME_FACTS]
                  if x[0] >= ANSWER_BAR]  # fmt: skip
        for _score, i in ranked:
            found = _name_in_fact(t, known[i], place, said, world, beside, titles)
            if found is not None:
                return found
        return None
    return None


def _run_start(toks: Sequence[Token], k: int) -> int:
    """Where the run of capitalised words that ``toks[k]`` ends begins: one name in several words
    ("Aires" of "live in Buenos Aires" is read with "Buenos", a place after "in")."""
    j = k
    while (
        j > 0 and toks[j - 1].capital and toks[j].start - toks[j - 1].end <= 1
        and (j > 1 or not known_word(name_of(toks[0])))
    ):  # fmt: skip
        j -= 1
    return j


#: How many of the facts nearest a sentence are searched for the name it got wrong (the nearest
#: may tell of the same moment without naming anyone: "a year of carrying messages" before "a
#: Cafcass officer sorting Ayaan's arrangements").
_NAME_FACTS = 3


def _opens_with_name(s: SentenceReading) -> bool:
    """Whether the sentence's first word may be a name: a word no dictionary has, not set off by
    a comma or a mark like an interjection ("Carolina asking ..."; not "Gosh, ..." or "Eek!")."""
    toks = s.tokens
    if len(toks) < 2 or known_word(name_of(toks[0])):
        return False
    first = re.match(r"\W*[^\W\d_]+(?:['’][^\W\d_]+)?(.?)", s.text)
    if first is not None and first.group(1) == "," and toks[1].text in ("who", "whose"):
        return True  # "Joris, who does the cooking, ...": a name and its clause
    return first is not None and first.group(1) not in (",", "!", ".", "?", ";", ":", "-")


def _name_in_fact(
    t: Token, fact: Fact, place: bool, said: set[str], world: UserWorld,
    beside: frozenset[str] = frozenset(), titles: frozenset[str] = frozenset(),
) -> Mistake | None:  # fmt: skip
    """The name ``fact`` gives where the sentence said ``t``: one it tells of the same kind (a
    place after "in", a person otherwise) that the sentence does not say, or, for a person the
    line names only by a tie ("my brother"), the name the user gave that tie."""
    lex = lexicon()
    # a name the sentence says is no truth for it, its title aside ("Aunty Mere" for "Aunty
    # Rangi")
    told = [
        n for n in names_told(fact.answer)
        if (own := set(n.text.lower().split()) - titles) and not own & said
    ]  # fmt: skip
    # the name with the same title ("Aunty Mere" for "Aunty Rangi"), or in the same place of the
    # line ("the Amsterdam marathon" for "the Rotterdam marathon"), whatever kind it is; else the
    # first of the same kind
    titled = [n for n in told if set(n.text.lower().split()) & titles]
    for n in [*titled, *(n for n in told if n.beside & beside),
              *(n for n in told if n.place == place)]:  # fmt: skip
        return Mistake("name", name_of(t).capitalize(), n.text, fact)
    if place:
        return None
    ties = {r for x in said if (r := lex.relation(x))}
    for rel in fact_index(fact.about, fact.answer).relations:
        if any(lex.same_person_kind(rel, r) for r in ties):
            continue  # "your brother and Mr Patel": the tie is said, the name is another
        for other, names in world.relations.items():
            if lex.same_person_kind(rel, other):
                known_as = [n for n in names if n not in said]
                if known_as:
                    return Mistake("name", name_of(t).capitalize(), known_as[0].capitalize(), fact)
    return None


@dataclass(frozen=True)
class ToldName:
    """A name a fact line gives: as written ("Cape Town" whole), whether it stands as a place
    (after "in", "from", ...), and the lemmas of the content words right beside it ("marathon" of
    "ran the Rotterdam marathon")."""

    text: str
    place: bool
    beside: frozenset[str]


def _beside(toks: Sequence[Token], start: int, end: int) -> frozenset[str]:
    """The lemmas of the words right before ``toks[start]`` and right after ``toks[end - 1]``
    that are no closed-class word and no name."""
    near = [toks[j] for j in (start - 1, end) if 0 <= j < len(toks)]
    return frozenset(x.lemma for x in near if not x.closed and not x.capital and x.text.isalpha())


#: Words before a name that may make it a time ("at Spring Festival", "on Easter Sunday").
_TIME_BEFORE = word_set("at on during over")


def names_told(answer: str) -> list[ToldName]:
    """The names a fact line gives (runs of capitalised words that are not English, "Cape Town"
    whole; see :class:`ToldName`)."""
    toks = tokens_of(answer)
    out: list[ToldName] = []
    k = 0
    while k < len(toks):
        t = toks[k]
        name = name_of(t)
        place = k > 0 and toks[k - 1].text in _PLACE_BEFORE
        further = k + 1 < len(toks) and toks[k + 1].capital and toks[k + 1].text.isalpha()
        # a word the dictionary has, capitalised mid-line, is a name when a place word leads to it
        # or a name goes on after it ("in Cape Town"); first in the line, only one it lacks
        if t.capital and name.isalpha() and (
            not known_word(name) or (k and (place or further))
        ):  # fmt: skip
            j = k + 1
            while j < len(toks) and toks[j].capital and toks[j].text.isalpha():
                j += 1
            run = answer[t.start : toks[j - 1].end]
            run = run[:-2] if run.endswith(("'s", "’s")) else run
            # "at Spring Festival": a time, not a place (but "in Spring Hill" is one)
            timed = (
                k > 0
                and toks[k - 1].text in _TIME_BEFORE
                and any(x.text in lexicon().calendar for x in toks[k:j])
            )
            out.append(ToldName(run, place and not timed, _beside(toks, k, j)))
            k = j
            continue
        k += 1
    return out


__all__ = ["Mistake", "ToldName", "edit_close", "find_mistake", "names_told"]
