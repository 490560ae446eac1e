"""The learned act head: how likely each act is for one sentence, from what its words mean.

A small one-vs-rest logistic model per act (:data:`ACT_LABELS`) over a sentence's features
(:func:`act_features`: its static sentence vector, the mean and the maximum of its words' meaning
vectors, and seven form flags), trained by :mod:`empa_env.reading.lab.train_acts` on sentences of
support replies written and labelled for this project (``reading/lab/acts.jsonl``: a forum and a
chat register, acts after the EPITOME framework of Sharma et al. 2020 plus advice, information,
closed questions, affirmation and humour). The shipped weights (``acts.npz``) are pinned by
sha256; nothing is trained at run time.

The rules of :mod:`empa_env.reading.acts` say what a sentence does in form; the head says how
strongly it does what it means, in wordings no rule lists. The reading keeps both.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

from empa_env.reading.lexicon import lexicon, meanings
from empa_env.reading.tokens import Token, word_set

ACT_HEAD_FILE = Path(__file__).with_name("acts.npz")
#: The harm heads' shipped weights (:mod:`empa_env.reading.lab.train_harm`): the gate over
#: :func:`act_features` (read with every sentence) and the head over :func:`harm_features`
#: (read for a sentence the gate lets through).
HARM_GATE_FILE = Path(__file__).with_name("harm_gate.npz")
HARM_HEAD_FILE = Path(__file__).with_name("harm_acts.npz")
#: The acts the head rates, in its column order.
ACT_LABELS: tuple[str, ...] = (
    "warmth", "encouragement", "solidarity", "understanding_claim", "self_disclosure",
    "reflection", "interpretation", "exploration", "affirmation", "advice", "information",
    "closed_question", "humour",
)  # fmt: skip
#: What the harm head rates, in its column order: pushes toward harm a supporter must never make
#: (:mod:`empa_env.offline.harm` turns them into findings) and contempt for the listener.
HARM_LABELS: tuple[str, ...] = (
    "isolation", "secrecy", "stop_treatment", "substances", "restrict_food",
    "self_harm_agreement", "contempt",
)  # fmt: skip
_PAST = word_set("was had did went lost were got felt used")


def act_features(text: str, tokens: Sequence[Token]) -> np.ndarray:
    """The feature row of one sentence (see the module docstring)."""
    from empa_env.offline.semantic.encoder import shared_encoder

    lex = lexicon()
    m = meanings()
    words = [t.text for t in tokens]
    content = [t.text for t in tokens if t.text.isalpha() and not t.closed]
    M, _ = m.matrix(content)
    bag = M.mean(axis=0) if len(M) else np.zeros(m.dim, np.float32)
    top = M.max(axis=0) if len(M) else np.zeros(m.dim, np.float32)
    vec = shared_encoder("static").encode([text])[0]
    flags = np.array(
        [
            any(w in lex.second_person for w in words),
            any(w in lex.first_person for w in words),
            any(w in lex.negations or w.endswith("n't") for w in words),
            text.rstrip().endswith("?"),
            len(words) / 20.0,
            words[:1] == ["i"],
            any(w in _PAST for w in words),
        ],
        dtype=np.float32,
    )
    return np.concatenate([vec, bag, top, flags]).astype(np.float32)


def harm_features(text: str, tokens: Sequence[Token]) -> np.ndarray:
    """The harm head's row of one sentence: its MiniLM sentence vector (what it means as a
    whole: a push and a warning share their words, not their meaning) and :func:`act_features`."""
    from empa_env.offline.semantic.encoder import shared_encoder

    vec = shared_encoder("minilm").encode([text])[0]
    return np.concatenate([vec, act_features(text, tokens)]).astype(np.float32)


class ActHead:
    """A shipped head over :func:`act_features` (weights, bias and standardisation per label;
    the harm head also carries each label's decision threshold)."""

    def __init__(self, path: Path = ACT_HEAD_FILE) -> None:
        data = path.read_bytes()
        self.sha256 = hashlib.sha256(data).hexdigest()
        with np.load(path) as z:
            self.labels = tuple(str(x) for x in z["labels"])
            self.weights = z["weights"].astype(np.float32)  # (acts, features)
            self.bias = z["bias"].astype(np.float32)
            self.mean = z["mean"].astype(np.float32)
            self.scale = z["scale"].astype(np.float32)
            self.thresholds = (
                z["thresholds"].astype(np.float32) if "thresholds" in z.files else None
            )

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """Probabilities, one row per sentence, one column per act."""
        z = ((rows - self.mean) / self.scale) @ self.weights.T + self.bias
        # clipped: a long reply's features can put a logit past exp's range (0 or 1 either way)
        return 1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0)))


@cache
def act_head() -> ActHead:
    """The shipped act head (loaded once per process)."""
    return ActHead()


@cache
def harm_gate() -> ActHead:
    """The shipped harm gate (loaded once per process)."""
    return ActHead(HARM_GATE_FILE)


@cache
def harm_head() -> ActHead:
    """The shipped harm head (loaded once per process)."""
    return ActHead(HARM_HEAD_FILE)


__all__ = [
    "ACT_HEAD_FILE", "ACT_LABELS", "HARM_GATE_FILE", "HARM_HEAD_FILE", "HARM_LABELS", "ActHead",
    "act_features", "act_head", "harm_features", "harm_gate", "harm_head",
]  # fmt: skip
