"""CPU and wall time of building a benchmark report (most of it: drawing the figures).

    python benchmarks/perf/perf_report.py [--repeat 3] [--cases 10]

Plays a small offline run once (scripted:attuned and scripted:lecturer, the first ``--cases``
suite cases, 2 seeds) into a temporary folder, then builds its report ``--repeat`` times in each
mode, interleaved, and prints per mode the median CPU seconds of this process and of its
children (the forked figure workers) and the median wall time, with the load average (the
machines are shared: compare the rows of one run, not figures from different runs):

* ``fork + gc.freeze`` - what ``build_report`` does on a machine with several cores;
* ``fork, no freeze`` - the same without freezing the parent's heap before forking;
* ``serial`` - every figure in this process (what one core, or a threaded caller, gets).
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", type=int, default=10)
    args = parser.parse_args()

    from benchmarks.report import build
    from benchmarks.store import RunStore

    original = build.render_figures
    modes = {
        "fork + gc.freeze": (True, None),
        "fork, no freeze": (False, None),
        "serial": (True, 1),
    }
    samples: dict[str, list[tuple[float, float, float]]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        # in another process: the run's threads (tqdm's monitor) would keep the report serial here
        subprocess.run(
            [sys.executable, "-m", "empa_env.cli", "bench", "--quiet", "--no-report",
             "--max-turns", "12", "--seeds", "2", "--limit", str(args.cases), "--out", str(run),
             "--policy", "scripted:attuned", "--policy", "scripted:lecturer"],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        with RunStore(run) as store:
            episodes, trajectories = store.episodes_frame(), store.trajectories()
        for _ in range(args.repeat):
            for mode, (freeze, workers) in modes.items():
                build.FREEZE_BEFORE_FORK = freeze
                build.render_figures = functools.partial(original, workers=workers)
                own0, children0 = _cpu()
                start = time.perf_counter()
                build.build_report(episodes, trajectories, Path(tmp) / "report")
                wall = time.perf_counter() - start
                own1, children1 = _cpu()
                samples[mode].append((own1 - own0, children1 - children0, wall))
        build.render_figures = original  # type: ignore[assignment]
        build.FREEZE_BEFORE_FORK = True
    print(f"report of 2 models x {args.cases} cases x 2 seeds, median of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"{'mode':18s} {'CPU self':>9s} {'CPU workers':>12s} {'CPU total':>10s} {'wall':>7s}")
    for mode, rows in samples.items():
        own, children, wall = (statistics.median(col) for col in zip(*rows, strict=True))
        print(f"{mode:18s} {own:8.2f}s {children:11.2f}s {own + children:9.2f}s {wall:6.2f}s")


if __name__ == "__main__":
    main()
