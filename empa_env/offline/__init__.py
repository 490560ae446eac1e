"""The embedded offline backend: rule-based Actor and Director, and the offline Judgers."""

from empa_env.offline.actor import OfflineActor
from empa_env.offline.director import OfflineDirector
from empa_env.offline.judger import OfflineJudger

__all__ = ["OfflineActor", "OfflineDirector", "OfflineJudger"]
