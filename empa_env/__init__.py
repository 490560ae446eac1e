"""empa-gym's simulation: the EMPA environment, its roles, backends and cases.

Importing this package registers the Gymnasium ids:

* ``EMPA-v0``: episodes on the generated training pool (never the benchmark suite);
* ``EMPA-Bench-v0``: episodes on the 30-case benchmark suite ``empa30-v1``.

``gymnasium.make("empa_env:EMPA-v0")`` imports the package for you.
"""

import gymnasium

from empa_env.cases.schema import Case
from empa_env.env import EMPAEnv
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

__all__ = [
    "BENCHMARK_SUITE", "Actor", "ActorView", "Case", "Director", "DirectorAction", "DirectorView",
    "EMPAEnv", "FunctionPolicy", "JudgeView", "Judgement", "Judger", "Message", "Policy",
    "Trajectory", "__version__", "load_policy",
]  # fmt: skip
