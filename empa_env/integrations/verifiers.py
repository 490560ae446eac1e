"""EMPA as a verifiers environment (``pip install "empa-gym[verifiers]"``, verifiers 0.4).

verifiers 0.4 composes an environment from a *taskset* (the rows every rollout starts from) and
an *env* (how one task becomes one episode: ``run(task, agents)``, the environment's side of the
conversation written as plain async Python). Both are found by id: ``empa`` (the top-level module
:mod:`empa`, which exports them), so verifiers' own command evaluates a model on the 30 cases::

    vf-eval empa --model MODEL --client.base-url http://127.0.0.1:8000/v1 --no-push -n 30

* :class:`EMPATaskset`: one task per case of the environment's pool (``EMPA-Bench-v14``: the
  30 cases), each with its reset seed;
* :class:`EMPAVerifiersEnv`: the model under test plays the policy seat (``agent``); the
  environment's response to each of its messages is EMPA's ``step``: the Judger, the Director
  and the simulated user (:class:`~empa_env.integrations.conversation.Conversation`, async);
* the rubric is the EPM, recorded on the trace as rewards: ``idr_sum`` (the episode's IDR
  return), ``epm_index`` and ``success``, weighted by the taskset's ``idr_weight``,
  ``epm_index_weight`` and ``success_weight`` (default 1, 0, 0: the reward is the IDR return,
  the other two are reported); per-turn rewards, outcome and case are in the trace's ``info``.

The agent defaults to verifiers' tool-less chat harness (``null``) in the ``subprocess`` runtime
(the model's turns go through verifiers' interception to ``--client.base-url``); that harness
is a small program verifiers runs with ``uv``, which the extra installs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf
from pydantic import Field

from empa_env.integrations.conversation import DEFAULT_ENV_ID, SYSTEM_PROMPT, Conversation


class EMPATasksetConfig(vf.TasksetConfig):
    """``--env.taskset.*``: which episodes, and the weights of the EPM rubric."""

    env_id: str = DEFAULT_ENV_ID
    """The EMPA environment (``EMPA-Bench-v14``: the 30 cases; ``EMPA-v14``: the training pool)."""
    cases: list[str] | None = None
    """Case ids to play (``None``: every case of the environment's pool)."""
    seed: int = 0
    """The reset seed of the first case; case ``i`` resets with ``seed + i``."""
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    """``gymnasium.make``'s keywords (``judger``, ``max_turns``, ``epm_overrides``, ...)."""
    system_prompt_text: str = SYSTEM_PROMPT
    """What the policy is told before the person's opening message."""
    idr_weight: float = 1.0
    epm_index_weight: float = 0.0
    success_weight: float = 0.0


class EMPAData(vf.TaskData):
    """One episode to play: the case and the reset seed."""

    case_id: str
    seed: int


class EMPATask(vf.Task[EMPAData, vf.State, vf.TaskConfig]):
    pass


class EMPATaskset(vf.Taskset[EMPATask, EMPATasksetConfig]):
    """One task per case of ``env_id``'s pool (or of ``cases``), in the pool's order."""

    def load(self) -> Iterator[EMPATask]:
        config = self.config
        if config.cases is None:
            probe = Conversation.make(config.env_id, **config.env_kwargs)
            ids = [case.id for case in probe.env.unwrapped.cases]  # type: ignore[attr-defined]
            probe.close()
        else:
            ids = list(config.cases)
        for index, case_id in enumerate(ids):
            yield EMPATask(
                EMPAData(
                    name=case_id,
                    prompt=None,  # the person opens: the env sends their first message
                    system_prompt=config.system_prompt_text,
                    case_id=case_id,
                    seed=config.seed + index,
                ),
                config.task,
            )


class EMPAEnvConfig(vf.EnvConfig):
    """``--env.*``: the policy seat (``--env.agent.*``)."""

    agent: vf.AgentConfig = vf.AgentConfig(
        harness={"id": "null"}, runtime={"type": "subprocess"}, network_notice=False
    )


class EMPAVerifiersEnv(vf.Env[EMPAEnvConfig]):
    """The episode: EMPA's user opens, the agent answers, ``step`` answers back (see the module)."""

    async def run(self, task: Any, agents: Any) -> None:
        config: EMPATasksetConfig = self.taskset.config  # type: ignore[assignment]
        conversation = Conversation.make(config.env_id, **config.env_kwargs)
        try:
            turn = await conversation.aopen(seed=task.data.seed, case=task.data.case_id)
            async with agents.agent.interaction(task) as interaction:
                segment = await interaction.turn(turn.user_message)
                while not segment.terminated:
                    turn = await conversation.areply(segment.last_reply)
                    if turn.done:
                        break
                    segment = await interaction.turn(turn.user_message)
            record_rubric(interaction.trace, conversation, config)
        finally:
            conversation.close()


def record_rubric(trace: Any, conversation: Conversation, config: EMPATasksetConfig) -> None:
    """The EPM rubric of a played conversation onto a verifiers trace (see the module)."""
    score = conversation.score()
    trace.record_reward("idr_sum", score.idr_sum, config.idr_weight)
    trace.record_reward("epm_index", score.epm_index, config.epm_index_weight)
    trace.record_reward("success", float(score.success), config.success_weight)
    trace.record_metric("turns", float(score.turns))
    trace.info.update(
        {
            "case_id": conversation.case_id,
            "outcome": score.outcome,
            "turn_rewards": list(conversation.rewards),
            "epm": dict((conversation.last.info.get("epm") or {}) if conversation.last else {}),
        }
    )


def load_environment(**taskset_fields: Any) -> EMPAVerifiersEnv:
    """The EMPA environment as ``verifiers.load_environment`` builds it, for code:
    ``load_environment(cases=["empa30-001"], env_kwargs={"judger": "lexicon"})``
    (``taskset_fields``: :class:`EMPATasksetConfig`'s fields)."""
    config = EMPAEnvConfig(taskset={"id": "empa", **taskset_fields})
    return vf.load_environment(config)  # type: ignore[return-value]


__all__ = [
    "EMPAData", "EMPAEnvConfig", "EMPATask", "EMPATaskset", "EMPATasksetConfig",
    "EMPAVerifiersEnv", "load_environment", "record_rubric",
]  # fmt: skip
