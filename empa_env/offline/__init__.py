"""The embedded offline backend: rule-based Actor and Director, and the offline Judgers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from empa_env.lazy import lazy_exports

if TYPE_CHECKING:
    from empa_env.offline.actor import OfflineActor
    from empa_env.offline.director import OfflineDirector
    from empa_env.offline.judger import OfflineJudger

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "OfflineActor": "empa_env.offline.actor",
        "OfflineDirector": "empa_env.offline.director",
        "OfflineJudger": "empa_env.offline.judger",
    },
)

__all__ = ["OfflineActor", "OfflineDirector", "OfflineJudger"]
