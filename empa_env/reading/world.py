"""What the user has told so far, and which of it a sentence speaks about.

:class:`UserWorld` is read from the user's messages (their words only: the judge knows nothing
else of a Reddit poster, and the simulated user's own facts come in through ``extra``): the
**people** they named (names and relations, linked when the text says "my grandson Emre" or "Emre,
my grandson"), the **feelings** they named (by family: "embarrassed" and "humiliated" are one), the
**amounts** they gave ("three days", "twenty-two years") and the **things and events** they spoke
of, each content word weighted by its **salience**: how central it is to what that message is
about (its closeness in meaning to the message's other words), so that a word said in passing
("my socks") weighs little and the subject of the message ("my dad died") much. A thing the user
only took up from the listener's last reply (:func:`borrowed_words`) is the listener's word, not
theirs, and is left out when the reader is given the conversation.

:func:`references` finds what a sentence of a reply speaks about, by meaning and not by a shared
token: the same lemma ("locked" / "the lock"), a word close in meaning ("mum" / "mother",
"scared" / "afraid"), a relation that can name the same person ("your kids" / her daughters), a
name, a number word ("two" / "2"). A word out of its grammatical place ("the without", "about
alone") refers to nothing.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from empa_env.bounded_cache import lru_bytes
from empa_env.reading.lexicon import (
    is_english_word,
    lemma,
    lexicon,
    meanings,
    parts_of_speech,
    verb_lemma,
)
from empa_env.reading.tokens import Token, sentences_of, tokens_of, word_set

#: Closeness of meaning at which a word of a reply refers to a word of the user's.
REFERENCE_SIMILARITY = 0.62
#: Closeness at which a word belongs to a feeling family it is not listed in.
FEELING_SIMILARITY = 0.74
#: Messages of the user read (None: all of them; the fold is kept per conversation, so a turn reads
#: only its new message).
WINDOW: int | None = None


@dataclass(frozen=True)
class Item:
    """A content word the user used (by lemma), how salient it is, and its kind."""

    lemma: str
    forms: frozenset[str]
    kind: str  # "person" | "feeling" | "thing"
    salience: float
    #: Parts of speech the user used it as (NOUN, VERB, ADJ, ...; empty when unknown).
    pos: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Amount:
    """A number the user gave, with its unit of time when it has one ("three days")."""

    value: float
    unit: str | None
    text: str
    #: What an amount without a unit of time counts (the lemma of the noun after it: "people").
    noun: str = ""


@dataclass(frozen=True)
class UserWorld:
    """What the user has told (see the module docstring)."""

    items: dict[str, Item]
    #: Name (lower case) -> relation ("" when none was said).
    names: dict[str, str]
    #: Relation -> names given for it.
    relations: dict[str, tuple[str, ...]]
    #: Feeling families the user named, most recent last.
    feelings: tuple[str, ...]
    amounts: tuple[Amount, ...]
    #: Every word the user used (reading form), for the language check.
    vocabulary: frozenset[str]
    _matrix: np.ndarray = field(repr=False, compare=False, default_factory=lambda: np.zeros(0))
    _rows: tuple[str, ...] = field(repr=False, compare=False, default=())
    #: Lemmas of the user's last two messages, and their static sentence vector (for
    #: :func:`empa_env.reading.reply.paraphrase_of`).
    recent_lemmas: frozenset[str] = frozenset()
    recent_vector: np.ndarray | None = field(repr=False, compare=False, default=None)
    #: The user's last two messages (for the sentence-meaning check of a strong paraphrase).
    recent_text: str = field(repr=False, compare=False, default="")

    def salient(self, top: int = 8) -> list[Item]:
        """The most salient things and events (not people or feelings), most salient first."""
        things = [i for i in self.items.values() if i.kind == "thing"]
        return sorted(things, key=lambda i: (-i.salience, i.lemma))[:top]


@lru_cache(maxsize=100_000)
def feeling_family(word: str) -> str | None:
    """The feeling family of a word: listed, or by meaning close to one family's words."""
    lex = lexicon()
    fam = lex.feeling_family.get(word) or lex.feeling_family.get(lemma(word))
    if fam:
        return fam
    pos = parts_of_speech(word)
    if "ADJ" not in pos or "CLOSED" in pos or word in lex.empathy_vocabulary:
        return None
    return _feeling_by_meaning(word)


def _feeling_by_meaning(word: str) -> str | None:
    m = meanings()
    v = m.vector(word)
    if v is None:
        return None
    best, family = 0.0, None
    for fam, words in _families().items():
        s = float((m.seeds(words) @ v).max()) if len(m.seeds(words)) else 0.0
        if s > best:
            best, family = s, fam
    return family if best >= FEELING_SIMILARITY else None


_FAMILIES: dict[str, frozenset[str]] = {}


def _families() -> dict[str, frozenset[str]]:
    if not _FAMILIES:
        grouped: dict[str, set[str]] = {}
        for w, fam in lexicon().feeling_family.items():
            grouped.setdefault(fam, set()).add(w)
        _FAMILIES.update({k: frozenset(v) for k, v in grouped.items()})
    return _FAMILIES


_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


def amounts_in(tokens: Sequence[Token], text: str = "", offset: int = 0) -> list[Amount]:
    """Numbers (digits or words, "twenty-two" as two words) with the time unit after them; with
    the original ``text`` (which starts at ``offset`` of the text the tokens were cut from) the
    amounts keep its spelling ("twenty-two years")."""
    lex = lexicon()
    out: list[Amount] = []
    i = 0
    while i < len(tokens):
        w = tokens[i].text
        value: float | None = None
        j = i
        if _NUMBER.match(w):
            value = float(w)
        elif w in lex.numbers and w not in ("a", "an", "half") and not _pronoun_one(tokens, i):
            value = lex.numbers[w]
            # "twenty two", "twenty-two"
            if j + 1 < len(tokens) and tokens[j + 1].text in lex.numbers and value >= 20:
                nxt = lex.numbers[tokens[j + 1].text]
                if nxt < 10:
                    value += nxt
                    j += 1
        elif w in ("a", "an") and i + 1 < len(tokens) and tokens[i + 1].text in lex.time_units:
            value = 1.0
        if value is None:
            i += 1
            continue
        # "four hundred", "two million", "25 thousand": one amount
        while j + 1 < len(tokens) and tokens[j + 1].text in _MULTIPLIERS:
            value *= _MULTIPLIERS[tokens[j + 1].text]
            j += 1
        unit = None
        k = j + 1
        while k < len(tokens) and k <= j + 2 and tokens[k].text in ("more", "whole", "long",
                                                                    "full", "and", "a", "half"):  # fmt: skip
            k += 1
        if (
            k < len(tokens) and tokens[k].text in lex.time_units
            and not (k + 1 < len(tokens) and tokens[k + 1].text == "old")
        ):  # fmt: skip
            # "two years", not "a twelve-year-old" (an age, no span)
            unit = lex.time_units[tokens[k].text]
        last = tokens[k] if unit else tokens[j]
        said = (
            text[tokens[i].start - offset : last.end - offset]
            if text
            else " ".join(t.text for t in tokens[i : (k + 1 if unit else j + 1)])
        )
        noun = ""
        if unit is None:
            # the counted noun: "four wrong tries" counts tries (a word that is also an adjective
            # gives way to a plain noun after it)
            nouns = [
                t for t in tokens[j + 1 : j + 3]
                if t.text.isalpha() and not t.closed and "NOUN" in parts_of_speech(t.text)
            ]  # fmt: skip
            plain = [t for t in nouns if "ADJ" not in parts_of_speech(t.text)]
            if nouns:
                noun = (plain or nouns)[0].lemma
        out.append(Amount(value, unit, said, noun))
        i = j + 1
    return out


#: Words that multiply the number before them.
_MULTIPLIERS = {"hundred": 100.0, "thousand": 1000.0, "million": 1e6, "billion": 1e9}
#: Words before "one" that make it a pronoun ("the one whose", "that one", "no one").
_ONE_PRONOUN_BEFORE = word_set("the that this which each every no any some another")
#: Words after "one" that make it a pronoun ("one who", "one another").
_ONE_PRONOUN_AFTER = word_set("who whose that which another")


def _pronoun_one(tokens: Sequence[Token], i: int) -> bool:
    """Whether the "one" at ``i`` stands for someone or something, not a count."""
    if tokens[i].text != "one":
        return False
    before = tokens[i - 1].text if i else ""
    after = tokens[i + 1].text if i + 1 < len(tokens) else ""
    return before in _ONE_PRONOUN_BEFORE or after in _ONE_PRONOUN_AFTER


def _ex_or(toks: Sequence[Token], k: int, rel: str | None) -> str | None:
    """``rel``, the relation the word at ``k`` names, or "ex" after a joined "ex"."""
    if rel and k > 0 and toks[k - 1].text == "ex" and toks[k - 1].end == toks[k].start - 1:
        return "ex"
    return rel


def _names_and_relations(
    texts: Sequence[str], code: str
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Names (capitalised words that are not sentence-initial English words) and the relation the
    text gives each one ("my grandson Emre", "Emre, my grandson", "Emre is my grandson")."""
    lex = lexicon()
    names: dict[str, str] = {}
    relations: dict[str, list[str]] = {}
    for text in texts:
        for cut in sentences_of(text, code):
            toks = cut.tokens
            named = [lex.relation(t.text) for t in toks]  # each word's relation, read once
            at = [_ex_or(toks, k, r) for k, r in enumerate(named)]
            for k, t in enumerate(toks):
                rel = at[k]
                if rel and not t.capital:
                    relations.setdefault(rel, [])
                # a name with its possessive names the person ("Dona Amélia's voice")
                possessive = t.text.endswith(("'s", "’s"))
                name = t.text[:-2] if possessive else t.text
                if not t.capital or not name.isalpha() or len(name) < 2:
                    continue
                if name in lex.closed or name in ("i",):
                    continue
                english = is_english_word(name) if possessive else t.english
                if k == 0 and english:
                    continue
                if (
                    english
                    and named[k] is None
                    and k > 0
                    and toks[k - 1].text not in ("my", "named", "called")
                    and not named[k - 1]
                ):
                    # a capitalised common word mid-sentence ("the Bank") is not a name unless
                    # the text names it ("my friend Rose", "called Hope", "her boss Grace")
                    continue
                names.setdefault(name, "")
                # "my grandson Emre" / "grandson Emre"
                if k > 0 and (tie := at[k - 1]):
                    names[name] = tie
                # "Emre, my grandson" / "Emre is my grandson" / "Emre (my grandson)"
                window = [x.text for x in toks[k + 1 : k + 5]]
                for j in range(len(window)):
                    r = at[k + 1 + j]
                    if r and ("my" in window or "is" in window or "was" in window):
                        names[name] = names[name] or r
                        break
            for name, rel in names.items():
                if rel:
                    relations.setdefault(rel, [])
                    if name not in relations[rel]:
                        relations[rel].append(name)
    return names, relations


#: Base salience by the part of speech a word can take: what a message is about is mostly its
#: nouns; its verbs say what happened; adjectives and adverbs colour it.
_POS_SALIENCE = (("NOUN", 0.7), ("PROPN", 0.7), ("VERB", 0.5), ("ADJ", 0.35), ("ADV", 0.15))


def _salience(tokens: Sequence[Token]) -> dict[str, float]:
    """Salience in [0, 1] of each content lemma of one message: a base for its part of speech,
    moved up or down by its closeness in meaning to the message's other content words (its gist)."""
    m = meanings()
    lex = lexicon()
    content = [
        t for t in tokens
        if t.text.isalpha() and not t.closed and t.lemma not in lex.empathy_vocabulary
        and len(t.text) > 1
    ]  # fmt: skip
    lemmas = list(dict.fromkeys(t.lemma for t in content))
    if not lemmas:
        return {}
    out: dict[str, float] = {}
    for w in lemmas:
        pos = parts_of_speech(w)
        out[w] = next((s for p, s in _POS_SALIENCE if p in pos), 0.6)
    M, where = m.matrix(lemmas)
    if len(where) >= 3:
        rest = M.sum(axis=0)[None, :] - M  # each word's gist: the others' summed meaning
        cents = np.einsum("ij,ij->i", M, rest) / np.maximum(np.linalg.norm(rest, axis=1), 1e-6)
        for k, i in enumerate(where):
            out[lemmas[i]] = min(1.0, max(0.05, out[lemmas[i]] + 1.5 * (float(cents[k]) - 0.12)))
    return out


#: Words that, after "good" at the start of a sentence, greet ("Good evening") and say nothing
#: the user talks about.
_GREETING_TIMES = word_set("morning afternoon evening night day")
#: Words that address the listener when set off by a comma ("Thanks, mate!").
_ADDRESS_TERMS = word_set(
    "mate buddy pal dude man bro sis love honey dear sweetie sweetheart friend guys"
)


def _greets_or_addresses(toks: Sequence[Token], text: str, k: int) -> bool:
    """Whether the word at ``k`` greets or addresses the listener rather than tells of something:
    "evening" in "Good evening", "friend" in "I am stuck, my friend." or "Thanks, mate!" (set off
    by a comma, after "my" or "dear" or itself a term of address, closing its sentence or
    clause)."""
    t = toks[k]
    if (
        t.text in _GREETING_TIMES
        and k > 0
        and toks[k - 1].text == "good"
        and (k == 1 or any(c in text[toks[k - 2].end : toks[k - 1].start] for c in ".!?,"))
    ):
        return True
    j = k - 1
    if j >= 0 and toks[j].text in ("my", "dear"):
        j -= 1
    elif t.text not in _ADDRESS_TERMS:
        return False  # "My friend, Ama, told me": a name set off by commas tells who
    before = text[toks[j].end : toks[j + 1].start] if j >= 0 else ""
    after_end = toks[k + 1].start if k + 1 < len(toks) else len(text)
    after = text[t.end : after_end]
    return j >= 0 and "," in before and (any(c in after for c in ".!?,") or k + 1 == len(toks))


@dataclass(frozen=True)
class _Message:
    """What one user message contributes to the world (computed once per message)."""

    tokens: tuple[Token, ...]
    names: dict[str, str]
    relations: dict[str, list[str]]
    amounts: tuple[Amount, ...]
    #: (key, lemma-or-name, kind, salience before decay, parts of speech, surface form, feeling)
    entries: tuple[tuple[str, str, float, frozenset[str], str, str | None], ...]


def _message_weight(args: tuple, value: object) -> int:  # noqa: ANN001
    return 600 + 60 * len(args[0])


@lru_bytes(8 << 20, _message_weight)
def _message(text: str, code: str) -> _Message:
    lex = lexicon()
    names, relations = _names_and_relations((text,), code)
    toks = tokens_of(text, code)
    sal = _salience(toks)
    entries = []
    for k, t in enumerate(toks):
        if not t.text.isalpha() or t.closed or len(t.text) < 2 or t.text in lex.numbers:
            continue
        if _greets_or_addresses(toks, text, k):
            continue
        fam = feeling_family(t.text) if not t.capital or k == 0 else None
        rel = lex.relation(t.text)
        if t.text in names or rel:
            kind, sv = "person", 1.0
        elif fam:
            kind, sv = "feeling", 1.0
        elif t.lemma in lex.empathy_vocabulary:
            continue
        else:
            kind, sv = "thing", sal.get(t.lemma, 0.3)
            if k > 0 and toks[k - 1].text in ("my", "our"):
                sv = min(1.0, sv + 0.2)  # "my X": the user's own thing
        key = t.lemma if kind != "person" or rel else t.text
        entries.append((key, kind, sv, parts_of_speech(t.text) - {"CLOSED"}, t.text, fam))
    return _Message(toks, names, relations, tuple(amounts_in(toks, text)), tuple(entries))


@dataclass(frozen=True)
class _Fold:
    """The user's messages folded so far (what :func:`_world` extends by one message)."""

    names: dict[str, str]
    relations: dict[str, tuple[str, ...]]
    acc: dict[str, Item]
    feelings: tuple[str, ...]  # most recent first
    amounts: tuple[Amount, ...]
    vocabulary: frozenset[str]


_EMPTY = _Fold({}, {}, {}, (), (), frozenset())


#: Bytes an :class:`Item` first made by a fold holds (the object, its forms and its parts of
#: speech), counted at the fold that makes it.
ITEM_BYTES = 400


def _fold_weight(args: tuple, value: _Fold) -> int:  # noqa: ANN001
    """What a fold adds to what its prefix's fold holds: its own containers (each fold copies the
    accumulated dicts and sets), the key's tuple, the newest message and the items that message
    may add. (The earlier messages and items are held, and were counted, by the prefix's entry:
    counting every message's characters again at every length made the cache hold a tenth of
    what its budget allows, and rebuild the same prefixes over and over in lockstep play.)"""
    texts, code = args[0], args[1]
    if not texts:
        return 1000
    own = (value.names, value.relations, value.acc, value.vocabulary, value.feelings, value.amounts)
    return (
        1000 + sys.getsizeof(texts) + sys.getsizeof(texts[-1])
        + sum(sys.getsizeof(x) for x in own)
        + ITEM_BYTES * len(_message(texts[-1], code).entries)
    )  # fmt: skip


@lru_bytes(24 << 20, _fold_weight)
def _fold(texts: tuple[str, ...], code: str) -> _Fold:
    """The messages folded, each added to the fold of the ones before it (cached: a conversation
    adds one message a turn, so each turn reads one new message)."""
    if not texts:
        return _EMPTY
    before = _fold(texts[:-1], code)
    msg = _message(texts[-1], code)
    names = dict(before.names)
    for name, rel in msg.names.items():
        if rel or name not in names:
            names[name] = rel or names.get(name, "")
    relations = dict(before.relations)
    for rel, who in msg.relations.items():
        old = relations.get(rel, ())
        relations[rel] = old + tuple(w for w in who if w not in old)
    acc = dict(before.acc)
    feelings = list(before.feelings)
    for key, kind, sv, pos, form, fam in msg.entries:
        if fam:
            if fam in feelings:
                feelings.remove(fam)
            feelings.insert(0, fam)
        had = acc.get(key)
        if had is None:
            acc[key] = Item(key, frozenset({form}), kind, sv, pos)
        elif sv > had.salience or form not in had.forms or not pos <= had.pos:
            acc[key] = Item(key, had.forms | {form}, had.kind, max(had.salience, sv), had.pos | pos)
    return _Fold(
        names, relations, acc, tuple(feelings), before.amounts + msg.amounts,
        before.vocabulary | {t.text for t in msg.tokens},
    )  # fmt: skip


#: Distinct content words from which a message tells something (a paraphrase of the user is read
#: against their last two such messages).
TELLS = 3


def _world_weight(args: tuple, value: UserWorld) -> int:  # noqa: ANN001
    """What a world adds to its fold's (see :func:`_fold_weight`): its word-vector matrix, the
    recent words, text and vector, and its items when it leaves borrowed ones out."""
    own = [args[0], value.recent_lemmas, value.recent_text, value._rows]
    if len(args) > 2 and args[2]:
        own += [value.items, args[2]]
    vector = value.recent_vector.nbytes if value.recent_vector is not None else 0
    return 1000 + value._matrix.nbytes + vector + sum(sys.getsizeof(x) for x in own)


@lru_bytes(8 << 20, _world_weight)
def _world(texts: tuple[str, ...], code: str, borrowed: frozenset[str] = frozenset()) -> UserWorld:
    fold = _fold(texts, code)
    items = fold.acc
    if borrowed:
        items = {k: i for k, i in items.items() if i.kind != "thing" or k not in borrowed}
    rows = tuple(k for k in items if items[k].kind != "person")
    M, where = meanings().matrix(rows)
    matrix = np.zeros((len(rows), meanings().dim), np.float32)
    if where:
        matrix[where] = M
    recent = texts[-2:]
    recent_lemmas = frozenset(t.lemma for text in recent for t in _message(text, code).tokens)
    # what a reply can say back in other words is what they last told: the last two messages
    # that tell something (a short "Exactly that." or "That helps a little." has nothing to say
    # back, and a stock line lies near it as near any small talk)
    told = [t for t in texts if len({e[0] for e in _message(t, code).entries}) >= TELLS]
    recent_text = " ".join(told[-2:] or recent)
    recent_vector = None
    if recent:
        from empa_env.offline.semantic.encoder import shared_encoder

        recent_vector = shared_encoder("static").encode([recent_text])[0]
    return UserWorld(
        recent_lemmas=recent_lemmas,
        recent_vector=recent_vector,
        recent_text=recent_text,
        items=items,
        names=fold.names,
        relations=fold.relations,
        feelings=fold.feelings,
        amounts=fold.amounts,
        vocabulary=fold.vocabulary,
        _matrix=matrix,
        _rows=rows,
    )


def user_world(
    user_texts: Iterable[str],
    code: str = "en",
    window: int | None = WINDOW,
    borrowed: frozenset[str] = frozenset(),
) -> UserWorld:
    """The world of the user's last ``window`` non-empty messages (all with ``None``), without
    the things whose words are ``borrowed`` (see :func:`borrowed_words`)."""
    texts = tuple(t for t in user_texts if t and t.strip())
    return _world(texts[-window:] if window else texts, code, borrowed)


def borrowed_words(turns: Iterable[tuple[str, str]], code: str = "en") -> frozenset[str]:
    """Lemmas the user first said right after the listener had said them: words of the
    listener's own that the user took up ("Right, weighing." after "It sounds like the list is
    weighing on you"; "It brings up a lot." after "What does that bring up for you?").
    ``turns``: ``(role, text)`` in order, ``role`` "user" or "assistant".

    A thing named that way is the listener's word handed back, not something the user told: a
    later reply that speaks of it speaks of its own words (a frame's own "bring" or "weighing",
    taken up once, would otherwise ground every later use of the frame). People and feelings
    the user takes up stay theirs (a feeling said back and confirmed is theirs)."""
    said: set[str] = set()
    borrowed: set[str] = set()
    listener: frozenset[str] = frozenset()
    for role, text in turns:
        if not text or not text.strip():
            continue
        lemmas = {t.lemma for t in tokens_of(text, code) if t.text.isalpha() and not t.closed}
        if role == "user":
            borrowed |= (lemmas - said) & listener
            said |= lemmas
            listener = frozenset()
        else:
            listener = frozenset(lemmas)
    return frozenset(borrowed)


# ------------------------------------------------------------------------------------------------
# References
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reference:
    """A word of a reply sentence that speaks about something the user told."""

    word: str
    start: int
    end: int
    item: str
    kind: str  # "person" | "feeling" | "thing" | "amount"
    #: Closeness of meaning (1 for the same lemma, relation or name).
    strength: float
    #: How central the item is to what the user said (see :class:`Item`).
    salience: float

    @property
    def weight(self) -> float:
        return self.strength * self.salience


_NOUN_SLOT = word_set(
    "the a an your my his her their our its this that these those some any no every each another"
)
_VERB_SLOT = word_set(
    "to do does did don't doesn't didn't will won't would wouldn't can can't could couldn't "
    "should shouldn't must might may"
)
_STATE_SLOT = word_set("so very too feel feels felt feeling seem seems seemed")
#: Words that follow a subject: the word before them must be able to be one.
_SUBJECT_NEXT = word_set(
    "will would can could should must might may won't wouldn't can't couldn't shouldn't is was "
    "keeps has does seems sounds comes goes makes isn't wasn't hasn't doesn't"
)


#: Words after which a verb stands as the verb of its subject: subject pronouns and "that",
#: "this", "who", "which" as pronouns ("where you live", "That says a lot", "the things that made
#: you").
_SUBJECT_BEFORE_VERB = word_set("i you we they he she it that this who which")
#: Third-person singular verbs: the word before them, when it is their subject, is no plural.
_AGREES_SINGULAR = word_set(
    "is was keeps has does seems sounds comes goes makes isn't wasn't hasn't doesn't"
)
#: Verbs an adjective follows as their complement ("feel proud", "got angry", "stays quiet"),
#: by lemma; after any other verb an adjective stands only to open a noun phrase ("carrying heavy
#: bags"), never alone ("carrying proud for years").
_TAKES_ADJECTIVE = word_set(
    "be feel seem look sound become get grow stay remain keep go turn come appear prove end fall "
    "act make leave find consider call think believe sit stand lie run break set hold play say "
    "die marry taste smell wear ring rest wait sleep wake arrive return walk live hang cut paint "
    "want like need prefer do"
)
#: Words an adjective that stands after a noun can open its complement with ("a morning full of
#: calls", "kids ready to go").
_COMPLEMENT_OPENERS = word_set("of to with enough")


#: An adjective that is as much an adverb ("living alone", "doing fine").
_ALSO_ADVERB = word_set("alone")


def _adjective_only(word: str, pos: frozenset[str]) -> bool:
    """Whether a word is an adjective and nothing else a sentence can use after a verb: one the
    lexicon knows only as an adjective, or a feeling adjective it also lists as an adverb
    ("proud"); not one a verb takes as its adverb ("working hard", "living alone")."""
    if pos == frozenset({"ADJ"}):
        return True
    return (
        pos == frozenset({"ADJ", "ADV"}) and word not in _ALSO_ADVERB and bool(feeling_family(word))
    )


def _verb_form(t: Token) -> bool:
    """Whether a word is a verb in an inflected form that only a verb has here: a participle or
    a past ("carrying", "carried", "kept"), not a base or an -s form a noun shares ("make your
    father proud", "see the kids happy")."""
    if "VERB" not in parts_of_speech(t.text) or t.capital:
        return False
    return t.text.endswith("ing") or (t.text != verb_lemma(t.text) and not t.text.endswith("s"))


def in_place(tokens: Sequence[Token], k: int, names: Container[str] | None = None) -> bool:
    """Whether the word at ``k`` stands where its part of speech can stand: a noun slot (after a
    determiner, a possessive or a preposition) takes a noun, an adjective or a gerund; a verb
    slot (after "to" or an auxiliary) a verb, unless a bare verb follows it (then it is the
    subject of a question, "What does ___ bring up?", where a word that can be an adjective or a
    number alone is out of place); a state slot ("so", "feel") an adjective or a
    participle; a subject slot (before "keeps", "would", "is") a noun, a pronoun or a gerund,
    and not, without a determiner, a word that is an adjective or a noun only ("silly is");
    an adjective in a noun slot must open a noun phrase ("think about sad?" is out of place);
    a plural noun is no subject of a singular verb ("No wonder years keeps coming back"), unless
    a number measures it ("Five years is a long time"); an adjective after a verb that takes none
    as its complement must open a noun phrase ("You've been carrying proud for a long time" is
    out of place). Words the lexicon does not know (names, rare words) are taken as they come, and
    so is a capitalised word: a name, or, with ``names`` given (the user's names), only one of
    those or a word the lexicon does not know ("No wonder Honestly keeps coming back", the first
    word of their message, is read as the adverb it is)."""
    t = tokens[k]
    lex = lexicon()
    pos = parts_of_speech(t.text)
    if t.text.isdigit() or t.text in lex.numbers:
        pos = frozenset({"NUM"})
    if not pos:
        return True
    if t.capital and "'" not in t.text and (names is None or t.text in names):
        return True  # a capital is a name; "You're" never is
    # a mark between two words ("speak 'normal' is", "doesn't ask: caring") parts them: the word
    # beside it is no neighbour in the sentence's grammar
    nxt = tokens[k + 1].text if k + 1 < len(tokens) and tokens[k + 1].start - t.end <= 1 else ""
    if k > 0 and t.start - tokens[k - 1].end > 1:
        return True
    prev = tokens[k - 1].text if k > 0 else ""
    if lex.relation(t.text):
        return True  # a tie of theirs is a noun wherever it stands ("your pa")
    if "VERB" in pos and prev in _SUBJECT_BEFORE_VERB:
        return True  # a verb after its subject ("where you live has landed", "that made you")
    participle = t.text != verb_lemma(t.text) and not t.text.endswith(("s", "ing"))
    if participle and prev in _NOUN_SLOT and parts_of_speech(nxt) & {"NOUN", "ADJ"}:
        return True  # a participle opening a noun phrase ("a rated game", "the broken one")
    before = parts_of_speech(prev) if k > 0 else frozenset()
    if ("ADJ" in pos or participle) and (
        ("CLOSED" in before and verb_lemma(prev) == "be")
        or ("VERB" in before and verb_lemma(prev) in _TAKES_ADJECTIVE)
    ):
        # the complement of a verb that takes one ("feeling proud is fair", "being scared is no
        # surprise")
        return True
    if (
        nxt in _AGREES_SINGULAR and "NOUN" in pos and t.text != t.lemma and t.text.endswith("s")
        and not prev.isdigit() and prev not in lex.numbers and prev != "of"
    ):  # fmt: skip
        return False  # "No wonder years keeps coming back to you": no subject of "keeps"
    if (
        k > 0 and _adjective_only(t.text, pos) and _verb_form(tokens[k - 1])
        and verb_lemma(prev) not in _TAKES_ADJECTIVE and nxt not in _COMPLEMENT_OPENERS
        and not (nxt and parts_of_speech(nxt) & {"NOUN", "ADJ", "PROPN"})
    ):  # fmt: skip
        return False  # "You've been carrying proud for a long time": no object, no complement
    if nxt in _SUBJECT_NEXT and not pos & {"NOUN", "PROPN", "PRON", "NUM"}:
        return t.text.endswith("ing")  # "No wonder beautiful keeps coming back": no subject
    if (
        nxt in _SUBJECT_NEXT and "ADJ" in pos and pos <= {"ADJ", "NOUN"}
        and (k == 0 or tokens[k - 1].text not in _NOUN_SLOT)
    ):  # fmt: skip
        return False  # "It sounds like silly is weighing on you": an adjective, bare, as subject
    if k == 0:
        return True
    if prev == "to" and "VERB" in pos:
        return True  # "to" before a verb marks it ("afraid to tell her"), as a preposition does not
    if prev in _NOUN_SLOT or prev in lex.prepositions:
        if pos & {"NOUN", "PROPN", "NUM"} or t.text.endswith("ing"):
            return True
        # an adjective there opens a noun phrase ("about the lonely nights"); last in the
        # sentence it stands where a noun must ("think about sad?")
        return "ADJ" in pos and bool(nxt)
    if prev in _VERB_SLOT:
        after = parts_of_speech(nxt) if nxt else frozenset()
        if prev != "to" and after == frozenset({"VERB"}) and nxt == verb_lemma(nxt):
            # "What does ___ bring up?": the auxiliary and a bare verb around it make it the
            # subject, where a bare noun, a pronoun or a gerund stands ("What does folded bring
            # up"); a word that can be an adjective is one there ("What does small bring up"),
            # and a number alone names nothing ("What does five bring up")
            if t.text.endswith("ing"):
                return True
            return bool(pos & {"NOUN", "PROPN", "PRON"}) and "ADJ" not in pos
        return "VERB" in pos or "ADV" in pos or "CLOSED" in pos
    if prev in _STATE_SLOT:
        return bool(pos & {"ADJ", "VERB", "ADV", "NOUN"})
    return True


#: A pronoun contracted with "is" or "has" (a subject and its verb in one word).
PRONOUN_IS = word_set("it's that's he's she's there's here's what's who's where's")
#: Verbs that agree with a third-person singular subject only (no noun reading in common use).
_THIRD_SINGULAR = word_set("keeps seems is has does isn't hasn't doesn't")
#: Words that cannot stand as the subject right before such a verb: subject pronouns of another
#: person ("I keeps"), object pronouns ("him keeps"), determiners without their noun ("the
#: keeps"), modals ("would is"), and any contraction of a pronoun with its verb
#: ("I'm keeps", "That's keeps").
_NOT_SUBJECT = word_set(
    "i you we they me him us them the a an my your our their her its every will would can could "
    "should might must shall may"
)


#: Words that cannot stand right before a full verb of the third person singular ("keeps",
#: "seems", "has", "does"; not "is" or "was", which follow them in "All he did was call"): a
#: negation or a form of "do" ("No wonder did keeps coming back", "Not keeps").
_NOT_BEFORE_FULL_VERB = word_set("not do did don't didn't doesn't")
#: Those full verbs.
_FULL_THIRD_SINGULAR = word_set("keeps seems has does")


_OBJECT_PRONOUNS = word_set("me you him her us them")
#: Verbs a clause follows, not an object ("I think them seems far" has no subject).
_CLAUSE_VERBS = word_set("think know believe guess hope suppose feel wonder bet reckon imagine")


def no_subject(tokens: Sequence[Token], k: int) -> bool:
    """Whether the word at ``k`` stands before a verb that needs a third-person singular subject
    and cannot be that subject (see :data:`_NOT_SUBJECT` and :data:`_NOT_BEFORE_FULL_VERB`; a
    number other than "one" is none before "keeps": "No wonder five keeps coming back"): a
    word set where no English sentence has one ("No wonder I'm keeps coming back to you"),
    whoever's word it is."""
    if k + 1 >= len(tokens) or tokens[k + 1].text not in _THIRD_SINGULAR:
        return False
    w = tokens[k].text.replace("’", "'")
    if (
        k
        and w in _OBJECT_PRONOUNS
        and (
            tokens[k - 1].text in lexicon().prepositions
            or (
                "VERB" in parts_of_speech(tokens[k - 1].text)
                and verb_lemma(tokens[k - 1].text) not in _CLAUSE_VERBS
            )
        )
    ):
        # "one of them has", "believed in you is", "what you told me is": an object, the
        # subject stands before it
        return False
    if w in _NOT_SUBJECT:
        return True
    verb = tokens[k + 1].text
    if verb in _FULL_THIRD_SINGULAR and w in _NOT_BEFORE_FULL_VERB:
        return True
    if verb == "keeps" and w != "one" and (w.isdigit() or w in lexicon().numbers):
        return True  # ("Thirty seems so young" and "Five has been hard" are sentences)
    lex = lexicon()
    pronoun = lex.first_person | lex.second_person | lex.third_person
    return ("'" in w and w in pronoun) or w in PRONOUN_IS


#: Words after which the user's word is a state of theirs, an adjective or a participle ("I feel
#: stuck", "nobody gets hurt", "I'm so cross").
_STATE_BEFORE = word_set(
    "feel feels felt feeling am i'm im is was were be been being get gets got getting so very too "
    "really seem seems seemed look looks looked sound sounds"
)


@lru_cache(maxsize=4096)
def _states_in(text: str) -> frozenset[str]:
    """The words ``text`` uses as a state (see :data:`_STATE_BEFORE`), never as a noun (after a
    determiner)."""
    toks = tokens_of(text)
    states = {
        t.text for prev, t in zip(toks, toks[1:], strict=False)
        if prev.text in _STATE_BEFORE and parts_of_speech(t.text) & {"ADJ", "VERB"}
    }  # fmt: skip
    nouns = {t.text for prev, t in zip(toks, toks[1:], strict=False) if prev.text in _NOUN_SLOT}
    return frozenset(states - nouns)


def slotted(tokens: Sequence[Token], world: UserWorld) -> bool:
    """Whether a content word of the user's own stands out of its grammatical place in the
    sentence ("No wonder beautiful keeps coming back to you"), or any word stands where no
    subject can (:func:`no_subject`, "No wonder I'm keeps coming back to you"): a stock frame with
    a word slotted in, which says nothing of them in other words either. A word they said as a
    state of theirs ("I feel stuck") set alone after a preposition, as a noun that opens nothing,
    is one too ("How are you holding up with stuck?")."""
    states: frozenset[str] | None = None
    for k, t in enumerate(tokens):
        if no_subject(tokens, k):
            return True
        if (
            t.text.isalpha()
            and not t.closed
            and (t.text in world.vocabulary or t.lemma in world.recent_lemmas)
        ):
            if not in_place(tokens, k, world.names):
                return True
            if k and tokens[k - 1].text in lexicon().prepositions:
                nxt = tokens[k + 1].text if k + 1 < len(tokens) else ""
                if not nxt or not parts_of_speech(nxt) & {"NOUN", "ADJ", "PROPN"}:
                    if states is None:
                        states = _states_in(world.recent_text)
                    if t.text in states:
                        return True
    return False


_FEMALE_PRONOUNS = word_set("she her hers herself she's she'd she'll")
_MALE_PRONOUNS = word_set("he him his himself he's he'd he'll")


def _person_for(pronoun: str, world: UserWorld) -> str | None:
    """The person of the user's world a "she" or "he" can stand for: the most recently named one
    whose relation has that gender (a name without a relation can be either)."""
    lex = lexicon()
    gender = lex.female if pronoun in _FEMALE_PRONOUNS else lex.male
    other = lex.male if pronoun in _FEMALE_PRONOUNS else lex.female
    people = [k for k, i in world.items.items() if i.kind == "person"]
    for key in reversed(people):
        rel = lex.relation(key) or world.names.get(key, "")
        if rel in gender or (not rel and key in world.names) or (rel and rel not in other):
            return key
    return None


def references(tokens: Sequence[Token], world: UserWorld) -> tuple[Reference, ...]:
    """What the words of one sentence speak about in the user's world (see the module
    docstring); each word refers to at most one item, each item is counted once."""
    lex = lexicon()
    found: dict[str, Reference] = {}
    candidates: list[int] = []
    for k, t in enumerate(tokens):
        if not t.text.isalpha() or len(t.text) < 2:
            if t.text.isdigit():
                for a in world.amounts:
                    if a.value == float(t.text):
                        found.setdefault(f"#{a.text}", Reference(t.text, t.start, t.end, a.text,
                                                                  "amount", 1.0, 1.0))  # fmt: skip
            continue
        if t.text in lex.numbers and t.text not in ("a", "an", "one"):
            for a in world.amounts:
                if a.value == lex.numbers[t.text]:
                    found.setdefault(f"#{a.text}", Reference(t.text, t.start, t.end, a.text,
                                                              "amount", 1.0, 1.0))  # fmt: skip
            continue
        if t.text in _FEMALE_PRONOUNS or t.text in _MALE_PRONOUNS:
            person = _person_for(t.text, world)
            if person:
                found.setdefault(person, Reference(t.text, t.start, t.end, person, "person", 0.8,
                                                   0.8))  # fmt: skip
            continue
        if t.closed:
            continue
        if t.text in world.names:
            found.setdefault(t.text, Reference(t.text, t.start, t.end, t.text, "person", 1.0, 1.0))
            continue
        rel = lex.relation(t.text)
        if rel:
            for key, item in world.items.items():
                if item.kind != "person":
                    continue
                other = lex.relation(key) or world.names.get(key, "")
                if other and lex.same_person_kind(rel, other):
                    found.setdefault(key, Reference(t.text, t.start, t.end, key, "person", 1.0,
                                                    1.0))  # fmt: skip
                    break
            continue
        if t.lemma in lex.empathy_vocabulary and t.lemma not in world.items:
            continue
        if not in_place(tokens, k, world.names):
            continue
        same = world.items.get(t.lemma)
        if same is not None and same.kind != "person":
            found.setdefault(same.lemma, Reference(t.text, t.start, t.end, same.lemma, same.kind,
                                                   1.0, same.salience))  # fmt: skip
            continue
        candidates.append(k)
    if candidates and len(world._rows):
        m = meanings()
        words = [tokens[k].text for k in candidates]
        V, where = m.matrix(words)
        if where:
            S = V @ world._matrix.T  # (words with vectors) x (items)
            for r, w_idx in enumerate(where):
                j = int(np.argmax(S[r]))
                s = float(S[r, j])
                if s < REFERENCE_SIMILARITY:
                    continue
                t = tokens[candidates[w_idx]]
                item = world.items[world._rows[j]]
                if t.lemma in lex.empathy_vocabulary and item.lemma in lex.empathy_vocabulary:
                    continue
                found.setdefault(item.lemma, Reference(t.text, t.start, t.end, item.lemma,
                                                       item.kind, s, item.salience))  # fmt: skip
    return tuple(found.values())


__all__ = [
    "Amount", "FEELING_SIMILARITY", "Item", "REFERENCE_SIMILARITY", "Reference", "UserWorld",
    "PRONOUN_IS", "amounts_in", "borrowed_words", "feeling_family", "in_place", "no_subject",
    "references", "slotted", "user_world",
]  # fmt: skip
