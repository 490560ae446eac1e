"""The SQLite response cache: key semantics, persistence, no credentials."""

from __future__ import annotations

import sqlite3
import time

import pytest

from empa_env.llm.cache import ResponseCache, cache_key, shared_cache

MSGS = [{"role": "system", "content": "s"}, {"role": "user", "content": "hello"}]


def test_key_depends_on_model_messages_params_and_prompt_version():
    base = cache_key("m", MSGS, {"temperature": 0}, "judger@1#abc")
    assert base == cache_key("m", [dict(m) for m in MSGS], {"temperature": 0}, "judger@1#abc")
    variants = [
        cache_key("m2", MSGS, {"temperature": 0}, "judger@1#abc"),
        cache_key("m", MSGS[:1], {"temperature": 0}, "judger@1#abc"),
        cache_key("m", MSGS, {"temperature": 0.7}, "judger@1#abc"),
        cache_key("m", MSGS, {"temperature": 0, "seed": 1}, "judger@1#abc"),
        cache_key("m", MSGS, {"temperature": 0}, "judger@2#abc"),
        cache_key("m", MSGS, {"temperature": 0}, "judger@1#abd"),
    ]
    assert len({base, *variants}) == len(variants) + 1


def test_key_is_independent_of_param_order():
    a = cache_key("m", MSGS, {"temperature": 0, "max_tokens": 5}, "p")
    b = cache_key("m", MSGS, {"max_tokens": 5, "temperature": 0}, "p")
    assert a == b


@pytest.mark.parametrize("secret", ["api_key", "api_base", "extra_headers"])
def test_credentials_never_enter_the_key(secret):
    with pytest.raises(ValueError, match="must not enter the cache key"):
        cache_key("m", MSGS, {secret: "sk-123"}, "p")


def test_persists_across_instances(tmp_path):
    path = tmp_path / "c.sqlite"
    with ResponseCache(path) as cache:
        cache.put("k1", {"text": "hi", "prompt_tokens": 3}, "m", "p")
        assert len(cache) == 1
    with ResponseCache(path) as again:
        assert again.get("k1") == {"text": "hi", "prompt_tokens": 3}
        assert again.get("missing") is None
        assert (again.hits, again.misses) == (1, 1)
    rows = sqlite3.connect(path).execute("SELECT model, prompt_version FROM responses").fetchall()
    assert rows == [("m", "p")]


def test_shared_cache_is_one_instance_per_file(tmp_path):
    a = shared_cache(tmp_path / "x.sqlite")
    b = shared_cache(str(tmp_path / "x.sqlite"))
    assert a is b


def test_hit_cost_is_reported_not_asserted(tmp_path, capsys):
    """A hit is a primary-key lookup; the figure is printed for the report (never asserted)."""
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        for i in range(200):
            cache.put(f"k{i}", {"text": "x" * 500}, "m", "p")
        start = time.perf_counter()
        for i in range(2000):
            assert cache.get(f"k{i % 200}") is not None
        per_hit = (time.perf_counter() - start) / 2000
    print(f"cache hit: {per_hit * 1e6:.1f} us")
    assert cache.hits == 2000
