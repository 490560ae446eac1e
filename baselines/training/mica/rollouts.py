"""The MICA trainer's language-model policy as a rollout recipe for Ray actors
(:mod:`baselines.training.ray_rollouts`).

:class:`LMRollout` carries what an actor needs to rebuild the learner's policy as it is now: the
model's configuration, its ``state_dict`` (CPU tensors; :meth:`RayRolloutPool.play` puts the
recipe in the object store once per generation, every actor reads the same copy), the tokenizer
and the :class:`~baselines.training.mica.rollout.GenerationSettings`. On an actor the model is built
once from the configuration (``AutoModelForCausalLM.from_config``) and every later recipe only
loads its weights into it. The actor then plays its episodes with the trainer's own batched
generation (one ``generate`` per turn over its running episodes, as
:func:`~baselines.training.mica.rollout.play_episodes`), and :func:`rollout_batch` turns the played
episodes back into the :class:`~baselines.training.mica.rollout.RolloutBatch` the advantage code takes.

Randomness. Sampling does not use torch's global generator: each token of episode ``i``'s reply
at turn ``t`` is drawn by :class:`EpisodeSampler` from ``numpy.random.default_rng([seed, i, t])``
(temperature and nucleus ``top_p`` applied first), so an episode's draws do not depend on which
worker plays it or on which episodes share its batch. The logits must not depend on them
either: with left padding to the batch's longest prompt, a wider padding moved a row's logits in
their last bits (1.5e-7 measured on this CPU) and, in a test run, flipped one draw of 64-token
replies. So every prompt is left-padded to ``max_prompt_length`` (the same width in every
batch; measured: then a row's logits are bit-identical whatever its batch-mates and the batch
size, on this CPU with one thread: kernels on other hardware may still vary with the batch
size). The price is the padded prefill (up to ``max_prompt_length`` tokens per row). Hence:

* sampled episodes are the same for any number of workers >= 1 (tested: 1 vs 2 workers, and
  3 shards in-process, token for token);
* they are not the same as ``rollout_workers=0``, which samples with torch's global generator
  as before (the in-process numbers of the docs stay valid);
* greedy decoding draws nothing and equals :func:`play_episodes` in the learner's process
  (tested token for token; it pads to the batch only, so the float caveat applies in theory to
  an exact tie of two logits).

Episodes are numbered and seeded as :func:`play_episodes` numbers them (index ``b * K + k``,
reset seed ``seed * 100_003 + index``), so the environments see the same resets either way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from baselines.training.mica.rollout import GenerationSettings, LMTurns, RolloutBatch, TurnSample
from baselines.training.ray_rollouts import EpisodeSpec, PlayedEpisode
from empa_env.rollout import Step


def lm_episodes(case_ids: Sequence[str], k: int, seed: int) -> list[EpisodeSpec]:
    """``len(case_ids) x k`` episodes numbered and reset-seeded as :func:`play_episodes` does."""
    return [
        EpisodeSpec(i, str(case_ids[i // k]), seed * 100_003 + i) for i in range(len(case_ids) * k)
    ]


class EpisodeSampler:
    """A ``LogitsProcessor`` that samples each row's next token from its own generator and leaves
    only that token (score 0, all others ``-inf``) for ``generate``'s greedy pick.

    ``generators[row]`` is the generator of the episode in that row of the batch, seeded per
    episode and turn; one uniform draw per generated position (a finished row keeps drawing, but
    only its own generator, and its tokens are discarded)."""

    def __init__(
        self, generators: Sequence[np.random.Generator], temperature: float, top_p: float
    ) -> None:
        self.generators = list(generators)
        self.temperature, self.top_p = temperature, top_p

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        logits = scores.detach().double().cpu().numpy() / max(self.temperature, 1e-8)
        chosen = np.empty(len(logits), dtype=np.int64)
        for row, (values, generator) in enumerate(zip(logits, self.generators, strict=True)):
            chosen[row] = self._draw(values, generator)
        out = torch.full_like(scores, float("-inf"))
        out[torch.arange(len(chosen)), torch.from_numpy(chosen).to(scores.device)] = 0.0
        return out

    def _draw(self, logits: np.ndarray, generator: np.random.Generator) -> int:
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        order = np.argsort(-probs, kind="stable")
        ranked = probs[order]
        if self.top_p < 1.0:  # the smallest head of the ranking whose mass reaches top_p
            keep = int(np.searchsorted(np.cumsum(ranked), self.top_p)) + 1
            ranked = ranked[:keep]
        cumulative = np.cumsum(ranked)
        position = int(np.searchsorted(cumulative, generator.random() * cumulative[-1], "right"))
        return int(order[min(position, len(ranked) - 1)])


class _SeededLMTurns(LMTurns):
    """:func:`play_episodes`' batched LM turns over ``episodes`` (lockstep position ``j`` plays
    ``episodes[j]``), sampling with :class:`EpisodeSampler`; each step also records its turn
    index and reply, which :func:`rollout_batch` needs."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        settings: GenerationSettings,
        episodes: Sequence[EpisodeSpec],
        seed: int,
    ) -> None:
        super().__init__(model, tokenizer, settings, reply_filter=None)
        self.episode_index = [e.index for e in episodes]
        self.seed = seed
        self._turn = 0

    def before_turn(self, turn: int, indices: list[int]) -> None:
        super().before_turn(turn, indices)
        self._turn = turn

    def _generate(self, prompts: list[list[int]]) -> list[list[int]]:
        from baselines.training.mica.rollout import generate_replies

        s = self.settings
        width = s.max_prompt_length  # the same for every batch: see the module docstring
        sampler = self._sampler()
        if self.decoder is not None:
            return list(self.decoder.generate(prompts, sampler, pad_to=width))
        return generate_replies(self.model, self.tokenizer, prompts, s, sampler, pad_to=width)

    def _sampler(self) -> EpisodeSampler | None:
        s = self.settings
        if s.greedy:
            return None
        generators = [
            np.random.default_rng([self.seed, self.episode_index[j], self._turn])
            for j in self._indices
        ]
        return EpisodeSampler(generators, s.temperature, s.top_p)

    def on_step(self, index: int, step: Step) -> None:
        super().on_step(index, step)
        step.extra["turn"], step.extra["reply"] = step.turn, step.reply


#: The model an actor built last, by configuration: later recipes only load their weights.
_ACTOR_MODEL: dict[str, Any] = {}


@dataclass(frozen=True)
class LMRollout:
    """A picklable recipe of the MICA trainer's policy (see the module docstring)."""

    model_config: Any  # transformers.PretrainedConfig
    weights: dict[str, Any]  # name -> CPU tensor
    dtype: str
    tokenizer: Any
    settings: GenerationSettings
    seed: int

    @classmethod
    def of(cls, model: Any, tokenizer: Any, settings: GenerationSettings, seed: int) -> LMRollout:
        """The recipe of ``model`` (an unwrapped causal LM) as it is now."""
        weights = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
        dtype = str(next(model.parameters()).dtype).removeprefix("torch.")
        return cls(model.config, weights, dtype, tokenizer, settings, seed)

    def model(self) -> Any:
        """The policy, on this process's CPU: built once per configuration, then reloaded."""
        import torch
        from transformers import AutoModelForCausalLM

        key = json.dumps([self.model_config.to_dict(), self.dtype], sort_keys=True, default=str)
        model = _ACTOR_MODEL.get(key)
        if model is None:
            _ACTOR_MODEL.clear()
            model = AutoModelForCausalLM.from_config(
                self.model_config, dtype=getattr(torch, self.dtype)
            )
            _ACTOR_MODEL[key] = model
        model.load_state_dict(self.weights)
        return model.eval()

    def build(self, episodes: Sequence[EpisodeSpec]) -> _SeededLMTurns:
        return _SeededLMTurns(self.model(), self.tokenizer, self.settings, episodes, self.seed)


def rollout_batch(played: Sequence[PlayedEpisode], case_ids: Sequence[str], k: int) -> RolloutBatch:  # fmt: skip
    """Played episodes (indices ``0 .. B*K-1``) as the :class:`RolloutBatch` that
    :func:`play_episodes` returns for the same ``case_ids`` and ``k``."""
    ordered = sorted(played, key=lambda e: e.index)
    b_count = len(case_ids)
    if [e.index for e in ordered] != list(range(b_count * k)):
        raise ValueError("episodes missing or repeated: indices must be 0 .. B*K-1 once each")
    per_episode = [
        [
            TurnSample(
                e.index // k,
                e.index % k,
                x["turn"],
                x["prompt_ids"],
                x["completion_ids"],
                x["reply"],
                reward,
                x["prompt_tokens_read"],
            )  # fmt: skip
            for x, reward in zip(e.extras, e.rewards, strict=True)
        ]
        for e in ordered
    ]
    lengths = np.array([len(t) for t in per_episode], dtype=np.int64).reshape(b_count, k)
    rewards = np.zeros((b_count, k, int(lengths.max(initial=0))))
    for e in ordered:
        rewards[e.index // k, e.index % k, : len(e.rewards)] = e.rewards
    return RolloutBatch(
        samples=[s for turns in per_episode for s in turns],
        rewards=rewards,
        lengths=lengths,
        case_ids=list(case_ids),
        episodes=[[e.epm for e in ordered[b * k : (b + 1) * k]] for b in range(b_count)],
        trajectories=[[e.trajectory for e in ordered[b * k : (b + 1) * k]] for b in range(b_count)],
    )


__all__ = ["EpisodeSampler", "LMRollout", "lm_episodes", "rollout_batch"]
