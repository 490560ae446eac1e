"""Credit for attention, sentence by sentence, from the one reading of a reply.

A sentence earns only for what it itself does (:func:`sentence_credit`); a reply's level on an axis
is its strongest sentence's (:func:`reply_credit`). What each axis credits, after the published
definitions the project's axes follow (EMPA's MDEP-PR; EPITOME's emotional reactions,
interpretations and explorations, Sharma et al., EMNLP 2020):

* **C, understanding**: a reflection or interpretation of *this user's* situation (a statement
  about them, "you ..."/"that must ...", that speaks about what they told: two of their people,
  feelings, events or things by meaning, or one of them with the feeling they named), more for an
  interpretation ("because", "part of you", "maybe ..."); a story of the writer's own that speaks
  about the same things (sharing a similar experience is how peers show understanding);
* **A, warmth**: sympathy, care, solidarity or encouragement, more when it names their feeling or
  their situation; a feeling of theirs said back to them;
* **P, exploration and agency**: a question or an invitation to say more (not advice put as a
  question), more when it asks about what they told.

**Grounding is per sentence and by meaning.** A sentence that speaks about none of what the user
told fits any conversation: it is *generic*, and a reply's generic credit is small (at most
:data:`GENERIC_TOTAL` summed over the axes, half that when its words lie as near anyone's message
as theirs: :data:`GENERIC_FAR_SHARE`) and does not accumulate: it is earned once in a
conversation, by the first reply that earns it (a rotation of kind lines earns once).
A slot filled with a word that is not what the user talked about (low salience), or that stands
out of its grammatical place, is no reference (:mod:`empa_env.reading.world`); one reference alone
in a stock frame is not a reflection (it earns as a generic line), and neither are several when
the sentence has no word of its own beside them and names no feeling of theirs ("It makes sense
that you feel this way, machine and queue"). A story of one's own is theirs only when it is near
what they told (:data:`DISCLOSURE_CLOSENESS`): small talk about oneself ("I spilled coffee on my
keyboard") is no shared experience; a paraphrase found by word vectors whose whole meaning lies
far from what they said (:data:`MEANING_DENIES`) is none. A sentence with a word set where no
English sentence has one (a contraction right before a modal: "that you're would hurt",
:func:`stranded_contraction`) earns nothing. A sentence that gets their feeling, a person, a
relation (a son for their daughter) or an amount wrong costs C (:class:`Credit.misread`).

Levels are graded (multiples of 0.05 between the rubric's integers, :func:`epm.rubric.increment`
interpolates): the rule gives the level, and the learned heads' expected level for the axis
(:class:`empa_env.offline.semantic.judger.SemanticJudger`) moves a credited level by at most a
quarter of itself; the heads never credit what the rules do not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from empa_env.reading.lexicon import lexicon, meanings
from empa_env.reading.reply import (
    MEANING_CHECK_FROM,
    NO_PARAPHRASE,
    ReplyReading,
    SentenceReading,
    own_words,
)
from empa_env.reading.tokens import Token, tokens_of, word_set
from empa_env.reading.world import PRONOUN_IS

#: The rules' version (part of the judge's identity). credit-v9: a sentence with a word of theirs
#: out of its grammatical place (:attr:`~empa_env.reading.reply.SentenceReading.slotted`) grounds
#: nothing, neither by its references nor by a feeling said back (credit-v8 only read it for no
#: paraphrase, and "How are you holding up with stuck?" earned A and P for "stuck"); and the
#: reading knows more of where a word may stand (:func:`empa_env.reading.world.in_place`: a
#: capitalised word that is no name of theirs, a plural before a singular verb, a feeling
#: adjective alone after a verb that takes none, a state of theirs set as a bare noun, a negation
#: or "do" before a full verb are out of place; a verb after "to", the complement of a linking
#: verb and a tie of theirs are in place) and hears a question put as a wish to know ("I'd be
#: interested to know what ...").
CREDIT_RULES = "credit-v9"
#: Summed generic credit a reply may earn (spread over the axes it earns on).
GENERIC_TOTAL = 0.5
#: Generic credit is whole only for a reply whose own words come near what the user said (its
#: best sentence's :attr:`~empa_env.reading.reply.SentenceReading.paraphrase` at
#: :data:`PARAPHRASE`); one whose words lie as near anyone's (at GENERIC_FAR or below) keeps
#: GENERIC_FAR_SHARE of it, never less than :data:`CREDIT_FLOOR`: of two lines that fit any
#: conversation, the one that says a little of them in other words earns more. Chosen on EPITOME
#: dev, as used: the person's own reply above two generic lines in .76 of posts (from .64), above
#: a stock frame with a word of the post in .71 (from .60), above another post's reply .59 (from
#: .60); AUROC A .712 -> .703, C .710 -> .715, P .862 -> .858; shares unchanged. Raising near
#: lines instead of lowering far ones did a little better on people's replies (.77 / .78 / .56,
#: AUROC .722 / .719 / .881) but let small talk about oneself earn twice :data:`GENERIC_TOTAL`.
GENERIC_FAR_SHARE = 0.5
GENERIC_FAR = -0.45
#: A level below this is no credit (a tenth of the scale). Chosen on EPITOME dev, as used: without
#: it the judge credits A on .44 of people's replies and C on .61 (people: .33 and .48); with it
#: .39 and .54, every axis within .10 of people's share, at a cost in AUROC of .012 (A), .011 (C)
#: and .034 (P).
CREDIT_FLOOR = 0.2
#: A reference counts when its weight (closeness x salience) reaches this.
REFERENCE_WEIGHT = 0.3
#: A story of one's own is near what they told when its :attr:`~empa_env.reading.reply.
#: SentenceReading.closeness` reaches DISCLOSURE_CLOSENESS; or its mean word vector reaches
#: :data:`TOPIC_SIMILARITY` against their last message and it names a thing of theirs (a
#: reference of DISCLOSURE_REFERENCE_WEIGHT, not a bare number: "great" for their sarcastic "very
#: nice" is too weak) or the feeling family they named; or the mean word vector alone reaches
#: DISCLOSURE_TOPIC. Otherwise the paraphrase score cannot ground it (relative to other people's
#: messages, it reads a sentence about puzzles as far from this user as from anyone, so near 0).
#: Chosen on the blind self-centred small talk ("I spilled coffee on my keyboard": none of its 44
#: lines earns more than 0.4 in total after a long first message; the family scores 28.5-30.2 in
#: episodes, from 39.6) against EPITOME dev's people's stories of their own (C AUROC .720 against
#: .732 without the gate; the contrastive check .56-.62 against .60-.65).
DISCLOSURE_CLOSENESS = 0.16
DISCLOSURE_TOPIC = 0.5
DISCLOSURE_REFERENCE_WEIGHT = 0.5
#: A sentence whose own words (theirs left out) are this much closer to what the user just said
#: than to other people's messages says some of it in other words (one reference; two from
#: PARAPHRASE_STRONG; :attr:`~empa_env.reading.reply.SentenceReading.paraphrase`). Measured on
#: replies written for the project's cases: about two thirds of attentive paraphrases reach it,
#: one stock frame or generic line in ten.
PARAPHRASE = -0.17
#: The reading reads a sentence's whole meaning from this paraphrase score on
#: (:data:`~empa_env.reading.reply.MEANING_CHECK_FROM`), so a strong paraphrase always has its
#: :attr:`~empa_env.reading.reply.SentenceReading.meaning` to be checked against.
PARAPHRASE_STRONG = MEANING_CHECK_FROM
#: The most the act head's advice probability counts for in a sentence without the form of advice
#: (below the half that withholds C). On EPITOME dev, as used: C AUROC .715 -> .711, the share
#: credited C .528 -> .550 (people .476), the contrastive check .71 / .76 / .59 -> .72 / .79 / .60;
#: the blind attentive replies' gain in the same states rises (see perf/perf_judge_reading.py).
ADVICE_WITHOUT_FORM = 0.45
#: A strong paraphrase counts as two references only when the sentence's whole meaning agrees
#: (:attr:`~empa_env.reading.reply.SentenceReading.meaning` reaches this): word vectors put stock
#: frames near some messages by chance ("No wonder it keeps coming back to you" after a worried
#: one), and a search over many frames finds them. Measured on the strong paraphrases of the
#: blind attentive replies (83% keep two references at -0.12, 79% at -0.10), the project's stock
#: frames in the same states (42%, 33%) and people's replies on EPITOME dev (64%, 59%).
MEANING_CONFIRMS = -0.1
#: A paraphrase by word vectors counts for nothing when the sentence's whole meaning (read for
#: those from :data:`~empa_env.reading.reply.MEANING_CHECK_FROM`) lies this far below what
#: other people's messages reach: a story of one's own about being bullied as a child is no
#: retelling of a message about wanting to die, however near its words. On EPITOME dev, as used:
#: AUROC C .711 -> .712, the contrastive check unchanged (.72 / .79 / .60).
MEANING_DENIES = -0.3
#: The share of P's scale a question reaches (EMPA's P: a question opens a step, P 2 strengthens
#: the person's agency).
QUESTION_SHARE = 0.6
#: The act strength below which a sentence earns no warmth (A).
WARMTH_MIN = 0.45
#: The strength the rules' reading of warmth in form gives when the act head rates it lower.
RULE_WARMTH = 0.45
#: A story of one's own that names nothing of theirs still counts as sharing when its words are
#: this close in meaning to the user's last message.
TOPIC_SIMILARITY = 0.3

_INTERPRETS = word_set(
    "because since means meaning underneath beneath deep deeper part wonder maybe perhaps "
    "probably guess if though as"
)
_STATE = word_set(
    "feel feeling felt are were seem seems seemed sound sounds must been 're 've have had lost "
    "went go going struggling carry carrying carried"
)
_ADVICE_MODALS = word_set("should could can need have must gotta ought try")
_REFLECT_OPENERS = (
    ("sounds", "like"), ("must", "be"), ("must", "have"), ("seems", "like"), ("no", "wonder"),
    ("must", "feel"), ("makes", "sense"), ("that's", "a", "lot"), ("it's", "hard"),
)  # fmt: skip


def _has(words: list[str], phrase: tuple[str, ...]) -> bool:
    return f" {' '.join(phrase)} " in f" {' '.join(words)} "


def _centroid(tokens: tuple[Token, ...]) -> np.ndarray | None:
    lex = lexicon()
    words = [
        t.text for t in tokens
        if t.text.isalpha() and not t.closed and t.lemma not in lex.empathy_vocabulary
    ]  # fmt: skip
    M, _ = meanings().matrix(words)
    if not len(M):
        return None
    c = M.mean(axis=0)
    n = float(np.linalg.norm(c))
    return c / n if n else None


def reflects(s: SentenceReading) -> bool:
    """A statement about the listener's experience: "you" with a verb of being, feeling or going
    through (not a modal of advice), or an opener that reflects ("sounds like", "must be")."""
    words = s.words
    lex = lexicon()
    for i, w in enumerate(words):
        if w in lex.second_person:
            after = words[i + 1 : i + 4]
            if any(x in _STATE for x in after) and not any(x in _ADVICE_MODALS for x in after[:2]):
                return True
    return any(_has(words, p) for p in _REFLECT_OPENERS)


@dataclass(frozen=True)
class SentenceCredit:
    """What one sentence earns on each axis, and why."""

    levels: dict[str, float]
    reasons: dict[str, str]
    #: Whether the credit is generic (the sentence speaks about nothing of this user's).
    generic: bool


@dataclass
class Credit:
    """A reply's credit: per axis the level, the quoted sentence and the reason; the generic
    credit apart (so the judge can withhold it when generic lines came just before)."""

    levels: dict[str, float] = field(default_factory=lambda: dict.fromkeys("CAP", 0.0))
    evidence: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    generic: dict[str, float] = field(default_factory=lambda: dict.fromkeys("CAP", 0.0))
    generic_evidence: dict[str, str] = field(default_factory=dict)
    misread: list[tuple[str, str]] = field(default_factory=list)

    @property
    def only_generic(self) -> bool:
        """Nothing grounded was credited, only generic lines."""
        return not any(self.levels.values()) and any(self.generic.values())


_AGENCY = word_set(
    "chose choose choice decided decide decision managed manage handled kept stood protect "
    "protected protecting courage brave strength strong capable able try tried trying learned "
    "taught built survived fought guarding"
)


#: A statement whose content words are at least this share the user's own words (and that
#: says nothing of theirs in other words) echoes them.
ECHO_SHARE = 0.75


_DEICTIC = (["that"], ["that's"], ["this"], ["there"], ["there's"], ["it"], ["it's"], ["which"],
            ["those"], ["such"], ["what"])  # fmt: skip


def _fragment(s: SentenceReading) -> bool:
    """A verbless or subjectless fragment ("Stiff, painful fingers, and the instrument stored out
    of sight."): people reflect in fragments; a general claim has a subject of its own."""
    lex = lexicon()
    return not any(
        t.text in lex.third_person
        or t.text in ("it", "this", "that", "people", "everyone", "there")
        for t in s.tokens[:3]
    )


def echoes(s: SentenceReading, said: frozenset[str]) -> bool:
    """Whether the sentence mostly hands the user's own words back (see :data:`ECHO_SHARE`)."""
    content = [t for t in s.tokens if t.text.isalpha() and not t.closed and len(t.text) > 2]
    content = [t for t in content if t.lemma not in lexicon().empathy_vocabulary]
    if len(content) < 3:
        return False
    return sum(t.lemma in said for t in content) >= ECHO_SHARE * len(content)


def _says_its_own(s: SentenceReading, said: frozenset[str]) -> bool:
    """Whether the sentence has a content word of its own: neither the user's (``said``) nor the
    stock vocabulary of empathy ("sense", "hear", "feel")."""
    return not said or bool(own_words(s.tokens, said))


def _topic_similarity(s: SentenceReading, topic: np.ndarray | None) -> float:
    """The cosine of the sentence's mean word vector with the user's last message's (-1 when
    either has none)."""
    c = _centroid(s.tokens) if topic is not None else None
    return float(c @ topic) if c is not None and topic is not None else -1.0


_MODALS = word_set("would will can could should might must shall")
_CONTRACTED = ("'re", "'m", "'ve", "'ll", "'d", "’re", "’m", "’ve", "’ll", "’d")


def stranded_contraction(s: SentenceReading) -> bool:
    """Whether a contracted auxiliary stands right before a modal ("It makes sense that you're
    would hurt", "it's will pass"): no English sentence has one (a contraction cannot end its
    clause), so a word was set where it does not belong and the sentence earns nothing."""
    toks = s.tokens
    return any(
        b.text in _MODALS
        and (a.text.endswith(_CONTRACTED) or a.text.replace("’", "'") in PRONOUN_IS)
        for a, b in zip(toks, toks[1:], strict=False)
    )


def sentence_credit(
    s: SentenceReading,
    topic: np.ndarray | None,
    said: frozenset[str] = frozenset(),
    their_feelings: tuple[str, ...] = (),
    told: frozenset[str] = frozenset(),
) -> SentenceCredit:
    """What one sentence earns (see the module docstring); ``said``: lemmas of the user's last
    messages (to tell an echo of their words from a reflection); ``told``: the lemmas of
    everything in their world (:attr:`~empa_env.reading.world.UserWorld.items`: a word of theirs
    from any earlier message is theirs, not the sentence's own); ``their_feelings``: the feeling
    families the user named (a story of one's own that shares one is a shared experience).

    Each axis's level is ``2 x strength x grounding``: the strength is how clearly the sentence
    does that axis's act (the learned act head's probability, with the rules' reading of its
    form as a floor), the grounding how much of what *this* user told it speaks about (two of
    their people, feelings, events or things, by meaning, or one and the rest in other words:
    1; one alone or none: generic, at most :data:`GENERIC_TOTAL` and once a conversation)."""
    acts = s.acts.acts
    p = s.act_probs or {}
    # one word of theirs is one reference, whatever number of their items it touches
    refs = list({r.start: r for r in s.references if r.weight >= REFERENCE_WEIGHT}.values())
    disclosing = "self_disclosure" in acts or p.get("self_disclosure", 0.0) >= 0.5
    paraphrase = int(s.paraphrase >= PARAPHRASE) + int(
        s.paraphrase >= PARAPHRASE_STRONG and s.meaning >= MEANING_CONFIRMS
    )
    if NO_PARAPHRASE < s.meaning < MEANING_DENIES:
        paraphrase = 0  # its whole meaning is far from what they said: no paraphrase at all
    if s.slotted:
        # a word of theirs out of its grammatical place ("How are you holding up with stuck?",
        # "You've been carrying proud for a long time"): a stock frame with a slot filled speaks
        # of nothing of theirs, neither by the word nor by a feeling said back; it earns as a
        # line that fits any conversation
        refs, paraphrase = [], 0
    # how near a story of one's own is to their last message (computed for those alone)
    similarity = _topic_similarity(s, topic) if disclosing else -1.0
    if disclosing and s.addressee != "user":
        strong = [r for r in refs if r.kind != "amount" and r.weight >= DISCLOSURE_REFERENCE_WEIGHT]
        shared = any(f in their_feelings for f in s.feelings)
        near = (
            s.closeness >= DISCLOSURE_CLOSENESS
            or ((bool(strong) or shared) and similarity >= TOPIC_SIMILARITY)
            or similarity >= DISCLOSURE_TOPIC
        )
        if not near:
            # a story of one's own far from what they said (puzzles, the weather): theirs only
            # when it names a thing of theirs outright and says it clearly in other words
            refs = strong
            paraphrase = int(bool(refs) and s.paraphrase >= PARAPHRASE_STRONG)
    n = len(refs) + paraphrase
    named = ", ".join([r.word for r in refs[:3]] + (["in other words"] if paraphrase else []))
    asks = ("question" in acts or "request" in acts) and "advice" not in acts
    # advice is a form the rules read (an imperative, "you should", "have you tried"); the act
    # head alone, on a statement without one, only weakens a question ("You're up half the night
    # reliving that fight with your son": advice .61 by the head, a reflection by its form)
    advice = 1.0 if "advice" in acts else min(p.get("advice", 0.0), ADVICE_WITHOUT_FORM)
    feelings_ok = bool(s.attributed) and not s.misreadings and not s.slotted
    # one word of theirs in a stock frame is no reflection: it earns as a generic line does; a
    # story of one's own that tells of the same things in other words is shared experience
    grounding = 1.0 if n >= 2 or (n >= 1 and (feelings_ok or (disclosing and paraphrase))) else 0.0
    if grounding and not paraphrase and not feelings_ok and not _says_its_own(s, said | told):
        # their words set into a stock frame ("It makes sense that you feel this way, machine and
        # queue"; "What does five bring up for you?" after "I feed it at five" and, six messages
        # before, "my mother still brings me food"), however many: the sentence says nothing of
        # its own about them (a feeling of theirs named back to them is something of its own: it
        # reads what they told)
        grounding = 0.0
    levels = dict.fromkeys("CAP", 0.0)
    reasons: dict[str, str] = {}

    def give(axis: str, strength: float, why: str, factor: float) -> None:
        level = round(min(2.0, 2.0 * strength * factor) * 20) / 20
        if level > levels[axis]:
            levels[axis], reasons[axis] = level, why

    where = f" ({named})" if named else ""
    # C: what they told, said back or interpreted; a story of one's own about the same things
    disclosure = max(p.get("self_disclosure", 0.0), 0.5 if "self_disclosure" in acts else 0.0)
    reflection = max(p.get("reflection", 0.0), p.get("interpretation", 0.0))
    if not asks and advice < 0.5:
        if reflects(s) or (s.addressee == "user" and n):
            reflection = max(reflection, 0.5)
        if echoes(s, said) and not paraphrase:
            levels["C"], reasons["C"] = 0.25, f"hands their own words back{where}: an echo"
        elif grounding:
            if disclosure >= reflection:
                give("C", disclosure, f"shares a similar experience of their own{where}",
                     max(grounding, 0.85))  # fmt: skip
            else:
                deep = p.get("interpretation", 0.0) > p.get("reflection", 0.0)
                give("C", reflection, f"{'interprets' if deep else 'says back'} what they "
                     f"told{where}", grounding)  # fmt: skip
        elif disclosure >= 0.5 and similarity >= TOPIC_SIMILARITY:
            give("C", disclosure, "shares an experience on the same theme", 0.35)
    understanding = max(p.get("understanding_claim", 0.0), 0.6 if "understanding" in acts else 0.0)
    if understanding >= 0.5:
        give("C", understanding, "says they understand or have been there",
             0.45 if not grounding else 0.8)  # fmt: skip
    # A: warmth, solidarity, encouragement; a feeling of theirs said back
    learned = max(p.get("warmth", 0.0), p.get("encouragement", 0.0) * 0.9,
                  p.get("solidarity", 0.0) * 0.9)  # fmt: skip
    # the rules' reading of warmth in form and the head's, averaged: each misses what the other
    # sees (stock phrases the head rates low, wordings no rule lists)
    warmth = 0.5 * learned + 0.5 * (1.0 if "warmth" in acts else 0.0)
    if warmth >= WARMTH_MIN:
        if grounding or feelings_ok:
            give("A", warmth, f"warmth about what they told{where or ' (their feeling)'}",
                 max(grounding, 0.8))  # fmt: skip
        else:
            give("A", warmth, "warmth that fits any conversation", 0.25)
    if feelings_ok:
        give("A", 0.6, f"says back a feeling they named ({', '.join(s.attributed)})", 1.0)
    # P: exploration, and agency handed back
    explore = p.get("exploration", 0.0) * (1.0 - 0.5 * advice)
    if asks:
        explore = max(explore, 0.5)
    if explore >= 0.35 and s.addressee in ("user", "other"):
        if grounding:
            # a question opens the way; P's top level is for handing agency back (below)
            give("P", explore, f"asks about what they told{where}", grounding * QUESTION_SHARE)
        else:
            give("P", explore, "a question that fits any conversation", 0.25)
    affirm = p.get("affirmation", 0.0)
    if affirm >= 0.5 and s.addressee == "user" and grounding:
        give("P", affirm * 0.8, f"affirms what they did or can do{where}", grounding)
    return SentenceCredit(levels, reasons, generic=not grounding)


def reply_credit(
    reading: ReplyReading,
    heads: Mapping[str, float] | None = None,
    discredited: tuple[str, ...] = (),
) -> Credit:
    """A reply's credit: each axis its strongest sentence's level (sentences the guards
    discredited earn nothing), graded by the heads' expected levels (see the module docstring)."""
    credit = Credit()
    last_user = _last_user_tokens(reading)
    topic = _centroid(last_user) if last_user else None
    previous_grounded = False
    told = frozenset(reading.world.items)
    for s in reading.sentences:
        if not s.readable:
            continue
        for m in s.misreadings:
            credit.misread.append(
                (s.text, f"gets their {m.what} wrong ('{m.said}'; they said {m.truth})")
            )
        if any(s.text in d or d in s.text for d in discredited) or stranded_contraction(s):
            continue
        sc = sentence_credit(s, topic, reading.world.recent_lemmas, reading.world.feelings, told)
        if sc.generic and previous_grounded and sc.levels["A"] and s.words[:1] in _DEICTIC:
            # "That's a heavy thing to carry." right after a sentence about what they told: the
            # feeling is named about it (the deictic points back), so it is not a stock line
            sc = SentenceCredit(
                {**sc.levels, "A": 0.75},
                {**sc.reasons, "A": "names the feeling in what was just said back to them"},
                generic=False,
            )
        previous_grounded = not sc.generic
        for axis, level in sc.levels.items():
            if level <= 0:
                continue
            if not sc.generic:
                if level > credit.levels[axis]:
                    credit.levels[axis] = level
                    credit.evidence[axis] = s.text
                    credit.reasons[axis] = sc.reasons[axis]
            elif level > credit.generic[axis]:
                credit.generic[axis] = level
                credit.generic_evidence[axis] = s.text
                credit.reasons.setdefault(f"{axis}_generic", sc.reasons[axis])
    for axis in "CAP":
        if credit.levels[axis] and heads is not None:
            e = min(max(float(heads.get(axis, 1.0)), 0.0), 2.0)
            credit.levels[axis] = round(min(2.0, credit.levels[axis] * (0.75 + 0.25 * e)) * 20) / 20
    # generic credit: small, spread over the axes that only generic lines reached
    axes = [a for a in "CAP" if credit.generic[a] > 0 and not credit.levels[a]]
    for axis in "CAP":
        if axis not in axes:
            credit.generic[axis] = 0.0
    if axes:
        share = GENERIC_TOTAL / len(axes)
        # lines that fit any conversation earn more of their small credit the nearer their own
        # words come to what this user said (closer to them than to other people's messages)
        near = max((s.paraphrase for s in reading.sentences if s.readable), default=-1.0)
        closeness = min(1.0, max(0.0, (near - GENERIC_FAR) / (PARAPHRASE - GENERIC_FAR)))
        for axis in axes:
            e = 1.0 if heads is None else min(max(float(heads.get(axis, 1.0)), 0.0), 1.0)
            level = round(share * (0.5 + 0.5 * e) * 20) / 20 or 0.05
            if level >= CREDIT_FLOOR:  # lowered, never under the floor (shares unchanged)
                share_kept = GENERIC_FAR_SHARE + (1.0 - GENERIC_FAR_SHARE) * closeness
                level = max(CREDIT_FLOOR, round(level * share_kept * 20) / 20)
            credit.generic[axis] = level
    return credit


def _last_user_tokens(reading: ReplyReading) -> tuple[Token, ...]:
    texts = reading.world_texts
    return tokens_of(texts[-1], reading.language) if texts else ()


__all__ = [
    "CREDIT_FLOOR", "CREDIT_RULES", "Credit", "GENERIC_TOTAL", "SentenceCredit",
    "reflects", "reply_credit", "sentence_credit", "stranded_contraction",
]  # fmt: skip
