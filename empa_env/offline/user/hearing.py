"""How the simulated user hears a reply: the one reading of it, held against what they know.

:func:`read_reply` reads a reply with the reading the judge uses (:mod:`empa_env.reading`), against
the user's own material (their story, the facts they can tell, what they said so far), and sums
it up as the user takes it: its questions (what each asks for), a suggestion, a reflection of
them, an apology, thanks, a closing, contempt or dismissal aimed at them, a story of the writer's
own, humour, and whether they can read it at all (another language, gibberish).

:func:`hear` holds that reading against the case's facts, by meaning:

* a **question** is matched to the fact it asks for by what its words mean (lemmas, the word-meaning
  table, relations that name the same person, names, numbers, and what the question says in other
  words), and by what kind of answer it wants (who, how long, where, what was said, what was
  tried); a fact the user can tell now is answered, one the plot still holds back is deflected (only
  when it fits clearly better than anything tellable), and a question naming someone or something
  the story lacks is questioned; a fact the case holds is never denied;
* a **mistake** anywhere in the reply (a name, a relation, a number, a duration, a feeling) is found
  with the true value, whatever the sentence's shape;
* a suggestion already tried is recognised.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

import numpy as np

from empa_env.bounded_cache import lru_bytes
from empa_env.cases.schema import Fact, FactKind
from empa_env.offline.guards import contempt_phrase, minimising_phrase
from empa_env.offline.harm import contempt as contempt_in
from empa_env.reading.acts import question_kind
from empa_env.reading.lexicon import lemma, lexicon, meanings, parts_of_speech
from empa_env.reading.reply import ReplyReading, SentenceReading, opposed_feelings
from empa_env.reading.reply import read_reply as read_by_meaning
from empa_env.reading.tokens import Token, sentences_of, tokens_of, word_set
from empa_env.reading.world import Amount, Reference, UserWorld, amounts_in, feeling_family

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
#: A held-back fact is deflected only when it fits this much better than the best tellable one.
DEFLECT_MARGIN = 0.8

#: Words that ask what someone said ("What did she say?", "Do you remember his words?").
_SAID_VERBS = word_set("say said tell told call called text texted write wrote ask asked words")
_TRIED_VERBS = word_set("try tried attempt attempted apply applied")
_DISMISSAL = re.compile(
    r"\b(overreact\w*|(?:not|no) (?:that |such a )?big deal|not that bad|get over it|"
    r"move on|stop (?:complaining|whining|worrying|dwelling|crying|being|feeling)|calm down|"
    r"others have it worse|could be worse|first world problem|it'?s (?:nothing|only|just) "
    r"(?:a|an|some) \w+|everyone (?:goes through|has) (?:this|that)|man up|toughen up|"
    r"cheer up|lighten up|(?<!did you )(?<!kids )(?<!they )(?<!we )(?<!i )grow up(?!\s+(?:in|on|"
    r"at|with|around|near|by|together|there|here|as|without|fast|so|poor|rich|into)\b)|"
    r"suck it up|get a grip|"
    r"deal with it|snap out of it)\b"
)


@dataclass(frozen=True)
class Question:
    """One question (or request) of a reply: its sentence, what it asks for, its content lemmas
    and the names in it."""

    text: str
    kind: str
    words: tuple[str, ...]
    names: tuple[str, ...]
    sentence: SentenceReading | None = None
    #: The words of this question when its sentence asks two ("What's her name, and how long
    #: have you known her?"); empty: the whole sentence.
    tokens: tuple[Token, ...] = ()
    #: ``(word, name)`` for each word of it that speaks of a person the user named, read from its
    #: sentence's references ("your daughter" -> Valentina, "she" -> Lynette).
    people: tuple[tuple[str, str], ...] = ()
    #: False for a sentence of the reply that is not a question, checked against the facts (a
    #: retelling for mistakes, advice for what was tried): there a unit of time ("eight months")
    #: ties it to the fact that says the span; in a question it only asks when or how long.
    asked: bool = True

    @property
    def asking(self) -> tuple[Token, ...]:
        """Its own words: :attr:`tokens` when its sentence asks two, else the sentence's."""
        return self.tokens or (self.sentence.tokens if self.sentence is not None else ())

    @cached_property
    def content(self) -> tuple[Token, ...]:
        """The words that say what it asks about (read once, matched against every fact)."""
        return tuple(_content(self.asking))

    @cached_property
    def content_vector(self) -> np.ndarray | None:
        """The static encoder's vector of :attr:`content` (``None`` without content words)."""
        own = " ".join(t.text for t in self.content)
        if not own:
            return None
        from empa_env.offline.semantic.encoder import shared_encoder

        return shared_encoder("static").encode([own])[0]


@dataclass(frozen=True)
class Reading:
    """What one reply does, as the user hears it (see the module docstring)."""

    text: str
    empty: bool
    short: bool
    questions: tuple[Question, ...]
    suggestion: str
    summary: str
    apology: bool
    goodbye: bool
    contempt: str
    dismissal: str
    own_story: bool
    words: tuple[str, ...]
    names: tuple[str, ...]
    language: str
    #: ``""``, or the language code of a reply the user cannot read (``"unreadable"`` for
    #: gibberish).
    unreadable: str = ""
    thanks: bool = False
    humour: bool = False
    #: The shared reading it was made from (None for an empty reply).
    shared: ReplyReading | None = None

    @property
    def hostile(self) -> bool:
        return bool(self.contempt or self.dismissal)

    @property
    def acts(self) -> tuple[str, ...]:
        """The acts found, by name, in a fixed order (for records and tests)."""
        flags = (
            ("empty", self.empty), ("short", self.short), ("unreadable", bool(self.unreadable)),
            ("goodbye", self.goodbye), ("contempt", bool(self.contempt)),
            ("dismissal", bool(self.dismissal)), ("apology", self.apology),
            ("thanks", self.thanks), ("humour", self.humour),
            ("question", bool(self.questions)), ("suggestion", bool(self.suggestion)),
            ("summary", bool(self.summary)), ("own_story", self.own_story),
        )  # fmt: skip
        return tuple(name for name, present in flags if present)


#: Words too general to say what a question is about (its verbs of doing, saying and going do).
_GENERIC = word_set(
    "thing things stuff way lot lots bit time times really actually feel feeling felt think know "
    "wonder wondering curious sure mean like want need hard moment right kind sort part whole "
    "first place happen happened happening maybe probably exactly simply else somewhere long "
    "now still going"
)


def _content(tokens: Iterable[Token]) -> list[Token]:
    """The words that say what a question or a fact is about (a possessive counts: "wife's")."""
    return [
        t for t in tokens
        if _alpha(t.text) and not t.closed and len(t.text) > 1 and t.lemma not in _GENERIC
        and t.text not in _GENERIC
    ]  # fmt: skip


def _alpha(word: str) -> bool:
    return word.isalpha() or (word.endswith(("'s", "’s")) and word[:-2].isalpha())


def _question_kind(s: SentenceReading, tokens: Sequence[Token] = ()) -> str:
    if tokens:
        kind = question_kind([t.text for t in tokens])
        words = {t.text for t in tokens}
    else:
        kind = s.acts.question_kind or "open"
        words = set(s.words)
    named = kind in ("what", "open") and bool(words & {"name", "named", "called"})
    if named and not _asks_own_name([t.text for t in tokens] if tokens else list(s.words)):
        # "What's your wife's name?" asks for a person, "What's the boat called?" for a name
        # (before "call" or "ask" make it a question of what was said)
        return "who"
    if kind in ("what", "open", "yesno") and words & _SAID_VERBS:
        return "said"
    if kind in ("what", "open", "yesno") and words & _TRIED_VERBS:
        return "tried"
    return "who" if named else kind


#: Words that open the second question of a sentence that asks two ("..., and how long ...").
_SECOND_QUESTION = word_set(
    "what what's who who's whom whose where where's when when's why how how's which did do does "
    "is was are were have has had can could would will"
)


def _asked_about(tokens: Sequence[Token], kind: str) -> tuple[str, ...]:
    """The lemmas of what a question asks about; in a question for a name, not the words that
    ask for it ("What's your daughter's name, if I may ask?" is about the daughter)."""
    words = _content(tokens)
    texts = [t.text for t in tokens]
    if kind == "who" and _NAME_ASKED & set(texts) and not _asks_own_name(texts):
        words = [t for t in words if t.text not in _NAME_ASKED and t.lemma not in ("ask", "call")]
    return tuple(t.lemma for t in words)


#: Word pairs that ask the user's own name ("what's your name?", "what are you called?").
_OWN_NAME = frozenset({("your", "name"), ("you", "called"), ("call", "you"), ("your", "names")})


def _asks_own_name(words: Sequence[str]) -> bool:
    return any(pair in _OWN_NAME for pair in zip(words, words[1:], strict=False))


def _question_parts(s: SentenceReading) -> list[tuple[Token, ...]]:
    """The questions of one sentence: split where ", and" or ", or" opens a second one with a
    question word ("What's your wife's name, and how long have you had the shop?"); one part, the
    whole sentence, otherwise (an either/or choice stays one question)."""
    toks = s.tokens
    for k in range(1, len(toks) - 2):
        if toks[k].text not in ("and", "but") or toks[k + 1].text not in _SECOND_QUESTION:
            continue
        gap = s.text[toks[k - 1].end - s.start : toks[k].start - s.start]
        if "," in gap or ";" in gap:
            return [toks[:k], toks[k + 1 :]]
    return [toks]


def _read_weight(args: tuple, value: object) -> int:  # noqa: ANN001
    return 3000 + 220 * len(args[0]) + 8 * sum(len(t) for t in args[2])


def _people_in(
    s: SentenceReading, tokens: Sequence[Token], names: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """:attr:`Question.people`: the named people its words refer to (a relation or a pronoun
    resolved through the user's world; a name is matched as itself)."""
    starts = {t.start for t in tokens}
    return tuple(
        (r.word, r.item)
        for r in s.references
        if r.kind == "person" and r.item in names and r.word != r.item and r.start in starts
    )


@lru_bytes(24 << 20, _read_weight)
def _read(text: str, code: str, world: tuple[str, ...]) -> Reading:
    stripped = text.strip()
    # the user's whole story and what they said: every name and person of it may come up
    shared = read_by_meaning(stripped, world, code, window=None) if stripped else None
    words = [t for s in (shared.sentences if shared else ()) for t in s.tokens]
    if not stripped or not words:
        return Reading(text, True, True, (), "", "", False, False, "", "", False, (), (), code)
    assert shared is not None
    sentences = shared.sentences
    readable = [s for s in sentences if s.readable]
    lost = sum(len(s.tokens) for s in sentences if not s.readable)
    unreadable = ""
    if lost and lost >= 0.5 * len(words):
        codes = [s.language for s in sentences if not s.readable]
        unreadable = max(set(codes), key=codes.count)
    questions: list[Question] = []
    suggestion = summary = ""
    apology = goodbye = thanks = humour = False
    stories: list[SentenceReading] = []
    names: list[str] = []
    for s in readable:
        acts = s.acts.acts
        names += [t.text for t in s.tokens[1:] if t.capital and not t.closed]
        if "apology" in acts:
            apology = True
        if "thanks" in acts:
            thanks = True
        if "humour" in acts:
            humour = True
        if "closing" in acts:
            goodbye = True
            continue
        if goodbye and ("question" in acts or "request" in acts):
            goodbye = False  # "Take care. What did Rania say, though?" goes on
        asks = "question" in acts or "request" in acts
        if "advice" in acts:
            suggestion = suggestion or s.text
            if not asks or s.acts.question_kind in ("yesno", "open", None):
                continue
        if asks:
            parts = _question_parts(s)
            for k, part in enumerate(parts):
                own = part if len(parts) > 1 else ()
                if k and len(_content(part)) < 2:
                    # "How do you get to the office, and how long does it take you?": the second
                    # asks about what the first named
                    own = (*parts[0], *part)
                    kind = _question_kind(s, part)
                else:
                    kind = _question_kind(s, own)
                questions.append(
                    Question(
                        s.text, kind, _asked_about(own or part, kind),
                        tuple(t.text for t in (own or part)[1:] if t.capital), s, own,
                        _people_in(s, own or part, shared.world.names),
                    )
                )  # fmt: skip
        elif "self_disclosure" in acts and s.addressee == "self" and "apology" not in acts:
            stories.append(s)
        elif s.addressee == "user" and not summary:
            summary = s.text
    hostile = contempt_in(shared)
    contempt = ""
    if hostile:
        found = hostile[0].reason
        m = re.search(r"'([^']+)'", found)
        contempt = m.group(1) if m else hostile[0].quote.split()[-1].strip(".,!?")
    if not contempt:  # said in a stock phrase of contempt ("Nobody cares, grow up.")
        contempt = next((p for s in readable if (p := contempt_phrase(s.text))), "")
    dismissal = ""
    low = " ".join(s.text.lower() for s in readable)
    if m2 := _DISMISSAL.search(low):
        dismissal = m2.group(1)
    else:
        dismissal = next((p for s in readable if (p := minimising_phrase(s.text))), "")
    for phrase in (contempt, dismissal):  # "Grow up." and "Calm down" are not advice
        if phrase and phrase.lower() in suggestion.lower():
            suggestion = ""
    if contempt:
        dismissal = ""  # contempt says more than the making light of it that comes with it
    if not humour and not questions and not goodbye:
        # a joke with no marker word is read by the humour head, and only where the user would
        # meet it with a reaction to humour (a reply that asks gets its answer instead)
        humour = any(s.joke for s in readable)
    # a joke told in the first person ("I'd fight that landlord for you, but I'm made of text") is
    # a joke, not a story of the writer's own
    own_story = any(not (humour and s.joke) for s in stories)
    content = tuple(dict.fromkeys(t.lemma for t in _content(words)))
    short = len(words) <= 2 and not questions
    return Reading(
        text=text, empty=False, short=short and not goodbye, questions=tuple(questions),
        suggestion=suggestion, summary=summary, apology=apology, goodbye=goodbye,
        contempt=contempt, dismissal=dismissal, own_story=own_story, words=content,
        names=tuple(dict.fromkeys(names)), language=code, unreadable=unreadable, thanks=thanks,
        humour=humour, shared=shared,
    )  # fmt: skip


def read_reply(text: str, code: str = "en", world: Sequence[str] = ()) -> Reading:
    """How the user reads ``text``; ``world``: their own material and what they said (the names,
    people and things a reply can speak about)."""
    return _read(text, code, tuple(world))


# ------------------------------------------------------------------------------------------------
# Facts, by meaning
# ------------------------------------------------------------------------------------------------
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
            lem = {t.lemma for t in _content(cut.tokens)}
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


def _name_of(t: Token) -> str:
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
        _name_of(t) for t in toks if t.capital and not t.english and t.text not in short
    ) | frozenset(
        w for w in about if not lexicon().relation(w) and not _known_word(w) and w not in short
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
        a[1] in _DAYS and not _not_a_span(written, a[2]) and not _rate_or_ahead(a[2], line_words)
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
                out.add(_name_of(t))
            elif rel := lex.relation(t.text):
                out.add(rel)
    return frozenset(out)


#: A year ("in 2006", "since 1977").
_YEAR = re.compile(r"(?:1[89]|20)\d\d")


def _known_word(word: str) -> bool:
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
        says_it = any(not 1800 <= a[0] <= 2100 for a in index.amounts)
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
_YOU = word_set("you you're youre you'd you've you'll yourself u ya")
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
    return any(w in _YOU for w in texts) or any(
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
            return words[k + 3] not in _YOU
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


#: Days in a unit of time, to compare spans said in different units ("two years", "24 months").
_DAYS = {"year": 365.0, "decade": 3650.0, "month": 30.4, "fortnight": 14.0, "week": 7.0,
         "day": 1.0, "night": 1.0, "second": 1 / 86400,
         "hour": 1 / 24, "minute": 1 / 1440}  # fmt: skip


def _in_days(value: float, unit: str | None) -> float:
    """A span in days ("two years" -> 730)."""
    return value * _DAYS.get(unit or "", 1.0)


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


def _edit_close(a: str, b: str) -> bool:
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


def _noun_after(amount: str) -> str:
    """The thing an amount without a unit of time counts (its last word when it has one)."""
    words = amount.lower().split()
    return words[-1] if len(words) > 1 and not words[-1].isdigit() else ""


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
        said = {x.lemma for x in _content(_clause_of(s, k))} - {verb} - set(people)
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
            if not said & {x.lemma for x in _content(told)}:
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
    said = {t.lemma for t in _content(sentence.tokens)}

    def tie_in(tokens: Sequence[Token]) -> str:
        for t in tokens:
            if lex.relation(t.text):
                return t.text
            if ties.get(_name_of(t)):
                return ties[_name_of(t)]
        return ""

    shared = [
        (len(said & {t.lemma for t in _content(c)}), c)
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
        if any(lex.relation(t.text) in kin or ties.get(_name_of(t), "") in kin
               for t in tokens_of(f.answer))
    ]  # fmt: skip
    if not holders:
        return None
    q = Question(s.text, "who", tuple(t.lemma for t in _content(s.tokens)), (), s, asked=False)
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
    to_them = any(w in _YOU or w in ("your", "ur") for w in texts)
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
        if t.text == "at" and not any(w in _YOU for w in rest[1:4]):
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
            t.capital and _name_of(t) not in people and _name_of(t) not in story_names
            and t is not s.tokens[0] and len(t.text) > 2
            and not _plural_of(_name_of(t), (*people, *story_names))  # "Thursdays", "Thursday"
            and _name_of(t) not in lex.calendar | lex.calendar_capitalised  # "March" for Marie
        ):  # fmt: skip
            for name, f in [*((n, f) for n, (_, f) in people.items()), *story_names.items()]:
                if _edit_close(t.text, name):
                    return Mistake("name", t.text.capitalize(), name.capitalize(), f)
    # a relation given to a person the user gave another ("your sister Emre")
    for m in s.misreadings:
        if m.what == "relation":
            named = [_name_of(t) for t in s.tokens if _name_of(t) in people]
            world_ties = _ties(shared.world)  # read once: every token is looked up in it
            tied = [tie for t in s.tokens if (tie := world_ties.get(_name_of(t)))]
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
        if not rel or (k and words[k - 1] not in ("your", "ur")):
            continue
        if rel in ("friend", "family", "doctor", "therapist"):
            continue
        if any(lex.same_person_kind(rel, r) for r in shared.world.relations):
            continue
        if rel in lex.relation_groups["partner"] and _PARTNERED & shared.world.vocabulary:
            continue
        q = Question(s.text, "who", tuple(t.lemma for t in _content(s.tokens)), (), s, asked=False)
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
        if _roughly(s.text, a.text) or _rate(a.text, words_said) or _pair(s.text, a):
            continue  # "well over a decade", "three times a week", "you two"
        if a.unit is None and a.value == 1:
            continue  # "one big weekend", "in one go": a single one, seldom a count to contest
        ahead = _rate_or_ahead(a.text, words_said)  # "in two days": against a time ahead only
        if a.unit is None and any(_same_count(a, x) for x in theirs):
            continue  # a count of theirs ("one flat", "at fifteen"), said of something of theirs
        if a.unit is not None and _span_of_theirs(a, theirs):
            continue  # a span of theirs, said of one of the things it was
        if a.value == 1 and a.unit in _LAST and _LAST[a.unit] in said_text:
            continue  # "a month ago" for their "last month"
        if nearest is None:
            q = Question(
                s.text, "what", tuple(t.lemma for t in _content(s.tokens)), (), s, asked=False
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
                        and not _rate(x[2], line)
                        and (not ahead or _rate_or_ahead(x[2], line))]  # fmt: skip
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
                and not _time_of_day(answer, x[2])]  # fmt: skip
            if any(x[0] == a.value for x in same) or _ordinal_in(answer, a.value):
                slip = None
                break
            if same and slip is None:
                kind = "duration" if a.unit else "amount"
                slip = Mistake(kind, a.text, same[0][2], known[i])
        if slip is not None:
            return slip
    return _last_checks(s, known, shared, about_self)


def _last_checks(
    s: SentenceReading, known: Sequence[Fact], shared: ReplyReading, about_self: frozenset[str]
) -> Mistake | None:
    """The checks of a sentence that come after its ties and numbers: a name the user never said,
    then a thing put in the place of theirs."""
    return _unknown_name(s, known, shared, about_self) or _swapped_thing(
        s, known, shared, about_self
    )


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
    return part in pos and "ADJ" not in pos


def _object_word(t: Token) -> bool:
    """A thing after a verb: a noun that is no verb in this form ("music", "trams", "buses";
    not "make" or "pay", which a noun before them may be the doer of)."""
    return _thing_word(t) and ("VERB" not in parts_of_speech(t.text) or t.text.endswith("s"))


@lru_cache(maxsize=4096)
def _anchored(text: str) -> dict[tuple[str, str], tuple[tuple[str, str], ...]]:
    """The two-word phrases of ``text`` that pair a thing with the word beside it ("lamp
    factory", "teaching music"): ``(side, lemma of the word beside) -> ((lemma of the thing,
    the phrase as written), ...)``; side "before" when the thing stands before it."""
    toks = tokens_of(text)
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for a, b in zip(toks, toks[1:], strict=False):
        if text[a.end : b.start].strip(" -"):
            continue  # a mark between them: no phrase
        phrase = text[a.start : b.end]
        if _thing_word(a) and _anchor_word(b, "NOUN"):
            out.setdefault(("before", b.lemma), []).append((a.lemma, phrase))
        if _object_word(b) and _anchor_word(a, "VERB"):
            out.setdefault(("after", a.lemma), []).append((b.lemma, phrase))
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
        theirs = _anchored(f.answer)
        for key, pairs in mine.items():
            for word, phrase in pairs:
                for other, their_phrase in theirs.get(key, ()):
                    if other != word and other not in said:
                        swaps.setdefault(i, []).append((phrase, their_phrase))
    if not swaps:
        return None
    q = Question(s.text, "what", tuple(t.lemma for t in _content(s.tokens)), (), s, asked=False)
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
        if (k or _opens_with_name(s)) and t.capital and (name := _name_of(t)).isalpha()
        and len(name) >= 3
        and not _known_word(name) and name not in world.names and name not in world.vocabulary
        and name not in lex.calendar_capitalised
        and not {name, name.removesuffix("s")} & lex.calendar  # "Thursdays"
    ]  # fmt: skip
    if not candidates:  # most sentences: no capitalised word the user's world lacks
        return None
    said = {t.text for t in toks} | {_name_of(t) for t in toks}
    told = " ".join(f.answer for f in known).lower()
    for k, t in candidates:
        if _name_of(t) in told:
            continue
        place = k > 0 and toks[k - 1].text in _PLACE_BEFORE
        if place and _asks_outright(s):
            continue  # "Did you grow up in Texas?" asks where, to be answered, not set right
        content = tuple(x.lemma for x in _content(toks) if x is not t)
        q = Question(s.text, "what", content, (), s, asked=False)
        ranked = [x for x in best_facts(q, known, about_self=about_self)[:_NAME_FACTS]
                  if x[0] >= ANSWER_BAR]  # fmt: skip
        for _score, i in ranked:
            found = _name_in_fact(t, known[i], place, said, world)
            if found is not None:
                return found
        return None
    return None


#: How many of the facts nearest a sentence are searched for the name it got wrong (the nearest
#: may tell of the same moment without naming anyone: "a year of carrying messages" before "a
#: Cafcass officer sorting Ayaan's arrangements").
_NAME_FACTS = 3


def _opens_with_name(s: SentenceReading) -> bool:
    """Whether the sentence's first word may be a name: a word no dictionary has, not set off by
    a comma or a mark like an interjection ("Carolina asking ..."; not "Gosh, ..." or "Eek!")."""
    toks = s.tokens
    if len(toks) < 2 or _known_word(_name_of(toks[0])):
        return False
    first = re.match(r"\W*[^\W\d_]+(?:['’][^\W\d_]+)?(.?)", s.text)
    return first is not None and first.group(1) not in (",", "!", ".", "?", ";", ":", "-")


def _name_in_fact(
    t: Token, fact: Fact, place: bool, said: set[str], world: UserWorld
) -> Mistake | None:
    """The name ``fact`` gives where the sentence said ``t``: one it tells of the same kind (a
    place after "in", a person otherwise) that the sentence does not say, or, for a person the
    line names only by a tie ("my brother"), the name the user gave that tie."""
    lex = lexicon()
    for truth, its_place in _names_told(fact.answer):
        if its_place == place and not set(truth.lower().split()) & said:
            return Mistake("name", t.text.capitalize(), truth, fact)
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
                    return Mistake("name", t.text.capitalize(), known_as[0].capitalize(), fact)
    return None


def _names_told(answer: str) -> list[tuple[str, bool]]:
    """The names a fact line gives (runs of capitalised words that are not English, "Cape Town"
    whole), each with whether it stands as a place (after "in", "from", ...)."""
    toks = tokens_of(answer)
    out: list[tuple[str, bool]] = []
    k = 0
    while k < len(toks):
        t = toks[k]
        name = _name_of(t)
        place = k > 0 and toks[k - 1].text in _PLACE_BEFORE
        further = k + 1 < len(toks) and toks[k + 1].capital and toks[k + 1].text.isalpha()
        # a word the dictionary has, capitalised mid-line, is a name when a place word leads to it
        # or a name goes on after it ("in Cape Town"); first in the line, only one it lacks
        if t.capital and name.isalpha() and (
            not _known_word(name) or (k and (place or further))
        ):  # fmt: skip
            j = k + 1
            while j < len(toks) and toks[j].capital and toks[j].text.isalpha():
                j += 1
            run = answer[t.start : toks[j - 1].end]
            run = run[:-2] if run.endswith(("'s", "’s")) else run
            out.append((run, place))
            k = j
            continue
        k += 1
    return out


# ------------------------------------------------------------------------------------------------
# Hearing
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Heard:
    """How the user takes one reply."""

    reading: Reading
    #: (question, the known fact it asks for), one per question answered (at most two)
    answered: tuple[tuple[Question, Fact], ...] = ()
    #: (question, index into ``hidden``) for questions about something kept back
    deflected: tuple[tuple[Question, int], ...] = ()
    #: (question, the word the story lacks) for questions about someone or something not in it
    unknown: tuple[tuple[Question, str], ...] = ()
    #: (question, value) for a "how long" no fact answers but the user's own prose does
    values: tuple[tuple[Question, str], ...] = ()
    #: questions about the user that no fact answers (an invitation to go on)
    open: tuple[Question, ...] = ()
    summary_wrong: str = ""
    summary_right: bool = False
    correction: Fact | None = None
    mistake: Mistake | None = None
    tried: Fact | None = None
    engaged: bool = False
    follows_up: bool = False
    off_topic: bool = False
    echo: str = ""
    words: frozenset[str] = field(default_factory=frozenset)

    @property
    def invited(self) -> bool:
        """The reply asks the user to tell more (a question about them, or a true reflection)."""
        return bool(
            self.answered or self.values or self.deflected or self.open or self.summary_right
        )


def _value_in(material: Sequence[str], question: Question) -> str:
    """A duration in the user's own prose for a "how long" no fact answers: in the sentence
    that speaks most about what the question names (else the first one told). A rate ("two
    mornings a week") and a time still to come ("in ten days") say no span."""
    best, found = -1.0, ""
    asked = set(question.words)
    for text in material:
        for cut in sentences_of(text):
            words = [t.text for t in cut.tokens]
            durations = [a for a in amounts_in(cut.tokens) if a.unit in
                         ("year", "month", "week", "day", "decade", "night", "hour")
                         and not _rate_or_ahead(a.text, words)]  # fmt: skip
            if not durations:
                continue
            overlap = len(asked & {t.lemma for t in cut.tokens})
            if overlap > best:
                best, found = overlap, durations[0].text
    return found


def _rate_or_ahead(amount: str, words: Sequence[str]) -> bool:
    """Whether ``amount`` says how often ("two mornings a week", "ten minutes per day") or how
    soon ("in ten days"), not how long."""
    head = amount.split()[0].lower()
    at = next((k for k, w in enumerate(words) if w == head), -1)
    return (at > 0 and words[at - 1] == "in") or _rate(amount, words)


def _rate(amount: str, words: Sequence[str]) -> bool:
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


#: Words that tell the user had a partner though no one is called one ("Widowed since Kemal died").
_PARTNERED = word_set("widow widowed widower married marriage wedding divorce divorced divorcing "
                      "separated engaged anniversary")  # fmt: skip


def _lacking(question: Question, known: Sequence[Fact], hidden: Sequence[tuple[str, ...]],
             world_relations: Iterable[str], world_names: Iterable[str],
             vocabulary: Iterable[str] = ()) -> str:  # fmt: skip
    """A person the question names that the story lacks: a relation no one in it has, or a name
    it never uses (and no fact names either)."""
    lex = lexicon()
    s = question.sentence
    if s is None:
        return ""
    rels = set(world_relations)
    names = set(world_names)
    for f in known:
        idx = fact_index(f.about, f.answer)
        rels |= idx.relations
        names |= idx.names
    for about in hidden:
        for w in about:
            if r := lex.relation(w):
                rels.add(r)
            else:
                names.add(w)
    for k, t in enumerate(s.tokens):
        rel = lex.relation(t.text)
        if (
            rel and k and s.tokens[k - 1].text in ("your", "ur")
            and rel not in ("friend", "family", "doctor", "therapist")
            and not any(lex.same_person_kind(rel, r) for r in rels)
            and not (rel in lex.relation_groups["partner"] and _PARTNERED & set(vocabulary))
        ):  # fmt: skip
            return t.text
        if (
            t.capital and k and not t.english and t.text not in names and t.text.isalpha()
            and not any(_edit_close(t.text, n) for n in names)
        ):  # fmt: skip
            return t.text
    return ""


#: How close in meaning a word must be to the seeds of life events to claim one ("horse", "layoff").
CLAIM_SIMILARITY = 0.5
#: A claimed thing closer than this to a word of the user's story is theirs, in other words.
STORY_SIMILARITY = 0.6


def unfounded_claim(sentence: SentenceReading | None, world: UserWorld) -> str:
    """A thing the sentence claims of the user's life that their story never holds: a content word
    close in meaning to a life event (a death, a pet, a job, a debt) that names nothing they told,
    in their words or others ("your horse died" to a user whose trouble is a locked bank app).
    Feelings and general words are never such claims."""
    if sentence is None or not sentence.readable:
        return ""
    lex = lexicon()
    m = meanings()
    return _unlike_story(
        sentence, world, sorted(world.items),
        lambda t: bool(m.near(t.lemma, lex.life_events, CLAIM_SIMILARITY)),
    )  # fmt: skip


def _unlike_story(
    sentence: SentenceReading,
    world: UserWorld,
    story: Sequence[str],
    fits: Callable[[Token], bool],
) -> str:
    """The first word of ``sentence`` that ``fits``, is none of the user's words, no feeling, no
    empathy or general word, and lies far in meaning from every word of ``story`` (none as near
    as :data:`STORY_SIMILARITY`): a thing of a life they never told."""
    lex = lexicon()
    m = meanings()
    referenced = {r.word for r in sentence.references}
    told = set(world.items) | set(world.vocabulary)
    rows = None
    for t in sentence.tokens:
        if t.closed or not t.english or t.capital or len(t.text) < 3 or not t.text.isalpha():
            continue
        if t.text in referenced or t.lemma in told or t.text in told:
            continue
        if t.lemma in _GENERIC or t.lemma in lex.empathy_vocabulary:
            continue
        if t.text in lex.feeling_family or t.lemma in lex.feeling_family:
            continue
        if not fits(t):
            continue
        v = m.vector(t.lemma)
        if v is None:
            continue
        if rows is None:
            rows = m.matrix(story)[0]
        if len(rows) and float((rows @ v).max()) >= STORY_SIMILARITY:
            continue
        return t.text
    return ""


#: Nouns that name a point or stretch of time, whatever it is of.
_TIME_NOUNS = word_set("date deadline time day schedule season period spell")


def off_story(sentence: SentenceReading | None, world: UserWorld) -> str:
    """A thing a question asks about that has nothing to do with the user's story: a noun of it
    that is no word of theirs and lies far in meaning from every item they told ("films",
    "electric cars", "banana bread"); not a feeling, an empathy word or a general one ("What has
    been the hardest part?" asks about them)."""
    if sentence is None or not sentence.readable or sentence.references:
        return ""
    lex = lexicon()

    def fits(t: Token) -> bool:  # a thing or a pastime ("films", "gardening"), no one of theirs
        return (
            not feeling_family(t.text) and not lex.relation(t.text)
            and ("NOUN" in parts_of_speech(t.text) or t.text.endswith("ing"))
            # a point or stretch of time ("Is the date this summer?") asks when, of anything
            and t.lemma not in _TIME_NOUNS and t.text not in lex.calendar
            and t.text not in lex.time_units
        )  # fmt: skip

    return _unlike_story(sentence, world, sorted(set(world.items) | set(world.vocabulary)), fits)


def _asked_of(word: str, facts: Sequence[Fact]) -> bool:
    """Whether ``word`` (or its lemma) is one of the words a question names to ask for one of
    ``facts`` (their ``about``)."""
    lem = lemma(word)
    return any(word in f.about or lem in f.about for f in facts)


#: Words that ask for a name ("What's the boat called?", "her name").
_NAME_ASKED = word_set("name names named called call")


def _gives(question: Question, fact: Fact) -> bool:
    """Whether a fact holds the kind of thing the question asks for."""
    idx = fact_index(fact.about, fact.answer)
    if question.kind == "who":
        if _NAME_ASKED & {t.text for t in question.asking}:
            return bool(_names_told(fact.answer))  # "What's the boat called?": a name
        return idx.mentions_person
    if question.kind == "when":
        # a day or a date gives it ("on Saturday", "14 December", "a month ago"), as a number
        # does that is no span ("at 26"); "the wedding month" or "fifty years" do not
        return idx.calendar or (bool(idx.amounts) and not idx.span)
    if question.kind in ("duration", "amount"):
        return bool(idx.amounts) or fact.kind == "duration"
    if question.kind == "where":
        return fact.kind == "place" or bool(idx.names)
    return True


def _their_word(ref: Reference, world: UserWorld) -> str:
    """The user's own word for what a reply's word refers to: the reply's word when it is theirs
    (the same lemma, a name, a relation of theirs), else the form they used ("Yes. Glass,
    exactly." for a reply's "window"). A user who confirms a summary speaks of their own life in
    their own words; taking up the reply's word instead would make it theirs to the next reader
    (a frame's own "wonder" echoed back, then credited as something they told)."""
    if ref.kind == "person" or ref.kind == "amount" or ref.strength >= 1.0:
        return ref.word
    item = world.items.get(ref.item)
    return min(item.forms, key=lambda f: (len(f), f)) if item is not None and item.forms else ""


def hear(
    reading: Reading,
    known: Sequence[Fact],
    hidden: Sequence[tuple[str, ...]],
    last_message: str = "",
    hidden_kinds: Sequence[FactKind] = (),
    material: Sequence[str] = (),
    from_prose: frozenset[str] = frozenset(),
    about_self: frozenset[str] = frozenset(),
) -> Heard:
    """Take ``reading`` against what the user knows (see the module docstring); ``from_prose``:
    the answers of the facts of ``known`` made from the user's prose, ``about_self``: those that
    say who the user is (see :func:`best_facts`)."""
    if reading.empty or reading.unreadable:
        return Heard(reading)
    shared = reading.shared
    world_relations = shared.world.relations if shared is not None else {}
    world_names = shared.world.names if shared is not None else {}
    answered: list[tuple[Question, Fact]] = []
    deflected: list[tuple[Question, int]] = []
    unknown: list[tuple[Question, str]] = []
    values: list[tuple[Question, str]] = []
    open_: list[Question] = []
    shifted: list[Question] = []
    hidden_facts = [
        Fact(kind=hidden_kinds[i] if i < len(hidden_kinds) else "event", about=about,
             answer=" ".join(about))
        for i, about in enumerate(hidden)
    ]  # fmt: skip
    prose = tuple(material)
    claimed = ""
    mistake = find_mistake(reading, known, about_self)
    for q in reading.questions:
        if mistake is not None and q.text == mistake.sentence:
            continue  # "So Kyle trained you?" is set right, not answered
        if shared is not None and q.kind in ("yesno", "open") and not claimed:
            # "So you're sad because your horse died?": a check of a story the user never told
            claimed = unfounded_claim(q.sentence, shared.world)
            if claimed and _asked_of(claimed, known):
                claimed = ""  # "Do you work at the moment?": what a fact of theirs is about
            if claimed:
                continue
        ranked = best_facts(q, known, prose, from_prose, about_self)
        best_known = ranked[0] if ranked else (0.0, -1)
        # a held-back fact is known only by its subject words
        held = sorted(
            ((match(q, fact_index(f.about), f.kind), i) for i, f in enumerate(hidden_facts)),
            key=lambda x: (-x[0], x[1]),
        )
        best_hidden = held[0] if held else (0.0, -1)
        taken = {f for _, f in answered}
        if best_hidden[0] >= ANSWER_BAR + 0.6 and best_hidden[0] > best_known[0] + DEFLECT_MARGIN:
            deflected.append((q, best_hidden[1]))
            continue
        if best_known[0] >= ANSWER_BAR:
            fitting = [(sc, i) for sc, i in ranked if sc >= ANSWER_BAR and _gives(q, known[i])]
            # a fact that gives what the question asks for (a person for "who", an amount for
            # "how long") beats a slightly better match that does not
            if fitting and fitting[0][0] >= best_known[0] - 0.8:
                ranked = fitting + [x for x in ranked if x not in fitting]
            for score, i in ranked:
                if score < ANSWER_BAR:
                    break
                if known[i] not in taken:
                    answered.append((q, known[i]))
                    break
            else:
                answered.append((q, known[best_known[1]]))
            continue
        if q.kind == "duration":
            value = _value_in(material, q)
            if value:
                values.append((q, value))
                continue
        lacking = _lacking(
            q, known, hidden, world_relations, world_names,
            shared.world.vocabulary if shared is not None else (),
        )  # fmt: skip
        if lacking:
            unknown.append((q, lacking))
        elif shared is not None and off_story(q.sentence, shared.world):
            shifted.append(q)  # "Have you seen any good films lately?": not about them at all
        else:
            open_.append(q)
    summary_wrong = ""
    summary_right = False
    echo = ""
    correction = mistake.fact if mistake is not None else None
    said_lemmas = shared.world.recent_lemmas if shared is not None else frozenset()
    if reading.summary and mistake is None and shared is not None:
        s = next((x for x in shared.sentences if x.text == reading.summary), None)
        claimed = claimed or unfounded_claim(s, shared.world)
        if not claimed and s is not None and (s.references or s.paraphrase > -0.17):
            summary_right = True
            echo = max((_their_word(r, shared.world) for r in s.references), key=len, default="")
    if mistake is not None:
        summary_wrong = mistake.word
    elif claimed:
        summary_wrong = claimed  # set right with an opening or a fact (the actor's _truth)
    if unknown and known and correction is None:
        correction = next((f for f in known if f.kind != "person"), known[0])
    tried = None
    if reading.suggestion and shared is not None:
        s = next((x for x in shared.sentences if x.text == reading.suggestion), None)
        if s is not None:
            q = Question(
                s.text, "tried", tuple(t.lemma for t in _content(s.tokens)), (), s, asked=False
            )
            for score, i in best_facts(q, known, about_self=about_self):
                if score >= ANSWER_BAR and known[i].kind == "tried":
                    tried = known[i]
                    break
    engaged = bool(shared and any(x.references for x in shared.sentences))
    last = frozenset(t.lemma for t in tokens_of(last_message))
    follows_up = bool(set(reading.words) & last)
    acts = bool(reading.questions or reading.summary or reading.suggestion or reading.apology
                or reading.goodbye or reading.hostile or reading.short or reading.thanks)  # fmt: skip
    off_topic = (
        (reading.own_story and not engaged)
        or (not engaged and not acts and len(reading.words) >= 4)
        or bool(shifted and not answered and not values and not deflected and not open_)
    )
    del said_lemmas
    return Heard(
        reading=reading, answered=tuple(answered[:2]), deflected=tuple(deflected),
        unknown=tuple(unknown), values=tuple(values), open=tuple(open_),
        summary_wrong=summary_wrong, summary_right=summary_right, correction=correction,
        mistake=mistake, tried=tried, engaged=engaged, follows_up=follows_up,
        off_topic=off_topic, echo=echo, words=frozenset(reading.words),
    )  # fmt: skip


__all__ = [
    "ANSWERS", "FactIndex", "Heard", "Mistake", "Question", "Reading", "best_facts",
    "fact_index", "find_mistake", "hear", "match", "read_reply", "says_what_is_asked",
]  # fmt: skip
