"""The run store under abuse: a second process on the same run directory, a corrupt file, a
read-only file, and a reply that is not valid Unicode; each ends in one clear line and nothing
already saved is lost."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import pytest

from benchmarks.store import RunStore, StoreError
from empa_env.cli import main


def _bench(out, *extra: str) -> int:
    return main(
        ["bench", "--quiet", "--no-report", "--judger", "lexicon", "--max-turns", "12",
         "--out", str(out), *extra]
    )  # fmt: skip


def test_a_second_process_on_the_same_run_is_refused(tmp_path):
    run = tmp_path / "run"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from benchmarks.store import RunStore
            store = RunStore({str(run)!r}, {{"suite": "x"}})
            print("locked", flush=True)
            time.sleep(60)
        """)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StoreError, match="in use by another empa bench process"):
            RunStore(run, {"suite": "x"})
        assert _bench(run, "--policy", "scripted:lecturer") == 2
    finally:
        holder.kill()
        holder.wait()
    RunStore(run, {"suite": "x"}).close()  # free again once the holder is gone


def test_a_corrupt_store_is_detected_before_reuse(tmp_path, capsys):
    run = tmp_path / "run"
    assert _bench(run, "--policy", "scripted:lecturer") == 0
    db = run / "results.sqlite"
    sqlite3.connect(db).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    data = bytearray(db.read_bytes())
    rng = __import__("random").Random(0)
    for start in range(4096, len(data), 4096):  # damage the b-tree header of every page
        data[start : start + 12] = bytes(rng.randrange(256) for _ in range(12))
    db.write_bytes(bytes(data))
    assert _bench(run, "--policy", "scripted:lecturer") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "results.sqlite" in err[0]


def test_a_read_only_store_ends_with_one_line_and_keeps_what_was_saved(tmp_path, capsys):
    # A full disk is simulated inside SQLite (a trigger that aborts every insert), since the
    # tests run as root, which ignores file modes.
    run = tmp_path / "run"
    assert _bench(run, "--policy", "scripted:lecturer") == 0
    con = sqlite3.connect(run / "results.sqlite")
    before = con.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
    con.execute(
        "CREATE TRIGGER full BEFORE INSERT ON episodes BEGIN SELECT RAISE(ABORT, 'disk full'); END"
    )
    con.commit()
    capsys.readouterr()
    assert _bench(run, "--policy", "scripted:lecturer", "--policy", "scripted:parrot") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error:") and "disk full" in err[-1]
    assert con.execute("SELECT COUNT(*) FROM episodes").fetchone()[0] == before == 30


def test_a_lone_surrogate_is_that_episodes_recorded_error(tmp_path, capsys):
    policy = tmp_path / "surrogate.py"
    policy.write_text('def reply(messages):\n    return "I hear you \\ud800 what happened?"\n')
    run = tmp_path / "run"
    assert (
        _bench(
            run,
            "--policy",
            f"s=python:{policy}:reply",
            "--policy",
            "scripted:lecturer",
            "--max-identical-failures",
            "0",
        )
        == 1
    )
    assert "30 failed" in capsys.readouterr().out
    con = sqlite3.connect(run / "results.sqlite")
    errors = [e for (e,) in con.execute("SELECT error FROM errors")]
    assert len(errors) == 30 and all("not valid Unicode" in e for e in errors)
    assert con.execute("SELECT COUNT(*) FROM episodes").fetchone()[0] == 30  # lecturer saved
