"""Reading a reply as the simulated user hears it: which acts it performs.

:func:`read_reply` classifies one reply of the policy, sentence by sentence (the project's text
layer, :class:`~empa_env.languages.Language`, cuts sentences and words): questions and their type
(who, how long, where, what was said, what was tried, why, yes/no, open), a suggestion, a summary
or reflection of what the user said, an apology, a goodbye, an empty or very short reply,
contempt, dismissal, and a story of the writer's own. It knows nothing of the case; checking a
summary against the case's facts and answering a question is :mod:`empa_env.offline.user.listening`.
The patterns are the user's own (English), written for this reader, not the Judger's lexicon.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from empa_env.languages import Language, language

QuestionKind = str  # who | duration | place | said | tried | why | yesno | open

_GOODBYE = re.compile(
    r"\b(good ?bye|bye(?: for now)?|i (?:have|need|must|'ve got|ve got) to (?:go|leave|run)|"
    r"i(?:'m| am) (?:going to )?(?:go|leave|leaving|logging off|signing off|off now)|gotta go|"
    r"talk (?:to you )?(?:later|soon|tomorrow)|see you|good ?night|take care\b(?! of)|"
    r"i'?ll let you go|let'?s (?:end|stop|leave it) (?:here|there|for (?:now|today))|"
    r"that'?s all for (?:now|today)|signing off|farewell)\b"
)
_APOLOGY = re.compile(
    r"\b(i apologi[sz]e|my apologies|i was (?:wrong|rude|out of line|harsh|unfair)|"
    r"that came out wrong|forgive me|i didn'?t mean (?:it|that|to)|"
    r"sorry,? (?:i (?:was|said|didn|shouldn)|that was|for (?:what i|my|being|saying|that|the))|"
    r"i(?:'m| am) sorry (?:i (?:said|was|didn|shouldn)|for (?:what i|my|being|saying|that)|if i))"
)
_CONTEMPT = re.compile(
    r"\b(stupid|idiot\w*|pathetic|ridiculous|dumb|loser|moron|weak|shut up|grow up|"
    r"nobody cares|no one cares|who cares|i don'?t care|not my problem|boring|whin(?:e|ing|y|er)|"
    r"drama queen|get a life|man up|toughen up|snowflake|your own fault|you deserve(?:d)? (?:it|this)|"
    r"deal with it|you brought (?:it|this)|so what|whatever|useless|lazy|selfish|"
    r"what'?s wrong with you|are you serious|give me a break|cry ?baby)\b"
)
_DISMISSAL = re.compile(
    r"\b(overreact\w*|(?:not|no) (?:that |such a )?big deal|not that bad|get over it|"
    r"move on|stop (?:complaining|whining|worrying|dwelling|crying|being|feeling)|calm down|"
    r"others have it worse|could be worse|first world problem|it'?s (?:nothing|only|just) "
    r"(?:a|an|some)?\s?(?:app|job|game|thing|stuff|phone|money)?|just (?:let it go|forget (?:it|about it))|"
    r"let it go|stay positive|look on the bright side|cheer up|everything happens for a reason|"
    r"you'?ll be fine|it'?ll pass|focus on the positives?|happens to everyone|"
    r"not worth (?:it|crying)|you'?re (?:being )?(?:dramatic|too sensitive))\b"
)
_SUGGESTION = re.compile(
    r"\b(you (?:should|could|might|must|need to|have to|ought to|may want to)|why don'?t you|"
    r"have you (?:considered|thought (?:about|of))|how about|what about (?:trying|asking|calling)|"
    r"i (?:suggest|recommend|would advise)|my advice|it (?:might|may|would|could|often) help|"
    r"one (?:thing|idea|option) (?:that|is|might|could)|consider (?:\w+ing)|make a list|"
    r"set (?:aside|a goal|one|up)|break (?:it|\w+ \w+) into|write (?:down|to|it)|"
    r"talk (?:to|it through|with)|give yourself|get (?:some|more) (?:sleep|rest|information|help)|"
    r"a routine|professional|see a (?:doctor|therapist|counsel)|could a \w+|look up|"
    r"put it in your|ask (?:a|your|for|them|him|her) )"
)
_IMPERATIVE = re.compile(
    r"^(?:just |maybe |perhaps )?(try|make|write|talk|call|ask|go|get|set|take|break|look|give|"
    r"put|plan|find|keep|start|tell|let|book|sign|join|focus|remember|think about)\b"
)
_SUMMARY = re.compile(
    r"^(?:so,? |and |ok(?:ay)?,? |right,? )?(?:basically,? |really,? |mostly,? |just,? )?"
    r"(?:it sounds like|sounds like|it seems(?: like)?|"
    r"you'?re saying|you mean|do you mean|you feel|you'?re feeling|you felt|"
    r"if i (?:understand|hear|get)|what i'?m hearing|i hear (?:that|you say)|in other words|"
    r"so you|so it'?s|so the|if i'?m hearing you|it'?s like you|you'?ve been|you were|"
    r"you'?re (?:mostly |really |just |basically )?(?:upset|angry|sad|hurt|scared|afraid|"
    r"worried|mad|frustrated|tired|stressed|ashamed|lonely|annoyed|saying)|"
    r"it must (?:have been|be)|that must)"
)
_OWN_STORY = re.compile(
    r"\b(when i was (?:young|a kid|little|your age|\w+)|i (?:once|also had|also went|remember when)|"
    r"same (?:thing )?happened to me|that reminds me|i went through|in my experience|"
    r"let me tell you|my (?:own|wife|husband|sister|brother|mother|mom|mum|dad|father|kids?|son|"
    r"daughter|boss|cousin|friend|dog|cat) (?:once|also|used|had|did|was|is|went)|i had a similar|"
    r"back in my day|speaking of which|by the way,? (?:i|my|did you see|have you seen))"
)
_WH = {
    "who": re.compile(r"\bwho(?:se|m)?\b"),
    "duration": re.compile(
        r"\bhow long\b|\bsince when\b|\bwhen did\b|\bwhen was\b|\bhow many (?:years|months|weeks|"
        r"days|times)\b|\bwhat year\b|\bhow old\b|\bwhen\b"
    ),
    "place": re.compile(r"\bwhere\b"),
    "said": re.compile(
        r"\bwhat did (?:\w+ ){1,3}(?:say|tell|said|write|answer|reply)\b|\bdid (?:\w+ ){1,3}"
        r"(?:say|tell|mention|answer|reply)\b|\bwhat was said\b|\bhow did (?:\w+ ){1,3}"
        r"(?:react|respond|take it)\b|\bwhat (?:\w+ ){0,2}(?:said|told)\b"
    ),
    "tried": re.compile(
        r"\b(?:have|did) you (?:tried|try|already)\b|\bwhat have you (?:tried|done)\b|"
        r"\bwhat did you do\b|\btried\b"
    ),
    "why": re.compile(r"\bwhy\b|\bwhat made\b|\bhow come\b|\bwhat's behind\b"),
}
_AUX = re.compile(
    r"^(?:and |so |but )?(?:do|does|did|is|are|was|were|have|has|had|can|could|would|will|"
    r"should|shall|may|might|am|isn't|aren't|didn't|don't|doesn't|haven't|wasn't)\b"
)
_WH_START = re.compile(r"^(?:and |so |but )?(?:what|how|which|who|where|when|why|whose)\b")
_GREETING_ONLY = re.compile(r"^(?:hi|hello|hey|ok|okay|hm+|mm+|yes|no|sure|right|i see|uh|um)\W*$")


def fold(text: str) -> str:
    """``text`` without accents ("Gülten" -> "Gulten"), so names match however they are typed."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).replace("’", "'")


@dataclass(frozen=True)
class Question:
    """One question of a reply: its sentence, its type and its content words (folded)."""

    text: str
    kind: QuestionKind
    words: tuple[str, ...]
    names: tuple[str, ...]


@dataclass(frozen=True)
class Reading:
    """What one reply does, as the user hears it (case-independent)."""

    text: str
    empty: bool
    short: bool
    questions: tuple[Question, ...]
    suggestion: str
    summary: str
    apology: bool
    goodbye: bool
    contempt: str
    dismissal: str
    own_story: bool
    #: Content words of the whole reply (lower case, accents folded, no stopwords).
    words: tuple[str, ...]
    #: Capitalised words inside sentences (names), lower case and folded.
    names: tuple[str, ...]

    @property
    def hostile(self) -> bool:
        """Contempt or dismissal."""
        return bool(self.contempt or self.dismissal)

    @property
    def acts(self) -> tuple[str, ...]:
        """The acts found, by name, in a fixed order (for records and tests)."""
        out = []
        for name, present in (
            ("empty", self.empty),
            ("short", self.short),
            ("goodbye", self.goodbye),
            ("contempt", bool(self.contempt)),
            ("dismissal", bool(self.dismissal)),
            ("apology", self.apology),
            ("question", bool(self.questions)),
            ("suggestion", bool(self.suggestion)),
            ("summary", bool(self.summary)),
            ("own_story", self.own_story),
        ):
            if present:
                out.append(name)
        return tuple(out)


def _names(sentence: str) -> list[str]:
    tokens = re.findall(r"[^\W\d_][\w'’-]*", sentence)
    return [
        fold(t).lower().removesuffix("'s")
        for i, t in enumerate(tokens)
        if i > 0 and t[:1].isupper() and t not in ("I", "I'm", "I've", "I'd", "I'll")
    ]


def _question_kind(low: str) -> QuestionKind:
    for kind in ("said", "tried", "why", "who", "place", "duration"):
        if _WH[kind].search(low):
            return kind
    if _AUX.match(low):
        return "yesno"
    return "open"


@lru_cache(maxsize=8192)
def read_reply(text: str, code: str = "en") -> Reading:
    """Classify ``text`` (one reply). Cached: the Actor and the Director read the same reply."""
    lang: Language = language(code)
    stripped = text.strip()
    words = [fold(w) for w in lang.words(stripped)]
    if not stripped or not words:
        return Reading(text, True, True, (), "", "", False, False, "", "", False, (), ())
    sentences = lang.sentences(stripped)
    questions: list[Question] = []
    suggestion = summary = contempt = dismissal = ""
    apology = goodbye = own_story = False
    names: list[str] = []
    for sentence in sentences:
        low = fold(sentence).lower()
        sentence_names = _names(sentence)
        names += sentence_names
        ends = low.rstrip()[-1:]
        is_question = ends == "?" or (
            ends not in (".", "!") and bool(_WH_START.match(low) or _AUX.match(low))
        )
        found_suggestion = bool(_SUGGESTION.search(low) or _IMPERATIVE.match(low))
        if not contempt and (m := _CONTEMPT.search(low)):
            contempt = m.group(1)
        if not dismissal and (m := _DISMISSAL.search(low)):
            dismissal = m.group(1).strip()
        if _APOLOGY.search(low):
            apology = True
        if _GOODBYE.search(low):
            goodbye = True
        if _OWN_STORY.search(low):
            own_story = True
        if _SUMMARY.match(low) and not _WH_START.match(low):
            summary = summary or sentence
        elif is_question and not (found_suggestion and _question_kind(low) in ("yesno", "open")):
            content = tuple(
                fold(w) for w in lang.content_words(sentence, min_length=2) if w != "you"
            )
            questions.append(
                Question(sentence, _question_kind(low), content, tuple(sentence_names))
            )
        elif found_suggestion:
            suggestion = suggestion or sentence
        if (
            found_suggestion
            and is_question
            and not suggestion
            and _question_kind(low) in ("yesno", "open")
        ):
            suggestion = sentence
    short = len(words) <= 2 or bool(_GREETING_ONLY.match(fold(stripped).lower()))
    content_words = tuple(dict.fromkeys(fold(w) for w in lang.content_words(stripped)))
    return Reading(
        text=text,
        empty=False,
        short=short,
        questions=tuple(questions),
        suggestion=suggestion,
        summary=summary,
        apology=apology,
        goodbye=goodbye,
        contempt=contempt,
        dismissal=dismissal,
        own_story=own_story,
        words=content_words,
        names=tuple(dict.fromkeys(names)),
    )


__all__ = ["Question", "Reading", "fold", "read_reply"]
