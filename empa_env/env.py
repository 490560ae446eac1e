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

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Literal

import gymnasium as gym
import numpy as np

from empa_env.backends import RoleSpec, resolve_roles
from empa_env.cases.schema import MEMORY_PERIODS, STANCES, Case
from empa_env.cases.suites import resolve_pool
from empa_env.roles.views import (
    DIRECTOR_TOOLS,
    ActorGuidance,
    ActorPersona,
    ActorView,
    DirectorAction,
    DirectorView,
    JudgeProfile,
    JudgeView,
    Message,
    Release,
)
from empa_env.spaces import UnicodeText
from epm.config import EPMConfig, get_preset
from epm.episode import evaluate
from epm.rewards import RewardFunction
from epm.rubric import AXES, increment
from epm.tracker import EPMTracker
from epm.trajectory import Judgement, Trajectory, TurnRecord

ASPECTS = ("affective", "motivational", "cognitive")


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
    history: list[Message] = field(default_factory=list)
    released_stages: list[int] = field(default_factory=list)
    stage_release_turns: list[int] = field(default_factory=list)
    revealed_memories: list[str] = field(default_factory=list)
    released_emotions: list[str] = field(default_factory=list)
    current_focus: str | None = None
    guidance: ActorGuidance | None = None
    last_levels: dict[str, int] = field(default_factory=dict)
    done: bool = False


class EMPAEnv(gym.Env[str, str]):
    """Multi-turn empathetic conversation with a simulated user.

    Args:
        case_pool: where cases come from: ``None``/``"generated"`` (the generated training pool),
            ``"generated:SEED:SIZE"``, a suite id such as ``"empa30-v1"``, a directory of case
            files, or a sequence of :class:`~empa_env.cases.schema.Case`.
        actor, director, judger: ``"offline"``, ``"llm:MODEL"`` (LiteLLM model string) or a role
            instance.
        preset: EPM preset name (``"official"``, ``"paper"``) or an :class:`~epm.config.EPMConfig`.
        max_turns: overrides the preset's ``max_turns``.
        reward: ``"idr"`` (norm), ``"idr_goal"`` (goal-zone distance), ``"adr"``, ``"adr_goal"``,
            ``"potential"``, or a :class:`~epm.rewards.RewardFunction`.
        epm_overrides: any further EPM parameter, e.g. ``{"min_turns": 6}``.
        llm_options: passed to LLM roles (``api_base``, ``api_key``, ``cache_path``, ...).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        case_pool: Any = None,
        *,
        actor: RoleSpec = "offline",
        director: RoleSpec = "offline",
        judger: RoleSpec = "offline",
        preset: str | EPMConfig = "official",
        max_turns: int | None = None,
        reward: str | RewardFunction = "idr",
        epm_overrides: dict[str, Any] | None = None,
        llm_options: dict[str, Any] | None = None,
        render_mode: str | None = None,
        max_reply_chars: int = 16_384,
    ) -> None:
        self.cases: tuple[Case, ...] = resolve_pool(case_pool)
        if not self.cases:
            raise ValueError("the case pool is empty")
        self._cases_by_id = {c.id: c for c in self.cases}
        overrides = dict(epm_overrides or {})
        if max_turns is not None:
            overrides["max_turns"] = max_turns
        config = get_preset(preset)
        self.config: EPMConfig = config.with_overrides(**overrides) if overrides else config
        self.reward_fn = (
            reward
            if isinstance(reward, RewardFunction)
            else RewardFunction(kind=reward, goal_epsilon=self.config.goal_epsilon)  # type: ignore[arg-type]
        )
        self.roles = resolve_roles(actor, director, judger, llm_options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.observation_space = UnicodeText(max_length=16_384)
        self.action_space = UnicodeText(max_length=max_reply_chars)
        self._episode: _Episode | None = None

    # --- public API --------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        return self._drive(self._reset_flow(options or {}))

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return self._drive(self._step_flow(action))

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Async twin of :meth:`reset` (roles called through their async methods)."""
        super().reset(seed=seed)
        return await self._adrive(self._reset_flow(options or {}))

    async def astep(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Async twin of :meth:`step`."""
        return await self._adrive(self._step_flow(action))

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
        """What defines results of this env (for run fingerprints)."""
        return {
            "preset": self.config.to_dict(),
            "reward": {"kind": self.reward_fn.kind, "gamma": self.reward_fn.gamma},
            "roles": self.roles.describe(),
        }

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
        )
        self._episode = ep
        opening = yield _Call("actor", "open", ActorView(ep.persona, (), None, 0, seed))
        if isinstance(opening, _Failed) or not isinstance(opening, str) or not opening.strip():
            error = opening.error if isinstance(opening, _Failed) else f"empty opening {opening!r}"
            raise RuntimeError(f"the Actor could not open the conversation: {error}")
        ep.history.append(Message("user", opening))
        ep.trajectory.opening = opening
        info = {
            "case_id": case.id,
            "turn": 0,
            "p0": [float(x) for x in case.p0],
            "position": [float(x) for x in case.p0],
            "dominant_axis": case.dominant_axis,
            "difficulty": case.difficulty,
            "domain": case.domain,
            "preset": self.config.name,
            "status": "ongoing",
        }
        return opening, info

    def _step_flow(
        self, reply: Any
    ) -> Generator[_Call, Any, tuple[str, float, bool, bool, dict[str, Any]]]:
        ep = self._require_episode()
        if ep.done:
            raise RuntimeError("the episode has ended; call reset() before step()")
        if not isinstance(reply, str):
            raise TypeError(f"the action is the reply text (str), got {type(reply).__name__}")
        if len(reply) > self.action_space.max_length:
            raise ValueError(
                f"reply of {len(reply)} characters exceeds the action space's {self.action_space.max_length}"
            )
        turn = ep.tracker.turn + 1

        # 1. The Judger rates the reply in the context of the history before it.
        profile = JudgeProfile.from_case(ep.case, tuple(ep.released_emotions), ep.current_focus)  # type: ignore[arg-type]
        judged = yield _Call("judger", "judge", JudgeView(profile, tuple(ep.history), reply, turn))
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
        aborted: str | None = None
        if not status.done:
            directed = yield _Call("director", "direct", self._director_view(ep))
            action = self._apply_director(ep, directed, turn)
            status = ep.tracker.status
        if not status.done:
            said = yield _Call(
                "actor",
                "respond",
                ActorView(ep.persona, tuple(ep.history), ep.guidance, turn, ep.seed),
            )
            if isinstance(said, _Failed) or not isinstance(said, str) or not said.strip():
                aborted = (
                    said.error if isinstance(said, _Failed) else f"empty user message {said!r}"
                )
            else:
                user_message = said
                ep.history.append(Message("user", said))

        record = TurnRecord(
            turn=turn,
            reply=reply,
            judgement=judgement,
            v=[float(x) for x in phys.v],
            position=[float(x) for x in phys.position],
            v_star=[float(x) for x in phys.v_star],
            delta_E=phys.delta_E,
            alignment=phys.alignment,
            projection=phys.projection,
            distance=phys.distance,
            reward=reward,
            user_message=user_message,
            director=action.as_dict() if action else None,
            status=status.outcome,
        )
        traj = ep.trajectory
        traj.turns.append(record)
        terminated = status.outcome in ("success", "failure", "director_end")
        truncated = status.outcome == "truncated" or aborted is not None
        info = self._step_info(ep, record, judgement)
        if aborted is not None:
            traj.meta["aborted"] = f"actor failed at turn {turn}: {aborted}"
            info["aborted"] = traj.meta["aborted"]
            record.status = "truncated"
        if terminated or truncated:
            ep.done = True
            traj.outcome = "truncated" if aborted is not None else status.outcome
            traj.victory_type = status.victory_type
            traj.failure_reason = status.failure_reason
            traj.meta["judge_failures"] = traj.judge_failures
            info["status"] = traj.outcome
            info["epm"] = evaluate(traj, self.config)
        return user_message, reward, terminated, truncated, info

    # --- helpers -----------------------------------------------------------------------------
    def _require_episode(self) -> _Episode:
        if self._episode is None:
            raise RuntimeError("call reset() before using the environment")
        return self._episode

    def _pick_case(self, choice: Any) -> Case:
        if isinstance(choice, Case):
            return choice
        if isinstance(choice, str):
            if choice not in self._cases_by_id:
                raise KeyError(
                    f"case {choice!r} is not in this environment's pool of {len(self.cases)} cases"
                )
            return self._cases_by_id[choice]
        if choice is not None:
            raise TypeError(
                f"options['case'] must be a case id or a Case, got {type(choice).__name__}"
            )
        return self.cases[int(self.np_random.integers(len(self.cases)))]

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
            released_stages=tuple(ep.released_stages),
            revealed_memories=tuple(ep.revealed_memories),
            can_end=t.turn >= self.config.ending.min_turns,
            last_levels=dict(ep.last_levels),
            stage_release_turns=tuple(ep.stage_release_turns),
        )

    def _apply_director(self, ep: _Episode, directed: Any, turn: int) -> DirectorAction:
        """Enforce the Director's rules and turn its tool call into guidance for the Actor."""
        if isinstance(directed, _Failed):
            action = DirectorAction(
                "observe_and_wait", {}, rejected=f"director failed: {directed.error}"
            )
        elif not isinstance(directed, DirectorAction) or directed.tool not in DIRECTOR_TOOLS:
            action = DirectorAction(
                "observe_and_wait", {}, rejected=f"not a valid tool call: {directed!r}"
            )
        else:
            action = directed
        args = action.args
        stance = args.get("stance") if args.get("stance") in STANCES else None
        focus = None
        release: Release | None = None
        rejected = action.rejected
        tool = action.tool if rejected is None else "observe_and_wait"

        if tool in ("select_and_reveal_fragment", "introduce_turning_point"):
            idx = args.get("stage_index")
            if not isinstance(idx, int) or isinstance(idx, bool) or not 0 <= idx < 4:
                rejected = f"stage_index must be 0..3, got {idx!r}"
            elif idx in ep.released_stages:
                rejected = f"stage {idx} was already released"
            else:
                stage = ep.case.plot.stages[idx]
                kind = "stage" if tool == "select_and_reveal_fragment" else "turning_point"
                release = Release(kind, str(idx), stage.summary, stage.narration)
                ep.released_stages.append(idx)
                ep.stage_release_turns.append(turn)
                ep.released_emotions.extend(stage.emotions)
                aspect = args.get("empathy_aspect")
                focus = aspect if aspect in ASPECTS else stage.focus
                ep.current_focus = focus
        elif tool == "reveal_memory":
            period = args.get("memory_period")
            if period not in MEMORY_PERIODS:
                rejected = f"memory_period must be one of {MEMORY_PERIODS}, got {period!r}"
            elif period in ep.revealed_memories:
                rejected = f"the {period} memory was already revealed"
            else:
                ep.revealed_memories.append(period)
                lines = getattr(ep.case.voice.memories, period)
                release = Release(
                    "memory", period, getattr(ep.case.experience, period, lines[0]), lines
                )
        elif tool == "adjust_empathy_strategy":
            aspect = args.get("focus_aspect")
            if aspect in ASPECTS:
                focus = aspect
            else:
                rejected = f"focus_aspect must be one of {ASPECTS}, got {aspect!r}"
        elif tool == "end_conversation" and not ep.tracker.end_by_director():
            rejected = f"end_conversation is not allowed before turn {self.config.ending.min_turns}"

        if release is None and ep.guidance is not None and ep.guidance.release is not None:
            pending = ep.guidance.release
            said = " ".join(m.content for m in ep.history if m.role == "user")
            if any(line not in said for line in pending.lines):
                release = pending  # the user has not finished telling it
        text = str(args.get("actor_guidance") or args.get("focus_suggestion") or "")
        ep.guidance = ActorGuidance(text=text, stance=stance, focus=focus, release=release)  # type: ignore[arg-type]
        if rejected != action.rejected:
            action = DirectorAction(action.tool, dict(args), rejected=rejected)
        return action

    def _step_info(self, ep: _Episode, record: TurnRecord, judgement: Judgement) -> dict[str, Any]:
        t = ep.tracker
        return {
            "case_id": ep.case.id,
            "turn": record.turn,
            "levels": dict(ep.last_levels),
            "evidence": dict(judgement.evidence),
            "reasoning": dict(judgement.reasoning),
            "judge_failed": judgement.failed,
            "judge_error": judgement.error,
            "increment": list(record.v),
            "position": list(record.position),
            "delta_E": record.delta_E,
            "alignment": record.alignment,
            "projection": record.projection,
            "distance": record.distance,
            "E_total": t.e_total,
            "director": record.director,
            "status": record.status,
            "victory_type": t.status.victory_type,
            "failure_reason": t.status.failure_reason,
        }
