"""Validation of a judge against EPITOME human labels (evaluation only, never training).

EPITOME (Sharma et al., EMNLP 2020) is non-commercial research data: it is read from a path the
user gives (``../shared/data/epitome/dev.csv`` on the project's machines) and never copied into
the package. Mapping: A <-> ER (emotional reactions), C <-> IP (interpretations), P <-> EX
(explorations). The seeker post is the user's message; no case profile is involved.
"""

from __future__ import annotations

import csv
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from empa_env.offline.semantic.lab.agreement import GOAL_AUROC, GOAL_SPEARMAN
from empa_env.offline.semantic.lab.metrics import auroc, macro_f1, majority_accuracy, spearman

AXIS_COLUMNS: dict[str, str] = {"A": "ER", "C": "IP", "P": "EX"}


@dataclass(frozen=True)
class AxisMetrics:
    accuracy: float
    macro_f1: float
    auroc: float
    spearman: float
    majority: float


@dataclass(frozen=True)
class EpitomeReport:
    axes: dict[str, AxisMetrics]
    n: int

    def as_dict(self) -> dict:
        return {"axes": {a: asdict(m) for a, m in self.axes.items()}, "n": self.n}

    def meets_goal(self) -> bool:
        return all(
            m.auroc >= GOAL_AUROC and m.spearman >= GOAL_SPEARMAN for m in self.axes.values()
        )


def load_epitome(path: Path) -> tuple[list[str], list[str], dict[str, np.ndarray]]:
    """``(seeker posts, responses, {axis: human levels})`` from an EPITOME CSV."""
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise ValueError(f"{path}: no rows")
    missing = {"seeker_post", "response_post", *AXIS_COLUMNS.values()} - set(rows[0])
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    posts = [r["seeker_post"] or "" for r in rows]
    replies = [r["response_post"] or "" for r in rows]
    labels = {a: np.array([int(r[c]) for r in rows]) for a, c in AXIS_COLUMNS.items()}
    return posts, replies, labels


def evaluate_epitome(judger, path: Path) -> EpitomeReport:  # noqa: ANN001 - SemanticJudger
    """Rate every (seeker post, response) pair and compare with the human levels per axis."""
    posts, replies, labels = load_epitome(path)
    scores = judger.score_pairs(posts, replies)
    axes = {}
    for axis in ("A", "C", "P"):
        y = labels[axis]
        score, level = scores[f"{axis}_Prog"]
        axes[axis] = _axis_metrics(y, score, level)
    return EpitomeReport(axes, len(posts))


#: Reasons of the relevance penalties ("talks about something this user never raised").
RELEVANCE_REASONS = ("never raised", "never said", "changes the subject")


@dataclass(frozen=True)
class AsUsedReport:
    """The judge as the environment runs it (guards, grounding, levels) on EPITOME pairs.

    ``levels``: metrics of the final levels alone (what moves the user's state); ``scores``: the
    final levels with ties broken by the heads' expected level (a continuous score that never
    contradicts the levels); ``bare``: the semantic heads alone, for comparison;
    ``relevance_penalty_rate``: share of the (human) replies given a relevance penalty."""

    levels: EpitomeReport
    scores: EpitomeReport
    bare: EpitomeReport
    relevance_penalty_rate: float
    failures: int
    #: P's AUROC among the replies that contain a question: does P separate explorations of the
    #: person from other questions, or only detect a question mark?
    p_among_questions: float = float("nan")
    questions: int = 0

    def as_dict(self) -> dict:
        return {
            "p_among_questions": self.p_among_questions,
            "questions": self.questions,
            "levels": self.levels.as_dict(),
            "scores": self.scores.as_dict(),
            "bare": self.bare.as_dict(),
            "relevance_penalty_rate": self.relevance_penalty_rate,
            "failures": self.failures,
        }


def _axis_metrics(y: np.ndarray, score: np.ndarray, level: np.ndarray) -> AxisMetrics:
    return AxisMetrics(
        accuracy=float((level == y).mean()),
        macro_f1=macro_f1(y, level),
        auroc=auroc(y > 0, score),
        spearman=spearman(score, y),
        majority=majority_accuracy(y),
    )


def evaluate_epitome_as_used(judger, path: Path, semantic=None) -> AsUsedReport:  # noqa: ANN001
    """Rate every pair with ``judger`` exactly as the environment calls it (a one-message
    conversation, no case profile) and compare its final levels with the human levels.
    ``semantic``: the judge's semantic layer (found inside ``judger`` when not given)."""
    from empa_env.roles.views import JudgeView, Message

    posts, replies, labels = load_epitome(path)
    inner = semantic or getattr(judger, "inner", judger)
    levels = {a: np.zeros(len(posts)) for a in AXIS_COLUMNS}
    scores = {a: np.zeros(len(posts)) for a in AXIS_COLUMNS}
    flagged = 0
    failures = 0
    for i, (post, reply) in enumerate(zip(posts, replies, strict=True)):
        view = JudgeView(None, (Message("user", post),), reply, 1)  # type: ignore[arg-type]
        j = judger.judge(view)
        if j.failed:
            failures += 1
            continue
        reading = inner.read([post], reply) if reply.strip() else None
        for a in AXIS_COLUMNS:
            head = reading.scores[f"{a}_Prog"] if reading else 0.0
            levels[a][i] = j.prog[a]
            scores[a][i] = j.prog[a] + 0.1 * head
        penalties = " ".join(str(j.reasoning.get(f"{a}_Neg", "")) for a in AXIS_COLUMNS if j.neg[a])
        flagged += any(r in penalties for r in RELEVANCE_REASONS)
    bare = evaluate_epitome(inner, path)
    as_levels = EpitomeReport(
        {a: _axis_metrics(labels[a], levels[a], levels[a]) for a in AXIS_COLUMNS}, len(posts)
    )
    as_scores = EpitomeReport(
        {a: _axis_metrics(labels[a], scores[a], levels[a]) for a in AXIS_COLUMNS}, len(posts)
    )
    asks = np.array(["?" in r for r in replies])
    p_questions = (
        auroc(labels["P"][asks] > 0, scores["P"][asks])
        if asks.any() and len(set(labels["P"][asks] > 0)) == 2
        else float("nan")
    )
    return AsUsedReport(as_levels, as_scores, bare, flagged / max(1, len(posts)), failures,
                        p_questions, int(asks.sum()))  # fmt: skip


def format_as_used(report: AsUsedReport) -> str:
    """The as-used figures first, the bare heads as a secondary line."""
    lines = ["The judge as used (guards, grounding, levels): final levels"]
    lines.append(format_report(report.levels))
    lines.append("As used, levels with ties broken by the heads' expected level:")
    lines.append(format_report(report.scores))
    lines.append("Secondary: the bare semantic heads (no guards, no grounding):")
    lines.append(format_report(report.bare))
    cost = {a: report.bare.axes[a].auroc - report.scores.axes[a].auroc for a in report.bare.axes}
    lines.append(
        "guards' AUROC cost vs the bare heads: "
        + " / ".join(f"{a} {c:+.3f}" for a, c in cost.items())
        + f"; relevance penalty on {report.relevance_penalty_rate:.1%} of the human replies"
        + f"; P among the {report.questions} replies with a question: AUROC "
        f"{report.p_among_questions:.3f}"
        + (f"; {report.failures} judge failures" if report.failures else "")
    )
    return "\n".join(lines)


def format_report(report: EpitomeReport) -> str:
    lines = [f"EPITOME pairs: {report.n} (A<->ER, C<->IP, P<->EX)",
             "axis  accuracy  macro-F1  AUROC  Spearman  majority"]  # fmt: skip
    for a, m in report.axes.items():
        lines.append(f"{a:4}  {m.accuracy:8.3f}  {m.macro_f1:8.3f}  {m.auroc:5.3f}  "
                     f"{m.spearman:8.3f}  {m.majority:8.3f}")  # fmt: skip
    goal = "met" if report.meets_goal() else "NOT met"
    lines.append(f"goal (AUROC >= {GOAL_AUROC}, Spearman >= {GOAL_SPEARMAN} on every axis): {goal}")
    return "\n".join(lines)
