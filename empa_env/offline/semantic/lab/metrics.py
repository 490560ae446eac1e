"""Plain-numpy metrics for judges against human levels (no scikit-learn dependency)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import rankdata, spearmanr


def macro_f1(y: np.ndarray, pred: np.ndarray, labels: Sequence[int] = (0, 1, 2)) -> float:
    """Unweighted mean of per-label F1 over ``labels`` (labels absent from both count as 0)."""
    f1s = []
    for c in labels:
        tp = float(np.sum((pred == c) & (y == c)))
        fp = float(np.sum((pred == c) & (y != c)))
        fn = float(np.sum((pred != c) & (y == c)))
        denom = 2 * tp + fp + fn
        f1s.append(2 * tp / denom if denom else 0.0)
    return float(np.mean(f1s))


def auroc(positive: np.ndarray, score: np.ndarray) -> float:
    """Area under the ROC curve (Mann-Whitney, ties averaged); NaN without both classes."""
    positive = np.asarray(positive, dtype=bool)
    n_pos = int(positive.sum())
    n_neg = len(positive) - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(score)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    if np.all(a == a[0]) or np.all(b == b[0]):
        return float("nan")
    return float(spearmanr(a, b).statistic)


def majority_accuracy(y: np.ndarray) -> float:
    values, counts = np.unique(y, return_counts=True)
    return float(counts.max() / len(y))
