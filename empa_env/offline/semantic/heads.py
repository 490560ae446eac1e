"""Small heads: one multinomial logistic regression (L2) per axis and direction, in numpy/scipy.

Six heads, ``C_Prog``, ``A_Prog``, ``P_Prog`` over levels ``(0, 1, 2)`` and ``C_Neg``, ``A_Neg``,
``P_Neg`` over ``(0, -1, -2)``. Features are standardised with the training mean and scale stored
next to the weights. :meth:`Heads.predict` gives per-head level probabilities; the *expected*
level (``sum_k p_k * level_k``) is the continuous score, and calibrated thresholds on it (chosen
on the validation split, stored in the file) turn it into a level.

Everything is saved in one ``.npz`` (no pickle) with a JSON ``meta`` string.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HEAD_NAMES: tuple[str, ...] = ("C_Prog", "A_Prog", "P_Prog", "C_Neg", "A_Neg", "P_Neg")
PROG_CLASSES: tuple[int, ...] = (0, 1, 2)
NEG_CLASSES: tuple[int, ...] = (0, -1, -2)


def classes_of(name: str) -> tuple[int, ...]:
    return PROG_CLASSES if name.endswith("Prog") else NEG_CLASSES


@dataclass
class Head:
    """One multinomial logistic head: ``softmax(X @ W.T + b)`` over :func:`classes_of` levels."""

    name: str
    W: np.ndarray  # (k, f)
    b: np.ndarray  # (k,)
    #: Thresholds on |expected level| for levels 1 and 2.
    thresholds: tuple[float, float] = (0.5, 1.5)

    @property
    def classes(self) -> tuple[int, ...]:
        return classes_of(self.name)

    def proba(self, X: np.ndarray) -> np.ndarray:
        return _softmax(X @ self.W.T + self.b)

    def expected(self, P: np.ndarray) -> np.ndarray:
        """Expected level (signed: negative for Neg heads)."""
        return P @ np.asarray(self.classes, dtype=np.float64)

    def level(self, score: np.ndarray) -> np.ndarray:
        """Levels from expected-level scores through the calibrated thresholds."""
        mag = np.abs(score)
        t1, t2 = self.thresholds
        lv = np.where(mag >= t2, 2, np.where(mag >= t1, 1, 0))
        return lv if self.name.endswith("Prog") else -lv


@dataclass
class Gate:
    """The relevance gate: a binary logistic regression giving P(the reply is about something else).

    Trained on the corpus's off-topic pairs (a genuine reply written for another person) against
    replies that earn progress; at or above ``threshold`` every progress level is capped at 0.
    """

    W: np.ndarray  # (f,)
    b: float
    mean: np.ndarray
    scale: np.ndarray
    threshold: float

    def proba(self, X: np.ndarray) -> np.ndarray:
        Z = (np.atleast_2d(X).astype(np.float64) - self.mean) / self.scale
        return np.asarray(1.0 / (1.0 + np.exp(-(Z @ self.W + self.b))))


@dataclass
class Heads:
    """The six heads plus the feature standardisation and metadata (encoder id, data hash, ...)."""

    heads: dict[str, Head]
    mean: np.ndarray
    scale: np.ndarray
    meta: dict = field(default_factory=dict)
    gate: Gate | None = None

    def standardise(self, X: np.ndarray) -> np.ndarray:
        return (X - self.mean) / self.scale

    def predict(self, X: np.ndarray) -> dict[str, np.ndarray]:
        """Per head, ``(n, 3)`` level probabilities in :func:`classes_of` order."""
        Z = self.standardise(np.atleast_2d(X).astype(np.float64))
        return {name: h.proba(Z) for name, h in self.heads.items()}

    def save(self, path: Path) -> None:
        arrays: dict[str, np.ndarray] = {"mean": self.mean, "scale": self.scale}
        for name, h in self.heads.items():
            arrays[f"{name}.W"] = h.W.astype(np.float32)
            arrays[f"{name}.b"] = h.b.astype(np.float32)
            arrays[f"{name}.thresholds"] = np.asarray(h.thresholds, dtype=np.float64)
        if self.gate is not None:
            g = self.gate
            arrays["gate.W"] = g.W.astype(np.float32)
            arrays["gate.b"] = np.asarray([g.b], dtype=np.float64)
            arrays["gate.mean"], arrays["gate.scale"] = g.mean, g.scale
            arrays["gate.threshold"] = np.asarray([g.threshold], dtype=np.float64)
        arrays["meta"] = np.asarray(json.dumps(self.meta, sort_keys=True))
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path) -> Heads:
        with np.load(path, allow_pickle=False) as z:
            heads = {
                name: Head(
                    name,
                    z[f"{name}.W"].astype(np.float64),
                    z[f"{name}.b"].astype(np.float64),
                    tuple(float(t) for t in z[f"{name}.thresholds"]),  # type: ignore[arg-type]
                )
                for name in HEAD_NAMES
            }
            gate = None
            if "gate.W" in z.files:
                gate = Gate(z["gate.W"].astype(np.float64), float(z["gate.b"][0]),
                            z["gate.mean"].astype(np.float64), z["gate.scale"].astype(np.float64),
                            float(z["gate.threshold"][0]))  # fmt: skip
            return cls(heads, z["mean"].astype(np.float64), z["scale"].astype(np.float64),
                       json.loads(str(z["meta"])), gate)  # fmt: skip


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax, as scipy.special.softmax computes it (max-shifted), without scipy."""
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)
