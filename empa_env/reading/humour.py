"""Whether a sentence is meant as a joke, from what it means and the forms jokes take.

A supporter's joke rarely carries a marker ("haha", "kidding"): it is a thing given a mind ("the
kettle has opinions about this"), a hyperbole set as a counterfactual ("if worrying paid, you'd
be rich"), a mock offer ("I'd bake you a cake, but I'm all thumbs"), an ironic consolation ("at
least the rain is consistent"), a headline lead ("Breaking news: ..."), a comparison pushed past
sense ("slower than a queue at the post office"), a writer calling themself unreal.

Two models read a sentence, both trained by :mod:`empa_env.reading.lab.train_humour` on sentences
written for this project (jokes of many kinds against sincere lines built to look like them: a
sincere metaphor, "your body is asking for rest", a serious "if ... would", an honest "at least",
a plain reflection about a kettle) and on the act corpus. The gate, a logistic model over the act
head's static features and :func:`humour_form`'s seven form scores, is read for every sentence and
lets through nearly every joke; the head, one hidden layer over the sentence's MiniLM vector (what
it says as a whole) and the gate's features, is read only for what the gate lets through (MiniLM
is the reading's dearest step). The thresholds and what they cost are the trainer's (see its
docstring). The shipped weights (``humour_gate.npz``, ``humour.npz``) are counted in the
environment's behaviour digest; nothing is trained at run time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

from empa_env.reading.act_head import ActHead
from empa_env.reading.lexicon import lexicon, meanings
from empa_env.reading.tokens import Token

HUMOUR_HEAD_FILE = Path(__file__).with_name("humour.npz")
HUMOUR_GATE_FILE = Path(__file__).with_name("humour_gate.npz")
#: How many words after a thing a mind-word may stand and still be said of it.
_PREDICATE_SPAN = 6
_CONDITIONAL = ("would", "could", "might")
_LEADS = ("well", "honestly", "okay", "ok", "so", "hey")


def _closeness(word: str, seeds: frozenset[str]) -> float | None:
    """The word's best cosine to a seed list (None for a word the meaning table lacks)."""
    m = meanings()
    v = m.vector(word)
    if v is None:
        return None
    rows = m.seeds(seeds)
    return float((rows @ v).max()) if len(rows) else None


def _without_lead(words: list[str]) -> list[str]:
    return words[1:] if words[:1] and words[0] in _LEADS else words


def _conditional(word: str) -> bool:
    return word in _CONDITIONAL or word.endswith("'d")


def personified(tokens: Sequence[Token]) -> float:
    """How strongly a thing (nearer the thing seeds than the person seeds) is given a mind (a word
    near the mind seeds within :data:`_PREDICATE_SPAN` words after it): the product of the two
    margins at the best pair, 0 for none."""
    forms = lexicon().humour_forms
    words = [t.text for t in tokens]
    best = 0.0
    for i, t in enumerate(tokens):
        if t.closed or not t.text.isalpha():
            continue
        thing, person = _closeness(t.text, forms["thing"]), _closeness(t.text, forms["person"])
        if thing is None or person is None or thing <= person:
            continue
        for w in words[i + 1 : i + 1 + _PREDICATE_SPAN]:
            mind = _closeness(w, forms["mind"])
            if mind is not None:
                best = max(best, (thing - person) * mind)
    return best


def humour_form(text: str, tokens: Sequence[Token]) -> np.ndarray:
    """The seven form scores of one sentence: counterfactual hyperbole, mock offer, ironic
    consolation, personified thing, headline lead, comparison, unreal writer."""
    lex = lexicon()
    words = [t.text for t in tokens]
    opening = _without_lead(words)
    counterfactual = "if" in opening[:2] and any(_conditional(w) for w in words[2:])
    mock_offer = (opening[:1] == ["i'd"] or opening[:2] == ["i", "would"]) and "but" in words
    consolation = opening[:2] == ["at", "least"]
    colon = text.find(":")
    headline = 0 < colon < len(text) - 1 and len(text[:colon].split()) <= 3
    comparison = "than" in words and (
        "ever" in words[words.index("than") :]
        or any(w.endswith("er") or w in ("more", "less") for w in words[: words.index("than")])
    )
    first_person = any(w in lex.first_person for w in words)
    unreal = max(
        (c for t in tokens if not t.closed and t.text.isalpha()
         if (c := _closeness(t.text, lex.humour_forms["unreal"])) is not None),
        default=0.0,
    ) if first_person else 0.0  # fmt: skip
    return np.array(
        [counterfactual, mock_offer, consolation, personified(tokens), headline, comparison,
         unreal],
        dtype=np.float32,
    )  # fmt: skip


def gate_features(text: str, tokens: Sequence[Token]) -> np.ndarray:
    """The humour gate's row: the act head's static features and :func:`humour_form`."""
    from empa_env.reading.act_head import act_features

    return np.concatenate([act_features(text, tokens), humour_form(text, tokens)]).astype(
        np.float32
    )


def humour_features(
    text: str, tokens: Sequence[Token], gate_row: np.ndarray | None = None
) -> np.ndarray:
    """The humour head's row of one sentence: its MiniLM vector and :func:`gate_features`
    (``gate_row`` when the gate's row is already read)."""
    from empa_env.offline.semantic.encoder import shared_encoder

    vec = shared_encoder("minilm").encode([text])[0]
    row = gate_features(text, tokens) if gate_row is None else gate_row
    return np.concatenate([vec, row]).astype(np.float32)


class HumourHead:
    """The shipped humour head: one hidden layer of rectified units over the standardised
    :func:`humour_features`, a logistic output, and its decision threshold."""

    def __init__(self, path: Path = HUMOUR_HEAD_FILE) -> None:
        data = path.read_bytes()
        self.sha256 = hashlib.sha256(data).hexdigest()
        with np.load(path) as z:
            self.hidden = z["hidden"].astype(np.float32)  # (features, units)
            self.hidden_bias = z["hidden_bias"].astype(np.float32)
            self.out = z["out"].astype(np.float32)  # (units,)
            self.out_bias = float(z["out_bias"])
            self.mean = z["mean"].astype(np.float32)
            self.scale = z["scale"].astype(np.float32)
            self.threshold = float(z["threshold"])

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """The probability of a joke, one per row."""
        units = np.maximum(((rows - self.mean) / self.scale) @ self.hidden + self.hidden_bias, 0.0)
        return 1.0 / (1.0 + np.exp(-np.clip(units @ self.out + self.out_bias, -60.0, 60.0)))


@cache
def humour_gate() -> ActHead:
    """The shipped humour gate (static features; one label, with its threshold)."""
    return ActHead(HUMOUR_GATE_FILE)


@cache
def humour_head() -> HumourHead:
    """The shipped humour head (loaded once per process)."""
    return HumourHead()


def humour_probability(
    text: str, tokens: Sequence[Token], gate_row: np.ndarray | None = None
) -> float:
    """How likely the sentence is meant as a joke, by the humour head (the gate not asked)."""
    return float(humour_head().predict(humour_features(text, tokens, gate_row)[None, :])[0])


def is_joke(text: str, tokens: Sequence[Token]) -> bool:
    """Whether the sentence is read as a joke: the gate lets it through (its probability at or
    above the gate's threshold) and the head's probability reaches the head's threshold. The
    gate's row is read once and is part of the head's."""
    gate = humour_gate()
    if gate.thresholds is None:
        raise ValueError(f"the humour gate (sha256 {gate.sha256[:12]}) has no threshold")
    row = gate_features(text, tokens)
    if float(gate.predict(row[None, :])[0, 0]) < gate.thresholds[0]:
        return False
    return humour_probability(text, tokens, row) >= humour_head().threshold


__all__ = [
    "HUMOUR_GATE_FILE", "HUMOUR_HEAD_FILE", "HumourHead", "gate_features", "humour_features", "humour_form",
    "humour_gate", "humour_head", "humour_probability", "is_joke", "personified",
]  # fmt: skip
