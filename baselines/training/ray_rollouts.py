"""Rollout workers on Ray: actors that hold EMPA environments and play episodes for a learner.

The learner keeps the model and the update; the actors only play. Each call ships a
:class:`RolloutPolicy` (a picklable recipe: weights and sampling settings, never a live model)
and a list of :class:`EpisodeSpec` (case, reset seed, the episode's index in the learner's
batch). An actor rebuilds the batched policy from the recipe, plays its share of the episodes in
lockstep in its own environments (:func:`empa_env.rollout.play_lockstep`) and returns one
:class:`PlayedEpisode` per episode: rewards, whatever the policy attached to each turn (actions,
features, token ids), the EPM metrics and the trajectory. The learner puts them back in index
order and computes advantages with the trainers' own estimators
(:class:`baselines.advantages.AdvantageConfig`).

Results do not depend on where an episode is played: every random choice of an episode comes
from generators seeded by the episode's own index (never from a generator shared across
episodes), so :func:`play_in_process` (all episodes in this process) and
:class:`RayRolloutPool` with any number of workers return the same episodes.

Fault tolerance: an actor whose process or node dies is restarted by Ray (``max_restarts``)
and the interrupted call runs again (``max_task_retries``); since an episode is a pure function
of the recipe and its spec, the learner gets each episode exactly once.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from empa_env.errors import UserError
from empa_env.rollout import RolloutHooks, play_lockstep

INSTALL_HINT = (
    "rollout workers need Ray, which is not installed; install the ray extra: "
    "pip install 'empa-gym[ray]' (in a checkout: pip install -e \".[ray]\")"
)


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to play: its index in the learner's batch, its case and its reset seed."""

    index: int
    case_id: str
    seed: int


@dataclass
class PlayedEpisode:
    """One finished episode as the learner needs it."""

    index: int
    case_id: str
    seed: int
    rewards: list[float]
    #: Per turn, what the policy's hooks attached to the step (``Step.extra``).
    extras: list[dict[str, Any]] = field(default_factory=list)
    epm: dict[str, Any] = field(default_factory=dict)
    trajectory: Any = None


class RolloutPolicy(Protocol):
    """A picklable recipe that builds the batched policy for a list of episodes where it runs.

    ``build`` returns an object that is both the ``reply_batch`` and the :class:`RolloutHooks`
    of :func:`play_lockstep` (lockstep position ``j`` plays ``episodes[j]``); its random choices
    for an episode must come from generators seeded by ``episodes[j].index``."""

    def build(self, episodes: Sequence[EpisodeSpec]) -> Any: ...


def play_shard(envs: Sequence[Any], policy: RolloutPolicy, episodes: Sequence[EpisodeSpec]) -> list[PlayedEpisode]:  # fmt: skip
    """Play ``episodes`` in lockstep in ``envs`` (at least as many) with ``policy``'s recipe."""
    if not episodes:
        return []
    turns = policy.build(episodes)
    hooks = turns if isinstance(turns, RolloutHooks) else None
    played = play_lockstep(
        envs,
        turns,
        cases=[e.case_id for e in episodes],
        seeds=[e.seed for e in episodes],
        hooks=hooks,
    )
    return [
        PlayedEpisode(
            index=spec.index,
            case_id=spec.case_id,
            seed=spec.seed,
            rewards=episode.rewards,
            extras=[dict(step.extra) for step in episode.steps],
            epm=episode.epm,
            trajectory=episode.trajectory,
        )
        for spec, episode in zip(episodes, played, strict=True)
    ]


def make_env(env_id: str, env_kwargs: dict[str, Any] | None = None) -> Any:
    """``gym.make(env_id, **env_kwargs)`` with the EMPA ids registered."""
    import gymnasium as gym

    import empa_env  # noqa: F401  (registers the ids)

    return gym.make(env_id, **(env_kwargs or {}))


class RolloutWorker:
    """What each Ray actor is: environments made from ``(env_id, env_kwargs)``, grown to the
    largest share asked for and reused across calls (as the trainers reuse theirs)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any] | None = None) -> None:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        try:
            import torch

            torch.set_num_threads(1)
        except ImportError:  # a policy without torch needs none
            pass
        self.env_id, self.env_kwargs = env_id, dict(env_kwargs or {})
        self.envs: list[Any] = []

    def play(self, policy: RolloutPolicy, episodes: Sequence[EpisodeSpec]) -> list[PlayedEpisode]:
        while len(self.envs) < len(episodes):
            self.envs.append(make_env(self.env_id, self.env_kwargs))
        return play_shard(self.envs, policy, episodes)

    def where(self) -> str:
        """``node id/pid`` of this actor (for tests and logs)."""
        import ray

        return f"{ray.get_runtime_context().get_node_id()}/{os.getpid()}"

    def close(self) -> None:
        for env in self.envs:
            env.close()
        self.envs.clear()


def play_in_process(
    envs: Sequence[Any], policy: RolloutPolicy, episodes: Sequence[EpisodeSpec]
) -> list[PlayedEpisode]:
    """The same episodes as :meth:`RayRolloutPool.play`, all played here (the reference)."""
    return play_shard(envs, policy, episodes)


def shards(episodes: Sequence[EpisodeSpec], count: int) -> list[list[EpisodeSpec]]:
    """``episodes`` dealt to ``count`` workers as evenly as possible, in contiguous runs (the
    rollouts of one case stay together where they can)."""
    count = max(1, min(count, len(episodes)))
    size, extra = divmod(len(episodes), count)
    out, start = [], 0
    for i in range(count):
        stop = start + size + (1 if i < extra else 0)
        out.append(list(episodes[start:stop]))
        start = stop
    return out


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserError(INSTALL_HINT) from None
    return ray


class RayRolloutPool:
    """``workers`` Ray actors, each a :class:`RolloutWorker` (one CPU each).

    Connects to ``address`` (or ``RAY_ADDRESS``, else starts a private local Ray) unless this
    process is connected already. :meth:`play` deals the episodes out, one share per actor, and
    returns them in index order. :meth:`close` ends the actors (and a Ray it started)."""

    def __init__(
        self,
        workers: int,
        env_id: str,
        env_kwargs: dict[str, Any] | None = None,
        *,
        address: str | None = None,
        cpus_per_worker: float = 1.0,
    ) -> None:
        if workers < 1:
            raise UserError(f"--rollout-workers must be >= 1, got {workers}")
        ray = _import_ray()
        self._started_ray = False
        if not ray.is_initialized():
            target = address or os.environ.get("RAY_ADDRESS") or "local"
            kwargs: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
            if target == "local":
                kwargs["include_dashboard"] = False
            ray.init(address=target, **kwargs)
            self._started_ray = target == "local"
        actor = ray.remote(num_cpus=cpus_per_worker, max_restarts=-1, max_task_retries=-1)(
            RolloutWorker
        )
        self.actors = [actor.remote(env_id, env_kwargs) for _ in range(workers)]

    def play(self, policy: RolloutPolicy, episodes: Sequence[EpisodeSpec]) -> list[PlayedEpisode]:
        ray = _import_ray()
        recipe = ray.put(policy)  # shipped once, read by every actor
        parts = shards(episodes, len(self.actors))
        calls = [a.play.remote(recipe, part) for a, part in zip(self.actors, parts, strict=False)]
        played = [e for share in ray.get(calls) for e in share]
        return sorted(played, key=lambda e: e.index)

    def where(self) -> list[str]:
        ray = _import_ray()
        return list(ray.get([a.where.remote() for a in self.actors]))

    def close(self) -> None:
        ray = _import_ray()
        for a in self.actors:
            ray.kill(a)
        self.actors = []
        if self._started_ray:
            ray.shutdown()

    def __enter__(self) -> RayRolloutPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "EpisodeSpec", "PlayedEpisode", "RayRolloutPool", "RolloutPolicy", "RolloutWorker",
    "make_env", "play_in_process", "play_shard", "shards",
]  # fmt: skip
