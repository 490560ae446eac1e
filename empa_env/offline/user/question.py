"""A reply as the simulated user reads it: its questions (what each asks for), a suggestion, a
reflection of them, an apology, thanks, a closing, contempt or dismissal aimed at them, a story of
the writer's own, humour, and whether they can read it at all (another language, gibberish).

:func:`read_reply` reads with the reading the judge uses (:mod:`empa_env.reading`), against the
user's own material (their story, the facts they can tell, what they said so far).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from empa_env.bounded_cache import lru_bytes
from empa_env.offline.guards import contempt_phrase, minimising_phrase
from empa_env.offline.harm import contempt as contempt_in
from empa_env.reading.acts import question_kind
from empa_env.reading.lexicon import lexicon, verb_lemma
from empa_env.reading.reply import ReplyReading, SentenceReading
from empa_env.reading.reply import read_reply as read_by_meaning
from empa_env.reading.tokens import Token, word_set

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


#: Words that ask for a name ("What's the boat called?", "her name").
NAME_ASKED = word_set("name names named called call")
#: The words of :data:`NAME_ASKED` that make a "what" question one for a name; "call" alone does
#: not ("What did you call him?" asks what was said).
_NAMING = word_set("name named called")


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
        return tuple(content_tokens(self.asking))

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
GENERIC_WORDS = word_set(
    "thing things stuff way lot lots bit time times really actually feel feeling felt think know "
    "wonder wondering curious sure mean like want need hard moment right kind sort part whole "
    "first place happen happened happening maybe probably exactly simply else somewhere long "
    "now still going"
)


def content_tokens(tokens: Iterable[Token]) -> list[Token]:
    """The words that say what a question or a fact is about (a possessive counts: "wife's")."""
    return [
        t for t in tokens
        if _alpha(t.text) and not t.closed and len(t.text) > 1 and t.lemma not in GENERIC_WORDS
        and t.text not in GENERIC_WORDS
    ]  # fmt: skip


def _alpha(word: str) -> bool:
    return word.isalpha() or (word.endswith(("'s", "’s")) and word[:-2].isalpha())


#: Words that ask where in a yes/no question ("Is he somewhere near?"), alone or as living near
#: or far ("Does she live close by?").
_SOMEWHERE = word_set("anywhere somewhere nearby")
_LIVING = word_set("live lives living based stay stays staying")
_NEAR_OR_FAR = word_set("near far close away")


def _question_kind(s: SentenceReading, tokens: Sequence[Token] = ()) -> str:
    if tokens:
        kind = question_kind([t.text for t in tokens])
        words = {t.text for t in tokens}
    else:
        kind = s.acts.question_kind or "open"
        words = set(s.words)
    named = kind in ("what", "open") and bool(words & _NAMING)
    if named and not _asks_own_name([t.text for t in tokens] if tokens else list(s.words)):
        # "What's your wife's name?" asks for a person, "What's the boat called?" for a name
        # (before "call" or "ask" make it a question of what was said)
        return "who"
    if kind in ("yesno", "choice") and (
        words & _SOMEWHERE or (words & _LIVING and words & _NEAR_OR_FAR)
    ):  # fmt: skip
        return "where"  # "Does Sipho live anywhere near you?" asks where he lives
    if kind == "how" and "far" in words:
        return "amount"  # "How far is the temple?": a distance
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


#: Verbs that ask for a name or say one was missed ("may I ask", "I didn't catch the name").
_NAME_VERBS = word_set("ask call catch get")


def _asked_about(tokens: Sequence[Token], kind: str) -> tuple[str, ...]:
    """The lemmas of what a question asks about; in a question for a name, not the words that
    ask for it ("What's your daughter's name, if I may ask?" is about the daughter)."""
    words = content_tokens(tokens)
    texts = [t.text for t in tokens]
    if kind == "who" and NAME_ASKED & set(texts) and not _asks_own_name(texts):
        words = [t for t in words if t.text not in NAME_ASKED and t.lemma not in _NAME_VERBS]
    # an -ing form after an auxiliary is the verb ("had you been building it": "build", not the
    # noun "building")
    auxiliaries = lexicon().auxiliaries
    before = {id(t): tokens[k - 1].text for k, t in enumerate(tokens) if k}
    return tuple(
        verb_lemma(t.text)
        if t.text.endswith("ing") and before.get(id(t), "") in auxiliaries
        else t.lemma
        for t in words
    )


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


def people_in(
    s: SentenceReading, tokens: Sequence[Token], names: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """:attr:`Question.people`: the named people its words refer to (a relation or a pronoun
    resolved through the user's world; a name is matched as itself)."""
    starts = {t.start for t in tokens}
    out = [
        (r.word, r.item)
        for r in s.references
        if r.kind == "person" and r.item in names and r.word != r.item and r.start in starts
    ]
    # a tie (an owner's too: "your daughter's name") stands for the one person the user gave it
    lex = lexicon()
    for t in tokens:
        if (rel := lex.relation(t.text)) and not any(w == t.text for w, _ in out):
            tied = [n for n, tie in names.items() if tie and lex.same_person_kind(rel, tie)]
            if len(tied) == 1:
                out.append((t.text, tied[0]))
    return tuple(out)


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
                if k and len(content_tokens(part)) < 2:
                    # "How do you get to the office, and how long does it take you?": the second
                    # asks about what the first named
                    own = (*parts[0], *part)
                    kind = _question_kind(s, part)
                else:
                    kind = _question_kind(s, own)
                questions.append(
                    Question(
                        s.text, kind, _asked_about(own or part, kind),
                        tuple(t.text for t in (own or part)[1:] if t.capital and not t.closed),
                        s, own,
                        people_in(s, own or part, shared.world.names),
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
    content = tuple(dict.fromkeys(t.lemma for t in content_tokens(words)))
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


__all__ = [
    "GENERIC_WORDS", "NAME_ASKED", "Question", "Reading", "content_tokens", "people_in",
    "read_reply",
]  # fmt: skip
