"""One typed configuration of the environment: what defines an :class:`~empa_env.env.EMPAEnv`'s
results. The benchmark configuration embeds it, and its serialisation (with the roles' and the
reward's identities resolved) is the run fingerprint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from empa_env.backends import RoleSpec
from empa_env.cases.schema import Case
from empa_env.secrets import is_secret_option
from epm.config import EPMConfig

#: ``case_pool``: a pool spec (``"generated"``, ``"generated:SEED:SIZE"``, a suite id, a folder),
#: or cases.
CasePool = str | Sequence[Case] | None


@dataclass(frozen=True)
class EnvConfig:
    """Everything that defines an environment's behaviour.

    Attributes:
        case_pool: where cases come from (see :func:`empa_env.cases.suites.resolve_pool`).
        actor, director, judger: role specs (``"offline"``, ``"lexicon"``, ``"llm:MODEL"``,
            ``"python:FILE.py:CLASS"``) or role instances.
        preset: EPM preset name (``"official"``, ``"paper"``) or an :class:`~epm.config.EPMConfig`.
        max_turns: overrides the preset's ``max_turns``.
        reward: a registered reward (``"idr"``, ``"idr_goal"``, ``"adr"``, ``"adr_goal"``,
            ``"potential"``, ...) or a reward instance.
        epm_overrides: any further EPM parameter, e.g. ``{"min_turns": 6}``.
        llm_options: options of LLM roles (``api_base``, ``cache_path``, ``timeout``, ...); keys
            that look like secrets never enter a fingerprint.
        max_reply_chars: the action space's length limit.
    """

    case_pool: CasePool = None
    actor: RoleSpec = "offline"
    director: RoleSpec = "offline"
    judger: RoleSpec = "offline"
    preset: str | EPMConfig = "official"
    max_turns: int | None = None
    reward: Any = "idr"
    epm_overrides: dict[str, Any] = field(default_factory=dict)
    llm_options: dict[str, Any] = field(default_factory=dict)
    max_reply_chars: int = 16_384

    def __post_init__(self) -> None:
        if self.max_turns is not None and self.max_turns < 1:
            raise ValueError(f"max_turns must be >= 1, got {self.max_turns}")
        if self.max_reply_chars < 1:
            raise ValueError(f"max_reply_chars must be >= 1, got {self.max_reply_chars}")

    def replace(self, **changes: Any) -> EnvConfig:
        """A copy with some fields changed (unknown names raise ``TypeError``)."""
        return replace(self, **changes)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def plain(self) -> dict[str, Any]:
        """The configuration as data (instances named by class, secrets dropped)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "llm_options":
                value = {k: v for k, v in value.items() if not is_secret_option(k)}
            elif f.name == "case_pool" and value is not None and not isinstance(value, str):
                value = [c.id for c in value]
            elif isinstance(value, EPMConfig):
                value = asdict(value)
            elif not isinstance(value, str | int | float | bool | dict | type(None)):
                value = f"<{type(value).__name__}>"
            out[f.name] = value
        return out


__all__ = ["CasePool", "EnvConfig"]
