"""Fast batched decoding for rollouts: one prefill and a device-side decode loop per turn.

``transformers``' ``generate`` checks on the host after every decode step whether all rows are
done (a device synchronisation per token), rebuilds its attention mask each step, and can neither
batch conversations whose KV caches have different lengths nor keep a static cache across calls.
:class:`FastDecoder` is the rollouts' own loop over the model's ``forward``:

* **one batched call per turn** over every live episode: left-padded prompts, one prefill, then
  ``max_new_tokens`` one-token steps; greedy, temperature / nucleus sampling drawn on the device
  (torch's global generator), or a ``LogitsProcessor``-like ``sampler`` that picks each row's
  token itself (:class:`~baselines.training.mica.rollouts.EpisodeSampler`, which reads the
  scores on the host);
* **no host synchronisation per decode step**: finished rows keep decoding padding, and the loop
  asks the device whether every row is done only every ``check_every`` steps;
* **static KV cache and compilation** (``static_cache``, ``compile``): the cache is allocated once
  (``max_prompt_length + max_new_tokens`` positions, rows bucketed to the largest batch seen) and
  reused by every call; the one-token step is ``torch.compile``\\ d (``mode="reduce-overhead"``:
  CUDA graphs) with fixed shapes, so it compiles once per batch bucket. ``"auto"`` turns both on
  where the model is on a CUDA device and off elsewhere (CPU); a compilation that fails falls back
  to the eager step with one warning;
* **prefix reuse, batched** (:class:`StreamBatch`, ``reuse_prefix``): every conversation of the
  batch keeps its KV cache across turns in one shared cache; each turn appends only the new tokens
  of each row (the environment's part and any reply token not yet read), so rows of different
  lengths share one prefill and one decode loop. The cache's columns may hold padding in the
  middle of a row; the attention mask (4-D, built here) and the position ids (counted over the
  row's real tokens only) make each row see exactly its own token stream.

The attention mask is passed to the model as a 4-D boolean tensor ``(rows, 1, queries, keys)``
(``True``: attend), which ``transformers`` models use as given; a query always sees itself, so a
padding row never has an empty softmax. ``autocast`` (e.g. ``torch.bfloat16``: the trainers pass
it under bf16 mixed precision) decodes with a copy of the model in that dtype, its weights copied
from the fp32 master weights at every call (one cast of the weights per turn, instead of one per
decode step under ``torch.autocast``, whose casts the static cache's fixed dtype cannot follow).

Greedy outputs equal ``generate``'s (tested on CPU, also with prefix reuse against
:class:`~baselines.training.mica.prefix.ConversationStream`).
"""

from __future__ import annotations

import copy
import functools
import inspect
import time
import warnings
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

#: Values of the ``static_cache`` and ``compile`` options.
AUTO_MODES = ("auto", "on", "off")


def _resolve(mode: str | bool, device: torch.device) -> bool:
    if isinstance(mode, bool):
        return mode
    if mode not in AUTO_MODES:
        raise ValueError(f"expected one of {AUTO_MODES}, got {mode!r}")
    return mode == "on" or (mode == "auto" and device.type == "cuda")


_FORWARD_PARAMS: dict[type, frozenset[str]] = {}


def _forward_params(cls: type[torch.nn.Module]) -> frozenset[str]:
    """The parameter names of ``cls.forward`` (read once per model class)."""
    found = _FORWARD_PARAMS.get(cls)
    if found is None:
        found = _FORWARD_PARAMS[cls] = frozenset(inspect.signature(cls.forward).parameters)
    return found


@dataclass
class DecodeStats:
    """What the decoder did so far: calls, decode steps (one-token forwards), generated tokens
    (real ones, cut at the end-of-turn token) and prefill tokens (real prompt tokens read)."""

    calls: int = 0
    decode_steps: int = 0
    generated_tokens: int = 0
    prefill_tokens: int = 0
    compile_error: str | None = None
    seconds: float = 0.0  # wall time inside the decoder (the results' transfer included)


#: The name :func:`grouped_attention` is registered under in ``transformers``' attention functions.
GROUPED_ATTENTION = "empa_grouped"


def grouped_attention(
    module: Any,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    scaling: float | None = None,
    dropout: float = 0.0,
    **_: Any,
) -> tuple[torch.Tensor, None]:
    """Attention of ``H`` query heads over ``H_kv`` key/value heads without repeating the keys
    and values (``transformers``' SDPA path copies them ``H / H_kv`` times whenever a mask is
    given): the query heads of each key/value head are stacked along the query axis, one batched
    product per key/value head. ``attention_mask``: boolean ``(B, 1, q, L)`` (``True``: attend)
    or additive. Returns ``(B, q, H, d)`` as ``transformers``' attention functions do."""
    b, h, q, d = query.shape
    hk = key.shape[1]
    g = h // hk
    scale = scaling if scaling is not None else d**-0.5
    scores = torch.matmul(query.reshape(b, hk, g * q, d), key.transpose(-1, -2)) * scale
    if attention_mask is not None:
        mask = attention_mask[..., : key.shape[-2]]
        mask = mask.expand(b, 1, q, mask.shape[-1]).unsqueeze(2).expand(b, 1, g, q, mask.shape[-1])
        mask = mask.reshape(b, 1, g * q, mask.shape[-1])
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        else:
            scores = scores + mask
    probs = torch.softmax(scores.float(), dim=-1).to(value.dtype)
    out = torch.matmul(probs, value).reshape(b, h, q, d)
    return out.transpose(1, 2).contiguous(), None


@functools.lru_cache(maxsize=1)
def _register_grouped_attention() -> bool:
    try:
        from transformers import AttentionInterface
    except ImportError:  # pragma: no cover - older transformers
        return False
    AttentionInterface.register(GROUPED_ATTENTION, grouped_attention)
    return True


#: The decoder each model uses now (:meth:`FastDecoder.for_settings`), by model.
_SHARED: weakref.WeakKeyDictionary[Any, tuple[tuple[Any, ...], FastDecoder]] = (
    weakref.WeakKeyDictionary()
)


def shared_decoder(model: Any) -> FastDecoder | None:
    """The decoder :meth:`FastDecoder.for_settings` keeps for ``model`` (``None``: none made yet,
    the rollouts use plain ``generate``); its :attr:`FastDecoder.stats` say what it did."""
    shared = _SHARED.get(model)
    return shared[1] if shared is not None else None


@dataclass
class _Layout:
    """One batched cache and what its columns hold: ``valid[row, col]`` whether that column of the
    row is a real token, ``next_pos[row]`` the next position id, ``cols`` the columns written."""

    cache: Any
    valid: torch.Tensor  # (rows, capacity) bool; capacity grows for a dynamic cache
    next_pos: torch.Tensor  # (rows,) long
    cols: int = 0


@dataclass
class FastDecoder:
    """Batched decoding over a causal LM (see the module docstring).

    Args:
        model: a ``transformers`` causal LM.
        pad_id, eos_id: the tokenizer's padding and end-of-turn ids.
        max_new_tokens, max_prompt_length: the reply cap and the prompt budget (sizes the static
            cache: ``max_prompt_length + max_new_tokens`` positions).
        greedy, temperature, top_p: argmax decoding, or sampling with these.
        static_cache, compile: ``"auto"`` (on for a CUDA model), ``"on"`` or ``"off"``;
            ``compile`` implies ``static_cache``.
        check_every: decode steps between two checks whether every row is done (the only host
            synchronisations of the loop).
        autocast: a dtype to decode in, with a copy of the model's weights refreshed at every
            call (``None``: the model itself, in its own dtype).
        attention: ``"grouped"``: the decoding copy attends with :func:`grouped_attention`
            (grouped-query heads without repeating the keys and values); ``"model"``: the
            model's own attention; ``"auto"``: grouped for a decoding copy on CUDA.
    """

    model: Any
    pad_id: int
    eos_id: int | None
    max_new_tokens: int = 48
    max_prompt_length: int = 512
    greedy: bool = False
    temperature: float = 1.0
    top_p: float = 1.0
    static_cache: str | bool = "auto"
    compile: str | bool = "auto"
    check_every: int = 8
    autocast: torch.dtype | None = None
    attention: str = "auto"
    stats: DecodeStats = field(default_factory=DecodeStats)
    _static: Any = None
    _bucket: int = 0
    _compiled: Any = None
    _copy: Any = None

    def __post_init__(self) -> None:
        if self.attention not in ("auto", "grouped", "model"):
            raise ValueError(
                f"attention must be 'auto', 'grouped' or 'model', got {self.attention!r}"
            )
        if self.check_every < 1:
            raise ValueError(f"check_every must be >= 1, got {self.check_every}")
        self.device = next(self.model.parameters()).device
        self.use_compile = _resolve(self.compile, self.device)
        self.use_static = self.use_compile or _resolve(self.static_cache, self.device)
        params = _forward_params(type(self.model))
        self._cache_kw = "cache" if "cache" in params else "past_key_values"
        self._keep_kw = "logits_to_keep" if "logits_to_keep" in params else None

    @classmethod
    def for_settings(cls, model: Any, tokenizer: Any, settings: Any) -> FastDecoder:
        """The decoder of ``model`` with a :class:`~baselines.training.mica.rollout.GenerationSettings`'
        options: made once per model and options, then shared by every later rollout (its
        static cache and compiled graphs survive from one generation to the next; the model's
        weights are read in place, so optimiser steps are seen)."""
        key = (
            tokenizer.pad_token_id, tokenizer.eos_token_id, settings.max_new_tokens,
            settings.max_prompt_length, bool(getattr(settings, "greedy", False)),
            settings.temperature, settings.top_p, getattr(settings, "static_cache", "auto"),
            getattr(settings, "compile", "auto"), getattr(settings, "check_every", 8),
            getattr(settings, "autocast", None), next(model.parameters()).device,
            getattr(settings, "attention", "auto"),
        )  # fmt: skip
        shared = _SHARED.get(model)
        if shared is not None and shared[0] == key:
            return shared[1]
        decoder = cls._build(model, tokenizer, settings)
        _SHARED[model] = (key, decoder)
        return decoder

    @classmethod
    def _build(cls, model: Any, tokenizer: Any, settings: Any) -> FastDecoder:
        autocast = getattr(settings, "autocast", None)
        return cls(
            model, tokenizer.pad_token_id, tokenizer.eos_token_id, settings.max_new_tokens,
            settings.max_prompt_length, bool(getattr(settings, "greedy", False)),
            settings.temperature, settings.top_p, getattr(settings, "static_cache", "auto"),
            getattr(settings, "compile", "auto"), getattr(settings, "check_every", 8),
            getattr(torch, autocast) if isinstance(autocast, str) else autocast,
            getattr(settings, "attention", "auto"),
        )  # fmt: skip

    # --- the model's forward -------------------------------------------------------------------
    @property
    def runner(self) -> Any:
        """The model that decodes: the model itself, or its copy (in the ``autocast`` dtype,
        with :func:`grouped_attention` where asked)."""
        dtype = next(self.model.parameters()).dtype
        grouped = self.attention == "grouped" or (
            self.attention == "auto" and self.device.type == "cuda"
        )
        needs_copy = (self.autocast is not None and dtype != self.autocast) or (
            self.attention == "grouped"
        )
        if not needs_copy:
            return self.model
        if self._copy is None:
            self._copy = copy.deepcopy(self.model).to(self.autocast or dtype).eval()
            self._copy.requires_grad_(False)
            if grouped and _register_grouped_attention():
                self._copy.config._attn_implementation = GROUPED_ATTENTION
        return self._copy

    def _refresh(self) -> None:
        """Copy the master weights into the decoding copy (in place: compiled graphs stay)."""
        if self._copy is not None:
            with torch.no_grad():
                for mine, master in zip(
                    self._copy.parameters(), self.model.parameters(), strict=True
                ):
                    mine.copy_(master)

    def _forward(
        self, ids: torch.Tensor, mask: torch.Tensor, pos: torch.Tensor, cache: Any
    ) -> torch.Tensor:
        kwargs: dict[str, Any] = {self._cache_kw: cache, "use_cache": True}
        if self._keep_kw:
            kwargs[self._keep_kw] = 1
        out = self.runner(input_ids=ids, attention_mask=mask, position_ids=pos, **kwargs)
        return out.logits[:, -1].float()

    def _step(self, ids: torch.Tensor, mask: torch.Tensor, pos: torch.Tensor, cache: Any) -> Any:
        """One decode step (compiled when asked; eager after a failed compilation)."""
        if self.use_compile and cache is self._static:
            if self._compiled is None:
                self._compiled = torch.compile(self._forward, mode="reduce-overhead", dynamic=False)
            try:
                return self._compiled(ids, mask, pos, cache).clone()
            except Exception as exc:  # noqa: BLE001 - any backend failure: fall back to eager
                self.use_compile = False
                self.stats.compile_error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
                warnings.warn(
                    f"torch.compile of the decode step failed ({self.stats.compile_error}); "
                    "decoding eagerly",
                    RuntimeWarning,
                    stacklevel=2,
                )
        return self._forward(ids, mask, pos, cache)

    # --- caches ------------------------------------------------------------------------------
    def _new_layout(self, rows: int, static: bool) -> _Layout:
        if static:
            from transformers import StaticCache

            capacity = self.max_prompt_length + self.max_new_tokens
            if self._static is None or rows > self._bucket:
                self._bucket = max(rows, self._bucket)
                self._static = StaticCache(config=self.model.config, max_cache_len=capacity)
                self._compiled = None  # a new bucket: new shapes, new graphs
            else:
                self._static.reset()
            cache, rows = self._static, self._bucket
        else:
            from transformers import DynamicCache

            cache, capacity = DynamicCache(), 0
        return _Layout(
            cache,
            torch.zeros((rows, capacity), dtype=torch.bool, device=self.device),
            torch.zeros(rows, dtype=torch.long, device=self.device),
        )

    def _ensure_capacity(self, layout: _Layout, extra: int) -> None:
        need = layout.cols + extra
        if need > layout.valid.shape[1]:
            if layout.cache is self._static:
                raise ValueError(
                    f"the static cache holds {layout.valid.shape[1]} positions, {need} needed"
                )
            grow = torch.zeros(
                (layout.valid.shape[0], need - layout.valid.shape[1]),
                dtype=torch.bool, device=self.device,
            )  # fmt: skip
            layout.valid = torch.cat([layout.valid, grow], dim=1)

    def _kv_width(self, layout: _Layout) -> int:
        return layout.valid.shape[1] if layout.cache is self._static else layout.cols

    # --- prefill and decode ------------------------------------------------------------------
    def _prefill(self, layout: _Layout, ids: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
        """Append ``ids`` (rows, n; ``real`` marks the row's real tokens, right-aligned) to every
        row and return the logits after each row's last column."""
        n = ids.shape[1]
        self._ensure_capacity(layout, n)
        start = layout.cols
        layout.valid[:, start : start + n] = real
        pos = layout.next_pos[:, None] + real.long().cumsum(1) - 1
        pos = pos.clamp(min=0)
        layout.next_pos += real.long().sum(1)
        layout.cols += n
        width = self._kv_width(layout)
        keys = torch.arange(width, device=self.device)
        queries = torch.arange(start, start + n, device=self.device)
        causal = keys[None, :] <= queries[:, None]  # (n, width)
        mask = layout.valid[:, None, None, :width] & causal[None, None]
        mask = mask | (keys[None, :] == queries[:, None])[None, None]
        return self._forward(ids, mask, pos, layout.cache)

    def _pick(self, logits: torch.Tensor, sampler: Any, live: torch.Tensor) -> torch.Tensor:
        if sampler is not None:  # its generators are those of the live rows, in order
            chosen = torch.full((logits.shape[0],), self.pad_id, device=logits.device)
            chosen[live] = sampler(None, logits[live]).argmax(-1).to(chosen.dtype)
            return chosen
        if self.greedy:
            return logits.argmax(-1)
        scores = logits / max(self.temperature, 1e-8)
        if self.top_p < 1.0:
            ordered, order = scores.sort(-1, descending=True)
            mass = ordered.softmax(-1).cumsum(-1)
            drop = (mass - ordered.softmax(-1)) >= self.top_p  # keep the head reaching top_p
            ordered = ordered.masked_fill(drop, float("-inf"))
            scores = torch.full_like(scores, float("-inf")).scatter(-1, order, ordered)
        return torch.multinomial(scores.softmax(-1), 1).squeeze(-1)

    def _decode(
        self, layout: _Layout, logits: torch.Tensor, live: Sequence[int], sampler: Any
    ) -> tuple[torch.Tensor, int]:
        """Decode up to ``max_new_tokens`` for the ``live`` rows (the others, bucket padding or
        ended episodes, only decode padding); returns ``(tokens (all rows, G), steps)`` where
        ``steps`` tokens of each row were fed back (read into the cache)."""
        total = logits.shape[0]
        out = torch.full((total, self.max_new_tokens), self.pad_id, device=self.device)
        live_index = torch.tensor(list(live), dtype=torch.long, device=self.device)
        done = torch.ones(total, dtype=torch.bool, device=self.device)
        done[live_index] = False
        eos = -1 if self.eos_id is None else self.eos_id
        steps = 0
        for j in range(self.max_new_tokens):
            token = self._pick(logits, sampler, live_index).masked_fill(done, self.pad_id)
            out[:, j] = token
            was_done = done
            done = done | (token == eos)
            if j == self.max_new_tokens - 1 or (
                (j + 1) % self.check_every == 0 and bool(done.all())
            ):
                break
            self._ensure_capacity(layout, 1)
            col = layout.cols
            layout.cols += 1
            width = self._kv_width(layout)
            keys = torch.arange(width, device=self.device)
            mask = (layout.valid[:, :width] | (keys == col)[None, :])[:, None, None, :]
            layout.valid[:, col] = ~was_done
            pos = layout.next_pos[:, None].clone()
            layout.next_pos += (~was_done).long()
            logits = self._step(token[:, None], mask, pos, layout.cache)
            steps += 1
        self.stats.decode_steps += steps + 1
        return out, steps

    def _cut(self, row: list[int]) -> list[int]:
        ids: list[int] = []
        for tok in row:
            ids.append(tok)
            if tok == self.eos_id:
                break
        while ids and ids[-1] == self.pad_id:
            ids.pop()
        return ids

    @staticmethod
    def _left_pad(
        prompts: Sequence[Sequence[int]], width: int, pad: int, rows: int, device: torch.device
    ) -> tuple[torch.Tensor, torch.Tensor]:
        ids = torch.full((rows, width), pad, dtype=torch.long)
        real = torch.zeros((rows, width), dtype=torch.bool)
        for i, p in enumerate(prompts):
            if p:
                ids[i, width - len(p) :] = torch.tensor(list(p), dtype=torch.long)
                real[i, width - len(p) :] = True
        return ids.to(device), real.to(device)

    def generate(
        self, prompts: Sequence[Sequence[int]], sampler: Any = None, pad_to: int | None = None
    ) -> list[list[int]]:
        """One completion per prompt (each cut after its first end-of-turn token), all rows in
        one prefill and one decode loop; ``pad_to`` left-pads every prompt to at least that
        width (as :func:`~baselines.training.mica.rollout.generate_replies`)."""
        if not prompts:
            return []
        if any(not p for p in prompts):
            raise ValueError("every prompt needs at least one token")
        width = max([len(p) for p in prompts] + [pad_to or 0])
        static = self.use_static and width + self.max_new_tokens <= (
            self.max_prompt_length + self.max_new_tokens
        )
        was_training = self.model.training
        self.model.eval()
        start = time.perf_counter()
        try:
            with torch.no_grad():
                self._refresh()
                layout = self._new_layout(len(prompts), static)
                ids, real = self._left_pad(
                    prompts, width, self.pad_id, layout.valid.shape[0], self.device
                )
                if layout.valid.shape[0] > len(prompts):  # bucket rows: one real token each
                    real[len(prompts) :, -1] = True
                logits = self._prefill(layout, ids, real)
                tokens, _ = self._decode(layout, logits, range(len(prompts)), sampler)
                rows = tokens[: len(prompts)].tolist()
        finally:
            if was_training:
                self.model.train()
        self.stats.seconds += time.perf_counter() - start
        completions = [self._cut(r) for r in rows]
        self.stats.calls += 1
        self.stats.prefill_tokens += sum(len(p) for p in prompts)
        self.stats.generated_tokens += sum(len(c) for c in completions)
        return completions


class StreamBatch:
    """Prefix reuse for a batch of conversations that play in lockstep: one KV cache over all of
    them (episode ``k`` in row ``rows[k]``), carried across turns.

    :meth:`generate` takes each live episode's whole token stream (what
    :meth:`~baselines.training.mica.prefix.ConversationStream.prompt` returns) and reads only the part
    the cache does not hold yet; a stream that no longer extends what its row holds (it outgrew
    ``max_prompt_length`` and was left-truncated) has its row's columns masked out and is read in
    full. With a dynamic cache, episodes that have ended are dropped from it; with the decoder's
    static cache (``static_cache`` or ``compile`` explicitly ``"on"``; ``"auto"`` keeps the
    dynamic cache here; with ``compile`` the decode step runs compiled) their rows
    stay and decode padding, and when the next turn would not fit the cache's
    ``max_prompt_length + max_new_tokens`` columns, every live stream is read afresh into the
    emptied cache (each stream fits: it is at most ``max_prompt_length`` tokens)."""

    def __init__(self, decoder: FastDecoder) -> None:
        self.decoder = decoder
        self.layout: _Layout | None = None
        self.rows: dict[int, int] = {}
        self.fed: dict[int, list[int]] = {}
        self.static = False

    def _place(self, live: list[int]) -> None:
        """Rows for the ``live`` episodes: the first turn places them; later, dynamic caches
        drop the rows of the episodes that ended."""
        d = self.decoder
        if self.layout is None:
            # Only when asked explicitly ("on"): the shared cache then spans max_prompt_length +
            # max_new_tokens columns (4,144 for grpo-trl's conversation budget), and on one H200
            # a first grpo-trl step with it, compilation included, was slower than the eager
            # dynamic cache (178 vs 584 tokens/s at 16 episodes); "auto" keeps the latter.
            self.static = d.use_static and "on" in (d.static_cache, d.compile)
            self.layout = d._new_layout(len(live), self.static)
            self.rows = {k: r for r, k in enumerate(live)}
            return
        if any(k not in self.rows for k in live):
            raise ValueError("StreamBatch: episodes can only leave the batch, not join it")
        for k in set(self.rows) - set(live):
            self.fed.pop(k, None)
        if self.static:
            self.rows = {k: self.rows[k] for k in live}
            return
        if [self.rows[k] for k in live] != list(range(len(live))):
            layout = self.layout
            index = torch.tensor([self.rows[k] for k in live], device=d.device)
            if layout.cols:
                layout.cache.batch_select_indices(index)
            layout.valid = layout.valid[index]
            layout.next_pos = layout.next_pos[index]
        self.rows = {k: r for r, k in enumerate(live)}

    def _restart(self) -> None:
        """Empty the (static) cache: every stream is read in full next."""
        assert self.layout is not None
        self.layout.cache.reset()
        self.layout.valid[:] = False
        self.layout.next_pos[:] = 0
        self.layout.cols = 0
        self.fed = {k: [] for k in self.fed}

    def generate(
        self, episodes: Sequence[int], streams: Sequence[list[int]], sampler: Any = None
    ) -> list[tuple[list[int], int]]:
        """``(completion ids, prompt tokens read)`` for each episode's stream."""
        d = self.decoder
        live = list(episodes)
        self._place(live)
        assert self.layout is not None
        layout = self.layout
        for attempt in range(2):
            new: dict[int, list[int]] = {}
            for key, stream in zip(live, streams, strict=True):
                fed = self.fed.get(key, [])
                if len(fed) >= len(stream) or stream[: len(fed)] != fed:  # truncated: over
                    layout.valid[self.rows[key]] = False
                    layout.next_pos[self.rows[key]] = 0
                    fed = []
                new[key] = list(stream[len(fed) :])
                self.fed[key] = fed
            width = max(len(n) for n in new.values())
            capacity = layout.valid.shape[1]
            if not self.static or layout.cols + width + d.max_new_tokens <= capacity:
                break
            if attempt or width + d.max_new_tokens > capacity:
                raise ValueError(f"a stream of {width} tokens does not fit the static cache")
            self._restart()
        if any(not n for n in new.values()):
            raise ValueError("every stream needs at least one token")
        blocks: list[list[int]] = [[] for _ in range(layout.valid.shape[0])]
        for key in live:
            blocks[self.rows[key]] = new[key]
        was_training = d.model.training
        d.model.eval()
        start = time.perf_counter()
        try:
            with torch.no_grad():
                d._refresh()
                ids, real = d._left_pad(blocks, width, d.pad_id, len(blocks), d.device)
                logits = d._prefill(layout, ids, real)
                rows = [self.rows[k] for k in live]
                tokens, steps = d._decode(layout, logits, sorted(rows), sampler_rows(sampler, rows))
                values = tokens.tolist()
        finally:
            if was_training:
                d.model.train()
        d.stats.seconds += time.perf_counter() - start
        out = []
        for key in live:
            completion = d._cut(values[self.rows[key]])
            self.fed[key] = self.fed[key] + new[key] + completion[:steps]
            out.append((completion, len(new[key])))
        d.stats.calls += 1
        d.stats.prefill_tokens += sum(len(n) for n in new.values())
        d.stats.generated_tokens += sum(len(c) for c, _ in out)
        return out


def sampler_rows(sampler: Any, rows: Sequence[int]) -> Any:
    """``sampler`` (its generators in the order of ``rows``) reordered to increasing rows, the
    order :meth:`FastDecoder._decode` hands it the live rows in."""
    if sampler is None or list(rows) == sorted(rows) or not hasattr(sampler, "generators"):
        return sampler
    order = sorted(range(len(rows)), key=lambda i: rows[i])
    sampler.generators = [sampler.generators[i] for i in order]
    return sampler


#: A ``LogitsProcessor``-like callable: ``(input_ids or None, scores) -> scores``.
Sampler = Callable[[Any, torch.Tensor], torch.Tensor]

__all__ = ["AUTO_MODES", "DecodeStats", "FastDecoder", "Sampler", "StreamBatch", "shared_decoder"]
