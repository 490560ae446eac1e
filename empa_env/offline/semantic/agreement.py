"""What each judge measures, in plain words, with its recorded agreement with human raters.

The figures are measured by ``empa judge eval --epitome ../shared/data/epitome/dev.csv --tier T``
(EPITOME, Sharma et al., EMNLP 2020: evaluation only, never training data) and recorded here per
heads file, keyed by its sha256: retraining a heads file without measuring it again leaves it
without recorded figures (a test checks that the shipped files have theirs). The benchmark report
and the README show :func:`judge_statement` so that a reader knows what the score is a
measurement of.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: The issue 14 goal on every axis: AUROC of "level > 0" and Spearman with the human levels.
GOAL_AUROC = 0.75
GOAL_SPEARMAN = 0.35


@dataclass(frozen=True)
class RecordedAgreement:
    """Agreement of one heads file with human levels: per axis ``(AUROC, Spearman)``."""

    tier: str
    dataset: str
    pairs: int
    axes: Mapping[str, tuple[float, float]]

    def meets_goal(self) -> bool:
        return all(a >= GOAL_AUROC and r >= GOAL_SPEARMAN for a, r in self.axes.values())

    def summary(self) -> str:
        """``"AUROC .773 / .753 / .862, Spearman .457 / .440 / .453 (A / C / P)"``."""
        auroc = " / ".join(f"{a:.3f}".lstrip("0") for a, _ in self.axes.values())
        rho = " / ".join(f"{r:.3f}".lstrip("0") for _, r in self.axes.values())
        return f"AUROC {auroc}, Spearman {rho} ({' / '.join(self.axes)})"


_EPITOME_DEV = "EPITOME dev (Reddit peer support, human levels; A<->ER, C<->IP, P<->EX)"

#: Recorded figures per heads file (sha256 of the ``.npz``).
RECORDED: dict[str, RecordedAgreement] = {
    "7e111a10a2638b8aebb61657e8d212e24cacbe28083565e8266c27e546ab4882": RecordedAgreement(
        "static",
        _EPITOME_DEV,
        2116,
        {"A": (0.773, 0.457), "C": (0.753, 0.440), "P": (0.862, 0.453)},
    ),
    "caa4709a107156ff48465fcb90b65c57545bbb6ee1982a778118022ed1ad5a0e": RecordedAgreement(
        "minilm",
        _EPITOME_DEV,
        2116,
        {"A": (0.777, 0.465), "C": (0.726, 0.398), "P": (0.770, 0.339)},
    ),
}
#: Recorded figures of the judge *as the environment runs it* (``judger="offline"``: guards,
#: grounding, levels; ``empa judge eval`` without ``--bare``), keyed by :func:`as_used_key`. The
#: axes hold the final levels with ties broken by the heads' expected level; ``levels`` the final
#: levels alone.
RECORDED_AS_USED: dict[str, tuple[RecordedAgreement, RecordedAgreement]] = {
    "7e111a10a2638b8aebb61657e8d212e24cacbe28083565e8266c27e546ab4882"
    ":faafb47fc2805c24f08acfb59c2d0e83c97070c73dca53cbe736c646b05bf8f8:v2:guards-v2.3"
    ":3cc350b7f3d409c8dc30d98e9f7b754d6d600ad84d63c556fcecc2797133b584": (
        RecordedAgreement(
            "static as used",
            _EPITOME_DEV,
            2116,
            {"A": (0.753, 0.422), "C": (0.751, 0.437), "P": (0.874, 0.468)},
        ),
        RecordedAgreement(
            "static as used, levels alone",
            _EPITOME_DEV,
            2116,
            {"A": (0.600, 0.233), "C": (0.545, 0.157), "P": (0.706, 0.471)},
        ),
    ),
}
#: The old phrase judge (``judger="lexicon"``), measured the same way.
LEXICON_AGREEMENT = RecordedAgreement(
    "lexicon", _EPITOME_DEV, 2116, {"A": (0.47, -0.09), "C": (0.50, 0.00), "P": (0.53, 0.06)}
)


def as_used_key(descriptor: Mapping[str, str]) -> str:
    """The identity of a guarded semantic judge as used: heads, grounding model and rules, guards
    and fluency."""
    return ":".join(
        descriptor.get(k, "")
        for k in (
            "inner.heads_sha256",
            "inner.grounding_sha256",
            "inner.grounding_rules",
            "guards",
            "fluency_sha256",
        )  # fmt: skip
    )


def recorded_agreement(heads_sha256: str) -> RecordedAgreement | None:
    """The recorded figures of a heads file, or ``None`` if it was never measured."""
    return RECORDED.get(heads_sha256)


@dataclass(frozen=True)
class JudgeStatement:
    """What a judge measures: a paragraph and, when recorded, its agreement with human raters."""

    judge: str
    text: str
    agreement: RecordedAgreement | None = None


def judge_statement(descriptor: Mapping[str, str]) -> JudgeStatement:
    """Plain words for the judge a run used, from its ``describe()`` (the run's configuration)."""
    cls = descriptor.get("class", "")
    name = descriptor.get("name", cls or "unknown judge")
    if cls == "GuardedJudger" and descriptor.get("inner.class") == "SemanticJudger":
        bare = recorded_agreement(descriptor.get("inner.heads_sha256", ""))
        as_used = RECORDED_AS_USED.get(as_used_key(descriptor))
        text = (
            "The offline judge is a proxy for a human rater, not one. Rules come first: they read "
            "the reply as a person reads it (look-alike letters, invisible characters and spacing "
            "folded), check every sentence, and penalise contempt (also hedged or reported), "
            "blame, denial, harmful advice (also as a suggestion), agreement with self-harm or "
            "worthlessness, another language, text aimed at a judge, incoherent text, padding, "
            "keyword stuffing, parroting and repeated templates, each with a quoted sentence; one "
            "contemptuous or harmful sentence leaves the whole reply without credit, and kind "
            'negations ("it\'s not your fault") are never penalised. Then small learned heads '
            "on sentence embeddings rate how far the reply shows understanding (C), warmth toward "
            "the person (A) and invites or empowers them (P), and a learned grounding model reads "
            "whether the reply is about this person: C credit needs a sentence anchored in what "
            "this user said, lines that would fit any conversation earn at most a little A (or P "
            "for a question) and nothing when they come again, and a reply written for someone "
            "else earns nothing. The models were trained only on a corpus written for this "
            "project, never on human-rated data. "
        )
        if as_used is not None:
            scores, levels = as_used
            goal = "meets" if scores.meets_goal() else "does not meet"
            text += (
                f"As used, on {scores.dataset}, {scores.pairs} pairs: its levels (ties broken by "
                f"the heads' expected level) reach {scores.summary()}, which {goal} the project's "
                f"bar of AUROC {GOAL_AUROC} and Spearman {GOAL_SPEARMAN} on every axis; its "
                f"levels alone {levels.summary()}. "
            )
            agreement: RecordedAgreement | None = scores
        else:
            text += (
                "This configuration has no recorded as-used agreement figures (retrained and not "
                "measured: run empa judge eval --epitome CSV). "
            )
            agreement = None
        if bare is not None:
            text += f"The bare heads alone: {bare.summary()}. "
        text += "Use an LLM judge when the ranking of capable models matters."
        return JudgeStatement(name, text, agreement)
    if cls == "OfflineJudger":
        return JudgeStatement(
            name,
            "The old phrase judge: it matches the reply against its own list of phrases and the "
            "user's words. It is kept for speed comparisons only; it rewards phrases, not "
            f"empathy (on {LEXICON_AGREEMENT.dataset}: {LEXICON_AGREEMENT.summary()}, chance).",
            LEXICON_AGREEMENT,
        )
    if cls == "LLMJudger":
        model = descriptor.get("model", "the configured model")
        return JudgeStatement(
            name,
            f"An LLM ({model}) rates each reply with the MDEP-PR rubric and quotes its evidence. "
            "Its agreement with human raters is not measured by this project; it depends on the "
            "model.",
        )
    return JudgeStatement(
        name, f"A custom judge ({cls or 'unknown class'}); what it measures is its author's to say."
    )


__all__ = [
    "GOAL_AUROC",
    "GOAL_SPEARMAN",
    "RECORDED",
    "RECORDED_AS_USED",
    "as_used_key",
    "JudgeStatement",
    "RecordedAgreement",
    "judge_statement",
    "recorded_agreement",
]
