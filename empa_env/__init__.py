"""empa-gym's simulation: the EMPA environment, its roles, backends and cases.

Importing this package registers the Gymnasium ids:

* ``EMPA-v0``: episodes on the generated training pool (never the benchmark suite);
* ``EMPA-Bench-v0``: episodes on the 30-case benchmark suite ``empa30-v1``.

``gymnasium.make("empa_env:EMPA-v0")`` imports the package for you.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from gymnasium.envs.registration import register, registry  # noqa: E402

__version__ = "0.1.0"

BENCHMARK_SUITE = "empa30-v1"

for _env_id, _pool in (("EMPA-v0", "generated"), ("EMPA-Bench-v0", BENCHMARK_SUITE)):
    if _env_id not in registry:
        register(id=_env_id, entry_point="empa_env.env:EMPAEnv", kwargs={"case_pool": _pool})


def __getattr__(name: str):  # lazy, so `import empa_env` stays light
    if name == "EMPAEnv":
        from empa_env.env import EMPAEnv

        return EMPAEnv
    raise AttributeError(name)


__all__ = ["BENCHMARK_SUITE", "EMPAEnv", "__version__"]
