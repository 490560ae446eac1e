"""``empa judge train`` reproduces the shipped heads from the shipped corpus."""

from __future__ import annotations

import json

import numpy as np
import pytest

from empa_env.cli import main
from empa_env.offline.semantic.corpus.generator import corpus_path
from empa_env.offline.semantic.heads import HEAD_NAMES, Heads
from empa_env.offline.semantic.judger import HEADS_FILES
from empa_env.offline.semantic.train import CorpusFormatError, load_records


def _same(a: Heads, b: Heads) -> None:
    assert a.meta == b.meta
    assert np.allclose(a.mean, b.mean, atol=1e-6)
    for name in HEAD_NAMES:
        assert np.allclose(a.heads[name].W, b.heads[name].W, atol=1e-6)
        assert np.allclose(a.heads[name].b, b.heads[name].b, atol=1e-6)
        assert a.heads[name].thresholds == b.heads[name].thresholds


@pytest.mark.slow
@pytest.mark.parametrize(
    "tier",
    # The MiniLM run (about five minutes of encoding) gets a worker of its own under xdist, so
    # the static run does not queue behind it (tests/conftest.py).
    ["static", pytest.param("minilm", marks=pytest.mark.xdist_group("minilm_heads"))],
)
def test_train_reproduces_the_shipped_heads(tmp_path, tier):
    out = tmp_path / f"{tier}.npz"
    args = ["judge", "train", "--data", str(corpus_path()), "--tier", tier, "--out", str(out)]
    assert main(args) == 0
    _same(Heads.load(out), Heads.load(HEADS_FILES[tier]))


def test_train_on_a_users_own_file(tmp_path, capsys):
    rows = [
        {"context": ["I lost my job."], "reply": r, "levels": {"A_Prog": a}, "split": "train"}
        for r, a in [("I'm so sorry, that must hurt.", 1), ("Get a lawyer.", 0)] * 10
    ]
    data = tmp_path / "mine.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    out = tmp_path / "mine.npz"
    assert main(["judge", "train", "--data", str(data), "--tier", "static", "--out", str(out)]) == 0
    assert Heads.load(out).meta["n_train"] == 20


def test_test_split_rows_are_never_read():
    """Training reads train and val rows only: test rows are not even encoded (a tenth of the
    shipped corpus's encoding saved) and change nothing but the data hash."""
    from empa_env.offline.semantic.encoder import load_encoder
    from empa_env.offline.semantic.train import LabelledReply, train_heads

    class Recording:  # the static encoder, noting every text it is given
        def __init__(self) -> None:
            self.inner = load_encoder("static")
            self.id, self.sha256, self.dim = self.inner.id, self.inner.sha256, self.inner.dim
            self.seen: set[str] = set()

        def encode(self, texts):  # noqa: ANN001, ANN201
            self.seen.update(texts)
            return self.inner.encode(texts)

        def encode_segments(self, text, spans):  # noqa: ANN001, ANN201
            self.seen.add(text)
            return self.inner.encode_segments(text, spans)

    levels = dict.fromkeys(HEAD_NAMES, 0)
    rows = [LabelledReply(("I lost my job.",), r, {**levels, "A_Prog": a}, split)
            for r, a in [("I'm so sorry, that must hurt.", 1), ("Get a lawyer.", 0)]
            for split in ("train", "train", "val")]  # fmt: skip
    extra = [LabelledReply(("A test context.",), "A reply kept for testing.", levels, "test")]
    for features in ("addressed", "surface"):
        plain, recording = Recording(), Recording()
        a = train_heads(rows, plain, tier="static", features=features)
        b = train_heads(rows + extra, recording, tier="static", features=features)
        assert not {"A test context.", "A reply kept for testing."} & recording.seen
        assert np.array_equal(a.mean, b.mean) and np.array_equal(a.scale, b.scale)
        for name in HEAD_NAMES:
            assert np.array_equal(a.heads[name].W, b.heads[name].W)
        assert a.meta["n_train"] == b.meta["n_train"] == 4
        assert a.meta["data_sha256"] != b.meta["data_sha256"]


def test_bad_training_file_names_the_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"context": ["x"], "reply": "y", "levels": {"A_Prog": 5}}\n', encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=r"bad.jsonl:1: levels.A_Prog"):
        load_records(bad)
