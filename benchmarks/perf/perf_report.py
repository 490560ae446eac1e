"""The report's share of the main job's CPU: ``empa bench --out DIR`` split into play and report.

    python benchmarks/perf/perf_report.py [--limit 30] [--reports 1] [--modes]

Runs the README's main job (every default scripted policy on the 30 suite cases, offline judge,
report included; ``--limit`` plays only the first cases) in a child process and records, around
the report step (``report_runs``: results.json, the exports, the tables, the figures, the HTML
and Markdown), the CPU time of that process *and* of its children (the forked figure workers).
It prints the CPU of the play, of the report and of the whole command side by side, with the
report's share (goal, issue 33: at most 20% of the main job's CPU) and the load average (the
machines are shared: compare figures of one run, not of different runs). It then runs the same
main job again, as a user reruns the README's command: nothing is left to play and the report's
inputs did not change, so nothing is redrawn (:mod:`benchmarks.report.digest`); its CPU is
printed beside the first.

``--reports N`` rebuilds the report of the same run N more times (in a fresh process each,
as ``empa report RUN_DIR`` does, imports excluded; its record removed first, so that every
figure is drawn again) and prints the median, so that one slow moment of a busy machine does not
decide the figure. ``--modes`` also compares, on that run, the ways
:func:`benchmarks.report.build.render_figures` can draw: forked workers and serially in one
process (what ``empa bench`` does), each with and without ``gc.freeze``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.report.digest import RECORD

#: Runs in the child: the CLI's own ``main`` with ``report_runs`` timed from the inside.
_CHILD = r"""
import json, resource, sys, time
t0 = time.process_time()
from benchmarks import cli
from empa_env import cli as entry

def cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime

marks = {}
original = cli.report_runs

def timed(*args, **kwargs):
    marks["before"], marks["wall0"] = cpu(), time.perf_counter()
    try:
        return original(*args, **kwargs)
    finally:
        marks["after"], marks["wall1"] = cpu(), time.perf_counter()

cli.report_runs = timed
wall = time.perf_counter()
try:
    code = entry.main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
marks["end"], marks["wall_end"] = cpu(), time.perf_counter()
marks["wall_start"], marks["code"] = wall, code
with open(sys.argv[1], "w") as fh:
    json.dump(marks, fh)
"""


def _child(argv: list[str], tmp: Path) -> dict:
    """Run the CLI with ``argv`` in a child, return its CPU marks (seconds)."""
    marks_path = tmp / "marks.json"
    marks_path.unlink(missing_ok=True)
    start = os.times()
    subprocess.run(
        [sys.executable, "-c", _CHILD, str(marks_path), *argv],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    end = os.times()
    marks = json.loads(marks_path.read_text())
    # the whole process as the OS counts it (interpreter start and imports included)
    marks["process_cpu"] = (end.children_user - start.children_user) + (
        end.children_system - start.children_system
    )
    return marks


def _report_cpu(marks: dict) -> tuple[float, float, float]:
    """(own, workers, wall) seconds of the report step."""
    own = marks["after"][0] - marks["before"][0]
    workers = marks["after"][1] - marks["before"][1]
    return own, workers, marks["wall1"] - marks["wall0"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--limit", type=int, default=30, help="suite cases to play (30: all)")
    parser.add_argument("--reports", type=int, default=0, help="extra report builds (median)")
    parser.add_argument("--modes", action="store_true", help="compare the figure-drawing modes")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        run = tmp / "run"
        bench = ["bench", "--quiet", "--limit", str(args.limit), "--out", str(run)]
        marks = _child(bench, tmp)
        if marks["code"] not in (0, None):
            raise SystemExit(f"the main job exited {marks['code']}")
        whole = marks["process_cpu"]
        own, workers, report_wall = _report_cpu(marks)
        report = own + workers
        play = whole - report
        wall = marks["wall_end"] - marks["wall_start"]
        print(
            f"main job: empa bench --out DIR (default policies x {args.limit} cases, offline); "
            f"load average {os.getloadavg()[0]:.2f}"
        )
        print(f"{'':28s} {'CPU':>8s} {'wall':>8s}")
        print(f"{'play (incl. start, imports)':28s} {play:7.2f}s {wall - report_wall:7.2f}s")
        print(
            f"{'report':28s} {report:7.2f}s {report_wall:7.2f}s   "
            f"(this process {own:.2f} s, figure workers {workers:.2f} s)"
        )
        print(f"{'whole command':28s} {whole:7.2f}s {wall:7.2f}s")
        print(
            f"report / whole command: {report / whole:.1%} (goal <= 20%); "
            f"report / play: {report / play:.1%}"
        )
        rerun = _child(bench, tmp)
        own_r, workers_r, wall_r = _report_cpu(rerun)
        print(
            f"the same command again (nothing to play, report unchanged): whole command "
            f"{rerun['process_cpu']:.2f} s CPU, report {own_r + workers_r:.2f} s CPU, "
            f"{wall_r:.2f} s wall (first time: {report:.2f} s CPU)"
        )
        if args.reports > 0:
            rows = []
            for _ in range(args.reports):
                (run / "report" / RECORD).unlink(missing_ok=True)  # draw everything again
                again = _child(["report", "--quiet", str(run)], tmp)
                rows.append(_report_cpu(again))
            own_m, workers_m, wall_m = (statistics.median(c) for c in zip(*rows, strict=True))
            print(
                f"report rebuilt {args.reports}x (median): CPU {own_m + workers_m:.2f} s "
                f"(this process {own_m:.2f} s, figure workers {workers_m:.2f} s), wall "
                f"{wall_m:.2f} s; / whole command {(own_m + workers_m) / whole:.1%}"
            )
        if args.modes:
            _compare_modes(run, tmp)


def _compare_modes(run: Path, tmp: Path) -> None:
    """CPU and wall of the report's figures by drawing mode, on the same run, interleaved."""
    import resource

    from benchmarks.report import build
    from benchmarks.store import RunStore

    def cpu() -> tuple[float, float]:
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime

    original = build.render_figures
    modes = {
        "fork + gc.freeze": (True, None),
        "fork, no freeze": (False, None),
        "serial + gc.freeze": (True, 1),
        "serial, no freeze": (False, 1),
    }
    with RunStore(run, read_only=True) as store:
        episodes, trajectories = store.episodes_frame(), store.trajectories()
    print(
        f"{'figures drawn':20s} {'CPU self':>9s} {'CPU workers':>12s} {'CPU total':>10s} {'wall':>7s}"
    )
    for mode, (freeze, workers) in modes.items():
        build.FREEZE_BEFORE_FORK = freeze
        build.render_figures = lambda draws, w=workers: original(draws, workers=w)  # type: ignore[assignment]
        (tmp / "modes" / RECORD).unlink(missing_ok=True)  # draw every figure, every mode
        own0, kids0 = cpu()
        start = time.perf_counter()
        build.build_report(episodes, trajectories, tmp / "modes")
        wall = time.perf_counter() - start
        own1, kids1 = cpu()
        own, kids = own1 - own0, kids1 - kids0
        print(f"{mode:20s} {own:8.2f}s {kids:11.2f}s {own + kids:9.2f}s {wall:6.2f}s")
    build.render_figures = original  # type: ignore[assignment]
    build.FREEZE_BEFORE_FORK = True


if __name__ == "__main__":
    main()
