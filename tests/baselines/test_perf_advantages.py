"""The advantages benchmark script runs and reports every estimator (no timing assertions)."""

from __future__ import annotations

from baselines.advantages import estimators
from perf.perf_advantages import main, time_estimators


def test_time_estimators_reports_every_estimator():
    out = time_estimators(b=2, k=2, t=5, number=2, repeat=2)
    assert set(out) == set(estimators.names())
    assert all(median > 0 and best > 0 and best <= median for median, best in out.values())


def test_main_prints_a_table(capsys):
    assert main(["--b", "2", "--k", "2", "--t", "4", "--number", "1", "--repeat", "1"]) == 0
    text = capsys.readouterr().out
    assert "B=2 x K=2 x T=4" in text and all(name in text for name in estimators.names())
