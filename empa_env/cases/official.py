"""The official EMPA benchmark's case material, read from files the user gives.

The official repository (KAYA-HAI/EMPA-Benchmark-EPMSandbox, CC BY-NC 4.0) keeps its cases as
Chinese markdown cards (``empa/data/cases/script_NNN.md``), the hidden four-stage plots in
``empa/data/scenarios/character_stories.json`` and the benchmark metadata in
``empa/data/case_metadata.json``. This module reads that layout (a checkout, or any folder with
the same paths); nothing of it is shipped with this package.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

#: The official repository, recorded as the source of imported material.
OFFICIAL_REPOSITORY = "KAYA-HAI/EMPA-Benchmark-EPMSandbox"
OFFICIAL_LICENSE = "CC BY-NC 4.0"

#: Official life-domain labels (Chinese, and the English ones of its CSV reports) -> our domains.
DOMAIN_OF: dict[str, str] = {
    "生活状况": "daily_life",
    "身心健康": "health",
    "休闲娱乐": "leisure",
    "观念认同": "values_identity",
    "人际关系": "relationships",
    "生涯发展": "career",
    "Life": "daily_life",
    "Health": "health",
    "Leisure": "leisure",
    "Values": "values_identity",
    "Relations": "relationships",
    "Career": "career",
}
#: Official difficulty labels -> our bands (the official cut points are ours: 28 / 32 / 36).
DIFFICULTY_OF: dict[str, str] = {
    "较易": "easy",
    "中等": "medium",
    "困难": "hard",
    "极难": "extreme",
    "Easy": "easy",
    "Medium": "medium",
    "Hard": "hard",
    "Very Hard": "extreme",
}
#: 高 / 中 / 低 (high / medium / low), for empathy thresholds and priorities.
LEVEL_OF: dict[str, str] = {"高": "high", "中": "medium", "低": "low"}

CASES_DIR = Path("empa", "data", "cases")
STORIES_FILE = Path("empa", "data", "scenarios", "character_stories.json")
METADATA_FILE = Path("empa", "data", "case_metadata.json")
CASE_LIST_FILE = Path("empa", "data", "official_cases.txt")


def find_official_root(path: str | Path) -> Path | None:
    """The folder holding ``empa/data`` at or above ``path`` (``None`` if there is none)."""
    path = Path(path).resolve()
    for candidate in (path, *path.parents):
        if (candidate / "empa" / "data").is_dir():
            return candidate
    return None


def load_case_metadata(root: Path | None) -> dict[str, dict[str, Any]]:
    """``script_id -> {category, difficulty, dominant_axis, distance}`` from the metadata file.

    Missing or unreadable metadata gives ``{}`` (the caller falls back to what the episode has).
    """
    if root is None or not (root / METADATA_FILE).is_file():
        return {}
    try:
        data = json.loads((root / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    rows = data.get("sampled_cases", []) if isinstance(data, dict) else data
    return {str(r["script_id"]): r for r in rows if isinstance(r, dict) and r.get("script_id")}


_THRESHOLD = re.compile(r"共情阈值\s*[【\[(（]\s*([高中低])\s*[】\])）]")


def card_threshold(card_text: str) -> str | None:
    """The empathy threshold (``high`` / ``medium`` / ``low``) stated in a case card."""
    block = _section(card_text, "empathy_threshold") or card_text
    match = _THRESHOLD.search(block)
    return LEVEL_OF[match.group(1)] if match else None


def read_card_threshold(root: Path | None, script_id: str) -> str | None:
    if root is None:
        return None
    path = root / CASES_DIR / f"{script_id}.md"
    try:
        return card_threshold(path.read_text(encoding="utf-8"))
    except OSError:
        return None


def _section(text: str, tag: str) -> str | None:
    """The text inside ``<tag>...</tag>`` of a card, or ``None``."""
    match = re.search(rf"<{tag}>(.*?)</{tag}>", text, flags=re.S)
    return match.group(1) if match else None
