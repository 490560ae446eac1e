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

from empa_env.llm.options import LLMOptions

if TYPE_CHECKING:
    from empa_env.context import EnvContext

__all__ = ["SYSTEM_PROMPT", "empa_dataset", "empa_episode", "empa_task", "epm_scorer"]

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


def empa_dataset(suite: str = "empa30-v1", cases: str | list[str] | None = None) -> MemoryDataset:
    """One sample per case of ``suite`` (manifest order), or of the listed case ids."""
    from empa_env.cases.suites import load_suite

    loaded = load_suite(suite)
    wanted = cases.split(",") if isinstance(cases, str) else cases
    chosen = [loaded.case(c.strip()) for c in wanted] if wanted else list(loaded.cases)
    samples = [
        Sample(
            input=f"EMPA case {case.id}",  # replaced by the person's opening message
            id=case.id,
            metadata={"case_id": case.id, "suite": suite, "suite_version": loaded.version},
        )
        for case in chosen
    ]
    return MemoryDataset(samples, name=suite.replace("-", "_"))


@solver
def empa_episode(
    actor: str = "offline",
    director: str = "offline",
    judger: str = "offline",
    max_turns: int | None = None,
    preset: str = "official",
    suite: str = "empa30-v1",
    llm_options: dict[str, Any] | None = None,
    system_prompt: str = SYSTEM_PROMPT,
) -> Solver:
    """Play one EMPA episode per sample with the inspect model as the policy; every sample's
    environment plays with one :class:`~empa_env.context.EnvContext`, resolved on first use."""

    @functools.cache
    def context() -> EnvContext:
        from empa_env.config import EnvConfig
        from empa_env.context import EnvContext

        config = EnvConfig(
            actor=actor,
            director=director,
            judger=judger,
            max_turns=max_turns,
            preset=preset,
            llm_options=LLMOptions.of(llm_options),
        )
        return EnvContext.build(config)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from empa_env import EMPAEnv
        from empa_env.cases.suites import load_suite

        case = load_suite(suite).case(str(state.metadata["case_id"]))
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


def empa_task(
    suite: str = "empa30-v1",
    actor: str = "offline",
    director: str = "offline",
    judger: str = "offline",
    max_turns: int | None = None,
    preset: str = "official",
    cases: str | list[str] | None = None,
    llm_options: dict[str, Any] | None = None,
) -> Task:
    """The EMPA benchmark as an inspect Task (one sample per case; see the module docstring)."""
    use_bundled_tiktoken()
    return Task(
        dataset=empa_dataset(suite, cases),
        solver=empa_episode(
            actor=actor,
            director=director,
            judger=judger,
            max_turns=None if max_turns is None else int(max_turns),
            preset=preset,
            suite=suite,
            llm_options=llm_options,
        ),
        scorer=epm_scorer(),
        name=suite.replace("-", "_"),
    )


use_bundled_tiktoken()  # before inspect needs a tokenizer
