"""A new encoder tier in one file: hashed bag-of-words vectors (``tier="hashed"``).

Importing this module registers it; an installed package would name the class in an
``empa.encoder_tiers`` entry point instead. The semantic judge needs heads trained with a tier
(``empa judge train --tier hashed --out PATH``) before it can rate with it."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from empa_env.offline.semantic.encoder import Span, encoder_tiers


class HashedEncoder:
    """Each word hashed into one of ``dim`` buckets; rows of unit length (zero for no words)."""

    id = "hashed-bow-64"
    sha256 = hashlib.sha256(id.encode()).hexdigest()
    dim = 64
    languages: tuple[str, ...] | None = None

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads

    def _row(self, text: str) -> np.ndarray:
        row = np.zeros(self.dim, np.float32)
        for word in re.findall(r"\w+", text.lower()):
            row[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        norm = float(np.linalg.norm(row))
        return row / norm if norm else row

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._row(t) for t in texts]) if texts else np.zeros((0, self.dim))

    def encode_segments(self, text: str, spans: Sequence[Span]) -> tuple[np.ndarray, np.ndarray]:
        return self._row(text), self.encode([text[a:b] for a, b in spans])

    def encode_segments_many(
        self, items: Sequence[tuple[str, Sequence[Span]]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        return [self.encode_segments(text, spans) for text, spans in items]


encoder_tiers.register("hashed", HashedEncoder, replace=True)
