"""The `empa` command line as a benchmark runner sees it: errors a person can act on, the
leaderboard and results.json, `empa show`, case selection, the default run directory, help text."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from benchmarks.results import (
    SCHEMA_PATH,
    bootstrap_ci,
    leaderboard_text,
    model_aggregates,
)
from empa_env.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
#: A short run: two cases, the shortest episodes the official preset allows.
SMALL = ["--limit", "2", "--max-turns", "12", "--quiet", "--concurrency", "4"]


def _last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def _bench(tmp_path: Path, *extra: str) -> int:
    return main(["bench", *SMALL, *extra])


# --- 1. errors a person can act on ---------------------------------------------------------
@pytest.mark.parametrize(
    "args, needle",
    [
        (["--policy", "nosuchkind:x"], "unknown policy kind 'nosuchkind'"),
        (["--policy", "python:missing.py:reply"], "does not exist"),
        (["--policy", "python:broken.py:reply"], "failed to import: SyntaxError"),
        (["--suite", "no-such-suite"], "unknown suite id"),
        (["--case", "no-such-case"], "--case no-such-case: not in empa30-v1"),
        (["--cases", "no-such-dir"], "not a directory"),
        (["--out", "a_file/run"], "is a file"),
        (["--max-turns", "5"], "--max-turns 5"),
        (["--llm-option", "novalue"], "KEY=VALUE"),
        (["--llm-option", "temprature=0"], "unknown LLM option(s) ['temprature']"),
        (["--policy", "scripted:attuned", "--policy", "attuned=scripted:lecturer"], "share a name"),
    ],
)
def test_known_errors_end_in_one_error_line_exit_2_and_create_nothing(
    tmp_path, monkeypatch, capsys, args, needle
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text("def reply(messages):\n    return 'x' +\n")
    (tmp_path / "a_file").write_text("not a directory")
    out = [] if "--out" in args else ["--out", "run"]
    assert main(["bench", *SMALL, *out, *args]) == 2
    err = capsys.readouterr().err
    assert _last_line(err).startswith("error: ") and needle in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "run").exists() and not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "args", [["--seeds", "0"], ["--concurrency", "0"], ["--limit", "0"], ["--seeds", "two"]]
)
def test_bad_option_values_are_refused_by_the_parser(tmp_path, monkeypatch, capsys, args):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--out", "run", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert _last_line(err).startswith("error: empa bench: argument")
    assert not (tmp_path / "run").exists()


def test_the_console_prints_no_traceback_for_a_user_error(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "empa_env.cli", "bench", "--policy", "nosuch:x", "--out", "r"],
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        next(line for line in done.stderr.splitlines() if line.startswith("error: "))
    ]


def test_other_commands_share_the_error_line(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert _last_line(capsys.readouterr().err).startswith(f"error: {tmp_path} is not a run")
    assert main(["show", str(tmp_path)]) == 2
    assert main(["export", str(tmp_path)]) == 2
    assert main(["import", "official", str(tmp_path / "nothing"), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("error: ") == 3 and "Traceback" not in err


def test_another_configuration_in_the_run_directory_is_one_error_line(tmp_path, capsys):
    run = str(tmp_path / "run")
    assert _bench(tmp_path, "--policy", "scripted:attuned", "--out", run, "--no-report") == 0
    capsys.readouterr()
    assert _bench(tmp_path, "--policy", "scripted:attuned", "--out", run, "--preset", "paper") == 2
    err = capsys.readouterr().err
    assert _last_line(err).startswith("error: ") and "another configuration" in err


def test_failed_episodes_are_grouped_by_message_with_an_example(tmp_path, capsys):
    (tmp_path / "none_policy.py").write_text("def reply(messages):\n    return None\n")
    spec = f"nothing=python:{tmp_path / 'none_policy.py'}:reply"
    code = _bench(tmp_path, "--policy", spec, "--out", str(tmp_path / "run"), "--no-report")
    assert code == 1
    out = capsys.readouterr().out
    assert "2 failed, by error:" in out
    assert "2 x TypeError" in out and "NoneType" in out
    assert "e.g. episode nothing|" in out


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_says_how_many_episodes_are_saved_and_how_to_resume(tmp_path):
    policy = tmp_path / "slow.py"
    policy.write_text(
        textwrap.dedent(
            """
            import time

            def reply(messages):
                time.sleep(0.05)
                return "That sounds heavy. What part of it stays with you most?"
            """
        )
    )
    run = tmp_path / "run"
    cmd = [sys.executable, "-m", "empa_env.cli", "bench", "--out", str(run), "--quiet",
           "--no-report", "--concurrency", "1", "--max-turns", "12",
           "--policy", f"slow=python:{policy}:reply"]  # fmt: skip
    proc = subprocess.Popen(
        cmd,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as from a terminal: a test run started in the background (`bash .ci/run &`) ignores
        # SIGINT, and Python keeps an ignored SIGINT ignored in the child
        preexec_fn=_default_sigint,
    )
    try:
        deadline = time.monotonic() + 600
        while _count(run / "results.sqlite") < 1 and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    saved = _count(run / "results.sqlite")
    assert proc.returncode == 130, err
    assert _last_line(err) == (
        f"interrupted: {saved} episodes saved; rerun the same command to resume"
    )
    assert "Traceback" not in err


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


# --- 2. results without opening files ------------------------------------------------------
@pytest.fixture(scope="module")
def small_bench(tmp_path_factory) -> tuple[Path, str]:
    """One `empa bench` (2 policies x 2 cases x 2 seeds, with its report): the run directory and
    what the command printed."""
    run = tmp_path_factory.mktemp("bench") / "run"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(["bench", *SMALL, "--seeds", "2", "--out", str(run),
                     "--policy", "scripted:attuned", "--policy", "scripted:lecturer"])  # fmt: skip
    assert code == 0
    return run, printed.getvalue()


@pytest.fixture(scope="module")
def small_run(small_bench) -> Path:
    return small_bench[0]


def test_bench_prints_the_leaderboard_and_writes_results_json(small_bench):
    small_run, out = small_bench
    assert "leaderboard" in out and "95% CI" in out and "written in" in out
    lines = [line for line in out.splitlines() if "attuned" in line or "lecturer" in line]
    assert len(lines) == 2
    doc = json.loads((small_run / "results.json").read_text())
    assert doc["config"]["selection"] == {"case_ids": [], "limit": 2}
    assert doc["config"]["env"]["preset"]["name"] == "official" or doc["config"]["env"]
    assert doc["versions"]["empa-gym"] and doc["versions"]["numpy"]
    assert doc["env_id"] == "EMPA-Bench-v14 with max_turns=12", doc["env_id"]  # --max-turns 12
    models = {m["model"]: m for m in doc["models"]}
    assert set(models) == {"attuned", "lecturer"}
    for m in models.values():
        lo, hi = m["epm_index_ci95"]
        assert m["n"] == 4 and lo <= m["epm_index_mean"] <= hi
        assert m["failed_episodes"] == 0 and 0 <= m["success_rate"] <= 1
        assert f"{m['epm_index_mean']:.1f}" in out
    assert [m["rank"] for m in doc["models"]] == [1, 2]
    assert len(doc["episodes"]) == 8 and {"case_id", "seed", "EPM_Index"} <= set(doc["episodes"][0])


def test_results_json_follows_its_documented_schema(small_run):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_PATH.read_text())
    doc = json.loads((small_run / "results.json").read_text())
    jsonschema.validate(doc, schema)
    documented = (ROOT / "docs" / "results-json.md").read_text()
    for key in schema["properties"]:
        assert f"`{key}`" in documented, key
    for key in schema["properties"]["models"]["items"]["properties"]:
        assert f"`{key}`" in documented, key


def test_bootstrap_interval_is_seeded_and_brackets_the_mean():
    values = [10.0, 20.0, 35.0, 50.0, 80.0]
    assert bootstrap_ci(values) == bootstrap_ci(values)
    lo, hi = bootstrap_ci(values)
    assert lo is not None and hi is not None and lo < sum(values) / 5 < hi
    assert bootstrap_ci([]) == (None, None) and bootstrap_ci([7.0]) == (7.0, 7.0)


def test_aggregates_count_failed_and_invalid_episodes():
    import pandas as pd

    episodes = pd.DataFrame(
        {
            "episode_key": ["a|c1|0", "a|c2|0", "b|c1|0"],
            "model": ["a", "a", "b"],
            "EPM_Index": [40.0, 60.0, 10.0],
            "success": [True, False, False],
            "judge_failures": [0, 9, 0],
            "invalid": ["", "9 of 12 judgements failed", ""],
        }
    )
    errors = [
        {"episode_key": "b|c2|0", "error": "boom", "at": "t"},
        {"episode_key": "a|c1|0", "error": "retried and then finished", "at": "t"},
    ]
    rows = {r["model"]: r for r in model_aggregates(episodes, errors)}
    assert rows["a"]["invalid_episodes"] == 1 and rows["a"]["failed_episodes"] == 0
    assert rows["b"]["failed_episodes"] == 1 and rows["a"]["rank"] == 1
    # the invalid episode is counted, but not in the mean, the interval or the success rate
    assert rows["a"]["n"] == 1 and rows["a"]["epm_index_mean"] == 40.0
    assert rows["a"]["success_rate"] == 1.0
    assert "b " in leaderboard_text(list(rows.values()))


# --- 3. empa show and the transcripts --------------------------------------------------------
def test_show_prints_levels_evidence_vt_and_position(small_run, capsys):
    assert main(["show", str(small_run), "--model", "attuned", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "== attuned |" in out and "| seed 1 ==" in out
    assert "turn 1" in out and "levels:" in out and "v_t (" in out and "P_t (" in out
    assert "  why:    " in out  # the judge's reasons under its levels
    assert "\x1b[" not in out  # not a terminal: plain
    assert main(["show", str(small_run), "--model", "attuned", "--color", "always"]) == 0
    colored = capsys.readouterr().out
    if "\u201c" in colored:  # some evidence was quoted
        assert "\x1b[1m" in colored
    assert main(["show", str(small_run), "--model", "nobody"]) == 2


def test_highlight_marks_the_quote_and_escapes_html():
    from benchmarks.transcript import highlight

    reply = "I hear you <3. What part of it weighs on you most?"
    marked = highlight(reply, ["what part of it"], style="html")
    assert "&lt;3" in marked and "<mark>What part of it</mark>" in marked
    assert highlight(reply, ["what part"], style="ansi").count("\x1b[1m") == 1
    assert highlight(reply, ["what part"], style="plain") == reply


def test_the_html_report_has_a_transcript_section(small_run):
    html = (small_run / "report" / "report.html").read_text()
    assert 'id="transcripts"' in html and "<details class='transcript'>" in html
    assert html.count("<details class='transcript'>") <= 6  # a few per model
    assert html.count("<span class='pick'>best</span>") == 2  # labelled, per model
    assert "RUN_DIR" not in html and f"empa show {small_run} --model attuned" in html
    assert "<ul class='why'>" in html  # the judge's reasons beside its levels


# --- 4. running what you want --------------------------------------------------------------
def test_cases_dir_case_ids_and_the_fingerprint_record_the_selection(tmp_path, capsys):
    cases = tmp_path / "cases"
    assert main(["cases", "generate", "--seed", "3", "--count", "3", "--out", str(cases)]) == 0
    run = tmp_path / "run"
    code = main(["bench", "--cases", str(cases), "--case", "gen-s3-0002", "--case", "gen-s3-0000",
                 "--max-turns", "12", "--quiet", "--no-report", "--out", str(run),
                 "--policy", "scripted:attuned"])  # fmt: skip
    assert code == 0
    capsys.readouterr()
    doc = json.loads((run / "results.json").read_text())
    assert doc["config"]["cases"] == ["gen-s3-0002", "gen-s3-0000"]
    assert doc["config"]["suite"].startswith("dir:")
    assert doc["config"]["selection"]["case_ids"] == ["gen-s3-0002", "gen-s3-0000"]
    assert str(doc["config"]["suite_version"]).startswith("sha256:")


def test_without_out_each_command_gets_its_own_run_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    base = ["bench", "--limit", "1", "--max-turns", "12", "--no-report", "--quiet"]
    assert main([*base, "--policy", "scripted:attuned"]) == 0
    assert main([*base, "--policy", "scripted:attuned"]) == 0  # the same command resumes
    assert main([*base, "--policy", "scripted:lecturer"]) == 0  # another: a fresh folder
    runs = sorted((tmp_path / "runs").iterdir())
    assert len(runs) == 2 and all(r.name.startswith("bench-") for r in runs)
    assert "1 already in" in capsys.readouterr().out


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.startswith("empa-gym ")


def _walk(parser: argparse.ArgumentParser, path: str = "empa"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                assert helps.get(name), f"{path} {name} has no help"
                yield from _walk(sub, f"{path} {name}")


def test_every_option_of_every_subcommand_has_help():
    parser = build_parser()
    seen = 0
    for path, sub in _walk(parser):
        if path.startswith(("empa train ", "empa judge")):
            # train: built lazily from the dataclasses (tests/baselines cover them);
            # judge: the semantic judge's own tooling, owned by tests/judge
            continue
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
                continue
            assert action.help and action.help != argparse.SUPPRESS, (
                path,
                action.option_strings or action.dest,
            )
            seen += 1
    assert seen > 50


def test_reward_help_lists_the_registry_and_llm_option_shows_examples():
    from empa_env.backends import rewards

    bench = next(sub for path, sub in _walk(build_parser()) if path == "empa bench")
    helps = {a.dest: a.help for a in bench._actions}
    assert all(name in helps["reward"] for name in rewards.names())
    assert "temperature=0" in helps["llm_option"]


def test_help_imports_no_heavy_module():
    """``empa --help`` builds every command's parser without loading the simulation, the judge's
    models, pandas, LLM or training libraries (the start-up cost is measured by
    benchmarks/perf/perf_startup.py; here only what gets imported is checked)."""
    heavy = ["empa_env.env", "empa_env.cases.components", "empa_env.roles.base",
             "empa_env.offline.semantic.heads", "pydantic", "pandas", "scipy", "litellm",
             "torch", "transformers", "matplotlib"]  # fmt: skip
    code = (
        "import sys, contextlib, io\n"
        "from empa_env.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        f"print([m for m in {heavy!r} if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


# --- the local server's entry point ----------------------------------------------------------
def test_local_server_module_has_a_main_that_prints_its_address(tmp_path):
    from empa_env.llm.local_server import unavailable_reason

    reason = unavailable_reason()
    if reason:
        done = subprocess.run(
            [sys.executable, "-m", "empa_env.llm.local_server", "--threads", "1"],
            env=ENV, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2 and _last_line(done.stderr).startswith("error: ")
        pytest.skip(reason)
    proc = subprocess.Popen(
        [sys.executable, "-m", "empa_env.llm.local_server", "--threads", "1"],
        env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("api_base: http://127.0.0.1:") and line.strip().endswith("/v1")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
