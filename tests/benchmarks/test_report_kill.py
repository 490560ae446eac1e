"""A report killed while its forked workers draw leaves no worker behind (they used to wait
forever, adopted by PID 1)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROC = Path("/proc")

#: Draws four figures in two forked workers, each figure taking two minutes (``{setup}``: how
#: the workers learn that their parent ended).
DRAW_SLOWLY = """
import time
from benchmarks.report.build import render_figures
{setup}

def slow():
    time.sleep(120)

render_figures([slow] * 4, workers=2)
"""


def _children(parent: int) -> list[int]:
    """Live (not zombie) processes whose parent is ``parent``, read from ``/proc``."""
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, ppid = stat.rpartition(")")[2].split()[:2]
        if int(ppid) == parent and state != "Z":
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.skipif(not (PROC / "self" / "stat").exists(), reason="reads processes from /proc")
@pytest.mark.parametrize(
    "setup",
    [
        "",  # Linux: the kernel kills them (PR_SET_PDEATHSIG)
        # elsewhere: a thread of each worker watches its parent
        "import empa_env.lifetime as L; L._ask_kernel_to_kill_on_parent_death = lambda: False",
    ],
    ids=["pdeathsig", "watching-thread"],
)
def test_sigkill_of_a_drawing_report_leaves_no_worker_running(setup):
    script = DRAW_SLOWLY.format(setup=setup)
    drawing = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
            workers = _children(drawing.pid)
        assert len(workers) == 2, "the two drawing workers never started"
        time.sleep(0.5)  # past their initializer, drawing
        os.kill(drawing.pid, signal.SIGKILL)
        drawing.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        survivors = [pid for pid in workers if _alive(pid)]
        assert not survivors, f"workers {survivors} outlived their killed parent"
    finally:
        if drawing.poll() is None:
            drawing.kill()
        for pid in workers:  # only what this test started, whatever the outcome
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
