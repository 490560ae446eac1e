"""Worker processes that end with the process that started them, however it ends.

A forked ``multiprocessing`` pool's workers wait for tasks on pipes whose write ends they inherited
themselves: when their parent is killed (``SIGKILL``, the OOM killer) nothing tells them, and they
wait forever, adopted by PID 1. :func:`die_with_parent` is a pool ``initializer`` that ties a
worker's life to its parent's:

    pool = multiprocessing.get_context("fork").Pool(
        workers, initializer=die_with_parent, initargs=(os.getpid(),)
    )

On Linux the kernel sends the worker ``SIGKILL`` when its parent ends
(``prctl(PR_SET_PDEATHSIG)``); elsewhere a daemon thread of the worker checks its parent every
half second and ends the worker when it has gone.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

#: ``prctl`` option: the signal this process gets when its parent ends (``<linux/prctl.h>``).
PR_SET_PDEATHSIG = 1
#: How often a worker without ``prctl`` checks that its parent is still there (seconds).
PARENT_CHECK_S = 0.5


def die_with_parent(parent: int) -> None:
    """End this process when ``parent`` (its parent's PID, read *before* the fork) ends.

    Meant as a pool ``initializer``; a parent that ended before the call ends the worker at once.
    """
    if not _ask_kernel_to_kill_on_parent_death():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # ended between the fork and the request above
        os._exit(1)


def _ask_kernel_to_kill_on_parent_death() -> bool:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux; ``False`` where it is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(1)


__all__ = ["PARENT_CHECK_S", "PR_SET_PDEATHSIG", "die_with_parent"]
