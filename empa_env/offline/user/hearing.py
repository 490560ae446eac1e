"""How the simulated user hears a reply: the one reading of it, held against what they know.

The reply is read by :func:`~empa_env.offline.user.question.read_reply`, with the reading the judge uses, against
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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from empa_env.cases.schema import Fact, FactKind
from empa_env.offline.user.facts import (
    ANSWER_BAR,
    PARTNERED_WORDS,
    best_facts,
    fact_index,
    match,
    says_how_often_or_soon,
)
from empa_env.offline.user.mistakes import Mistake, edit_close, find_mistake, names_told
from empa_env.offline.user.question import (
    GENERIC_WORDS,
    NAME_ASKED,
    Question,
    Reading,
    content_tokens,
)
from empa_env.reading.lexicon import lemma, lexicon, meanings, parts_of_speech
from empa_env.reading.reply import SentenceReading
from empa_env.reading.tokens import Token, sentences_of, tokens_of, word_set
from empa_env.reading.world import Reference, UserWorld, amounts_in, feeling_family

#: A held-back fact is deflected only when it fits this much better than the best tellable one.
DEFLECT_MARGIN = 0.8


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
                         and not says_how_often_or_soon(a.text, words)]  # fmt: skip
            if not durations:
                continue
            overlap = len(asked & {t.lemma for t in cut.tokens})
            if overlap > best:
                best, found = overlap, durations[0].text
    return found


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
            and not (rel in lex.relation_groups["partner"] and PARTNERED_WORDS & set(vocabulary))
        ):  # fmt: skip
            return t.text
        if (
            t.capital and k and not t.english and t.text not in names and t.text.isalpha()
            and not any(edit_close(t.text, n) for n in names)
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
        if t.lemma in GENERIC_WORDS or t.lemma in lex.empathy_vocabulary:
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


def _gives(question: Question, fact: Fact) -> bool:
    """Whether a fact holds the kind of thing the question asks for."""
    idx = fact_index(fact.about, fact.answer)
    if question.kind == "who":
        if NAME_ASKED & {t.text for t in question.asking}:
            if question.people:  # "What's your daughter's name?": a line that names her
                return any(name in idx.names for _w, name in question.people)
            return bool(names_told(fact.answer))  # "What's the boat called?": a name
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


def _their_word(ref: Reference, world: UserWorld, reply: str = "") -> str:
    """The user's own word for what a reply's word refers to: the reply's word when it is theirs
    (the same lemma, a name, a relation of theirs), else the form they used ("Yes. Glass,
    exactly." for a reply's "window"). A user who confirms a summary speaks of their own life in
    their own words; taking up the reply's word instead would make it theirs to the next reader
    (a frame's own "wonder" echoed back, then credited as something they told). A name is said
    back as the reply wrote it ("Right, Esbjerg.", not the reading's lower-case "esbjerg")."""
    if ref.kind == "person" or ref.kind == "amount" or ref.strength >= 1.0:
        written = reply[ref.start : ref.end]
        if ref.word in world.names and written.lower() == ref.word and written[:1].isupper():
            return written
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
            units = lexicon().time_units  # "Yes, years." says nothing back
            echo = max(
                (_their_word(r, shared.world, shared.reply) for r in s.references
                 if r.word not in units and r.item not in units),
                key=len, default="",
            )  # fmt: skip
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
                s.text,
                "tried",
                tuple(t.lemma for t in content_tokens(s.tokens)),
                (),
                s,
                asked=False,
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


__all__ = ["Heard", "hear", "off_story", "unfounded_claim"]
