"""The strategy experiment's policy as a rollout recipe for :mod:`baselines.training.ray_rollouts`.

:class:`StrategyRollout` carries the network's weights (numpy arrays), the sampling mode and a
round seed; where it is built it becomes the same batched policy as the experiment's own
(:func:`baselines.training.strategy.experiment.play`): one forward per turn over the running episodes'
:func:`~baselines.training.strategy.policy.features`, a strategy each, phrased with the episode's
``random.Random(seed * 7919 + index)``. The one difference: a sampled strategy is drawn from the
episode's own generator (``numpy.random.default_rng([seed, index])``) instead of one generator
shared by the batch, so an episode's draws do not depend on which worker plays it. Greedy play
draws nothing and equals the experiment's own loop exactly.

:func:`strategy_episodes` numbers the episodes as the experiment does (``b * K + k``, reset seed
``seed * 10007 + index``); :func:`episode_batch` turns played episodes into the experiment's
:class:`~baselines.training.strategy.policy.EpisodeBatch`, ready for the advantage estimators.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from baselines.training.ray_rollouts import EpisodeSpec, PlayedEpisode
from baselines.training.strategy.policy import EpisodeBatch, StrategyTurns, build_policy
from empa_env.rollout import Step


def strategy_episodes(case_ids: Sequence[str], k: int, seed: int) -> list[EpisodeSpec]:
    """``len(case_ids) x k`` episodes numbered and seeded as :func:`experiment.play` does."""
    n = len(case_ids) * k
    return [EpisodeSpec(i, str(case_ids[i // k]), seed * 10_007 + i) for i in range(n)]


@dataclass(frozen=True)
class StrategyRollout:
    """A picklable recipe of the strategy policy (see the module docstring)."""

    weights: dict[str, np.ndarray]
    hidden: int
    seed: int
    greedy: bool = False
    max_turns: int = 45

    @classmethod
    def of(cls, net: Any, hidden: int, seed: int, greedy: bool = False, max_turns: int = 45) -> StrategyRollout:  # fmt: skip
        """The recipe of ``net`` (a :func:`build_policy` network) as it is now."""
        weights = {k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}
        return cls(weights, hidden, seed, greedy, max_turns)

    def network(self) -> Any:
        import torch

        net = build_policy(self.hidden)
        net.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in self.weights.items()})
        net.eval()
        return net

    def build(self, episodes: Sequence[EpisodeSpec]) -> _SeededStrategyTurns:
        return _SeededStrategyTurns(self, episodes)


class _SeededStrategyTurns(StrategyTurns):
    """The batched strategy policy over ``episodes`` (lockstep position ``j`` = ``episodes[j]``),
    each with its own generator seeded by its index (so a Ray worker draws what the driver would);
    each turn's action and features go to ``step.extra``."""

    def __init__(self, recipe: StrategyRollout, episodes: Sequence[EpisodeSpec]) -> None:
        seeds = [recipe.seed * 7919 + e.index for e in episodes]
        super().__init__(recipe.network(), seeds, recipe.greedy, recipe.max_turns)
        self.draws = [np.random.default_rng([recipe.seed, e.index]) for e in episodes]

    def draw(self, index: int, p: np.ndarray) -> int:
        return int(self.draws[index].choice(len(p), p=p))

    def record(self, index: int, action: int, x: np.ndarray, step: Step) -> None:
        step.extra["action"], step.extra["features"] = action, x


def episode_batch(played: Sequence[PlayedEpisode], k: int) -> EpisodeBatch:
    """Played episodes (indices ``0 .. B*K-1``) as the experiment's padded :class:`EpisodeBatch`."""
    ordered = sorted(played, key=lambda e: e.index)
    if [e.index for e in ordered] != list(range(len(ordered))):
        raise ValueError("episodes missing or repeated: indices must be 0 .. B*K-1 once each")
    b = len(ordered) // k
    t_max = max(len(e.rewards) for e in ordered)
    dim = len(ordered[0].extras[0]["features"])
    out = EpisodeBatch(
        rewards=np.zeros((b, k, t_max)), lengths=np.zeros((b, k), dtype=np.int64),
        feats=np.zeros((b, k, t_max, dim), dtype=np.float32),
        actions=np.zeros((b, k, t_max), dtype=np.int64), epm=[e.epm for e in ordered],
    )  # fmt: skip
    for e in ordered:
        bi, ki, t = e.index // k, e.index % k, len(e.rewards)
        out.lengths[bi, ki] = t
        out.rewards[bi, ki, :t] = e.rewards
        out.feats[bi, ki, :t] = np.stack([s["features"] for s in e.extras])
        out.actions[bi, ki, :t] = [s["action"] for s in e.extras]
    return out


def play_on_workers(
    pool: Any, net: Any, hidden: int, case_ids: Sequence[str], k: int, seed: int,
    greedy: bool = False, max_turns: int = 45,
) -> EpisodeBatch:  # fmt: skip
    """:func:`experiment.play`'s batch, played by a :class:`RayRolloutPool` (or anything with its
    ``play(recipe, episodes)``, such as ``functools.partial(play_in_process, envs)`` wrapped)."""
    recipe = StrategyRollout.of(net, hidden, seed, greedy, max_turns)
    return episode_batch(pool.play(recipe, strategy_episodes(case_ids, k, seed)), k)


__all__ = ["StrategyRollout", "episode_batch", "play_on_workers", "strategy_episodes"]
