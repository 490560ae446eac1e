"""Turn-by-turn EPM state: what an environment advances once per reply."""

from __future__ import annotations

import numpy as np

from epm.config import EPMConfig, get_preset
from epm.dynamics import (
    Thresholds,
    TurnPhysics,
    goal_distance,
    norm3,
    turn_physics,
    unit_toward_origin,
)
from epm.ending import ONGOING, USER_ENDINGS, EndStatus, check_failure, check_success


class EPMTracker:
    """Advance ``P_t`` one increment at a time and apply the ending rules.

    >>> t = EPMTracker([-10.0, -10.0, -10.0])
    >>> phys, status = t.step([1.0, 3.0, 1.0])
    >>> round(phys.delta_E, 3), status.outcome
    (2.887, 'ongoing')
    """

    def __init__(self, p0: np.ndarray | list[float], config: EPMConfig | str = "official") -> None:
        self.config = get_preset(config)
        self.p0 = np.asarray(p0, dtype=float).copy()
        if self.p0.shape != (3,):
            raise ValueError(f"P_0 must have 3 components (C, A, P), got shape {self.p0.shape}")
        self.v_star0 = unit_toward_origin(self.p0)
        self.thresholds = Thresholds.for_start(self.p0, self.config)
        self.position = self.p0.copy()
        self.positions: list[np.ndarray] = [self.p0.copy()]
        self.norms: list[float] = [float(norm3(self.p0))]
        self.delta_E: list[float] = []
        self.alignments: list[float] = []
        self.e_total = 0.0
        self.last_projection: float | None = None
        self.status: EndStatus = ONGOING

    @property
    def turn(self) -> int:
        return len(self.delta_E)

    @property
    def distance(self) -> float:
        return float(goal_distance(self.position, self.config.goal_epsilon))

    @property
    def projection(self) -> float:
        """``projection_t = P_t . v*`` with the last turn's ``v*`` (what the success check used).

        Before the first turn this is ``P_0 . v*_1 = -||P_0||`` in both presets.
        """
        if self.last_projection is not None:
            return self.last_projection
        return float(self.p0 @ self.v_star0)

    def step(self, v: np.ndarray | list[float]) -> tuple[TurnPhysics, EndStatus]:
        """Apply ``v_t``; returns the turn's physics and the status after the ending rules."""
        if self.status.done:
            raise RuntimeError(
                f"episode already ended ({self.status.outcome}); start a new tracker"
            )
        phys = turn_physics(self.position, np.asarray(v, dtype=float), self.v_star0, self.config)
        self.position = phys.position
        self.positions.append(phys.position)
        self.norms.append(float(norm3(phys.position)))
        self.delta_E.append(phys.delta_E)
        self.alignments.append(phys.alignment)
        self.e_total += phys.delta_E
        self.last_projection = phys.projection
        self.status = self._evaluate(phys)
        return phys, self.status

    def _evaluate(self, phys: TurnPhysics) -> EndStatus:
        rules = self.config.ending
        t = self.turn
        mean_alignment = sum(self.alignments) / (t + 1)
        victory = check_success(
            t, self.norms[-1], phys.projection, self.e_total, mean_alignment, self.thresholds, rules
        )
        if victory is not None:
            return EndStatus("success", victory_type=victory)
        reason = check_failure(t, self.delta_E, self.norms, self.positions, rules)
        if reason is not None:
            return EndStatus("failure", failure_reason=reason)
        if t >= rules.max_turns:
            return EndStatus("truncated")
        return ONGOING

    def end_by_director(self) -> bool:
        """The Director's ``end_conversation``: honoured only from ``min_turns``."""
        if self.status.done or self.turn < self.config.ending.min_turns:
            return False
        self.status = EndStatus("director_end")
        return True

    def end_by_actor(self, outcome: str) -> bool:
        """The user ends the conversation (``"user_left"``: it leaves; ``"policy_left"``: it
        takes the policy's goodbye), at any turn; an episode already ended stays as it ended."""
        if outcome not in USER_ENDINGS:
            raise ValueError(f"the user ends with one of {USER_ENDINGS}, got {outcome!r}")
        if self.status.done:
            return False
        self.status = EndStatus(outcome)  # type: ignore[arg-type]
        return True

    def state_block(self) -> dict[str, float]:
        """The EPM numbers the Director sees (EMPA reference implementation, arXiv 2603.00552)."""
        return {
            "turn": self.turn,
            "distance": self.distance,
            "norm": self.norms[-1],
            "eps_dist": self.thresholds.eps_dist,
            "projection": self.projection,
            "neg_eps_dir": -self.thresholds.eps_dir,
            "last_alignment": self.alignments[-1] if self.alignments else 0.0,
            "last_delta_E": self.delta_E[-1] if self.delta_E else 0.0,
            "E_total": self.e_total,
            "eps_energy": self.thresholds.eps_energy,
        }
