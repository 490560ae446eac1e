"""EMPAEnv: empathetic conversation as a :class:`gymnasium.Env`.

One step is one reply of the policy::

    reply -> Judger (levels + evidence) -> rubric (v_t) -> EPM physics (P_t, delta_E, reward)
          -> ending rules -> Director (one tool call) -> Actor (the user's next message)

The observation is the user's message (text), the action the policy's reply (text), the reward
the Incremental Distance Reward ``r_t = phi(P_{t-1}) - phi(P_t)`` by default.

The turn logic is written once, as a generator that *yields* role calls (:class:`_Call`) and
receives their results; :meth:`EMPAEnv.step` drives it with the roles' synchronous methods and
:meth:`EMPAEnv.astep` with their asynchronous ones. Sync and async are two drivers of one logic.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import gymnasium as gym
import numpy as np

from empa_env.cases.schema import Case
from empa_env.cases.suites import is_generated_pool, resolve_pool
from empa_env.config import EnvConfig
from empa_env.context import INSTANCE_FIELDS, EnvContext
from empa_env.info import StepInfo, director_info, typed_metrics
from empa_env.plot import PlotState
from empa_env.roles.base import PlaysLanguages
from empa_env.roles.views import (
    ActorLine,
    ActorPersona,
    ActorView,
    DirectorAction,
    DirectorView,
    JudgeProfile,
    JudgeView,
    Message,
)
from empa_env.spaces import UnicodeText
from epm.config import EPMConfig
from epm.dynamics import turn_physics
from epm.episode import evaluate, unplayed_increments
from epm.rubric import AXES, increment
from epm.tracker import EPMTracker
from epm.trajectory import Judgement, Trajectory, TurnRecord


@dataclass(frozen=True)
class _Call:
    """A request from the turn logic to one role."""

    role: Literal["actor", "director", "judger"]
    method: Literal["open", "respond", "direct", "judge"]
    view: Any


@dataclass(frozen=True)
class _Failed:
    """What the logic receives instead of a result when a role raised."""

    error: str


@dataclass
class _Episode:
    case: Case
    seed: int
    tracker: EPMTracker
    trajectory: Trajectory
    persona: ActorPersona
    plot: PlotState
    history: list[Message] = field(default_factory=list)
    last_levels: dict[str, float] = field(default_factory=dict)
    done: bool = False
    #: A judgement of the coming step made ahead in a batch (:func:`judge_ahead`), with its view.
    ahead: tuple[JudgeView, Judgement] | None = None


def _check_reply(reply: Any, limit: int) -> None:
    """A step's action must be valid Unicode text of at most ``limit`` characters (raises)."""
    if not isinstance(reply, str):
        raise TypeError(f"the action is the reply text (str), got {type(reply).__name__}")
    try:
        reply.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"the reply is not valid Unicode text: {exc.reason} at position {exc.start}"
        ) from None
    if len(reply) > limit:
        raise ValueError(f"reply of {len(reply)} characters exceeds the action space's {limit}")


def _judge_view(ep: _Episode, reply: str) -> JudgeView:
    """What the Judger sees of the coming step: the profile, the history and the reply."""
    profile = JudgeProfile.from_case(
        ep.case, tuple(ep.plot.released_emotions), ep.plot.current_focus
    )
    return JudgeView(profile, tuple(ep.history), reply, ep.tracker.turn + 1)


def judge_ahead(envs: Sequence[gym.Env], replies: Sequence[Any]) -> int:
    """Rate the coming step of several environments in one batched judge call per judge.

    ``envs[i]`` will next be stepped with ``replies[i]`` (lockstep rollouts:
    :func:`empa_env.rollout.play_lockstep`). Each environment's view is judged now, with the
    environments sharing a judge of one identity (its class and ``describe()``) rated by one
    :meth:`~empa_env.roles.base.Judger.judge_batch` call (the offline judge encodes every
    reply, user message and sentence of the batch in one pass); the next ``step`` with the same
    reply uses that judgement instead of calling its Judger. Everything else about the step is
    unchanged, and so is its result: ``judge_batch`` returns what ``judge`` would.

    Environments whose judge does not batch (it keeps the default loop), that have no running
    episode, or whose reply the step would refuse are left alone; so is a batch whose call
    raises (each step then calls its own Judger, which records a failure as usual). Returns
    the number of environments judged ahead."""
    from empa_env.roles.base import Judger

    groups: dict[tuple[type, str], list[tuple[_Episode, JudgeView]]] = {}
    judges: dict[tuple[type, str], Judger] = {}
    identity: dict[int, tuple[type, str]] = {}  # each judge object described once
    for env, reply in zip(envs, replies, strict=True):
        base = env.unwrapped
        if not isinstance(base, EMPAEnv):
            continue
        ep = base._episode
        judger = base.roles.judger
        if ep is None or ep.done or type(judger).judge_batch is Judger.judge_batch:
            continue
        try:
            _check_reply(reply, base.env_config.max_reply_chars)
        except (TypeError, ValueError):  # the step raises its own error
            continue
        if id(judger) not in identity:
            identity[id(judger)] = (type(judger), repr(sorted(judger.describe().items())))
        key = identity[id(judger)]
        judges.setdefault(key, judger)
        groups.setdefault(key, []).append((ep, _judge_view(ep, reply)))
    done = 0
    for key, members in groups.items():
        try:
            results = judges[key].judge_batch([view for _, view in members])
        except Exception:  # each step calls its own Judger and records the failure
            continue
        for (ep, view), judgement in zip(members, results, strict=True):
            ep.ahead = (view, judgement)
            done += 1
    return done


def _line_notes(said: str) -> tuple[str, str]:
    """``(fallback, ends)`` of an Actor's message: an :class:`ActorLine` carries them, a plain
    string (what any Actor may return) has neither."""
    if isinstance(said, ActorLine):
        return said.fallback or "", said.ends or ""
    return "", ""


#: What ``reset(options=...)`` understands, and what each option is.
RESET_OPTIONS: Mapping[str, str] = {
    "case": "the case to play, a case id or a Case (default: one drawn from the pool)",
}


def _checked_options(options: Any) -> dict[str, Any]:
    """``reset``'s ``options``: ``None`` or a mapping of :data:`RESET_OPTIONS`; anything else is
    a clear :class:`TypeError`, not an ``AttributeError`` deep inside, and an unknown option a
    ``ValueError`` naming the known ones (a mistyped ``"cases"`` would play a random case)."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(
            "reset(options=...) takes a dict such as {'case': 'empa30-001'} (or None), got "
            f"{type(options).__name__}"
        )
    unknown = sorted(map(repr, set(options) - set(RESET_OPTIONS)))
    if unknown:
        known = "; ".join(f"{name!r}: {what}" for name, what in RESET_OPTIONS.items())
        raise ValueError(f"unknown reset option(s) {', '.join(unknown)}; known: {known}")
    return dict(options)


class ConcurrentUseError(RuntimeError):
    """An environment asked to reset or step while another call of it is running (from another
    thread, or another task of an event loop): it plays one conversation, one turn at a time."""


@contextlib.contextmanager
def _alone(lock: threading.Lock, call: str) -> Iterator[None]:
    """Hold ``lock`` for one ``call``, or refuse it at once when another call holds it."""
    if not lock.acquire(blocking=False):
        raise ConcurrentUseError(
            f"EMPAEnv.{call}() was called while another reset or step of this environment was "
            "running (from another thread or task): one environment plays one conversation, one "
            "turn at a time; give each thread or task its own environment (or use "
            "gym.make_vec)"
        )
    try:
        yield
    finally:
        lock.release()


class EMPAEnv(gym.Env[str, str]):
    """Multi-turn empathetic conversation with a simulated user.

    ## Description
    A policy talks with a simulated person who carries a persona, a hidden story and unmet
    emotional needs (a case). Each step the policy says one reply; the **Judger** rates it with
    MDEP-PR levels and quoted evidence on three axes (cognitive C, affective A, proactive P), the
    rubric turns the levels into an increment ``v_t`` that moves the person's deficit ``P_t``
    (Empathy Physics Model), the **Director** releases parts of the hidden plot, and the **Actor**
    answers as the person. Roles are offline (embedded) or LLMs through LiteLLM.

    ## Action space
    The reply text: :class:`~empa_env.spaces.UnicodeText` (any ``str`` up to
    ``max_reply_chars``); a non-``str`` raises ``TypeError``, an empty reply is judged.

    ## Observation space
    The person's latest message (:class:`~empa_env.spaces.UnicodeText`); the whole conversation
    is :attr:`messages` and the full record :attr:`trajectory`.

    ## Rewards
    The Incremental Distance Reward ``r_t = phi(P_{t-1}) - phi(P_t)`` with ``phi = ||.||``
    (``reward="idr"``, MICA eq. 7); ``"idr_goal"`` uses the goal-zone distance; ``"adr"``,
    ``"adr_goal"``, ``"potential"`` and registered rewards are alternatives. A failed judgement
    scores ``v_t = 0`` and is flagged in ``info``, never hidden.

    ## Starting state
    ``P_0`` is the case's initial deficit from its IEDR levels (every axis <= 0). ``reset`` picks
    a case from the pool (seeded) or ``options={"case": id_or_Case}``; the observation is the
    person's opening message.

    ## Episode end
    Terminated on success (geometric or positional victory with enough effective energy),
    failure (collapse, or stagnation with regression) or the Director's ``end_conversation``, none
    before ``min_turns`` (12); at any turn when the user leaves (``user_left``: mistreated until
    their patience ran out) or takes the policy's goodbye (``policy_left``); truncated at ``max_turns`` (45) or when the Actor fails. The final
    ``info["epm"]`` holds the episode's metrics, EPM-Q indices and EPM-Index.

    ## Info
    The same keys with the same types on every ``reset`` and ``step``:
    :class:`~empa_env.info.StepInfo`.

    ## Arguments
    ``EMPAEnv(config=None, **fields)``: an :class:`~empa_env.config.EnvConfig`, and/or its fields
    as keywords (they override the config): ``case_pool`` (positional too), ``actor``,
    ``director``, ``judger`` and ``reward`` (specs, or instances of your own), ``preset``,
    ``max_turns``, ``epm_overrides``, ``llm_options``, ``max_reply_chars``; plus ``render_mode``
    (``"ansi"``, ``"human"``). ``EMPAEnv(cases, context=context)`` plays with the roles and reward
    of an :class:`~empa_env.context.EnvContext` resolved once and shared by many environments.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        case_pool: Any = None,
        *,
        config: EnvConfig | None = None,
        context: EnvContext | None = None,
        render_mode: str | None = None,
        **fields: Any,
    ) -> None:
        unknown = set(fields) - set(EnvConfig.field_names())
        if unknown:
            raise TypeError(
                f"unknown EMPAEnv argument(s) {sorted(unknown)}; known: "
                f"{', '.join(EnvConfig.field_names())}, config, context, render_mode"
            )
        if case_pool is not None:
            fields["case_pool"] = case_pool
        if context is not None:
            extra = sorted(set(fields) - {"case_pool"}) + (["config"] if config else [])
            if extra:
                raise TypeError(
                    f"EMPAEnv(context=...) plays with the context's configuration; {extra} "
                    "belong to the context (EnvContext.build)"
                )
        else:
            instances = {
                k: fields.pop(k)
                for k in INSTANCE_FIELDS
                if k in fields and not isinstance(fields[k], str)
            }
            context = EnvContext.build((config or EnvConfig()).replace(**fields), **instances)
            fields = {}
        self.context: EnvContext = context
        self.env_config: EnvConfig = context.config.replace(**fields)
        cfg = self.env_config
        self._pool: tuple[Case, ...] | None = None
        self._cases_by_id: dict[str, Case] = {}
        if not is_generated_pool(cfg.case_pool):  # a generated pool is built on first use
            self._pool = self._resolve_pool()
        self.config: EPMConfig = context.epm
        self.reward_fn = context.reward
        self.roles = context.roles
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.observation_space = UnicodeText(max_length=16_384)
        self.action_space = UnicodeText(max_length=cfg.max_reply_chars)
        self._episode: _Episode | None = None
        self._in_use = threading.Lock()  # held by the reset or step running (one at a time)

    @property
    def cases(self) -> tuple[Case, ...]:
        """The case pool (a generated pool is built on first use, then shared per process)."""
        if self._pool is None:
            self._pool = self._resolve_pool()
        return self._pool

    def _resolve_pool(self) -> tuple[Case, ...]:
        cases = resolve_pool(self.env_config.case_pool)
        if not cases:
            raise ValueError("the case pool is empty")
        self._cases_by_id = {c.id: c for c in cases}
        return cases

    # --- public API --------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start a conversation; ``options``: :data:`RESET_OPTIONS` (``{"case": id_or_Case}``)."""
        options = _checked_options(options)
        with _alone(self._in_use, "reset"):
            super().reset(seed=seed)
            return self._drive(self._reset_flow(options))

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        with _alone(self._in_use, "step"):
            return self._drive(self._step_flow(action))

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Async twin of :meth:`reset` (roles called through their async methods)."""
        options = _checked_options(options)
        with _alone(self._in_use, "areset"):
            super().reset(seed=seed)
            return await self._adrive(self._reset_flow(options))

    async def astep(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Async twin of :meth:`step`."""
        with _alone(self._in_use, "astep"):
            return await self._adrive(self._step_flow(action))

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_in_use"]  # a lock does not pickle; a copy is not in use
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._in_use = threading.Lock()

    @property
    def trajectory(self) -> Trajectory:
        """The episode's trajectory record so far (complete once the episode has ended)."""
        return self._require_episode().trajectory

    @property
    def case(self) -> Case:
        return self._require_episode().case

    @property
    def messages(self) -> list[dict[str, str]]:
        """The conversation from the policy's point of view (``user`` = the simulated person)."""
        return [m.as_dict() for m in self._require_episode().history]

    def describe(self) -> dict[str, Any]:
        """What defines results of this env (the run fingerprint): its context's
        :meth:`~empa_env.context.EnvContext.describe`."""
        return self.context.describe()

    def render(self) -> str | None:
        if self._episode is None:
            return None
        lines = [f"[{self._episode.case.id} turn {self._episode.tracker.turn}]"]
        lines += [f"{m.role:>9}: {m.content}" for m in self._episode.history[-3:]]
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # --- drivers -----------------------------------------------------------------------------
    def _roles_method(self, call: _Call) -> Any:
        return getattr(getattr(self.roles, call.role), call.method)

    def _drive(self, flow: Generator[_Call, Any, Any]) -> Any:
        try:
            call = next(flow)
            while True:
                try:
                    result = self._roles_method(call)(call.view)
                except Exception as exc:  # a role failed: the logic decides what that means
                    result = _Failed(f"{type(exc).__name__}: {exc}")
                call = flow.send(result)
        except StopIteration as stop:
            return stop.value

    async def _adrive(self, flow: Generator[_Call, Any, Any]) -> Any:
        try:
            call = next(flow)
            while True:
                role = getattr(self.roles, call.role)
                try:
                    result = await getattr(role, "a" + call.method)(call.view)
                except Exception as exc:
                    result = _Failed(f"{type(exc).__name__}: {exc}")
                call = flow.send(result)
        except StopIteration as stop:
            return stop.value

    # --- the turn logic (written once) -------------------------------------------------------
    def _reset_flow(
        self, options: dict[str, Any]
    ) -> Generator[_Call, Any, tuple[str, dict[str, Any]]]:
        case = self._pick_case(options.get("case"))
        self._check_language(case)
        seed = int(self.np_random.integers(0, 2**31 - 1))
        ep = _Episode(
            case=case,
            seed=seed,
            tracker=EPMTracker(case.p0, self.config),
            trajectory=Trajectory(
                case_id=case.id,
                p0=[float(x) for x in case.p0],
                preset=self.config.name,
                meta={"seed": seed, "roles": self.roles.describe()},
            ),
            persona=ActorPersona.from_case(case),
            plot=PlotState(case),
        )
        self._episode = ep
        opening = yield _Call("actor", "open", ActorView(ep.persona, (), None, 0, seed))
        if isinstance(opening, _Failed) or not isinstance(opening, str) or not opening.strip():
            error = opening.error if isinstance(opening, _Failed) else f"empty opening {opening!r}"
            raise RuntimeError(f"the Actor could not open the conversation: {error}")
        ep.history.append(Message("user", str(opening)))
        ep.trajectory.opening = str(opening)
        fallback, _ends = _line_notes(opening)
        if fallback:
            ep.trajectory.meta["opening_fallback"] = fallback
        info = self._info(ep, status="ongoing")
        return opening, cast("dict[str, Any]", info)

    def _step_flow(
        self, reply: Any
    ) -> Generator[_Call, Any, tuple[str, float, bool, bool, dict[str, Any]]]:
        ep = self._require_episode()
        if ep.done:
            raise RuntimeError("the episode has ended; call reset() before step()")
        _check_reply(reply, self.env_config.max_reply_chars)
        turn = ep.tracker.turn + 1

        # 1. The Judger rates the reply in the context of the history before it (unless it was
        # rated ahead, in one batch with other environments: judge_ahead).
        view = _judge_view(ep, reply)
        ahead, ep.ahead = ep.ahead, None
        if ahead is not None and ahead[0] == view:
            judged: Any = ahead[1]
        else:
            judged = yield _Call("judger", "judge", view)
        judgement = self._checked_judgement(judged)
        ep.history.append(Message("assistant", reply))

        # 2. Levels -> v_t (deterministic rubric) -> physics, reward and ending rules.
        v = np.zeros(3) if judgement.failed else increment(judgement.prog, judgement.neg)
        p_prev = ep.tracker.position.copy()
        phys, status = ep.tracker.step(v)
        reward = float(self.reward_fn(p_prev, phys.position))
        ep.last_levels = {f"{a}_Prog": judgement.prog[a] for a in AXES} | {
            f"{a}_Neg": judgement.neg[a] for a in AXES
        }

        # 3. The Director acts (only while the episode goes on), then the Actor speaks.
        action: DirectorAction | None = None
        user_message = ""
        fallback = ""
        aborted: str | None = None
        if not status.done:
            directed = yield _Call("director", "direct", self._director_view(ep))
            action = self._apply_director(ep, directed, turn)
            status = ep.tracker.status
        if not status.done:
            said = yield _Call(
                "actor",
                "respond",
                ActorView(ep.persona, tuple(ep.history), ep.plot.guidance, turn, ep.seed),
            )
            if isinstance(said, _Failed) or not isinstance(said, str) or not said.strip():
                aborted = (
                    said.error if isinstance(said, _Failed) else f"empty user message {said!r}"
                )
            else:
                user_message = str(said)
                fallback, ends = _line_notes(said)
                ep.history.append(Message("user", user_message))
                if ends:  # the user left, or took the policy's goodbye: the episode ends here
                    ep.tracker.end_by_actor(ends)  # type: ignore[arg-type]
                    status = ep.tracker.status
                    reward += self._unplayed_reward(ep, status.outcome, phys.v)

        record = TurnRecord(
            turn=turn,
            reply=reply,
            judgement=judgement,
            **phys.record_fields(),
            reward=reward,
            user_message=user_message,
            director=action.as_dict() if action else None,
            status=status.outcome,
            actor_fallback=fallback,
        )
        traj = ep.trajectory
        traj.turns.append(record)
        terminated = status.outcome in (
            "success", "failure", "director_end", "user_left", "policy_left"
        )  # fmt: skip
        truncated = status.outcome == "truncated" or aborted is not None
        if aborted is not None:
            traj.meta["aborted"] = f"actor failed at turn {turn}: {aborted}"
            record.status = "truncated"
        if terminated or truncated:
            ep.done = True
            traj.outcome = "truncated" if aborted is not None else status.outcome
            traj.victory_type = status.victory_type
            traj.failure_reason = status.failure_reason
            traj.meta["judge_failures"] = traj.judge_failures
            traj.meta["actor_fallbacks"] = sum(1 for t in traj.turns if t.actor_fallback)
        info = self._info(ep, record, judgement)
        return user_message, reward, terminated, truncated, cast("dict[str, Any]", info)

    # --- helpers -----------------------------------------------------------------------------
    def _require_episode(self) -> _Episode:
        if self._episode is None:
            raise RuntimeError("call reset() before using the environment")
        return self._episode

    def _pick_case(self, choice: Any) -> Case:
        if isinstance(choice, Case):
            return choice
        if isinstance(choice, str):
            pool = self.cases  # built on first use
            if choice not in self._cases_by_id:
                raise KeyError(
                    f"case {choice!r} is not in this environment's pool of {len(pool)} cases"
                )
            return self._cases_by_id[choice]
        if choice is not None:
            raise TypeError(
                f"options['case'] must be a case id or a Case, got {type(choice).__name__}"
            )
        return self.cases[int(self.np_random.integers(len(self.cases)))]

    def _check_language(self, case: Case) -> None:
        """Refuse a case in a language a role cannot play, with the LLM alternative named."""
        roles = self.roles
        for kind, role in (
            ("actor", roles.actor),
            ("director", roles.director),
            ("judger", roles.judger),
        ):
            supported = role.languages if isinstance(role, PlaysLanguages) else None
            if supported is not None and case.language not in supported:
                raise ValueError(
                    f"the {kind} {getattr(role, 'name', type(role).__name__)!r} plays cases in "
                    f"{', '.join(supported)} only, and case {case.id!r} is in {case.language!r}; "
                    f"use an LLM {kind} instead ({kind}='llm:MODEL', e.g. {kind}='llm:openai/gpt-4o-mini')"
                )

    @staticmethod
    def _checked_judgement(judged: Any) -> Judgement:
        """A role failure or a malformed result becomes a *recorded* failure, never a silent zero."""
        if isinstance(judged, _Failed):
            return Judgement.failure(judged.error)
        if not isinstance(judged, Judgement):
            return Judgement.failure(
                f"the Judger returned {type(judged).__name__}, not a Judgement"
            )
        return judged

    def _director_view(self, ep: _Episode) -> DirectorView:
        t = ep.tracker
        block = t.state_block()
        recent = t.delta_E[-3:]
        block["recent_abs_delta_E"] = sum(abs(x) for x in recent) / len(recent) if recent else 0.0
        return DirectorView(
            case=ep.case,
            history=tuple(ep.history),
            turn=t.turn,
            p0=tuple(float(x) for x in t.p0),  # type: ignore[arg-type]
            position=tuple(float(x) for x in t.position),  # type: ignore[arg-type]
            last_increment=tuple(float(x) for x in (t.positions[-1] - t.positions[-2])),  # type: ignore[arg-type]
            epm=block,
            released_stages=tuple(ep.plot.released_stages),
            revealed_memories=tuple(ep.plot.revealed_memories),
            can_end=t.turn >= self.config.ending.min_turns,
            last_levels=dict(ep.last_levels),
            stage_release_turns=tuple(ep.plot.stage_release_turns),
            min_turns=self.config.ending.min_turns,
            delta_E_history=tuple(float(x) for x in t.delta_E),
        )

    def _apply_director(self, ep: _Episode, directed: Any, turn: int) -> DirectorAction:
        """The Director's call through the plot's rulebook; a failure or a malformed call is
        recorded as a rejected ``observe_and_wait``, and an accepted end ends the episode."""
        if isinstance(directed, _Failed):
            action = DirectorAction(
                "observe_and_wait", {}, rejected=f"director failed: {directed.error}"
            )
        elif not isinstance(directed, DirectorAction):
            action = DirectorAction(
                "observe_and_wait", {}, rejected=f"not a valid tool call: {directed!r}"
            )
        else:
            action = directed
        min_turns = self.config.ending.min_turns
        action = ep.plot.apply(
            action,
            turn=turn,
            history=ep.history,
            can_end=ep.tracker.turn >= min_turns and not ep.tracker.status.done,
            min_turns=min_turns,
        )
        if action.tool == "end_conversation" and action.rejected is None:
            ep.tracker.end_by_director()
        return action

    def _unplayed_reward(self, ep: _Episode, outcome: str, last_v: np.ndarray) -> float:
        """The reward of the turns an early user ending leaves unplayed, as EPM scores them
        (:func:`epm.episode.unplayed_increments`: after a walk-out the last move goes on, after
        the policy's goodbye no move, up to ``min_turns``). Added to the last step's reward: a
        return that stopped at the walk-out would reward driving the user away to cut a stream
        of negative rewards short."""
        extra = unplayed_increments(outcome, ep.tracker.turn, last_v, self.config)
        total, p = 0.0, ep.tracker.position.copy()
        for v in extra:
            nxt = turn_physics(p, v, ep.tracker.v_star0, self.config).position
            total += float(self.reward_fn(p, nxt))
            p = nxt
        return total

    def _info(
        self,
        ep: _Episode,
        record: TurnRecord | None = None,
        judgement: Judgement | None = None,
        status: str | None = None,
    ) -> StepInfo:
        """The typed ``info`` of a reset (no record) or a step; see :class:`StepInfo`."""
        t = ep.tracker
        case = ep.case
        traj = ep.trajectory
        zeros: dict[str, float] = {f"{a}_{k}": 0 for k in ("Prog", "Neg") for a in AXES}
        if record is None or judgement is None:
            position = [float(x) for x in case.p0]
            return {
                "case_id": case.id, "turn": 0, "p0": list(position),
                "dominant_axis": case.dominant_axis, "difficulty": case.difficulty,
                "domain": case.domain, "preset": self.config.name,
                "levels": zeros, "evidence": {}, "reasoning": {},
                "judge_failed": False, "judge_error": "",
                "increment": [0.0, 0.0, 0.0], "position": position,
                "delta_E": 0.0, "alignment": 0.0, "projection": float(t.projection),
                "distance": float(t.distance), "E_total": 0.0,
                "director": director_info(None),
                "status": status or "ongoing", "victory_type": "", "failure_reason": "",
                "aborted": "", "actor_fallback": str(ep.trajectory.meta.get("opening_fallback", "")),
                "epm": {},
            }  # fmt: skip
        ended = ep.done
        return {
            "case_id": case.id, "turn": record.turn, "p0": [float(x) for x in case.p0],
            "dominant_axis": case.dominant_axis, "difficulty": case.difficulty,
            "domain": case.domain, "preset": self.config.name,
            "levels": dict(ep.last_levels) or zeros,
            "evidence": dict(judgement.evidence), "reasoning": dict(judgement.reasoning),
            "judge_failed": judgement.failed, "judge_error": judgement.error or "",
            "increment": list(record.v), "position": list(record.position),
            "delta_E": record.delta_E, "alignment": record.alignment,
            "projection": record.projection, "distance": record.distance,
            "E_total": float(t.e_total), "director": director_info(record.director),
            "status": (traj.outcome or record.status) if ended else record.status,
            "victory_type": t.status.victory_type or "",
            "failure_reason": t.status.failure_reason or "",
            "aborted": str(traj.meta.get("aborted", "")),
            "actor_fallback": record.actor_fallback,
            "epm": typed_metrics(evaluate(traj, self.config)) if ended else {},
        }  # fmt: skip
