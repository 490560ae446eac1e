"""Trainers on Hugging Face TRL: data constructions, Echo-N1 reward functions, SFT, reward models,
the MICA trainer for causal LMs, and the strategy-level CPU experiment.

Importing this package is cheap: the modules that need ``torch``/``transformers``/``trl`` (the
``train`` extra) import them themselves, so the data constructions and reward functions work
without them.
"""

from __future__ import annotations

import os

# Nothing in this package may reach the Hugging Face Hub: models and tokenizers are built locally.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
