"""The one way empa-gym calls async code from sync code: a background event loop per process.

``asyncio.run`` per call would create and close a loop each time, and refuses to run inside a
running loop (a notebook, an async server). LiteLLM keeps HTTP clients and a logging worker bound
to a loop, so churning loops costs connections and warnings. One long-lived loop in a daemon thread
keeps connections alive across synchronous calls (``env.step``, ``policy.reply``), and works the
same whether or not the calling thread runs a loop of its own.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_LOOP: asyncio.AbstractEventLoop | None = None
_THREAD: threading.Thread | None = None
_LOCK = threading.Lock()


def background_loop() -> asyncio.AbstractEventLoop:
    """The process's background loop (started on first use, restarted after a fork)."""
    global _LOOP, _THREAD
    with _LOCK:
        if _LOOP is None or _LOOP.is_closed() or _THREAD is None or not _THREAD.is_alive():
            _LOOP = asyncio.new_event_loop()
            _THREAD = threading.Thread(target=_LOOP.run_forever, name="empa-sync-loop", daemon=True)
            _THREAD.start()
        return _LOOP


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the background loop and wait for its result (from any other thread)."""
    loop = background_loop()
    if threading.current_thread() is _THREAD:
        coro.close()
        raise RuntimeError("run_sync() called from the background loop itself; await instead")
    return asyncio.run_coroutine_threadsafe(coro, loop).result()
