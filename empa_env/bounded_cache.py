"""A least-recently-used cache bounded in bytes, for caches keyed by text.

``functools.lru_cache`` bounds the number of entries: with unique long replies (16k characters) a
65,536-entry cache of their tokens holds gigabytes. :func:`lru_bytes` bounds the estimated size of
keys and values together (:func:`approx_size`, a cheap recursive estimate of Python objects), and
entries larger than a tenth of the budget are computed but not stored.
"""

from __future__ import annotations

import inspect
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, Generic, TypeVar

R = TypeVar("R")


def approx_size(obj: object, depth: int = 0) -> int:
    """An estimate of the bytes ``obj`` holds (containers, dataclasses and slots followed a few
    levels deep; numpy arrays by ``nbytes``)."""
    size = sys.getsizeof(obj)
    if depth > 4:
        return size
    nbytes = getattr(obj, "nbytes", None)
    if isinstance(nbytes, int):
        return size + nbytes
    if isinstance(obj, str | bytes | int | float | bool) or obj is None:
        return size
    if isinstance(obj, dict):
        return size + sum(
            approx_size(k, depth + 1) + approx_size(v, depth + 1) for k, v in obj.items()
        )
    if isinstance(obj, tuple | list | set | frozenset):
        return size + sum(approx_size(x, depth + 1) for x in obj)
    fields = getattr(obj, "__dict__", None)
    if fields is not None:
        return size + approx_size(fields, depth + 1)
    slots = getattr(type(obj), "__slots__", ())
    return size + sum(approx_size(getattr(obj, s, None), depth + 1) for s in slots)


#: Every live :class:`BytesLRU` (weakly held), so that :func:`clear_all` reaches the caches of
#: objects too (a judge's grounding readings, the guards' reply facts).
_LIVE: weakref.WeakSet[BytesLRU[Any]] = weakref.WeakSet()


def clear_all() -> int:
    """Empty every live bounded cache (a truly cold start for a measurement); returns how many."""
    caches = list(_LIVE)
    for cache in caches:
        cache.cache_clear()
    return len(caches)


def _positional_defaults(fn: Callable[..., Any]) -> tuple[int, tuple[Any, ...]]:
    """How many positional parameters ``fn`` takes and the defaults of its trailing ones."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 0, ()
    positional = [
        p for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]  # fmt: skip
    defaults = tuple(p.default for p in positional if p.default is not inspect.Parameter.empty)
    return len(positional), defaults


class BytesLRU(Generic[R]):
    """The cache behind :func:`lru_bytes` (``cache_clear()``, ``cache_info()``, ``nbytes``)."""

    def __init__(
        self,
        fn: Callable[..., R],
        max_bytes: int,
        weigh: Callable[[tuple[Any, ...], Any], int] | None = None,
    ) -> None:
        self.fn = fn
        self.max_bytes = max_bytes
        self.weigh = weigh
        self.nbytes = 0
        self._data: OrderedDict[Any, tuple[R, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self._positional, self._defaults = _positional_defaults(fn)
        _LIVE.add(self)

    def __call__(self, *args: Any) -> R:
        # ``f(text)`` and ``f(text, "en")`` are one call: a key always carries the defaults
        missing = self._positional - len(args)
        if 0 < missing <= len(self._defaults):
            args = args + self._defaults[len(self._defaults) - missing :]
        key = args
        with self._lock:
            found = self._data.get(key)
            if found is not None:
                self._data.move_to_end(key)
                self.hits += 1
                return found[0]
        value = self.fn(*args)
        weight = self.weigh(args, value) if self.weigh else approx_size(args) + approx_size(value)
        with self._lock:
            self.misses += 1
            if weight > self.max_bytes // 10 or key in self._data:
                return value
            self._data[key] = (value, weight)
            self.nbytes += weight
            while self.nbytes > self.max_bytes and self._data:
                _, (_, w) = self._data.popitem(last=False)
                self.nbytes -= w
        return value

    def __deepcopy__(self, memo: dict[int, object]) -> BytesLRU[R]:
        return self  # a cache of a pure function: copies share it

    def __getstate__(self) -> dict[str, Any]:
        # sent empty to another process
        return {"fn": self.fn, "max_bytes": self.max_bytes, "weigh": self.weigh}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["fn"], state["max_bytes"], state["weigh"])  # type: ignore[misc]

    def cache_clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.nbytes = 0

    def cache_info(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses, "entries": len(self._data),
                "bytes": self.nbytes, "max_bytes": self.max_bytes}  # fmt: skip

    def __len__(self) -> int:
        return len(self._data)


def lru_bytes(
    max_bytes: int, weigh: Callable[[tuple[Any, ...], Any], int] | None = None
) -> Callable[[Callable[..., R]], BytesLRU[R]]:
    """Decorator: cache ``fn``'s results by its (hashable) arguments within ``max_bytes``.

    ``weigh(args, value)`` estimates an entry's bytes (default :func:`approx_size` of both, which
    walks the objects: give a cheap estimate for caches on a hot path)."""

    def wrap(fn: Callable[..., R]) -> BytesLRU[R]:
        cache = BytesLRU(fn, max_bytes, weigh)
        wraps(fn)(cache)
        return cache

    return wrap


@dataclass(frozen=True)
class TextWeight:
    """A cheap ``weigh`` for caches keyed by one text whose value grows with it (a class, not a
    closure, so that an object holding such a cache pickles)."""

    per_char: int = 4
    overhead: int = 200

    def __call__(self, args: tuple[Any, ...], value: Any) -> int:
        return self.overhead + self.per_char * sum(
            len(a) for a in args if isinstance(a, str | tuple)
        )


def text_weight(per_char: int = 4, overhead: int = 200) -> TextWeight:
    """A cheap ``weigh`` for caches keyed by one text whose value grows with it."""
    return TextWeight(per_char, overhead)


__all__ = ["BytesLRU", "TextWeight", "approx_size", "clear_all", "lru_bytes", "text_weight"]
