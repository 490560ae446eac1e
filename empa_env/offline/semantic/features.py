"""What the heads read: the user's recent words and the reply, together.

For a user vector ``u`` and a reply vector ``r`` (unit rows from one encoder) the feature row is
``[r, u * r, |u - r|, cos(u, r)]``: what the reply says, what it shares with the user's words
element by element, where it departs from them, and how close the two are overall. The user vector
is a recency-weighted mean of the user's last messages (the latest counts most), renormalised.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Weights of the user's messages, latest first (older ones are ignored).
USER_WEIGHTS: tuple[float, ...] = (1.0, 0.5, 0.25)


def feature_dim(dim: int) -> int:
    """Width of a feature row for an encoder of ``dim`` dimensions."""
    return 3 * dim + 1


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


def recent_user_texts(texts: Sequence[str], limit: int = len(USER_WEIGHTS)) -> list[str]:
    """The user's last ``limit`` non-empty messages, oldest first."""
    kept = [t for t in texts if t.strip()]
    return kept[-limit:]
