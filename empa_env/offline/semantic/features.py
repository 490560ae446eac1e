"""What the heads read: the user's recent words and the reply, together.

For a user vector ``u``, a reply vector ``r`` and the vectors ``s_i`` of the reply's sentences
(unit rows from one encoder, each sentence encoded on its own) the feature row is
``[r, u * r, |u - r|, cos(u, r), max_i s_i, mean_i s_i]``: what the reply says, what it shares
with the user's words element by element, where it departs from them, how close the two are
overall, and (response-only) the strongest and the average sentence, so that one warm sentence in a
long reply of advice is not averaged away. The user vector is a recency-weighted mean of the
user's last messages (the latest counts most), renormalised.

The relevance gate reads ``[u * r, |u - r|, cos(u, r), max_i cos(u, s_i), mean_i cos(u, s_i)]``
(:func:`gate_features`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

Span = tuple[int, int]

#: Weights of the user's messages, latest first (older ones are ignored).
USER_WEIGHTS: tuple[float, ...] = (1.0, 0.5, 0.25)


def feature_dim(dim: int) -> int:
    """Width of a feature row for an encoder of ``dim`` dimensions."""
    return 5 * dim + 1


def user_vector(rows: np.ndarray) -> np.ndarray:
    """Combine the embeddings of the user's messages (oldest first) into one unit vector."""
    if rows.shape[0] == 0:
        return np.zeros(rows.shape[1], dtype=np.float32)
    recent = rows[::-1][: len(USER_WEIGHTS)]
    w = np.asarray(USER_WEIGHTS[: recent.shape[0]], dtype=np.float32)[:, None]
    v = (recent * w).sum(axis=0)
    n = float(np.linalg.norm(v))
    return (v / n).astype(np.float32) if n > 0 else v.astype(np.float32)


def pair_features(user: np.ndarray, reply: np.ndarray) -> np.ndarray:
    """Feature rows for paired unit vectors ``user`` and ``reply`` (both ``(n, d)`` or ``(d,)``)."""
    u = np.atleast_2d(user).astype(np.float32)
    r = np.atleast_2d(reply).astype(np.float32)
    cos = (u * r).sum(axis=1, keepdims=True)
    return np.hstack([r, u * r, np.abs(u - r), cos]).astype(np.float32)


_SENTENCE = re.compile(r"[^.!?。！？…\n]+(?:[.!?。！？…]+|$)")


def sentence_spans(text: str) -> list[Span]:
    """Character spans of the sentences of ``text`` (stripped, never empty)."""
    spans = []
    for m in _SENTENCE.finditer(text):
        a, b = m.span()
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a and any(ch.isalnum() for ch in text[a:b]):
            spans.append((a, b))
    return spans


def sentences_of(text: str) -> list[str]:
    """The sentences of ``text`` (the stripped text itself when it has none)."""
    return [text[a:b] for a, b in sentence_spans(text)] or [text.strip() or text]


def sentence_pools(sentences: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(max, mean)`` over the sentence vectors of each reply (a list of ``(k_i, d)`` arrays)."""
    smax = np.stack([s.max(axis=0) for s in sentences]).astype(np.float32)
    smean = np.stack([s.mean(axis=0) for s in sentences]).astype(np.float32)
    return smax, smean


def reply_features(
    user: np.ndarray, reply: np.ndarray, smax: np.ndarray, smean: np.ndarray
) -> np.ndarray:
    """Full head rows: :func:`pair_features` plus the sentence max and mean pools."""
    return np.hstack([pair_features(user, reply), np.atleast_2d(smax), np.atleast_2d(smean)])


def gate_features(
    user: np.ndarray, reply: np.ndarray, sentences: Sequence[np.ndarray]
) -> np.ndarray:
    """Relevance-gate rows: how the reply and its sentences relate to the user's words."""
    u = np.atleast_2d(user).astype(np.float32)
    r = np.atleast_2d(reply).astype(np.float32)
    cos = (u * r).sum(axis=1, keepdims=True)
    sc = [s @ u[i] for i, s in enumerate(sentences)]
    smax = np.array([[float(c.max())] for c in sc], dtype=np.float32)
    smean = np.array([[float(c.mean())] for c in sc], dtype=np.float32)
    return np.hstack([u * r, np.abs(u - r), cos, smax, smean]).astype(np.float32)


def recent_user_texts(texts: Sequence[str], limit: int = len(USER_WEIGHTS)) -> list[str]:
    """The user's last ``limit`` non-empty messages, oldest first."""
    kept = [t for t in texts if t.strip()]
    return kept[-limit:]
