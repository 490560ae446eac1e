"""The user's own story, in the user's own voice: the case's third-person prose as things they can say.

A case tells the user's situation in the third person ("Her grandson Emre set up the banking app on
his last visit from Hamburg."); the facts the user answers with are first-person lines. A question
often asks for something the prose says and no fact line does (where the grandson lives). The
user knows their own story, so :func:`story_lines` turns the prose the user may tell from the start
(what brought them here, their current situation, their past as the profile gives it; not the
hidden plot, not the arc the conversation may bring) into first-person sentences: the person's
name and their pronouns become "I", "me", "my", and the verb after a new "I" takes its first-person
form ("she has" -> "I have", "is" -> "am").
"""

from __future__ import annotations

import re
from functools import lru_cache

from empa_env.cases.schema import Fact
from empa_env.reading.tokens import word_set
from empa_env.roles.views import ActorPersona

_FEMALE = {"she": "I", "her": "my", "hers": "mine", "herself": "myself", "she's": "I'm",
           "she'd": "I'd", "she'll": "I'll"}  # fmt: skip
_MALE = {"he": "I", "his": "my", "him": "me", "himself": "myself", "he's": "I'm", "he'd": "I'd",
         "he'll": "I'll"}  # fmt: skip
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*|[^A-Za-z]+")
_BE = {"is": "am", "was": "was", "has": "have", "does": "do", "doesn't": "don't", "isn't": "am not",
       "hasn't": "haven't"}  # fmt: skip


def _first_person_verb(word: str) -> str:
    low = word.lower()
    if low in _BE:
        return _BE[low]
    if low.endswith("s") and len(low) > 3 and not low.endswith("ss"):
        from lemminflect import getInflection, getLemma

        lemmas = getLemma(low, upos="VERB")
        if lemmas and lemmas[0] != low:
            base = getInflection(lemmas[0], tag="VBP")
            if base:
                return base[0]
    return word


def _noun_like(word: str) -> bool:
    """Whether a word after "her" begins a noun phrase ("her grandson") rather than following
    an object ("behind her sighed", "gave her because")."""
    from empa_env.reading.lexicon import parts_of_speech

    pos = parts_of_speech(word.lower())
    if "CLOSED" in pos:
        return word.lower() in ("own", "late", "only", "first", "last", "old")
    return bool(pos & {"NOUN", "ADJ", "PROPN"}) or not pos


#: Words after which a name is an object ("asked Zara", "with Zara"), said "me".
_OBJECT_BEFORE = word_set(
    "to for with at about of from by like than asked told gave called sent showed left let made "
    "helped met saw took brought invited"
)


def _object_place(parts: list[str], k: int) -> bool:
    """Whether the word at ``k`` of :data:`_WORD`'s parts stands where an object does."""
    before = [p for p in parts[:k] if p[:1].isalpha()]
    return bool(before) and before[-1].lower() in _OBJECT_BEFORE


def first_person(sentence: str, name: str, gender: str) -> str:
    """``sentence`` about the person said by them (see the module docstring)."""
    # only the person's own pronouns become "I" ("they" may be anyone: the burglars, the family)
    table = _FEMALE if gender.lower().startswith("f") else _MALE if gender.lower().startswith(
        "m") else {}  # fmt: skip
    subject = {k for k, v in table.items() if v == "I"}
    first = name.split()[0]
    parts = _WORD.findall(sentence)
    out: list[str] = []
    after_i = False
    for k, part in enumerate(parts):
        low = part.lower().replace("’", "'")
        if not part[0].isalpha():
            out.append(part)
            continue
        if part in (first, name) or low in subject:
            nxt = parts[k + 2] if k + 2 < len(parts) else ""
            word = "I" if not nxt.lower().startswith("'s") else "my"
            if part in (first, name) and word == "I" and _object_place(parts, k):
                word = "me"  # "asked Zara what is best" -> "asked me what is best"
            out.append(word)
            after_i = word == "I"
            continue
        if after_i:
            out.append(_first_person_verb(part))
            after_i = False
            continue
        if low in table:
            word = table[low]
            # "her" before a noun is "my", elsewhere "me"
            if low == "her":
                nxt = next((p for p in parts[k + 1 :] if p.strip()), "")
                word = "my" if nxt[:1].isalpha() and _noun_like(nxt) else "me"
            if part[0].isupper():
                word = word[0].upper() + word[1:]
            out.append(word)
            after_i = word == "I"
            continue
        out.append(part)
    text = "".join(out)
    return re.sub(r"\bI's\b", "my", text)


@lru_cache(maxsize=512)
def _lines(case_id: str, name: str, gender: str, texts: tuple[str, ...]) -> tuple[str, ...]:
    from empa_env.text import sentence_texts

    out: list[str] = []
    for text in texts:
        for s in sentence_texts(text):
            line = first_person(s, name, gender).strip()
            if line and line not in out:
                out.append(line)
    return tuple(out)


def story_lines(persona: ActorPersona) -> tuple[str, ...]:
    """The user's prose they may tell from the start, in the first person."""
    p, e = persona.profile, persona.experience
    texts = (
        p.opening_topic, p.vent, persona.scenario_trigger, e.current_situation, e.childhood,
        e.adolescence, e.young_adulthood, e.goals,
    )  # fmt: skip
    return _lines(persona.case_id, persona.persona.name, persona.persona.gender, texts)


def story_facts(persona: ActorPersona) -> tuple[Fact, ...]:
    """:func:`story_lines` as facts the user can answer with from the first turn (made once per
    case)."""
    return _facts(story_lines(persona))


@lru_cache(maxsize=512)
def _facts(lines: tuple[str, ...]) -> tuple[Fact, ...]:
    from empa_env.cases.facts import fact_kind

    out = []
    for line in lines:
        words = [w.lower() for w in re.findall(r"[A-Za-z]{3,}", line)][:6] or ["story"]
        out.append(Fact(kind=fact_kind(line), about=tuple(words), answer=line))
    return tuple(out)


#: Words a question uses to ask who the user is: their name, their age, their work.
_NAME_WORDS = ("name", "call", "address")
_AGE_WORDS = ("age", "old", "birthday")
_WORK_WORDS = (
    "work",
    "working",
    "job",
    "living",
    "occupation",
    "career",
    "profession",
    "employed",
    "do",
)


def persona_facts(persona: ActorPersona) -> tuple[Fact, ...]:
    """What the user knows of themself before any story: their name, their age and what they do
    (the persona card's social persona up to its first comma or semicolon, in their voice: "Junior
    auditor at a mid-size firm in Rosebank."). A user asked "How old are you?" says it; one told
    "You're twenty-four" when they are twenty-seven sets it right (made once per case)."""
    p = persona.persona
    return _persona_facts(p.name, p.age, p.gender, p.social_persona)


@lru_cache(maxsize=512)
def _persona_facts(name: str, age: int, gender: str, social_persona: str) -> tuple[Fact, ...]:
    from empa_env.cases.schema import Fact

    role = re.split(r"[,;]", social_persona, maxsplit=1)[0].strip().rstrip(".")
    facts = [
        Fact(kind="event", about=_NAME_WORDS, answer=f"I'm {name}."),
        Fact(kind="event", about=_AGE_WORDS, answer=f"I'm {age}."),
    ]
    if role:
        line = first_person(role, name, gender)
        if line.split()[0].lower() == "the":  # "The widow on the third floor ..."
            line = f"I'm {line[0].lower()}{line[1:]}"
        facts.append(Fact(kind="event", about=_WORK_WORDS, answer=f"{line[0].upper()}{line[1:]}."))
    return tuple(facts)


__all__ = ["first_person", "persona_facts", "story_facts", "story_lines"]
