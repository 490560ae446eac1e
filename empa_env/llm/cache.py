"""A persistent response cache in SQLite: rerunning a finished benchmark makes zero LLM calls.

The key is a SHA-256 over the canonical JSON of the model, the messages, the request parameters
(temperature, tools, response format, seed, ...) and the prompt version. Credentials are never
part of the key or of a stored payload: :class:`ResponseCache` refuses parameters named like a key.

A hit is one primary-key lookup on an open connection (tens of microseconds), well under 1 ms.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: Parameter names that must never reach the cache (they would leak credentials to disk).
SECRET_PARAMS: frozenset[str] = frozenset(
    {"api_key", "api_base", "base_url", "extra_headers", "headers", "aws_secret_access_key"}
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    created REAL NOT NULL,
    payload TEXT NOT NULL
)
"""


def cache_key(
    model: str,
    messages: Sequence[Mapping[str, Any]],
    params: Mapping[str, Any],
    prompt_version: str,
) -> str:
    """The cache key: SHA-256 of ``{model, messages, params, prompt_version}`` as canonical JSON."""
    leaked = SECRET_PARAMS.intersection(params)
    if leaked:
        raise ValueError(f"credentials/endpoints must not enter the cache key: {sorted(leaked)}")
    blob = json.dumps(
        {
            "model": model,
            "messages": list(messages),
            "params": dict(params),
            "prompt_version": prompt_version,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """SQLite-backed ``key -> payload`` store (payload: a JSON-serialisable dict).

    ``path=":memory:"`` keeps it in memory. One connection per instance, guarded by a lock, so the
    cache may be shared by coroutines and threads; WAL mode lets several processes share a file.
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30.0)
        with self._lock:
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(_SCHEMA)
            self._conn.commit()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT payload FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return json.loads(row[0])

    def put(self, key: str, payload: Mapping[str, Any], model: str, prompt_version: str) -> None:
        text = json.dumps(dict(payload), ensure_ascii=False, sort_keys=True)
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, model, prompt_version, created, payload) "
                "VALUES (?, ?, ?, ?, ?)",
                (key, model, prompt_version, time.time(), text),
            )
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def clear(self) -> None:
        with self._lock:
            self._conn.execute("DELETE FROM responses")
            self._conn.commit()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SHARED: dict[str, ResponseCache] = {}
_SHARED_LOCK = threading.Lock()


def shared_cache(path: str | Path) -> ResponseCache:
    """One :class:`ResponseCache` per file per process (roles built separately share it)."""
    resolved = str(path) if str(path) == ":memory:" else str(Path(path).resolve())
    with _SHARED_LOCK:
        cache = _SHARED.get(resolved)
        if cache is None:
            cache = _SHARED[resolved] = ResponseCache(resolved)
        return cache
