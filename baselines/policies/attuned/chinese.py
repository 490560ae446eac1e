"""A short, grammatical fallback in Chinese: the user's last clause said back (``我`` and ``你``
turned around) and one supportive sentence, never the same one twice in a row."""

from __future__ import annotations

import re
from collections.abc import Sequence

_CLAUSE = re.compile(r"[^，。！？、；,.!?;\s]+")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_SWAP = str.maketrans({"我": "你", "你": "我"})
#: Supportive sentences; the planner cycles them, skipping the one the last reply used.
SUPPORT = (
    "这听起来真的很不容易，能再多说一点吗？",
    "谢谢你愿意告诉我这些。你现在最放不下的是什么？",
    "你的感受是有道理的。你希望接下来怎么做？",
    "慢慢来，不着急。这件事对你意味着什么？",
    "我在这里听你说。你最希望别人理解你的是什么？",
)


def chinese_reply(messages: Sequence[dict[str, str]]) -> str:
    users = [m["content"] for m in messages if m["role"] == "user"]
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    previous = replies[-1] if replies else ""
    clauses = [c for c in _CLAUSE.findall(users[-1] if users else "") if len(_HAN.findall(c)) >= 2]
    said = ""
    for clause in reversed(clauses):
        if 2 <= len(clause) <= 16:
            said = f"你说“{clause.translate(_SWAP)}”，我听到了。"
            break
    start = len(replies) % len(SUPPORT)
    for support in SUPPORT[start:] + SUPPORT[:start]:
        if support not in previous:
            break
    if said and said in previous:
        said = ""
    return f"{said}{support}"


__all__ = ["SUPPORT", "chinese_reply"]
