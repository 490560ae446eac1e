"""The one rollout loop: whole episodes of a policy in EMPA environments, one at a time or batched.

Every place that plays episodes goes through here: the benchmark runner
(:func:`aplay_episode`), users' own loops (:func:`play_episode`), the MICA trainer and the
strategy experiment (:func:`play_lockstep`). The loop knows nothing about tokens, features or
stores; what a caller needs beyond the transitions it records through :class:`RolloutHooks`.

* :func:`play_episode` / :func:`aplay_episode`: ``reset``, then ``reply = policy(env.messages)``
  and ``env.step(reply)`` until the episode ends. A policy is an :class:`empa_env.policy.Policy`
  or a plain callable ``messages -> str`` (``async`` too).
* :func:`play_lockstep`: ``N`` environments reset together; at every turn the histories of the
  episodes still running go to ``reply_batch`` in one call (one ``generate`` for an LM, one
  forward for a small network), and each reply goes to its environment, until all have ended.
  Episodes may end at different turns; the batch shrinks as they do.

Each policy turn becomes a :class:`Step` (``turn`` counts the policy's replies from 0, so it
indexes reward arrays directly; the trajectory's ``TurnRecord.turn`` counts from 1), and each
episode an :class:`Episode`. Hooks are called in this order for episode ``index``::

    on_reset(index, episode)                      after reset (no steps yet)
    before_turn(turn, indices)                    lockstep only: who is in this turn's batch
    on_step(index, step)                          after each env.step
    on_end(index, episode)                        once, after the step that ended it
    on_error(index, episode, exc)                 instead of on_end when the policy or env raised

A failing policy's (or environment's) exception propagates unchanged; before it does,
``on_error`` receives the episode as far as it got, and the environment is left as it was
before the failed turn (the reply never reached it), so ``env.messages`` and
``env.trajectory`` still show the turns that were played.

Environments are driven through their Gymnasium API (``reset``/``step``, wrappers included);
the history is read from ``env.unwrapped.messages`` and the record from
``env.unwrapped.trajectory``. The async loop uses ``areset``/``astep`` of the environment (or of
the unwrapped environment when a wrapper does not forward them).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from empa_env.env import judge_ahead
from empa_env.policy import FunctionPolicy, Messages, Policy

#: A policy for the rollout functions: a :class:`Policy` or ``messages -> str`` (sync or async).
PolicyLike = Policy | Callable[[Messages], Any]
#: One batched policy call: the histories of the running episodes -> one reply for each.
ReplyBatch = Callable[[list[Messages]], Sequence[str]]


@dataclass
class Step:
    """One policy turn: the history it saw, its reply, and what the environment returned."""

    #: The policy's reply number in the episode, from 0.
    turn: int
    #: The conversation before the reply (the policy's input; a copy).
    messages: Messages
    reply: str
    #: The simulated user's answer ("" when the episode ended on this turn).
    user_message: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    #: Whatever hooks attach to the turn (e.g. prompt and completion token ids).
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        """Whether the episode ended on this turn."""
        return self.terminated or self.truncated


@dataclass
class Episode:
    """One episode: its case and seed, the opening, every :class:`Step` and the final ``info``.

    ``info`` is the info of the last step (of the reset while no step has been played);
    ``trajectory`` is the environment's :class:`epm.trajectory.Trajectory` (or whatever record
    the environment keeps), complete once the episode has ended.
    """

    case_id: str | None
    seed: int | None
    opening: str = ""
    steps: list[Step] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    trajectory: Any = None

    @property
    def done(self) -> bool:
        """Whether the episode has ended (its last step terminated or truncated it)."""
        return bool(self.steps) and self.steps[-1].done

    @property
    def epm(self) -> dict[str, Any]:
        """The EPM metrics of the finished episode (``info["epm"]``; empty before the end)."""
        return dict(self.info.get("epm") or {})

    @property
    def rewards(self) -> list[float]:
        """The per-turn rewards ``r_0 .. r_{T-1}``."""
        return [s.reward for s in self.steps]

    @property
    def total_reward(self) -> float:
        """The undiscounted return."""
        return float(sum(self.rewards))

    def __len__(self) -> int:
        return len(self.steps)


class RolloutHooks:
    """What a caller observes of a rollout. Subclass and override, or pass callables.

    Every hook defaults to doing nothing. ``RolloutHooks(on_step=f)`` calls ``f(index, step)``;
    a subclass overriding a method and a callable given for the same hook both run (the
    callable after the method).
    """

    def __init__(
        self,
        *,
        on_reset: Callable[[int, Episode], None] | None = None,
        before_turn: Callable[[int, list[int]], None] | None = None,
        on_step: Callable[[int, Step], None] | None = None,
        on_end: Callable[[int, Episode], None] | None = None,
        on_error: Callable[[int, Episode, BaseException], None] | None = None,
    ) -> None:
        self._callbacks: dict[str, Callable[..., None]] = {
            name: fn
            for name, fn in (
                ("on_reset", on_reset),
                ("before_turn", before_turn),
                ("on_step", on_step),
                ("on_end", on_end),
                ("on_error", on_error),
            )  # fmt: skip
            if fn is not None
        }

    def _callback(self, name: str, *args: Any) -> None:
        fn = getattr(self, "_callbacks", {}).get(name)
        if fn is not None:
            fn(*args)

    def on_reset(self, index: int, episode: Episode) -> None:
        """Episode ``index`` was reset; ``episode`` has its opening and reset info, no steps."""
        self._callback("on_reset", index, episode)

    def before_turn(self, turn: int, indices: list[int]) -> None:
        """(Lockstep) turn ``turn`` is about to be asked of the episodes ``indices``, whose
        histories ``reply_batch`` receives in this order."""
        self._callback("before_turn", turn, indices)

    def on_step(self, index: int, step: Step) -> None:
        """Episode ``index`` played ``step`` (attach data to ``step.extra`` here)."""
        self._callback("on_step", index, step)

    def on_end(self, index: int, episode: Episode) -> None:
        """Episode ``index`` ended (terminated or truncated); ``episode`` is complete."""
        self._callback("on_end", index, episode)

    def on_error(self, index: int, episode: Episode, exc: BaseException) -> None:
        """Episode ``index`` failed with ``exc`` (re-raised after this); ``episode`` holds the
        steps played before the failure."""
        self._callback("on_error", index, episode, exc)


class _HookList(RolloutHooks):
    """Several hooks objects called in order."""

    def __init__(self, hooks: Iterable[RolloutHooks]) -> None:
        super().__init__()
        self.hooks = list(hooks)

    def on_reset(self, index: int, episode: Episode) -> None:
        for h in self.hooks:
            h.on_reset(index, episode)

    def before_turn(self, turn: int, indices: list[int]) -> None:
        for h in self.hooks:
            h.before_turn(turn, indices)

    def on_step(self, index: int, step: Step) -> None:
        for h in self.hooks:
            h.on_step(index, step)

    def on_end(self, index: int, episode: Episode) -> None:
        for h in self.hooks:
            h.on_end(index, episode)

    def on_error(self, index: int, episode: Episode, exc: BaseException) -> None:
        for h in self.hooks:
            h.on_error(index, episode, exc)


def _hooks(hooks: RolloutHooks | Sequence[RolloutHooks] | None) -> RolloutHooks:
    if hooks is None:
        return RolloutHooks()
    if isinstance(hooks, RolloutHooks):
        return hooks
    return _HookList(hooks)


def as_policy(policy: PolicyLike) -> Policy:
    """``policy`` as a :class:`Policy` (a plain function, sync or async, is wrapped)."""
    if isinstance(policy, Policy):
        return policy
    if callable(policy):
        return FunctionPolicy(policy)
    raise TypeError(f"a policy is a Policy or a callable messages -> str, got {type(policy)!r}")


def _history(env: Any) -> Messages:
    return [dict(m) for m in env.unwrapped.messages]


def _reset_options(case: Any) -> dict[str, Any] | None:
    return None if case is None else {"case": case}


def _case_id(case: Any, info: dict[str, Any]) -> str | None:
    if info.get("case_id") is not None:
        return str(info["case_id"])
    if case is None:
        return None
    return str(getattr(case, "id", case))


def _trajectory(env: Any) -> Any:
    try:
        return env.unwrapped.trajectory
    except Exception:  # an env that keeps no record, or none before reset
        return None


def _started(case: Any, seed: int | None, opening: Any, info: dict[str, Any]) -> Episode:
    return Episode(
        case_id=_case_id(case, info),
        seed=seed,
        opening=opening if isinstance(opening, str) else str(opening),
        info=dict(info),
    )


def _record(episode: Episode, messages: Messages, reply: str, result: tuple[Any, ...]) -> Step:
    user_message, reward, terminated, truncated, info = result
    step = Step(
        turn=len(episode.steps),
        messages=messages,
        reply=reply,
        user_message=user_message if isinstance(user_message, str) else str(user_message),
        reward=float(reward),
        terminated=bool(terminated),
        truncated=bool(truncated),
        info=info,
    )
    episode.steps.append(step)
    episode.info = info
    return step


#: One request of :func:`_episode_flow` to its driver: ``("reset", options)``, ``("reply",
#: messages)`` or ``("step", reply)``; the driver sends back the result (or throws the error in).
_Ask = tuple[str, Any]


def _episode_flow(
    env: Any, case: Any, seed: int | None, h: RolloutHooks
) -> Generator[_Ask, Any, Episode]:
    """One episode's turn loop, written once: it asks its driver to reset, to get the policy's
    reply and to step, and keeps the record and the hooks. :func:`play_episode` drives it
    synchronously, :func:`aplay_episode` on an event loop."""
    opening, info = yield ("reset", _reset_options(case))
    episode = _started(case, seed, opening, info)
    h.on_reset(0, episode)
    while True:
        messages = _history(env)
        try:
            reply = yield ("reply", messages)
            result = yield ("step", reply)
        except Exception as exc:
            episode.trajectory = _trajectory(env)
            h.on_error(0, episode, exc)
            raise
        h.on_step(0, _record(episode, messages, reply, result))
        if episode.done:
            episode.trajectory = _trajectory(env)
            h.on_end(0, episode)
            return episode


def play_episode(
    env: Any,
    policy: PolicyLike,
    *,
    case: Any = None,
    seed: int | None = None,
    hooks: RolloutHooks | Sequence[RolloutHooks] | None = None,
) -> Episode:
    """Play one whole episode of ``policy`` in ``env`` (synchronously).

    Args:
        env: an :class:`~empa_env.env.EMPAEnv` or any Gymnasium env with its API (wrappers too).
        policy: a :class:`Policy` or a callable ``messages -> str``.
        case: passed as ``options={"case": case}`` to ``reset`` (a case id or a ``Case``);
            ``None`` lets the environment choose.
        seed: the reset seed.
        hooks: a :class:`RolloutHooks` (or several) observing the episode (index 0).

    Returns:
        The finished :class:`Episode`.
    """
    pol = as_policy(policy)
    flow = _episode_flow(env, case, seed, _hooks(hooks))
    try:
        ask = next(flow)
        while True:
            what, arg = ask
            try:
                if what == "reset":
                    result = env.reset(seed=seed, options=arg)
                else:
                    result = pol.reply(arg) if what == "reply" else env.step(arg)
            except Exception as exc:
                ask = flow.throw(exc)
                continue
            ask = flow.send(result)
    except StopIteration as stop:
        episode: Episode = stop.value
        return episode


async def aplay_episode(
    env: Any,
    policy: PolicyLike,
    *,
    case: Any = None,
    seed: int | None = None,
    hooks: RolloutHooks | Sequence[RolloutHooks] | None = None,
) -> Episode:
    """:func:`play_episode` on an event loop: ``env.areset``/``env.astep`` and ``policy.areply``
    (what the benchmark runner uses to play many episodes on one event loop); the same turn loop."""
    pol = as_policy(policy)
    target = env if hasattr(env, "astep") else env.unwrapped
    flow = _episode_flow(env, case, seed, _hooks(hooks))
    try:
        ask = next(flow)
        while True:
            what, arg = ask
            try:
                if what == "reset":
                    result = await target.areset(seed=seed, options=arg)
                else:
                    result = await (pol.areply(arg) if what == "reply" else target.astep(arg))
            except Exception as exc:
                ask = flow.throw(exc)
                continue
            ask = flow.send(result)
    except StopIteration as stop:
        episode: Episode = stop.value
        return episode


def play_lockstep(
    envs: Sequence[Any],
    reply_batch: ReplyBatch,
    *,
    cases: Sequence[Any],
    seeds: Sequence[int | None] | None = None,
    hooks: RolloutHooks | Sequence[RolloutHooks] | None = None,
) -> list[Episode]:
    """Play ``len(cases)`` episodes in lockstep, one batched policy call per turn.

    Episode ``i`` runs in ``envs[i]``, reset with ``cases[i]`` and ``seeds[i]``. At every turn
    the histories of the episodes still running (in increasing index order, announced by
    ``hooks.before_turn``) go to ``reply_batch`` in one call, which returns one reply each; each
    reply is stepped in its environment, in index order. The loop ends when every episode has
    ended.

    Args:
        envs: at least ``len(cases)`` environments (extra ones are left alone).
        reply_batch: ``histories -> replies`` (same length and order).
        cases: the case of each episode (``None``: the environment's choice).
        seeds: the reset seed of each episode (default ``None`` for all).
        hooks: :class:`RolloutHooks` observing every episode by its index.

    Returns:
        The episodes, in index order.

    Raises:
        ValueError: too few environments, seeds of the wrong length, or a ``reply_batch`` that
            returns the wrong number of replies. Exceptions of ``reply_batch`` or of an
            environment propagate after ``on_error`` (for every running episode when
            ``reply_batch`` fails, for the one episode when its environment fails).
    """
    n = len(cases)
    if len(envs) < n:
        raise ValueError(f"need {n} environments, got {len(envs)}")
    seed_list: list[int | None] = [None] * n if seeds is None else list(seeds)
    if len(seed_list) != n:
        raise ValueError(f"{len(seed_list)} seeds for {n} episodes")
    h = _hooks(hooks)
    episodes: list[Episode] = []
    for i in range(n):
        opening, info = envs[i].reset(seed=seed_list[i], options=_reset_options(cases[i]))
        episodes.append(_started(cases[i], seed_list[i], opening, info))
        h.on_reset(i, episodes[i])
    alive = list(range(n))
    turn = 0
    while alive:
        histories = [_history(envs[i]) for i in alive]
        h.before_turn(turn, list(alive))
        try:
            replies = list(reply_batch(histories))
            if len(replies) != len(alive):
                raise ValueError(f"reply_batch gave {len(replies)} replies for {len(alive)}")
        except Exception as exc:
            for i in alive:
                episodes[i].trajectory = _trajectory(envs[i])
                h.on_error(i, episodes[i], exc)
            raise
        # One batched judge call for the whole turn (the judgements each step would make).
        judge_ahead([envs[i] for i in alive], replies)
        still = []
        for i, messages, reply in zip(alive, histories, replies, strict=True):
            try:
                result = envs[i].step(reply)
            except Exception as exc:
                episodes[i].trajectory = _trajectory(envs[i])
                h.on_error(i, episodes[i], exc)
                raise
            h.on_step(i, _record(episodes[i], messages, reply, result))
            if episodes[i].done:
                episodes[i].trajectory = _trajectory(envs[i])
                h.on_end(i, episodes[i])
            else:
                still.append(i)
        alive = still
        turn += 1
    return episodes


__all__ = [
    "Episode", "PolicyLike", "ReplyBatch", "RolloutHooks", "Step", "aplay_episode", "as_policy",
    "play_episode", "play_lockstep",
]  # fmt: skip
