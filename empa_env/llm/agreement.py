"""Cross-judge agreement: re-score a saved trajectory with another Judger and compare increments.

As in the MICA paper (appendix D.3.2), each judge's per-turn increment ``v_t`` (a 3-vector over
C, A, P, computed from its levels by :func:`epm.rubric.increment`) is compared by cosine
similarity, turn by turn. Conventions for the cases the cosine leaves open: both increments zero
counts as agreement (1.0), exactly one zero as 0.0; turns where either judge failed are excluded
and counted. The report also gives the cosine of the whole concatenated increment sequences.

The Judger sees what it saw during the episode: the profile with the emotions of the plot stages
released so far (rebuilt from the Director calls recorded in the trajectory), the history before
the reply, and the reply.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from empa_env.cases.schema import Case
from empa_env.plot import PlotState
from empa_env.roles.base import Judger
from empa_env.roles.views import DIRECTOR_TOOLS, DirectorAction, JudgeProfile, JudgeView, Message
from epm.rubric import increment
from epm.trajectory import Judgement, Trajectory


def judge_views(trajectory: Trajectory, case: Case) -> list[JudgeView]:
    """The Judger's view of every turn of ``trajectory``, as the environment built it."""
    if trajectory.case_id != case.id:
        raise ValueError(f"trajectory is for case {trajectory.case_id!r}, not {case.id!r}")
    history: list[Message] = [Message("user", trajectory.opening)] if trajectory.opening else []
    plot = PlotState(case)  # the env's rulebook, replayed on the recorded Director calls
    views = []
    for record in trajectory.turns:
        profile = JudgeProfile.from_case(
            case,
            tuple(plot.released_emotions),
            plot.current_focus,
        )
        views.append(JudgeView(profile, tuple(history), record.reply, record.turn))
        history.append(Message("assistant", record.reply))
        if record.user_message:
            history.append(Message("user", record.user_message))
        call = record.director or {}
        if not call.get("rejected") and call.get("tool") in DIRECTOR_TOOLS:
            action = DirectorAction(call["tool"], dict(call.get("args") or {}))
            plot.apply(action, turn=record.turn, history=history, can_end=True, min_turns=0)
    return views


async def arescore(
    trajectory: Trajectory, case: Case, judger: Judger, concurrency: int = 8
) -> list[Judgement]:
    """Every reply of ``trajectory`` judged again by ``judger`` (turns in parallel, bounded)."""
    limit = asyncio.Semaphore(concurrency)

    async def one(view: JudgeView) -> Judgement:
        async with limit:
            try:
                return await judger.ajudge(view)
            except Exception as exc:  # noqa: BLE001 - a judge crash is a recorded failure
                return Judgement.failure(f"{type(exc).__name__}: {exc}", judge=judger.name)

    return list(await asyncio.gather(*(one(v) for v in judge_views(trajectory, case))))


def increment_cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of two increments; 1.0 when both are zero, 0.0 when exactly one is."""
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    na, nb = float(np.linalg.norm(va)), float(np.linalg.norm(vb))
    if na == 0.0 and nb == 0.0:
        return 1.0
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(va @ vb / (na * nb))


def _v(judgement: Judgement) -> list[float]:
    return [float(x) for x in increment(judgement.prog, judgement.neg)]


@dataclass(frozen=True)
class TurnAgreement:
    turn: int
    v_a: tuple[float, float, float] | None
    v_b: tuple[float, float, float] | None
    cosine: float | None


@dataclass(frozen=True)
class AgreementReport:
    """Per-turn cosine similarity of two judges' increments on one trajectory."""

    case_id: str
    judge_a: str
    judge_b: str
    turns: tuple[TurnAgreement, ...]

    @property
    def compared(self) -> list[TurnAgreement]:
        return [t for t in self.turns if t.cosine is not None]

    @property
    def mean_cosine(self) -> float | None:
        values = [t.cosine for t in self.compared if t.cosine is not None]
        return float(np.mean(values)) if values else None

    @property
    def sequence_cosine(self) -> float | None:
        """Cosine of the concatenated increments over the compared turns."""
        if not self.compared:
            return None
        a = np.concatenate([t.v_a for t in self.compared])  # type: ignore[arg-type]
        b = np.concatenate([t.v_b for t in self.compared])  # type: ignore[arg-type]
        return increment_cosine(a.tolist(), b.tolist())

    @property
    def failed_turns(self) -> int:
        return len(self.turns) - len(self.compared)

    def as_dict(self) -> dict[str, Any]:
        return {
            "case_id": self.case_id,
            "judge_a": self.judge_a,
            "judge_b": self.judge_b,
            "turns": len(self.turns),
            "compared_turns": len(self.compared),
            "failed_turns": self.failed_turns,
            "mean_cosine": self.mean_cosine,
            "sequence_cosine": self.sequence_cosine,
            "per_turn": [
                {"turn": t.turn, "v_a": t.v_a, "v_b": t.v_b, "cosine": t.cosine} for t in self.turns
            ],
        }


def compare_judgements(
    case_id: str,
    judge_a: str,
    a: Sequence[Judgement],
    judge_b: str,
    b: Sequence[Judgement],
    turns: Sequence[int] | None = None,
) -> AgreementReport:
    if len(a) != len(b):
        raise ValueError(f"different numbers of judgements: {len(a)} vs {len(b)}")
    turn_ids = list(turns) if turns is not None else list(range(1, len(a) + 1))
    rows = []
    for turn, ja, jb in zip(turn_ids, a, b, strict=True):
        va = None if ja.failed else tuple(_v(ja))
        vb = None if jb.failed else tuple(_v(jb))
        cos = None if va is None or vb is None else increment_cosine(va, vb)
        rows.append(TurnAgreement(turn, va, vb, cos))  # type: ignore[arg-type]
    return AgreementReport(case_id, judge_a, judge_b, tuple(rows))


async def acompare(
    trajectory: Trajectory,
    case: Case,
    judger_b: Judger,
    judger_a: Judger | None = None,
    concurrency: int = 8,
) -> AgreementReport:
    """Agreement of ``judger_b`` with ``judger_a`` on ``trajectory`` (``judger_a=None``: the
    judgements recorded in the trajectory, i.e. the judge that ran the episode)."""
    if judger_a is None:
        a = [t.judgement for t in trajectory.turns]
        name_a = next((j.judge for j in a if j.judge), "recorded")
    else:
        a = await arescore(trajectory, case, judger_a, concurrency)
        name_a = judger_a.name
    b = await arescore(trajectory, case, judger_b, concurrency)
    turns = [t.turn for t in trajectory.turns]
    return compare_judgements(case.id, name_a, a, judger_b.name, b, turns)


def compare(
    trajectory: Trajectory, case: Case, judger_b: Judger, judger_a: Judger | None = None
) -> AgreementReport:
    from empa_env.sync import run_sync

    return run_sync(acompare(trajectory, case, judger_b, judger_a))


async def aagreement_matrix(
    trajectories: Sequence[Trajectory],
    cases: Mapping[str, Case],
    judgers: Mapping[str, Judger],
    concurrency: int = 8,
) -> dict[tuple[str, str], float | None]:
    """Mean per-turn cosine for every pair of judges over all trajectories (MICA Figure 8).

    Each judge re-scores each trajectory once; pairs are compared on turns both rated.
    """
    names = list(judgers)
    scored: dict[str, list[list[Judgement]]] = {}
    for name in names:
        scored[name] = [
            await arescore(t, cases[t.case_id], judgers[name], concurrency) for t in trajectories
        ]
    out: dict[tuple[str, str], float | None] = {}
    for i, x in enumerate(names):
        for y in names[i:]:
            cosines: list[float] = []
            for k, traj in enumerate(trajectories):
                report = compare_judgements(traj.case_id, x, scored[x][k], y, scored[y][k])
                cosines.extend(t.cosine for t in report.compared)  # type: ignore[misc]
            value = float(np.mean(cosines)) if cosines else None
            out[(x, y)] = out[(y, x)] = value
    return out
