"""The encoders: pinned files, clear errors, unit vectors, a bounded cache."""

from __future__ import annotations

import numpy as np
import pytest

from empa_env.offline.semantic import encoder as enc


def test_sha256_mismatch_is_a_clear_error():
    with pytest.raises(enc.ModelFileError) as err:
        enc.locate_model_file("static", expected_sha256="0" * 64)
    message = str(err.value)
    assert "sha256 mismatch" in message and "pip install" in message and "wordllama" in message


def test_missing_package_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(
        enc.MODEL_FILES, "ghost", ("ghost-model==9.9", "no_such_pkg_xyz", "m.onnx", "0" * 64)
    )
    with pytest.raises(enc.ModelFileError, match=r"pip install 'ghost-model==9.9'"):
        enc.locate_model_file("ghost")


def test_loader_leaves_the_environment_as_it_was(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    enc.load_encoder("static")
    import os

    assert "HF_HUB_OFFLINE" not in os.environ


@pytest.mark.parametrize("tier", ["static", "minilm"])
def test_unit_vectors_and_zero_for_empty(tier):
    e = enc.load_encoder(tier)
    rows = e.encode(["I lost my job today.", "", "The weather is nice."])
    assert rows.shape == (3, e.dim) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows[[0, 2]], axis=1), 1, atol=1e-4)
    assert not rows[1].any()
    text = "I'm sorry. You lost the job you loved."
    whole, parts = e.encode_segments(text, [(0, 10), (11, len(text))])
    assert np.allclose(whole, e.encode([text])[0], atol=1e-4)
    assert parts.shape == (2, e.dim)


def test_cache_is_bounded_lru_and_returns_the_same_rows():
    e = enc.load_encoder("static", cache_size=3)
    first = e.encode(["a b", "c d", "e f"]).copy()
    assert e.misses == 3 and len(e) == 3
    assert np.array_equal(e.encode(["a b"])[0], first[0]) and e.hits == 1
    e.encode(["g h"])  # evicts the least recently used ("c d")
    assert len(e) == 3
    e.encode(["c d"])
    assert e.misses == 5


def test_a_deep_copy_of_an_environment_shares_its_loaded_encoder():
    """The encoder never changes once loaded, so copies (score_candidates plays each candidate on
    one) share it instead of rebuilding the tokenizer; a cache around it is still copied."""
    import copy

    from empa_env.env import EMPAEnv

    cached = enc.load_encoder("static")  # the loaded model inside a cache, as the judge holds it
    assert isinstance(cached, enc.CachedEncoder)
    static = cached.inner
    assert copy.deepcopy(static) is static
    twin = copy.deepcopy(cached)
    assert twin is not cached and twin.inner is static and twin._rows is not cached._rows

    env = EMPAEnv("empa30-v1")
    env.reset(seed=0, options={"case": "empa30-001"})
    copy_of_env = copy.deepcopy(env)
    reply = "That sounds hard. What happened next?"
    *_, a = env.step(reply)
    *_, b = copy_of_env.step(reply)
    assert a["levels"] == b["levels"] and a["epm"] == b["epm"]

    mine, theirs = env.roles.judger.encoder, copy_of_env.roles.judger.encoder
    assert isinstance(mine, enc.CachedEncoder) and theirs.inner is mine.inner
