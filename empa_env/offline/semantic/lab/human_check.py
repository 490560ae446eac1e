"""How the judge, as the environment runs it, agrees with people: EPITOME, as used and in contrast.

Two checks on human data (EPITOME, Sharma et al., EMNLP 2020: Reddit replies rated by trained
crowdworkers for emotional reactions, interpretations and explorations, mapped to A, C and P;
evaluation only, never training data):

* :func:`evaluate_as_used`: every (post, reply) pair rated as the environment rates a reply (a
  one-message conversation, no case profile); the **levels the environment uses** (graded, as they
  move ``v_t``) against the human levels: AUROC of "people credit it", Spearman with the human
  level, and the share of replies the judge credits beside the share people credit;
* :func:`contrast_check`: for each post whose reply people credited, the person's own reply against
  (a) a stock frame with a word of the post slotted in after a generic kind line, (b) two generic
  kind lines, (c) the reply written for another post; the share of posts where the own reply scores
  higher (net levels C + A + P; ties count half). A judge that credits attention to this person
  ranks the reply written for this post above replies that fit any post.

The frames and lines are the project's adversary's (:mod:`empa_env.testing.adversary`); other
people's frames, lines and human data are held back to check the same thing.
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from empa_env.roles.base import Judger
from empa_env.roles.views import JudgeView, Message
from epm.trajectory import Judgement

#: EPITOME's columns for the project's axes.
AXIS_COLUMNS: dict[str, str] = {"A": "ER", "C": "IP", "P": "EX"}
#: The project's bar on every axis, as used: AUROC, Spearman, and the largest gap between the
#: share the judge credits and the share people credit.
GOAL_AUROC = 0.75
GOAL_SPEARMAN = 0.35
GOAL_SHARE_GAP = 0.10
#: The contrast goals: own reply higher than slot-filled frames and generic lines, and than a
#: reply written for another post.
GOAL_CONTRAST = {"slot_fill": 0.80, "generic": 0.80, "another_post": 0.75}


def _auroc(positive: np.ndarray, score: np.ndarray) -> float:
    from empa_env.offline.semantic.lab.metrics import auroc

    return auroc(positive, score)


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    from empa_env.offline.semantic.lab.metrics import spearman

    return spearman(a, b)


@dataclass(frozen=True)
class AxisAgreement:
    """One axis, as used: AUROC, Spearman, the judge's credited share and people's."""

    auroc: float
    spearman: float
    credited: float
    people: float

    def meets_goal(self) -> bool:
        return (
            self.auroc >= GOAL_AUROC
            and self.spearman >= GOAL_SPEARMAN
            and abs(self.credited - self.people) <= GOAL_SHARE_GAP
        )


@dataclass(frozen=True)
class AsUsedAgreement:
    """:func:`evaluate_as_used`'s result."""

    pairs: int
    axes: dict[str, AxisAgreement]
    failures: int

    def meets_goal(self) -> bool:
        return all(a.meets_goal() for a in self.axes.values())

    def as_dict(self) -> dict[str, object]:
        return {"pairs": self.pairs, "failures": self.failures,
                "axes": {k: asdict(v) for k, v in self.axes.items()}}  # fmt: skip


def load_epitome(path: Path) -> list[dict[str, str]]:
    """The rows of an EPITOME CSV (``seeker_post``, ``response_post``, ``ER``, ``IP``, ``EX``)."""
    with Path(path).open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    missing = {"seeker_post", "response_post", "ER", "IP", "EX"} - set(rows[0] if rows else {})
    if missing:
        raise ValueError(f"{path}: not an EPITOME file (missing columns {sorted(missing)})")
    return rows


def rate_as_used(judger: Judger, post: str, reply: str) -> Judgement:
    """``reply`` to ``post`` rated as the environment rates a reply (no case profile)."""
    return judger.judge(JudgeView(None, (Message("user", post),), reply, 1))  # type: ignore[arg-type]


def evaluate_as_used(judger: Judger, path: Path, limit: int | None = None) -> AsUsedAgreement:
    """The levels the environment uses against people's (see the module docstring)."""
    rows = load_epitome(path)[:limit]
    levels = {a: np.zeros(len(rows)) for a in AXIS_COLUMNS}
    human = {a: np.array([int(r[c]) for r in rows]) for a, c in AXIS_COLUMNS.items()}
    failures = 0
    for i, r in enumerate(rows):
        j = rate_as_used(judger, r["seeker_post"], r["response_post"])
        if j.failed:
            failures += 1
            continue
        for a in AXIS_COLUMNS:
            levels[a][i] = float(j.prog[a])
    axes = {
        a: AxisAgreement(
            auroc=_auroc(human[a] > 0, levels[a]),
            spearman=_spearman(levels[a], human[a]),
            credited=float((levels[a] > 0).mean()),
            people=float((human[a] > 0).mean()),
        )
        for a in AXIS_COLUMNS
    }
    return AsUsedAgreement(len(rows), axes, failures)


@dataclass(frozen=True)
class ContrastReport:
    """:func:`contrast_check`'s result: per rival, the share of posts the own reply wins."""

    posts: int
    wins: dict[str, float]

    def meets_goal(self) -> bool:
        return all(self.wins[k] >= v for k, v in GOAL_CONTRAST.items())

    def line(self) -> str:
        parts = ", ".join(f"{k.replace('_', ' ')} {v:.2f}" for k, v in self.wins.items())
        goals = " / ".join(f"{v:.2f}" for v in GOAL_CONTRAST.values())
        return (
            f"contrast ({self.posts} posts): the person's own reply scores higher than {parts} "
            f"(goals {goals})"
        )


_WORD = re.compile(r"[a-z]{4,}")


def net(j: Judgement) -> float:
    """Net levels over the three axes (what the contrast compares)."""
    return float(sum(j.prog[a] + j.neg[a] for a in AXIS_COLUMNS))


def contrast_check(
    judger: Judger,
    path: Path,
    posts: int = 200,
    seed: int = 3,
    frames: Sequence[str] | None = None,
    lines: Sequence[str] | None = None,
) -> ContrastReport:
    """The contrastive human check (see the module docstring)."""
    from empa_env.testing.adversary import FRAMES, GENERIC_LINES

    frames = list(frames or FRAMES)
    lines = [line for line in (lines or GENERIC_LINES) if not line.endswith("?")]
    rows = [
        r for r in load_epitome(path)
        if max(int(r["ER"]), int(r["IP"]), int(r["EX"])) > 0
    ]  # fmt: skip
    rng = random.Random(seed)
    rng.shuffle(rows)
    rows = rows[:posts]
    wins = {"slot_fill": 0.0, "generic": 0.0, "another_post": 0.0}
    for k, r in enumerate(rows):
        post, own = r["seeker_post"], r["response_post"]
        words = _WORD.findall(post.lower()) or ["this"]
        slot = frames[k % len(frames)].format(w=words[rng.randrange(len(words))])
        rivals = {
            "slot_fill": f"{lines[k % len(lines)]} {slot[0].upper()}{slot[1:]}",
            "generic": f"{lines[k % len(lines)]} {lines[(k + 1) % len(lines)]}",
            "another_post": rows[(k + 7) % len(rows)]["response_post"],
        }
        mine = net(rate_as_used(judger, post, own))
        for name, reply in rivals.items():
            theirs = net(rate_as_used(judger, post, reply))
            wins[name] += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return ContrastReport(len(rows), {k: v / max(1, len(rows)) for k, v in wins.items()})


def format_as_used(report: AsUsedAgreement) -> str:
    lines = [f"EPITOME pairs: {report.pairs} (A<->ER, C<->IP, P<->EX), the levels the environment "
             "uses", "axis  AUROC  Spearman  credited  people"]  # fmt: skip
    for a, m in report.axes.items():
        lines.append(
            f"{a:4}  {m.auroc:5.3f}  {m.spearman:8.3f}  {m.credited:8.2f}  {m.people:6.2f}"
        )
    goal = "met" if report.meets_goal() else "NOT met"
    lines.append(
        f"goal (AUROC >= {GOAL_AUROC}, Spearman >= {GOAL_SPEARMAN}, credited share within "
        f"{GOAL_SHARE_GAP} of people's, on every axis): {goal}"
        + (f"; {report.failures} judge failures" if report.failures else "")
    )
    return "\n".join(lines)


__all__ = [
    "AXIS_COLUMNS", "AsUsedAgreement", "AxisAgreement", "ContrastReport", "GOAL_AUROC",
    "GOAL_CONTRAST", "GOAL_SHARE_GAP", "GOAL_SPEARMAN", "contrast_check", "evaluate_as_used",
    "format_as_used", "load_epitome", "net", "rate_as_used",
]  # fmt: skip
