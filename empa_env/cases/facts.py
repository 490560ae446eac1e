"""Answerable facts of a case: drafting them from a case's own lines, and checking them.

A case's ``facts`` (:class:`~empa_env.cases.schema.Fact`) are what the simulated user can answer
when the policy asks: who someone is, how long something has lasted, where it happened, what
someone said, what was tried. Each is tied to the plot stage that may reveal it.

:func:`draft_facts` drafts them from what the case already says in the user's own words (the
``voice.details`` known from the start, each stage's ``narration`` tied to that stage) and from
the people the prose names with their relation ("her grandson Emre"). The suite's cases carry the
drafted facts in their files (edited by hand where the draft was off); the generator drafts them
for every case it writes. :func:`fact_issues` is what ``empa cases validate`` checks beyond the
schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from empa_env.cases.schema import Case, Fact, FactKind
from empa_env.languages import language
from empa_env.text import without_accents

_EN = language("en")


def wordset(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` (word lists written as one string)."""
    return frozenset(text.split())


#: Words that name a person by their relation to the user (kin, work, care, home), in English.
RELATIONS: frozenset[str] = wordset(
    """mother mom mum mama father dad papa parents parent brother sister sibling siblings son
    daughter child children kids grandson granddaughter grandmother grandma granny grandfather
    grandpa grandparents aunt uncle cousin nephew niece wife husband partner boyfriend girlfriend
    fiance fiancee ex ex-wife ex-husband friend friends neighbour neighbor boss manager colleague
    coworker teacher coach doctor nurse therapist landlord landlady roommate flatmate baby
    mother-in-law father-in-law sister-in-law brother-in-law stepfather stepmother stepson
    stepdaughter classmate teammate bandmate mentor supervisor director pastor priest imam rabbi
    team captain trainer student students client clients tenant owner rival employee employees
    employer apprentice godmother godfather stepbrother stepsister tutor pupil carer caregiver"""
)
_RELATION_RE = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Pastor|Father|Sister|Uncle|Aunt|Auntie|Coach)\.? )"
_NAME = rf"{_TITLE}?[A-Z][a-zà-öø-ÿ-]{{2,}}\b(?!['’]s)"
_PERSON_PATTERNS = (
    # "her grandson Emre", "my old friend Marta", "his boss Diane"
    re.compile(
        rf"\b(?:(?i:my|his|her|their)|[A-Z][a-z]+'s)\s+(?:(?:old|best|late|younger|older|little|big|"
        rf"new|former|only|eldest|youngest)\s+)?({_RELATION_RE})\s*,?\s+({_NAME})"
    ),
    # "Emre, her grandson", "Diane (his boss)"
    re.compile(
        rf"\b({_NAME})\s*[,(]\s*(?:(?i:my|his|her|their|the))\s+(?:(?:old|best|late|younger|older|little|"
        rf"big|new|former|only|eldest|youngest)\s+)?({_RELATION_RE})\b"
    ),
)
_NOT_NAMES = wordset(
    "I I'm I've I'd I'll The A An And But So Then Now Maybe Yes No Not My His Her Their It It's "
    "This That When What Why How Who Where Since After Before Every Today Tonight Yesterday "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May "
    "June July August September October November December Mum Mom Dad Okay OK Well Oh"
)

_SAID = re.compile(
    r"\b(said|says|told|tells|asked|asks|called|wrote|texted|answered|replied|promised|"
    r"laughed|shouted|yelled|sighed)\b",
    re.I,
)
_TRIED = re.compile(
    r"\b(tried|try|trying|attempted|applied|called the|went to|booked|emailed|wrote to|"
    r"asked (?:for|at|the)|started|signed up|practised|practiced)\b",
    re.I,
)
_NUMBER = (
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
    r"twenty|thirty|forty|fifty|sixty|several|a few|many)"
)
_DURATION = re.compile(
    rf"\b{_NUMBER}\s+(?:more\s+)?(?:years?|months?|weeks?|days?|hours?|minutes?|decades?|"
    rf"seasons?|nights?)\b|\bsince\b|\bago\b|\b(?:19|20)\d\d\b|\bat (?:nine|ten|\d+)\b",
    re.I,
)
_PLACE = re.compile(
    r"\b(?:in|at|to|from|near|outside|inside)\s+(?:the\s+)?(?:(?!(?:Easter|Christmas|"
    r"Ramadan|Eid|Diwali|Thanksgiving|Sunday|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|"
    r"January|February|March|April|May|June|July|August|September|October|November|December)\b)"
    r"[A-Z][\w'-]+|office|hospital|"
    r"school|bank|shop|kitchen|garage|church|station|hostel|factory|flat|house|home|club|"
    r"gym|clinic|ward|court|pitch|stage|studio|restaurant|cafe|café|park|village|city|"
    r"town|airport|terminal|street)\b"
)
_NUMBER_RE = re.compile(rf"\b{_NUMBER}\b(?!\s+(?:of|who|man|woman|thing))|\bonce\b|\btwice\b", re.I)
_REASON = re.compile(r"\b(because|so that|that's why|the reason|since)\b", re.I)

#: Content words too general to identify what a question is about.
GENERIC_WORDS: frozenset[str] = wordset(
    """thing things stuff time times day days year years week weeks month months people person
    someone something anything everything nothing always never every each other another again
    still even just also really much many more most less little bit lot lots good bad better
    worse best worst big small new old first last next whole part kind sort way ways feel felt
    feeling feels think thought know knew want wanted need needed said says tell told make made
    take took give gave come came goes went going get got keep kept look looked seem seemed
    let mean means meant work worked right left sure okay yes no maybe perhaps probably
    actually anyway though enough already once twice"""
)


def _stem(word: str) -> str:
    """A crude English stem, enough to match "tried" and "try", "sisters" and "sister"."""
    w = word.lower().strip("'’")
    for suffix, repl in (
        ("ies", "y"),
        ("ied", "y"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
    ):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: len(w) - len(suffix)] + repl
            break
    # a silent final e goes too, so "joke", "jokes", "joked" and "joking" meet at "jok"
    return w[:-1] if w.endswith("e") and len(w) >= 4 and w[-2] not in "aeiou" else w


def stems(words: Iterable[str]) -> set[str]:
    """:func:`_stem` of each word."""
    return {_stem(w) for w in words}


_TIME_NAMES = wordset(
    "Easter Christmas Ramadan Eid Diwali Hanukkah Thanksgiving New Year Years Sunday Monday "
    "Tuesday Wednesday Thursday Friday Saturday January February March April May June July "
    "August September October November December"
)


def _names_in(text: str, known: frozenset[str]) -> list[str]:
    """Capitalised words of ``text`` that are names: inside a sentence (after a lower-case word
    or a comma), or at its start when ``known`` holds them; "'s" dropped, lower case."""
    out = []
    for m in re.finditer(r"[^\W\d_][\w’'-]+", text):
        if not m.group(0)[0].isupper():
            continue
        word = re.sub(r"['’]s$", "", m.group(0))
        before = text[: m.start()].rstrip()
        initial = not before or before[-1] in '.!?"“(:'
        if word in _NOT_NAMES or word in _TIME_NAMES or "'" in word or "’" in word:
            continue
        if word.lower() in _EN.stopwords or (initial and word.lower() not in known):
            continue
        out.append(word.lower())
    return out


#: Words that make a poor subject for a question: feelings, number words (a fact about "sad"
#: or "twenty-seven" is asked about by its thing, not by these).
NAMELESS: frozenset[str] = wordset(
    """honest honestly mostly maybe really sometimes somehow anyway own myself yourself fine okay
    twenty thirty forty fifty sixty seventy eighty ninety hundred two three four five six seven
    eight nine ten eleven twelve"""
)
FEELING_WORDS: frozenset[str] = wordset(
    """sad angry tired exhausted frustrated stressed lonely guilty ashamed scared afraid numb
    stuck alone happy upset hurt furious bitter confused annoyed gutted embarrassed sleepy"""
)


def _nameless(word: str) -> bool:
    """A word that names no thing a question could ask about (an adverb, a number)."""
    return word in NAMELESS or word.split("-")[0] in NAMELESS


def _weak_subject(word: str) -> bool:
    return _nameless(word) or word in FEELING_WORDS


def _letters(text: str) -> list[str]:
    """Words of any script, lower case, accents folded, hyphenated words kept whole too."""
    low = without_accents(text).lower()
    return re.findall(r"[^\W\d_]+(?:-[^\W\d_]+)*", low) + re.findall(r"[^\W\d_]+", low)


def salient_words(
    text: str,
    limit: int = 5,
    topics: frozenset[str] = frozenset(),
    known: frozenset[str] = frozenset(),
) -> list[str]:
    """The words of ``text`` a question would name to ask about it: names first (``known``
    names also at a sentence's start), then content words the case's prose also uses
    (``topics``, stems), then the other content words; lower case, no stopwords, general words
    or contractions, at most ``limit``."""
    names = _names_in(text, known)
    content = [
        w
        for w in (re.sub(r"'s$", "", w) for w in _EN.content_words(text, min_length=3))
        if len(w) >= 3
        and w not in GENERIC_WORDS
        and w not in _EN.stopwords
        and not any(c.isdigit() for c in w)
        and "'" not in w
    ]
    content = [w for w in content if not any(w in n and w != n for n in names)]
    # stable: text order within each rank; what the case's prose talks about first, words that
    # name no thing (adverbs, feelings, numbers) last
    content.sort(
        key=lambda w: (_nameless(w), bool(topics) and _stem(w) not in topics, _weak_subject(w))
    )
    out: list[str] = []
    for w in [*names, *content]:
        w = w.strip("'’")
        if w and w not in out and w not in GENERIC_WORDS:
            out.append(w)
    return out[:limit]


def fact_kind(line: str) -> FactKind:
    """The kind of question ``line`` answers best (said > tried > duration > place > reason >
    event); "person" facts are drafted from the people a case names, not from lines."""
    if _SAID.search(line) and re.search(r"\b(he|she|they|[A-Z][a-z]+)\b", line):
        return "said"
    if _TRIED.search(line):
        return "tried"
    if _DURATION.search(line):
        return "duration"
    if _PLACE.search(line):
        return "place"
    if _REASON.search(line):
        return "reason"
    return "event"  # who someone is comes from the people a case names (person facts)


def people(texts: Sequence[str], first_person: Sequence[str] = ()) -> dict[str, str]:
    """``{name: relation}`` for the people named with their relation to the user: in ``texts``
    (prose about the user: "her grandson Emre") and in ``first_person`` lines ("my son Nati";
    there "her partner" is someone else's)."""
    found: dict[str, str] = {}
    for text, own in [*((t, False) for t in texts), *((t, True) for t in first_person)]:
        for pattern in _PERSON_PATTERNS:
            for m in pattern.finditer(text):
                if own and not re.search(r"\bmy\b", m.group(0), re.I):
                    continue
                a, b = m.group(1), m.group(2)
                relation, name = (a, b) if a.lower() in RELATIONS else (b, a)
                name = re.sub(r"['’]s$", "", name.strip("'’"))
                if name.split()[-1] in _NOT_NAMES or name.lower() in RELATIONS:
                    continue
                found.setdefault(name, relation.lower())
    return found


def _stage_of(words: set[str], stages: Sequence[Mapping[str, Any]]) -> int | None:
    for i, stage in enumerate(stages):
        text = " ".join([str(stage.get("summary", "")), *stage.get("narration", ())])
        if words & stems(_EN.words(text)):
            return i
    return None


def draft_facts(
    case: Case | Mapping[str, Any], extra_people: Mapping[str, str] | None = None
) -> list[Fact]:
    """Draft a case's answerable facts from its own material.

    * each ``voice.details`` line is a fact known from the start;
    * each stage's ``narration`` line is a fact of that stage;
    * each person the prose names with a relation ("her grandson Emre"), and each of
      ``extra_people`` (``{name: relation}``, e.g. the generator's cast), is a person fact, tied
      to the first stage that mentions them unless the opening material does.
    """
    data: Mapping[str, Any] = (
        case.model_dump(mode="json", by_alias=True) if isinstance(case, Case) else case
    )
    voice = data["voice"]
    stages = data["plot"]["stages"]
    facts: list[Fact] = []
    seen: set[str] = set()

    def add(kind: str, about: list[str], answer: str, stage: int | None) -> None:
        if not about or answer in seen or all(_nameless(w) for w in about):
            return  # a line naming nothing a question could ask about stays narration only
        seen.add(answer)
        facts.append(Fact(kind=kind, about=tuple(about), answer=answer, stage=stage))  # type: ignore[arg-type]

    opening_text = " ".join(
        [*voice["openings"], *voice["details"], str(data["profile"]["opening_topic"])]
    )
    opening_stems = stems(_EN.words(opening_text))
    prose = _prose(data)
    lines = [*voice["details"], *(line for s in stages for line in s["narration"])]
    named = {**people(prose, lines), **(extra_people or {})}
    for name, relation in named.items():
        key = [w.lower() for w in name.split() if not re.fullmatch(_TITLE.strip("?"), w + " ")]
        stage = None if stems(key) & opening_stems else _stage_of(stems(key), stages)
        relation_words = relation.replace("-", " ").split()
        add("person", [*key, *relation_words], f"{name} is my {relation}.", stage)
    topics = frozenset(stems(_EN.words(" ".join([*prose, *_key_facts(data)]))))
    known = frozenset(w.lower() for name in named for w in name.split())
    for line in voice["details"]:
        add(fact_kind(line), salient_words(line, topics=topics, known=known), line, None)
    for i, stage in enumerate(stages):
        for line in stage["narration"]:
            add(fact_kind(line), salient_words(line, topics=topics, known=known), line, i)
    return facts


def _prose(data: Mapping[str, Any]) -> list[str]:
    """The prose about the user (where names with relations and the case's topics are)."""
    return [
        str(data["experience"]["current_situation"]),
        str(data["profile"]["vent"]),
        str(data["profile"]["opening_topic"]),
        str(data["scenario_trigger"]),
        *(str(s["summary"]) for s in data["plot"]["stages"]),
    ]


def _key_facts(data: Mapping[str, Any]) -> list[str]:
    cues = data.get("cues") or {}
    return [str(x) for x in (*cues.get("key_facts", ()), *cues.get("knot_keywords", ()))]


def fact_issues(case: Case) -> list[tuple[str, str]]:
    """``(field, problem)`` for what the offline Actor cannot use in ``case.facts``.

    A case the offline roles play needs facts known from the start, facts released by stages,
    and at least one person; each fact's ``about`` words must be words a question can use (not
    all stopwords). LLM-only cases are not checked (the LLM Actor reads the prose).
    """
    if case.llm_roles_only:
        return []
    problems: list[tuple[str, str]] = []
    if not case.facts:
        return [("facts", "no answerable facts: the offline Actor cannot answer questions")]
    if not any(f.stage is None for f in case.facts):
        problems.append(("facts", "no fact is known from the start (stage: null)"))
    if not any(f.stage is not None for f in case.facts):
        problems.append(("facts", "no fact is tied to a plot stage"))
    if not any(f.kind == "person" for f in case.facts):
        problems.append(("facts", "no person fact (who the people in the story are)"))
    answers: dict[str, int] = {}
    stage_words = [
        stems(_EN.content_words(" ".join([s.summary, *s.narration]), min_length=3))
        for s in case.plot.stages
    ]
    data = case.model_dump(mode="json", by_alias=True)
    prose = frozenset(
        stems(
            _EN.words(
                without_accents(
                    " ".join(
                        [
                            *_prose(data),
                            *_key_facts(data),
                            *(f.answer for f in case.facts if f.kind == "person"),
                        ]
                    )
                )
            )
        )
    )
    for i, fact in enumerate(case.facts):
        if all(w in _EN.stopwords for w in fact.about):
            problems.append((f"facts[{i}].about", f"only stopwords: {list(fact.about)}"))
        subject = fact.about[0]
        if (
            subject in _EN.stopwords
            or subject in GENERIC_WORDS
            or not re.fullmatch(r"[^\W\d_][^\W\d_-]*(?:-[^\W\d_]+)*", subject)
        ):
            problems.append(
                (f"facts[{i}].about", f"the subject {subject!r} is not a word a question names")
            )
        elif _nameless(subject):
            problems.append(
                (
                    f"facts[{i}].about",
                    f"the subject {subject!r} names no thing (an adverb, a number)",
                )
            )
        elif _stem(without_accents(subject)) not in stems(_letters(fact.answer)) | prose:
            problems.append(
                (
                    f"facts[{i}].about",
                    f"the subject {subject!r} is neither in the answer nor the prose",
                )
            )
        if fact.kind == "person" and not any(w in RELATIONS for w in fact.about):
            problems.append((f"facts[{i}].kind", "a person fact names no relation in about"))
        if fact.kind == "duration" and not (
            _DURATION.search(fact.answer) or _NUMBER_RE.search(fact.answer)
        ):
            problems.append((f"facts[{i}].kind", "a duration fact says no duration or count"))
        if (
            fact.stage is not None
            and fact.stage < len(stage_words)
            and not stems(_EN.content_words(fact.answer, min_length=3)) & stage_words[fact.stage]
        ):
            problems.append((f"facts[{i}].stage", f"shares no word with plot stage {fact.stage}"))
        if fact.answer in answers:
            problems.append((f"facts[{i}].answer", f"same answer as facts[{answers[fact.answer]}]"))
        answers.setdefault(fact.answer, i)
    return problems


__all__ = [
    "GENERIC_WORDS",
    "RELATIONS",
    "draft_facts",
    "fact_issues",
    "fact_kind",
    "people",
    "salient_words",
    "stems",
]
