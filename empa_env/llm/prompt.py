"""The project's own prompts, kept as versioned YAML data files in ``empa_env/llm/prompts/``.

Each file holds ``name``, ``version``, ``system`` and ``user`` templates (``${field}``
placeholders, :class:`string.Template` syntax, so JSON braces need no escaping) and optionally
``repair`` (the re-ask after malformed output). :attr:`Prompt.version_tag` combines the declared
version with a hash of the text, so editing a prompt always changes the cache key and the run's
fingerprint, even if someone forgets to bump ``version``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

import yaml

PROMPT_DIR = Path(__file__).parent / "prompts"


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    system: str
    user: str
    repair: str = ""
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def digest(self) -> str:
        text = "\x00".join([self.system, self.user, self.repair, *(v for _, v in self.extra)])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]

    @property
    def version_tag(self) -> str:
        """``name@version#digest``: what enters the cache key and ``describe()``."""
        return f"{self.name}@{self.version}#{self.digest}"

    def render(self, part: str, **fields: Any) -> str:
        """Fill one template (``system``, ``user``, ``repair`` or an extra part)."""
        text = getattr(self, part, None) if part in ("system", "user", "repair") else None
        if text is None:
            text = dict(self.extra).get(part)
        if text is None:
            raise KeyError(f"prompt {self.name!r} has no part {part!r}")
        return Template(text).substitute({k: str(v) for k, v in fields.items()}).strip()


@cache
def load_prompt(name: str) -> Prompt:
    """Load ``<name>.yaml`` from the prompt directory."""
    path = PROMPT_DIR / f"{name}.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"no prompt named {name!r} in {PROMPT_DIR}")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("name") != name:
        raise ValueError(f"{path}: expected a mapping with name: {name}")
    version = data.get("version")
    if not isinstance(version, int) or version < 1:
        raise ValueError(f"{path}: version must be a positive integer")
    for key in ("system", "user"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ValueError(f"{path}: {key} must be a non-empty string")
    known = {"name", "version", "description", "system", "user", "repair"}
    extra = tuple(sorted((k, str(v)) for k, v in data.items() if k not in known))
    return Prompt(
        name=name,
        version=version,
        system=data["system"],
        user=data["user"],
        repair=str(data.get("repair", "")),
        extra=extra,
    )


def available_prompts() -> list[str]:
    return sorted(p.stem for p in PROMPT_DIR.glob("*.yaml"))
