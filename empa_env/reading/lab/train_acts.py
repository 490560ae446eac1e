"""Train the act head (``empa_env/reading/acts.npz``) from the project's labelled sentences.

    python -m empa_env.reading.lab.train_acts [--data acts.jsonl] [--out acts.npz]

``acts.jsonl`` (beside this file): help-seekers' posts and replies written for this project in a
forum and a chat register, every reply sentence labelled with its acts and whether it is specific
to the post. One logistic model per act (L2, balanced classes) over
:func:`empa_env.reading.act_head.act_features`; a fifth of the posts are held out first and each
act's held-out AUROC is printed, then the shipped model is fitted on everything.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path

import numpy as np

from empa_env.reading.act_head import ACT_HEAD_FILE, ACT_LABELS, act_features
from empa_env.reading.tokens import tokens_of

DATA_FILE = Path(__file__).with_name("acts.jsonl")


def load(path: Path = DATA_FILE) -> list[tuple[int, str, frozenset[str]]]:
    """``(post number, sentence, acts)`` of every labelled reply sentence."""
    rows = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        post = json.loads(line)
        for reply in post["replies"]:
            for s in reply:
                rows.append((i, s["text"], frozenset(s["acts"])))
    return rows


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 1.0) -> tuple[np.ndarray, float]:
    """Balanced L2 logistic regression by L-BFGS (scipy)."""
    from scipy.optimize import minimize

    pos = max(1, int(y.sum()))
    neg = max(1, len(y) - pos)
    w_row = np.where(y, len(y) / (2 * pos), len(y) / (2 * neg))

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        z = X @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        eps = 1e-9
        ll = -(w_row * (y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))).sum() / len(y)
        g = (w_row * (p - y)) / len(y)
        grad = np.concatenate([X.T @ g + l2 * w / len(y), [g.sum()]])
        return ll + 0.5 * l2 * float(w @ w) / len(y), grad

    theta = minimize(loss, np.zeros(X.shape[1] + 1), jac=True, method="L-BFGS-B",
                     options={"maxiter": 3000}).x  # fmt: skip
    return theta[:-1], float(theta[-1])


def train(data: Path = DATA_FILE, out: Path = ACT_HEAD_FILE, seed: int = 0) -> str:
    rows = load(data)
    X = np.stack([act_features(text, tokens_of(text)) for _, text, _ in rows])
    mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-6
    Xs = (X - mean) / scale
    posts = sorted({p for p, _, _ in rows})
    random.Random(seed).shuffle(posts)
    held = set(posts[: len(posts) // 5])
    test = np.array([p in held for p, _, _ in rows])
    from empa_env.offline.semantic.lab.metrics import auroc

    weights, bias = [], []
    for label in ACT_LABELS:
        y = np.array([label in acts for _, _, acts in rows], dtype=float)
        w, b = fit_logistic(Xs[~test], y[~test])
        score = auroc(y[test], Xs[test] @ w + b)
        print(f"{label:20s} {int(y.sum()):5d} sentences, held-out AUROC {score:.3f}")
        w, b = fit_logistic(Xs, y)
        weights.append(w)
        bias.append(b)
    np.savez_compressed(
        out, labels=np.array(ACT_LABELS), weights=np.array(weights, dtype=np.float32),
        bias=np.array(bias, dtype=np.float32), mean=mean.astype(np.float32),
        scale=scale.astype(np.float32),
    )  # fmt: skip
    return hashlib.sha256(out.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA_FILE)
    parser.add_argument("--out", type=Path, default=ACT_HEAD_FILE)
    args = parser.parse_args(argv)
    print(f"wrote {args.out} (sha256 {train(args.data, args.out)})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
