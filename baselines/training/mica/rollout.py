"""Playing whole episodes with a Hugging Face causal LM in EMPA environments.

:func:`play_episodes` runs ``B x K`` environments in lockstep (through
:func:`empa_env.rollout.play_lockstep`): at every turn the histories of the
episodes still running are chat-templated, left-padded and sampled from the model in one
``generate`` call; each reply goes to its environment, whose reward is the turn's IDR. The result,
:class:`RolloutBatch`, holds for each turn the prompt tokens (the history ``h_t``), the reply
tokens (``a_t``) and ``r_t``, plus the padded ``rewards (B, K, T_max)`` and ``lengths (B, K)``
that the advantage estimators take.

Tokens processed: every sample records the prompt tokens the model read for it
(``prompt_tokens_read``) and the tokens it generated; :meth:`RolloutBatch.metrics` reports them
per turn and in total (``tokens/...``) and :meth:`RolloutBatch.tokens_by_turn` per turn index. By
default each turn re-reads its whole history (one batched ``generate`` over the episodes still
running, left-padded; the padding is not counted). With ``GenerationSettings.reuse_prefix`` each
conversation is one token stream whose KV cache is carried across turns
(:mod:`baselines.training.mica.prefix`): a turn reads only its new tokens, one ``generate`` per episode.

:func:`candidate_preferences` scores K candidate replies at one context by stepping copies of an
environment, for reward-model pairs ranked by the Judger's increment.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from baselines.training.hf.data import preference_pairs
from baselines.training.mica.prefix import ConversationStream
from empa_env.policy import ChatMessage, Messages
from empa_env.rollout import RolloutHooks, Step, play_lockstep

#: Values of ``GenerationSettings.decoder``.
DECODERS = ("auto", "fast", "plain")


@dataclass
class TurnSample:
    """One policy turn: ``h_t`` as ``prompt_ids``, ``a_t`` as ``completion_ids``, reward ``r_t``."""

    case_index: int
    rollout: int
    turn: int
    prompt_ids: list[int]
    completion_ids: list[int]
    reply: str
    reward: float
    prompt_tokens_read: int = -1  # prompt tokens the model read for this turn (-1: all of them)

    def __post_init__(self) -> None:
        if self.prompt_tokens_read < 0:
            self.prompt_tokens_read = len(self.prompt_ids)


@dataclass
class RolloutBatch:
    """Everything one round of ``B`` cases x ``K`` rollouts produced."""

    samples: list[TurnSample]
    rewards: np.ndarray  # (B, K, T_max)
    lengths: np.ndarray  # (B, K)
    case_ids: list[str]
    episodes: list[list[dict[str, Any]]] = field(default_factory=list)  # info["epm"] per (b, k)
    trajectories: list[list[Any]] = field(default_factory=list)

    def tokens_by_turn(self) -> dict[str, np.ndarray]:
        """Mean tokens per turn index ``t`` over the episodes that reached it: ``prompt`` (the
        history as templated), ``prompt_read`` (what the model actually read: less with prefix
        reuse) and ``generated``."""
        t_max = int(self.lengths.max(initial=0))
        sums = np.zeros((3, t_max))
        counts = np.zeros(t_max)
        for s in self.samples:
            sums[:, s.turn] += (len(s.prompt_ids), s.prompt_tokens_read, len(s.completion_ids))
            counts[s.turn] += 1
        means = sums / np.maximum(counts, 1)
        return {"prompt": means[0], "prompt_read": means[1], "generated": means[2]}

    def metrics(self) -> dict[str, float]:
        """Means over the batch: per-turn reward, return, turns, success rate, EPM-Index; and
        the tokens processed: per turn (``tokens/prompt_read_per_turn``,
        ``tokens/generated_per_turn``) and in total over the batch (``tokens/prompt_read``,
        ``tokens/generated``)."""
        mask = np.arange(self.rewards.shape[2]) < self.lengths[..., None]
        flat = [e for row in self.episodes for e in row if e]
        out = {
            "reward": float(self.rewards[mask].mean()) if mask.any() else 0.0,
            "episode_return": float((self.rewards * mask).sum(-1).mean()),
            "turns": float(self.lengths.mean()),
        }
        if self.samples:
            read = sum(s.prompt_tokens_read for s in self.samples)
            generated = sum(len(s.completion_ids) for s in self.samples)
            out["tokens/prompt_read"] = float(read)
            out["tokens/generated"] = float(generated)
            out["tokens/prompt_read_per_turn"] = read / len(self.samples)
            out["tokens/generated_per_turn"] = generated / len(self.samples)
        if flat:
            out["success_rate"] = float(np.mean([bool(e.get("success")) for e in flat]))
            out["epm_index"] = float(np.mean([e.get("EPM_Index") or 0.0 for e in flat]))
        return out


def chat_prompt_ids(
    tokenizer: Any,
    messages: Sequence[ChatMessage],
    max_prompt_length: int | None = None,
    system_prompt: str | None = None,
) -> list[int]:
    """Token ids of the chat-templated history with the assistant generation prompt; when longer
    than ``max_prompt_length`` the oldest tokens are dropped (the recent context matters most)."""
    msgs = ([{"role": "system", "content": system_prompt}] if system_prompt else []) + list(
        messages
    )
    text = tokenizer.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    if max_prompt_length is not None and len(ids) > max_prompt_length:
        ids = ids[-max_prompt_length:]
    return ids


@dataclass
class GenerationSettings:
    """Sampling of replies: ``max_new_tokens``, ``temperature``, ``top_p``, prompt budget."""

    max_new_tokens: int = 48
    temperature: float = 1.0
    top_p: float = 1.0
    max_prompt_length: int = 512
    system_prompt: str | None = None
    reuse_prefix: bool = False  # one token stream + KV cache per conversation (prefix.py)
    greedy: bool = False  # argmax decoding instead of sampling (tests, evaluation)
    #: "fast": :class:`~baselines.training.mica.fastgen.FastDecoder` (one batched prefill and decode
    #: loop per turn, prefix reuse batched too); "plain": ``model.generate`` (prefix reuse one
    #: episode at a time); "auto": fast when the model is on a CUDA device.
    decoder: str = "auto"
    static_cache: str = "auto"  # fast decoder: "auto" (CUDA), "on", "off"
    compile: str = "auto"  # fast decoder: torch.compile the decode step ("auto": on CUDA)
    check_every: int = 8  # fast decoder: decode steps between host checks for "all done"
    autocast: str | None = None  # fast decoder: e.g. "bfloat16" (a bf16 copy decodes)
    attention: str = "auto"  # fast decoder: "grouped", "model" or "auto" (grouped on CUDA)

    def __post_init__(self) -> None:
        if self.decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {DECODERS}, got {self.decoder!r}")
        for name in ("static_cache", "compile"):
            if getattr(self, name) not in ("auto", "on", "off"):
                raise ValueError(f"{name} must be 'auto', 'on' or 'off'")

    def fast_for(self, model: Any) -> bool:
        """Whether ``model`` decodes with the fast decoder under these settings."""
        if self.decoder != "auto":
            return self.decoder == "fast"
        return bool(next(model.parameters()).device.type == "cuda")


def generate_replies(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[list[int]],
    settings: GenerationSettings,
    sampler: Any = None,
    pad_to: int | None = None,
) -> list[list[int]]:
    """Sample one completion per prompt; each is cut after its first end-of-turn token.

    ``sampler``: a ``LogitsProcessor`` that picks each row's next token itself (every other
    token's score ``-inf``); ``generate`` then decodes greedily, so the draws are the sampler's.
    ``pad_to``: left-pad every prompt to at least this width (a row's logits then do not depend
    on the lengths of its batch-mates' prompts, which move them in their last bits)."""
    import torch

    from baselines.training.mica.prefix import generation_kwargs

    pad = tokenizer.pad_token_id
    eos = tokenizer.eos_token_id
    width = max([len(p) for p in prompts] + [pad_to or 0])
    input_ids = torch.full((len(prompts), width), pad, dtype=torch.long)
    attention = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, p in enumerate(prompts):
        input_ids[i, width - len(p) :] = torch.tensor(p, dtype=torch.long)
        attention[i, width - len(p) :] = 1
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    kwargs = generation_kwargs(tokenizer, settings)
    if sampler is not None:
        from transformers import LogitsProcessorList

        for key in ("temperature", "top_p", "top_k"):
            kwargs.pop(key, None)
        kwargs.update(do_sample=False, logits_processor=LogitsProcessorList([sampler]))
    with torch.no_grad():
        out = model.generate(
            input_ids=input_ids.to(device), attention_mask=attention.to(device), **kwargs
        )
    if was_training:
        model.train()
    completions = []
    for row in out[:, width:].tolist():
        ids = []
        for tok in row:
            ids.append(tok)
            if tok == eos:
                break
        while ids and ids[-1] == pad:
            ids.pop()
        completions.append(ids)
    return completions


class LMTurns(RolloutHooks):
    """The LM side of :func:`play_episodes`: ``reply_batch`` for :func:`play_lockstep` (one
    ``generate`` per turn) and the hook that attaches each turn's token ids to its step."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        settings: GenerationSettings,
        reply_filter: Callable[[str], str] | None,
    ) -> None:
        super().__init__()
        self.model, self.tokenizer, self.settings = model, tokenizer, settings
        self.reply_filter = reply_filter
        self._indices: list[int] = []
        self._pending: dict[int, tuple[list[int], list[int], int]] = {}
        self._streams: dict[int, ConversationStream] = {}
        self.fast = settings.fast_for(model)
        self.decoder: Any = None
        self._batch: Any = None
        if self.fast:
            from baselines.training.mica.fastgen import FastDecoder, StreamBatch

            self.decoder = FastDecoder.for_settings(model, tokenizer, settings)
            self._batch = StreamBatch(self.decoder) if settings.reuse_prefix else None

    def before_turn(self, turn: int, indices: list[int]) -> None:
        self._indices = indices

    def __call__(self, histories: list[Messages]) -> list[str]:
        s = self.settings
        if s.reuse_prefix and self._batch is not None:
            turns = self._stream_batch_turn(histories)
        elif s.reuse_prefix:
            turns = [self._stream_turn(i, h) for i, h in zip(self._indices, histories, strict=True)]
        else:
            prompts = [
                chat_prompt_ids(self.tokenizer, h, s.max_prompt_length, s.system_prompt)
                for h in histories
            ]
            completions = self._generate(prompts)
            turns = [(p, c, len(p)) for p, c in zip(prompts, completions, strict=True)]
        replies = []
        for i, turn in zip(self._indices, turns, strict=True):
            self._pending[i] = turn
            reply = self.tokenizer.decode(turn[1], skip_special_tokens=True).strip()
            replies.append(self.reply_filter(reply) if self.reply_filter else reply)
        return replies

    def _generate(self, prompts: list[list[int]]) -> list[list[int]]:
        """One batched ``generate`` over this turn's prompts (those of ``self._indices``)."""
        if self.decoder is not None:
            return list(self.decoder.generate(prompts))
        return generate_replies(self.model, self.tokenizer, prompts, self.settings)

    def _sampler(self) -> Any:
        """A per-row sampler for the fast decoder (``None``: its own draws)."""
        return None

    def _stream_batch_turn(
        self, histories: list[Messages]
    ) -> list[tuple[list[int], list[int], int]]:
        """Prefix reuse, batched: every live conversation's stream in one prefill and decode."""
        s = self.settings
        prompts = []
        for i, history in zip(self._indices, histories, strict=True):
            stream = self._streams.setdefault(i, ConversationStream(reuse=False))
            prompts.append(
                stream.prompt(self.tokenizer, history, s.max_prompt_length, s.system_prompt)
            )
        results = self._batch.generate(self._indices, prompts, self._sampler())
        turns = []
        for i, prompt, (completion, read) in zip(self._indices, prompts, results, strict=True):
            self._streams[i].ids = prompt + completion
            turns.append((prompt, completion, read))
        return turns

    def _stream_turn(self, index: int, history: Messages) -> tuple[list[int], list[int], int]:
        s = self.settings
        stream = self._streams.setdefault(index, ConversationStream())
        prompt = stream.prompt(self.tokenizer, history, s.max_prompt_length, s.system_prompt)
        completion, read = stream.generate(self.model, self.tokenizer, s)
        return prompt, completion, read

    def on_step(self, index: int, step: Step) -> None:
        prompt, completion, read = self._pending.pop(index)
        step.extra["prompt_ids"], step.extra["completion_ids"] = prompt, completion
        step.extra["prompt_tokens_read"] = read

    def on_end(self, index: int, episode: Any) -> None:
        self._streams.pop(index, None)


def play_episodes(
    model: Any,
    tokenizer: Any,
    envs: Sequence[Any],
    case_ids: Sequence[str],
    num_rollouts: int,
    settings: GenerationSettings | None = None,
    seed: int = 0,
    reply_filter: Callable[[str], str] | None = None,
) -> RolloutBatch:
    """Play ``len(case_ids) x num_rollouts`` whole episodes; ``envs`` must hold at least that many
    environments (any backend; index ``b * K + k`` plays rollout ``k`` of case ``b``).

    The loop is :func:`empa_env.rollout.play_lockstep`; this function supplies the batched
    generation and turns the episodes into a :class:`RolloutBatch`."""
    settings = settings or GenerationSettings()
    b_count, k_count = len(case_ids), num_rollouts
    n = b_count * k_count
    if len(envs) < n:
        raise ValueError(f"need {n} environments, got {len(envs)}")
    lm = LMTurns(model, tokenizer, settings, reply_filter)
    played = play_lockstep(
        envs,
        lm,
        cases=[case_ids[i // k_count] for i in range(n)],
        seeds=[seed * 100_003 + i for i in range(n)],
        hooks=lm,
    )
    per_episode = [
        [
            TurnSample(
                i // k_count,
                i % k_count,
                step.turn,
                step.extra["prompt_ids"],
                step.extra["completion_ids"],
                step.reply,
                step.reward,
                step.extra["prompt_tokens_read"],
            )  # fmt: skip
            for step in episode.steps
        ]
        for i, episode in enumerate(played)
    ]
    lengths = np.array([len(e) for e in played], dtype=np.int64).reshape(b_count, k_count)
    rewards = np.zeros((b_count, k_count, int(lengths.max(initial=0))))
    for i, turns in enumerate(per_episode):
        rewards[i // k_count, i % k_count, : len(turns)] = [s.reward for s in turns]
    epm_infos = [e.epm for e in played]
    return RolloutBatch(
        samples=[s for turns in per_episode for s in turns],
        rewards=rewards,
        lengths=lengths,
        case_ids=list(case_ids),
        episodes=[epm_infos[b * k_count : (b + 1) * k_count] for b in range(b_count)],
        trajectories=[
            [played[b * k_count + k].trajectory for k in range(k_count)] for b in range(b_count)
        ],
    )


def score_candidates(env: Any, candidates: Sequence[str], key: str = "delta_E") -> list[float]:
    """The Judger's increment for each candidate reply at the env's current context.

    Each candidate is played on a deep copy of the (unwrapped) environment, so the original is
    untouched; ``key`` is ``"delta_E"`` (the effective projection ``v_t . v_star``) or
    ``"reward"`` (the IDR). Costs one full turn (Judger, Director, Actor) per candidate. The
    case pool is read-only and shared with the copies rather than copied (the Judger's encoder
    shares itself with its copies too).
    """
    scores = []
    base = env.unwrapped
    shared = [getattr(base, name) for name in ("cases", "_cases_by_id") if hasattr(base, name)]
    for reply in candidates:
        twin = copy.deepcopy(base, {id(obj): obj for obj in shared})
        _, reward, _, _, info = twin.step(reply)
        scores.append(float(reward) if key == "reward" else float(info[key]))
    return scores


def candidate_preferences(
    env: Any, candidates: Sequence[str], key: str = "delta_E", **pair_kwargs: Any
) -> list[dict[str, Any]]:
    """Preference pairs at the env's current context, ranked by the Judger's increment."""
    scores = score_candidates(env, candidates, key)
    return preference_pairs(env.unwrapped.messages, candidates, scores, **pair_kwargs)


def env_preference_pairs(
    env: Any,
    case_ids: Sequence[str],
    candidate_policies: Sequence[Callable[[Messages], str]],
    rollout_policy: Callable[[Messages], str] | None = None,
    key: str = "delta_E",
    seed: int = 0,
    **pair_kwargs: Any,
) -> list[dict[str, Any]]:
    """Preference pairs collected by playing one episode per case: at every turn each candidate
    policy proposes a reply, the distinct replies are scored by the Judger's increment on copies
    of the environment (:func:`candidate_preferences`), and the episode goes on with
    ``rollout_policy``'s reply (default the first candidate's)."""
    rows: list[dict[str, Any]] = []
    for i, case in enumerate(case_ids):
        env.reset(seed=seed + i, options={"case": case})
        done = False
        while not done:
            messages = [dict(m) for m in env.unwrapped.messages]
            candidates = list(dict.fromkeys(p(messages) for p in candidate_policies))
            if len(candidates) >= 2:
                rows += candidate_preferences(env, candidates, key, **pair_kwargs)
            reply = rollout_policy(messages) if rollout_policy else candidates[0]
            _, _, terminated, truncated, _ = env.step(reply)
            done = terminated or truncated
    return rows


__all__ = [
    "GenerationSettings", "LMTurns", "RolloutBatch", "TurnSample", "candidate_preferences",
    "chat_prompt_ids",
    "env_preference_pairs", "generate_replies", "play_episodes", "score_candidates",
]  # fmt: skip
