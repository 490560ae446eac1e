"""The embedded offline backend: the Actor and Director, and the offline Judgers: the reading
judge (``judger="offline"``, :mod:`empa_env.offline.reading_judge`, the default), the semantic
heads it builds on (``"semantic"``) and the lexicon judge (``"lexicon"``,
:class:`~empa_env.offline.judger.LexiconJudger`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from empa_env.lazy import lazy_exports

if TYPE_CHECKING:
    from empa_env.offline.actor import OfflineActor
    from empa_env.offline.director import OfflineDirector
    from empa_env.offline.judger import LexiconJudger

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "OfflineActor": "empa_env.offline.actor",
        "OfflineDirector": "empa_env.offline.director",
        "LexiconJudger": "empa_env.offline.judger",
    },
)

__all__ = ["LexiconJudger", "OfflineActor", "OfflineDirector"]
