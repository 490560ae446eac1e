"""Hearing a reply against the case: which facts a question asks for, whether a summary is true,
whether a suggestion was already tried, whether the reply is about the user at all.

:func:`hear` takes the case-independent :class:`~empa_env.offline.user.reading.Reading` and what
this user knows: the facts they can tell now (``known``), the subjects of the facts they keep back
(``hidden``: only their ``about`` words, so the Actor can deflect without knowing the answer), and
the words of their own material and of what they said so far (``vocabulary``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from empa_env.cases.facts import GENERIC_WORDS, RELATIONS, stems, wordset
from empa_env.cases.schema import Fact
from empa_env.languages import language
from empa_env.offline.user.checking import (
    Mistake,
    people_of,
    topical_duration,
    wrong_amount,
    wrong_duration,
    wrong_feeling,
    wrong_person,
    wrong_relation,
)
from empa_env.offline.user.reading import Question, Reading, fold

#: Which fact kinds answer which question type best.
ANSWERS: dict[str, tuple[str, ...]] = {
    "who": ("person",),
    "duration": ("duration",),
    "place": ("place",),
    "said": ("said", "person"),
    "tried": ("tried",),
    "why": ("reason", "event"),
    "yesno": (),
    "open": (),
}
#: Words that make a claim about someone's life: a summary naming one the story lacks is wrong.
CLAIM_WORDS: frozenset[str] = frozenset(RELATIONS) | wordset(
    """dog cat pet horse died death dead funeral divorce divorced fired sacked cancer accident
    pregnant wedding married exam exams debt loan money illness sick hospital surgery moved move
    breakup dumped cheated affair job promotion school university college rent house flat car
    police court prison lawsuit drugs drinking alcohol gambling church god war army stroke
    diabetes dementia alzheimer's alzheimers miscarriage overdose bankruptcy bankrupt eviction
    evicted layoff redundancy redundant burglary robbery robbed assault assaulted diagnosis chemo
    chemotherapy tumour tumor pregnancy abortion custody deported deportation fire flood crash
    injury injured broken paralysed paralyzed coma failed fail failing quit resigned arrested
    expelled suspended dropped bullied stolen stole lied lying promoted demoted relapse rehab"""
)
#: Words of an open question that invite the story itself (what happened, how it felt).
INVITING: frozenset[str] = wordset(
    """happen happened happening feel feeling felt mean meant means hardest worst most stays weigh
    weighs going tell more part inside underneath really matter matters like story"""
)
#: Words of a reflection's frame ("it sounds like", "if I hear you"), not of its content.
_FRAME_WORDS: frozenset[str] = wordset(
    """sounds sound seems seem hearing hear understand saying mean must really mostly basically
    honestly"""
)


@dataclass(frozen=True)
class Heard:
    """How the user takes one reply."""

    reading: Reading
    #: (question, the known fact it asks for)
    answered: tuple[tuple[Question, Fact], ...] = ()
    #: (question, index into ``hidden``) for questions about something kept back
    deflected: tuple[tuple[Question, int], ...] = ()
    #: (question, the word the story lacks) for questions about someone or something not in it
    unknown: tuple[tuple[Question, str], ...] = ()
    #: (question, value) for a "how long" no fact answers but the user's own prose does
    values: tuple[tuple[Question, str], ...] = ()
    #: questions about the user that no fact answers (an invitation to go on)
    open: tuple[Question, ...] = ()
    #: a summary or reflection: the word it gets wrong ("" when it holds)
    summary_wrong: str = ""
    summary_right: bool = False
    #: the true fact that corrects a wrong summary (or a question's false premise)
    correction: Fact | None = None
    #: what a summary or a question's premise gets wrong among true things (a relation, who did
    #: it, how long, the feeling), with the truth (see :mod:`empa_env.offline.user.checking`)
    mistake: Mistake | None = None
    #: the known fact saying the suggestion was already tried
    tried: Fact | None = None
    #: the reply uses words the user said or their story holds
    engaged: bool = False
    #: the reply uses words of the user's last message (a follow-up)
    follows_up: bool = False
    #: the reply is about something else (the writer's own story, or nothing of the user's)
    off_topic: bool = False
    echo: str = ""
    words: frozenset[str] = field(default_factory=frozenset)

    @property
    def invited(self) -> bool:
        """The reply asks the user to tell more (a question about them, or a true reflection)."""
        return bool(
            self.answered or self.values or self.deflected or self.open or self.summary_right
        )


@lru_cache(maxsize=2048)
def _fact_stems(about: tuple[str, ...]) -> frozenset[str]:
    return frozenset(stems(fold(w) for w in about)) - frozenset(stems(GENERIC_WORDS))


@lru_cache(maxsize=512)
def vocabulary_of(texts: tuple[str, ...], code: str = "en") -> frozenset[str]:
    """Stems of every word in ``texts`` (the user's own material, in the case language
    ``code``), accents folded."""
    lang = language(code)
    return frozenset(stems(fold(w) for t in texts for w in lang.words(fold(t))))


def _score(q_stems: set[str], kind: str, about: tuple[str, ...], fact_kind: str) -> int:
    """How well a fact answers a question: shared words, its subject named, its kind fitting."""
    fact_stems = _fact_stems(about)
    overlap = len(q_stems & fact_stems)
    if not overlap:
        return 0
    subject = bool(about) and next(iter(stems([fold(about[0])]))) in q_stems
    fits = ANSWERS.get(kind, ())
    # the kind a question asks for first ("said" before "person" for "what did X say")
    fit = 2 if fits and fact_kind == fits[0] else 1 if fact_kind in fits else 0
    return 3 * overlap + fit + (1 if subject else 0)


def _unknown_claim(words: Iterable[str], names: Iterable[str], vocab: frozenset[str]) -> str:
    for w in [*names, *words]:
        s = next(iter(stems([w])))
        if (w in CLAIM_WORDS or w in names) and s not in vocab and w not in vocab:
            return w
    return ""


def hear(
    reading: Reading,
    known: Sequence[Fact],
    hidden: Sequence[tuple[str, ...]],
    vocabulary: frozenset[str],
    last_message: str = "",
    hidden_kinds: Sequence[str] = (),
    material: Sequence[str] = (),
) -> Heard:
    """Take ``reading`` against what the user knows (see the module docstring)."""
    if reading.empty:
        return Heard(reading)
    lang = language(reading.language)
    words = frozenset(stems(reading.words)) | frozenset(stems(reading.names))
    answered: list[tuple[Question, Fact]] = []
    values: list[tuple[Question, str]] = []
    deflected: list[tuple[Question, int]] = []
    unknown: list[tuple[Question, str]] = []
    open_: list[Question] = []
    for q in reading.questions:
        q_stems = set(stems(q.words)) | set(stems(q.names))
        # ties: the more specific fact (fewer subject words), then the earlier one
        ranked = max(
            (
                (_score(q_stems, q.kind, f.about, f.kind), -len(f.about), -i)
                for i, f in enumerate(known)
            ),
            default=(0, 0, 1),
        )
        best_known = (ranked[0], -ranked[2])
        best_hidden = max(
            (
                (_score(q_stems, q.kind, about, hidden_kinds[i] if hidden_kinds else ""), i)
                for i, about in enumerate(hidden)
            ),
            default=(0, -1),
        )
        lacking = _unknown_claim(q.words, q.names, vocabulary)
        # a question naming one thing of a fact is answered with it (a word it shares scores 3)
        bar = 3
        if q.kind == "duration" and not (
            best_known[0] >= bar and known[best_known[1]].kind == "duration"
        ):
            value = topical_duration([fold(w) for w in lang.words(fold(q.text))], material)
            if value:
                values.append((q, value))
                continue
        if best_known[0] and best_known[0] >= best_hidden[0] and best_known[0] >= bar:
            answered.append((q, known[best_known[1]]))
        elif best_hidden[0] >= bar:
            deflected.append((q, best_hidden[1]))
        elif lacking:
            unknown.append((q, lacking))
        elif q.kind in ("who", "said", "tried") and known:
            kinds = ANSWERS[q.kind]
            fit = [f for f in known if f.kind in kinds and set(stems(f.about)) & q_stems] or [
                f for f in known if f.kind in kinds
            ]
            if fit:
                answered.append((q, fit[0]))
            else:
                open_.append(q)
        else:
            open_.append(q)
    summary_wrong = ""
    summary_right = False
    correction: Fact | None = None
    echo = ""
    if unknown and known:
        correction = next((f for f in known if f.kind not in ("person",)), known[0])
    if reading.summary:
        s_words = [fold(w) for w in lang.content_words(reading.summary, min_length=2)]
        s_names = [n for n in reading.names if n in fold(reading.summary).lower()]
        summary_wrong = _unknown_claim(s_words, s_names, vocabulary)
        if summary_wrong:
            s_stems = set(stems(s_words))
            by_overlap = sorted(
                known,
                key=lambda f: -len(s_stems & _fact_stems(f.about)) if f.kind != "person" else 1,
            )
            correction = by_overlap[0] if by_overlap else None
        else:
            shared = [
                w
                for w in s_words
                if next(iter(stems([w]))) in vocabulary
                and w not in GENERIC_WORDS
                and w not in _FRAME_WORDS
            ]
            summary_right = len(shared) >= 1
            echo = max(shared, key=len) if shared else ""
    mistake = _mistake(reading, known, hidden, hidden_kinds, vocabulary, material)
    if mistake is not None:
        summary_wrong = summary_wrong or (mistake.word if reading.summary else "")
        summary_right = False
        correction = mistake.fact or correction
    tried: Fact | None = None
    if reading.suggestion:
        sug = set(stems(fold(w) for w in lang.content_words(reading.suggestion, min_length=3)))
        for f in known:
            if f.kind == "tried" and len(sug & _fact_stems(f.about)) >= 1:
                tried = f
                break
    last = frozenset(stems(fold(w) for w in lang.content_words(last_message, min_length=3)))
    follows_up = bool(words & last - frozenset(stems(GENERIC_WORDS)))
    engaged = bool((words & vocabulary) - frozenset(stems(GENERIC_WORDS)))
    acts = bool(
        reading.questions or reading.summary or reading.suggestion or reading.apology
    ) or bool(reading.goodbye or reading.hostile or reading.short)
    off_topic = reading.own_story or (not engaged and not acts and len(reading.words) >= 4)
    if off_topic and not reading.own_story and answered:
        off_topic = False
    return Heard(
        reading=reading,
        answered=tuple(answered),
        values=tuple(values),
        deflected=tuple(deflected),
        unknown=tuple(unknown),
        open=tuple(open_),
        summary_wrong=summary_wrong,
        summary_right=summary_right,
        correction=correction,
        mistake=mistake,
        tried=tried,
        engaged=engaged,
        follows_up=follows_up,
        off_topic=off_topic,
        echo=echo,
        words=words,
    )


def _mistake(
    reading: Reading,
    known: Sequence[Fact],
    hidden: Sequence[tuple[str, ...]],
    hidden_kinds: Sequence[str],
    vocabulary: frozenset[str],
    material: Sequence[str],
) -> Mistake | None:
    """What the summary (or a question's premise) gets wrong among true things, if anything."""
    people = {fold(name): relation for name, relation in people_of(known).items()}
    for i, about in enumerate(hidden):
        if hidden_kinds and i < len(hidden_kinds) and hidden_kinds[i] == "person":
            names = [w for w in about if w not in RELATIONS]
            relations = [w for w in about if w in RELATIONS]
            if names and relations:
                people.setdefault(fold(names[0]), relations[0])
    sentences = [reading.summary] if reading.summary else []
    sentences += [q.text for q in reading.questions]
    lang = language(reading.language)
    for n, sentence in enumerate(sentences):
        words = [fold(w) for w in lang.words(fold(sentence))]
        names = [w.removesuffix("'s") for w in words if w.removesuffix("'s") in people]
        found = wrong_relation(sentence, names, people, known) or wrong_person(
            words, names, people, known, hidden
        )
        if found is None and n == 0 and reading.summary:
            found = (
                wrong_duration(sentence, material, known)
                or wrong_amount(sentence, material, known)
                or wrong_feeling(words, vocabulary)
            )
        if found is not None:
            return found
    return None


__all__ = ["ANSWERS", "CLAIM_WORDS", "INVITING", "Heard", "hear", "vocabulary_of"]
