"""The offline Actor: speaks as the case's person, and listens to what was said.

Each message answers the reply it follows (:mod:`empa_env.offline.user`): the reply is read for
its acts (questions and their type, a suggestion, a summary, an apology, a goodbye, an empty or
very short reply, contempt, dismissal, a story of the writer's own) and heard against the case's
facts. A question about a fact the user can tell is answered with it; about one still kept back
(its plot stage not released), deflected; about someone the story lacks, questioned. A wrong
summary is corrected with a true fact, a true one confirmed; a suggestion is accepted, rejected
with a reason, or met with what was already tried; a goodbye is answered and ends the episode; an
empty reply is noticed; contempt hurts, and when the Director says patience ran out the user
leaves. Otherwise the user reacts in the stance the Director asks for, tells released plot and
memory lines in order, and voices the need ``adjust_empathy_strategy`` brings forward. No sentence
is said twice in an episode; lines come from the case's voice and from slot-filled templates.
Deterministic per seed (and per reply).
"""

from __future__ import annotations

import random
import re
import zlib
from collections import Counter
from functools import lru_cache

from empa_env.cases.facts import GENERIC_WORDS, RELATIONS, stems
from empa_env.cases.schema import Fact
from empa_env.languages import language
from empa_env.offline.playable import (
    PlaysOfflineLanguages,
    refuse_unsupported_language,
)
from empa_env.offline.user.facts import fact_index, says_what_is_asked
from empa_env.offline.user.hearing import Heard, hear
from empa_env.offline.user.prose import persona_facts, story_facts
from empa_env.offline.user.question import read_reply
from empa_env.offline.user.speech import Speech, lines
from empa_env.reading.lexicon import lexicon, parts_of_speech
from empa_env.reading.tokens import tokens_of, word_set
from empa_env.roles.base import Actor
from empa_env.roles.views import ActorGuidance, ActorLine, ActorPersona, ActorView

#: How often a message carries a concrete detail besides the reaction, by stance.
DETAIL_RATE = {"guarded": 0.25, "neutral": 0.5, "opening_up": 0.7, "hurt": 0.0}
#: Where to find a fresh reaction when the stance's own lines are spent (closest stance first).
STANCE_FALLBACK = {
    "guarded": ("guarded", "neutral", "hurt"),
    "neutral": ("neutral", "guarded", "opening_up"),
    "opening_up": ("opening_up", "neutral"),
    "hurt": ("hurt", "guarded"),
}
#: A first part at least this long is a whole message (the reference's lines are short).
WHOLE_MESSAGE = 48
#: How often a reply that helped is thanked, and how often a message asks a question back (tuned
#: on the suite so that the share of messages that do each is near ESConv's seekers': 10.3% and
#: 10.5%; see perf/perf_user.py).
THANKS_RATE = 0.3
ASK_BACK_RATE = 0.18


_PHRASE = re.compile(r"\b(the|my|our)\s+([a-z][a-z-]{2,})\b")
_NOT_TOPIC = GENERIC_WORDS | frozenset(
    [
        "young",
        "whole",
        "same",
        "other",
        "own",
        "real",
        "wrong",
        "only",
        "next",
        "last",
        "first",
        "little",
        "big",
        "old",
        "new",
        "best",
        "worst",
        "most",
        "least",
        "same",
        "own",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "twenty",
        "way",
        "end",
        "rest",
        "point",
        "problem",
        "moment",
        "morning",
        "evening",
        "night",
        "week",
        "weekend",
        "day",
        "year",
        "time",
        "thing",
    ]
)


@lru_cache(maxsize=256)
def _topic_phrases(lines: tuple[str, ...], code: str) -> tuple[str, ...]:
    """Noun phrases ("my bank", "the rent") the user's own lines keep using, most used first
    (the nouns that are no stopwords of the case language ``code``)."""
    stopwords = language(code).stopwords
    found: Counter[str] = Counter()
    for line in lines:
        for m in _PHRASE.finditer(line.lower()):
            det, noun = m.group(1), m.group(2)
            if noun in _NOT_TOPIC or noun in stopwords or noun.endswith(("ly", "ed", "ing")):
                continue
            if not _head_noun(noun, line.lower()[m.end() :]):
                continue
            found[f"{det} {noun}"] += 1
    return tuple(p for p, _ in found.most_common(8))


def _head_noun(word: str, after: str) -> bool:
    """Whether ``word`` after "the"/"my" is the thing named: a word the lexicon knows only as
    something else ("the third", "the kindest", "the inside") is not, nor one that qualifies the
    noun after it ("the spare room", "my high school")."""
    pos = parts_of_speech(word)
    if pos and "NOUN" not in pos:
        return False
    nxt = after.split(None, 1)[0] if after[:1] == " " else ""  # the next word, no comma between
    if "ADJ" in pos and nxt.isalpha():
        return "NOUN" not in parts_of_speech(nxt) or "CLOSED" in parts_of_speech(nxt)
    return True


def _topics(persona: ActorPersona, facts: tuple[Fact, ...]) -> list[str]:
    """What the user's trouble is about, as short phrases in their own words ("my bank", "the
    rent"): the noun phrases of their opening lines, details and the facts they can tell."""
    voice = persona.voice
    lines = (*voice.openings, *voice.details, *(f.answer for f in facts))
    return list(_topic_phrases(lines, persona.language)) or ["all this"]


def _material(persona: ActorPersona) -> tuple[str, ...]:
    """The user's own prose and lines (where the true durations are written)."""
    e = persona.experience
    return (
        e.current_situation,
        persona.scenario_trigger,
        persona.profile.vent,
        persona.profile.opening_topic,
        *persona.voice.openings,
        *persona.voice.details,
    )


@lru_cache(maxsize=256)
def _names_in(texts: tuple[str, ...]) -> frozenset[str]:
    """Lower-cased words the user's material writes capitalised inside a sentence (names)."""
    return frozenset(
        m.group(1).lower() for t in texts for m in re.finditer(r"(?<=[a-z,] )([A-Z][a-z]+)", t)
    )


def _tie_in(truth: str) -> str:
    """The true tie in few words: "my daughters" out of a line that names it ("My daughters
    called a family meeting ..."), else the line without its end mark."""
    toks = tokens_of(truth)
    for a, b in zip(toks, toks[1:], strict=False):
        if a.text == "my" and lexicon().relation(b.text):
            return f"my {b.text}"
    return truth.rstrip(".")


def _thing(word: str, persona: ActorPersona) -> str:
    """How the user names ``word`` in a sentence: "my dad", "Diane", "the dog"."""
    voice = persona.voice
    names = _names_in((*voice.details, *voice.openings, persona.experience.current_situation))
    if word.lower() in names or word[:1].isupper():
        return word.capitalize()
    if word in RELATIONS:
        return "my " + word
    return "the " + word


def _subject(about: tuple[str, ...], question) -> str:  # noqa: ANN001
    """What a held-back fact is about, as a thing to name: a person or a noun of its subject
    words that the question named, else its first person or noun (never a verb: "the asked")."""
    from empa_env.reading.lexicon import lexicon, parts_of_speech

    def nameable(w: str) -> bool:
        pos = parts_of_speech(w)
        return bool(lexicon().relation(w)) or not pos or ("NOUN" in pos and "VERB" not in pos)

    asked = set(question.words) | set(question.names)
    named = [w for w in about if nameable(w)]
    return next((w for w in named if w in asked), named[0] if named else "that")


def _person(facts: tuple[Fact, ...]) -> str:
    for fact in facts:
        if fact.kind == "person":
            return fact.about[0].capitalize()
    return ""


def _short(fact: Fact, speech: Speech) -> str:
    """The first sentence of a fact's answer (a correction is brief), cut by the case language."""
    first = speech.lang.sentences(fact.answer)
    return first[0] if first else fact.answer


class OfflineActor(PlaysOfflineLanguages, Actor):
    name = "offline-actor-v1"

    def open(self, view: ActorView) -> str:
        # Refuse at reset (the opening is the first thing a case asks of the Actor), rather than
        # speak English lines, or placeholders, into a conversation in another language.
        refuse_unsupported_language("actor", view.persona.case_id, view.persona.language)
        rng = random.Random(view.seed * 1_000_003)
        return rng.choice(view.persona.voice.openings)

    def respond(self, view: ActorView) -> str:
        persona = view.persona
        lang = language(persona.language)
        said = [m.content for m in view.history if m.role == "user"]
        last_reply = (
            view.history[-1].content
            if view.history and view.history[-1].role == "assistant"
            else ""
        )
        guidance = view.guidance or ActorGuidance()
        key = f"{view.seed}:{view.turn}:{last_reply}".encode()
        rng = random.Random(zlib.crc32(key) ^ (view.seed * 1_000_003 + view.turn))
        speech = Speech(lang, said, rng)
        told = story_facts(persona)
        story = persona.facts + guidance.facts + told
        own = persona_facts(persona)
        known = story + own
        # what others know of them is theirs too ("a retired bandoneon player from Buenos Aires")
        world = (
            *_material(persona),
            persona.persona.social_persona,
            *(f.answer for f in known),
            *said,
        )
        heard = hear(
            read_reply(last_reply, persona.language, world),
            known,
            guidance.withheld,
            said[-1] if said else "",
            guidance.withheld_kinds,
            _material(persona),
            frozenset(f.answer for f in told),
            frozenset(f.answer for f in own),
        )
        stance = guidance.stance or "neutral"
        topics = _topics(persona, story)
        slots = {"topic": topics[0] if rng.random() < 0.4 else rng.choice(topics)}
        slots["person"] = _person(story)
        ends = self._ending(speech, heard, guidance, stance, slots, persona)
        if ends is None:
            self._answer(speech, heard, guidance, stance, slots, persona)
            self._seeker_touches(speech, heard, guidance, stance, slots, view.turn)
            ends = ""
        message = speech.text()
        if not message or message in said:
            message = self._compose_unused(view, rng, said, speech)
        return ActorLine(message, ends=ends)

    def _ending(
        self,
        speech: Speech,
        heard: Heard,
        guidance: ActorGuidance,
        stance: str,
        slots: dict[str, str],
        persona: ActorPersona,
    ) -> str | None:
        """Leave, answer a goodbye, notice silence or hurt: the whole message; None otherwise."""
        t = lines()
        r = heard.reading
        if guidance.leave:
            speech.add(speech.pick(t["leave"], slots) or "Goodbye.")
            return "user_left"
        if r.goodbye:
            pool = t["goodbye"][stance] + t["goodbye"]["neutral"]
            speech.add(speech.pick(pool, slots) or "Goodbye, then.")
            return "policy_left"
        if r.empty:
            speech.add(speech.pick(t["empty"], slots))
            return ""
        if r.unreadable:
            name = LANGUAGE_NAMES.get(r.unreadable, "")
            pool = t["unreadable_language"] if name else t["unreadable"]
            speech.add(speech.pick(pool, {**slots, "language": name}) or "Sorry, what?")
            return ""
        if r.hostile:
            word = (r.contempt or r.dismissal).split()[-1]
            own = speech_pool(guidance, "hurt", persona)
            pool = t["contempt"] if r.contempt else t["dismissal"]
            first = speech.pick(pool, {**slots, "word": word})
            if not first or speech.rng.random() < 0.35:
                first = speech.pick(own) or first
            speech.add(first)
            if guidance.patience is not None and guidance.patience < 1.2:
                speech.add(speech.pick(t["warn"], slots))
            return ""
        return None

    def _answer(
        self,
        speech: Speech,
        heard: Heard,
        guidance: ActorGuidance,
        stance: str,
        slots: dict[str, str],
        persona: ActorPersona,
    ) -> None:
        t = lines()
        r = heard.reading
        hurt_before = guidance.patience is not None and guidance.patience < 2.0
        if r.apology:
            speech.add(speech.pick(t["apology"]["after_offense" if hurt_before else "none"]))
        if r.own_story and not heard.answered:
            speech.add(speech.pick(t["their_story"], slots))
        elif r.humour and not r.questions:
            speech.add(speech.pick(t["humour"][stance if stance in t["humour"] else "neutral"]))
        elif r.thanks and not r.questions and speech.rng.random() < 0.7:
            speech.add(speech.pick(t["thanked"], slots))
        release = self._release_line(speech, guidance)
        open_question = bool(heard.open)
        if heard.mistake is not None:  # set right what it gets wrong among true things first
            speech.add(
                self._set_right(speech, heard, slots, persona, known_facts(persona, guidance))
            )
        if heard.answered:
            for n, (q, fact) in enumerate(heard.answered):
                subject = fact.about[0]
                said_part = answer_part(q, fact.answer, speech)
                if n and (
                    not speech.unsaid(said_part).strip()
                    or (q.kind in _VALUE_KINDS and says_what_is_asked(
                        q.kind, fact_index((), " ".join(speech.parts))))
                ):  # fmt: skip
                    continue  # the first answer said it already ("Three days a week")
                if (
                    n
                    and speech.length >= WHOLE_MESSAGE
                    and (len(said_part) > LONG_ANSWER or not speech.fresh(said_part))
                ):  # a second question after a long answer: said briefly, or the choice said
                    speech.add(speech.pick(t["one_at_a_time"], slots))
                    break
                if speech.fresh(said_part):
                    opening = _answer_opening(q, fact, speech)
                    speech.add(opening + (_mid_sentence(said_part) if opening.endswith(", ")
                                          else said_part))  # fmt: skip
                elif (q.kind in _REMINDED and (
                    subject in q.words or subject in q.names or _asks_what_it_gives(q, fact)
                )) or fact in persona_facts(persona):  # fmt: skip
                    # asked again for the same thing (or who they are): the answer again, as a
                    # reminder
                    shown = subject.capitalize() if fact.kind == "person" else "the " + subject
                    speech.add(
                        speech.pick(t["answer_told"], {"part": _run_on(said_part, speech)})
                        or speech.pick(t["answer_again"], {**slots, "about": shown})
                    )
                else:  # already told, and not asked by name: take it as an invitation to go on
                    open_question = True
        elif heard.values:
            speech.add(speech.pick(t["answer_value"], {**slots, "value": heard.values[0][1]}))
        elif heard.deflected:
            q, index = heard.deflected[0]
            withheld = guidance.withheld[index]
            about = _thing(_subject(withheld, q), persona)
            trusting = (guidance.rapport or 0.0) >= 0.3
            pool = t["deflect_partial"] + t["deflect"] if trusting else t["deflect"]
            speech.add(speech.pick(pool, {**slots, "about": about}))
        elif heard.unknown:
            q, word = heard.unknown[0]
            if word.capitalize() in q.names or word in q.names:
                word = word.capitalize()  # a name they asked about: "Naledi", not "the naledi"
            speech.add(
                speech.pick(t["unknown"], {**slots, "word": word, "thing": _thing(word, persona)})
            )
            truth = self._truth(speech, heard, persona)
            if truth and speech.length < WHOLE_MESSAGE:
                speech.add(truth)
        if open_question and not speech.parts:
            if release:
                speech.add(release)
                release = None
            else:
                speech.add(
                    speech.pick(persona.voice.details)
                    or speech.first([f.answer for f in guidance.facts + persona.facts])
                )
        if heard.summary_wrong and heard.mistake is None:
            truth = self._truth(speech, heard, persona)
            line = speech.pick(
                t["correct"],
                {
                    **slots,
                    "word": heard.summary_wrong,
                    "thing": _thing(heard.summary_wrong, persona),
                    "fact": truth or "",
                },
            )
            speech.add(line or truth)
        elif (
            r.summary
            and heard.summary_right
            and heard.mistake is None
            and speech.length < WHOLE_MESSAGE
        ):
            speech.add(speech.pick(t["confirm"], {**slots, "echo": heard.echo}))
        if r.suggestion and speech.length < WHOLE_MESSAGE:
            if heard.tried is not None:
                speech.add(
                    speech.pick(
                        t["suggestion_tried"], {**slots, "fact": _short(heard.tried, speech)}
                    )
                )
            elif stance == "opening_up" or (guidance.rapport or 0.0) >= 0.45:
                speech.add(speech.pick(t["suggestion_accept"], slots))
            else:
                speech.add(speech.pick(t["suggestion_reject"], slots))
        if heard.off_topic and not speech.parts and not r.own_story:
            speech.add(speech.pick(t["redirect"], slots))
        if r.short and not speech.parts:
            word = r.text.strip().split()[0].strip(".,!?") if r.text.strip() else ""
            speech.add(speech.pick(t["short"], {**slots, "word": word}))
        if release and (not speech.parts or speech.length < 30):
            speech.add(speech.unsaid(release))
            return
        if speech.parts:
            return
        if (
            guidance.focus
            and guidance.release is None
            and speech.rng.random() < 0.6
            and speech.add(speech.pick(t["need"][guidance.focus], slots))
        ):
            return
        # A plain reaction in the stance asked for; warmth only for a reply about this person.
        reaction_stance = stance
        if stance == "opening_up" and not heard.engaged:
            reaction_stance = "neutral"
        reaction = None
        for pool_stance in STANCE_FALLBACK[reaction_stance]:
            reaction = speech.pick(speech_pool(guidance, pool_stance, persona))
            if reaction:
                break
        if reaction is None:
            reaction = speech.pick(t["stuck"], slots)
        speech.add(reaction)
        bare = reaction is None or len(reaction) < 25  # a bare reaction carries little to go on
        rate = DETAIL_RATE[reaction_stance] + (0.3 if bare and reaction_stance != "hurt" else 0.0)
        if speech.length < WHOLE_MESSAGE and (reaction is None or speech.rng.random() < rate):
            speech.add(speech.pick(persona.voice.details))

    @staticmethod
    def _seeker_touches(
        speech: Speech,
        heard: Heard,
        guidance: ActorGuidance,
        stance: str,
        slots: dict[str, str],
        turn: int,
    ) -> None:
        """What real help-seekers do that a story alone does not: thank a reply that helped (a
        true reflection, warmth about what they told, advice taken), and now and then ask a
        question back (ESConv's seekers: a tenth of their messages each)."""
        t = lines()
        r = heard.reading
        if not speech.parts or r.hostile or stance == "hurt":
            return
        shared = r.shared
        warm = (
            shared is not None
            and heard.engaged
            and any(s.does("warmth") or s.does("understanding") for s in shared.sentences)
        )
        accepted = (
            bool(r.suggestion)
            and heard.tried is None
            and (stance == "opening_up" or (guidance.rapport or 0.0) >= 0.45)
        )
        helped = heard.summary_right or warm or accepted
        said = " ".join(speech.parts).lower()
        if helped and "thank" not in said and speech.rng.random() < THANKS_RATE:
            line = speech.pick(t["helped"])
            if line:
                speech.parts.insert(0, line)
        if (
            turn >= 2
            and stance != "guarded"
            and "?" not in said
            and speech.length < 2 * WHOLE_MESSAGE
            and speech.rng.random() < ASK_BACK_RATE
        ):
            speech.add(speech.pick(t["ask_back"], slots))

    @staticmethod
    def _set_right(
        speech: Speech,
        heard: Heard,
        slots: dict[str, str],
        persona: ActorPersona,
        known: tuple[Fact, ...],
    ) -> str | None:
        """Correct a wrong relation, person, duration or feeling with the truth: the true fact
        when it may be told, the true value in the user's words, else only the "no"."""
        t = lines()
        mistake = heard.mistake
        if mistake is None:
            return None
        lowered = ("amount", "duration", "thing")
        word = mistake.word.lower() if mistake.kind in lowered else mistake.word
        fact = mistake.fact if mistake.fact is not None and mistake.fact in known else None
        if mistake.kind == "name" and mistake.truth:
            return speech.pick(t["correct_name"], {**slots, "word": word, "truth": mistake.truth})
        if mistake.kind == "thing":  # "No, not textile factory. Lamp factory.": their phrase
            return speech.pick(t["correct_value"], {**slots, "word": word, "truth": mistake.truth})
        if fact is not None:
            said = fact.answer if speech.fresh(fact.answer) else _short(fact, speech)
            if mistake.kind in ("relation", "person", "name"):
                line = speech.pick(
                    t["correct_person"], {**slots, "thing": _thing(word, persona), "fact": said}
                )
                if line is None and mistake.kind == "relation" and mistake.truth:
                    # the fact was said before: name the true tie in fewer words
                    line = speech.pick(
                        t["correct_value"],
                        {**slots, "word": _thing(word, persona), "truth": _tie_in(mistake.truth)},
                    )
                return line
            return speech.pick(
                t["correct_value"], {**slots, "word": word, "truth": said.rstrip(".")}
            )
        if mistake.truth:
            pool = t["correct_feeling"] if mistake.kind == "feeling" else t["correct_value"]
            truth = mistake.truth
            if mistake.kind == "relation":
                # "No, not my daughter. My granddaughter.": the tie, not a fact not yet told
                word, truth = _thing(word, persona), _tie_in(truth)
            return speech.pick(pool, {**slots, "word": word, "truth": truth})
        return speech.pick(t["correct_person_hidden"], {**slots, "thing": _thing(word, persona)})

    @staticmethod
    def _truth(speech: Speech, heard: Heard, persona: ActorPersona) -> str | None:
        """What it is really about, briefly: the fact the reply half-retold, else an opening not
        yet said, else the closest fact."""
        fact = heard.correction
        if (
            fact is not None
            and fact.kind != "person"
            and stems(fact.about) & heard.words
            and speech.fresh(_short(fact, speech))
        ):
            return _short(fact, speech)
        for opening in persona.voice.openings:
            first = speech.lang.sentences(opening)[:1]
            if not first or opening in speech.spoken_texts:
                continue
            line = opening if re.search(r"\b\w\.$", first[0]) else first[0]  # "six a.m."
            if speech.fresh(line):
                return line
        fact = heard.correction
        if fact is not None and speech.fresh(_short(fact, speech)):
            return _short(fact, speech)
        return None

    @staticmethod
    def _release_line(speech: Speech, guidance: ActorGuidance) -> str | None:
        """The next untold line of the plot or memory material the Director released."""
        if guidance.release is None:
            return None
        return speech.first(guidance.release.lines)

    @staticmethod
    def _compose_unused(
        view: ActorView, rng: random.Random, spoken: list[str], speech: Speech
    ) -> str:
        """Every fitting line is spent: pair a reaction with a detail in a way never said."""
        voice = view.persona.voice
        stance = view.guidance.stance if view.guidance and view.guidance.stance else "neutral"
        reactions = list(getattr(voice.reactions, stance)) + list(voice.reactions.neutral)
        tails = list(voice.details) + list(lines()["guarded_generic"])
        rng.shuffle(reactions)
        rng.shuffle(tails)
        said = set(spoken)
        for line in lines()["guarded_generic"]:  # a short fresh line before any repetition
            if speech.fresh(line):
                return line
        for reaction in reactions:
            for tail in tails:
                message = f"{reaction} {tail}"
                if message not in said and speech.fresh(message):
                    return message
        for reaction in reactions:
            for tail in tails:
                message = f"{reaction} {tail}"
                if message not in said:
                    return message
        # 45 turns can never exhaust the pairings of a valid case; this keeps the contract total.
        return f"{reactions[0]} ({len(spoken)})"


#: Languages a reply may come in that the user cannot read, by code, as the user names them.
LANGUAGE_NAMES: dict[str, str] = {
    "fr": "French", "es": "Spanish", "de": "German", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "pl": "Polish", "tr": "Turkish", "id": "Indonesian", "sw": "Swahili",
    "sv": "Swedish", "ro": "Romanian", "cs": "Czech", "ru": "Russian", "zh": "Chinese",
    "ja": "Japanese", "ar": "Arabic", "ko": "Korean", "hi": "Hindi", "el": "Greek",
    "da": "Danish", "no": "Norwegian", "fi": "Finnish", "hu": "Hungarian", "vi": "Vietnamese",
}  # fmt: skip
_NEGATIVE_ANSWER = word_set(
    "not no never closed gone died dead lost stopped without nobody nothing none left ended "
    "quit can't cannot won't didn't don't isn't wasn't retired former formerly"
)


#: Kinds of question that ask for one thing: a fact already told that answers one is said again,
#: briefly, as a reminder (an open "what"/"how" about it is taken as an invitation to go on).
_REMINDED = frozenset({"who", "duration", "when", "amount", "where", "said", "tried", "yesno",
                       "choice"})  # fmt: skip


def _asks_what_it_gives(question, fact: Fact) -> bool:  # noqa: ANN001
    """Whether a question asks for the very kind of thing the fact says: a span for "how long",
    a time for "when", a number for "how many", a person for "who", a place for "where"."""
    if question.kind == "where":
        return fact.kind == "place"
    if question.kind == "when":  # a day, a date, a season or "ago"; a bare span says how long
        return fact_index(fact.about, fact.answer).calendar
    if question.kind in ("duration", "amount", "who"):
        return says_what_is_asked(question.kind, fact_index(fact.about, fact.answer))
    return False


def _answer_opening(question, fact: Fact, speech: Speech) -> str:  # noqa: ANN001
    """How a seeker starts an answer: a yes/no question with "Yes." or "No." when the fact
    answers what was asked (it holds two of the question's content words, or all when it has
    fewer; a fact that closes, ends or denies it is a no), others, and a yes/no question the
    fact only touches, now and then with "Well," or "Hm." as people do ("Was the ring a gift to
    yourself?" is not answered "Yes." by "The police said the ring is probably sold")."""
    if question.kind == "yesno" and _settles(question, fact):
        words = set(speech.lang.words(fact.answer))
        asked = set(speech.lang.words(question.text))
        no = bool(words & _NEGATIVE_ANSWER) and not (asked & _NEGATIVE_ANSWER)
        return "No. " if no else "Yes. "
    roll = speech.rng.random()
    return "Well, " if roll < 0.08 else "Hm. " if roll < 0.14 else ""


def _settles(question, fact: Fact) -> bool:  # noqa: ANN001
    """Whether ``fact`` says what a yes/no question asks: it holds two of the question's content
    words (or all of them when it has fewer), by lemma."""
    asked = {t.lemma for t in question.content}
    told = {t.lemma for t in tokens_of(fact.answer) if not t.closed}
    return not asked or len(asked & told) >= min(2, len(asked))


def _mid_sentence(text: str) -> str:
    """``text`` continued after "Well, ": its first word in lower case unless it is "I" or a name
    (a capitalised word that is not English)."""
    from empa_env.reading.lexicon import is_english_word

    first = text.split(" ", 1)[0].strip(",.;:!?")
    if not first or first == "I" or first.startswith("I'") or not is_english_word(first.lower()):
        return text
    return text[0].lower() + text[1:]


def _run_on(text: str, speech: Speech) -> str:
    """``text`` said again in one breath: its sentences joined by commas, each continued in
    lower case where it is not "I" or a name ("Like I said, I wrote him a letter, no answer.")."""
    parts = [p.rstrip(".!?; ") for p in speech.lang.sentences(text)]
    parts = [_mid_sentence(p) for p in parts if p]
    return ", ".join(parts) + "." if parts else text


#: An answer longer than this is cut to the part that answers.
LONG_ANSWER = 90


#: Question kinds answered by a value: a span, a time, a number.
_VALUE_KINDS = frozenset({"duration", "when", "amount"})


def answer_part(question, answer: str, speech: Speech) -> str:  # noqa: ANN001
    """The part of a long answer that answers: its sentence, then its clause, that names most of
    what was asked (people answer a question, they do not recite their file)."""
    if len(answer) <= LONG_ANSWER:
        return answer
    # the people its words stand for count as asked ("your brother" names Ayaan's sentence)
    asked = (
        set(question.words) | {w.lower() for w in question.names} | {n for _, n in question.people}
    )
    from empa_env.reading.tokens import tokens_of

    def overlap(part: str) -> int:
        return len(asked & {t.lemma for t in tokens_of(part)} | asked & {
            t.text for t in tokens_of(part)})  # fmt: skip

    def fits(part: str) -> bool:
        # "how long", "when", "how many": a part that says a span, a time, a number answers;
        # one about the same things without it does not ("How many years at the school?" is not
        # answered by "The school district outsourced its cafeterias")
        return question.kind not in _VALUE_KINDS or says_what_is_asked(
            question.kind, fact_index((), part)
        )

    def rank(part: str) -> tuple[bool, int]:
        return fits(part), overlap(part)

    parts = speech.lang.sentences(answer)
    best = max(parts, key=rank) if parts else answer
    if len(best) > LONG_ANSWER:
        clauses = [c.strip() for c in re.split(r"[;:]|, (?:and|but) |, ", best) if c.strip()]
        if clauses:
            clause = max(clauses, key=rank)
            # who was asked: a clause that lost its person ("plays guitar and asked me", cut from
            # "Rui, seventeen, plays guitar and asked me") does not answer it
            lost_who = question.kind == "who" and _names_person(best) and not _names_person(clause)
            if (
                overlap(clause) and not lost_who and _stands_alone(clause)
                and (fits(clause) or not fits(best))
            ):  # fmt: skip
                best = clause[0].upper() + clause[1:]
    best = best.rstrip(" ,;")
    return best if best.endswith((".", "!", "?")) else best + "."


#: Words that can open a clause said on its own: a subject or the start of one.
_SUBJECT_OPENERS = word_set(
    "i i'm i've i'd i'll he he's she she's we we're they they're it it's you you're there "
    "there's this that these those my his her our their your the a an one nobody everyone "
    "someone everybody somebody nothing everything"
)


def _stands_alone(clause: str) -> bool:
    """Whether a clause cut from a longer sentence can be said on its own: it opens with a
    subject (a pronoun, a determiner, a name), not a verb or a preposition whose subject stayed
    behind ("is closing his gallery", "in 1977 and took the call")."""
    from empa_env.reading.lexicon import is_english_word

    first = clause.split(" ", 1)[0].strip("\"'(").rstrip(",.;:!?")
    if not first:
        return False
    if first.lower() in _SUBJECT_OPENERS:
        return True
    return first[0].isupper() and not is_english_word(first.lower())  # a name


def _names_person(text: str) -> bool:
    """Whether ``text`` names a person: a relation word or a name (capitalised mid-sentence, or a
    capitalised word that is not English)."""
    from empa_env.reading.lexicon import lexicon
    from empa_env.reading.tokens import tokens_of

    lex = lexicon()
    toks = tokens_of(text)
    return any(
        lex.relation(t.text) or (t.capital and not t.closed and (k or not t.english))
        for k, t in enumerate(toks)
    )


def known_facts(persona: ActorPersona, guidance: ActorGuidance) -> tuple[Fact, ...]:
    """The facts the user may tell now: those known from the start and those released."""
    return persona.facts + guidance.facts


def speech_pool(
    guidance: ActorGuidance, stance: str, persona: ActorPersona | None = None
) -> list[str]:
    """The case's own reactions for ``stance`` (its voice), then the general ones."""
    return list(getattr(persona.voice.reactions, stance)) if persona is not None else []
