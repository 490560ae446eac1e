"""``empa``: the id verifiers finds EMPA by (``vf-eval empa ...``, ``--env.taskset.id empa``).

verifiers imports a taskset or environment id as a top-level module and takes the ``Taskset``
and ``Env`` subclasses it exports; the work is in :mod:`empa_env.integrations.verifiers` (the
``verifiers`` extra).
"""

from __future__ import annotations

import importlib.util

if importlib.util.find_spec("verifiers") is None:
    raise ImportError("the empa verifiers environment needs: pip install 'empa-gym[verifiers]'")

from empa_env.integrations.verifiers import (  # noqa: E402
    EMPAData,
    EMPAEnvConfig,
    EMPATask,
    EMPATaskset,
    EMPATasksetConfig,
    EMPAVerifiersEnv,
    load_environment,
)

__all__ = [
    "EMPAData", "EMPAEnvConfig", "EMPATask", "EMPATaskset", "EMPATasksetConfig",
    "EMPAVerifiersEnv", "load_environment",
]  # fmt: skip
