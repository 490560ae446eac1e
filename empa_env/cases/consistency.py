"""Whether a case agrees with itself: one person, one tie; a secret kept until its stage.

A case is written in several places (the third-person prose of its profile and experience, the
first-person facts, details, openings, memories and stage narration) and the offline user says all
of them. :func:`contradictions` finds what cannot all be true:

* **a person given two ties**: a name tied to the user by two family relations that cannot name
  one person ("Kyle is my nephew" and "my son Kyle"), tied by the same relation to the user in one
  place and to someone else in another ("Kyle is my nephew" and "Diane named her nephew Kyle", in
  the prose of a man), or given a work tie by the person fact where the rest of the case makes
  them family ("Tunde was one of our engineers" and "Tunde is my cousin");
* **a secret told before its stage**: a stage that admits something kept from others ("I got
  an offer from Edinburgh. I haven't told either of them.") whose words a fact known from the
  start, a detail or an opening already says ("I've got offers from Leeds, Manchester and
  Edinburgh").

Counts are not compared: one noun counted twice is most often two things ("fourteen kilometres" to
the shop, "four" to the grave), which words alone cannot tell apart.

Each finding is ``(field, problem)``, as :func:`empa_env.cases.facts.fact_issues` gives them, so
``empa cases validate`` reports them the same way.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from functools import cache

from empa_env.cases.facts import GENERIC_WORDS
from empa_env.cases.schema import Case
from empa_env.reading.lexicon import lexicon
from empa_env.reading.tokens import tokens_of, word_set

#: Relations of family and partners: a person has one of these to the user (or one group of them).
FAMILY = word_set(
    "mother father parent son daughter child brother sister sibling grandmother grandfather "
    "grandchild husband wife partner boyfriend girlfriend ex aunt uncle cousin nephew niece"
)
#: Relation words too loose to tie a name ("a baby girl", "the boy", "mate").
_LOOSE = word_set("boy boys girl girls baby babies kid kids child children toddler mate mates pa ma "
                  "pop nana dada sis bro gran other half")  # fmt: skip
#: How many distinctive words a text known from the start may share with a secret's stage.
SECRET_OVERLAP = 2

_NAME = r"([A-Z][\w'’-]+)"
_OWNER = r"(my|her|his|their|our|[A-Z][\w’-]+'s|[A-Z][\w’-]+’s)"


def _relation_alternation() -> str:
    words = [w for w in lexicon().relation_words if w not in _LOOSE and " " not in w]
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


@cache
def _tie_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    rel = _relation_alternation()
    named_first = re.compile(
        rf"\b{_NAME},? (?:is|was|'s|’s) {_OWNER} (?:[a-z]+ )?({rel})\b|\b{_NAME}, {_OWNER} ({rel})\b"
    )
    owner_first = re.compile(rf"\b{_OWNER} (?:[a-z]+ )?({rel}) {_NAME}\b", re.IGNORECASE)
    return named_first, owner_first


def _owner(
    word: str, first_person: bool, pronouns: frozenset[str], persona: str, named_before: bool
) -> str:
    """Whose relation it is: ``"user"``, ``"other"``, or ``""`` when the text does not say
    ("their son" of a couple; "Giulia and her partner" in the prose of a woman)."""
    w = word.lower().replace("’", "'")
    if w in ("my", "our"):
        return "user" if first_person else "other"
    if w.endswith("'s"):
        return "user" if persona and w[:-2] == persona.lower() else "other"
    if w == "their" or first_person:
        return ""
    if w in pronouns:  # the persona's own pronoun, unless another person was just named
        return "" if named_before else "user"
    return "other"  # "her nephew" in the prose of a man


def _ties(
    text: str, first_person: bool, pronouns: frozenset[str], persona: str
) -> Iterator[tuple[str, str, str]]:
    """``(name, relation, owner)`` for each name the text ties to someone by a relation."""
    lex = lexicon()
    named_first, owner_first = _tie_patterns()

    def named_before(at: int) -> bool:
        """Another person named earlier in the same sentence."""
        start = max(text.rfind(".", 0, at), text.rfind("!", 0, at), text.rfind("?", 0, at)) + 1
        return any(
            t.capital and not t.english and t.text != persona.lower()
            for t in tokens_of(text[start:at])
        )

    for m in named_first.finditer(text):
        name, owner, word = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (
            m.group(4), m.group(5), m.group(6))  # fmt: skip
        rel = lex.relation(word.lower())
        whose = _owner(owner, first_person, pronouns, persona, named_before(m.start()))
        if rel and whose and name.lower() not in lex.closed:
            yield name.lower(), rel, whose
    for m in owner_first.finditer(text):
        owner, word, name = m.group(1), m.group(2), m.group(3)
        rel = lex.relation(word.lower())
        whose = _owner(owner, first_person, pronouns, persona, named_before(m.start()))
        if rel and whose and name[:1].isupper() and name.lower() not in lex.closed:
            yield name.lower(), rel, whose


def _texts(case: Case) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``(field, text)`` of the case's third-person prose, and of its first-person lines."""
    p, e = case.profile, case.experience
    prose = [
        ("profile.opening_topic", p.opening_topic), ("profile.vent", p.vent),
        ("scenario_trigger", case.scenario_trigger),
        ("experience.current_situation", e.current_situation),
        ("experience.childhood", e.childhood), ("experience.adolescence", e.adolescence),
        ("experience.young_adulthood", e.young_adulthood), ("experience.goals", e.goals),
    ]  # fmt: skip
    own = [(f"facts[{i}].answer", f.answer) for i, f in enumerate(case.facts)]
    own += [(f"voice.details[{i}]", t) for i, t in enumerate(case.voice.details)]
    own += [(f"voice.openings[{i}]", t) for i, t in enumerate(case.voice.openings)]
    for k, stage in enumerate(case.plot.stages):
        own += [(f"plot.stages[{k}].narration[{i}]", t) for i, t in enumerate(stage.narration)]
    for period, lines in case.voice.memories.model_dump().items():
        own += [(f"voice.memories.{period}[{i}]", t) for i, t in enumerate(lines)]
    return prose, own


def _person_ties(case: Case) -> list[tuple[str, str]]:
    lex = lexicon()
    gender = case.persona.gender.lower()
    pronouns = frozenset(
        ("her",) if gender.startswith("f") else ("his",) if gender.startswith("m") else ()
    )
    persona = case.persona.name.split()[0]
    prose, own = _texts(case)
    seen: dict[str, list[tuple[str, str, str]]] = defaultdict(list)  # name -> (rel, owner, field)
    for field, text in prose:
        for name, rel, owner in _ties(text, False, pronouns, persona):
            seen[name].append((rel, owner, field))
    for field, text in own:
        for name, rel, owner in _ties(text, True, pronouns, persona):
            seen[name].append((rel, owner, field))
    person_fact: dict[str, tuple[str, int]] = {}
    for i, f in enumerate(case.facts):
        if f.kind != "person":
            continue
        rels = [r for w in f.about if (r := lex.relation(w))]
        names = [w for w in f.about if not lex.relation(w)]
        told = list(_ties(f.answer, True, pronouns, persona))
        if any(n == names[0] and o == "other" for n, _, o in told if names):
            continue  # "Matteo is Giulia's partner": the answer says whose
        if names and rels:
            person_fact.setdefault(names[0], (rels[0], i))
            seen[names[0]].append((rels[0], "user", f"facts[{i}].about"))
    problems: list[tuple[str, str]] = []
    for name, ties in seen.items():
        mine = [(r, f) for r, o, f in ties if o == "user" and r in FAMILY]
        for (a, fa), (b, fb) in zip(mine, mine[1:], strict=False):
            if not lex.same_person_kind(a, b):
                problems.append((fb, f"{name.capitalize()} is the user's {a} ({fa}) and {b} here"))
                break
        others = [(r, f) for r, o, f in ties if o == "other"]
        for r, fo in others:
            clash = next((f for m, f in mine if lex.same_person_kind(m, r)), None)
            if clash is not None:
                problems.append(
                    (
                        fo,
                        f"{name.capitalize()} is someone else's {r} here but the user's {r} "
                        f"({clash})",
                    )  # fmt: skip
                )
                break
        if name in person_fact and mine:
            rel, i = person_fact[name]
            if rel not in FAMILY:
                problems.append(
                    (
                        f"facts[{i}].about",
                        f"the person fact makes {name.capitalize()} a {rel}; "
                        f"the case makes them the user's {mine[0][0]} ({mine[0][1]})",
                    )  # fmt: skip
                )
    return problems


_CALENDAR = word_set("monday tuesday wednesday thursday friday saturday sunday january february march "
                     "april may june july august september october november december christmas "
                     "easter")  # fmt: skip
#: Words of a concealing line that are about the telling, not what is told.
_NOT_SECRET = word_set("tell told telling know knows knew secret hide hiding hidden lie lying admit "
                       "admits truth want wants badly either anyone nobody everyone")  # fmt: skip


def _content(text: str) -> set[str]:
    return {
        t.lemma for t in tokens_of(text)
        if t.text.isalpha() and not t.closed and len(t.text) > 2 and t.lemma not in GENERIC_WORDS
    }  # fmt: skip


#: Words that mark what a stage admits as kept from others ("I haven't told either of them").
CONCEALED = re.compile(
    r"\b(?:told no ?one|tell(?:s|ing)? no ?one|(?:haven't|hasn't|have not|has not|never|not|didn't|"
    r"did not|don't|doesn't) (?:even )?(?:told|tell|know)|nobody knows|no one knows|secret|"
    r"kept (?:it )?from|keeps? (?:it )?from|hiding|lying to)\b",
    re.IGNORECASE,
)


def _secrets(case: Case) -> list[tuple[str, str]]:
    """What a stage admits as kept from others, said by a line the user may say at once: the
    words of the concealing narration line (or of the summary's sentence that conceals) that the
    opening topic and the vent do not already say, two or more of them in one early line."""
    lex = lexicon()
    public = _content(f"{case.profile.opening_topic} {case.profile.vent}")
    people = {w for f in case.facts if f.kind == "person" for w in f.about}
    people |= {w.lower() for w in case.persona.name.split()}
    early = [(f"facts[{i}].answer", f.answer) for i, f in enumerate(case.facts) if f.stage is None]
    early += [(f"voice.details[{i}]", t) for i, t in enumerate(case.voice.details)]
    early += [(f"voice.openings[{i}]", t) for i, t in enumerate(case.voice.openings)]
    problems: list[tuple[str, str]] = []
    for k, stage in enumerate(case.plot.stages):
        hiding = [line for line in (stage.summary, *stage.narration) if CONCEALED.search(line)]
        if not hiding:
            continue
        secret = _content(" ".join(hiding)) - public - people
        secret = {w for w in secret if not lex.relation(w) and w not in _NOT_SECRET}
        # the kept thing by its name (a place, an offer's city, a thing's brand); a topic the
        # user may speak of (the weekends, the grave, the comments) is not the secret itself
        named = {
            t.text for t in tokens_of(" ".join(hiding))
            if t.capital and not t.english and t.text not in _CALENDAR
        } & secret  # fmt: skip
        for field, text in early:
            shared = secret & _content(text)
            if len(shared) >= SECRET_OVERLAP and shared & named:
                problems.append(
                    (
                        field,
                        f"tells what plot stage {k} keeps from others, from the first turn "
                        f"({', '.join(sorted(shared))})",
                    )  # fmt: skip
                )
    return problems


def contradictions(case: Case) -> list[tuple[str, str]]:
    """``(field, problem)`` for each thing the case says two ways (see the module docstring)."""
    return _person_ties(case) + _secrets(case)


__all__ = ["FAMILY", "SECRET_OVERLAP", "contradictions"]
