"""The offline Judger: transparent rules that find evidence for each anchor and ground it in context.

Pipeline for one reply (every step leaves a quote and a reason behind):

1. **Probes** that void all progress: an empty reply, instructions aimed at the judge, a reply that
   repeats an earlier one, a reply that copies the user's words back, keyword stuffing.
2. **Candidates**: pattern families from ``judge_lexicon.yaml`` find spans that *might* be
   validation, resonance, clarification, reframe, affirmation, advice or empowerment.
3. **Grounding**: a candidate earns a level only if the reply engages with what this user
   actually said (their facts, their words, their emotions) and fits this user: their empathy
   threshold (how much rapport they need before advice lands), their priorities, the need that the
   part of the story they just told brings forward.
4. **Negatives**: empty understanding, templated philosophy, denial, performative templates (worse
   when repeated), tone mismatch, blame, lecturing, templated encouragement, negating values.

The Judger returns levels with evidence; :func:`epm.rubric.increment` turns them into ``v_t``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from empa_env.cases.schema import ASPECT_TO_AXIS, Cues
from empa_env.offline.lexicon import Lexicon, load_lexicon, shingles, words
from empa_env.offline.playable import PlaysOfflineLanguages
from empa_env.roles.base import Judger
from empa_env.roles.views import JudgeView
from epm.rubric import AXES
from epm.trajectory import Judgement

POSITIVE_FAMILIES = (
    "validation", "resonance", "clarification", "reframe", "affirmation", "advice", "empowerment",
)  # fmt: skip
#: Validating or clarifying replies the user needs before advice lands, by empathy threshold.
RAPPORT_NEEDED = {"high": 2, "medium": 1, "low": 0}
REPEAT_JACCARD = 0.5
PARROT_SHARE = 0.5
VERBOSE_WORDS = 160
STUFFING_MATCHES = 6
STUFFING_FAMILIES = 5
#: Conversations whose context is kept for incremental judging (one per concurrent episode).
CONTEXT_CACHE_SIZE = 1024


@dataclass(frozen=True)
class ReplyAnalysis:
    """Everything about a reply that does not depend on the conversation (cached by text)."""

    text: str
    tokens: tuple[str, ...]
    content: frozenset[str]
    stems: frozenset[str]
    shingles: frozenset[tuple[str, ...]]
    spans: dict[str, str]
    positive_matches: int
    positive_families: int


def emotion_stem(word: str) -> str:
    """A crude stem so that "lonely" / "lonelier" / "loneliness" or "betrayed" / "betrayal" match."""
    return word[:5] if len(word) >= 5 else word


@lru_cache(maxsize=4096)
def emotion_index(vocabulary: frozenset[str]) -> tuple[dict[str, frozenset[str]], tuple[str, ...]]:
    """``(stem -> emotion words, multi-word phrases)`` for a vocabulary of emotion words."""
    by_stem: dict[str, set[str]] = {}
    phrases = []
    for word in vocabulary:
        if " " in word:
            phrases.append(word)
        else:
            by_stem.setdefault(emotion_stem(word), set()).add(word)
    return {k: frozenset(v) for k, v in by_stem.items()}, tuple(sorted(phrases))


def emotions_in(
    stems: frozenset[str] | set[str], text_lower: str, vocabulary: frozenset[str]
) -> set[str]:
    """The emotion words of ``vocabulary`` named in a text (given its stems and lower-cased text)."""
    by_stem, phrases = emotion_index(vocabulary)
    found: set[str] = set()
    for stem in stems:
        hit = by_stem.get(stem)
        if hit:
            found |= hit
    found.update(p for p in phrases if p in text_lower)
    return found


@dataclass(frozen=True)
class CueWords:
    """A case's cues, lower-cased once."""

    expressed: frozenset[str]
    hidden: frozenset[str]
    knot: frozenset[str]
    values: tuple[str, ...]
    facts: tuple[str, ...]


@lru_cache(maxsize=4096)
def cue_words(cues: Cues) -> CueWords:
    return CueWords(
        expressed=frozenset(e.lower() for e in cues.expressed_emotions),
        hidden=frozenset(e.lower() for e in cues.hidden_emotions),
        knot=frozenset(k.lower() for k in cues.knot_keywords),
        values=tuple(v.lower() for v in cues.core_values),
        facts=tuple(f.lower() for f in cues.key_facts),
    )


@dataclass(frozen=True)
class UserMessage:
    """What the Judger takes from one user message (cached: the Actor's lines recur across
    episodes of the same case)."""

    lower: str
    words: frozenset[str]
    content: frozenset[str]
    shingles: frozenset[tuple[str, ...]]
    stems: frozenset[str]


@lru_cache(maxsize=16384)
def analyse_user(text: str) -> UserMessage:
    lex = load_lexicon()
    tokens = words(text)
    return UserMessage(
        lower=text.lower(),
        words=frozenset(tokens),
        content=frozenset(t for t in tokens if t not in lex.stopwords),
        shingles=shingles(tokens),
        stems=frozenset(emotion_stem(t) for t in tokens),
    )


@lru_cache(maxsize=8192)
def analyse(text: str) -> ReplyAnalysis:
    lex = load_lexicon()
    tokens = tuple(words(text))
    lower = text.lower()
    # Patterns are lower case; lower-casing keeps offsets for almost all text, and where it does
    # not (a few special characters), the original text is searched instead.
    haystack = lower if len(lower) == len(text) else text
    spans: dict[str, str] = {}
    for name, family in lex.families.items():
        found = family.first(haystack)
        if found:
            spans[name] = text[found[0] : found[1]].strip()
    positive_matches = sum(lex.families[f].count(haystack) for f in POSITIVE_FAMILIES if f in spans)
    return ReplyAnalysis(
        text=text,
        tokens=tokens,
        content=frozenset(t for t in tokens if t not in lex.stopwords and len(t) > 2),
        stems=frozenset(emotion_stem(t) for t in tokens),
        shingles=shingles(list(tokens)),
        spans=spans,
        positive_matches=positive_matches,
        positive_families=sum(1 for f in POSITIVE_FAMILIES if f in spans),
    )


@dataclass
class _Rating:
    prog: dict[str, int] = field(default_factory=lambda: {a: 0 for a in AXES})
    neg: dict[str, int] = field(default_factory=lambda: {a: 0 for a in AXES})
    evidence: dict[str, str] = field(default_factory=dict)
    reasoning: dict[str, str] = field(default_factory=dict)

    def progress(self, axis: str, level: int, quote: str, why: str) -> None:
        if level > self.prog[axis]:
            self.prog[axis] = level
            self.evidence[f"{axis}_Prog"] = quote
            self.reasoning[f"{axis}_Prog"] = why

    def penalty(self, axis: str, level: int, quote: str, why: str) -> None:
        if level < self.neg[axis]:
            self.neg[axis] = level
            self.evidence[f"{axis}_Neg"] = quote
            self.reasoning[f"{axis}_Neg"] = why

    def cap_progress(self, axis: str, top: int, why: str) -> None:
        if self.prog[axis] > top:
            self.prog[axis] = top
            key = f"{axis}_Prog"
            self.reasoning[key] = f"{self.reasoning.get(key, '')}; capped at {top}: {why}".lstrip(
                "; "
            )
            if top == 0:
                self.evidence.pop(key, None)
                self.reasoning.pop(key, None)

    def judgement(self, judge: str) -> Judgement:
        return Judgement(
            prog=self.prog,
            neg=self.neg,
            evidence=self.evidence,
            reasoning=self.reasoning,
            judge=judge,
        )


@dataclass
class _Context:
    """What the conversation so far tells the Judger about this user; grows message by message,
    so judging turn ``t`` costs O(length of the new messages), not O(t)."""

    user_words: set[str] = field(default_factory=set)
    user_text: str = ""
    recent_user: list[frozenset[str]] = field(default_factory=list)
    user_shingles: set[tuple[str, ...]] = field(default_factory=set)
    user_emotions: set[str] = field(default_factory=set)
    user_stems: set[str] = field(default_factory=set)
    previous: list[ReplyAnalysis] = field(default_factory=list)
    named_before: set[str] = field(default_factory=set)
    #: shingle -> indices of earlier replies containing it (for repetition checks)
    shingle_index: dict[tuple[str, ...], list[int]] = field(default_factory=dict)
    rapport: int = 0
    length: int = 0

    @property
    def recent_user_words(self) -> frozenset[str]:
        return frozenset().union(*self.recent_user[-2:]) if self.recent_user else frozenset()

    def add(self, role: str, text: str, lexicon: Lexicon, vocabulary: frozenset[str]) -> None:
        """Take in one message; ``vocabulary`` = the lexicon's and the case's expressed emotions."""
        self.length += 1
        if role == "user":
            said = analyse_user(text)
            self.user_words |= said.words
            self.user_text += " " + said.lower
            self.recent_user.append(said.content)
            self.user_shingles |= said.shingles
            stems = said.stems
            self.user_stems |= stems
            self.user_emotions |= emotions_in(stems, self.user_text, vocabulary)
            return
        reply = analyse(text)
        grounded = len(reply.content & self.user_words) >= 2
        builds_rapport = "validation" in reply.spans or "clarification" in reply.spans
        spoils = any(k in reply.spans for k in ("blame", "denial", "lecturing", "performative"))
        if grounded and builds_rapport and not spoils:
            self.rapport += 1
        index = len(self.previous)
        self.previous.append(reply)
        self.named_before |= reply.stems
        for sh in reply.shingles:
            self.shingle_index.setdefault(sh, []).append(index)

    def max_overlap(self, reply: ReplyAnalysis) -> float:
        """The highest Jaccard similarity of ``reply``'s shingles with any earlier reply."""
        if not reply.shingles or not self.previous:
            return 0.0
        shared: dict[int, int] = {}
        for sh in reply.shingles:
            for i in self.shingle_index.get(sh, ()):
                shared[i] = shared.get(i, 0) + 1
        best = 0.0
        n = len(reply.shingles)
        for i, inter in shared.items():
            best = max(best, inter / (n + len(self.previous[i].shingles) - inter))
        return best


class LexiconJudger(PlaysOfflineLanguages, Judger):
    """Rule-based MDEP-PR Judger; deterministic and explainable. See the module docstring."""

    def __init__(self, lexicon: Lexicon | None = None) -> None:
        self.lexicon = lexicon or load_lexicon()
        self.name = f"lexicon-rules-v{self.lexicon.version}"
        self._contexts: dict[tuple[str, int], _Context] = {}

    def describe(self) -> dict[str, str]:
        return {"class": type(self).__name__, "name": self.name}

    # ------------------------------------------------------------------------------------------
    def judge(self, view: JudgeView) -> Judgement:
        reply = analyse(view.reply)
        ctx = self._context(view)
        rating = _Rating()
        if not self._probe(view, reply, ctx, rating):
            self._rate(view, reply, ctx, rating)
        return rating.judgement(self.name)

    def _context(self, view: JudgeView) -> _Context:
        """The context of ``view.history``, extended from the previous turn's when cached."""
        history = view.history
        contents = tuple(m.content for m in history)
        key = (view.profile.case_id, hash(contents))
        prefix_key = (view.profile.case_id, hash(contents[:-2])) if len(history) >= 2 else None
        ctx = self._contexts.pop(prefix_key, None) if prefix_key else None
        if ctx is None or ctx.length != len(history) - 2:
            ctx, todo = _Context(), history
        else:
            todo = history[-2:]
        vocabulary = self.lexicon.emotion_words | cue_words(view.profile.cues).expressed
        for message in todo:
            ctx.add(message.role, message.content, self.lexicon, vocabulary)
        self._contexts[key] = ctx
        while len(self._contexts) > CONTEXT_CACHE_SIZE:
            self._contexts.pop(next(iter(self._contexts)))
        return ctx

    # ------------------------------------------------------------------------------------------
    def _probe(self, view: JudgeView, reply: ReplyAnalysis, ctx: _Context, r: _Rating) -> bool:
        """Replies that earn no progress at all. Returns True when the rating is final."""
        if not reply.tokens:
            quote = view.reply.strip()[:80] or "(empty reply)"
            r.penalty("C", -1, quote, "says nothing: misses the core point")
            r.penalty("A", -1, quote, "perfunctory: no response to what the user shared")
            return True
        if "judge_injection" in reply.spans:
            quote = reply.spans["judge_injection"]
            r.penalty(
                "C", -1, quote, "talks to an evaluator instead of the person: misses the point"
            )
            r.penalty("A", -1, quote, "tone mismatch: the user is ignored")
            return True
        if ctx.max_overlap(reply) >= REPEAT_JACCARD:
            r.penalty("C", -1, view.reply[:80], "repeats an earlier reply: nothing new")
            repeated_template = "performative" in reply.spans
            r.penalty(
                "A",
                -2 if repeated_template else -1,
                reply.spans.get("performative", view.reply[:80]),
                "repeats a performative template without adapting"
                if repeated_template
                else "perfunctory: the same words again",
            )
            return True
        if len(reply.tokens) >= 4 and reply.shingles:
            copied = len(reply.shingles & ctx.user_shingles) / len(reply.shingles)
            if copied >= PARROT_SHARE:
                r.penalty(
                    "C", -1, view.reply[:80], f"copies the user's own words back ({copied:.0%})"
                )
                r.penalty("A", -1, view.reply[:80], "perfunctory: echo instead of response")
                return True
        if (
            reply.positive_matches >= STUFFING_MATCHES
            or reply.positive_families >= STUFFING_FAMILIES
        ):
            quote = view.reply[:80]
            why = "a pile of empathy phrases, not a response: performative"
            r.penalty("C", -1, quote, why)
            r.penalty("A", -1, quote, why)
            r.penalty("P", -1, quote, why)
            return True
        return False

    def _rate(self, view: JudgeView, reply: ReplyAnalysis, ctx: _Context, r: _Rating) -> None:
        """Levels for a reply the probes let through: progress per axis where a candidate span is
        grounded in this user's words and fits where they are, then the penalties, then the caps
        for this user (low priorities, a wall of text). Order matters: the first quote found for
        a level is the one kept."""
        seen = _read_reply(view, reply, ctx, self.lexicon.emotion_words)
        _rate_affective(seen, ctx, r)
        _rate_cognitive(seen, ctx, r)
        _rate_motivational(seen, r)
        _penalise(seen, ctx, r)
        _fit_to_user(seen, r)


@dataclass(frozen=True)
class _Reading:
    """What :meth:`LexiconJudger._rate` knows about a reply in this conversation, before rating.

    ``engaged``: the reply names one of the user's key facts (that the user mentioned) or at
    least two content words of their last two messages; ``anchor`` quotes that (empty when not
    engaged). ``named``: every emotion the reply names; ``grounded_emotions``: those the user
    expressed; ``deep_named``: deeper feelings (the case's hidden ones or those a plot stage
    released) the reply names first, before the user or an earlier reply did. ``premature``: the
    user has had fewer validating or clarifying replies than their empathy threshold needs.
    """

    view: JudgeView
    reply: ReplyAnalysis
    text_lower: str
    cues: CueWords
    engaged: bool
    anchor: str
    released: frozenset[str]
    named: frozenset[str]
    grounded_emotions: list[str]
    deep_named: list[str]
    rapport: int
    needed: int

    @property
    def spans(self) -> dict[str, str]:
        return self.reply.spans

    @property
    def premature(self) -> bool:
        return self.rapport < self.needed

    @property
    def focus(self) -> str | None:
        return self.view.profile.current_focus


def _read_reply(
    view: JudgeView, reply: ReplyAnalysis, ctx: _Context, emotion_words: frozenset[str]
) -> _Reading:
    """How the reply engages with what the user said and which of their feelings it names."""
    profile = view.profile
    text_lower = view.reply.lower()
    cw = cue_words(profile.cues)

    facts = [f for f in cw.facts if f in text_lower and f in ctx.user_text]
    overlap = reply.content & ctx.recent_user_words
    engaged = bool(facts) or len(overlap) >= 2
    anchor = (facts[0] if facts else ", ".join(sorted(overlap)[:3])) if engaged else ""

    expressed = cw.expressed
    released = {e.lower() for e in profile.released_emotions}
    deeper = cw.hidden | released
    named = emotions_in(reply.stems, text_lower, emotion_words | expressed | deeper)
    grounded_emotions = sorted(named & (ctx.user_emotions | expressed))
    deep_named = sorted(
        e
        for e in named & deeper
        if e not in ctx.user_emotions
        and emotion_stem(e) not in ctx.user_stems
        and emotion_stem(e) not in ctx.named_before
    )
    return _Reading(
        view=view,
        reply=reply,
        text_lower=text_lower,
        cues=cw,
        engaged=engaged,
        anchor=anchor,
        released=frozenset(released),
        named=frozenset(named),
        grounded_emotions=grounded_emotions,
        deep_named=deep_named,
        rapport=ctx.rapport,
        needed=RAPPORT_NEEDED.get(profile.empathy_threshold, 1),
    )


def _rate_affective(seen: _Reading, ctx: _Context, r: _Rating) -> None:
    """A: validation of an expressed feeling (not the same one a third time running), and
    resonance with a deeper one (level 2 once the user is open to it)."""
    spans = seen.spans
    if "validation" in spans:
        if seen.grounded_emotions:
            stems = {emotion_stem(e) for e in seen.grounded_emotions}
            recent_same = sum(
                1
                for prev in ctx.previous[-2:]
                if "validation" in prev.spans and stems <= prev.stems
            )
            if recent_same < 2:
                r.progress(
                    "A",
                    1,
                    spans["validation"],
                    f"validates {seen.grounded_emotions[0]!r}, which the user expressed",
                )
        elif seen.engaged and seen.view.profile.empathy_threshold != "high":
            r.progress(
                "A", 1, spans["validation"], f"acknowledges the feeling around {seen.anchor}"
            )
    if seen.deep_named and ("resonance" in spans or "validation" in spans):
        quote = spans.get("resonance", spans.get("validation", ""))
        deep = seen.deep_named[0]
        unlocked = seen.released & set(seen.deep_named)
        if unlocked or seen.rapport >= max(seen.needed, 1):
            r.progress("A", 2, quote, f"resonates with a deeper, unspoken feeling: {deep!r}")
        else:
            r.progress("A", 1, quote, f"names {deep!r} before the user has opened up")


def _rate_cognitive(seen: _Reading, ctx: _Context, r: _Rating) -> None:
    """C: a clarifying question about what the user said, and a reframe of their knot (level 2
    once they feel heard, or when the story calls for understanding)."""
    spans = seen.spans
    if "clarification" in spans and seen.engaged:
        r.progress("C", 1, spans["clarification"], f"clarifies what the user means ({seen.anchor})")
    if "reframe" in spans:
        knot = seen.cues.knot
        knot_hit = sorted(k for k in knot if k in seen.text_lower)
        voiced = sorted(k for k in knot if k in ctx.user_text)
        # A reframe counts when it touches the user's knot: its words, or what the user just
        # said once the knot has surfaced in their own words.
        if knot_hit or (voiced and seen.engaged):
            hook = knot_hit[0] if knot_hit else seen.anchor
            if not seen.premature or seen.focus == "cognitive":
                r.progress("C", 2, spans["reframe"], f"reframes the knot around {hook!r}")
            else:
                r.progress(
                    "C", 1, spans["reframe"], "a reframe offered before the user feels heard"
                )


def _rate_motivational(seen: _Reading, r: _Rating) -> None:
    """P: affirmation of what the user did; advice (lecturing when premature or mid-emotion);
    empowerment tied to their values (level 2 once they feel heard and emotion is not at the
    fore)."""
    spans = seen.spans
    if "affirmation" in spans and seen.engaged:
        r.progress("P", 1, spans["affirmation"], f"affirms what the user has done ({seen.anchor})")
    if "advice" in spans:
        if seen.premature or seen.focus == "affective":
            why = (
                "advice before the user feels heard"
                if seen.premature
                else "advice in the middle of an emotional moment"
            )
            r.penalty("P", -1, spans["advice"], f"lecturing: {why}")
        elif seen.engaged:
            r.progress("P", 1, spans["advice"], f"concrete, actionable step about {seen.anchor}")
    if "empowerment" in spans:
        values = [v for v in seen.cues.values if v in seen.text_lower]
        if (values or seen.engaged) and not seen.premature:
            if seen.focus == "affective":
                r.progress("P", 1, spans["empowerment"], "agency offered while emotion runs high")
            else:
                hook = values[0] if values else seen.anchor
                r.progress("P", 2, spans["empowerment"], f"hands agency back, tied to {hook!r}")
        elif values or seen.engaged:
            r.progress("P", 1, spans["empowerment"], "agency offered early")


def _penalise(seen: _Reading, ctx: _Context, r: _Rating) -> None:
    """The negative anchors: empty understanding, templated philosophy, denial, missing the
    point, performative templates (worse when repeated), tone mismatch, blame, lecturing,
    templated encouragement, negated values, and a perfunctory reply that earned nothing."""
    spans, reply, text = seen.spans, seen.reply, seen.view.reply
    if "empty_understanding" in spans and not seen.engaged:
        r.penalty("C", -1, spans["empty_understanding"], "claims understanding without showing any")
    if "templated_philosophy" in spans:
        r.penalty("C", -1, spans["templated_philosophy"], "templated philosophy")
    if "denial" in spans:
        r.penalty("C", -2, spans["denial"], "denies the user's reality")
    if len(reply.tokens) >= 12 and not seen.engaged and not seen.named:
        r.penalty(
            "C",
            -1,
            text[:80],
            "misses the core point: nothing here engages with what the user said",
        )
    if "performative" in spans:
        used_before = any("performative" in prev.spans for prev in ctx.previous)
        if used_before:
            r.penalty("A", -2, spans["performative"], "repeats a performative-empathy template")
        else:
            r.penalty("A", -1, spans["performative"], "performative-empathy template")
    if "tone_mismatch" in spans:
        r.penalty("A", -1, spans["tone_mismatch"], "tone mismatch for someone in distress")
    if "blame" in spans:
        r.penalty("A", -2, spans["blame"], "judges or blames the user")
    if "lecturing" in spans:
        r.penalty("P", -1, spans["lecturing"], "lecturing: tells the user what to do")
    if "templated_encouragement" in spans:
        r.penalty("P", -1, spans["templated_encouragement"], "templated encouragement")
    if "negate_values" in spans:
        r.penalty("P", -2, spans["negate_values"], "negates the user's motive or values")
    if len(reply.tokens) < 4 and not any(r.prog.values()):
        r.penalty("A", -1, text.strip(), "perfunctory reply")


def _fit_to_user(seen: _Reading, r: _Rating) -> None:
    """Caps for this user: level 1 at most on an axis they need least, and on every axis when
    the reply is a wall of text (which also costs A and C)."""
    priorities = seen.view.profile.profile.priorities
    for aspect, axis in ASPECT_TO_AXIS.items():
        if getattr(priorities, aspect) == "low":
            r.cap_progress(axis, 1, "this user needs this kind of empathy least")
    n_words = len(seen.reply.tokens)
    if n_words > VERBOSE_WORDS:
        for axis in AXES:
            r.cap_progress(axis, 1, "buried in a wall of text")
        quote = seen.view.reply[:80]
        r.penalty("A", -1, quote, f"tone mismatch: {n_words} words at someone in distress")
        r.penalty("C", -1, quote, "the point is lost in length")


def __getattr__(name: str) -> object:
    """``OfflineJudger``, this class's name before ``offline`` came to mean the reading judge,
    still imports, with a deprecation warning."""
    if name == "OfflineJudger":
        import warnings

        warnings.warn(
            "OfflineJudger is now LexiconJudger (judger='lexicon'); judger='offline' is the "
            "reading judge", DeprecationWarning, stacklevel=2,
        )  # fmt: skip
        return LexiconJudger
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
