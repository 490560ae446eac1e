"""Process-wide settings for the test session (set where the process starts, as the CLI does)."""

from __future__ import annotations

import os

# LiteLLM must not fetch its price list, and the Hugging Face libraries must stay offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
for _name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ.setdefault(_name, "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
