"""EMPA as an OpenEnv environment (``pip install "empa-gym[openenv]"``).

* :mod:`.models`: the action (:class:`EMPAAction`, the policy's reply), the observation
  (:class:`EMPAObservation`: the user's message, the step's ``info``; ``reward`` is IDR; the last
  step's ``info["epm"]`` holds the EPM metrics) and the state (:class:`EMPAState`: the
  conversation and its per-turn rewards);
* :mod:`.environment`: :class:`EMPAEnvironment`, an ``openenv.core.Environment`` over
  ``gymnasium.make("EMPA-...")``;
* :mod:`.server`: the server, one command:
  ``python -m empa_env.integrations.openenv.server --env EMPA-Bench-v14 --port 8000``;
* :mod:`.client`: :class:`EMPAEnvClient`, OpenEnv's ``EnvClient`` typed for EMPA
  (OpenEnv's own ``GenericEnvClient`` works against the server unchanged too);
* :mod:`.served`: :class:`ServedEMPAEnv`, a ``gymnasium.Env`` over a server (code written for
  the in-process environment, TRL's environment path included, plays a served one unchanged).

The names below load on first access, so importing this package needs no OpenEnv.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from empa_env.lazy import lazy_exports

if TYPE_CHECKING:
    from empa_env.integrations.openenv.client import EMPAEnvClient
    from empa_env.integrations.openenv.environment import EMPAEnvironment
    from empa_env.integrations.openenv.models import EMPAAction, EMPAObservation, EMPAState
    from empa_env.integrations.openenv.served import ServedEMPAEnv

_LAZY: dict[str, str] = {
    "EMPAAction": "empa_env.integrations.openenv.models",
    "EMPAObservation": "empa_env.integrations.openenv.models",
    "EMPAState": "empa_env.integrations.openenv.models",
    "EMPAEnvironment": "empa_env.integrations.openenv.environment",
    "EMPAEnvClient": "empa_env.integrations.openenv.client",
    "ServedEMPAEnv": "empa_env.integrations.openenv.served",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "EMPAAction", "EMPAEnvClient", "EMPAEnvironment", "EMPAObservation", "EMPAState",
    "ServedEMPAEnv",
]  # fmt: skip
