"""A model by name: ``"tiny"`` and ``"tiny-tools"`` are built offline (:mod:`tiny
<baselines.training.hf.tiny>`, :mod:`tiny_tools <baselines.training.hf.tiny_tools>`); anything
else is a local checkpoint or a Hugging Face id already in the local cache. The one place that
knows both tiny builders, so neither of them imports the other's user."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from baselines.training.hf.tiny import (
    build_tiny_causal_lm,
    build_tiny_reward_model,
    check_precision,
)


def load_or_build(
    name_or_path: str, kind: str = "causal_lm", seed: int = 0, precision: str = "auto"
) -> tuple[Any, Any]:
    """``"tiny"`` builds a fresh tiny model (``"tiny-tools"``: one that calls tools,
    :mod:`baselines.training.hf.tiny_tools`); anything else loads a local checkpoint directory or a
    Hugging Face id from the local cache (``local_files_only``: :class:`FileNotFoundError` with a
    one-line message when it is not there). The weights are fp32 whatever the checkpoint's dtype,
    bf16 for ``precision="bf16-pure"`` only (:func:`~baselines.training.hf.tiny.master_weights`)."""
    import torch

    check_precision(precision)
    dtype = torch.bfloat16 if precision == "bf16-pure" else torch.float32
    if name_or_path == "tiny":
        builder = build_tiny_causal_lm if kind == "causal_lm" else build_tiny_reward_model
        model, tokenizer = builder(seed=seed)
        return model.to(dtype), tokenizer
    if name_or_path == "tiny-tools" and kind == "causal_lm":
        from baselines.training.hf.tiny_tools import build_tiny_tool_caller  # imports transformers

        model, tokenizer = build_tiny_tool_caller(seed=seed)
        return model.to(dtype), tokenizer
    from transformers import (
        AutoModelForCausalLM,
        AutoModelForSequenceClassification,
        AutoTokenizer,
    )

    path = Path(name_or_path)
    source: str | Path = path if path.is_dir() else name_or_path
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
        if kind == "causal_lm":
            model = AutoModelForCausalLM.from_pretrained(source, local_files_only=True, dtype=dtype)
        else:
            model = AutoModelForSequenceClassification.from_pretrained(
                source, num_labels=1, local_files_only=True, dtype=dtype
            )
    except OSError as exc:
        if path.is_dir():
            raise
        raise FileNotFoundError(
            f"{name_or_path!r} is not 'tiny', a local model directory, or a Hugging Face id in the "
            f"local cache (nothing is downloaded: fetch it first, e.g. `hf download "
            f"{name_or_path}`)"
        ) from exc
    return model, tokenizer


__all__ = ["load_or_build"]
