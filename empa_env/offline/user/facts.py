"""The user's facts by meaning: what each is about (:class:`FactIndex`), and which facts a question
asks for (:func:`match`, :func:`best_facts`): by lemmas, the word-meaning table, relations that name
the same person, names, numbers, what the question says in other words, and what kind of answer it
wants (who, how long, where, what was said, what was tried).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from empa_env.cases.schema import Fact
from empa_env.offline.user.question import Question, content_tokens
from empa_env.reading.lexicon import lexicon, meanings, parts_of_speech
from empa_env.reading.tokens import Token, sentences_of, tokens_of, word_set
from empa_env.reading.world import amounts_in

#: Which fact kinds answer which question kind best (the first fits best).
ANSWERS: dict[str, tuple[str, ...]] = {
    "who": ("person", "said"),
    "duration": ("duration",),
    "when": ("duration", "event"),
    "amount": ("duration", "event"),
    "where": ("place",),
    "said": ("said", "person"),
    "tried": ("tried",),
    "why": ("reason", "event"),
    "what": (),
    "how": (),
    "choice": (),
    "yesno": (),
    "open": (),
}
#: Closeness of meaning at which a word of a question names a word of a fact.
MATCH_SIMILARITY = 0.5
#: What a word of a question scores when it is not in a fact's line but in a sentence of the
#: user's prose that tells the same thing (:attr:`FactIndex.related`).
RELATED_WEIGHT = 0.35
#: A question is about a fact when it scores this much (one word of it, by meaning, about).
ANSWER_BAR = 0.9

#: Days in a unit of time, to compare spans said in different units ("two years", "24 months").
DAYS_PER_UNIT = {"year": 365.0, "decade": 3650.0, "month": 30.4, "fortnight": 14.0, "week": 7.0,
         "day": 1.0, "night": 1.0, "second": 1 / 86400,
         "hour": 1 / 24, "minute": 1 / 1440}  # fmt: skip

#: Words that tell the user had a partner though no one is called one ("Widowed since Kemal died").
PARTNERED_WORDS = word_set("widow widowed widower married marriage wedding divorce divorced divorcing "
                      "separated engaged anniversary")  # fmt: skip


@dataclass(frozen=True)
class FactIndex:
    """What a fact is about, read once: its lemmas, names, relations, amounts and vector."""

    lemmas: frozenset[str]
    names: frozenset[str]
    relations: frozenset[str]
    amounts: tuple[tuple[float, str | None, str, str], ...]
    matrix: np.ndarray
    vector: np.ndarray | None
    #: Lemmas of the user's own prose that tells the same thing in other words ("the branch" in
    #: "her bank closed the branch on her street", for "The Sparkasse closed in March").
    related: frozenset[str] = frozenset()
    #: What the fact is about first (``about[0]``: the person of a person fact).
    subject: str = ""
    #: Words its line capitalises mid-sentence (:func:`_capitalised_within`): a question that
    #: names one points at this line, whether it names a person, an animal, a place or a day.
    proper: frozenset[str] = frozenset()
    #: Whether the line says a span of time ("twenty-four years"; an age, "a two-year-old", is
    #: not one).
    span: bool = False
    #: Whether the line says when something happened: a day, a month, a time of day, a year, a
    #: unit of time ("last week") or a span (``"when"`` questions are answered by such a line).
    dated: bool = False
    #: Whether the line names a point in time: a day, a month, a season, "ago" or a year (no
    #: bare unit of time or span: "fifty years" says how long, not when).
    calendar: bool = False
    #: Whether the line says a number (``"how many"`` questions are answered by such a line).
    counted: bool = False
    #: Names and ties the line says a number beside ("Ayaan's nine", "my nine-year-old
    #: brother", "Zuzia, twelve"): who a "how old is ...?" question may find their age in.
    aged: frozenset[str] = frozenset()

    @property
    def mentions_person(self) -> bool:
        return bool(self.names or self.relations)


def related_lemmas(fact_lemmas: frozenset[str], prose: Sequence[str]) -> frozenset[str]:
    """Lemmas of the prose sentences that share two or more content lemmas with a fact."""
    out: set[str] = set()
    for text in prose:
        for cut in sentences_of(text):
            lem = {t.lemma for t in content_tokens(cut.tokens)}
            if len(lem & fact_lemmas) >= 2:
                out |= lem
    return frozenset(out - fact_lemmas)


def _not_a_span(text: str, amount: str) -> bool:
    """Whether ``amount`` stands in ``text`` as an age ("a two-year-old grey") or names a thing
    ("after a night shift", "a day job"), not a span."""
    at = text.find(amount)
    if at < 0:
        return False
    after = text[at + len(amount) :].lstrip(" -").lower()
    if after.startswith("old"):
        return True
    nxt = re.match(r"[a-z]+", after)
    if not nxt or not amount.lower().startswith(("a ", "an ")):
        return False
    pos = parts_of_speech(nxt.group())
    return pos == frozenset({"NOUN"})


def _capitalised_within(answer: str) -> frozenset[str]:
    """Words a case's own line capitalises mid-sentence ("my mare Biscuit", "on Saturday"): in
    authored text, names (of people, animals, places, days) even when they are English words."""
    lex = lexicon()
    return frozenset(
        t.text
        for cut in sentences_of(answer)
        for k, t in enumerate(cut.tokens)
        if k
        and t.capital
        and t.text.isalpha()
        and not t.closed
        and not lex.relation(t.text)
        and not cut.text[t.start - cut.start : t.end - cut.start].isupper()  # "PIN", "ATM"
    )


def name_of(t: Token) -> str:
    """The name a token names, its possessive left off ("Diane's" names Diane)."""
    return t.lemma if t.text.endswith(("'s", "’s")) else t.text


def _abbreviation(word: str) -> bool:
    """A word of two to four capitals ("TV", "PIN", "ATM"): an abbreviation, not a name."""
    return 2 <= len(word) <= 4 and word.isalpha() and word.isupper()


@lru_cache(maxsize=8192)
def fact_index(about: tuple[str, ...], answer: str = "", prose: tuple[str, ...] = ()) -> FactIndex:
    """The index of a fact (``answer`` empty for one held back: only its subject words);
    ``prose``: the user's own material, for :attr:`FactIndex.related`."""
    lex = lexicon()
    written = f"{answer} {' '.join(about)}"
    toks = tokens_of(written)
    content = [t for t in toks if t.text.isalpha() and not t.closed]
    # a name is a name with its possessive ("Naledi's couch" names Naledi); a short word in
    # capitals is an abbreviation ("the TV", "my PIN"), nobody's name
    short = {t.text for t in toks if _abbreviation(written[t.start : t.end])}
    names = frozenset(
        name_of(t) for t in toks if t.capital and not t.english and t.text not in short
    ) | frozenset(
        w for w in about if not lexicon().relation(w) and not known_word(w) and w not in short
    )
    relations = frozenset(r for t in toks if (r := lex.relation(t.text)))
    lemmas = frozenset(t.lemma for t in content)
    M, _ = meanings().matrix(sorted(lemmas))
    vector = None
    if answer:
        from empa_env.offline.semantic.encoder import shared_encoder

        vector = shared_encoder("static").encode([answer])[0]
    # the line's own numbers: its subject words run together ("eleven night" from "at eleven at
    # night") say no span
    said = (tokens_of(answer), answer) if answer else (toks, written)
    amounts = tuple((a.value, a.unit, a.text, a.noun) for a in amounts_in(*said))
    line_words = [t.text for t in said[0]]
    span = any(
        a[1] in DAYS_PER_UNIT
        and not _not_a_span(written, a[2])
        and not says_how_often_or_soon(a[2], line_words)
        for a in amounts
    )
    related = related_lemmas(lemmas, prose) if prose else frozenset()
    answer_toks = tokens_of(answer) if answer else ()
    counted = any(
        t.text.isdigit() or t.text in lex.numbers for t in answer_toks if t.text not in ("a", "an")
    )
    calendar = any(
        t.text in lex.calendar
        or (t.capital and t.text in lex.calendar_capitalised)
        or _YEAR.fullmatch(t.text)
        for t in answer_toks
    )
    # a unit of time stands in every amount of time ("two years", "last week")
    dated = span or calendar or any(t.text in lex.time_units for t in answer_toks)
    return FactIndex(
        lemmas, names, relations, amounts, M, vector, related, about[0] if about else "",
        _capitalised_within(answer), span, dated, calendar, counted, _aged(answer_toks),
    )  # fmt: skip


def _aged(toks: Sequence[Token]) -> frozenset[str]:
    """The names and ties (their relation) within three words of a number of a line."""
    lex = lexicon()
    numbers = [
        k for k, t in enumerate(toks)
        if (t.text.isdigit() and len(t.text) <= 3)
        or (t.text in lex.numbers and t.text not in ("a", "an", "one"))
    ]  # fmt: skip
    out: set[str] = set()
    for k in numbers:
        for t in toks[max(0, k - 3) : k + 4]:
            if t.capital and not t.english:
                out.add(name_of(t))
            elif rel := lex.relation(t.text):
                out.add(rel)
    return frozenset(out)


#: A year ("in 2006", "since 1977").
_YEAR = re.compile(r"(?:1[89]|20)\d\d")


def is_year(value: float) -> bool:
    """Whether a number with no unit may be a year (1800-2100): "came to Dublin in 2006" says no
    age, and a year is never the true count of what a reply counts ("a hundred funerals")."""
    return 1800 <= value <= 2100


def known_word(word: str) -> bool:
    from empa_env.reading.lexicon import is_english_word

    return is_english_word(word)


def word_strengths(question: Question, index: FactIndex) -> tuple[float, ...]:
    """How strongly each content word of ``question`` names something of a fact: 1 for its own
    lemma, a name or a relation that names the same person; :data:`RELATED_WEIGHT` for a word of
    the user's prose that tells the fact in other words; else the closeness of meaning to its
    nearest word, when it reaches :data:`MATCH_SIMILARITY` (0 otherwise)."""
    lex = lexicon()
    m = meanings()
    out = []
    # "over the years", "these days": a unit of time says when or how long, not what about,
    # unless it is all the question names ("How was your week?")
    timed = [t.text in lex.time_units or t.lemma in lex.time_units for t in question.content]
    for t, unit in zip(question.content, timed, strict=True):
        best = 0.0
        rel = lex.relation(t.text)
        if unit and question.asked and not all(timed):
            pass
        elif t.lemma in index.lemmas or t.text in index.names:
            best = 1.0
        elif rel and any(lex.same_person_kind(rel, r) for r in index.relations):
            best = 1.0  # "your mum" and "Mummy"
        elif any(w == t.text and name in index.names for w, name in question.people):
            best = 1.0  # "your daughter" and a line that names her, Valentina
        elif any(_derived(t.lemma, x) for x in index.lemmas):
            best = DERIVED_WEIGHT  # "friends" and "friendship", "withdraw" and "withdrawal"
        elif t.lemma in _KIN and index.relations & _FAMILY:
            best = DERIVED_WEIGHT  # "any relatives?" asks after whoever of theirs
        elif t.lemma in index.related:
            best = RELATED_WEIGHT
        elif len(index.matrix) and (v := m.vector(t.text)) is not None:
            s = float((index.matrix @ v).max())
            best = s if s >= MATCH_SIMILARITY else 0.0
        out.append(best)
    return tuple(out)


#: What a word scores against a word made from the same stem ("friend", "friendship"), or a
#: word for kin in general against a line that names a relation.
DERIVED_WEIGHT = 0.9
#: Suffixes that make one word from another of the same stem.
_SUFFIXES = ("ship", "ness", "ment", "hood", "ful", "less", "ly", "er", "ers", "ing", "ion",
             "ation", "al", "ity", "ive", "ed", "s", "es")  # fmt: skip
#: Words for kin in general ("relatives", "family"): any person of theirs a relation names.
_KIN = word_set("relative relatives relation relations family kin folk folks")
#: The relations that are family (not a friend, a boss, a doctor).
_FAMILY = word_set(
    "mother father parent son daughter child brother sister sibling grandmother grandfather "
    "grandchild husband wife partner ex aunt uncle cousin nephew niece"
)


def _derived(a: str, b: str) -> bool:
    """Whether two lemmas are one stem with a suffix ("friend" / "friendship"; stems of five
    letters or more, so "car" / "care" are not)."""
    if a == b:
        return False
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return len(short) >= 5 and long_.startswith(short) and long_[len(short) :] in _SUFFIXES


def match(question: Question, index: FactIndex, kind: str) -> float:
    """How well a fact of ``kind`` answers ``question`` (0 when nothing of it is named)."""
    score = 0.0
    named = 0
    sentence = question.sentence
    for best in word_strengths(question, index):
        if best:
            named += 1
            score += best
    for w in question.names:
        if w in index.names or w in index.proper:
            score += 0.5  # a name is the strongest pointer there is
    if any(name in index.names for _w, name in question.people):
        score += 0.5  # "your daughter": the line that names her (Karin), not one with a "girl"
    if sentence is not None:
        for a in sentence.amounts:
            if any(a.value == x[0] for x in index.amounts):
                score += 0.5
    if not named and score == 0:
        return 0.0
    fits = ANSWERS.get(question.kind, ())
    # a line with no answer of the kind asked ("How long ...?" and no span in it; "Who ...?" and
    # nobody in it) answers something else about the same things, whatever its kind
    says_it = index.vector is None or says_what_is_asked(question.kind, index)
    if says_it and question.kind == "amount" and "old" in question.words and index.amounts:
        # "How old is she?" is not answered by a year ("came to Dublin in 2006")
        says_it = any(not is_year(a[0]) for a in index.amounts)
        # "How old is Ayaan?": the line that says a number beside him ("Ayaan's nine")
        asked_of = {*question.names, *(x for pair in question.people for x in pair)}
        if says_it and asked_of & index.aged:
            score += 0.5
    if question.kind == "duration" and index.span:
        score += 0.6  # "How long ...?": the line that says a span ("twenty-four years")
    if says_it:
        if fits and kind == fits[0]:
            score += 0.6
        elif kind in fits:
            score += 0.3
        elif question.kind == "who" and index.mentions_person:
            score += 0.4
    if kind == "person" and index.subject and index.subject in (*question.names, *question.words):
        score += 0.5  # "Who is Kyle?": the line that says who Kyle is
    if index.vector is not None and sentence is not None:
        asked = question.content_vector
        if asked is not None:
            score += max(0.0, float(asked @ index.vector) - 0.2)
    return score if says_it else score * ANSWER_KIND_MISSING


#: What is left of the score of a line without the kind of answer a question asks for
#: (:func:`says_what_is_asked`).
ANSWER_KIND_MISSING = 0.5


def says_what_is_asked(kind: str, index: FactIndex) -> bool:
    """Whether a line says what a question of ``kind`` asks for: a span for "how long", a time for
    "when", a number for "how many", a person for "who" (other kinds: any line)."""
    if kind == "duration":
        return index.span
    if kind == "when":
        return index.dated
    if kind == "amount":
        return index.counted
    if kind == "who":
        return index.mentions_person or bool(index.proper)
    return True


#: How much a line of the user's prose (:mod:`~empa_env.offline.user.prose`) falls behind an
#: authored fact line that answers as well: the case's facts say what a question asks for, the
#: prose says everything around it.
PROSE_BEHIND = 0.2


def best_facts(
    question: Question,
    facts: Sequence[Fact],
    prose: tuple[str, ...] = (),
    from_prose: frozenset[str] = frozenset(),
    about_self: frozenset[str] = frozenset(),
) -> list[tuple[float, int]]:
    """``(score, index)`` of each fact for ``question``, best first (``prose``: the user's own
    material, which tells the facts in other words too; ``from_prose``: the answers of facts
    made from that prose, which rank :data:`PROSE_BEHIND` behind; ``about_self``: the answers
    that say who the user is, name, age, work, which answer only a question about the user:
    "How old is your son?" is not asking the user's age)."""
    asked: set[str] = set()
    elsewhere = past = False
    if about_self:  # read once for all the facts about the user
        asked = {t.lemma for t in question.content} | {t.text for t in question.content}
        elsewhere = about_someone_else(question)
        # "What sort of factory did you work in when you came?", "How old were you then?": who
        # they were, not who they are now
        # ("what year were you born, and so how old are you now?" asks their age)
        words = {t.text for t in question.asking}
        past = bool(_PAST_ASKING & words) and not words & {"born", "now"}
    scored = []
    for i, f in enumerate(facts):
        bonus = -PROSE_BEHIND if f.answer in from_prose else 0.0
        if f.answer in about_self:
            hits = None if elsewhere else _self_asked(question, f, asked)
            if hits is None:
                scored.append((0.0, i))
                continue
            bonus = (
                SELF_ASKED if hits and question.kind not in _NOT_SELF_KINDS and not past else 0.0
            )
        scored.append((match(question, fact_index(f.about, f.answer, prose), f.kind) + bonus, i))
    return sorted(scored, key=lambda x: (-x[0], x[1]))


#: How far a fact that says who the user is (name, age, work) moves ahead for a question that
#: asks it in its own words: first ("How old are you?" is not asking when their father died,
#: however near "old" lies to "years ago").
SELF_ASKED = 3.0


#: Kinds of question a fact saying who the user is does not answer ("Who ...?", "When ...?" ask
#: of their story).
_NOT_SELF_KINDS = frozenset({"who", "when", "where", "why", "duration", "tried"})
YOU_WORDS = word_set("you you're youre you'd you've you'll yourself u ya")
#: Words that put a question in the past.
_PAST_ASKING = word_set("did were was used didn't wasn't weren't")


def _self_asked(question: Question, fact: Fact, asked: set[str]) -> set[str] | None:
    """The words by which a question that speaks of no one else (:func:`about_someone_else`)
    asks what a fact about the user themself says ("how old", "your name", "what you do for
    work"); ``None`` when it cannot be asking it: it does not speak to them, or only in words that
    ask something else there ("old" outside "how old": "your old school"; "call" not said of
    them: "what did you call your dog")."""
    if not _speaks_to_them(question, fact):
        return None
    hits = asked & set(fact.about)
    if hits == {"old"} and question.kind != "amount":
        return None
    if hits and hits <= {"call", "address"} and not _addressed_as(question):
        return None
    return hits


def _speaks_to_them(question: Question, fact: Fact) -> bool:
    """Whether a question speaks to the user of what a fact about them says: "you", or "your"
    before what the fact is about ("your name", "your job"; not "how old your opponent was")."""
    texts = [t.text for t in question.asking]
    return any(w in YOU_WORDS for w in texts) or any(
        w in ("your", "ur") and nxt in fact.about for w, nxt in zip(texts, texts[1:], strict=False)
    )


def _addressed_as(question: Question) -> bool:
    """ "What should I call you?", "How would you like me to address you?": the name they go by."""
    texts = [t.text for t in question.asking]
    pairs = zip(texts, texts[1:], strict=False)
    return any(w in ("call", "address") and nxt in ("you", "u") for w, nxt in pairs)


def about_someone_else(question: Question) -> bool:
    """Whether a question asks about someone other than the user: a tie ("your son") or a third
    person ("How old is he?"); not a word of address ("What do you do for work, bro?")."""
    lex = lexicon()
    sentence = question.sentence
    text = sentence.text if sentence is not None else ""
    start = sentence.start if sentence is not None else 0
    words = [t.text for t in question.asking]
    return any(
        t.text in lex.third_person
        or (lex.relation(t.text) and not _after_comma(text, t.start - start))
        for t in question.asking
    ) or _age_of_another(words)


_BE = word_set("is was are were 's")


def _age_of_another(words: Sequence[str]) -> bool:
    """ "How old was the player you lost to?": the age asked is of whoever follows the verb."""
    for k in range(len(words) - 3):
        if words[k] == "how" and words[k + 1] == "old" and words[k + 2] in _BE:
            return words[k + 3] not in YOU_WORDS
    return False


def _after_comma(text: str, at: int) -> bool:
    """Whether the last character before ``at`` that is not a space is a comma."""
    j = min(at, len(text)) - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return j >= 0 and text[j] == ","


# ------------------------------------------------------------------------------------------------
# Mistakes
# ------------------------------------------------------------------------------------------------


def says_how_often_or_soon(amount: str, words: Sequence[str]) -> bool:
    """Whether ``amount`` says how often ("two mornings a week", "ten minutes per day") or how
    soon ("in ten days"), not how long."""
    head = amount.split()[0].lower()
    at = next((k for k, w in enumerate(words) if w == head), -1)
    return (at > 0 and words[at - 1] == "in") or says_how_often(amount, words)


def says_how_often(amount: str, words: Sequence[str]) -> bool:
    """Whether ``amount`` says how often ("two mornings a week", "ten minutes per day")."""
    head = amount.split()[0].lower()
    if head in ("per", "every", "each"):
        return True
    at = next((k for k, w in enumerate(words) if w == head), -1)
    if at > 0 and words[at - 1] in ("every", "per", "each"):
        return True
    lex = lexicon()
    # "a week" after a count of something: so many of it in each week
    return head in ("a", "an") and any(
        w.isdigit() or w in lex.numbers for w in words[max(0, at - 3) : max(0, at)]
    )


__all__ = [
    "ANSWERS",
    "ANSWER_BAR",
    "DAYS_PER_UNIT",
    "PARTNERED_WORDS",
    "YOU_WORDS",
    "FactIndex",
    "about_someone_else",
    "best_facts",
    "fact_index",
    "is_year",
    "known_word",
    "match",
    "name_of",
    "related_lemmas",
    "says_how_often",
    "says_how_often_or_soon",
    "says_what_is_asked",
    "word_strengths",
]
