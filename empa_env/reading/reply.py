"""The one reading of a reply: sentences, their language, acts and references, read once.

:func:`read_reply` cuts a reply into sentences (:func:`empa_env.reading.tokens.sentences_of`) and
reads each one: its language (:mod:`empa_env.reading.language`), its acts
(:mod:`empa_env.reading.acts`), the feelings it names, and what it speaks about in the user's
world (:func:`empa_env.reading.world.references`). It also notes where a sentence gets the user
wrong: a feeling attributed to them of another family than the ones they named, a person given a
relation the user gave someone else ("your sister Emre" to Emre's grandmother), a name the user
never said put in their life ("your husband Tom"), an amount of time that is not the one they
gave. The judge credits and penalises from this reading; the simulated user hears the same one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from empa_env.bounded_cache import lru_bytes
from empa_env.reading.acts import SentenceActs, read_acts
from empa_env.reading.humour import is_joke
from empa_env.reading.language import UNREADABLE, sentence_language
from empa_env.reading.lexicon import is_english_word, lemma, lexicon
from empa_env.reading.tokens import Cut, Token, sentences_of, word_set
from empa_env.reading.world import (
    WINDOW,
    Amount,
    Reference,
    UserWorld,
    amounts_in,
    feeling_family,
    references,
    slotted,
    user_world,
)
from empa_env.text import one_edit_apart, without_accents

#: Acts of a sentence's form that say what it does instead of a joke (an apology that mentions
#: a joke is an apology): the humour head is not asked about them.
_NOT_JOKES = frozenset({"apology", "thanks", "greeting", "closing"})
#: :attr:`SentenceReading.paraphrase` of a sentence with nothing of its own to compare.
NO_PARAPHRASE = -1.0
#: Words that attribute a state to the listener ("you feel", "you're", "you must be").
_ATTRIBUTE = word_set("feel feeling felt are were be been seem seemed sound look 're")


@dataclass(frozen=True)
class Misreading:
    """Where a sentence gets the user wrong: ``what`` (feeling, relation, name, amount), what it
    said and what the user had said."""

    what: str
    said: str
    truth: str


@dataclass(frozen=True)
class SentenceReading:
    """One sentence of a reply, read (see the module docstring)."""

    text: str
    start: int
    end: int
    tokens: tuple[Token, ...]
    #: The case language's code, another code, or ``"unreadable"``.
    language: str
    acts: SentenceActs
    references: tuple[Reference, ...]
    #: Feeling families the sentence names, and those it attributes to the listener.
    feelings: tuple[str, ...]
    attributed: tuple[str, ...]
    misreadings: tuple[Misreading, ...]
    amounts: tuple[Amount, ...]
    #: How much closer in meaning the sentence's own words (those it shares with the user left
    #: out) are to the user's last two messages than to other people's messages (cosine of
    #: static sentence vectors, minus the mean of the ten closest of a reference pool): what it
    #: says of theirs in other words. A stock frame with one of their words in it says nothing
    #: in other words.
    paraphrase: float = -1.0
    #: How close in meaning the sentence's own words are to the user's last two messages, not
    #: relative to anyone else's (cosine of the same vectors as :attr:`paraphrase`; -1 with nothing
    #: of its own to compare): a sentence about puzzles is as far from this user as from anyone,
    #: so its :attr:`paraphrase` is near 0 while its closeness stays low.
    closeness: float = -1.0
    #: A word of the user's stands out of its grammatical place in it, or a word where no subject
    #: can (:func:`empa_env.reading.world.slotted`): a stock frame with a slot filled, which
    #: speaks of nothing of theirs ("How are you holding up with stuck?").
    slotted: bool = False
    #: The world the sentence was read against (for :attr:`meaning`, read when first asked).
    world: UserWorld | None = field(default=None, compare=False, repr=False)
    #: How likely each act is, by the learned act head (:mod:`empa_env.reading.act_head`; empty
    #: for a sentence the user cannot read).
    act_probs: dict[str, float] = field(default_factory=dict, compare=False)
    #: How likely the sentence is each harm a supporter must never do, by the learned harm gate
    #: (:data:`~empa_env.reading.act_head.HARM_LABELS`; empty for a sentence the user cannot
    #: read): a sentence it lets through is read again by the harm head
    #: (:func:`empa_env.offline.harm.learned`).
    harm_probs: dict[str, float] = field(default_factory=dict, compare=False)

    def does(self, act: str) -> bool:
        return act in self.acts.acts

    @property
    def addressee(self) -> str:
        return self.acts.addressee

    @property
    def meaning(self) -> float:
        """The same comparison as :attr:`paraphrase` read by whole-sentence meaning (the MiniLM
        encoder, the sentence with the user's own words taken out, against the user's last two
        messages that tell something, minus the mean of the ten closest of the same reference
        pool), for a sentence whose :attr:`paraphrase` reaches :data:`MEANING_CHECK_FROM` (-1
        otherwise): word vectors find "no wonder it keeps coming back to you" near a worried
        message; the sentence's meaning does not. Read when first asked, once: the judge asks,
        the simulated user never does (MiniLM was a fifth of a training step's time)."""
        found = self._meaning
        if found is None:
            found = NO_PARAPHRASE
            if self.world is not None and self.paraphrase >= MEANING_CHECK_FROM:
                found = meaning_of(self.tokens, self.world)
            object.__setattr__(self, "_meaning", found)
        return found

    @property
    def readable(self) -> bool:
        """Written in the case's language."""
        return self.language not in (UNREADABLE,) and not self.foreign

    @property
    def foreign(self) -> bool:
        return self._foreign

    @property
    def grounding(self) -> float:
        """How much of what the user told this sentence speaks about: the summed weight
        (closeness x salience) of its references."""
        return float(sum(r.weight for r in self.references))

    @property
    def words(self) -> list[str]:
        return [t.text for t in self.tokens]

    @property
    def joke(self) -> bool:
        """Whether the sentence is meant as a joke: a marker its form shows ("haha", "just
        kidding"), or, for a readable sentence whose form says no other thing it does (an
        apology, thanks, a greeting, a goodbye), the humour gate and head
        (:func:`~empa_env.reading.humour.is_joke`). Read when first asked, once: the simulated
        user asks of a reply it may meet with a reaction to humour; the judge never does (the
        head reads MiniLM, which made every step dearer when read for every sentence)."""
        found = self._joke
        if found is None:
            acts = self.acts.acts
            found = "humour" in acts or (
                self.readable and not acts & _NOT_JOKES and is_joke(self.text, self.tokens)
            )
            object.__setattr__(self, "_joke", found)
        return found

    _foreign: bool = False
    _meaning: float | None = field(default=None, compare=False, repr=False)
    _joke: bool | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ReplyReading:
    """A reply read sentence by sentence, against the user's world."""

    reply: str
    language: str
    sentences: tuple[SentenceReading, ...]
    world: UserWorld
    #: The user's messages it was read against (oldest first).
    world_texts: tuple[str, ...] = ()

    @property
    def foreign_sentences(self) -> tuple[SentenceReading, ...]:
        return tuple(s for s in self.sentences if not s.readable)

    def acts(self) -> frozenset[str]:
        out: set[str] = set()
        for s in self.sentences:
            out |= s.acts.acts
        return frozenset(out)

    @property
    def misreadings(self) -> tuple[Misreading, ...]:
        return tuple(m for s in self.sentences for m in s.misreadings)


def _attributed(tokens: Sequence[Token], feelings: list[tuple[int, str]]) -> list[str]:
    """Feeling families said of the listener: a feeling word shortly after "you" and a verb of
    being or feeling ("you feel", "you're so", "you must be", "you seem")."""
    lex = lexicon()
    out = []
    for k, fam in feelings:
        window = [t.text for t in tokens[max(0, k - 5) : k]]
        if (
            any(w in lex.second_person for w in window)
            and (any(w in _ATTRIBUTE or w.endswith("'re") for w in window) or "you're" in window)
            and not any(w in lex.negations or w.endswith("n't") for w in window)
        ):
            out.append(fam)
    return out


def _misreadings(
    cut: Cut, world: UserWorld, attributed: list[str], amounts: list[Amount]
) -> list[Misreading]:
    lex = lexicon()
    found: list[Misreading] = []
    toks = cut.tokens
    words = [t.text for t in toks]
    # a feeling said to be theirs that contradicts the ones they named (a glad or relieved user
    # told they are sad, a sad one told they are happy); another painful feeling is an
    # interpretation, not a misreading
    if world.feelings:
        for fam in attributed:
            if fam not in world.feelings and opposed_feelings(fam, world.feelings):
                found.append(Misreading("feeling", fam, ", ".join(world.feelings)))
    for k, t in enumerate(toks):
        # "your sister Emre" / "Emre, your sister": a relation the user gave someone else
        if t.text in world.names and world.names[t.text]:
            # a plural tie ("your parents, Ayaan, the officer") is a list, not who Ayaan is
            near = [
                lex.relation(w) if lemma(w) == w else None for w in words[max(0, k - 2) : k + 4]
            ]
            for rel in near:
                if rel and not lex.same_person_kind(rel, world.names[t.text]):
                    if "your" in words[max(0, k - 2) : k + 4]:
                        found.append(Misreading("relation", rel, world.names[t.text]))
                    break
        # "your husband Tom" for a name the user never said, or "your husband" for a relation
        # the user gave no one while naming others of that kind
        if t.capital and k > 0 and t.text.isalpha() and t.text not in world.names:
            prev = words[k - 1]
            rel = lex.relation(prev)
            if rel and k > 1 and words[k - 2] == "your" and not t.english:
                truth = ", ".join(world.relations.get(rel, ())) or "no name"
                found.append(Misreading("name", t.text, truth))
        rel = lex.relation(t.text)
        if rel and k > 0 and words[k - 1] == "your" and world.relations:
            kinds = [r for r in world.relations if lex.same_person_kind(rel, r)]
            groups = {r for r in world.relations}
            if (
                not kinds
                and rel not in ("friend", "doctor", "therapist", "family")
                and any(r in lex.kin(rel) for r in groups)
            ):
                found.append(Misreading("relation", rel, ", ".join(sorted(groups))))
    # an amount of time the user gave otherwise ("two years" for their "three years")
    told = [a for a in world.amounts if a.unit]
    for a in amounts:
        if not a.unit or not told:
            continue
        same_unit = [b for b in told if b.unit == a.unit]
        if same_unit and all(b.value != a.value for b in same_unit) and "your" in words:
            found.append(Misreading("amount", a.text, ", ".join(b.text for b in same_unit)))
    return found


_POSITIVE = frozenset({"joy", "relief", "pride"})


def opposed_feelings(fam: str, named: Sequence[str]) -> bool:
    """A pleasant feeling against only painful ones named, or the other way round."""
    return (fam in _POSITIVE) != all(n in _POSITIVE for n in named) if named else False


def near_family(fam: str, named: Sequence[str]) -> bool:
    """Families that a listener may fairly read into each other (hurt under anger, fear under
    overwhelm, ...): a reflection that names one of them is not a misreading."""
    close = {
        frozenset({"sadness", "grief"}), frozenset({"sadness", "loneliness"}),
        frozenset({"sadness", "hurt"}), frozenset({"sadness", "hopelessness"}),
        frozenset({"fear", "overwhelm"}), frozenset({"anger", "hurt"}),
        frozenset({"shame", "guilt"}), frozenset({"exhaustion", "overwhelm"}),
        frozenset({"confusion", "overwhelm"}), frozenset({"hopelessness", "exhaustion"}),
        frozenset({"numbness", "sadness"}), frozenset({"loneliness", "hurt"}),
        frozenset({"fear", "shame"}), frozenset({"anger", "shame"}),
        frozenset({"grief", "loneliness"}), frozenset({"hurt", "shame"}),
    }  # fmt: skip
    return any(frozenset({fam, n}) in close for n in named)


def own_words(tokens: Sequence[Token], said: frozenset[str]) -> list[str]:
    """The content words of a sentence that are its own: neither the user's (lemmas in ``said``)
    nor the stock vocabulary of empathy ("sense", "hear", "feel"), and words: a token no
    dictionary knows says something in other words only when it is no cut-off or respelling of a
    word of theirs ("Siobh" or "Siobhan" for their "Siobhán" is their word, not a paraphrase)."""
    vocabulary = lexicon().empathy_vocabulary
    return [
        t.text for t in tokens
        if t.text.isalpha() and not t.closed and t.lemma not in said and len(t.text) > 2
        and t.lemma not in vocabulary
        and (
            is_english_word(t.text)
            or not _theirs_misspelt(without_accents(t.text), _without_accents_all(said))
        )
    ]  # fmt: skip


@lru_cache(maxsize=256)
def _without_accents_all(words: frozenset[str]) -> frozenset[str]:
    """``words`` with their accents read through (a world's lemmas: folded once, when a word no
    dictionary knows needs them)."""
    return frozenset(without_accents(w) for w in words)


def _theirs_misspelt(word: str, said: frozenset[str]) -> bool:
    """Whether an unknown ``word`` (lower case, accents off) is a word of theirs cut off or spelt
    another way: the same letters without accents, the first four letters or more of one of their
    words, or one of their words with one letter more, less or changed."""
    return any(
        word == w
        or (len(word) >= 4 and w.startswith(word))
        or (len(word) >= 5 and one_edit_apart(word, w))
        for w in said
    )


def paraphrase_of(tokens: Sequence[Token], world: UserWorld) -> tuple[float, float]:
    """:attr:`SentenceReading.paraphrase` and :attr:`SentenceReading.closeness` of a sentence's
    words against the user's world."""
    own = own_words(tokens, world.recent_lemmas)
    # a word or two of a stock opener ("let me make sure I follow") is no paraphrase
    if len(own) < 2 or world.recent_vector is None:
        return NO_PARAPHRASE, NO_PARAPHRASE
    from empa_env.offline.semantic.encoder import shared_encoder

    v = shared_encoder("static").encode([" ".join(own)])[0]
    pool = _pool()
    baseline = float(np.sort(pool @ v)[-10:].mean()) if len(pool) else 0.0
    closeness = float(v @ world.recent_vector)
    return closeness - baseline, closeness


#: A sentence whose :attr:`SentenceReading.paraphrase` reaches this is read again by its whole
#: meaning (:func:`meaning_of`), to check a strong paraphrase. (Reading every sentence's meaning,
#: or those word vectors put just short of a paraphrase, found a few more paraphrases of the blind
#: attentive replies, +0.720 -> +0.731 per turn, and made the strategy experiment's training loop
#: about twice as slow: not kept.)
MEANING_CHECK_FROM = -0.12


def meaning_of(tokens: Sequence[Token], world: UserWorld) -> float:
    """:attr:`SentenceReading.meaning`: the sentence without the user's words, by MiniLM, against
    their last two messages, relative to the pool."""
    if not world.recent_text:
        return NO_PARAPHRASE
    kept = " ".join(t.text for t in tokens if t.closed or t.lemma not in world.recent_lemmas)
    if not kept.strip():
        return NO_PARAPHRASE
    from empa_env.offline.semantic.encoder import shared_encoder

    # one text per call: a row of a padded batch can differ in its last bits from the same text
    # encoded alone, and whether the user's text is cached must not move a threshold
    encoder = shared_encoder("minilm")
    v, user = encoder.encode([kept])[0], encoder.encode([world.recent_text])[0]
    from empa_env.offline.semantic.grounding import MEANING_POOL_FILE

    pool = _pool_at(MEANING_POOL_FILE)
    baseline = float(np.sort(pool @ v)[-10:].mean()) if len(pool) else 0.0
    return float(v @ user) - baseline


@cache
def _pool_at(path: Path) -> np.ndarray:
    """The vectors of a shipped reference pool of other people's messages: how close a sentence
    is to what *anyone* says, subtracted from its closeness to what *this* user said."""
    with np.load(path) as z:
        return z["pool"].astype(np.float32)


@cache
def _pool() -> np.ndarray:
    """Static vectors of other people's messages (the semantic judge's shipped reference pool)."""
    from empa_env.offline.semantic.grounding import GROUNDING_FILE

    return _pool_at(GROUNDING_FILE)


def _head_probs(cut: Cut) -> tuple[dict[str, float], dict[str, float]]:
    """The act head's and the harm gate's probabilities, from one feature row."""
    from empa_env.reading.act_head import act_features, act_head, harm_gate

    row = act_features(cut.text, cut.tokens)[None, :]
    out = []
    for head in (act_head(), harm_gate()):
        probs = head.predict(row)[0]
        out.append({label: float(p) for label, p in zip(head.labels, probs, strict=True)})
    return out[0], out[1]


@dataclass(frozen=True)
class _Core:
    """What a sentence is whoever reads it: its language (before the conversation's own words are
    counted as the case's language), acts, act probabilities, feelings and amounts."""

    language: str
    acts: SentenceActs
    act_probs: dict[str, float]
    harm_probs: dict[str, float]
    feelings: tuple[tuple[int, str], ...]
    attributed: tuple[str, ...]
    amounts: tuple[Amount, ...]


def _core_weight(args: tuple, value: object) -> int:  # noqa: ANN001
    return 1500 + 160 * len(args[0].text)


@lru_bytes(16 << 20, _core_weight)
def _core(cut: Cut, code: str) -> _Core:
    lang = sentence_language(cut.text, cut.tokens, code)
    feelings: list[tuple[int, str]] = []
    for k, t in enumerate(cut.tokens):
        if t.closed or not t.text.isalpha() or (t.capital and k > 0):
            continue
        fam = feeling_family(t.text)
        if fam:
            feelings.append((k, fam))
    acts, harms = _head_probs(cut) if lang == code else ({}, {})
    return _Core(
        lang, read_acts(cut), acts, harms, tuple(feelings),
        tuple(_attributed(cut.tokens, feelings)), tuple(amounts_in(cut.tokens, cut.text, cut.start)),
    )  # fmt: skip


def _read_sentence(cut: Cut, world: UserWorld, code: str) -> SentenceReading:
    core = _core(cut, code)
    lang = core.language
    if lang != code:  # the conversation's own words (names, a word of theirs) are its language
        lang = sentence_language(cut.text, cut.tokens, code, world.vocabulary)
    probs, harms = (
        (core.act_probs, core.harm_probs) if core.act_probs or lang != code else _head_probs(cut)
    )
    ok = lang == code
    # a stock frame with a word of theirs slotted out of place says nothing of them in other
    # words, however near its frame's own words happen to lie
    framed = ok and slotted(cut.tokens, world)
    paraphrase, closeness = (
        paraphrase_of(cut.tokens, world) if ok and not framed else (NO_PARAPHRASE,) * 2
    )
    return SentenceReading(
        text=cut.text,
        start=cut.start,
        end=cut.end,
        tokens=cut.tokens,
        language=lang,
        acts=core.acts,
        references=references(cut.tokens, world) if ok else (),
        feelings=tuple(dict.fromkeys(f for _, f in core.feelings)),
        attributed=tuple(dict.fromkeys(core.attributed)),
        misreadings=tuple(_misreadings(cut, world, list(core.attributed), list(core.amounts)))
        if ok
        else (),
        amounts=core.amounts,
        paraphrase=paraphrase,
        closeness=closeness,
        slotted=framed,
        world=world,
        act_probs=probs if ok else {},
        harm_probs=harms if ok else {},
        _foreign=lang not in (code, UNREADABLE),
    )


def _read_weight(args: tuple, value: object) -> int:  # noqa: ANN001
    reply, texts = args[0], args[1]
    return 2000 + 200 * len(reply) + 8 * sum(len(t) for t in texts)


@lru_bytes(24 << 20, _read_weight)
def _read(
    reply: str,
    texts: tuple[str, ...],
    code: str,
    window: int | None,
    borrowed: frozenset[str] = frozenset(),
) -> ReplyReading:
    world = user_world(texts, code, window, borrowed)
    sentences = tuple(_read_sentence(c, world, code) for c in sentences_of(reply, code))
    return ReplyReading(reply, code, sentences, world, texts)


def read_reply(
    reply: str,
    user_texts: Sequence[str],
    code: str = "en",
    window: int | None = WINDOW,
    borrowed: frozenset[str] = frozenset(),
) -> ReplyReading:
    """Read ``reply`` against what the user said in ``user_texts`` (oldest first; the last
    ``window`` of them, all with ``None``); ``borrowed``: words the user only took up from the
    listener (:func:`~empa_env.reading.world.borrowed_words`), which are no things of theirs."""
    return _read(reply, tuple(user_texts), code, window, borrowed)


__all__ = [
    "Misreading", "ReplyReading", "SentenceReading", "near_family", "opposed_feelings", "own_words",
    "read_reply",
]  # fmt: skip
