"""LiteLLM's own log records reach the terminal once per message, on one line, without a
traceback: under a low open-file limit, 200 concurrent LLM episodes once printed 6,576 lines."""

from __future__ import annotations

import io
import logging

from empa_env.llm.litellm_setup import import_litellm


def test_litellm_errors_are_one_line_each_without_tracebacks():
    import_litellm()
    logger = logging.getLogger("LiteLLM")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    try:
        for i in range(200):
            try:
                raise OSError(24, "Too many open files", f"/site-packages/x{i % 3}.py")
            except OSError as exc:
                logger.error("Error creating standard logging object - %s", exc, exc_info=True)
        logger.error("another trouble\nwith a second line")
    finally:
        logger.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert "Traceback" not in stream.getvalue()
    assert len(lines) == 2, lines  # each distinct message once (numbers in it do not count)
    assert "Too many open files" in lines[0] and lines[1].startswith("another trouble")


def test_empa_bench_raises_the_soft_open_file_limit():
    import resource

    from benchmarks.cli import raise_open_file_limit

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = min(64, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    try:
        warning = raise_open_file_limit(minimum=1)
        now, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        assert warning is None and now == (hard if hard != resource.RLIM_INFINITY else now)
        assert now >= low
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
