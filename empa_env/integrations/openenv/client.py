"""The client of an EMPA OpenEnv server: OpenEnv's ``EnvClient`` typed for EMPA.

    from empa_env.integrations.openenv import EMPAAction, EMPAEnvClient

    with EMPAEnvClient(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset(seed=0, case="empa30-001")
        while not result.done:
            result = env.step(EMPAAction(message="That sounds exhausting. What weighs most?"))
        print(result.observation.epm["EPM_Index"])

OpenEnv's own ``GenericEnvClient`` works unchanged against the same server, with plain dicts
(``env.step({"message": ...})``).
"""

from __future__ import annotations

from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult

from empa_env.integrations.openenv.models import EMPAAction, EMPAObservation, EMPAState


class EMPAEnvClient(EnvClient[EMPAAction, EMPAObservation, EMPAState]):
    """A persistent (WebSocket) session with an EMPA server; ``.sync()`` for synchronous use."""

    def _step_payload(self, action: EMPAAction) -> dict[str, Any]:
        return action.model_dump(exclude_defaults=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[EMPAObservation]:
        fields = dict(payload.get("observation") or {})
        fields.pop("metadata", None)
        observation = EMPAObservation(
            **fields,
            reward=payload.get("reward"),
            done=bool(payload.get("done", False)),
            metadata=payload.get("metadata") or {},
        )
        return StepResult(
            observation=observation,
            reward=payload.get("reward"),
            done=observation.done,
            metadata=payload.get("metadata"),
        )

    def _parse_state(self, payload: dict[str, Any]) -> EMPAState:
        return EMPAState.model_validate(payload)


__all__ = ["EMPAEnvClient"]
