"""EPM parameters and the two named presets.

``official`` reproduces the published EMPA leaderboard (the reference implementation);
``paper`` follows the formulas as printed in the Echo-N1 paper. The presets differ in the ideal
direction (fixed ``v*`` vs recomputed ``v*_t``), in the EPM-Q index constants (``RHO_MAX``,
``ALPHA``, ``BETA``, ``r0``) and in one ending rule: ``official`` turns on the reference's
Director-level oscillation stop (window 11), which the paper does not print. With it, replaying
the published increments of the 480 leaderboard episodes ends every one of them at the published
turn with the published outcome (469 without it, 466 with a window of 10).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

IdealDirection = Literal["fixed", "dynamic"]
R0Kind = Literal["goal_distance", "norm"]


@dataclass(frozen=True)
class EndingRules:
    """When an episode ends (EMPA reference implementation, arXiv 2603.00552). Every rule is checked only from ``min_turns``."""

    max_turns: int = 45
    min_turns: int = 12
    collapse_window: int = 5
    stagnation_window: int = 5
    stagnation_std: float = 0.5
    regression_window: int = 8
    regression_ratio: float = 0.7
    regression_sum: float = -1.0
    #: The paper's optional third success branch: mean alignment > ``tau_align``.
    alignment_branch: bool = False
    tau_align: float = 0.7
    #: The Director-level oscillation stop of the reference (EMPA reference implementation, arXiv 2603.00552): over the
    #: points ``P_{t-w} .. P_t`` (``w = oscillation_window`` increments), the summed L1 size of
    #: the increments is ``>= oscillation_min_path`` while the L1 distance between ``P_{t-w}``
    #: and ``P_t`` is ``< oscillation_max_displacement``. Off in a bare ``EndingRules()``; on in
    #: the ``official`` preset. The published episodes fit a window of 11, not 10.
    oscillation_rule: bool = False
    oscillation_window: int = 11
    oscillation_min_path: float = 3.0
    oscillation_max_displacement: float = 3.0

    def __post_init__(self) -> None:
        if self.min_turns < 1 or self.max_turns < self.min_turns:
            raise ValueError(
                f"need 1 <= min_turns <= max_turns, got min_turns={self.min_turns}, "
                f"max_turns={self.max_turns}"
            )
        for name in (
            "collapse_window",
            "stagnation_window",
            "regression_window",
            "oscillation_window",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not 0.0 <= self.regression_ratio <= 1.0:
            raise ValueError(f"regression_ratio must be in [0, 1], got {self.regression_ratio}")


#: The reference's ending rules: the section-5 rules plus the Director-level oscillation stop.
OFFICIAL_ENDING = EndingRules(oscillation_rule=True)


@dataclass(frozen=True)
class IndexConstants:
    """Constants of the EPM-Q indices (EMPA reference implementation, arXiv 2603.00552)."""

    rho_max: float = 2.5
    alpha: float = 1.5
    #: ``None`` means no BETA: ``Idx_Etot = E_total / r0 * 100`` (the paper preset).
    beta: float | None = 1.2
    r0: R0Kind = "goal_distance"
    #: Weights of (Outcome, Efficiency, Stability) in the EPM-Index.
    weights: tuple[float, float, float] = (0.4, 0.2, 0.4)


@dataclass(frozen=True)
class EPMConfig:
    """Everything that defines the physics of one run.

    Attributes:
        name: preset name, recorded in results.
        ideal_direction: ``"fixed"``: ``v* = -P_0 / ||P_0||`` for the whole episode;
            ``"dynamic"``: ``v*_t = -P_{t-1} / ||P_{t-1}||`` recomputed every turn.
        goal_epsilon: the goal zone is every axis ``>= -goal_epsilon``.
        threshold_alpha: ``eps_dist = eps_dir = alpha * ||P_0||``.
        energy_factor: ``eps_energy = energy_factor * ||P_0||``.
    """

    name: str = "official"
    ideal_direction: IdealDirection = "fixed"
    goal_epsilon: float = 1.0
    threshold_alpha: float = 0.10
    energy_factor: float = 1.0
    #: Defaults to the ``official`` ending (oscillation stop on): ``EPMConfig() == OFFICIAL``.
    ending: EndingRules = field(default_factory=lambda: OFFICIAL_ENDING)
    indices: IndexConstants = field(default_factory=IndexConstants)

    def __post_init__(self) -> None:
        if self.ideal_direction not in ("fixed", "dynamic"):
            raise ValueError(
                f"ideal_direction must be 'fixed' or 'dynamic', got {self.ideal_direction!r}"
            )
        if self.goal_epsilon < 0 or self.threshold_alpha < 0 or self.energy_factor < 0:
            raise ValueError("goal_epsilon, threshold_alpha and energy_factor must be >= 0")

    def with_overrides(self, **overrides: Any) -> EPMConfig:
        """A copy with top-level fields and ``ending``/``indices`` fields replaced.

        ``cfg.with_overrides(max_turns=30, rho_max=3.0)`` routes each key to where it lives.
        """
        top: dict[str, Any] = {}
        ending: dict[str, Any] = {}
        indices: dict[str, Any] = {}
        ending_fields = set(asdict(self.ending))
        index_fields = set(asdict(self.indices))
        for key, value in overrides.items():
            if key in ending_fields:
                ending[key] = value
            elif key in index_fields:
                indices[key] = value
            elif key in {f for f in asdict(self) if f not in ("ending", "indices")}:
                top[key] = value
            else:
                raise KeyError(f"unknown EPM parameter {key!r}")
        return replace(
            self,
            ending=replace(self.ending, **ending),
            indices=replace(self.indices, **indices),
            **top,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: ``official``: reproduces the published leaderboard. Fixed ideal direction ``v* = -P_0/||P_0||``,
#: index constants ``RHO_MAX = 2.5, ALPHA = 1.5, BETA = 1.2, r0 = d_0``, and the oscillation stop
#: on (window 11: over ``P_{t-11} .. P_t`` a summed L1 path ``>= 3`` with an L1 displacement
#: ``< 3`` ends the episode as ``failure`` / ``oscillation``), as in the published runs.
OFFICIAL = EPMConfig()
#: ``paper``: the formulas as printed in Echo-N1: dynamic ideal direction, ``RHO_MAX = sqrt(12)``,
#: ``ALPHA = 1.2``, no ``BETA``, ``r0 = ||P_0||``; the paper has no oscillation stop (off).
PAPER = EPMConfig(
    name="paper",
    ideal_direction="dynamic",
    ending=EndingRules(),
    indices=IndexConstants(rho_max=math.sqrt(12.0), alpha=1.2, beta=None, r0="norm"),
)
PRESETS: dict[str, EPMConfig] = {"official": OFFICIAL, "paper": PAPER}


def get_preset(preset: str | EPMConfig) -> EPMConfig:
    """Resolve a preset name (``"official"``, ``"paper"``) or pass a config through."""
    if isinstance(preset, EPMConfig):
        return preset
    try:
        return PRESETS[preset]
    except KeyError:
        raise KeyError(f"unknown EPM preset {preset!r}; known: {sorted(PRESETS)}") from None
