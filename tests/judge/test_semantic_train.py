"""``empa judge train`` reproduces the shipped heads from the shipped corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from empa_env.cli import main
from empa_env.offline.semantic.heads import HEAD_NAMES, Heads
from empa_env.offline.semantic.judger import HEADS_FILES
from empa_env.offline.semantic.lab.corpus.generator import corpus_path
from empa_env.offline.semantic.lab.train import CorpusFormatError, load_records, subsample


def _same(a: Heads, b: Heads) -> None:
    assert a.meta == b.meta
    assert np.allclose(a.mean, b.mean, atol=1e-6)
    for name in HEAD_NAMES:
        assert np.allclose(a.heads[name].W, b.heads[name].W, atol=1e-6)
        assert np.allclose(a.heads[name].b, b.heads[name].b, atol=1e-6)
        assert a.heads[name].thresholds == b.heads[name].thresholds


#: The MiniLM tier's full reproduction encodes ~20,000 texts (about five minutes of one core):
#: a release check, run with ``EMPA_FULL_REPRODUCTION=1`` before shipping new MiniLM heads. Every
#: run reproduces its training on a fixed sixteenth of the corpus instead (below), and checks that
#: the shipped file was trained on today's corpus with today's encoder and settings.
FULL_MINILM = os.environ.get("EMPA_FULL_REPRODUCTION") == "1"
SUBSAMPLE = 16
#: ``empa judge train --data <shipped corpus> --tier minilm --subsample 16 --out <this file>``
MINILM_SUBSAMPLE_HEADS = Path(__file__).parent / "data" / "heads-minilm-subsample16.npz"


@pytest.mark.slow
@pytest.mark.parametrize(
    "tier",
    [
        "static",  # the default judge's heads: reproduced whole on every run (about a minute)
        pytest.param(
            "minilm",
            marks=[
                pytest.mark.xdist_group("minilm_heads"),
                pytest.mark.skipif(
                    not FULL_MINILM,
                    reason="full MiniLM reproduction (5 min): set EMPA_FULL_REPRODUCTION=1",
                ),
            ],
        ),
    ],
)
def test_train_reproduces_the_shipped_heads(tmp_path, tier):
    out = tmp_path / f"{tier}.npz"
    args = ["judge", "train", "--data", str(corpus_path()), "--tier", tier, "--out", str(out)]
    assert main(args) == 0
    _same(Heads.load(out), Heads.load(HEADS_FILES[tier]))


@pytest.mark.slow
@pytest.mark.xdist_group("minilm_heads")  # beside the static reproduction, not behind it
def test_minilm_training_reproduces_on_a_sixteenth_of_the_corpus(tmp_path):
    """The MiniLM tier's whole training path (encoder, surface features, fits, calibration) on
    the replies whose text hashes to 0 mod 16 (about 1,100 rows, 2,100 texts), against the heads
    that command wrote when the shipped heads were trained: any change to the encoder's outputs,
    the features or the fitting changes them."""
    out = tmp_path / "sub.npz"
    args = ["judge", "train", "--data", str(corpus_path()), "--tier", "minilm",
            "--subsample", str(SUBSAMPLE), "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    got, recorded = Heads.load(out), Heads.load(MINILM_SUBSAMPLE_HEADS)
    _same(got, recorded)
    assert recorded.meta["n_train"] + recorded.meta["n_val"] > 1000


def test_shipped_minilm_heads_were_trained_on_todays_corpus_and_encoder():
    """What the full reproduction would find first if the corpus, the encoder or the tier's
    settings changed without retraining the shipped MiniLM heads (cheap: no encoding)."""
    from empa_env.offline.semantic.encoder import load_encoder
    from empa_env.offline.semantic.lab.train import (
        DEFAULT_L2,
        FEATURE_SETS,
        TIER_FEATURES,
        TIER_PARTS,
        data_digest,
    )

    meta = Heads.load(HEADS_FILES["minilm"]).meta
    assert meta["data_sha256"] == data_digest(load_records(corpus_path()))
    encoder = load_encoder("minilm")
    assert (meta["encoder_id"], meta["encoder_sha256"]) == (encoder.id, encoder.sha256)
    assert meta["encoder_tier"] == "minilm" and meta["l2"] == DEFAULT_L2
    assert meta["features"] == FEATURE_SETS[TIER_FEATURES["minilm"]]
    assert meta["parts"] == TIER_PARTS["minilm"]
    sub = Heads.load(MINILM_SUBSAMPLE_HEADS).meta
    assert {k: sub[k] for k in ("encoder_sha256", "features", "parts", "l2")} == {
        k: meta[k] for k in ("encoder_sha256", "features", "parts", "l2")
    }


def test_subsample_is_stable_and_rejects_nonsense(tmp_path, capsys):
    records = load_records(corpus_path())
    sub = subsample(records, SUBSAMPLE)
    assert subsample(list(reversed(records)), SUBSAMPLE) == list(reversed(sub))
    assert 0.04 < len(sub) / len(records) < 0.09
    assert {r.split for r in sub} == {r.split for r in records}
    assert subsample(records, 1) == records
    args = ["judge", "train", "--data", str(corpus_path()), "--subsample", "0",
            "--out", str(tmp_path / "x.npz")]  # fmt: skip
    assert main(args) == 2
    assert "error: --subsample must be at least 1" in capsys.readouterr().err


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
    from empa_env.offline.semantic.lab.train import LabelledReply, train_heads

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
