"""What a run writes and shows, under faults and hostile text: every output file is replaced
atomically (a kill or a full disk leaves the previous version, and ends in one ``error:`` line);
text reaches terminals, Markdown and CSV escaped; a damaged stored row is one error line; a
read-only run directory can be shown, reported and exported."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from empa_env.atomic import OutputError, atomic_open, atomic_write, sweep_abandoned
from empa_env.cli import main

HOSTILE_POLICY = """
def reply(messages):
    return "\\x1b[2J\\x1b]0;pwned\\x07That sounds hard.\\rWhat happened next?"
"""
FORMULA = "@SUM(1+1)*cmd"
HTML_NAME = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def _run(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("outputs")
    policy = base / "hostile.py"
    policy.write_text(HOSTILE_POLICY, encoding="utf-8")
    run = base / "run"
    code = main(
        ["bench", "--quiet", "--no-report", "--judger", "lexicon", "--max-turns", "12",
         "--limit", "2", "--out", str(run), "--policy", f"{FORMULA}=python:{policy}:reply",
         "--policy", f"{HTML_NAME}=scripted:advice_giver"]
    )  # fmt: skip
    assert code in (0, 1)
    return run


@pytest.fixture
def run(_run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(_run, copy)
    return copy


# --- atomic writes ------------------------------------------------------------------------------
def test_a_failed_write_leaves_the_previous_version_and_no_temporary_file(tmp_path):
    target = tmp_path / "out.txt"
    atomic_write(target, "previous\n")
    with pytest.raises(KeyboardInterrupt), atomic_open(target) as fh:  # a kill mid-write
        fh.write("half of the new")
        raise KeyboardInterrupt
    assert target.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    atomic_write(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert oct(target.stat().st_mode & 0o777) != oct(0o600)  # not mkstemp's private mode


def test_a_full_disk_is_one_error_line_and_the_previous_export_stays(run, capsys, monkeypatch):
    assert main(["export", str(run), "--format", "jsonl"]) == 0
    before = (run / "episodes.jsonl").read_bytes()
    assert before.count(b"\n") == 4

    def full(_fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("empa_env.atomic.os.fsync", full)
    capsys.readouterr()
    assert main(["export", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: cannot write ")
    assert "No space left on device" in err[0]
    assert (run / "episodes.jsonl").read_bytes() == before
    assert not [p for p in run.iterdir() if p.name.endswith(".tmp")]
    with pytest.raises(OutputError):
        atomic_write(run / "x.txt", "x")


def test_a_kill_while_writing_the_export_leaves_the_previous_one(run, monkeypatch):
    assert main(["export", str(run), "--format", "jsonl"]) == 0
    before = (run / "episodes.jsonl").read_bytes()
    calls = []
    real = json.dumps

    def dies_on_the_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # what a kill does to the writer, minus the cleanup
        return real(*args, **kwargs)

    monkeypatch.setattr("benchmarks.export.json.dumps", dies_on_the_third)
    assert main(["export", str(run), "--format", "jsonl"]) == 130
    assert (run / "episodes.jsonl").read_bytes() == before


# --- escaping -----------------------------------------------------------------------------------
def test_show_never_prints_escape_sequences_from_replies(run, capsys):
    for color in ("never", "always"):
        assert main(["show", str(run), "--model", FORMULA, "--color", color]) == 0
        out = capsys.readouterr().out
        assert "\x07" not in out and "\r" not in out and "\x1b]" not in out
        assert "\x1b[2J" not in out and "\\x1b[2J" in out  # shown, harmless
        if color == "never":
            assert "\x1b" not in out


#: Starts writing ``sys.argv[1]`` atomically, says so on stdout, and waits (to be killed).
WRITE_AND_WAIT = """
import sys, time
from empa_env.atomic import atomic_open
with atomic_open(sys.argv[1]) as fh:
    fh.write("half of the new")
    fh.flush()
    print("writing", flush=True)
    time.sleep(120)
"""


def _start_writing(target: Path) -> subprocess.Popen[str]:
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITE_AND_WAIT, str(target)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None and writer.stdout.readline().strip() == "writing"
    return writer


def test_the_next_write_sweeps_what_a_killed_write_left_and_nothing_else(tmp_path):
    target = tmp_path / "report.html"
    atomic_write(target, "previous\n")
    killed = _start_writing(target)
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    (left,) = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert left.name.startswith(".report.html.") and target.read_text() == "previous\n"
    others = [".report.html.bak", ".index.html.abcdefgh.tmp", ".report.html.not-mine.tmp"]
    for name in others:
        (tmp_path / name).write_text("not a temporary file of this write")
    before = set(tmp_path.iterdir())
    live = _start_writing(target)  # another process writing the same file right now
    try:
        (writing,) = set(tmp_path.iterdir()) - before
        atomic_write(target, "new\n")
        assert target.read_text() == "new\n"
        assert not left.exists()  # abandoned by the killed writer: swept
        assert writing.exists()  # locked by a live writer: left alone
        assert all((tmp_path / name).exists() for name in others)  # not this pattern
    finally:
        live.kill()
        live.wait(timeout=30)


def test_a_write_in_progress_in_this_process_is_never_swept(tmp_path):
    target = tmp_path / "results.json"
    with atomic_open(target) as outer:
        outer.write("outer")
        assert sweep_abandoned(target) == []
        atomic_write(target, "inner")  # the same file again, meanwhile
    assert target.read_text() == "outer" and sorted(p.name for p in tmp_path.iterdir()) == [
        "results.json"
    ]


def test_a_name_that_would_forge_lines_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    for name in ("good\n 1  forged  100.0", "a|b", "\x1b[31mred"):
        code = main(["bench", "--quiet", "--no-report", "--limit", "1", "--max-turns", "12",
                     "--out", str(out), "--policy", f"{name}=scripted:advice_giver"])  # fmt: skip
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and err[-1].startswith("error: policy name"), err


# --- damaged rows, read-only runs ---------------------------------------------------------------
def _without(*path: str | int):
    """A damage: the stored trajectory without the field at ``path`` (keys and list indexes)."""

    def damage(text: str) -> str:
        record = json.loads(text)
        holder = record
        for step in path[:-1]:
            holder = holder[step]
        del holder[path[-1]]
        return json.dumps(record)

    return damage


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda text: "{", "Expecting property name"),
        (_without("turns"), "trajectory has no 'turns'"),  # was read as an episode of 0 turns
        (_without("outcome"), "trajectory has no 'outcome'"),
        (_without("turns", 0, "reward"), "turns[0] has no 'reward'"),
        (_without("turns", 0, "judgement", "evidence"), "turns[0].judgement has no 'evidence'"),
    ],
    ids=["not-json", "no-turns", "no-outcome", "turn-without-reward", "judgement-without-evidence"],
)
def test_a_damaged_stored_trajectory_is_one_error_line(run, capsys, damage, reason):
    con = sqlite3.connect(run / "results.sqlite")
    key, text = con.execute(
        "SELECT episode_key, trajectory FROM episodes WHERE model = ?", (HTML_NAME,)
    ).fetchone()
    con.execute("UPDATE episodes SET trajectory = ? WHERE episode_key = ?", (damage(text), key))
    con.commit()
    con.close()
    resumed = ["bench", "--quiet", "--no-report", "--judger", "lexicon", "--max-turns", "12",
               "--limit", "2", "--out", str(run), "--policy", f"{HTML_NAME}=scripted:advice_giver"]  # fmt: skip
    commands = (["show", str(run), "--all"], ["report", str(run)], ["export", str(run)], resumed)
    for command in commands:
        capsys.readouterr()
        assert main(command) == 2, command
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "is damaged" in err[0] and err[0].startswith("error: "), err
        assert reason in err[0], err


def test_a_read_only_run_can_be_shown_reported_and_exported(run, tmp_path, capsys, monkeypatch):
    """(The report it writes elsewhere is checked for escaped names, too: one report, not two.)"""
    db = run / "results.sqlite"
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    real_access = os.access

    def read_only(path, mode, *args, **kwargs):  # root may write anywhere: pretend it cannot
        if Path(path).resolve().is_relative_to(run.resolve()) and mode & os.W_OK:
            return False
        return real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", read_only)
    assert main(["show", str(run)]) == 0
    capsys.readouterr()
    assert main(["report", str(run)]) == 2
    assert "read-only: give --out DIR" in capsys.readouterr().err
    elsewhere = tmp_path / "elsewhere"
    assert main(["report", str(run), "--out", str(elsewhere), "--quiet"]) in (0, 1)
    assert (elsewhere / "report.html").is_file() and (elsewhere / "results.json").is_file()
    assert (elsewhere / "episodes.jsonl").is_file()
    _names_are_escaped(elsewhere)
    assert main(["export", str(run), "--out", str(tmp_path / "export")]) == 0
    assert (tmp_path / "export" / "turns.parquet").is_file()
    after = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    assert after == before and db.is_file()  # nothing in the run directory was written


def _names_are_escaped(report: Path) -> None:
    """No CSV cell a spreadsheet would run, no raw HTML in Markdown, in a report folder."""
    tables = report / "tables"
    for csv in tables.glob("*.csv"):
        for line in csv.read_text(encoding="utf-8").splitlines():
            cells = line.split(",")
            assert not any(c.startswith(("=", "+", "@")) for c in cells), (csv.name, line)
    assert any(f"'{FORMULA}" in p.read_text(encoding="utf-8") for p in tables.glob("*.csv"))
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert "<script>" not in markdown and "&lt;script&gt;" in markdown
    html = (report / "report.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html


def test_every_format_separator_and_surrogate_character_reaches_a_terminal_escaped():
    import unicodedata

    from empa_env.safe_text import terminal_safe

    hidden = [
        chr(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in ("Cc", "Cf", "Zl", "Zp", "Cs")
        and chr(code) not in "\n\t"
    ]
    assert len(hidden) > 200  # this Python's Unicode database, whatever its version
    shown = terminal_safe("".join(hidden))
    assert not [f"U+{ord(ch):04X}" for ch in hidden if ch in shown]
    assert terminal_safe("Ayşe, 中文, café, 😀, tab\there\nnew line") == (
        "Ayşe, 中文, café, 😀, tab\there\nnew line"
    )  # letters, emoji, tabs and newlines as they are


def test_a_run_summary_shows_an_error_s_control_characters_as_escapes(tmp_path):
    from benchmarks.runner import RunSummary

    message = "ValueError: the reply \x1b[2J\u202etxt.exe was refused\nTraceback line"
    summary = RunSummary(tmp_path / "run\u202e", 2, 0, 1, 1, {message: ["mine|empa30-001|0"]})
    text = str(summary)
    assert "\\x1b[2J\\u202etxt.exe" in text and "run\\u202e" in text
    assert not any(ch in text for ch in "\x1b\u202e")
