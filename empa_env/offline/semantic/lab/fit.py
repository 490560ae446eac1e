"""Fitting the judge's heads and its relevance gate (training only: the runtime loads the fitted
weights from ``heads*.npz`` through :mod:`empa_env.offline.semantic.heads` and never imports
this room).

* :func:`fit_head`: one multinomial logistic regression with L2 by L-BFGS (deterministic);
* :func:`fit_gate`: the balanced binary logistic regression of the relevance gate;
* :func:`calibrate` / :func:`calibrate_scores`: thresholds on the expected level that maximise
  macro-F1 on the validation split.
"""

from __future__ import annotations

import numpy as np

from empa_env.offline.semantic.heads import Head, classes_of


def fit_gate(X: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """Balanced binary logistic regression with L2 by L-BFGS from zeros (deterministic)."""
    from scipy.optimize import minimize  # training only: scipy.optimize is slow to import

    n, f = X.shape
    pos = max(float(y.sum()), 1.0)
    sw = np.where(y == 1, n / (2 * pos), n / (2 * max(n - pos, 1.0)))

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:f], theta[f]
        z = X @ w + b
        nll = float((sw * (np.logaddexp(0, z) - y * z)).sum() / n)
        g = sw * (1.0 / (1.0 + np.exp(-z)) - y) / n
        return nll + 0.5 * l2 * float(w @ w), np.concatenate([X.T @ g + l2 * w, [g.sum()]])

    res = minimize(loss, np.zeros(f + 1), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return res.x[:f], float(res.x[f])


def fit_head(
    name: str,
    X: np.ndarray,
    y: np.ndarray,
    l2: float | np.ndarray,
    class_weight_power: float = 0.5,
    sample_weight: np.ndarray | None = None,
) -> Head:
    """Fit one multinomial logistic regression with L2 by L-BFGS (deterministic).

    ``X`` is standardised; ``y`` holds levels; ``l2`` is one strength or one per feature.
    ``sample_weight`` (default: all 1) says how much each row counts. Classes are re-weighted by
    ``(n / n_k) ** power`` over the weighted counts (0.5: square-root balancing) so that rare
    levels are not ignored.
    """
    from scipy.optimize import minimize  # training only: slow to import
    from scipy.special import logsumexp

    classes = classes_of(name)
    k = len(classes)
    n, f = X.shape
    Y = np.zeros((n, k))
    for j, c in enumerate(classes):
        Y[y == c, j] = 1.0
    rw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    counts = np.maximum((Y * rw[:, None]).sum(axis=0), 1.0)
    cw = (rw.sum() / (k * counts)) ** class_weight_power
    sw = (Y @ cw) * rw
    sw = sw / sw.mean()

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        W = theta[: k * f].reshape(k, f)
        b = theta[k * f :]
        logits = X @ W.T + b
        lse = logsumexp(logits, axis=1)
        nll = float((sw * (lse - (logits * Y).sum(axis=1))).sum() / n)
        P = np.exp(logits - lse[:, None])
        G = (P - Y) * sw[:, None] / n
        gW = G.T @ X + l2 * W
        gb = G.sum(axis=0)
        return nll + 0.5 * float((l2 * W * W).sum()), np.concatenate([gW.ravel(), gb])

    theta0 = np.zeros(k * f + k)
    res = minimize(loss, theta0, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    W = res.x[: k * f].reshape(k, f)
    b = res.x[k * f :]
    return Head(name, W, b)


def calibrate(head: Head, X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Thresholds on |expected level| that maximise macro-F1 on ``(X, y)`` (grid, deterministic)."""
    return calibrate_scores(head.expected(head.proba(X)), y)


def calibrate_scores(score: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Thresholds on ``|score|`` (expected levels) that maximise macro-F1 against the levels ``y``."""
    from empa_env.offline.semantic.lab.metrics import macro_f1

    score = np.abs(score)
    truth = np.abs(y)
    best = (-1.0, (0.5, 1.5))
    grid = np.round(np.arange(0.15, 1.96, 0.05), 2)
    for t1 in grid:
        for t2 in grid[grid > t1]:
            pred = np.where(score >= t2, 2, np.where(score >= t1, 1, 0))
            f1 = macro_f1(truth, pred, labels=(0, 1, 2))
            if f1 > best[0] + 1e-12:
                best = (f1, (float(t1), float(t2)))
    return best[1]


__all__ = ["calibrate", "calibrate_scores", "fit_gate", "fit_head"]
