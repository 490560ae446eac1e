"""Start-up latency of the entry points a user meets first (goal: each under one second).

    python benchmarks/perf/perf_startup.py [--repeat 5]

Runs each command in a fresh interpreter ``--repeat`` times, side by side, and prints the median
and best wall time with the machine's load average (the machines are shared: compare the rows of
one run, not figures from different runs):

* ``empa --help`` (the parser of every subcommand, built from the ``empa.commands`` entry points);
* ``gymnasium.make("EMPA-v14")`` (the generated 600-case pool is built lazily, on the first reset);
* ``gymnasium.make("EMPA-v14")`` followed by the first ``reset`` (what an RL loop waits for);
* ``python -c pass`` (the interpreter alone, the floor).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "empa --help": [sys.executable, "-m", "empa_env.cli", "--help"],
    'gym.make("EMPA-v14")': [
        sys.executable, "-c", "import gymnasium, empa_env; gymnasium.make('EMPA-v14')",
    ],
    'gym.make("EMPA-v14") + reset': [
        sys.executable, "-c",
        "import gymnasium, empa_env; gymnasium.make('EMPA-v14').reset(seed=0)",
    ],
}  # fmt: skip


def time_command(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env={**os.environ})
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (default: 5)")
    args = parser.parse_args(argv)
    if shutil.which("empa") is None:
        print("note: the `empa` script is not on PATH; timing `python -m empa_env.cli` instead")
    print(f"load average before: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.repeat):  # interleaved, so load changes hit every command alike
        for name, command in COMMANDS.items():
            times[name].append(time_command(command))
    print(f"{'command':32s} {'median s':>9s} {'best s':>8s}")
    for name, values in times.items():
        print(f"{name:32s} {statistics.median(values):9.3f} {min(values):8.3f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
