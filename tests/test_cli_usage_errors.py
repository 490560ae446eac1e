"""Bad input ends in one `error:` line with exit 2, and a bad option shows its own command's usage."""

from __future__ import annotations

from empa_env.cli import main


def test_cases_generate_into_an_unwritable_folder_is_one_error_line(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["cases", "generate", "--count", "2", "--out", str(blocker / "cases")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --out ") and "cannot create" in err[0]
    assert "Traceback" not in "\n".join(err)


def _usage_error(argv: list[str], capsys) -> list[str]:
    try:
        main(argv)
    except SystemExit as exc:
        assert exc.code == 2
    else:  # pragma: no cover - argparse always exits
        raise AssertionError("argparse did not stop")
    return capsys.readouterr().err.strip().splitlines()


def test_an_unknown_option_is_one_error_line_naming_its_subcommand(tmp_path, capsys):
    for argv, prog in (
        (["export", str(tmp_path), "--bogus", "somewhere"], "empa export"),
        (["cases", "generate", "--count", "1", "--out", str(tmp_path), "--bogus"],
         "empa cases generate"),
    ):  # fmt: skip
        err = _usage_error(argv, capsys)
        assert len(err) == 1, err  # no usage block first: --help shows it
        assert err[0].startswith(f"error: {prog}: unrecognized arguments: --bogus")
        assert err[0].endswith(f"(see {prog} --help)") and "did you mean" not in err[0]


def test_a_mistyped_option_or_value_is_one_line_naming_what_was_meant(capsys):
    err = _usage_error(["bench", "--limt", "1"], capsys)
    assert err == [
        "error: empa bench: unrecognized arguments: --limt 1; did you mean --limit? "
        "(see empa bench --help)"
    ]
    err = _usage_error(["bench", "--seeds", "two"], capsys)
    assert len(err) == 1 and err[0].startswith("error: empa bench: argument --seeds: "), err
    assert "'two'" in err[0]
    err = _usage_error(["bench", "--limt", "1", "--sedes=2"], capsys)
    assert len(err) == 1 and "did you mean --limit for --limt, --seeds for --sedes?" in err[0]


def test_the_top_level_keeps_its_own_usage(capsys):
    try:
        main(["--bogus"])
    except SystemExit as exc:
        assert exc.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: empa: unrecognized arguments: --bogus")


def test_a_bad_client_option_is_one_error_line_before_the_run_exists(tmp_path, capsys):
    out = tmp_path / "run"
    for option in ("transport=bogus", "max_retries=-1", "timeout=0"):
        argv = ["bench", "--policy", "scripted:attuned", "--judger", "llm:openai/x",
                "--api-base", "http://127.0.0.1:9/v1", "--llm-option", option, "--out", str(out)]  # fmt: skip
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: --llm-option: "), err
        assert not out.exists()
