"""``SemanticJudger``: MDEP-PR levels from sentence embeddings and small trained heads.

How one reply is read:

1. **Language.** The English-only encoders cannot read other scripts. A reply written mostly in a
   non-Latin script is *not* scored as empty: by default the judgement fails with a clear error
   (``unsupported_language="fail"``), or, if asked, gets zero levels with a reason (``"zero"``).
   :attr:`SemanticJudger.languages` says which case languages it rates: the offline roles'
   languages the encoder reads (``None``: a multilingual encoder, any language).
2. **Encoding.** The user's last messages (cached: they repeat every turn) and the reply, in one
   encoder pass that also yields a vector per reply sentence.
3. **Heads.** Six multinomial heads give level probabilities per axis; the expected level is the
   continuous score and calibrated thresholds (stored with the heads) give the level. Heads of
   the "addressed" feature set (the default static tier) also rate each sentence on its own and
   score progress as the mean of the reply's expected level and its strongest sentence's.
4. **Guards** (the hook for the rule layer): each :class:`Guard` sees the reading and the context
   and returns a :class:`GuardVerdict` that can veto progress on axes, cap progress levels and add
   penalties. Penalties are applied *before* credit: vetoes and caps first lower the progress
   levels, then penalties set Neg levels (the stronger of head and guard wins). Nothing is guarded
   here beyond what the heads learned; the rule layer is plugged in by passing ``guards=``.
5. **Evidence.** Every non-zero level quotes the reply verbatim: the sentence whose own head
   score carries that level most strongly (guard penalties bring their own quote).

:func:`epm.rubric.increment` turns the returned levels into ``v_t``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from empa_env.languages import base_code, offline_languages
from empa_env.offline.semantic.encoder import CachedEncoder, Encoder, Span, shared_encoder
from empa_env.offline.semantic.features import (
    addressed_row,
    combine_scores,
    gate_features,
    pair_features,
    recent_user_texts,
    reply_features,
    sentence_rows,
    sentence_spans,
    sentences_of,
    surface_features,
    user_vector,
)
from empa_env.offline.semantic.heads import HEAD_NAMES, Heads, file_digest
from empa_env.roles.base import Judger
from empa_env.roles.views import JudgeProfile, JudgeView, Message
from epm.rubric import AXES
from epm.trajectory import Judgement

HEADS_DIR = Path(__file__).parent
#: Shipped heads per encoder tier.
HEADS_FILES: dict[str, Path] = {
    "minilm": HEADS_DIR / "heads.npz",
    "static": HEADS_DIR / "heads-static.npz",
}
ANCHORS: dict[str, dict[int, str]] = {
    "C_Prog": {1: "clarifies what the user means", 2: "reframes the user's understanding"},
    "A_Prog": {1: "validates a feeling the user expressed", 2: "resonates with a deeper feeling"},
    "P_Prog": {1: "affirms an action or opens a concrete step", 2: "strengthens their agency"},
    "C_Neg": {-1: "misses the point or claims understanding emptily",
              -2: "misreads or denies the user's reality"},
    "A_Neg": {-1: "perfunctory, performative or mismatched tone", -2: "judges or blames the user"},
    "P_Neg": {-1: "lectures or encourages by template",
              -2: "negates their values or implies effort is pointless"},
}  # fmt: skip


def non_latin_share(text: str) -> float:
    """Share of the letters of ``text`` that are not Latin script (0 for no letters)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 0.0
    other = sum(1 for ch in letters if "LATIN" not in unicodedata.name(ch, ""))
    return other / len(letters)


@dataclass(frozen=True)
class SemanticReading:
    """What the heads make of one reply, before guards. Crosses into :class:`Guard` calls."""

    reply: str
    user_texts: tuple[str, ...]
    sentences: tuple[Span, ...]
    #: Per head: probabilities over its levels ((0, 1, 2) or (0, -1, -2)).
    probabilities: dict[str, tuple[float, float, float]]
    #: Per head: expected level (signed), the continuous score.
    scores: dict[str, float]
    #: Per head: the level after calibrated thresholds.
    levels: dict[str, int]
    #: Per head and sentence: expected level of that sentence alone.
    sentence_scores: dict[str, tuple[float, ...]]
    #: Relevance gate: probability that the reply is about something else (0 without a gate).
    off_topic: float = 0.0
    #: Whether the gate capped every progress level at 0.
    gated: bool = False

    def sentence(self, i: int) -> str:
        a, b = self.sentences[i]
        return self.reply[a:b]


@dataclass(frozen=True)
class GuardContext:
    """What a guard may read besides the reading: the conversation and, in the env, the profile."""

    history: tuple[Message, ...]
    profile: JudgeProfile | None
    turn: int


@dataclass(frozen=True)
class Penalty:
    """A Neg level set by a guard, with its verbatim quote of the reply and a one-line reason."""

    level: int  # -1 or -2
    evidence: str
    reason: str


@dataclass(frozen=True)
class GuardVerdict:
    """A guard's ruling. Empty fields change nothing.

    ``veto``: axes ("C", "A", "P") whose progress is set to 0. ``caps``: axis -> highest progress
    level allowed. ``penalties``: axis -> :class:`Penalty` (the stronger of head and guard wins).
    ``note``: recorded in the reasoning of the affected levels.
    """

    veto: frozenset[str] = frozenset()
    caps: dict[str, int] = field(default_factory=dict)
    penalties: dict[str, Penalty] = field(default_factory=dict)
    note: str = ""


class Guard(Protocol):
    """The hook for the rule layer: called once per reply, after the heads, before the levels."""

    def __call__(self, reading: SemanticReading, context: GuardContext) -> GuardVerdict: ...


class SemanticJudger(Judger):
    """The learned offline Judger. ``tier`` picks the encoder and its shipped heads.

    ``guards`` are applied in order (see :class:`Guard`). ``heads_path`` overrides the shipped
    heads (they must have been trained with the same encoder). ``unsupported_language`` decides
    what happens to a reply the encoder cannot read: ``"fail"`` (a failed judgement naming the
    reason) or ``"zero"`` (all levels 0, the reason in ``reasoning``).
    """

    name = "semantic"

    def __init__(
        self,
        tier: str = "minilm",
        guards: Sequence[Guard] = (),
        heads_path: Path | None = None,
        encoder: Encoder | None = None,
        threads: int = 1,
        unsupported_language: Literal["fail", "zero"] = "fail",
    ) -> None:
        self.tier = tier
        self.encoder: Encoder = encoder or shared_encoder(tier, threads=threads)
        path = heads_path or HEADS_FILES.get(tier)
        if path is None or not Path(path).is_file():
            raise FileNotFoundError(
                f"no heads for encoder tier {tier!r} at {path}; train them with "
                f"'empa judge train --tier {tier} --out PATH' and pass heads_path"
            )
        self.heads_path = Path(path)
        self.heads = Heads.load(self.heads_path)
        trained_with = self.heads.meta.get("encoder_sha256")
        if trained_with and trained_with != self.encoder.sha256:
            raise ValueError(
                f"{self.heads_path} was trained with encoder {self.heads.meta.get('encoder_id')} "
                f"({trained_with}), not {self.encoder.id} ({self.encoder.sha256})"
            )
        #: Heads trained on the pooled feature set read sentence pools too (see features.py).
        self.pooled = "max_i" in str(self.heads.meta.get("features", ""))
        #: Heads trained with surface features read them too (questions, first person, length,
        #: the user's words; see features.surface_features).
        self.surface = "surface(" in str(self.heads.meta.get("features", ""))
        #: Heads trained on the "addressed" feature set read the sentences addressed to the user
        #: and the writer's own apart, and score a reply's progress with its strongest sentence.
        self.addressed = "addressed(" in str(self.heads.meta.get("features", ""))
        self.guards = tuple(guards)
        self.unsupported_language = unsupported_language
        self.name = f"semantic-{tier}"

    # --- identity ------------------------------------------------------------------------------
    @property
    def grounding(self):  # noqa: ANN201 - GroundingModel | None (no import cycle)
        """The grounding model of this judge's :class:`GroundingGuard`, if it has one."""
        for g in self.guards:
            model = getattr(g, "model", None)
            if model is not None and hasattr(model, "thresholds"):
                return model
        return None

    @property
    def languages(self) -> tuple[str, ...] | None:
        """The case languages it rates (:class:`~empa_env.roles.PlaysLanguages`): those the
        offline roles play (:func:`~empa_env.languages.offline_languages`) that the encoder
        reads, a regional variant ("en-GB") read as its language ("en"); ``None`` (any) with a
        multilingual encoder."""
        reads = self.encoder.languages
        if reads is None:
            return None
        return tuple(code for code in offline_languages() if base_code(code) in reads)

    @cached_property
    def heads_sha256(self) -> str:
        return file_digest(self.heads_path)

    def describe(self) -> dict[str, str]:
        return {
            "class": type(self).__name__,
            "name": self.name,
            "encoder": self.encoder.id,
            "encoder_sha256": self.encoder.sha256,
            "heads_sha256": self.heads_sha256,
            "guards": ",".join(type(g).__name__ for g in self.guards),
            **{
                k: v for g in self.guards if hasattr(g, "describe") for k, v in g.describe().items()
            },
        }

    # --- reading -------------------------------------------------------------------------------
    def read(self, user_texts: Sequence[str], reply: str) -> SemanticReading:
        """Run the heads and the relevance gate on one reply (no guards, no language check)."""
        users = recent_user_texts(user_texts)
        spans = sentence_spans(reply)
        sents = [reply[a:b] for a, b in spans] or [reply.strip() or reply]
        dim = self.encoder.dim
        u = user_vector(self.encoder.encode(users)) if users else np.zeros(dim, np.float32)
        if self.pooled:  # sentences encoded on their own, as in training
            rows = self.encoder.encode([reply, *sents])
            whole, S = rows[:1], rows[1:]
        else:  # one pass: the reply and its sentences pooled from the same token states
            whole, S = self.encoder.encode_segments(reply, spans or [(0, len(reply))])
            whole = np.atleast_2d(whole)
        if self.addressed:
            joined = " ".join(users)
            top = addressed_row(u, whole[0], joined, reply, sents, S)[None, :]
            per = sentence_rows(u, joined, sents, S)
        elif self.pooled:
            top = reply_features(u, whole, S.max(axis=0), S.mean(axis=0))
            per = reply_features(np.vstack([u] * len(S)), S, S, S)
        else:
            top, per = pair_features(u, whole), pair_features(np.vstack([u] * len(S)), S)
        if self.surface and not self.addressed:
            joined = " ".join(users)
            top = np.hstack([top, surface_features(joined, reply)[None, :]])
            per = np.hstack([per, np.stack([surface_features(joined, s) for s in sents])])
        X = np.vstack([top, per]) if spans else top
        probs = self.heads.predict(X)
        off, gated = 0.0, False
        if self.heads.gate is not None and reply.strip():
            off = float(self.heads.gate.proba(gate_features(u, whole, [S]))[0])
            gated = off >= self.heads.gate.threshold
        probabilities, scores, levels, sentence_scores = {}, {}, {}, {}
        for name in HEAD_NAMES:
            head = self.heads.heads[name]
            exp = head.expected(probs[name])
            p0, p1, p2 = (float(p) for p in probs[name][0])
            probabilities[name] = (p0, p1, p2)
            score = float(exp[0])
            if self.addressed and spans and name.endswith("Prog"):
                score = combine_scores(score, exp[1:])
            scores[name] = score
            level = int(head.level(np.array([score]))[0]) if reply.strip() else 0
            levels[name] = 0 if gated and name.endswith("Prog") else level
            sentence_scores[name] = tuple(float(x) for x in exp[1:])
        return SemanticReading(reply, tuple(users), tuple(spans), probabilities, scores, levels,
                               sentence_scores, off, gated)  # fmt: skip

    def _evidence(self, reading: SemanticReading, name: str) -> str:
        per = reading.sentence_scores[name]
        if not per:
            return reading.reply.strip()
        return reading.sentence(int(np.argmax(np.abs(per))))

    def _judge(self, user_texts: Sequence[str], reply: str, context: GuardContext) -> Judgement:
        zeros = {a: 0 for a in AXES}
        if not reply.strip():
            return Judgement(dict(zeros), dict(zeros), judge=self.name,
                             reasoning={"note": "empty reply"})  # fmt: skip
        reads = self.encoder.languages
        if reads is not None and non_latin_share(reply) > 0.5:
            message = (
                f"the {self.encoder.id} encoder reads {', '.join(reads)} only; this "
                f"reply is mostly in another script and cannot be rated by this judge"
            )
            if self.unsupported_language == "fail":
                return Judgement.failure(message, judge=self.name)
            return Judgement(dict(zeros), dict(zeros), judge=self.name,
                             reasoning={"note": message})  # fmt: skip
        reading = self.read(user_texts, reply)
        prog = {a: reading.levels[f"{a}_Prog"] for a in AXES}
        neg = {a: reading.levels[f"{a}_Neg"] for a in AXES}
        evidence: dict[str, str] = {}
        reasoning: dict[str, str] = {}
        if reading.gated:
            for a in AXES:
                reasoning[f"{a}_Prog"] = (
                    f"off-topic: the reply is about something else than the user's words "
                    f"(relevance gate p={reading.off_topic:.2f}); no progress"
                )
        for a in AXES:
            for kind, lv in (("Prog", prog[a]), ("Neg", neg[a])):
                key = f"{a}_{kind}"
                if lv:
                    p = reading.probabilities[key][abs(lv)]
                    evidence[key] = self._evidence(reading, key)
                    reasoning[key] = f"{ANCHORS[key][lv]} (head p={p:.2f})"
        # Guards: penalties before credit.
        for guard in self.guards:
            verdict = guard(reading, context)
            note = f" [{type(guard).__name__}: {verdict.note}]" if verdict.note else ""
            for a, pen in verdict.penalties.items():
                if pen.level not in (-1, -2) or pen.evidence not in reply:
                    raise ValueError(
                        f"{type(guard).__name__}: a penalty needs level -1/-2 and a verbatim "
                        f"quote of the reply, got {pen!r}"
                    )
                if pen.level < neg[a]:
                    neg[a] = pen.level
                    evidence[f"{a}_Neg"] = pen.evidence
                    reasoning[f"{a}_Neg"] = pen.reason + note
            for a in AXES:
                cap = 0 if a in verdict.veto else verdict.caps.get(a, 2)
                if prog[a] > cap:
                    prog[a] = cap
                    if cap == 0:
                        evidence.pop(f"{a}_Prog", None)
                        reasoning[f"{a}_Prog"] = f"progress vetoed{note}"
                    else:
                        reasoning[f"{a}_Prog"] = f"capped at {cap}{note}"
        return Judgement(prog, neg, evidence, reasoning, judge=self.name)

    def judge(self, view: JudgeView) -> Judgement:
        users = [m.content for m in view.history if m.role == "user"]
        context = GuardContext(tuple(view.history), view.profile, view.turn)
        return self._judge(users, view.reply, context)

    def judge_batch(self, views: Sequence[JudgeView]) -> list[Judgement]:
        """Judge several replies: what every judgement will encode (the user messages, the
        replies and their sentences, what the guards read) is encoded first in one batched
        call per kind, then each reply is judged as :meth:`judge` does (from the encoder's
        cache: the same vectors, the same judgements)."""
        self.prepare(views)
        return [self.judge(v) for v in views]

    def prepare(self, views: Sequence[JudgeView]) -> None:
        """Encode ahead, in batched calls, what judging ``views`` will read (kept by the
        encoder's cache; without a cache there is nothing to keep and nothing is done)."""
        if not isinstance(self.encoder, CachedEncoder):
            return
        texts: list[str] = []
        segments: list[tuple[str, list[Span]]] = []
        for v in views:
            if not v.reply.strip():
                continue
            texts += recent_user_texts([m.content for m in v.history if m.role == "user"])
            spans = sentence_spans(v.reply)
            if self.pooled:
                texts += [v.reply, *(v.reply[a:b] for a, b in spans)]
            else:
                segments.append((v.reply, spans or [(0, len(v.reply))]))
            for guard in self.guards:
                reads = getattr(guard, "reads", None)
                if reads is not None:
                    texts += reads(v.history, v.reply)
        if texts:
            self.encoder.encode(list(dict.fromkeys(texts)))
        if segments:
            self.encoder.encode_segments_many(segments)

    def rate(self, user_text: str, reply: str, history: Sequence[Message] = ()) -> Judgement:
        """Profile-free rating: ``reply`` to ``user_text`` (after ``history``, if any)."""
        users = [m.content for m in history if m.role == "user"] + [user_text]
        context = GuardContext(tuple(history) + (Message("user", user_text),), None, 0)
        return self._judge(users, reply, context)

    # --- batches (evaluation) ------------------------------------------------------------------
    def _score_pairs_addressed(
        self, user_texts: Sequence[str], replies: Sequence[str]
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """:meth:`score_pairs` for "addressed" heads: each pair read as :meth:`read` reads it."""
        readings = [self.read([u] if u.strip() else [], r) for u, r in zip(user_texts, replies,
                                                                          strict=True)]  # fmt: skip
        out = {}
        for name in HEAD_NAMES:
            exp = np.array([rd.scores[name] for rd in readings])
            lv = np.array([rd.levels[name] for rd in readings])
            out[name] = (exp, lv)
        return out

    def score_pairs(
        self, user_texts: Sequence[str], replies: Sequence[str]
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per head ``(expected level, level)`` arrays for many (user message, reply) pairs.

        The same heads and thresholds as :meth:`rate` without guards or evidence, batched.
        """
        if self.addressed:
            return self._score_pairs_addressed(user_texts, replies)
        need = self.pooled or self.heads.gate is not None
        sents = [sentences_of(r) if need else [r] for r in replies]
        flat = [s for ss in sents for s in ss]
        U = self.encoder.encode(list(user_texts))
        R = self.encoder.encode(list(replies))
        F = self.encoder.encode(flat) if need else R
        bounds = np.cumsum([0] + [len(ss) for ss in sents])
        S = [F[bounds[i] : bounds[i + 1]] for i in range(len(sents))]
        smax = np.stack([s.max(axis=0) for s in S])
        smean = np.stack([s.mean(axis=0) for s in S])
        X = reply_features(U, R, smax, smean) if self.pooled else pair_features(U, R)
        if self.surface:
            X = np.hstack(
                [
                    X,
                    np.stack(
                        [surface_features(u, r) for u, r in zip(user_texts, replies, strict=True)]
                    ),
                ]
            )
        probs = self.heads.predict(X)
        out = {}
        empty = np.array([not r.strip() for r in replies])
        gated = np.zeros(len(replies), dtype=bool)
        if self.heads.gate is not None:
            gated = self.heads.gate.proba(gate_features(U, R, S)) >= self.heads.gate.threshold
        for name in HEAD_NAMES:
            head = self.heads.heads[name]
            exp = head.expected(probs[name])
            stop = empty | gated if name.endswith("Prog") else empty
            lv = np.where(stop, 0, head.level(exp))
            out[name] = (exp, lv)
        return out
