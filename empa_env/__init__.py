"""empa-gym's simulation: the EMPA environment, its roles, backends and cases.

Importing this package registers the Gymnasium ids (:mod:`empa_env.versions` lists them all):

* ``EMPA-v14``: episodes on the generated training pool (never the benchmark suite);
* ``EMPA-Bench-v14``: episodes on the 30-case benchmark suite ``empa30-v1``;
* ``EMPA-v0``, ``EMPA-Bench-v0``: the same pools with v0's judge (see :mod:`empa_env.versions`);
* ``EMPA-v1`` to ``EMPA-v4``, ``EMPA-Bench-v1`` to ``EMPA-Bench-v4``: registered so that old
  configurations still make an environment, with Gymnasium's warning that they are out of date
  (their judges are not kept).

``gymnasium.make("empa_env:EMPA-v14")`` imports the package for you.

The public names below (``EMPAEnv``, ``Case``, the role interfaces, ...) are loaded on first
access, so that light entry points such as ``empa --help`` do not pay for the simulation's imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from empa_env.lazy import lazy_exports
from empa_env.versions import BENCHMARK_ID, BENCHMARK_SUITE, TRAINING_ID, register_all

if TYPE_CHECKING:
    from empa_env.cases.schema import Case
    from empa_env.config import EnvConfig
    from empa_env.context import EnvContext
    from empa_env.env import EMPAEnv
    from empa_env.llm.options import LLMOptions
    from empa_env.policy import FunctionPolicy, Policy, load_policy
    from empa_env.roles import (
        Actor,
        ActorView,
        Director,
        DirectorAction,
        DirectorView,
        Judger,
        JudgeView,
        Message,
    )
    from epm.trajectory import Judgement, Trajectory

__version__ = "0.1.0"

register_all()

#: Public name -> the module that defines it.
_LAZY: dict[str, str] = {
    "Case": "empa_env.cases.schema",
    "EMPAEnv": "empa_env.env",
    "EnvConfig": "empa_env.config",
    "EnvContext": "empa_env.context",
    "LLMOptions": "empa_env.llm.options",
    "FunctionPolicy": "empa_env.policy",
    "Policy": "empa_env.policy",
    "load_policy": "empa_env.policy",
    **dict.fromkeys(
        (
            "Actor",
            "ActorView",
            "Director",
            "DirectorAction",
            "DirectorView",
            "Judger",
            "JudgeView",
            "Message",
        ),
        "empa_env.roles",
    ),  # fmt: skip
    "Judgement": "epm.trajectory",
    "Trajectory": "epm.trajectory",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "BENCHMARK_ID", "BENCHMARK_SUITE", "TRAINING_ID", "Actor", "ActorView", "Case", "Director",
    "DirectorAction", "DirectorView", "EMPAEnv", "EnvConfig", "EnvContext", "FunctionPolicy", "JudgeView", "Judgement", "Judger",
    "LLMOptions", "Message", "Policy", "Trajectory", "__version__", "load_policy",
]  # fmt: skip
