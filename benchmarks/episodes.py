"""One episode of a benchmark run, played and scored the same way by every executor
(:func:`play_and_score`, with the run's shared :class:`~empa_env.context.EnvContext`), the NEE
panel and usage ledgers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarks.config import BenchConfig
from empa_env.backends import Roles
from empa_env.cases.schema import Case
from empa_env.context import EnvContext
from empa_env.env import EMPAEnv
from empa_env.policy import Policy
from empa_env.rollout import aplay_episode
from epm.episode import evaluate
from epm.nee import fcs
from epm.trajectory import Trajectory


async def play_episode(env: EMPAEnv, policy: Policy, case: Case, seed: int) -> dict[str, Any]:
    """One whole episode through the async API (:func:`empa_env.rollout.aplay_episode`);
    returns the final ``info``."""
    episode = await aplay_episode(env, policy, case=case, seed=seed)
    return episode.info


async def play_and_score(
    context: EnvContext, policy: Policy, case: Case, seed: int, panel: Any = None
) -> tuple[dict[str, Any], Trajectory]:
    """One episode played and scored: ``(metrics, trajectory)``, the same code whichever executor
    plays it (``context``: the run's roles and reward, shared; ``panel`` adds NEE and FCS)."""
    env = EMPAEnv([case], context=context)
    await play_episode(env, policy, case, seed)
    metrics = evaluate(env.trajectory, env.config)  # the JSON-safe record
    metrics.update(role_failures(env.trajectory))
    if panel is not None:
        metrics.update(await score_nee(panel, case, env, metrics["EPM_Index"]))
    return metrics, env.trajectory


#: Why the environment recorded a Director action as not the Director's own decision.
_DIRECTOR_FAILED = ("director failed", "not a valid tool call")


def director_failed(director: dict[str, Any] | None) -> bool:
    """Whether a turn's Director action (``TurnRecord.director``) is a fallback for a failed
    decision: the LLM Director's recorded ``director_failure`` (empty answer, unknown tool, bad
    arguments, provider error), or a Director that raised or returned no tool call."""
    if not director:
        return False
    args = director.get("args") or {}
    rejected = str(director.get("rejected") or "")
    return bool(args.get("director_failure")) or rejected.startswith(_DIRECTOR_FAILED)


def role_failures(trajectory: Trajectory) -> dict[str, int]:
    """How often the Director and the Actor of an episode failed, and how often they were asked.

    ``director_calls``: turns the Director acted on; ``director_failures``: those whose action was
    a fallback (:func:`director_failed`). ``actor_calls``: the opening and every user message asked
    for; ``actor_failures``: the canned fallback lines said instead of the Actor's own (opening
    included) and an Actor failure that ended the episode. The judge's are ``judge_failures``
    of ``turns`` (:func:`epm.evaluate`)."""
    meta = trajectory.meta
    director_calls = director_failures = 0
    actor_failures = int(bool(meta.get("opening_fallback")))
    actor_calls = 1
    for turn in trajectory.turns:
        if turn.director is not None:
            director_calls += 1
            director_failures += director_failed(turn.director)
        if turn.user_message or turn.actor_fallback:
            actor_calls += 1
            actor_failures += bool(turn.actor_fallback)
    if meta.get("aborted"):
        actor_calls += 1
        actor_failures += 1
    return {
        "director_failures": director_failures,
        "director_calls": director_calls,
        "actor_failures": actor_failures,
        "actor_calls": actor_calls,
    }


def nee_panel(config: BenchConfig) -> Any:
    """The run's NEE panel (``None`` without judges), its clients configured by the client part
    of the run's LLM options."""
    if not config.nee_judges:
        return None
    from empa_env.llm.nee import NEEPanel

    return NEEPanel(config.nee_judges, **config.env.llm_options.client_options())


async def score_nee(panel: Any, case: Case, env: EMPAEnv, epm_index: float) -> dict[str, Any]:
    """The NEE panel's verdict on a finished episode, and FCS = 0.6 EPM-Index + 0.4 NEE.

    When every judge of the panel failed, NEE and FCS stay empty and the failures are recorded in
    the trajectory (``meta["nee"]``) and counted in ``nee_failures``: never a silent zero.
    """
    outcome = await panel.aevaluate(case, env.trajectory)
    detail = outcome.as_dict()
    env.trajectory.meta["nee"] = detail
    nee = outcome.nee
    return {
        "NEE": nee,
        "NEE_std": detail["nee_std"],
        "naturalness": detail["naturalness"],
        "pacing": detail["pacing"],
        "narrative_arc": detail["narrative_arc"],
        "nee_failures": len(outcome.failures),
        "FCS": None if nee is None else fcs(epm_index, nee),
    }


def add_usage(earlier: Any, now: Any) -> Any:
    """Two ledgers added up: numbers summed, mappings merged key by key (a resumed run's total)."""
    if isinstance(earlier, dict) and isinstance(now, dict):
        return {k: add_usage(earlier.get(k), now.get(k)) for k in {**earlier, **now}}
    if earlier is None:
        return now
    if now is None:
        return earlier
    if isinstance(earlier, int | float) and isinstance(now, int | float):
        return earlier + now
    return now


def run_usage(roles: Roles, policies: Sequence[Policy]) -> dict[str, Any]:
    """Calls, cache hits, tokens and cost so far, per LLM role and per LLM policy."""
    from empa_env.usage import LLMBacked

    usage: dict[str, Any] = {}
    for kind, role in (
        ("actor", roles.actor),
        ("director", roles.director),
        ("judger", roles.judger),
    ):
        if isinstance(role, LLMBacked):
            usage[kind] = role.usage()
    for policy in policies:
        if isinstance(policy, LLMBacked):
            usage[f"policy:{policy.name}"] = policy.usage()
    return usage
