"""The attuned reply planner: read the user's latest message, follow the newest topic, choose
the moves the conversation's state calls for, and fill grammatical templates without repeating
a template or a phrase from the replies before.

A fixed program: the reply is a function of the messages alone (no model, no randomness)."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from baselines.policies.attuned import templates as t
from baselines.policies.attuned.chinese import chinese_reply
from baselines.policies.attuned.reading import FEELINGS, Event, Reading, read_message
from baselines.policies.attuned.text import has_han, lower_words, sentence_case
from empa_env.languages import ENGLISH_STOPWORDS
from empa_env.policy import ChatMessage

#: How many earlier replies a template must not appear in.
TEMPLATE_MEMORY = 8
#: From this many replies on, the planner also offers agency and next steps.
AGENCY_FROM_TURN = 5
#: Most of a reply must be the listener's own words: at most this share of its word triples may
#: come from the user's recent messages.
MAX_ECHO_SHARE = 0.45
#: Person and agreement folded away, so that a clause said back counts as the user's words.
_FOLD = {
    "i": "P", "me": "P", "you": "P", "my": "P's", "your": "P's", "mine": "P's", "yours": "P's",
    "myself": "P-self", "yourself": "P-self", "i'm": "P-be", "you're": "P-be", "i've": "P-have",
    "you've": "P-have", "i'd": "P-would", "you'd": "P-would", "i'll": "P-will", "you'll": "P-will",
    "am": "be", "are": "be", "was": "be-past", "were": "be-past",
}  # fmt: skip


@dataclass(frozen=True)
class Conversation:
    """The state the planner reads off the messages."""

    turn: int
    latest: Reading
    earlier: tuple[Reading, ...]
    replies: tuple[str, ...]
    user_texts: tuple[str, ...]

    @property
    def previous_reply(self) -> str:
        return self.replies[-1] if self.replies else ""


def conversation(messages: Sequence[ChatMessage]) -> Conversation:
    users = [m["content"] for m in messages if m["role"] == "user"]
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    readings = [read_message(u) for u in users] or [read_message("")]
    return Conversation(
        len(replies), readings[-1], tuple(readings[:-1]), tuple(replies), tuple(users)
    )


def plan_reply(messages: Sequence[ChatMessage]) -> str:
    """The attuned reply to ``messages`` (the conversation so far, ending with the user)."""
    users = [m["content"] for m in messages if m["role"] == "user"]
    if users and has_han(users[-1]):
        return chinese_reply(messages)
    convo = conversation(messages)
    skip: set[str] = set()
    cuts: dict[str, Event] = {}
    plain = False
    while True:
        parts = _compose(convo, skip, cuts, plain)
        event = _fresh_event(convo, skip, cuts)
        if _echo_share(" ".join(parts), convo.user_texts[-3:]) <= MAX_ECHO_SHARE or plain:
            break
        if event is None:
            plain = True  # name their feeling in a word instead of saying their sentence back
            continue
        # Too much of the reply is their own words: say back less of it, another one, or none.
        original = next(k for k, v in [*cuts.items(), (event.clause, event)] if v == event)
        shorter = event.shorter()
        if shorter:
            cuts[original] = shorter
        else:
            skip.add(original)
    return " ".join(sentence_case(p) for p in parts)


class _Writer:
    """Fills templates, skipping those an earlier reply used and phrases the last reply used."""

    def __init__(self, convo: Conversation) -> None:
        self.convo = convo
        self.recent = [r.lower() for r in convo.replies[-TEMPLATE_MEMORY:]]
        self.parts: list[str] = []

    def used(self, template: str) -> bool:
        return any(_literal(template) in r for r in self.recent) or any(
            _literal(template) in p.lower() for p in self.parts
        )

    def add(self, pool: Sequence[str], force: bool = False, **slots: str) -> bool:
        """Add the first template of ``pool`` (rotated by the turn) not used lately. When every one
        was: with ``force``, the one used longest ago; otherwise nothing. ``False`` if nothing
        was added (a slot it needs is missing, or the pool is used up)."""
        usable = [tpl for tpl in pool if all(f"{{{k}}}" not in tpl or v for k, v in slots.items())]
        usable = [tpl for tpl in usable if set(re.findall(r"{(\w+)}", tpl)) <= set(slots)]
        if not usable:
            return False
        start = (self.convo.turn + zlib.crc32(pool[0].encode())) % len(usable)
        ordered = usable[start:] + usable[:start]
        fresh = [tpl for tpl in ordered if not self.used(tpl)]
        if not fresh and not force:
            return False
        if fresh:  # prefer a template whose filled text repeats no phrase of the last reply
            echo = _phrases(self.convo.previous_reply)
            tpl = next((x for x in fresh if not _phrases(x.format(**slots)) & echo), fresh[0])
        else:
            tpl = min(ordered, key=self._last_use)
        self.parts.append(tpl.format(**slots))
        return True

    def first(self, *options: tuple[Sequence[str], dict[str, str]]) -> bool:
        """Add from the first of ``options`` (pool, slots) that has a fresh template."""
        return any(self.add(pool, False, **slots) for pool, slots in options)

    def _last_use(self, template: str) -> int:
        """How recently ``template`` was used (lower is longer ago)."""
        lit = _literal(template)
        return max((i for i, r in enumerate(self.recent) if lit in r), default=-1)


def _phrases(text: str) -> set[tuple[str, ...]]:
    """Word triples of ``text`` that carry a content word (what reads as a repeated phrase)."""
    ws = lower_words(text)
    return {
        g
        for g in zip(ws, ws[1:], ws[2:], strict=False)
        if any(w not in ENGLISH_STOPWORDS and len(w) > 2 for w in g)
    }


@lru_cache(maxsize=512)
def _literal(template: str) -> str:
    """The longest fixed piece of ``template``, lower-cased (what shows it was used)."""
    pieces = [p.strip(" .,;?") for p in re.split(r"{\w+}", template)]
    return max(pieces, key=len).lower()


def _compose(
    convo: Conversation, skip: set[str], cuts: dict[str, Event], plain: bool = False
) -> list[str]:
    w = _Writer(convo)
    r = convo.latest
    event = _fresh_event(convo, skip, cuts)
    phrase = _fresh_phrase(convo)
    if r.stance == "stop":
        w.add(t.CLOSE, force=True)
        opening = _opening_phrase(convo) or ""
        if opening and convo.replies and opening.lower() in convo.replies[-1].lower():
            opening = ""  # said in the last reply already (a second "let's stop"): not again
        w.add(t.THANKS, phrase=opening)
        w.add(t.DOOR_OPEN, force=True)
        return w.parts
    if r.stance == "pushback":
        if r.heard_verdict:
            w.add(t.NOT_SAYING, force=True, verdict=r.heard_verdict)
        else:
            w.add(t.REPAIR, force=True)
        if event:
            w.add(t.EVENT, force=True, event=event.clause)
            _ask_about(w, event, phrase)
        else:
            w.add(t.WHAT_DID_I_MISS, force=True)
        return w.parts
    if r.stance == "refusal":
        w.add(t.RESPECT, force=True)
        if event:
            w.add(t.EVENT, force=True, event=event.clause)
            _ask_about(w, event, phrase)
        else:
            w.add(t.RATHER, force=True)
        return w.parts
    if r.heard_verdict:
        w.add(t.NOT_SAYING, force=True, verdict=r.heard_verdict)
    acknowledged = _acknowledge_feeling(w, r, plain)
    if r.asks_if_wrong:
        if event:
            w.add(t.EVENT, force=True, event=event.clause)
        if r.asks_if_wrong in ("normal", "okay", "ok"):
            w.add(t.SOUNDS_HUMAN, force=True)
        else:
            w.add(t.NOT_WRONG, force=True, judged=r.asks_if_wrong)
        w.add(t.WHAT_MATTERS, force=True)
        return w.parts
    if r.self_judgement and not acknowledged:
        acknowledged = w.add(t.SELF_JUDGEMENT, statement=r.self_judgement)
    if r.asks_what_to_do:
        if event and not acknowledged:
            w.add(t.EVENT, force=True, event=event.clause)
        w.add(t.YOUR_CALL, force=True)
        w.add(t.WHAT_MATTERS, force=True)
        return w.parts
    if _repeats_earlier(convo) and not acknowledged:
        short = [e.clause for e in convo.latest.events if len(e.clause.split()) <= 10]
        told = min(short, key=len) if short else ""
        if told and _acknowledged(told, convo.replies[-1:]):
            told = ""  # the last reply said it back already
        owned = sorted(convo.latest.phrases, key=_owned, reverse=True)
        latest_phrase = owned[0] if owned else ""
        if latest_phrase and latest_phrase.lower() in convo.previous_reply.lower():
            latest_phrase = ""
        if w.add(t.REPEATED, phrase=latest_phrase, event=told) or (
            told and w.add(t.EVENT, event=told)
        ):
            _next_move(w, convo, None, None, acknowledged)
            return w.parts
        if latest_phrase and w.add(t.ASK_PHRASE, phrase=latest_phrase):
            return w.parts
    if not acknowledged and r.stance == "agree" and not event:
        w.add(t.GLAD)
    if event and (not acknowledged or len(w.parts) < 2):
        w.add(t.EVENT, force=True, event=event.clause)
    if not w.parts:
        w.first((t.NO_RUSH if r.stance == "unsure" else t.LISTENING, {}), (t.LISTENING, {}))
    _next_move(w, convo, event, phrase, acknowledged)
    return w.parts


def _opening_phrase(convo: Conversation) -> str | None:
    """What the conversation started from: the first noun phrase of the user's first message."""
    first = (convo.earlier or (convo.latest,))[0]
    return first.phrases[0] if first.phrases else None


def _repeats_earlier(convo: Conversation) -> bool:
    """Whether everything the latest message tells was said before in the conversation (or
    already said back by a recent reply)."""
    told = [e.clause for e in convo.latest.events]
    if convo.latest.feeling and convo.latest.feeling.statement:
        told.append(convo.latest.feeling.statement)
    before = {e.clause for r in convo.earlier for e in r.events}
    before |= {r.feeling.statement for r in convo.earlier if r.feeling}
    recent = convo.replies[-TEMPLATE_MEMORY:]
    return bool(told) and all(c in before or _acknowledged(c, recent) for c in told)


def phrase_is_new(convo: Conversation, phrase: str) -> bool:
    """Whether ``phrase`` comes from the latest message (not an earlier one)."""
    return phrase in convo.latest.phrases


def _acknowledge_feeling(w: _Writer, r: Reading, plain: bool = False) -> bool:
    if not r.feeling:
        return False
    if r.denied_feelings:
        w.add(t.FEELING_CORRECTED, denied=r.denied_feelings[0], feeling=r.feeling.word)
        return True
    if r.feeling.statement and not plain:
        return w.add(t.FEELING_STATEMENT, statement=r.feeling.statement)
    if not _adjective(r.feeling.word):
        return False
    return w.add(t.FEELING_WORD, feeling=r.feeling.word)


def _next_move(
    w: _Writer, convo: Conversation, event: Event | None, phrase: str | None, acknowledged: bool
) -> None:
    """The closing sentence: agency later in the conversation, otherwise one open question about
    what they just said."""
    agency_time = convo.latest.stance == "agree" or (event is None and convo.turn % 3 == 0)
    if convo.turn >= AGENCY_FROM_TURN and agency_time and w.add(t.AGENCY):
        return
    if event:
        _ask_about(w, event, phrase)
    elif (
        acknowledged
        and convo.latest.feeling
        and _adjective(convo.latest.feeling.word)
        and convo.turn % 2
    ):
        w.add(t.ASK_FEELING, feeling=convo.latest.feeling.word)
    elif phrase and phrase_is_new(convo, phrase) and _owned(phrase):
        w.first((t.ASK_PHRASE, {"phrase": phrase}), (t.OPEN, {}), (t.AGENCY, {}))
    else:
        w.first(
            (t.REVISIT, {"phrase": phrase or ""}),
            (t.OPEN, {}),
            (t.AGENCY, {}),
            (t.WHAT_MATTERS, {}),
        )


def _adjective(feeling: str) -> bool:
    """Whether ``feeling`` is a feeling adjective (``tired``), not a verb (``miss``)."""
    return feeling in FEELINGS


def _ask_about(w: _Writer, event: Event, phrase: str | None) -> None:
    owned = [p for p in event.phrases if _owned(p)]
    if owned and w.convo.turn % 4 == 3 and w.add(t.MEANING, phrase=owned[0]):
        return
    if phrase and phrase in event.phrases and _owned(phrase) and w.convo.turn % 3 == 2:
        w.add(t.ASK_PHRASE, phrase=phrase)
    else:
        w.first(
            (t.ASK_PAST if event.past else t.ASK_PRESENT, {}),
            (t.ASK_PRESENT if event.past else t.ASK_PAST, {}),
            (t.OPEN, {}),
        )


def _fresh_event(convo: Conversation, skip: set[str], cuts: dict[str, Event]) -> Event | None:
    """The event of the latest message that no recent reply has said back yet, preferring one
    that names something (a noun phrase or a name) over one that leans on ``it`` or ``that``,
    and the newest among equals."""
    candidates = [
        e
        for e in convo.latest.events
        if e.clause not in skip
        and not _acknowledged(e.clause, convo.replies[-TEMPLATE_MEMORY:])
        and not (convo.latest.feeling and e.clause == convo.latest.feeling.statement)
    ]
    if any(_names_something(e) >= 0 for e in convo.latest.events):
        # "I see it pass sometimes" is no reflection once the truck it means is left out
        candidates = [e for e in candidates if _names_something(e) >= 0]
    if not candidates:
        return None
    _, best = max(
        enumerate(candidates), key=lambda ie: (ie[1].wish, _names_something(ie[1]), ie[0])
    )
    return cuts.get(best.clause, best)


def _names_something(event: Event) -> int:
    words = event.clause.split()
    named = bool(event.phrases) or any(w[:1].isupper() for w in words[1:])
    leaning = any(w.strip(",").lower() in ("it", "that", "this", "them", "there") for w in words)
    return int(named) - int(leaning and not named)


def _fresh_phrase(convo: Conversation) -> str | None:
    """The newest noun phrase the user said that the last reply did not use (the latest message
    first, then the one before)."""
    last = convo.previous_reply.lower()
    for reading in (convo.latest, *convo.earlier[-1:]):  # the newest topic, never an old one
        fresh = [p for p in reversed(reading.phrases) if p.lower().split(" ", 1)[-1] not in last]
        if fresh:
            return max(fresh, key=_owned)  # someone's ("your son") before any ("the stone")
    return None


def _owned(phrase: str) -> bool:
    """Whether ``phrase`` belongs to someone (``your son``, ``her hat``)."""
    return phrase.split()[0] in ("your", "his", "her", "their")


def _acknowledged(clause: str, replies: Sequence[str]) -> bool:
    words = set(lower_words(clause))
    return any(len(words & set(lower_words(r))) >= 0.7 * len(words) for r in replies)


def _echo_share(reply: str, user_texts: Sequence[str]) -> float:
    """Share of the reply's word triples (pronouns turned around) found in ``user_texts``."""
    words = [_FOLD.get(x, x) for x in lower_words(reply)]
    grams = [tuple(words[i : i + 3]) for i in range(len(words) - 2)]
    said: set[tuple[str, ...]] = set()
    for text in user_texts:
        u = [_FOLD.get(x, x) for x in lower_words(text)]
        said.update(tuple(u[i : i + 3]) for i in range(len(u) - 2))
    return sum(g in said for g in grams) / len(grams) if grams else 0.0


__all__ = ["Conversation", "conversation", "plan_reply"]
