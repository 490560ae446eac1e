"""EMPA for TRL's ``GRPOTrainer(environment_factory=...)`` (TRL >= 1.x, the ``train`` extra).

TRL trains against environments through ``environment_factory``: a class whose ``reset`` starts
an episode (its text is appended to the prompt's last message) and whose other public methods are
tools the model calls; TRL runs the multi-turn loop (generate, call the tool, append its result,
generate again), masks the tool results out of the loss, and scores each finished rollout with
``get_reward`` and the reward functions (which receive the ``environments``). :class:`EMPAToolEnv`
is that class for EMPA: the policy speaks to the person by calling ``reply(message)``; the tool's
result is what the person says back. A few lines in a GRPO script::

    from trl import GRPOConfig, GRPOTrainer
    from empa_env.integrations.trl import EMPAToolEnv, empa_dataset, epm_index_reward

    trainer = GRPOTrainer(
        model=model, args=GRPOConfig(...), processing_class=tokenizer,
        train_dataset=empa_dataset("EMPA-v14", cases=64),      # one row per case: prompt, case, seed
        environment_factory=lambda: EMPAToolEnv("EMPA-v14"),   # get_reward: the episode's IDR return
        reward_funcs=[epm_index_reward], # optional: EPM-Index (give it weight 0 to log it only)
    )

Per-turn rewards stay on each environment (``env.rewards``: one IDR per turn, in order), so a
reward function over ``environments`` can do MICA-style per-turn credit; ``env.messages`` is the
conversation and ``env.last_info`` the last step's ``info`` (levels, evidence, ``epm``).
The model must call tools in its chat template's format (TRL parses them with the tokenizer's
response template: ``trl.chat_template_utils.add_response_schema``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from empa_env.integrations.conversation import Conversation

#: What the policy is told: it talks through the ``reply`` tool.
SYSTEM_PROMPT = (
    "You are talking with a person who is going through something hard. Say each of your "
    "messages to them by calling the reply tool; what they say back comes as its result. Listen, "
    "understand what they feel and need, and answer them in your own words."
)


class EMPAToolEnv:
    """One EMPA episode per rollout, played through the ``reply`` tool (see the module).

    Args:
        env_id: a registered EMPA id (``EMPA-v14``: the generated training pool, never the
            benchmark cases; ``EMPA-Bench-v14``: the 30 cases).
        conversation: play this :class:`~empa_env.integrations.conversation.Conversation`
            instead (an environment you built, e.g. over a shared ``EnvContext``).
        env_kwargs: ``gymnasium.make``'s keywords (``judger=...``, ``max_turns=...``).

    Only ``reset``, ``get_reward`` and ``reply`` are public methods: TRL offers every other
    public method to the model as a tool.
    """

    def __init__(
        self,
        env_id: str = "EMPA-v14",
        *,
        conversation: Conversation | None = None,
        **env_kwargs: Any,
    ) -> None:
        self.conversation = conversation or Conversation.make(env_id, **env_kwargs)

    def reset(self, case: str | None = None, seed: int | None = None, **row: Any) -> str:
        """Start the episode of a dataset row (``case``, ``seed``; other columns are ignored)
        and return the person's opening message (TRL appends it to the prompt)."""
        return self.conversation.open(seed=seed, case=case).user_message

    def reply(self, message: str) -> str:
        """Say something to the person you are talking with.

        Args:
            message: What you say to them.

        Returns:
            What the person says back.
        """
        turn = self.conversation.reply(message)
        if turn.done and not turn.user_message:
            return "(The conversation has ended.)"
        return turn.user_message

    def get_reward(self) -> float:
        """The episode's return: the sum of its per-turn rewards (IDR by default). A rollout
        that stops calling ``reply`` before the end keeps the reward of the turns it played
        (``status`` tells: ``ongoing``)."""
        return float(sum(self.conversation.rewards))

    # --- what reward functions read (attributes, not tools) ----------------------------------
    @property
    def rewards(self) -> list[float]:
        """The per-turn rewards of the episode, in order (for per-turn credit)."""
        return list(self.conversation.rewards)

    @property
    def messages(self) -> list[dict[str, str]]:
        return self.conversation.messages

    @property
    def status(self) -> str:
        return self.conversation.status

    @property
    def last_info(self) -> dict[str, Any]:
        """The last step's ``info`` (JSON-safe): levels, evidence, ``P_t``, ``epm`` at the end."""
        return dict(self.conversation.last.info) if self.conversation.last else {}


def epm_index_reward(
    environments: Sequence[EMPAToolEnv],
    log_metric: Callable[[str, float], None] | None = None,
    **_: Any,
) -> list[float | None]:
    """A ``GRPOTrainer`` reward function: each episode's EPM-Index (0 if it did not finish).

    It also logs the episodes' mean number of turns and success rate (``empa/turns``,
    ``empa/success_rate``) through the ``log_metric`` TRL hands every reward function."""
    scores = [env.conversation.score() for env in environments]
    if log_metric is not None and scores:
        log_metric("empa/turns", sum(s.turns for s in scores) / len(scores))
        log_metric("empa/success_rate", sum(s.success for s in scores) / len(scores))
    return [float(s.epm_index) for s in scores]


def success_reward(environments: Sequence[EMPAToolEnv], **_: Any) -> list[float | None]:
    """A ``GRPOTrainer`` reward function: 1.0 for an episode that ended in success, else 0.0."""
    return [float(env.conversation.score().success) for env in environments]


def dataset_rows(
    env_id: str = "EMPA-v14",
    cases: int | Sequence[str] | None = None,
    *,
    seed: int = 0,
    system_prompt: str = SYSTEM_PROMPT,
    **env_kwargs: Any,
) -> list[dict[str, Any]]:
    """One row per case: ``prompt`` (the system prompt and an empty user turn, which ``reset``
    fills with the opening), ``case`` and ``seed``. ``cases``: the first ``n`` cases of the
    environment's pool, or case ids (``None``: every case)."""
    if cases is None or isinstance(cases, int):
        conversation = Conversation.make(env_id, **env_kwargs)
        pool = [case.id for case in conversation.env.unwrapped.cases]  # type: ignore[attr-defined]
        conversation.close()
        ids = pool if cases is None else pool[:cases]
    else:
        ids = [str(c) for c in cases]
    return [
        {
            "prompt": [
                {"role": "system", "content": system_prompt},
                {"role": "user", "content": ""},
            ],
            "case": case_id,
            "seed": seed + i,
        }
        for i, case_id in enumerate(ids)
    ]


def empa_dataset(
    env_id: str = "EMPA-v14", cases: int | Sequence[str] | None = None, **kwargs: Any
) -> Any:
    """:func:`dataset_rows` as a ``datasets.Dataset`` (the ``train`` extra)."""
    from datasets import Dataset

    return Dataset.from_list(dataset_rows(env_id, cases, **kwargs))


__all__ = [
    "SYSTEM_PROMPT",
    "EMPAToolEnv",
    "dataset_rows",
    "empa_dataset",
    "epm_index_reward",
    "success_reward",
]
