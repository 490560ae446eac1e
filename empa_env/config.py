"""One typed configuration of the environment: what defines an :class:`~empa_env.env.EMPAEnv`'s
results, as data. The benchmark configuration embeds it; :class:`~empa_env.context.EnvContext`
resolves it once into the roles, reward and EPM configuration that environments play with, and
describes them for the run fingerprint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from empa_env.cases.schema import Case
from empa_env.errors import ConfigError
from empa_env.llm.options import LLMOptions
from epm.config import EPMConfig

#: ``case_pool``: a pool spec (``"generated"``, ``"generated:SEED:SIZE"``, a suite id, a folder),
#: or cases.
CasePool = str | Sequence[Case] | None


@dataclass(frozen=True)
class EnvConfig:
    """Everything that defines an environment's behaviour, as data (role and reward instances
    are given to :class:`~empa_env.env.EMPAEnv` or :meth:`EnvContext.build
    <empa_env.context.EnvContext.build>`, never stored here).

    Attributes:
        case_pool: where cases come from (see :func:`empa_env.cases.suites.resolve_pool`).
        actor, director, judger: role specs (``"offline"``, ``"lexicon"``, ``"llm:MODEL"``,
            ``"python:FILE.py:CLASS"``); an environment given an instance records ``"<Class>"``.
        preset: EPM preset name (``"official"``, ``"paper"``) or an :class:`~epm.config.EPMConfig`.
        max_turns: overrides the preset's ``max_turns``.
        reward: a registered reward (``"idr"``, ``"idr_goal"``, ``"adr"``, ``"adr_goal"``,
            ``"potential"``, ...); an instance is recorded as ``"<Class>"``.
        epm_overrides: any further EPM parameter, e.g. ``{"min_turns": 6}``.
        llm_options: options of LLM roles, policies and NEE judges (``api_base``, ``cache_path``,
            ``timeout``, ...), a mapping or :class:`~empa_env.llm.options.LLMOptions` (a mapping is
            checked and converted); keys that look like secrets never enter a fingerprint.
        max_reply_chars: the action space's length limit.
    """

    case_pool: CasePool = None
    actor: str = "offline"
    director: str = "offline"
    judger: str = "offline"
    preset: str | EPMConfig = "official"
    max_turns: int | None = None
    reward: str = "idr"
    epm_overrides: dict[str, Any] = field(default_factory=dict)
    llm_options: LLMOptions = field(default_factory=LLMOptions)
    max_reply_chars: int = 16_384

    def __post_init__(self) -> None:
        for name in ("actor", "director", "judger", "reward"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(
                    f"EnvConfig.{name} is a spec string, got a {type(value).__name__}: give "
                    f"instances to EMPAEnv({name}=...) or EnvContext.build(config, {name}=...)"
                )
        object.__setattr__(self, "llm_options", LLMOptions.of(self.llm_options))
        if self.max_turns is not None and self.max_turns < 1:
            raise ConfigError(f"must be >= 1, got {self.max_turns}", field="max_turns")
        if self.max_reply_chars < 1:
            raise ConfigError(f"must be >= 1, got {self.max_reply_chars}", field="max_reply_chars")

    def replace(self, **changes: Any) -> EnvConfig:
        """A copy with some fields changed (unknown names raise ``TypeError``)."""
        return replace(self, **changes)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def plain(self) -> dict[str, Any]:
        """The configuration as recorded with results (cases by id, secrets dropped)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, LLMOptions):
                value = value.plain()
            elif f.name == "case_pool" and value is not None and not isinstance(value, str):
                value = [c.id for c in value]
            elif isinstance(value, EPMConfig):
                value = asdict(value)
            out[f.name] = value
        return out


__all__ = ["CasePool", "EnvConfig"]
