"""Trainers, in three rooms: ``mica`` (the MICA trainer for causal LMs and its rollouts), ``hf``
(stock TRL trainers: SFT, reward models, GRPO; their data and reward functions; the tiny offline
models) and ``strategy`` (the strategy-level CPU experiment); ``ray_rollouts`` serves the first
and the last.

Importing this package is cheap: the modules that need ``torch``/``transformers``/``trl`` (the
``train`` extra) import them themselves, so the data constructions and reward functions work
without them.
"""

from __future__ import annotations

import os

#: What keeps the Hugging Face libraries off the network (models and tokenizers are local).
OFFLINE_HUB_VARIABLES = {
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}


def use_offline_hub() -> None:
    """Keep the Hugging Face libraries offline (unless the caller set the variables already).

    Called where a process starts (``empa train``, the examples), never on import."""
    for name, value in OFFLINE_HUB_VARIABLES.items():
        os.environ.setdefault(name, value)
