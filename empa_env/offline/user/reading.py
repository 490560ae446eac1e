"""Reading a reply as the simulated user hears it: which acts it performs.

:func:`read_reply` classifies one reply of the policy, sentence by sentence (the project's text
layer, :class:`~empa_env.languages.Language`, cuts sentences and words): questions and their type
(who, how long, where, what was said, what was tried, why, yes/no, open), a suggestion, a summary
or reflection of what the user said, an apology, a goodbye, an empty or very short reply,
contempt, dismissal, and a story of the writer's own. It knows nothing of the case; checking a
summary against the case's facts and answering a question is :mod:`empa_env.offline.user.listening`.
Goodbyes are closing formulas standing as a clause ("Okay, take care.") or an announcement of
leaving ("I have to head out now"), not a formula with an object ("goodbye to that habit").
The patterns are the user's own (English), written for this reader, not the Judger's lexicon.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from empa_env.languages import Language, language
from empa_env.text import read, sentence_texts

QuestionKind = str  # who | duration | place | said | tried | why | yesno | open

#: A leave-taking formula when it stands as a whole clause ("Take care.", "Bye for now, Anna."),
#: not when it has an object ("goodbye to that habit", "take care of your heart", "see you at
#: rehab?", "I'll see you through this").
_FAREWELL = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|all right|right|well|anyway|so|oh|and|thanks?(?: you)?"
    r"(?: (?:so much|for (?:\w+ ?){1,4}))?)[ ,.!-]+)*"
    r"(?:good ?bye|bye(?:-?bye)?(?: for now)?|farewell|see (?:you|ya)(?: (?:later|soon|tomorrow|"
    r"around|next time|another time))?|catch you (?:later|soon|another time)|"
    r"talk (?:to you )?(?:later|soon|tomorrow|another time)|speak (?:to you )?soon|"
    r"(?:take|look after) (?:good |great )?care(?: of yourself)?|look after yourself|be well|"
    r"stay (?:safe|well)|good ?night|night night|sleep well|"
    r"(?:have|enjoy) (?:a |the )?(?:good|nice|great|lovely|restful|gentle|quiet) "
    r"(?:night|evening|day|weekend|rest|one)(?: of it)?|"
    r"all the best|(?:i'?m )?wishing you (?:well|the best|all the best|strength|luck)(?: with \w+)?|"
    r"(?:good|best of) luck|until (?:next time|later|tomorrow))"
    r"(?:[ ,]+(?:then|now|for now|again|friend|my friend|both of you|you two))?$"
)
#: The writer announces leaving ("I have to head out now", "I'll leave you to it", "let's stop
#: here for today").
_LEAVING = re.compile(
    r"\b(?:i(?:'m| am|'ll| will|'ve| have|ve| must| need| gotta| should|'d better| better)?"
    r"(?: (?:got|have|need|must|gotta|going|about|gonna|afraid i|really|just|now))*"
    r"(?: to)? (?:go|leave|run|head (?:out|off)|log (?:off|out)|sign (?:off|out)|be off|"
    r"step (?:away|out)|get going|call it a (?:day|night)|wrap (?:this |it |things )?up|"
    r"hop off|jump off|drop off|say goodbye|say bye)"
    r"(?= *(?:now|soon|here|for (?:now|today|tonight)|in a (?:minute|moment|bit|sec(?:ond)?)|"
    r"shortly|too|,|\.|!|$|and|but|though|unfortunately|sadly|i'?m afraid|to (?:bed|sleep|work)))|"
    r"i(?:'m| am) off\b|i(?:'ll| will) (?:leave|let) you (?:to it|go|be|rest|get some rest)|"
    r"gotta go|(?:it'?s )?time for me to (?:go|leave|head)|"
    r"let'?s (?:end|stop|pause|leave it|wrap (?:it |this )?up|call it|pick (?:this|it) up) "
    r"(?:here|there|for (?:now|today|tonight)|a day|another time|later|tomorrow)|"
    r"that'?s (?:all|it) (?:i have time for|for (?:now|today|tonight)|from me)|"
    r"(?:i'?m |i am )?(?:signing|logging|heading) (?:off|out))\b"
)
_NEGATED_LEAVING = re.compile(
    r"\b(?:not|n't|never|won'?t|don'?t|no one|nobody|nothing)\b[^.!?,]{0,20}"
    r"\b(?:go|going|leave|leaving|anywhere|run|off)\b|\bif (?:you|i) (?:need|have|want)"
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
    r"\b(why not\b|you (?:should|could|might|must|need to|have to|ought to|may want to)(?! (?:be|feel|have (?:been|felt)|still)\b)|why don'?t you|"
    r"have you (?:considered|thought (?:about|of))|how about|what about (?:trying|asking|calling)|"
    r"i (?:suggest|recommend|would advise)|my advice|(?:might|may|would|could|can|often) (?:really |also )?help\b|(?:an|one|another|my) (?:idea|option|suggestion|thought)\b:?|"
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
    r"it must (?:have been|be)|that must|you must (?:be|feel|have (?:been|felt))|"
    r"you might (?:be|feel)|what i(?:'m| am)? hear(?:ing)? is|i(?:'m| am) hearing|i hear you|"
    r"it'?s (?:been|because)|you'?re telling me|"
    r"so (?!what\b|how\b|why\b|where\b|when\b|who\b|which\b|do\b|does\b|did\b|is\b|are\b|"
    r"was\b|were\b|have\b|has\b|can\b|could\b|would\b|will\b|should\b|let'?s\b|"
    r"sorry\b|glad\b|much\b|many\b|good\b|great\b|tell me\b)[a-z]+ (?:is|was|are|were|has|had|"
    r"did|does|said|told|thinks|feels|shouted|yelled|left|died|wants|never|always|just|"
    r"\w+ed)\b)"
)
#: A request to be told, asked as a statement ("Tell me who Rania is.", "I'm curious why").
_REQUEST = re.compile(
    r"^(?:(?:and |so |but )?(?:can|could|would|will) you (?:please )?|please |so |and )?"
    r"(?:tell me|say more|i'?d (?:like|love) to (?:know|hear)|i'?m (?:curious|wondering)|"
    r"i wonder)\b(?: (?:a bit |a little |more )?(?:about|who|what|how|why|where|when|if|"
    r"whether|whose|which|more))?"
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
    "place": re.compile(
        r"\bwhere(?:abouts)?\b|\bwhich (?:city|town|place|country|hospital|school)\b"
    ),
    "said": re.compile(
        r"\bwhat did (?:\w+ ){1,3}(?:say|tell|said|write|answer|reply)\b|\bdid (?:\w+ ){1,3}"
        r"(?:say|tell|mention|answer|reply)\b|\bwhat was said\b|\bhow did (?:\w+ ){1,3}"
        r"(?:react|respond|take it)\b|\bwhat (?:\w+ ){0,2}(?:said|told)\b"
    ),
    "tried": re.compile(
        r"\b(?:have|did) you (?:tried|try|already)\b|\bwhat have you (?:tried|done)\b|"
        r"\bwhat did you do\b|\btried\b|\b(?:anything|something) (?:you'?ve|you have|you) "
        r"(?:done|tried)\b|\bwhat (?:helps|helped|has helped)\b|\bhave you (?:been able|managed)\b"
    ),
    "why": re.compile(
        r"\bwhy\b|\bwhat (?:made|makes)\b|\bhow come\b|\bwhat'?s behind\b|\bwhat for\b|"
        r"\bthe reason\b|\bwhat (?:drives|drove|causes|caused)\b"
    ),
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
    #: The case language it was read in (a :mod:`empa_env.languages` code): its words and
    #: sentences are the ones hearing it against the case uses.
    language: str

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


def _clauses(low: str) -> list[str]:
    """The clauses of one (folded, lower-case) sentence: cut at commas, colons, dashes and "and"."""
    parts = re.split(r"\s*(?:[,;:!]|\.{2,}|\s[-\u2013\u2014]\s|\band\b)\s*", low.rstrip(" .!?"))
    return [p.strip(" .") for p in parts if p.strip(" .")]


def _farewell(low: str) -> bool:
    """A leave-taking formula stands as one of the sentence's clauses ("Okay, take care.")."""
    return not low.rstrip().endswith("?") and any(_FAREWELL.match(c) for c in _clauses(low))


def _leaving(low: str) -> bool:
    """The writer says they are leaving now, and does not negate it ("I'm not going anywhere")."""
    return bool(_LEAVING.search(low)) and not _NEGATED_LEAVING.search(low)


@lru_cache(maxsize=8192)
def read_reply(text: str, code: str = "en") -> Reading:
    """Classify ``text`` (one reply). Cached: the Actor and the Director read the same reply.

    The reply is read in the project's reading form (:func:`empa_env.text.read`: look-alike
    letters, invisible characters, spaced-out letters folded) and cut into sentences once, by
    :func:`empa_env.text.sentence_texts`; the case language's :class:`Language` gives its words.
    """
    lang: Language = language(code)
    stripped = read(text).strip()
    words = [fold(w) for w in lang.words(stripped)]
    if not stripped or not words:
        return Reading(text, True, True, (), "", "", False, False, "", "", False, (), (), code)
    sentences = sentence_texts(stripped) or [stripped]
    questions: list[Question] = []
    suggestion = summary = contempt = dismissal = ""
    apology = goodbye = own_story = False
    names: list[str] = []
    lows = [fold(sentence).lower() for sentence in sentences]
    asks = [
        low.rstrip()[-1:] == "?" or bool(_WH_START.match(low) or _AUX.match(low)) for low in lows
    ]
    for i, (sentence, low) in enumerate(zip(sentences, lows, strict=True)):
        sentence_names = _names(sentence)
        names += sentence_names
        ends = low.rstrip()[-1:]
        request = bool(_REQUEST.match(low))
        is_question = (
            ends == "?"
            or request
            or (ends not in (".", "!") and bool(_WH_START.match(low) or _AUX.match(low)))
        )
        found_suggestion = not request and bool(_SUGGESTION.search(low) or _IMPERATIVE.match(low))
        if not contempt and (m := _CONTEMPT.search(low)):
            contempt = m.group(1)
        if not dismissal and (m := _DISMISSAL.search(low)):
            dismissal = m.group(1).strip()
        if _APOLOGY.search(low):
            apology = True
        # A closing formula ends the reply's business only if no question follows it.
        if _leaving(low) or (_farewell(low) and not any(asks[i + 1 :])):
            goodbye = True
            continue
        if _OWN_STORY.search(low):
            own_story = True
        if _SUMMARY.match(low) and not request and not (_WH_START.match(low) and ends == "?"):
            summary = summary or sentence
        elif is_question and not (
            found_suggestion and (_question_kind(low) in ("yesno", "open") or "why not" in low)
        ):
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
            and (_question_kind(low) in ("yesno", "open") or "why not" in low)
        ):
            suggestion = sentence
    short = len(words) <= 2 or bool(_GREETING_ONLY.match(fold(stripped).lower()))
    content_words = tuple(dict.fromkeys(fold(w) for w in lang.content_words(stripped)))
    return Reading(
        text=text,
        empty=False,
        short=short and not goodbye,
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
        language=code,
    )


__all__ = ["Question", "Reading", "fold", "read_reply"]
