"""``empa``: the id verifiers finds EMPA by (``vf-eval empa ...``, ``--env.taskset.id empa``).

verifiers imports a taskset or environment id as a top-level module and takes the ``Taskset``
and ``Env`` subclasses it exports; the work is in :mod:`empa_env.integrations.verifiers` (the
``verifiers`` extra).
"""

from __future__ import annotations

from empa_env.integrations.verifiers import (
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
