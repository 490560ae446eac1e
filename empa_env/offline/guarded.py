"""``GuardedJudger``: penalties before credit, around any Judger.

For each reply it runs :class:`~empa_env.offline.guards.ReplyGuards` first and the inner Judger
second, then:

1. **void**: if the guards void the reply, every progress level becomes 0 (its evidence removed);
2. **caps**: each axis's progress is lowered to the guards' cap (evidence removed where it
   reaches 0);
3. **discredited evidence**: a progress level whose quote lies in a sentence the guards
   discredited (incoherent, another language, a repeated template, blame or dismissal) becomes 0;
4. **penalties**: per axis the more negative level wins, the guards' on a tie, with its quote and
   reason;
5. **verbatim evidence**: every non-zero level keeps a quote that is a verbatim span of the reply;
   a progress level whose quote is not one is dropped, a penalty's quote is replaced by the reply's
   first sentence.

The reasoning of each changed level says what the guards did; ``reasoning["guards"]`` lists the
notes. The case language is read from ``view.profile.language`` when the profile has one, else
the constructor's ``language``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from empa_env.offline.guards import (
    EMPTY_REPLY_EVIDENCE,
    GUARDS_VERSION,
    GuardVerdict,
    ReplyGuards,
    fluency_sha256,
    split_sentences,
)
from empa_env.roles.base import Judger, PlaysLanguages
from empa_env.roles.views import JudgeView
from empa_env.text import is_interrogative
from epm.rubric import AXES
from epm.trajectory import Judgement

#: Reasons of the guards' lexical relevance penalties (see ``ReplyGuards._relevance``).
RELEVANCE_REASONS = ("changes the subject", "talks about")


#: How much better a sentence must fit other people's conversations than this one (its
#: grounding feature ``specificity``) for a relevance penalty to stand.
ELSEWHERE_SPECIFICITY = -0.35


class GuardedJudger(Judger):
    """Wrap ``inner`` (any Judger) with the reply guards. See the module docstring."""

    def __init__(self, inner: Judger, language: str = "en", guards: ReplyGuards | None = None):
        self.inner = inner
        self.language = language
        self.guards = guards or ReplyGuards(language)
        self.name = f"guarded({getattr(inner, 'name', type(inner).__name__)})"

    @property
    def languages(self) -> tuple[str, ...] | None:
        """The languages it can rate: the inner judge's (:class:`~empa_env.roles.PlaysLanguages`;
        ``None``: any)."""
        return self.inner.languages if isinstance(self.inner, PlaysLanguages) else None

    def describe(self) -> dict[str, str]:
        inner = self.inner.describe()
        return {
            "class": type(self).__name__,
            "name": self.name,
            "guards": self.guards.version,
            "fluency_sha256": fluency_sha256(),
            **{f"inner.{k}": str(v) for k, v in inner.items()},
        }

    def judge(self, view: JudgeView) -> Judgement:
        return self._guarded(view, self.inner.judge(view))

    async def ajudge(self, view: JudgeView) -> Judgement:
        return self._guarded(view, await self.inner.ajudge(view))

    def judge_batch(self, views: Sequence[JudgeView]) -> list[Judgement]:
        """The inner judge's batch (one batched encoder pass), each guarded as :meth:`judge`."""
        inner = self.inner.judge_batch(views)
        return [self._guarded(v, j) for v, j in zip(views, inner, strict=True)]

    def _guarded(self, view: JudgeView, inner: Judgement) -> Judgement:
        """The guards' verdict on ``view`` applied to the inner judge's judgement of it."""
        language = getattr(view.profile, "language", None) or self.language
        verdict = self._relevance_checked(
            self.guards.inspect(view.reply, view.history, language), view
        )
        return self.combine(view.reply, verdict, inner)

    def _relevance_checked(self, verdict: GuardVerdict, view: JudgeView) -> GuardVerdict:
        """The guards' lexical relevance findings (the penalties "changes the subject", "talks
        about", and questions discredited because they name a topic this user never raised)
        stand only where the inner judge's learned grounding agrees that the sentence is about
        something else: a word list flags idioms, abbreviations, typos and paraphrases in human
        replies ("jump the gun", "Ph.D.", "your saftey", "the job" for their "work"), a judgement
        of relevance does not. Without a grounding model (another inner judge) they stand as
        found."""
        model = getattr(self.inner, "grounding", None)
        relevance = [f for f in verdict.penalties if f.reason.startswith(RELEVANCE_REASONS)]
        if model is None or not (relevance or verdict.unraised):
            return verdict
        users = [m.content for m in view.history if m.role == "user"]
        limit = model.thresholds["misattributes"]

        def _elsewhere(quote: str) -> bool:
            g = model.read(users, quote)
            return g.best < limit and float(g.column("specificity").max()) < ELSEWHERE_SPECIFICITY

        kept = tuple(f for f in verdict.penalties if f not in relevance or _elsewhere(f.quote))
        # a question about something new asks, it does not talk about it (statements that name
        # what this user never raised stay discredited: on human replies that reading holds)
        cleared = {s for s in verdict.unraised if is_interrogative(s) and not _elsewhere(s)}
        if len(kept) == len(verdict.penalties) and not cleared:
            return verdict
        discredited = tuple(s for s in verdict.discredited if s not in cleared)
        return replace(verdict, penalties=kept, discredited=discredited)

    # ------------------------------------------------------------------------------------------
    def combine(self, reply: str, verdict, inner: Judgement) -> Judgement:  # noqa: ANN001
        """Apply a :class:`~empa_env.offline.guards.GuardVerdict` to the inner judgement."""
        if inner.failed:
            if not verdict.void_reason:
                return inner
            # The guards rate a void reply on their own (e.g. another script the inner encoder
            # cannot read): a penalty, never a judge failure that costs the policy nothing.
            zeros = {a: 0 for a in AXES}
            inner = Judgement(prog=dict(zeros), neg=dict(zeros), judge=inner.judge or self.name)
        prog = dict(inner.prog)
        neg = dict(inner.neg)
        evidence = dict(inner.evidence)
        reasoning = dict(inner.reasoning)
        discredited = [s for s in verdict.discredited if s]

        def drop(axis: str, why: str) -> None:
            key = f"{axis}_Prog"
            prog[axis] = 0
            evidence.pop(key, None)
            reasoning[key] = why

        for axis in AXES:
            key = f"{axis}_Prog"
            if not prog[axis]:
                continue
            quote = evidence.get(key, "")
            if verdict.void_reason:
                drop(axis, f"no credit: {verdict.void_reason}")
            elif not quote or quote not in reply:
                drop(axis, "no credit: the evidence is not a quote of the reply")
            elif any(quote in s or s in quote for s in discredited):
                drop(axis, "no credit: the evidence lies in a sentence the guards discredited")
            elif prog[axis] > verdict.progress_caps.get(axis, 2):
                cap = verdict.progress_caps[axis]
                if cap == 0:
                    drop(axis, "no credit: capped by the guards")
                else:
                    prog[axis] = cap
                    reasoning[key] = f"{reasoning.get(key, '')} (capped at {cap} by the guards)"
        kind = [k for k in verdict.kind if k]
        for axis in AXES:
            quote = evidence.get(f"{axis}_Neg", "")
            if neg[axis] and quote and any(quote in k or k in quote for k in kind):
                # the inner judge read a kind negation ("it's not your fault") as blame
                neg[axis] = 0
                evidence.pop(f"{axis}_Neg", None)
                reasoning[f"{axis}_Neg"] = "no penalty: a kind negation, not blame (guards)"
        for f in verdict.penalties:
            if f.level <= neg[f.axis]:
                neg[f.axis] = f.level
                evidence[f"{f.axis}_Neg"] = f.quote
                reasoning[f"{f.axis}_Neg"] = f"guards: {f.reason}"
        sentences = split_sentences(reply)
        first = sentences[0] if sentences else None
        for axis in AXES:
            key = f"{axis}_Neg"
            quote = evidence.get(key, "")
            if neg[axis] and (not quote.strip() or quote not in reply):
                # a quote of the reply; an empty reply has none, so it is named
                evidence[key] = first.text if first else (reply.strip() or EMPTY_REPLY_EVIDENCE)
        if verdict.notes or verdict.void_reason:
            reasoning["guards"] = "; ".join(
                ([f"void: {verdict.void_reason}"] if verdict.void_reason else [])
                + list(verdict.notes)
            )
        return Judgement(
            prog=prog,
            neg=neg,
            evidence=evidence,
            reasoning=reasoning,
            judge=f"{inner.judge}+guards-v{GUARDS_VERSION}",
        )


__all__ = ["GuardedJudger"]
