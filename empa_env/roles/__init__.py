"""The three roles' interfaces and the views each role is allowed to see."""

from empa_env.roles.base import Actor, Director, Judger, PlaysLanguages
from empa_env.roles.views import (
    DIRECTOR_TOOLS,
    ActorGuidance,
    ActorPersona,
    ActorView,
    DirectorAction,
    DirectorTool,
    DirectorView,
    History,
    JudgeProfile,
    JudgeView,
    Message,
    Release,
)

__all__ = [
    "DIRECTOR_TOOLS", "Actor", "ActorGuidance", "ActorPersona", "ActorView", "Director",
    "DirectorAction", "DirectorTool", "DirectorView", "History", "JudgeProfile", "JudgeView",
    "Judger", "Message", "PlaysLanguages", "Release",
]  # fmt: skip
