"""Training of the grounding model (``empa judge train-grounding``), apart from the runtime judge.

Contrasts from the judge's corpus (``corpus/replies.jsonl``, never EPITOME):

* **own**: each sentence of a reply that earned progress, read against the conversation it was
  written for (label 1);
* **other**: the same sentence read against another person's conversation, from another case
  (label 0): the corpus's own sentences placed in the wrong conversation;
* **off-topic**: the sentences of replies labelled as written for another conversation or as a
  story of the writer's own that is unrelated (label 0 in their own conversation) when they
  share no content word with it.

A sentence that would fit any conversation appears with both labels and so learns ``p`` near 0.5.
The model is a weighted logistic regression (L2) over
:func:`~empa_env.offline.semantic.grounding.sentence_features`; the thresholds are set on the
corpus's validation split: ``attention`` (A and P above level 1 need a sentence at or above it)
at the 95th percentile of sentences with no specific content (the band of lines that fit any
conversation), ``credit`` (C progress needs one) 0.05 above it, and ``misattributes`` (a sentence
that addresses the user with content they never raised, below it, is a C.Neg) at the 5th
percentile of own sentences with specific content. Deterministic by seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from empa_env.atomic import atomic_open, ensure_dir
from empa_env.offline.semantic.grounding import (
    FEATURES,
    GROUNDING_FILE,
    MEANING_POOL_FILE,
    content_stems,
    sentence_features,
)
from empa_env.text import sentence_texts

POOL_SIZE = 600
GOOD_FAMILIES = ("genuine", "forum")
OFF_FAMILIES = ("off_topic", "forum_off_topic")


def _encode(encoder, texts: Sequence[str]) -> dict[str, np.ndarray]:  # noqa: ANN001
    unique = list(dict.fromkeys(texts))
    out: dict[str, np.ndarray] = {}
    for i in range(0, len(unique), 512):
        chunk = unique[i : i + 512]
        for t, v in zip(chunk, encoder.encode(chunk), strict=True):
            out[t] = v
    return out


def pool_texts(rows: Sequence[dict], size: int = POOL_SIZE, seed: int = 0) -> list[str]:
    """``size`` user messages of the training split (the reference pool's messages)."""
    texts = sorted({t for r in rows if r["split"] == "train" for t in r["context"] if t.strip()})
    return random.Random(seed).sample(texts, min(size, len(texts)))


def build_pool(rows: Sequence[dict], encoder, size: int = POOL_SIZE, seed: int = 0) -> np.ndarray:  # noqa: ANN001
    """Unit vectors of ``size`` user messages of the training split (the reference pool)."""
    return encoder.encode(pool_texts(rows, size, seed)).astype(np.float16)


def write_meaning_pool(rows: Sequence[dict], out: Path, seed: int = 0) -> None:
    """The same messages as the static pool, encoded by MiniLM (the reference pool of
    :func:`empa_env.reading.reply.meaning_of`)."""
    from empa_env.offline.semantic.encoder import shared_encoder

    encoder = shared_encoder("minilm")
    ensure_dir(out.parent)
    with atomic_open(out, "wb") as fh:
        np.savez(fh, pool=build_pool(rows, encoder, seed=seed),
                 encoder_sha256=np.array(encoder.sha256))  # fmt: skip


def contrast_rows(
    rows: Sequence[dict],
    encoder,
    pool: np.ndarray,
    split: str,
    seed: int = 0,  # noqa: ANN001
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y, weight, has_C)`` for the contrasts of one corpus split."""
    rng = random.Random(f"{seed}:{split}")
    mine = [r for r in rows if r["split"] == split]
    good = [r for r in mine if r["family"] in GOOD_FAMILIES and any(
        r["levels"][f"{a}_Prog"] > 0 for a in "CAP")]  # fmt: skip
    off = [r for r in mine if r["family"] in OFF_FAMILIES]
    items: list[tuple[list[str], list[str], float, float, list[bool]]] = []
    for r in good:
        sents = sentence_texts(r["reply"])
        c_quote = r.get("evidence", {}).get("C_Prog", "")
        has_c = [bool(c_quote) and s in c_quote or (c_quote in s if c_quote else False)
                 for s in sents]  # fmt: skip
        items.append((r["context"], sents, 1.0, 1.0, has_c))
        other = rng.choice(good)
        while other["case_id"].split("-")[:2] == r["case_id"].split("-")[:2]:
            other = rng.choice(good)
        items.append((other["context"], sents, 0.0, 1.0, [False] * len(sents)))
    for r in off:
        said = {s for t in r["context"] for s in content_stems(t)}
        sents = [s for s in sentence_texts(r["reply"]) if not said.intersection(content_stems(s))]
        if sents:
            items.append((r["context"], sents, 0.0, 0.5, [False] * len(sents)))
    vec = _encode(encoder, [t for c, s, *_ in items for t in (*c, *s)])
    pool32 = pool.astype(np.float32)
    Xs, ys, ws, cs = [], [], [], []
    for context, sents, label, weight, has_c in items:
        users = [t for t in context if t.strip()]
        if not sents or not users:
            continue
        U = np.stack([vec[t] for t in users])
        S = np.stack([vec[t] for t in sents])
        Xs.append(sentence_features(sents, S, users, U, pool32))
        ys.extend([label] * len(sents))
        ws.extend([weight / len(sents)] * len(sents))
        cs.extend(has_c)
    return np.vstack(Xs), np.array(ys), np.array(ws), np.array(cs, dtype=bool)


def fit_logistic(
    X: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1.0
) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Weighted L2 logistic regression on standardised features: ``(weights, bias, mean, scale)``."""
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X - mean) / scale
    w = w / w.sum()

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        beta, b = theta[:-1], theta[-1]
        z = Z @ beta + b
        p = 1 / (1 + np.exp(-z))
        eps = 1e-12
        nll = -(w * (y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))).sum()
        g = w * (p - y)
        reg = l2 / len(y)
        grad = np.append(Z.T @ g + 2 * reg * beta, g.sum())
        return float(nll + reg * beta @ beta), grad

    res = minimize(loss, np.zeros(Z.shape[1] + 1), jac=True, method="L-BFGS-B")
    return res.x[:-1], float(res.x[-1]), mean, scale


def train_grounding(
    corpus: Path, out: Path = GROUNDING_FILE, seed: int = 0, meaning_out: Path | None = None
) -> dict:
    """Build and write the grounding model (and the MiniLM reference pool, beside it unless
    ``meaning_out`` says where); returns its validation figures."""
    from empa_env.offline.semantic.encoder import shared_encoder
    from empa_env.offline.semantic.lab.metrics import auroc

    encoder = shared_encoder("static")
    rows = [json.loads(line) for line in corpus.read_text("utf-8").splitlines() if line.strip()]
    pool = build_pool(rows, encoder, seed=seed)
    write_meaning_pool(rows, meaning_out or out.with_name(MEANING_POOL_FILE.name), seed)
    X, y, w, _ = contrast_rows(rows, encoder, pool, "train", seed)
    weights, bias, mean, scale = fit_logistic(X, y, w)
    Xv, yv, _, has_c = contrast_rows(rows, encoder, pool, "val", seed)
    p = 1 / (1 + np.exp(-(((Xv - mean) / scale) @ weights + bias)))
    generic = Xv[:, FEATURES.index("has_content")] == 0
    band = float(np.quantile(p[generic], 0.95)) if generic.any() else 0.5
    thresholds = {
        # above the band of sentences that fit any conversation
        "credit": max(0.5, band + 0.05),
        "attention": max(0.5, band),
        # below most sentences written for this conversation
        "misattributes": float(np.quantile(p[(yv == 1) & ~generic], 0.05)),
    }
    ensure_dir(out.parent)
    with atomic_open(out, "wb") as fh:
        np.savez(
            fh,
            weights=weights.astype(np.float64),
            bias=np.float64(bias),
            mean=mean.astype(np.float64),
            scale=scale.astype(np.float64),
            pool=pool,
            threshold_names=np.array(list(thresholds)),
            thresholds=np.array(list(thresholds.values())),
            features=np.array(FEATURES),
            encoder_sha256=np.array(encoder.sha256),
        )
    return {
        "train_sentences": int(len(y)),
        "val_sentences": int(len(yv)),
        "val_auroc": float(auroc(yv == 1, p)),
        "thresholds": thresholds,
        "weights": dict(zip(FEATURES, (float(x) for x in weights), strict=True)),
    }


__all__ = [
    "build_pool", "contrast_rows", "fit_logistic", "pool_texts", "train_grounding",
    "write_meaning_pool",
]  # fmt: skip
