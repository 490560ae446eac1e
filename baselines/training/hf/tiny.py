"""A tiny causal LM and tokenizer built entirely offline, for tests, examples and CPU runs.

* tokenizer: byte-level BPE trained with ``tokenizers`` on local text (the package's own case and
  lexicon files plus a few built-in sentences, or any texts you pass), wrapped in a
  ``PreTrainedTokenizerFast`` with a ChatML chat template whose assistant turns carry
  ``{% generation %}`` markers (so TRL's ``assistant_only_loss`` masks everything else);
* model: ``LlamaConfig`` (hidden 64, 2 layers) instantiated with random weights via
  ``from_config``. Nothing is downloaded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|pad|>")

#: Help text of the ``model`` option of the training configurations.
MODEL_HELP = (
    "'tiny' (built offline), 'tiny-tools' (the tiny model taught to speak through a reply tool, "
    "for TRL's environment path), a local checkpoint directory, or a Hugging Face id already in "
    "the local cache (never downloaded)"
)

#: ChatML. The assistant's content *and* its ``<|im_end|>`` sit inside the generation block, so
#: the model learns to stop; system and user turns are never in it.
CHATML_TEMPLATE = (
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'assistant' -%}"
    "{{- '<|im_start|>assistant\\n' -}}"
    "{%- generation -%}{{- message['content'] + '<|im_end|>' -}}{%- endgeneration -%}"
    "{{- '\\n' -}}"
    "{%- else -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
)

_BUILTIN_TEXT = """\
I hear how heavy this has been for you, and it makes sense that you feel worn out.
It sounds like the hardest part is not knowing whether anyone noticed how hard you tried.
What part of it keeps coming back to you at night?
You have kept going through all of this, and that is not nothing.
Maybe it is less about failing and more about how much you care.
You get to decide what matters most to you here.
One small step could be to write down what you would want to say to them.
I'm tired. Work was long again and my sister still hasn't called me back.
I don't know, I just feel like I keep messing things up with everyone.
Thanks, that actually helps a bit. I never thought of it that way.
"""


def default_corpus() -> list[str]:
    """Local text to train the tokenizer on: built-in sentences plus the text files (YAML, Markdown)
    shipped inside the ``empa_env`` package (cases, lexicons)."""
    texts = [_BUILTIN_TEXT]
    try:
        import empa_env

        root = Path(empa_env.__file__).parent
        for path in sorted(root.rglob("*")):
            if path.suffix in {".yaml", ".yml", ".md", ".txt"} and path.is_file():
                texts.append(path.read_text(encoding="utf-8", errors="ignore"))
    except ImportError:  # pragma: no cover - empa_env is part of this repo
        pass
    return texts


def build_tokenizer(texts: Iterable[str] | None = None, vocab_size: int = 1024) -> Any:
    """Train a byte-level BPE tokenizer on ``texts`` and wrap it for ``transformers``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = list(texts) if texts is not None else default_corpus()
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|endoftext|>",
        eos_token="<|im_end|>",
        pad_token="<|pad|>",
        unk_token=None,
    )
    fast.chat_template = CHATML_TEMPLATE
    fast.padding_side = "left"  # generation pads on the left; training code sets what it needs
    return fast


@dataclass(frozen=True)
class TinyConfig:
    """Size of the tiny Llama. Defaults: hidden 64, 2 layers, 4 heads."""

    hidden_size: int = 64
    intermediate_size: int = 128
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    max_position_embeddings: int = 4096
    vocab_size: int = 1024


def _llama_config(tokenizer: Any, cfg: TinyConfig, **extra: Any) -> Any:
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=cfg.hidden_size,
        intermediate_size=cfg.intermediate_size,
        num_hidden_layers=cfg.num_hidden_layers,
        num_attention_heads=cfg.num_attention_heads,
        num_key_value_heads=cfg.num_attention_heads,
        max_position_embeddings=cfg.max_position_embeddings,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
        **extra,
    )


def build_tiny_causal_lm(
    tokenizer: Any | None = None, cfg: TinyConfig | None = None, seed: int = 0
) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a randomly initialised tiny ``LlamaForCausalLM``, its tokenizer."""
    import torch
    from transformers import AutoModelForCausalLM

    cfg = cfg or TinyConfig()
    tokenizer = tokenizer or build_tokenizer(vocab_size=cfg.vocab_size)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(_llama_config(tokenizer, cfg))
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.bos_token_id = tokenizer.bos_token_id
    return model, tokenizer


@dataclass(frozen=True)
class Qwen2Shape:
    """The shape of a Qwen2 causal LM (random weights, built offline): :data:`QWEN2_0_5B` is
    Qwen2-0.5B's (hidden 896, 24 layers, 14 query and 2 key/value heads, MLP 4864, tied
    embeddings); the vocabulary is the tokenizer's."""

    hidden_size: int = 64
    intermediate_size: int = 128
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    max_position_embeddings: int = 32_768


QWEN2_0_5B = Qwen2Shape(896, 4864, 24, 14, 2)


def build_qwen2_causal_lm(
    tokenizer: Any | None = None, shape: Qwen2Shape | None = None, seed: int = 0
) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a randomly initialised ``Qwen2ForCausalLM`` of ``shape`` (default
    a tiny one) over the tiny tokenizer; fp32, nothing downloaded."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    shape = shape or Qwen2Shape()
    tokenizer = tokenizer or build_tokenizer()
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=shape.hidden_size,
        intermediate_size=shape.intermediate_size,
        num_hidden_layers=shape.num_hidden_layers,
        num_attention_heads=shape.num_attention_heads,
        num_key_value_heads=shape.num_key_value_heads,
        max_position_embeddings=shape.max_position_embeddings,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.bos_token_id = tokenizer.bos_token_id
    return model, tokenizer


def build_tiny_reward_model(
    tokenizer: Any | None = None, cfg: TinyConfig | None = None, seed: int = 0
) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a tiny ``LlamaForSequenceClassification`` with one output."""
    import torch
    from transformers import AutoModelForSequenceClassification

    cfg = cfg or TinyConfig()
    tokenizer = tokenizer or build_tokenizer(vocab_size=cfg.vocab_size)
    torch.manual_seed(seed)
    model = AutoModelForSequenceClassification.from_config(
        _llama_config(tokenizer, cfg, num_labels=1)
    )
    return model, tokenizer


def no_checkpointing(config_cls: type) -> dict[str, Any]:
    """Keyword arguments that turn activation checkpointing off (TRL configs default it on, which
    only slows a tiny CPU model): ``activation_checkpointing`` on recent ``transformers``, its
    older name ``gradient_checkpointing`` otherwise."""
    names = {f.name for f in dataclasses.fields(config_cls)}
    key = (
        "activation_checkpointing"
        if "activation_checkpointing" in names
        else "gradient_checkpointing"
    )
    return {key: False}


def cpu_trainer_kwargs(run: Any, config_cls: type, **extra: Any) -> dict[str, Any]:
    """``TrainingArguments`` fields shared by our TRL configs on a CPU: the run's schedule, bf16
    autocast only for ``precision="bf16-mixed"``, no checkpointing, no reporting; ``extra`` and
    ``run.trainer_kwargs`` override them."""
    kwargs: dict[str, Any] = {
        "output_dir": run.output_dir,
        "num_train_epochs": run.epochs,
        "learning_rate": run.learning_rate,
        "per_device_train_batch_size": run.batch_size,
        "max_steps": run.max_steps,
        "seed": run.seed,
        "bf16": getattr(run, "precision", "auto") == "bf16-mixed",
        "use_cpu": True,
        "report_to": [],
        "logging_steps": 1,
        "save_strategy": "no",
        "max_length": 1024,
        **no_checkpointing(config_cls),
        **extra,
    }
    kwargs.update(run.trainer_kwargs)
    return kwargs


#: Training precisions (``precision`` of every trainer's configuration):
#:
#: * ``auto`` (default): fp32 master weights; bf16 autocast where the trainer's ``bf16`` flag is on;
#: * ``fp32``: fp32 weights, no autocast;
#: * ``bf16-mixed``: fp32 master weights (the optimiser updates fp32), forwards and backwards under
#:   bf16 autocast (sets the trainer's ``bf16`` flag);
#: * ``bf16-pure``: the weights themselves in bf16 (half the memory; an update smaller than about
#:   2^-9 of a weight is rounded away: one AdamW step at lr 1e-6 changed ~2% of a bf16 model's
#:   weight elements vs 100% in fp32).
PRECISIONS = ("auto", "fp32", "bf16-mixed", "bf16-pure")
PRECISION_HELP = (
    "auto (fp32 master weights, bf16 autocast when --bf16), fp32, bf16-mixed (fp32 master weights "
    "+ bf16 autocast) or bf16-pure (bf16 weights: small learning rates are rounded away)"
)
#: Below this learning rate ``bf16-pure`` warns (an AdamW step moves a weight by about lr).
PURE_BF16_MIN_LR = 1e-4


@dataclass
class TrainRunConfig:
    """The fields every stock TRL trainer's run shares (:func:`cpu_trainer_kwargs` maps them onto
    ``TrainingArguments``): the model (``"tiny"`` or a local checkpoint), where it is written,
    the schedule, the seed, the precision, and further fields of the TRL config. The SFT and the
    reward-model runs add theirs (``baselines.training.hf.sft``, ``baselines.training.hf.rm``)."""

    model: str = field(default="tiny", metadata={"help": MODEL_HELP})
    output_dir: str = field(default="runs/train", metadata={"help": "where the model is written"})
    epochs: float = field(default=1.0, metadata={"help": "training epochs"})
    learning_rate: float = field(default=5e-4, metadata={"help": "peak learning rate"})
    batch_size: int = field(default=4, metadata={"help": "examples per device and step"})
    max_steps: int = field(default=-1, metadata={"help": "stop after N steps (-1: epochs decide)"})
    seed: int = field(default=0, metadata={"help": "random seed (model init, data order)"})
    precision: str = field(default="auto", metadata={"help": PRECISION_HELP})
    trainer_kwargs: dict[str, Any] = field(
        default_factory=dict, metadata={"help": "further fields of the TRL config (JSON object)"}
    )


def check_precision(precision: str) -> str:
    """``precision`` if it is one of :data:`PRECISIONS` (:class:`ValueError` otherwise)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    return precision


def master_weights(model: Any, precision: str = "auto", learning_rate: float | None = None) -> Any:
    """``model`` with the weights a trainer should update: fp32 for every precision but
    ``bf16-pure`` (bf16 or fp16 parameters are upcast in place; the checkpoint's own dtype is
    what ``from_pretrained`` loads, bf16 for most published ones), bf16 for ``bf16-pure`` (with a
    warning when ``learning_rate`` is below :data:`PURE_BF16_MIN_LR`)."""
    import warnings

    import torch

    check_precision(precision)
    if precision == "bf16-pure":
        model.to(torch.bfloat16)
        if learning_rate is not None and learning_rate < PURE_BF16_MIN_LR:
            warnings.warn(
                f"precision 'bf16-pure' at learning rate {learning_rate:g}: bf16 weights keep 8 "
                "significant bits, so most AdamW updates of this size round to nothing (one "
                "step at 1e-6 changed ~2% of the weights); use 'bf16-mixed' (fp32 master "
                "weights) unless memory forbids it",
                UserWarning,
                stacklevel=2,
            )
        return model
    if any(p.is_floating_point() and p.dtype != torch.float32 for p in model.parameters()):
        model.float()
    return model


__all__ = [
    "CHATML_TEMPLATE", "MODEL_HELP", "PRECISIONS", "PRECISION_HELP", "QWEN2_0_5B",
    "SPECIAL_TOKENS", "Qwen2Shape", "TinyConfig", "build_qwen2_causal_lm", "build_tiny_causal_lm", "build_tiny_reward_model", "build_tokenizer",
    "check_precision", "default_corpus", "master_weights",
]  # fmt: skip
