"""A judge that never answers makes no result: its episodes are invalid (kept, shown, never
ranked), the run exits non-zero, and a rerun plays them again."""

from __future__ import annotations

import sqlite3

from empa_env.cli import main

BROKEN_JUDGE = """
from empa_env.roles.base import Judger


class NeverAnswers(Judger):
    name = "never-answers"

    def judge(self, view):
        raise ConnectionError("the judge server is down")
"""


def _bench(tmp_path, judger: str, *policies: str, extra: tuple[str, ...] = ()) -> int:
    args = [
        "bench",
        "--quiet",
        "--judger",
        judger,
        "--max-turns",
        "12",
        "--out",
        str(tmp_path / "run"),
        *extra,
    ]
    for p in policies:
        args += ["--policy", p]
    return main(args)


def test_a_run_whose_judge_never_answers_is_never_ranked(tmp_path, capsys):
    judge = tmp_path / "broken_judge.py"
    judge.write_text(BROKEN_JUDGE, encoding="utf-8")
    code = _bench(tmp_path, f"python:{judge}:NeverAnswers", "scripted:advice_giver")
    err = capsys.readouterr().err.strip().splitlines()
    # every judgement fails: the episodes are invalid, and the same outcome five times in a row
    # stops the run at once with one line (nothing is ranked, the exit code says so)
    assert code == 2
    assert err[-1].startswith("error: 5 episodes in a row failed with the same error")
    assert "judgements failed" in err[-1]
    con = sqlite3.connect(tmp_path / "run" / "results.sqlite")
    rows = con.execute("SELECT invalid FROM episodes").fetchall()
    assert 5 <= len(rows) < 30 and all("judgements failed" in r[0] for r in rows)
    assert main(["report", str(tmp_path / "run"), "--quiet"]) != 0
    assert not (tmp_path / "run" / "report" / "tables" / "table9_composite.csv").exists()


#: The replay test's run: 2 policies x 6 cases; the report is built by `empa report` alone (the
#: runs' own end-of-run reports are not what this test reads).
REPLAYED = ("--limit", "6", "--no-report")


def test_invalid_episodes_are_shown_not_ranked_and_replayed(tmp_path, capsys):
    from benchmarks.runner import invalid_reason

    assert invalid_reason({"turns": 10, "judge_failures": 3}, 0.2)
    assert not invalid_reason({"turns": 10, "judge_failures": 2}, 0.2)
    run = tmp_path / "run"
    policies = ("scripted:advice_giver", "scripted:lecturer")
    assert _bench(tmp_path, "lexicon", *policies, extra=REPLAYED) == 0
    con = sqlite3.connect(run / "results.sqlite")
    # mark one model's episodes invalid, as a judge outage would
    con.execute("UPDATE episodes SET invalid = 'outage' WHERE model = 'lecturer'")
    con.commit()
    assert main(["report", str(run), "--quiet"]) == 1
    table9 = (run / "report" / "tables" / "table9_composite.csv").read_text()
    assert "advice_giver" in table9 and "lecturer" not in table9
    shown = (run / "report" / "tables" / "invalid_episodes.csv").read_text()
    assert shown.count("lecturer") == 6
    # the same command plays the invalid episodes again (and only those)
    capsys.readouterr()
    assert _bench(tmp_path, "lexicon", *policies, extra=REPLAYED) == 0
    assert "6 episodes finished (0 invalid), 6 already" in capsys.readouterr().out
    assert con.execute("SELECT COUNT(*) FROM episodes WHERE invalid != ''").fetchone()[0] == 0


def test_usage_ledgers_add_up_across_resumed_processes():
    from benchmarks.episodes import add_usage

    first = {"judger": {"requests": 10, "cost_usd": 0.5, "failures": {"auth": 1}}}
    second = {"judger": {"requests": 4, "cost_usd": 0.25, "failures": {"timeout": 2}},
              "policy:x": {"requests": 3}}  # fmt: skip
    total = add_usage(first, second)
    assert total == {
        "judger": {"requests": 14, "cost_usd": 0.75, "failures": {"auth": 1, "timeout": 2}},
        "policy:x": {"requests": 3},
    }
    assert add_usage({}, second) == second
