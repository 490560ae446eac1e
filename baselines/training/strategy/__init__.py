"""The CPU strategy experiment (the MICA paper's training claim in miniature): the strategy-level
policy and its menu of strategies (``policy``), its Ray workers (``rollouts``), the experiment
(``experiment``: ``python -m baselines.training.strategy``) and its generated write-up
(``report``).

The policy's names (``STRATEGIES``, ``features``, ``build_policy``, ...) are importable from here
as they were before the room was made (they load on first use).
"""

from __future__ import annotations

from empa_env.lazy import lazy_exports

_POLICY = "baselines.training.strategy.policy"
_NAMES = (
    "CONTENT_BLIND", "FEATURE_DIM", "N_STRATEGIES", "STRATEGIES", "STRATEGY_NAMES", "EpisodeBatch",
    "Strategy", "StrategyTurns", "build_policy", "family", "features",
)  # fmt: skip
__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(_NAMES, _POLICY))

__all__ = list(_NAMES)
