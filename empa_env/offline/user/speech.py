"""Saying it: slot-filled lines, never the same sentence twice in an episode.

:class:`Speech` holds one message being composed: it knows every sentence the user has said so
far (cut by the case language's :meth:`~empa_env.languages.Language.sentences`), picks lines from
the case's own voice or from the slot-filled templates of ``lines.yaml`` in a seeded order, and
takes only a line none of whose sentences was said before.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from empa_env.languages import Language

_SLOT = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=1)
def lines() -> dict[str, Any]:
    """The templates of ``lines.yaml`` (loaded once)."""
    text = resources.files("empa_env.offline.user").joinpath("lines.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or data.get("version") != 1:
        raise ValueError("empa_env/offline/user/lines.yaml: expected a mapping with version: 1")
    return data


def _norm(sentence: str) -> str:
    """A sentence as compared for repeats: lower case, no punctuation, no opening word of an
    answer ("Well, my landlady comes Saturday" is "my landlady comes Saturday" said again)."""
    return _OPENING.sub("", re.sub(r"[^\w ]+", "", sentence.lower()).strip())


#: The opening words of an answer (see :func:`_norm`).
_OPENING = re.compile(r"^(?:well|yes|no|yeah)\s+")


@lru_cache(maxsize=65536)
def _norms(text: str, code: str) -> frozenset[str]:
    """The normalised sentences of one message (cached: every turn re-reads the history)."""
    from empa_env.languages import language

    return frozenset(_norm(s) for s in language(code).sentences(text))


def fill(template: str, slots: dict[str, str]) -> str | None:
    """``template`` with its slots filled (``{About}``: capitalised); None if a slot is empty."""

    def value(m: re.Match[str]) -> str:
        name = m.group(1)
        raw = slots.get(name.lower(), "")
        if not raw:
            raise KeyError(name)
        return raw[:1].upper() + raw[1:] if name[:1].isupper() else raw

    try:
        text = _SLOT.sub(value, template)
    except KeyError:
        return None
    return text[:1].upper() + text[1:]


class Speech:
    """One message in the making."""

    def __init__(self, lang: Language, said: Iterable[str], rng: random.Random) -> None:
        self.lang = lang
        self.rng = rng
        self.spoken_texts = tuple(said)
        self.spoken: set[str] = set().union(*(_norms(text, lang.code) for text in said))
        self.parts: list[str] = []

    def fresh(self, line: str) -> bool:
        """Whether no sentence of ``line`` was said before (in the episode or this message)."""
        norms = _norms(line, self.lang.code)
        if not norms or "" in norms or norms & self.spoken:
            return False
        return not any(norms & _norms(part, self.lang.code) for part in self.parts)

    def unsaid(self, line: str) -> str:
        """``line`` without the sentences this message already says (a plot line that holds the
        answer just given is not said twice)."""
        said = frozenset().union(*(_norms(part, self.lang.code) for part in self.parts))
        kept = [s for s in self.lang.sentences(line) if _norm(s) not in said]
        return " ".join(kept)

    def pick(self, pool: Sequence[str], slots: dict[str, str] | None = None) -> str | None:
        """A fresh line from ``pool`` (filled with ``slots``), in seeded order; None if none is."""
        order = list(pool)
        self.rng.shuffle(order)
        for template in order:
            line = fill(template, slots or {}) if slots is not None else template
            if line and self.fresh(line):
                return line
        return None

    def first(self, pool: Sequence[str]) -> str | None:
        """The first fresh line of ``pool`` in its own order (a story is told in order)."""
        return next((line for line in pool if self.fresh(line)), None)

    def add(self, line: str | None) -> bool:
        if line:
            self.parts.append(line)
            return True
        return False

    @property
    def length(self) -> int:
        return sum(len(p) for p in self.parts)

    def text(self) -> str:
        return " ".join(self.parts)


__all__ = ["Speech", "fill", "lines"]
