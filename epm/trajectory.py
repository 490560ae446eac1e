"""The trajectory record: everything one episode did to the user's state, losslessly serialisable.

Floats are stored as Python floats, so ``Trajectory.from_json(t.to_json()) == t`` holds exactly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np

from epm.rubric import AXES, check_levels


@dataclass
class Judgement:
    """One rating of one reply: raw MDEP-PR levels and the evidence behind every non-zero level.

    ``evidence`` and ``reasoning`` are keyed ``"C_Prog"``, ``"C_Neg"``, ... A failed judgement
    (``failed=True``) carries zero levels *and* the error; it is never mistaken for a real zero.
    """

    #: Levels per axis: integers in the official preset; graded judges give multiples of 0.05
    #: between them (:func:`epm.rubric.increment` interpolates).
    prog: Mapping[str, float]
    neg: Mapping[str, float]
    evidence: dict[str, str] = field(default_factory=dict)
    reasoning: dict[str, str] = field(default_factory=dict)
    judge: str = ""
    failed: bool = False
    error: str | None = None

    def __post_init__(self) -> None:
        if not self.failed:
            check_levels(self.prog, self.neg)

    @classmethod
    def failure(cls, error: str, judge: str = "") -> Judgement:
        zeros = {a: 0 for a in AXES}
        return cls(prog=dict(zeros), neg=dict(zeros), judge=judge, failed=True, error=error)

    @property
    def raw_net(self) -> float:
        """Sum of the raw levels over the three axes (what ``S_net`` adds up)."""
        return sum(self.prog[a] + self.neg[a] for a in AXES)

    @property
    def raw_penalty(self) -> float:
        """Sum of ``|Neg level|`` (what ``R_pen`` adds up)."""
        return sum(abs(self.neg[a]) for a in AXES)


@dataclass
class TurnRecord:
    """One turn: the reply, its judgement, ``v_t``, ``P_t`` and the derived physics."""

    turn: int
    reply: str
    judgement: Judgement
    v: list[float]
    position: list[float]
    v_star: list[float]
    delta_E: float
    alignment: float
    projection: float
    distance: float
    reward: float = 0.0
    user_message: str = ""
    director: dict[str, Any] | None = None
    status: str = "ongoing"
    #: Why the user's message is a canned fallback line instead of the Actor's own ("" if not).
    actor_fallback: str = ""

    def __post_init__(self) -> None:
        # Plain Python floats only (numpy arrays/scalars in, lists of floats out), so that
        # ``==`` and the JSON round trip are exact whatever the environment passed in.
        self.v = [float(x) for x in self.v]
        self.position = [float(x) for x in self.position]
        self.v_star = [float(x) for x in self.v_star]
        for name in ("delta_E", "alignment", "projection", "distance", "reward"):
            setattr(self, name, float(getattr(self, name)))


@dataclass
class Trajectory:
    """A whole episode. ``p0`` is ``P_0``; ``turns[i].position`` is ``P_{i+1}``."""

    case_id: str
    p0: list[float]
    preset: str = "official"
    opening: str = ""
    turns: list[TurnRecord] = field(default_factory=list)
    outcome: str = "ongoing"
    victory_type: str | None = None
    failure_reason: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.p0 = [float(x) for x in self.p0]
        if len(self.p0) != 3:
            raise ValueError(f"P_0 must have 3 components (C, A, P), got {len(self.p0)}")

    # --- array views -----------------------------------------------------------------------
    @property
    def num_turns(self) -> int:
        return len(self.turns)

    def increments(self) -> np.ndarray:
        """``v_t`` for every turn, ``(T, 3)``."""
        return np.array([t.v for t in self.turns], dtype=float).reshape(-1, 3)

    def positions(self) -> np.ndarray:
        """``P_0 .. P_T``, ``(T + 1, 3)``."""
        return np.vstack([np.asarray(self.p0, dtype=float)] + [t.position for t in self.turns])

    def levels(self) -> np.ndarray:
        """Raw levels ``(T, 6)``: C_Prog, A_Prog, P_Prog, C_Neg, A_Neg, P_Neg."""
        rows = [
            [t.judgement.prog[a] for a in AXES] + [t.judgement.neg[a] for a in AXES]
            for t in self.turns
        ]
        return np.array(rows, dtype=float).reshape(-1, 6)

    @property
    def judge_failures(self) -> int:
        return sum(1 for t in self.turns if t.judgement.failed)

    def transcript(self) -> list[dict[str, str]]:
        """The conversation as chat messages from the policy's point of view."""
        messages = [{"role": "user", "content": self.opening}] if self.opening else []
        for t in self.turns:
            messages.append({"role": "assistant", "content": t.reply})
            if t.user_message:
                messages.append({"role": "user", "content": t.user_message})
        return messages

    # --- serialisation ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trajectory:
        """The trajectory of a record :meth:`to_dict` wrote. Every field it writes is required
        (those added since, :data:`ADDED_FIELDS`, excepted): a record without its ``turns`` is
        damaged, not an episode of no turns. A missing or unknown field is a ``ValueError``
        naming it."""
        data = _record_fields(data, cls, "trajectory")
        turns = []
        for index, raw in enumerate(_records(data.pop("turns"), "turns")):
            where = f"turns[{index}]"
            raw = _record_fields(raw, TurnRecord, where)
            raw["judgement"] = Judgement(
                **_record_fields(raw["judgement"], Judgement, f"{where}.judgement")
            )
            turns.append(TurnRecord(**raw))
        return cls(turns=turns, **data)

    @classmethod
    def from_json(cls, text: str) -> Trajectory:
        return cls.from_dict(json.loads(text))


#: Fields added to the record after its first version: a record written before them lacks them
#: and reads with their default. Every other field a record has always had is required.
ADDED_FIELDS: dict[type, frozenset[str]] = {TurnRecord: frozenset({"actor_fallback"})}


def _record_fields(raw: Any, kind: type, where: str) -> dict[str, Any]:
    """``raw`` as the keyword arguments of ``kind``: a mapping with every field of ``kind`` but
    the :data:`ADDED_FIELDS` and no other (``ValueError`` naming the first one that is not)."""
    if not isinstance(raw, dict):
        raise ValueError(f"{where} is a {type(raw).__name__}, not a record")
    names = [f.name for f in fields(kind)]
    missing = [n for n in names if n not in raw and n not in ADDED_FIELDS.get(kind, ())]
    if missing:
        raise ValueError(f"{where} has no {', '.join(map(repr, missing))}")
    unknown = sorted(set(raw) - set(names))
    if unknown:
        raise ValueError(f"{where} has unknown field(s) {', '.join(map(repr, unknown))}")
    return dict(raw)


def _records(raw: Any, where: str) -> list[Any]:
    if not isinstance(raw, list):
        raise ValueError(f"{where} is a {type(raw).__name__}, not a list of records")
    return raw
