"""empa-gym's simulation: the EMPA environment, its roles, backends and cases.

Importing this package registers the Gymnasium ids:

* ``EMPA-v0``: episodes on the generated training pool (never the benchmark suite);
* ``EMPA-Bench-v0``: episodes on the 30-case benchmark suite ``empa30-v1``.

``gymnasium.make("empa_env:EMPA-v0")`` imports the package for you.

The public names below (``EMPAEnv``, ``Case``, the role interfaces, ...) are loaded on first
access, so that light entry points such as ``empa --help`` do not pay for the simulation's imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import gymnasium

from empa_env.lazy import lazy_exports

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

BENCHMARK_SUITE = "empa30-v1"

for _env_id, _pool in (("EMPA-v0", "generated"), ("EMPA-Bench-v0", BENCHMARK_SUITE)):
    if _env_id not in gymnasium.registry:
        gymnasium.register(
            id=_env_id, entry_point="empa_env.env:EMPAEnv", kwargs={"case_pool": _pool}
        )

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
    "BENCHMARK_SUITE", "Actor", "ActorView", "Case", "Director", "DirectorAction", "DirectorView",
    "EMPAEnv", "EnvConfig", "EnvContext", "FunctionPolicy", "JudgeView", "Judgement", "Judger",
    "LLMOptions", "Message", "Policy", "Trajectory", "__version__", "load_policy",
]  # fmt: skip
