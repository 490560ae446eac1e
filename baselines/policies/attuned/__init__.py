"""The scripted ``attuned`` baseline: a small reply planner (reading, topic tracking, moves,
templates) that answers what the user just said in grammatical sentences. See
:mod:`baselines.policies.attuned.planner`."""

from baselines.policies.attuned.planner import plan_reply
from baselines.policies.attuned.reading import Reading, read_message

__all__ = ["Reading", "plan_reply", "read_message"]
