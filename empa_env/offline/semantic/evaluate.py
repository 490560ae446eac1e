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

from empa_env.offline.semantic.agreement import GOAL_AUROC, GOAL_SPEARMAN
from empa_env.offline.semantic.metrics import auroc, macro_f1, majority_accuracy, spearman

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
        axes[axis] = AxisMetrics(
            accuracy=float((level == y).mean()),
            macro_f1=macro_f1(y, level),
            auroc=auroc(y > 0, score),
            spearman=spearman(score, y),
            majority=majority_accuracy(y),
        )
    return EpitomeReport(axes, len(posts))


def format_report(report: EpitomeReport) -> str:
    lines = [f"EPITOME pairs: {report.n} (A<->ER, C<->IP, P<->EX)",
             "axis  accuracy  macro-F1  AUROC  Spearman  majority"]  # fmt: skip
    for a, m in report.axes.items():
        lines.append(f"{a:4}  {m.accuracy:8.3f}  {m.macro_f1:8.3f}  {m.auroc:5.3f}  "
                     f"{m.spearman:8.3f}  {m.majority:8.3f}")  # fmt: skip
    goal = "met" if report.meets_goal() else "NOT met"
    lines.append(f"goal (AUROC >= {GOAL_AUROC}, Spearman >= {GOAL_SPEARMAN} on every axis): {goal}")
    return "\n".join(lines)
