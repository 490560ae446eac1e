"""Heads: save/load round trip, deterministic training on a toy problem."""

from __future__ import annotations

import numpy as np

from empa_env.offline.semantic.heads import HEAD_NAMES, Head, Heads
from empa_env.offline.semantic.judger import HEADS_FILES
from empa_env.offline.semantic.lab.fit import fit_head


def test_shipped_heads_round_trip(tmp_path):
    heads = Heads.load(HEADS_FILES["static"])
    out = tmp_path / "h.npz"
    heads.save(out)
    again = Heads.load(out)
    assert again.meta == heads.meta
    for name in HEAD_NAMES:
        assert np.array_equal(again.heads[name].W, heads.heads[name].W)
        assert again.heads[name].thresholds == heads.heads[name].thresholds
    X = np.random.default_rng(0).normal(size=(4, heads.mean.shape[0]))
    for name, p in heads.predict(X).items():
        assert np.allclose(p, again.predict(X)[name])
        assert np.allclose(p.sum(axis=1), 1)


def test_fit_is_deterministic_and_learns():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 5))
    y = np.where(X[:, 0] > 0.7, 2, np.where(X[:, 0] > -0.2, 1, 0))
    a, b = fit_head("C_Prog", X, y, l2=0.01), fit_head("C_Prog", X, y, l2=0.01)
    assert np.array_equal(a.W, b.W)
    acc = (a.proba(X).argmax(axis=1) == y).mean()
    assert acc > 0.85


def test_levels_follow_thresholds():
    h = Head("A_Neg", np.zeros((3, 1)), np.zeros(3), thresholds=(0.4, 1.2))
    assert list(h.level(np.array([-0.1, -0.5, -1.5]))) == [0, -1, -2]
