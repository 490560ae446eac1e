"""The one way empa-gym calls async code from sync code: a background event loop per process.

``asyncio.run`` per call would create and close a loop each time, and refuses to run inside a
running loop (a notebook, an async server). LiteLLM keeps HTTP clients and a logging worker bound
to a loop, so churning loops costs connections and warnings. One long-lived loop in a daemon thread
keeps connections alive across synchronous calls (``env.step``, ``policy.reply``), and works the
same whether or not the calling thread runs a loop of its own.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
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


def _shut_down_at_exit() -> None:
    """Close the background loop's async generators when the process exits (what
    ``asyncio.run`` does for its loop): the HTTP sessions of the direct LLM transport close
    with them, instead of being reported as unclosed."""
    loop, thread = _LOOP, _THREAD
    if loop is None or loop.is_closed() or thread is None or not thread.is_alive():
        return
    with contextlib.suppress(Exception):  # exiting: a loop that cannot shut down is left
        asyncio.run_coroutine_threadsafe(loop.shutdown_asyncgens(), loop).result(timeout=5)


atexit.register(_shut_down_at_exit)


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the background loop and wait for its result (from any other thread)."""
    loop = background_loop()
    if threading.current_thread() is _THREAD:
        coro.close()
        raise RuntimeError("run_sync() called from the background loop itself; await instead")
    return asyncio.run_coroutine_threadsafe(coro, loop).result()
