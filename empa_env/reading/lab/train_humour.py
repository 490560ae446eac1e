"""Train the humour gate and head (``empa_env/reading/humour_gate.npz``, ``humour.npz``).

    python -m empa_env.reading.lab.train_humour [--data humour.jsonl] [--out humour.npz]
        [--gate-out humour_gate.npz]

``humour.jsonl`` (beside this file): a supporter's one-line jokes of many kinds (a thing given a
mind, hyperbole, mock-formal, puns, self-deprecation, ironic silver linings, ...) and sincere
lines of the same topics and lengths built to look like them (sincere metaphors, a body "asking
for rest", serious conditionals and comparisons), each ``{"text", "label": "humour" | "serious",
"mechanism"}``, written by sessions that had not read the reading's code. The labelled sentences
of the act corpus (``acts.jsonl``, humour among their acts) are added.

Two balanced L2 logistic models: the gate over :func:`~empa_env.reading.humour.gate_features`
(static, read for every sentence) and the head over
:func:`~empa_env.reading.humour.humour_features` (MiniLM, read for what the gate lets through).
Five folds give every sentence out-of-fold probabilities; the gate's threshold lets through
:data:`GATE_RECALL` of the jokes, the head's is the lowest that keeps the out-of-fold false
alarms on the act corpus' other sentences (support replies as people write them) at or below
:data:`FALSE_ALARMS` (printed with recall and the written sincere lines' false alarms, which are
built to be hard); then both are fitted on everything. The head has one hidden layer because a
logistic head, at the same false alarms, read fewer of the blind probes' jokes (dev .52 against
.71 when chosen; ``perf/perf_user.py`` prints the figure).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from empa_env.reading.humour import (
    HUMOUR_GATE_FILE,
    HUMOUR_HEAD_FILE,
    gate_features,
    humour_features,
)
from empa_env.reading.lab.train_acts import fit_logistic
from empa_env.reading.lab.train_acts import load as load_acts
from empa_env.reading.tokens import tokens_of

DATA_FILE = Path(__file__).with_name("humour.jsonl")
#: The out-of-fold share of the act corpus' other sentences (support replies as people write
#: them) the head's threshold may call jokes.
FALSE_ALARMS = 0.01
#: The out-of-fold share of jokes the gate's threshold lets through to the head.
GATE_RECALL = 0.97
GATE_L2 = 30.0
#: The head's hidden units, weight penalty and L-BFGS iterations.
UNITS = 32
HEAD_L2 = 30.0
ITERATIONS = 300
FOLDS = 5


def load(path: Path = DATA_FILE) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Texts, labels (1 for a joke) and whether each row is a written line (not the act corpus)."""
    texts, labels, written = [], [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["label"] not in ("humour", "serious"):
            raise ValueError(f"{path}: label {row['label']!r} is neither 'humour' nor 'serious'")
        texts.append(row["text"])
        labels.append(row["label"] == "humour")
        written.append(True)
    for _, text, acts in load_acts():
        texts.append(text)
        labels.append("humour" in acts)
        written.append(False)
    return texts, np.array(labels, float), np.array(written)


def _features(texts: list[str], cache_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """:func:`gate_features` and :func:`humour_features` of every text, kept in ``cache_dir``
    between runs (keyed by the texts and what the features are made of: the encoders, the meaning
    table, the lexicon and the form scores' code)."""
    from empa_env.offline.semantic.encoder import MODEL_FILES
    from empa_env.reading.lexicon import MEANINGS_SHA256, lexicon_sha256

    key = hashlib.sha256("\n".join(texts).encode())
    for part in (MODEL_FILES["minilm"][3], MODEL_FILES["static"][3], MEANINGS_SHA256,
                 lexicon_sha256()):  # fmt: skip
        key.update(part.encode())
    key.update((Path(__file__).parents[1] / "humour.py").read_bytes())
    cache = cache_dir / f"humour-features-{key.hexdigest()[:16]}.npz"
    if cache.is_file():
        with np.load(cache) as z:
            return z["gate"], z["head"]
    G = np.stack([gate_features(t, tokens_of(t)) for t in texts])
    H = np.stack([humour_features(t, tokens_of(t)) for t in texts])
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, gate=G, head=H)
    return G, H


def _probabilities(X: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(X @ w + b, -60.0, 60.0)))


def _folds(n: int, seed: int) -> np.ndarray:
    order = list(range(n))
    random.Random(seed).shuffle(order)
    fold = np.empty(n, int)
    for k, i in enumerate(order):
        fold[i] = k % FOLDS
    return fold


def fit_hidden_layer(X: np.ndarray, y: np.ndarray, units: int = UNITS, l2: float = HEAD_L2,
                     seed: int = 0) -> dict[str, np.ndarray]:  # fmt: skip
    """One hidden layer of rectified units and a logistic output, balanced classes, L2 on the
    weights, full-batch L-BFGS (scipy) from a seeded start: deterministic on one machine."""
    from scipy.optimize import minimize

    n, d = X.shape
    pos = max(1.0, float(y.sum()))
    w_row = np.where(y > 0, n / (2 * pos), n / (2 * max(1.0, n - pos)))
    rng = np.random.default_rng(seed)
    sizes = (d * units, units, units, 1)

    def unpack(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        a, b, c = np.cumsum(sizes)[:3]
        return theta[:a].reshape(d, units), theta[a:b], theta[b:c], float(theta[c])

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        W, bw, v, bv = unpack(theta)
        Z = X @ W + bw
        A = np.maximum(Z, 0.0)
        p = 1.0 / (1.0 + np.exp(-np.clip(A @ v + bv, -60.0, 60.0)))
        ll = -(w_row * (y * np.log(p + 1e-9) + (1 - y) * np.log(1 - p + 1e-9))).sum() / n
        g = w_row * (p - y) / n
        gA = np.outer(g, v) * (Z > 0)
        grad = np.concatenate([(X.T @ gA + l2 * W / n).ravel(), gA.sum(axis=0),
                               A.T @ g + l2 * v / n, [g.sum()]])  # fmt: skip
        return ll + 0.5 * l2 * float((W**2).sum() + v @ v) / n, grad

    start = np.concatenate([rng.normal(0, d**-0.5, d * units), np.zeros(units),
                            rng.normal(0, units**-0.5, units), [0.0]])  # fmt: skip
    theta = minimize(loss, start, jac=True, method="L-BFGS-B",
                     options={"maxiter": ITERATIONS}).x  # fmt: skip
    W, bw, v, bv = unpack(theta)
    return {"hidden": W.astype(np.float32), "hidden_bias": bw.astype(np.float32),
            "out": v.astype(np.float32), "out_bias": np.array(bv, dtype=np.float32)}  # fmt: skip


def _hidden_probabilities(model: dict[str, np.ndarray], X: np.ndarray) -> np.ndarray:
    units = np.maximum(X @ model["hidden"] + model["hidden_bias"], 0.0)
    return 1.0 / (1.0 + np.exp(-np.clip(units @ model["out"] + model["out_bias"], -60.0, 60.0)))


def train(data: Path = DATA_FILE, out: Path = HUMOUR_HEAD_FILE, gate_out: Path = HUMOUR_GATE_FILE,
          seed: int = 0, cache_dir: Path | None = None) -> tuple[str, str]:  # fmt: skip
    """Fit and write the gate and the head; their sha256."""
    from empa_env.offline.semantic.lab.metrics import auroc

    texts, y, written = load(data)
    G, H = _features(texts, cache_dir or Path.home() / ".cache" / "empa-gym")
    fold = _folds(len(texts), seed)
    # the gate: logistic over the static features
    g_mean, g_scale = G.mean(axis=0), G.std(axis=0) + 1e-6
    Gs = (G - g_mean) / g_scale
    pg = np.zeros(len(y))
    for f in range(FOLDS):
        w, b = fit_logistic(Gs[fold != f], y[fold != f], GATE_L2)
        pg[fold == f] = _probabilities(Gs[fold == f], w, b)
    gate_threshold = float(np.quantile(pg[y == 1], 1.0 - GATE_RECALL))
    through = pg >= gate_threshold
    # the head: one hidden layer over MiniLM and the gate's features
    h_mean, h_scale = H.mean(axis=0), H.std(axis=0) + 1e-6
    Hs = (H - h_mean) / h_scale
    ph = np.zeros(len(y))
    for f in range(FOLDS):
        ph[fold == f] = _hidden_probabilities(fit_hidden_layer(Hs[fold != f], y[fold != f], seed=seed),
                                              Hs[fold == f])  # fmt: skip
    others = ~written & (y == 0)
    sincere = written & (y == 0)
    threshold = float(np.quantile(np.where(through, ph, 0.0)[others], 1.0 - FALSE_ALARMS))
    caught = through & (ph >= threshold)
    print(f"{int(y.sum())} jokes of {len(y)} sentences ({int(written.sum())} written)")
    print(f"gate: out-of-fold AUROC {auroc(y, pg):.3f}; threshold {gate_threshold:.3f} lets through "
          f"{np.mean(through[y == 1]):.2f} of jokes, {np.mean(through[sincere]):.2f} of written "
          f"sincere lines, {np.mean(through[others]):.2f} of the act corpus' others")  # fmt: skip
    print(f"head: out-of-fold AUROC {auroc(y, ph):.3f} (written {auroc(y[written], ph[written]):.3f}); "
          f"threshold {threshold:.3f}: recall written {np.mean(caught[written & (y == 1)]):.2f}, "
          f"act corpus {np.mean(caught[~written & (y == 1)]):.2f}; false alarms written "
          f"{np.mean(caught[sincere]):.3f}, act corpus {np.mean(caught[others]):.3f}")  # fmt: skip
    w, b = fit_logistic(Gs, y, GATE_L2)
    np.savez_compressed(
        gate_out, labels=np.array(["humour"]), weights=np.array([w], dtype=np.float32),
        bias=np.array([b], dtype=np.float32), mean=g_mean.astype(np.float32),
        scale=g_scale.astype(np.float32), thresholds=np.array([gate_threshold], dtype=np.float32),
    )  # fmt: skip
    head = fit_hidden_layer(Hs, y, seed=seed)
    arrays: dict[str, Any] = {**head, "mean": h_mean.astype(np.float32),
                              "scale": h_scale.astype(np.float32),
                              "threshold": np.array(threshold, dtype=np.float32)}  # fmt: skip
    np.savez_compressed(out, **arrays)
    return (hashlib.sha256(gate_out.read_bytes()).hexdigest(),
            hashlib.sha256(out.read_bytes()).hexdigest())  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA_FILE)
    parser.add_argument("--out", type=Path, default=HUMOUR_HEAD_FILE)
    parser.add_argument("--gate-out", type=Path, default=HUMOUR_GATE_FILE)
    args = parser.parse_args(argv)
    gate, head = train(args.data, args.out, args.gate_out)
    print(f"wrote {args.gate_out} (sha256 {gate}) and {args.out} (sha256 {head})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
