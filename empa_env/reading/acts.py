"""What one sentence does: its acts, read from its form and the meaning of its words.

Acts (a sentence may do several):

* ``question``: asks something in form (a question mark, or an interrogative opening with no end
  mark), ``request``: asks in a statement ("tell me about ...", "I wonder who ...");
* ``advice``: tells the listener what to do ("you should", "try ...", "have you tried ...?", an
  imperative);
* ``closing``: ends the conversation (a leave-taking formula standing as a clause, the writer
  announcing they leave, or an arrangement to meet again: "Same time next week?");
* ``self_disclosure``: the writer tells something of their own life ("I lost my dad last year");
* ``understanding``: claims to understand or to share the experience ("I get it", "been there");
* ``warmth``: sympathy, compassion, care or encouragement toward the listener;
* ``thanks``, ``apology`` (for the writer's own words or acts, not sympathy), ``humour``,
  ``greeting``.

``addressee`` says whom the sentence is about: ``"user"`` (second person), ``"self"`` (first
person and no second person), ``"other"`` (a third person or nobody in particular).
``question_kind`` says what a question asks for: ``who``, ``when``, ``where``, ``duration``,
``amount``, ``why``, ``how``, ``what``, ``choice`` (either/or), ``yesno`` or ``open``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from empa_env.reading.lexicon import lemma, lexicon, parts_of_speech
from empa_env.reading.tokens import (
    Cut,
    Token,
    has_any_phrase,
    has_phrase,
    joined_words,
    tokens_of,
    word_set,
)

ACTS = (
    "question", "request", "advice", "closing", "self_disclosure", "understanding", "warmth",
    "thanks", "apology", "humour", "greeting",
)  # fmt: skip

_AUX_OPEN = word_set(
    "do does did don't doesn't didn't is isn't are aren't was wasn't were weren't have has had "
    "haven't hasn't can can't could couldn't would wouldn't will won't should shouldn't shall "
    "may might am"
)
_DISCOURSE = word_set("so and but ok okay well also then now oh hmm honestly just anyway")
#: Adverbs that may open an imperative ("Definitely talk to your doctor", "Maybe go out").
_IMPERATIVE_OPENERS = _DISCOURSE | word_set(
    "definitely maybe perhaps really please seriously always never simply at least first"
)
_MENTAL_SELF = word_set(
    "think hope wish wonder guess feel understand know imagine hear see believe mean suppose "
    "bet sorry glad here want love appreciate agree admire care am get"
)
_UNDERSTAND = (
    ("i", "understand"), ("i", "get", "it"), ("i", "get", "that"), ("i", "get", "you"),
    ("i", "feel", "you"), ("i", "hear", "you"), ("i", "know", "how"), ("i", "know", "what"),
    ("i", "know", "the", "feeling"), ("know", "that", "feeling"), ("been", "there"),
    ("same", "here"), ("me", "too"), ("same", "boat"), ("can", "relate"), ("i", "relate"),
    ("makes", "sense"), ("make", "sense"), ("i", "can", "imagine"), ("i", "can", "see"),
    ("i", "went", "through"), ("i've", "been", "through"), ("happened", "to", "me"),
    ("same", "thing"), ("i", "was", "the", "same"), ("i", "felt", "the", "same"),
)  # fmt: skip
_REQUEST_OPENERS = (
    ("tell", "me"), ("i", "wonder"), ("i'm", "wondering"), ("i", "was", "wondering"),
    ("i'd", "love", "to", "hear"), ("i'd", "like", "to", "hear"), ("i'd", "like", "to", "know"),
    ("i'm", "curious"), ("i", "am", "curious"), ("say", "more"), ("talk", "me", "through"),
    ("walk", "me", "through"), ("help", "me", "understand"), ("i'd", "love", "to", "know"),
    ("do", "tell"), ("share", "more"),
)  # fmt: skip
_ADVICE_MODALS = (
    ("you", "should"), ("you", "could"), ("you", "need", "to"), ("you", "have", "to"),
    ("you", "must"), ("you", "ought"), ("you", "might", "want"), ("you", "may", "want"),
    ("you'd", "better"), ("you", "better"), ("have", "you", "tried"),
    ("have", "you", "considered"), ("have", "you", "thought", "about"),
    ("why", "don't", "you"), ("why", "not"), ("how", "about"), ("what", "about", "trying"),
    ("maybe", "try"), ("try", "to"), ("it", "might", "help"), ("it", "could", "help"),
    ("it", "may", "help"), ("consider",), ("i", "suggest"), ("i'd", "suggest"),
    ("i", "recommend"), ("i'd", "recommend"), ("my", "advice"), ("if", "i", "were", "you"),
    ("you", "can", "try"), ("you", "could", "try"), ("just",),
)  # fmt: skip
_ADVICE_MODALS_NOT_JUST = tuple(p for p in _ADVICE_MODALS if p != ("just",))
#: Verbs after a sentence's first word that make that word a subject, not an imperative ("Shame
#: seems ...", "Work has ...").
_SUBJECT_VERBS = word_set(
    "is was are were has had have seems seemed sounds sounded feels felt makes made looks looked "
    "can could will would must might may does did 's"
)
_ADVICE_QUESTIONS = (
    ("have", "you", "tried"), ("have", "you", "considered"), ("have", "you", "thought", "about"),
    ("why", "don't", "you"), ("why", "not"), ("what", "about", "trying"), ("how", "about"),
    ("could", "you", "try"), ("can", "you", "try"), ("would", "it", "help", "to"),
    ("shouldn't", "you"), ("can't", "you", "just"), ("did", "you", "try"), ("maybe", "try"),
    ("wouldn't", "it", "be", "better"), ("have", "you", "tried"),
)  # fmt: skip
#: Imperatives that are not advice ("Tell me more", "Take care", "Thank you").
_SOCIAL_IMPERATIVES = word_set(
    "tell let thank take say talk please go keep imagine picture remember hang sorry look hey "
    "listen see excuse forgive bless"
)
#: Ways of owning a slip of one's own in a conversation, with or without a word of pardon
#: ("my bad", "scratch that", "let me rephrase", "I shouldn't have said that").
_OWNING = (
    ("my", "bad"), ("my", "b"), ("my", "mistake"), ("my", "fault"), ("mea", "culpa"),
    ("my", "apologies"), ("forgive", "me"), ("forgive", "the"), ("forgive", "my"),
    ("pardon", "me"), ("pardon", "the"), ("pardon", "my"), ("beg", "your", "pardon"),
    ("excuse", "me"), ("excuse", "the"), ("excuse", "my"), ("i", "apologise"),
    ("i", "apologize"), ("i", "apologised"), ("i", "apologized"), ("i", "owe", "you", "an"),
    ("i", "owe", "you", "a"), ("take", "that", "back"), ("take", "it", "back"),
    ("i", "take", "back"), ("scratch", "that"), ("scratch", "what"), ("let", "me", "rephrase"),
    ("let", "me", "try", "that", "again"), ("let", "me", "try", "again"),
    ("let", "me", "say", "that", "better"), ("let", "me", "start", "over"),
    ("let", "me", "put", "that"), ("i", "put", "that", "badly"), ("i", "shouldn't", "have"),
    ("i", "should", "not", "have"), ("i", "was", "out", "of", "line"),
    ("that", "was", "out", "of", "line"), ("came", "out", "wrong"), ("come", "out", "wrong"),
    ("bad", "wording"), ("i", "misread"), ("i", "misremembered"), ("i", "misunderstood"),
    ("i", "mixed"), ("i", "messed"), ("i", "got", "that", "wrong"), ("i", "got", "it", "wrong"),
    ("i", "got", "that", "backwards"), ("i", "got", "that", "the", "wrong"),
    ("i", "spoke", "too", "soon"), ("i", "was", "wrong"), ("i", "stand", "corrected"),
    ("on", "second", "thought"), ("ignore", "me"), ("disregard", "what", "i"),
    ("disregard", "my"), ("disregard", "that"),
    ("retracting",), ("correction",), ("wrong", "chat"), ("wrong", "window"),
    ("i", "wasn't", "listening"), ("i", "feel", "bad", "that", "i"),
)  # fmt: skip
#: Auxiliaries that, before "I", make a question of what follows ("have I got that wrong?").
_ASKING_AUX = ("have", "did", "do", "am", "was", "had")
#: Interjections of one's own slip.
_OOPS = word_set("oops whoops oopsie woops")
#: Words that ask pardon when the writer says them of themself ("Apologies, ...", "I apologise",
#: "I regret saying ..."); not "you don't have to apologise", "did he apologise?".
_PARDON_WORDS = word_set("apologies apologise apologize apology regret")
#: "sorry" as texting writes it.
_SORRY = word_set("sorry sry srry soz sowwy sorryyy")
#: Words after "sorry" (within two) that make it sympathy with the listener's lot ("sorry you're
#: going through this", "sorry to hear", "sorry for your loss", "sorry about what happened").
_SYMPATHY_AFTER = word_set(
    "you you're your yours to hear what everything all he she they it people someone everyone "
    "things life this"
)
#: A slip in a conversation: what an apology in one is for ("the typo", "the double message").
_SLIP = word_set(
    "typo typos message messages text wording word words name reply replies comment tone wall "
    "joke advice question questions delay confusion mix-up mixup muddle autocorrect rambling "
    "rant interruption late slow"
)
#: Verbs of knowing and feeling after "Sorry, I ...": sympathy ("Sorry, I know this is a lot").
_FEEL_VERBS = word_set("know knew imagine wish hope feel understand can can't cannot")
#: Words of the writer in a sentence that asks pardon for their own words or acts.
_WRITER_SELF = word_set("i me my myself i've i'd")


def _unquoted_words(text: str) -> list[str]:
    """The words of ``text`` outside quotation marks (what someone else said is quoted: "He just
    said 'excuse me' and shoved past you" asks no pardon)."""
    bare = re.sub(r'"[^"]*"|\u201c[^\u201d]*\u201d', " ", text)
    return [t.text for t in tokens_of(bare)]


def _apologises(words: list[str]) -> bool:
    """An apology for the writer's own words or acts in any wording: a way of owning a slip
    (:data:`_OWNING`), or "sorry" that is not sympathy: conditional ("Sorry if that came across as
    pushy"), for a slip or a deed of the writer's ("Sorry for the late reply", "Sorry for cutting
    in"), or with the writer's own doing in the sentence ("Sorry, I rushed you", "What a strange
    thing for me to say; sorry"); not "I'm sorry you're going through this", "Sorry to hear that",
    "Sorry, I know this is a lot", "You don't have to apologise"."""
    joined = joined_words(words)
    # "... or have I got that wrong?", "did I misunderstand?": a check of what was understood,
    # asked with the auxiliary before "I", not a slip owned
    owning = [
        p for p in _OWNING
        if has_phrase(joined, p)
        and not (p[0] == "i" and any(has_phrase(joined, (aux, *p)) for aux in _ASKING_AUX))
    ]  # fmt: skip
    if owning:
        return words[:1] != ["you"] and "don't" not in words[:3]
    if any(w in _OOPS for w in words):
        return True  # "Oops, said Monday, meant Sunday."
    for k, w in enumerate(words):
        if (
            w in _PARDON_WORDS
            and "you" not in words[:k]
            and (k == 0 or any(x in _WRITER_SELF for x in words[:k]))
        ):  # "Apologies, I wrote 'husband'", "I would like to apologise", "I regret saying"
            return not (w == "regret" and words[k + 1 : k + 2] == ["nothing"])
    at = next((k for k, w in enumerate(words) if w in _SORRY), -1)
    if at < 0 or "say" in words[max(0, at - 2) : at] or words[at - 1 : at] in (["you're"], ["be"]):
        return False  # "You don't have to say sorry for the typos", "never be sorry for that"
    after = words[at + 1 : at + 3]
    if after[:1] in (["for"], ["about"], ["that"]) and after[1:2] and after[1] in _SYMPATHY_AFTER:
        return False  # "sorry for what happened", "sorry that your message got ignored"
    if has_phrase(joined, ("of", "me")):
        return True  # "That was insensitive of me, I'm sorry."
    if after[:1] == ["if"] or after[:2] in (["for", "my"], ["about", "my"], ["for", "being"]):
        return True
    if after[:1] in (["for"], ["about"]) and after[1:2]:
        nxt = after[1]
        if nxt.endswith("ing") or nxt in _SLIP:  # "sorry for cutting in", "for the typo"
            return True
        if nxt in ("the", "that", "this", "all") and any(
            w in _SLIP for w in words[at + 3 : at + 6]
        ):
            return True
    if after[:1] and after[0] in _SYMPATHY_AFTER:
        return False
    rest = [w for w in words if w not in _SORRY]
    if any(w in _FEEL_VERBS for w in rest[:4]) and not any(w in _SLIP for w in rest):
        return False  # "Sorry, I know this is a lot", "I'm sorry, I can only imagine"
    own = any(w in _WRITER_SELF for w in rest)
    doing = any(
        w.endswith(("ed", "ing"))
        or w in _OWN_DOING
        or (lemma(w) != w and not w.endswith("s") and w not in _AUXILIARY_FORMS)  # "went"
        for w in rest
    )
    return (own and doing) or any(w in _SLIP for w in rest)


_AUXILIARY_FORMS = word_set("been was were had did done being having")
#: Words of a writer's own saying or doing that an apology is for.
_OWN_DOING = word_set(
    "say said ask asked wrote write put meant mean got jumped rushed pushed used missed forgot "
    "interrupted assumed wrong mistake earlier before"
)


_MEET_AGAIN = word_set(
    "tomorrow tonight later soon monday tuesday wednesday thursday friday saturday sunday "
    "weekend week time"
)
_FAREWELL_WORDS = word_set(
    "bye goodbye byebye farewell cheers cheerio ciao ttyl gtg cya laters goodnight adios"
)
#: Words before a farewell word that make it a noun or a report ("a proper goodbye", "she said
#: goodbye", "the word 'bye'"), not a farewell.
_NOT_FAREWELL_BEFORE = word_set(
    "said says saying a the his her their proper final last real long quick word no any"
)
_QUESTION_KINDS = {
    "who": "who", "whom": "who", "whose": "who", "when": "when", "where": "where",
    "why": "why", "how": "how", "what": "what", "which": "choice",
}  # fmt: skip


#: Open alternatives after "or" and the question each stands for.
_OPEN_ALTERNATIVES = (
    (("someone",), "who"), (("somebody",), "who"), (("anyone",), "who"), (("anybody",), "who"),
    (("who",), "who"), (("somewhere",), "where"), (("some", "other", "place"), "where"),
    (("another", "place"), "where"), (("elsewhere",), "where"), (("where",), "where"),
    (("some", "other", "way"), "how"), (("another", "way"), "how"), (("how",), "how"),
    (("later",), "when"), (("sooner",), "when"), (("earlier",), "when"),
    (("some", "other", "date"), "when"), (("some", "other", "time"), "when"),
    (("another", "time"), "when"), (("before", "that"), "when"), (("after", "that"), "when"),
    (("when",), "when"),
)  # fmt: skip
#: Nouns after "which"/"what" that ask for a person ("which member of your family").
_PERSON_HEADS = word_set("person people member members guy woman man girl boy friend friends")


def _starts(words: list[str], phrase: tuple[str, ...], skip: frozenset[str] = _DISCOURSE) -> bool:
    i = 0
    while i < len(words) and words[i] in skip:
        i += 1
    return tuple(words[i : i + len(phrase)]) == phrase


def _first_word(words: list[str]) -> tuple[int, str]:
    for i, w in enumerate(words):
        if w not in _DISCOURSE:
            return i, w
    return len(words), ""


@dataclass(frozen=True)
class SentenceActs:
    """The acts of one sentence (see the module docstring)."""

    acts: frozenset[str]
    addressee: str
    question_kind: str | None
    #: A negation governs the sentence's main verb ("I won't leave", "don't stop").
    negated: bool


_ASKING = (
    ("wonder",), ("wondering",), ("wondered",), ("curious",), ("like", "to", "know"),
    ("love", "to", "know"), ("want", "to", "know"), ("help", "me", "to", "know"),
    ("help", "to", "know"), ("help", "me", "understand"), ("good", "to", "know"),
    ("not", "sure"), ("like", "to", "hear"), ("love", "to", "hear"), ("interested", "in"),
    # a gap in what the writer knows, said as a statement ("I have no idea how many ...", "I'm
    # trying to get a sense of how long ...", "You haven't said who ...")
    ("no", "idea"), ("get", "a", "sense"), ("get", "a", "picture"), ("like", "to", "understand"),
    ("love", "to", "understand"), ("want", "to", "understand"), ("trying", "to", "understand"),
    ("glad", "to", "know"), ("glad", "to", "hear"), ("keen", "to", "know"),
    ("keen", "to", "hear"), ("haven't", "said"), ("haven't", "mentioned"),
    ("haven't", "told", "me"), ("didn't", "say"), ("didn't", "mention"), ("not", "clear"),
    ("unclear",), ("help", "me", "picture"), ("help", "me", "see"), ("fill", "me", "in"),
    # "I'd be interested to know what ...", "It would be good to learn who ...": whoever wants
    # it, what is asked follows (a question word of theirs, :func:`_asks_of_them`)
    ("to", "know"), ("to", "learn"), ("to", "find", "out"),
    # a name the writer missed ("I don't think I caught the name of the restaurant")
    ("catch", "the", "name"), ("caught", "the", "name"), ("got", "the", "name"),
    ("get", "the", "name"),
)  # fmt: skip
#: Openers of a request that name what they ask for after them ("Remind me who ...").
_ASKING_OPENERS = (("remind", "me"), ("fill", "me", "in"))
_WH = word_set(
    "who whom whose what where when why how which whether if who's what's where's how's when's "
    "who'd"
)


def _requests(words: list[str], joined: str) -> bool:
    """A question put as a statement: "Tell me about ...", "I wonder who ...", "It'd help me
    to know which day ...", "Not sure how far you have to go now"."""
    if any(_starts(words, p) for p in _REQUEST_OPENERS):
        return True
    if any(_starts(words, p) for p in _ASKING_OPENERS) and _asks_of_them(words[2:8]):
        return True
    for p in _ASKING:
        if has_phrase(joined, p):
            at = joined.index(f" {' '.join(p)} ")
            rest = joined[at + len(" ".join(p)) + 1 :].split()
            if (
                _asks_of_them(rest[:7])
                or p[-1] in ("hear", "in")
                or (p[-1] == "name" and rest[:1] == ["of"])
            ):
                return True
            # "..., and I'd be glad to know": the question clause before, closing the sentence
            if not rest[:3] and _asks_of_them(joined[:at].split()):
                return True
    return False


_WRITER = word_set("i i'd i'm i've i'll to")


def _asks_of_them(words: list[str]) -> bool:
    """A question word that opens a clause about the listener's world, not the writer's own
    doing ("no idea how many people you let go"; not "no idea what I'd do", "not sure what to
    say")."""
    return any(
        w in _WH and (k + 1 == len(words) or words[k + 1] not in _WRITER)
        for k, w in enumerate(words)
    )


def question_form(text: str, words: list[str]) -> bool:
    """A question in form: a question mark at its end, or an interrogative opening (a question
    word or an inverted auxiliary, after discourse words) with no end mark at all."""
    stripped = text.rstrip("\"')]}*_~ \u201d\u2019").rstrip()
    while stripped and not stripped[-1].isalnum() and stripped[-1] not in ".!?":
        stripped = stripped[:-1].rstrip()  # emoji, emoticons
    if stripped.endswith("?"):
        return True
    if stripped.endswith((".", "!")):
        return False
    _, first = _first_word(words)
    return first in _QUESTION_KINDS or first in _AUX_OPEN and len(words) > 2


#: Words that open a clause leading into the one that asks ("When he handed it over, do you
#: remember what he said?" asks yes or no, not when).
_LEADING_CLAUSE = word_set("when after before if since while once whenever")


def asking_words(cut: Cut) -> list[str]:
    """The words of the clause of ``cut`` that asks: what follows a leading clause that ends at a
    comma when an auxiliary or a question word opens it ("When you're not at work, what do you do
    for fun?"); else all its words."""
    toks = cut.tokens
    words = [t.text for t in toks]
    at, first = _first_word(words)
    if first in _LEADING_CLAUSE:
        for k in range(at + 1, len(toks)):
            if "," in cut.text[toks[k - 1].end - cut.start : toks[k].start - cut.start]:
                _, opener = _first_word(words[k:])
                if opener in _AUX_OPEN or opener.split("'")[0] in _QUESTION_KINDS:
                    return words[k:]
                break
    return words


def question_kind(words: list[str]) -> str:
    """What a question asks for (see the module docstring)."""
    lex = lexicon()
    if (
        "or" in words
        and not has_phrase(words, ("or", "not"))
        and not has_phrase(words, ("or", "something"))
    ):
        # an open alternative asks the question it stands for: "Was it your son, or someone
        # else?" asks who, "... or somewhere else?" where, "... or later?" when
        at = words.index("or")
        after = words[at + 1 : at + 5]
        for opener, kind in _OPEN_ALTERNATIVES:
            if after[: len(opener)] == list(opener):
                return kind
        if any(w in lex.time_units for w in after) and any(w in lex.time_units for w in words[:at]):
            return "duration"  # "for a few months, or more than a year?" asks how long
        return "choice"
    start, first = _first_word(words)
    for i, said in enumerate(words):
        w = said.split("'")[0] if "'" in said else said  # "who's", "where's", "how's"
        if (
            first in _AUX_OPEN and w in _QUESTION_KINDS and not _asks_within(words[start:i])
            and not (w == "who" and any(x in _SOMEONE for x in words[start:i]))
        ):  # fmt: skip
            # "Did she give a reason when she left?": a question put with an auxiliary first
            # asks yes or no, and a question word after it opens a clause of its own, unless
            # a verb of knowing or telling asks for what it opens ("Do you know where she is?")
            # or it says who of someone ("Is there anyone at home who knows?" asks who)
            break
        if w == "how" and i + 1 < len(words) and w == said:
            nxt = words[i + 1]
            if nxt == "long":
                return "duration"
            if nxt in ("many", "much") and words[i + 2 : i + 3] and words[i + 2] in lex.time_units:
                return "duration"  # "how many weeks has it been?" asks how long
            if nxt in ("many", "much", "old", "often"):
                return "amount"
            return "how"
        if w in _QUESTION_KINDS:
            kind = _QUESTION_KINDS[w]
            if w in ("what", "which"):
                # the noun it asks about says what it asks for: "which day" asks when, "which
                # member of your family" / "what friend" who
                head = words[i + 1 : i + 4]
                if head[:1] == ["of"]:  # "which of your daughters" asks who, as "which daughter"
                    head = [w for w in head[1:] if w not in ("your", "the", "those", "these")]
                if head[:1] and head[0] in lex.time_units:
                    return "when"
                if head[:1] and (head[0] in _PERSON_HEADS or lex.relation(head[0])):
                    return "who"
                if head[:2] and head[0] == "one" and any(lex.relation(x) for x in head[1:]):
                    return "who"
            return kind
    return "yesno" if first in _AUX_OPEN else "open"


#: Verbs after which an auxiliary-first question asks what its question word opens ("Can you
#: tell me who ...", "Do you remember when ...", "Would you mind saying how long ...").
_ASKS_WITHIN = word_set(
    "know knew tell told say said remember recall mind share explain describe guess think "
    "reckon imagine recollect ask asking wonder wondering curious"
)


_SOMEONE = word_set("anyone anybody someone somebody people")


def _asks_within(words: list[str]) -> bool:
    """Whether the words before a question word hold a verb of knowing or telling."""
    return any(w in _ASKS_WITHIN for w in words)


#: Words that may follow a leave-taking formula and keep it one ("..., okay?", "..., my friend").
_LEAVE_TAIL = word_set("okay ok alright then now please friend my dear love mate buddy honey hun "
                       "tonight today too yeah bye goodbye")  # fmt: skip


def _closing(words: list[str], tokens: tuple[Token, ...], question: bool) -> bool:
    """A closing: a leave-taking formula standing as a clause, the writer announcing they leave,
    or an arrangement to meet again ("Catch you tomorrow, okay?")."""
    lex = lexicon()
    if not words:
        return False
    n = len(words)
    joined = joined_words(words)
    third = any(w in lex.third_person for w in words) and not has_phrase(joined, ("see", "ya"))
    if any(w in lex.negations for w in words) and not has_phrase(joined, ("not", "long")):
        negated_leave = any(w in lex.leaving_verbs or w == "anywhere" for w in words)
        if negated_leave:
            return False
    if any(w in _FAREWELL_WORDS for w in words) and n <= 12 and not third:
        # "goodbye to that habit", "said goodbye": an object or a report, not a farewell
        for i, w in enumerate(words):
            if w in _FAREWELL_WORDS:
                before = words[i - 1] if i else ""
                after = words[i + 1] if i + 1 < n else ""
                if before in _NOT_FAREWELL_BEFORE or (question and "you" in words[:i]):
                    continue
                if after == "to" and i + 2 < n and words[i + 2] not in ("you", "all", "everyone"):
                    continue
                if w == "cheers" and after == "for":
                    continue  # "Cheers for walking me through it" thanks
                return True
    meet = ("see", "catch", "talk", "speak", "chat", "until", "till")
    for i, w in enumerate(words):
        if w in meet and i + 1 < n:
            rest = words[i + 1 : i + 4]
            arranged = (w in ("see", "catch") and rest[:1] in (["you"], ["ya"], ["u"])) or (
                w in ("talk", "speak", "chat")
                and (rest[:1] in (["soon"], ["later"], ["tomorrow"], ["next"], ["again"])
                     or rest[:2] == ["to", "you"])
            ) or (w in ("until", "till") and rest[:1] in (
                ["next"], ["tomorrow"], ["then"], ["later"], ["soon"], ["monday"], ["tuesday"],
                ["wednesday"], ["thursday"], ["friday"], ["saturday"], ["sunday"],
            ) and n <= 5)  # fmt: skip
            again = any(x in _MEET_AGAIN or x in ("then", "soon", "later", "around", "again",
                                                   "next") for x in words[i + 1 :])  # fmt: skip
            asked = question and words[0] in ("when", "will", "can", "do")
            if arranged and again and not third and not asked:
                return True
    if has_phrase(joined, ("same", "time")) and any(
        x in ("next", "tomorrow", "week") for x in words
    ):
        return True
    if (
        has_phrase(joined, ("take", "care"))
        and not has_phrase(joined, ("take", "care", "of"))
        and n <= 10
    ):
        return not third
    if has_phrase(joined, ("take", "care", "of", "yourself")) and n <= 10:
        # a leave-taking when it ends the clause ("Take care of yourself, okay?"), advice when it
        # goes on ("Take care of yourself first, before anyone else.")
        at = next(i for i in range(n - 3) if words[i : i + 4] == ["take", "care", "of", "yourself"])
        tail = [
            t for t in tokens[at + 4 :]
            if t.text not in _LEAVE_TAIL and not (t.capital and not t.english)  # a name
        ]  # fmt: skip
        return not tail
    for phrase in (("good", "night"), ("night", "night"), ("sleep", "well"), ("be", "well"),
                   ("stay", "safe"), ("stay", "well"), ("all", "the", "best"), ("have", "a", "good"),
                   ("log", "off"), ("log", "out"), ("logging", "out"), ("sign", "off"),
                   ("take", "good", "care"), ("be", "off"), ("must", "run"), ("must", "go"),
                   ("i'll", "say", "goodbye"), ("say", "goodnight"), ("wishing", "you", "well"),
                   ("that's", "our", "time"), ("end", "our"), ("until", "next"),
                   ("have", "a", "nice"), ("have", "a", "great"), ("have", "a", "lovely"),
                   ("enjoy", "your", "evening"), ("enjoy", "the", "rest"), ("look", "after",
                   "yourself"), ("i'll", "let", "you", "go"), ("let", "you", "go"),
                   ("i'm", "off"), ("gotta", "go"), ("got", "to", "go"), ("have", "to", "go"),
                   ("gotta", "run"), ("have", "to", "run"), ("got", "to", "run"),
                   ("gotta", "dash"), ("must", "dash"), ("have", "to", "dash"),
                   ("i'll", "leave", "you"), ("leave", "it", "there"), ("stop", "here"),
                   ("end", "here"), ("leave", "it", "here"), ("pause", "here"),
                   ("wrap", "up"), ("call", "it", "a"), ("pick", "this", "up"),
                   ("pick", "it", "up"), ("signing", "off"), ("logging", "off"),
                   ("heading", "off"), ("head", "off"), ("head", "out"), ("heading", "out"),
                   ("time", "for", "me", "to"), ("i", "must", "go"), ("need", "to", "go"),
                   ("need", "to", "run"), ("need", "to", "head"), ("should", "go"),
                   ("should", "get", "going"), ("better", "go"), ("get", "going"),
                   ("have", "to", "head"), ("gotta", "head"), ("gotta", "bounce"),
                   ("for", "today"), ("for", "tonight"), ("for", "now")):  # fmt: skip
        if has_phrase(joined, phrase) and not third:
            if phrase in (("for", "today"), ("for", "tonight"), ("for", "now")) and not any(
                w in ("enough", "that's", "stop", "leave", "end", "all", "it", "bye", "done",
                      "here") for w in words
            ):  # fmt: skip
                continue
            if phrase[:2] == ("have", "a") and n > 8:
                continue
            if question and words[0] in ("do", "did", "does", "why", "when", "what", "how"):
                continue
            if words[0] == "if" or has_phrase(joined, ("if", "you")):
                continue
            if _not_leaving(words, phrase):
                continue
            return True
    return False


#: Words after "go" that make it a going into a subject, not a leave-taking ("we don't have to
#: go there", "we can go into that later").
_GO_INTO = word_set("there into through over")


def _not_leaving(words: list[str], phrase: tuple[str, ...]) -> bool:
    """Whether a leave-taking phrase is denied or goes somewhere in the talk: a negation within
    three words before it ("We don't have to go there unless you want to"), or "go" on into a
    subject ("... have to go there", "need to go into it")."""
    lex = lexicon()
    n = len(phrase)
    for i in range(len(words) - n + 1):
        if tuple(words[i : i + n]) != phrase:
            continue
        before = words[max(0, i - 3) : i]
        if any(w in lex.negations or w.endswith("n't") for w in before):
            return True
        if phrase[-1] == "go" and words[i + n : i + n + 1] and words[i + n] in _GO_INTO:
            return True
    return False


#: Phrases of warmth toward the listener: sympathy, solidarity, care, encouragement, an offer.
_WARM_PHRASES = (
    ("not", "alone"), ("with", "you"), ("for", "you"), ("heart", "goes"), ("my", "heart"),
    ("be", "strong"), ("stay", "strong"), ("get", "better"), ("feel", "better"),
    ("gets", "better"), ("will", "get", "better"), ("good", "luck"), ("best", "of", "luck"),
    ("take", "care"), ("here", "for"), ("reach", "out"), ("pm", "me"), ("message", "me"),
    ("dm", "me"), ("talk", "to", "me"), ("your", "friend"), ("be", "friends"),
    ("you", "deserve"), ("feel", "for", "you"), ("proud", "of", "you"), ("rooting", "for"),
    ("i'm", "sorry"), ("im", "sorry"), ("so", "sorry"), ("really", "sorry"), ("sorry", "to"),
    ("sorry", "you"), ("sorry", "for", "your"), ("sorry", "about", "your"), ("hang", "in"),
    ("keep", "going"), ("you", "can", "do"), ("you've", "got", "this"), ("you", "got", "this"),
    ("i", "believe", "in"), ("you", "matter"), ("you're", "worth"), ("you", "are", "worth"),
    ("you're", "not", "a"), ("hope", "you"), ("hope", "things"), ("hope", "it"),
    ("i", "hope"), ("wish", "you"), ("know", "the", "feeling"), ("feel", "you"),
    ("been", "there"), ("same", "here"), ("there", "for", "you"), ("by", "your", "side"),
    ("thinking", "of", "you"), ("sending",), ("hugs",), ("hug",), ("condolences",),
    ("that", "sucks"), ("this", "sucks"), ("it", "sucks"), ("what", "a", "shame"),
    ("that's", "awful"), ("that's", "terrible"), ("that's", "rough"), ("that's", "horrible"),
    ("so", "hard"), ("so", "tough"), ("must", "be", "hard"), ("must", "be", "so"),
    ("must", "have", "been"), ("bummer",), ("heartbreaking",), ("brutal",), ("rough",),
    ("<3",), ("love", "you"), ("care", "about", "you"), ("people", "care"), ("you're", "loved"),
    ("welcome", "to"), ("glad", "you"), ("happy", "for", "you"), ("well", "done"),
    ("good", "for", "you"), ("congrats",), ("congratulations",), ("you", "can", "make", "it"),
    ("i", "hear", "you"), ("me", "too"), ("not", "the", "only"), ("you're", "not", "the", "only"),
    ("don't", "give", "up"), ("dont", "give", "up"), ("hold", "on"), ("hang", "in", "there"),
    ("hang", "on"), ("get", "through"), ("will", "be", "okay"), ("will", "be", "ok"),
    ("be", "okay"), ("be", "alright"), ("matters",), ("i", "promise"), ("hopefully",),
    ("props",), ("kudos",), ("happy", "birthday"), ("have", "a", "great"), ("have", "a", "good"),
    ("it", "gets", "easier"), ("it'll", "get", "better"), ("things", "will", "improve"),
    ("cheering", "for"), ("you", "can", "do", "this"), ("never", "give", "up"),
    ("big", "hug"), ("virtual", "hug"), ("i", "care"), ("we", "care"), ("you're", "amazing"),
    ("you", "are", "amazing"), ("you're", "beautiful"), ("you", "are", "beautiful"),
    ("you're", "brave"), ("you", "are", "brave"), ("you're", "strong"), ("you", "are", "strong"),
    ("you're", "doing", "great"), ("doing", "great"), ("doing", "well"), ("good", "job"),
    ("great", "job"), ("that's", "awesome"), ("that's", "amazing"), ("that's", "great"),
)  # fmt: skip
_WARM_WORDS = word_set(
    "sorry hugs hug condolences sympathy compassion heartbreaking bummer brutal awful terrible "
    "horrible unfair sucks hope hoping wish luck rooting proud glad love care strong strength "
    "deserve worth better beautiful amazing awesome brave wonderful kind"
)


def _warm(words: list[str], tokens: tuple[Token, ...], acts: set[str], addressee: str) -> bool:
    """Warmth toward the listener: a phrase of sympathy, solidarity, care, encouragement or an
    offer; or a warm word in a sentence addressed to them. Sorry for one's own words is not."""
    if words and words[0] in ("sorry", "aw", "aww", "awww", "oof", "ugh") and "apology" not in acts:
        return True
    if "understanding" in acts:
        return True
    joined = joined_words(words)
    if has_any_phrase(joined, _WARM_PHRASES):
        return "apology" not in acts or any(
            w in ("hope", "luck", "hug", "hugs", "care", "alone") for w in words
        )
    if addressee == "user" and any(t.lemma in _WARM_WORDS for t in tokens):
        return not any(has_phrase(joined, p) for p in (("don't", "care"), ("doesn't", "care"),
                                                 ("no", "one", "cares")))  # fmt: skip
    return False


#: What follows "I" when the writer speaks of their stance toward the listener or the
#: conversation, not of their own life ("I'm sorry", "I think you should", "I hope").
_STANCE = word_set(
    "think hope wish wonder guess understand suppose bet sorry glad here agree admire appreciate "
    "believe can'd would'll mean imagine hear see promise recommend suggest follow notice sense "
    "taking take struck keep want'd noticed noticing hearing with get got really"
)


def _discloses(words: list[str]) -> bool:
    """The writer speaks of their own life: a first-person clause whose verb is not a stance
    toward the listener ("I lost my dad", "my mum did the same", "I want to let it out")."""
    lex = lexicon()
    for k, w in enumerate(words):
        if w in ("my", "me", "myself", "mine"):
            if w == "me" and k and words[k - 1] in ("let", "tell", "help", "show", "give", "ask",
                                                     "for", "to", "with", "walk", "talk", "from"):  # fmt: skip
                continue  # "let me ...", "tell me ...": a request, not the writer's life
            if not any(x in lex.second_person for x in words[max(0, k - 3) : k + 4]):
                return True
        if w in ("i", "i'm", "im", "i've", "ive", "i'd", "i'll", "we", "we're", "we've"):
            rest = [x for x in words[k + 1 : k + 4] if x not in ("really", "just", "so",
                                                                  "also", "too", "still",
                                                                  "truly", "totally")]  # fmt: skip
            nxt = rest[0] if rest else ""
            if nxt in _STANCE or nxt in ("can", "could", "would", "will", "'d", "'ll"):
                continue
            if w in ("i'm", "im") and nxt in ("sorry", "glad", "here", "happy", "proud"):
                continue
            if nxt in ("know", "feel", "get") and any(
                x in lex.second_person for x in words[k + 1 : k + 5]
            ):
                continue
            return True
    return False


def read_acts(cut: Cut) -> SentenceActs:
    """The acts of one sentence (see the module docstring)."""
    lex = lexicon()
    words = [t.text for t in cut.tokens]
    joined = joined_words(words)
    acts: set[str] = set()
    second = sum(1 for w in words if w in lex.second_person)
    first = sum(1 for w in words if w in lex.first_person)
    addressee = "user" if second else "self" if first else "other"
    negated = any(w in lex.negations or w.endswith("n't") for w in words)
    question = question_form(cut.text, words)
    kind = question_kind(asking_words(cut)) if question else None
    if question:
        acts.add("question")
    if not question and _requests(words, joined):
        acts.add("request")
        kind = kind or question_kind(asking_words(cut))
    # advice
    i = 0
    while i < len(words) and words[i] in _IMPERATIVE_OPENERS:
        i += 1
    head = words[i] if i < len(words) else ""
    after = words[i + 1] if i + 1 < len(words) else ""
    imperative = (
        bool(head)
        and after not in _SUBJECT_VERBS
        and head not in _SOCIAL_IMPERATIVES
        and not question
        and "VERB" in parts_of_speech(head)
        and "CLOSED" not in parts_of_speech(head)
        and not (cut.tokens[i].capital and i > 0)
        and head == cut.tokens[i].lemma
        and not head.endswith(("ing", "ed"))
        and first == 0
    )
    attribution = any(
        has_phrase(joined, ("you", m, v))
        for m in ("must", "might", "may", "could")
        for v in ("be", "feel", "have", "still", "really", "so")
    )
    modal = has_any_phrase(joined, _ADVICE_MODALS_NOT_JUST)
    if question:
        # a question asks; it advises only in an advising form ("have you tried ...?", "why
        # don't you ...?", "could you try ...?"), not because "you could" stands in it
        modal = any(_starts(words, p) for p in _ADVICE_QUESTIONS)
    if (
        imperative
        or (modal and not attribution)
        or _starts(words, ("just",))
        and len(words) > 2
        and "VERB" in parts_of_speech(words[1])
    ):
        acts.add("advice")
    if _closing(words, cut.tokens, question):
        acts.add("closing")
    if has_any_phrase(joined, _UNDERSTAND):
        acts.add("understanding")
    if _apologises(_unquoted_words(cut.text) if '"' in cut.text or "\u201c" in cut.text else words):
        acts.add("apology")
    if (
        any(t.lemma in lex.thanks for t in cut.tokens) or has_phrase(joined, ("cheers", "for"))
    ) and not has_phrase(joined, ("no", "thanks")):
        acts.add("thanks")
    if any(w in lex.humour for w in words) or has_any_phrase(joined, lex.humour_owned) or any(ch in cut.text for ch in "\U0001f602\U0001f923\U0001f606\U0001f604\U0001f61c\U0001f609"):  # fmt: skip
        acts.add("humour")
    if words and words[0] in ("hi", "hello", "hey", "morning", "evening") and len(words) <= 6:
        acts.add("greeting")
    if _warm(words, cut.tokens, acts, addressee):
        acts.add("warmth")
    # self-disclosure: the writer tells of their own life, not of their stance toward the listener
    if first and _discloses(words):
        acts.add("self_disclosure")
    return SentenceActs(frozenset(acts), addressee, kind, negated)


__all__ = ["ACTS", "SentenceActs", "question_form", "question_kind", "read_acts"]
