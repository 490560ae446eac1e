"""EMPA inside inspect_ai: ``inspect eval empa_gym/empa30 --model openai/gpt-4o-mini``.

The model under test is the policy. Each sample is one benchmark case; the solver runs one
:class:`empa_env.EMPAEnv` episode: ``reset`` with the sample's case, then every turn it asks the
inspect model (``get_model().generate`` on the conversation so far) for the reply and ``step``\\ s the
environment with it, until the episode ends. The three roles (Actor, Director, Judger) are any of
our backends, chosen with task arguments::

    inspect eval empa_gym/empa30 --model openai/gpt-4o-mini \\
        -T judger=llm:openai/gpt-4o -T max_turns=30 -T preset=official

The scorer's value is the episode's EPM-Index (metrics: mean and stderr); the nine EPM metrics,
the indices, the outcome and the turn count are in the score's metadata, and the whole
conversation (the user's messages and the model's replies) is the sample's transcript in the log.

Needs the ``inspect`` extra (``pip install "empa-gym[inspect]"``). The task is registered through
the ``inspect_ai`` entry point group (``empa_gym = "empa_gym"``, see :mod:`empa_gym`).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from benchmarks.config import BenchConfig
from empa_env.config import EnvConfig
from empa_env.llm.options import LLMOptions

if TYPE_CHECKING:
    from empa_env.cases.schema import Case
    from empa_env.context import EnvContext

__all__ = [
    "SYSTEM_PROMPT", "empa_dataset", "empa_episode", "empa_task", "epm_scorer", "task_config",
]  # fmt: skip

#: What the model under test is told (the person's messages follow as user turns).
SYSTEM_PROMPT = (
    "You are talking with a person who needs support. Reply to their latest message as an "
    "empathetic conversation partner: understand their situation, acknowledge their feelings and "
    "help them move forward. Reply with your message only."
)


def use_bundled_tiktoken() -> None:
    """Point ``TIKTOKEN_CACHE_DIR`` at the encodings LiteLLM ships (offline token counting).

    inspect_ai counts tokens with tiktoken; without a cache it downloads ``o200k_base``, so an
    offline run (e.g. ``mockllm/model``) errors. An existing setting is kept.
    """
    # LiteLLM (our LLM roles) would fetch its model price list over the network, retrying
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return
    try:
        import litellm
    except ImportError:
        return
    bundled = Path(litellm.__file__).parent / "litellm_core_utils" / "tokenizers"
    if bundled.is_dir():
        os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)


def task_config(
    suite: str = "empa30-v1",
    actor: str = "offline",
    director: str = "offline",
    judger: str = "offline",
    max_turns: int | None = None,
    preset: str = "official",
    cases: str | list[str] | None = None,
    llm_options: dict[str, Any] | None = None,
) -> BenchConfig:
    """The task's arguments as the benchmark's own configuration: an :class:`EnvConfig` inside a
    :class:`BenchConfig` (so the roles, preset and case selection mean what they mean for
    ``empa bench``, and a bad value is the same :class:`~empa_env.errors.ConfigError`)."""
    wanted = cases.split(",") if isinstance(cases, str) else list(cases or [])
    env = EnvConfig(
        actor=actor, director=director, judger=judger,
        max_turns=None if max_turns is None else int(max_turns), preset=preset,
        llm_options=LLMOptions.of(llm_options),
    )  # fmt: skip
    return BenchConfig(env=env, suite=suite, case_ids=[c.strip() for c in wanted if c.strip()])


def empa_dataset(config: BenchConfig) -> MemoryDataset:
    """One sample per case the configuration selects (:meth:`BenchConfig.load_cases`)."""
    label, version, chosen = config.load_cases()
    samples = [
        Sample(
            input=f"EMPA case {case.id}",  # replaced by the person's opening message
            id=case.id,
            metadata={"case_id": case.id, "suite": label, "suite_version": version},
        )
        for case in chosen
    ]
    return MemoryDataset(samples, name=label.replace("-", "_"))


@solver
def empa_episode(config: BenchConfig, system_prompt: str = SYSTEM_PROMPT) -> Solver:
    """Play one EMPA episode per sample with the inspect model as the policy; every sample's
    environment plays with one :class:`~empa_env.context.EnvContext` (built from
    ``config.env`` on first use) on the case the sample names."""

    @functools.cache
    def context() -> EnvContext:
        from empa_env.context import EnvContext

        return EnvContext.build(config.env)

    @functools.cache
    def cases() -> dict[str, Case]:
        return {c.id: c for c in config.load_cases()[2]}

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from empa_env import EMPAEnv

        case = cases()[str(state.metadata["case_id"])]
        env = EMPAEnv([case], context=context())
        try:
            opening, info = await env.areset(options={"case": case.id})
            state.messages = [
                ChatMessageSystem(content=system_prompt),
                ChatMessageUser(content=opening),
            ]
            model = get_model()
            while True:
                output = await model.generate(state.messages)
                state.output = output
                state.messages.append(output.message)
                observation, _, terminated, truncated, info = await env.astep(output.completion)
                if terminated or truncated:
                    break
                state.messages.append(ChatMessageUser(content=observation))
            state.metadata["epm"] = dict(info.get("epm") or {})
            state.metadata["turns"] = env.trajectory.num_turns
            state.metadata["outcome"] = env.trajectory.outcome
            state.metadata["judge_failures"] = env.trajectory.judge_failures
        finally:
            env.close()
        return state

    return solve


@scorer(metrics=[mean(), stderr()])
def epm_scorer() -> Scorer:
    """The episode's EPM-Index (0-100); every EPM metric and index in the metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        epm = dict(state.metadata.get("epm") or {})
        value = epm.get("EPM_Index")
        outcome = str(state.metadata.get("outcome", "ongoing"))
        return Score(
            value=float(value) if value is not None else 0.0,
            answer=outcome,
            explanation=(
                f"{outcome} after {state.metadata.get('turns', 0)} turns; "
                f"EPM-Index {value if value is not None else 'n/a'}"
            ),
            metadata={**epm, "turns": state.metadata.get("turns")},
        )

    return score


def empa_task(config: BenchConfig) -> Task:
    """The EMPA benchmark as an inspect Task, one sample per case ``config`` selects (see the
    module docstring; :func:`task_config` makes ``config`` from the task's ``-T`` arguments)."""
    use_bundled_tiktoken()
    return Task(
        dataset=empa_dataset(config),
        solver=empa_episode(config),
        scorer=epm_scorer(),
        name=config.suite.replace("-", "_"),
    )


use_bundled_tiktoken()  # before inspect needs a tokenizer
