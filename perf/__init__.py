"""Performance scripts that need the trainers or the scripted baselines (``baselines``), kept out of
``benchmarks`` so that it never imports ``baselines``; each prints its figures (tests never assert
timings). Run them from the repository root: ``python -m perf.perf_user`` or
``python perf/perf_user.py``. The benchmark's own scripts are in ``benchmarks/perf/``."""
