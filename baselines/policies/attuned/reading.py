"""A sentence-level reading of the user's latest message: how they took the last reply (agree,
unsure, push back, refuse a topic, want to stop), the feeling they name, what they ask, and what
they tell (events, as clauses the listener can say back, and whole noun phrases)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from baselines.policies.attuned.text import (
    LOWER_WORDS,
    NOT_NOUN,
    addresses_listener,
    content_words,
    lower_words,
    mid_sentence,
    noun_phrases,
    sentences,
    to_listener,
    words,
)


def _wordset(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``."""
    return frozenset(text.split())


Stance = Literal["stop", "pushback", "refusal", "agree", "unsure", "neutral"]

#: How the user takes the conversation, by cue (lower-case, matched on word boundaries); the first
#: stance with a cue wins, in this order.
STANCE_CUES: tuple[tuple[Stance, tuple[str, ...]], ...] = (
    ("stop", (
        "let's stop", "stop here", "enough for today", "that's enough", "i have to go",
        "i need to go", "goodbye", "talk later", "leave it there", "i'm done talking",
    )),
    ("pushback", (
        "you don't understand", "you don't get it", "not what i said", "not what i meant",
        "not my point", "not my argument", "you sound like", "cheap line", "easy words",
        "easy for you", "not helpful", "doesn't help", "heard that one", "heard that before",
        "don't say", "not asking for", "that's not it", "not that one", "forget it",
        "not listening", "a cold thing", "off, you", "stop telling", "i'm not a child",
        "i'm not being", "not feeling sorry for myself", "don't pity me",
        "don't tell me", "i know already", "glib", "i don't need", "not a case study",
        "won't understand", "wouldn't understand", "harsh", "not here for", "as if i had a choice", "that's rich", "spare me", "don't lecture", "talk to me like", "speak to me like",
    )),
    ("refusal", (
        "rather not", "don't want to talk", "don't want to go over", "don't really want to",
        "not going there", "no feelings talk", "not talking about", "leave that",
        "not go there", "needn't go there", "park that", "keep to the facts", "go into that",
        "change the subject", "let's not", "please, no", "please no",
    )),
    ("agree", (
        "that's it", "exactly", "you're right", "that helps", "that helped", "helped more",
        "that's the word", "makes sense", "you get it", "you understand", "nobody's said",
        "nobody has said", "never looked at it like that", "hadn't framed", "that's true",
        "that is the part", "that's the part", "size of it", "gives me some strength",
    )),
    ("unsure", (
        "maybe", "perhaps", "not sure", "don't know", "could be", "possibly", "partly",
        "hard to say", "we will see", "we'll see", "i'll think", "let me think", "might be",
        "may be", "i suppose", "i guess",
    )),
)  # fmt: skip

#: Feeling words (adjectives a person uses of themselves), by family.
FEELING_FAMILIES: dict[str, tuple[str, ...]] = {
    "anger": ("angry", "furious", "annoyed", "frustrated", "bitter", "resentful", "mad", "irritated",
              "livid", "fed"),
    "sadness": ("sad", "lonely", "empty", "heartbroken", "broken", "miserable", "down", "low",
                "grieving", "gutted", "alone", "homesick"),
    "fear": ("scared", "afraid", "anxious", "worried", "nervous", "terrified", "frightened",
             "panicked", "restless", "uneasy", "tense"),
    "shame": ("ashamed", "embarrassed", "guilty", "useless", "worthless", "stupid", "silly",
              "humiliated", "small", "pathetic"),
    "weariness": ("tired", "exhausted", "drained", "worn", "numb", "burnt", "burned"),
    "confusion": ("confused", "lost", "stuck", "torn", "overwhelmed", "trapped", "unsure"),
    "hurt": ("hurt", "betrayed", "rejected", "invisible", "unseen", "unwanted", "left", "jealous",
             "disappointed", "upset"),
    "relief": ("relieved", "proud", "happy", "glad", "grateful", "hopeful", "calmer", "lighter",
               "better"),
}  # fmt: skip
FEELINGS = {w: family for family, ws in FEELING_FAMILIES.items() for w in ws}
LOWER_WORDS.update(FEELINGS)
#: Words that make ``I'm ...`` a feeling statement only when a feeling word follows.
_INTENSIFIERS = ("so", "very", "really", "a little", "a bit", "quite", "pretty", "only", "just",
                 "more", "less", "still", "also", "too", "kind of", "sort of", "a little bit")  # fmt: skip
_INTENSIFIER_ALTS = "|".join(re.escape(w) for w in _INTENSIFIERS)
_FEELING_RE = re.compile(
    r"\b(?:i'm|i am|i feel|i felt|i was|i get|i got|i've been|i have been|i keep feeling|"
    r"feels|feel|makes me|made me|leaves me|left me)\s+"
    rf"((?:(?:{_INTENSIFIER_ALTS})\s+)*)(not\s+)?([a-z]+)"
)
#: Feelings said with a verb: ``I miss her so much``, ``I hate that ...``.
_FEELING_VERBS = {"miss": "sadness", "hate": "anger", "regret": "shame", "dread": "fear",
                  "fear": "fear", "resent": "anger", "love": "relief"}  # fmt: skip
_FEELING_VERB_ALTS = "|".join(_FEELING_VERBS)
_FEELING_VERB_RE = re.compile(
    rf"^(?:and |but |honestly |so )?i (?:really |still |just )?({_FEELING_VERB_ALTS})\b"
)
#: ``I'm only an old man``: the user judges themselves.
_SELF_JUDGEMENT = re.compile(r"^(?:i'm|i am) (?:only|just|nothing but|such) (?:a|an) ")
_NEGATION = re.compile(r"\b(?:not|never|n't|no longer)\b|n't\b")
_WHAT_TO_DO = re.compile(
    r"\b(?:what (?:do|should|can) i do|what to do|should i\b|what would you do|how do i|"
    r"what am i supposed to|where do i start|tell me what to|what to tell|what to say)"
)
#: ``So I'm selfish.`` / ``So I should just be grateful.``: the user hears a verdict in the reply.
_HEARD_VERDICT = re.compile(
    r"^(?:i see\. )?so (i'm|i am|i should|i must|i have to|the problem is|the trouble is|"
    r"it's (?:my fault|on me|all me|all my|me))"
    r"(?:\s+(.+?))?[.!?]*$",
    re.I,
)
#: ``Is that wrong?``: the user asks whether they are allowed to want or feel something.
_IS_IT_WRONG = re.compile(
    r"\b(?:is|isn't) (?:that|it) (?:very |so |really |too )?(wrong|selfish|bad|crazy|stupid|silly|"
    r"weak|terrible|awful|mad|normal|okay|ok)\b"
)
_WANTS = frozenset(["want", "wants", "need", "needs", "wish", "hope"])
_HEDGES = re.compile(
    r"^(?:maybe|perhaps|i think|i guess|i suppose|i know|honestly|mostly|probably|really),?\s+",
    re.I,
)
_SUBORDINATE = frozenset(["if", "unless", "because", "although", "though", "whether"])
_PRESENT = _wordset("is are am has have 's 're 've do does can will keeps wants needs still now")
#: Words about the conversation itself, not about the user's life.
_META = _wordset(
    "think thinking thought sure know say said mean meant answer talk talking help helps helped "
    "sense true point question feel feeling idea sound sounds right wrong listen word words "
    "continue carry next data factor chew strength possible exactly understand guess guessing "
    "manage managing fine okay suppose supposed sorry"
)
_PAST = _wordset(
    "was were had did went came gave took said sat left got made saw told bought drove brought "
    "thought felt kept lost found sold ran stood held won ate wrote met knew became began broke "
    "hid paid sent spent taught heard fell forgot ago yesterday"
)
#: Sentences starting so comment on the last reply or ask something of the listener.
_NOT_EVENT_STARTS = _wordset(
    "that this it it's that's there there's let let's please don't do stop keep go look listen "
    "yes no not give tell say ask sorry"
)
_NOT_PAST_ED = _wordset("need feed bed red seed speed hundred used shed bleed breed wed")


_VERBS = _wordset(
    "is are was were has had have does did do can could will would must should says said goes "
    "comes keeps wants needs thinks knows"
)


def _has_verb(lows: list[str]) -> bool:
    """Whether a clause has a finite verb: a common one, a past form, a word after ``I`` or a
    third-person ``-s`` right after its subject (``Mom leaves a tray``)."""
    after_i = any(a in ("i", "we") for a in lows[:-1])
    if after_i or any(w in _VERBS or w in _PAST for w in lows):
        return True
    if any(w.endswith("ed") and w not in _NOT_PAST_ED and w not in FEELINGS for w in lows[1:]):
        return True
    return any(w.endswith("s") and not w.endswith("ss") for w in lows[1:3])


@dataclass(frozen=True)
class Feeling:
    """A feeling the user names of themselves.

    Attributes:
        word: the feeling word as they said it (``angry``).
        family: its family (``anger``, ``sadness``, ...).
        statement: their sentence said back from the listener (``you're angry that ...``, no end
            mark, first letter as it reads mid-sentence) or ``""`` when it cannot be said back.
    """

    word: str
    family: str
    statement: str


_REPORTING = frozenset(["said", "says", "told", "tells", "thinks", "thought", "believes", "knew"])
#: Words a clause can be cut before without breaking it.
_CUT_BEFORE = frozenset(
    ["and", "at", "in", "on", "from", "for", "with", "by", "during", "under", "over", "into"]
)


@dataclass(frozen=True)
class Event:
    """Something the user tells: their clause said back from the listener (no end mark)."""

    clause: str
    past: bool
    phrases: tuple[str, ...]
    wish: bool = False

    def shorter(self) -> Event | None:
        """The clause without its last coordinated part or prepositional phrase (``Pa knelt in
        the straw at three and prayed`` -> ``Pa knelt in the straw at three``), keeping at least
        four words; ``None`` when it cannot be cut."""
        ws = self.clause.split()
        for i in range(len(ws) - 1, 3, -1):
            reported = any(w.lower() in _REPORTING for w in ws[:i])  # "she said a farmer | with"
            if ws[i].lower() in _CUT_BEFORE and not ws[i - 1].endswith(",") and not reported:
                return Event(" ".join(ws[:i]).rstrip(","), self.past, self.phrases, self.wish)
        return None


@dataclass(frozen=True)
class Reading:
    """What the planner knows about one user message."""

    text: str
    stance: Stance
    feeling: Feeling | None
    denied_feelings: tuple[str, ...]
    asks_what_to_do: bool
    heard_verdict: str | None
    asks_if_wrong: str | None
    self_judgement: str | None
    events: tuple[Event, ...]
    phrases: tuple[str, ...]
    content: frozenset[str]

    @property
    def has_content(self) -> bool:
        return bool(self.events or self.phrases or self.feeling)


@lru_cache(maxsize=4096)
def read_message(text: str) -> Reading:
    """Read one user message sentence by sentence (cached: a conversation is read again on
    every turn)."""
    low = " ".join(lower_words(text.replace("’", "'")))
    said = sentences(text)
    feeling, denied = _feelings(said)
    verdict = None
    for s in said[:2]:
        m = _HEARD_VERDICT.match(s.strip())
        if m and not addresses_listener(m.group(2) or ""):
            verdict = to_listener(f"{m.group(1).lower()} {m.group(2) or ''}".strip())
            verdict = verdict[:1].lower() + verdict[1:]
            break
    events = tuple(e for e in (_event(s) for s in said) if e is not None)
    if verdict:
        events = tuple(e for e in events if e.clause not in verdict)
    if verdict and feeling and feeling.statement and feeling.statement in verdict:
        feeling = None  # "So I'm selfish.": a verdict they heard, not a feeling
    judged = _IS_IT_WRONG.search(low)
    phrases: list[str] = []
    for s in said:
        first = lower_words(s)[:1]
        if not addresses_listener(s) and not (first and first[0] in _NOT_EVENT_STARTS):
            phrases.extend(p for p in noun_phrases(s) if p not in phrases)
    return Reading(
        text=text,
        stance=_stance(low),
        feeling=feeling,
        denied_feelings=tuple(denied),
        asks_what_to_do=bool(_WHAT_TO_DO.search(low)),
        heard_verdict=verdict,
        asks_if_wrong=judged.group(1) if judged else None,
        self_judgement=next(
            (_statement(s) for s in said if _SELF_JUDGEMENT.match(s.lower())), None
        ),
        events=tuple(
            e
            for e in events
            if not _SELF_JUDGEMENT.match(
                e.clause.replace("you are", "i am").replace("you're", "i'm")
            )
        ),
        phrases=tuple(phrases),
        content=frozenset(content_words(text)),
    )


def _stance(low: str) -> Stance:
    padded = f" {low} "
    for stance, cues in STANCE_CUES:
        if any(f" {' '.join(lower_words(cue))} " in padded for cue in cues):
            return stance
    return "neutral"


def _feelings(said: list[str]) -> tuple[Feeling | None, list[str]]:
    named: Feeling | None = None
    denied: list[str] = []
    for s in said:
        low = " ".join(lower_words(s))
        for m in _FEELING_RE.finditer(low):
            word = m.group(3)
            if word not in FEELINGS:
                continue
            before = low[: m.start(3)]
            clause_start = max(before.rfind(","), before.rfind(" but "), 0)
            if m.group(2) or _NEGATION.search(before[clause_start:]):
                denied.append(word)
                continue
            named = Feeling(word, FEELINGS[word], _statement(s))
        verb = _FEELING_VERB_RE.match(low)
        if verb and _statement(s):
            named = Feeling(verb.group(1), _FEELING_VERBS[verb.group(1)], _statement(s))
    if named and named.word in denied:
        named = None
    return named, denied


def _statement(sentence: str) -> str:
    """The feeling sentence said back (``you're so angry that someone touched your things``), or
    ``""`` if it addresses the listener or is too long to say back without parroting."""
    text = re.sub(
        r"^(?:honestly|and|but|so|just|well|also|now),?\s+", "", sentence.strip(), flags=re.I
    )
    text = text.rstrip(".!?").strip()
    tail = text.rsplit(",", 1)
    if len(tail) == 2 and len(words(tail[1])) <= 3:
        text = tail[0].strip()  # "I am a little lonely, maybe"
    n = len(words(text))
    if addresses_listener(text) or n < 2 or n > 13 or not re.match(r"(?i)(i\b|i'm|my\b)", text):
        return ""
    return mid_sentence(to_listener(text))


def _event(sentence: str) -> Event | None:
    """``sentence`` as a clause the listener can say back, when it tells something about the
    user's life: four to thirteen words (a long sentence's first clause), with a subject (``I``,
    a person or thing they name) and a verb, not addressed to the listener, not a comment on the
    last reply, not a question."""
    text = sentence.strip()
    if text.endswith("?") or addresses_listener(text):
        return None
    text = re.sub(
        r"^(?:and|but|so|well|also|now|then|oh|ah|um|uh|yeah|okay|ok|anyway|honestly),?\s+",
        "", text, flags=re.I,
    )  # fmt: skip
    text = _HEDGES.sub("", _HEDGES.sub("", text))
    body = text.rstrip(".!").strip()
    if len(words(body)) > 18 and "," in body:
        body = body.split(",", 1)[0]  # "My mother fried char koay teow all day, then ..."
    tail = body.rsplit(",", 1)
    hedge_tail = len(tail) == 2 and _HEDGE_TAIL.match(tail[1].strip().lower())
    if (
        hedge_tail
        or len(tail) == 2
        and len(words(tail[1])) <= 3
        and not set(lower_words(tail[1])) & _SUBJECT_WORDS
    ):
        body = tail[0].strip()  # "he greets me every morning, very polite"
    ws = words(body)
    lows = [w.lower() for w in ws]
    if not 4 <= len(ws) <= 18 or lows[0] in _NOT_EVENT_STARTS or lows[0] in _SUBORDINATE:
        return None
    if lows[0] in _PREPOSITIONS and (noun_phrases(body) or _OWN_WORDS & set(lows)):
        lows_rest = lows[1:]
        ws_rest = ws[1:]
    else:
        lows_rest, ws_rest = lows, ws
    own = bool({"i", "my", "we", "our", "i'm", "i've", "i'd", "i'll"} & set(lows))
    first, low0 = ws_rest[0], lows_rest[0]
    name = first[:1].isupper() and low0 not in NOT_NOUN and low0 not in LOWER_WORDS
    name = name and not low0.endswith(("ed", "ing", "ly"))
    subject = name or low0 in _SUBJECT_WORDS or low0 in ("the", "a", "an", "this")
    subject = subject or (lows[0] in _PREPOSITIONS and bool(noun_phrases(body)))
    if not (own or subject) or not _has_verb(lows):
        return None
    if not (set(lows) - NOT_NOUN - _META - set(FEELINGS)):
        return None
    if body.count('"') % 2 or _ABOUT_THE_REPLY.search(body.lower()):
        return None
    past = _past(lows)
    clause = mid_sentence(to_listener(body))
    return Event(clause, past, tuple(noun_phrases(body)), bool(_WANTS & set(lows)))


_HEDGE_TAIL = re.compile(r"^i (?:swear|think|thought|guess|suppose|know|mean|promise|said)$")
#: ``I've wondered that myself``: a comment on the last reply, not something that happened.
_ABOUT_THE_REPLY = re.compile(
    r"\b\w+ that (?:myself|to (?:others|me)|before|already|too|again)\b|"
    r"\bsaid (?:it|that) like (?:that|this)\b|\bthought of it\b"
)
_PREPOSITIONS = frozenset(["at", "in", "on", "after", "before", "during", "since"])
_OWN_WORDS = frozenset(["i", "my", "we", "our", "i'm", "i've", "i'd", "i'll"])
_SUBJECT_WORDS = frozenset(
    ["i", "he", "she", "we", "they", "my", "his", "her", "our", "their", "it"]
)


def _past(lows: list[str]) -> bool:
    """Whether the clause's first finite verb is in the past tense."""
    for i, w in enumerate(lows):
        if w in _PRESENT or w.endswith(("'s", "'re", "'ve")):
            return False
        if w in _PAST or (
            w.endswith("ed") and w not in _NOT_PAST_ED and w not in FEELINGS and i > 0
        ):
            return True
    return False


__all__ = ["FEELINGS", "FEELING_FAMILIES", "Event", "Feeling", "Reading", "Stance", "read_message"]
