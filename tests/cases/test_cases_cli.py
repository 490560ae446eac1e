"""``empa cases ...`` through the real ``empa`` entry point (``empa_env.cli.main``)."""

from __future__ import annotations

import pytest
import yaml

from empa_env.cases.loader import dump_case, load_directory
from empa_env.cli import main


def test_cases_without_action_prints_usage(capsys):
    assert main(["cases"]) == 2
    assert "validate" in capsys.readouterr().out


def test_validate_ok_and_every_problem(tmp_path, small_pool, capsys):
    good = tmp_path / "good"
    good.mkdir()
    for c in small_pool[:3]:
        (good / f"{c.id}.yaml").write_text(dump_case(c), encoding="utf-8")
    assert main(["cases", "validate", str(good)]) == 0
    assert "ok: 3 valid case(s)" in capsys.readouterr().out

    bad = tmp_path / "bad"
    bad.mkdir()
    data = small_pool[3].model_dump(mode="json", by_alias=True)
    data["iedr"]["A.2"] = 7
    (bad / "one.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    data = small_pool[4].model_dump(mode="json", by_alias=True)
    del data["plot"]
    (bad / "two.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    assert main(["cases", "validate", str(good), str(bad), str(tmp_path / "missing.yaml")]) == 1
    out = capsys.readouterr().out
    assert f"{bad / 'one.yaml'}: iedr.A.2:" in out
    assert f"{bad / 'two.yaml'}: plot: required field is missing" in out
    assert "missing.yaml: no such file, directory or suite id" in out
    assert "3 problem(s)" in out


def test_list_show_and_stats_on_a_generated_pool(capsys):
    assert main(["cases", "list", "--pool", "generated:0:12"]) == 0
    out = capsys.readouterr().out
    assert "gen-s0-0011" in out and "12 case(s) in generated:0:12" in out

    assert main(["cases", "show", "gen-s0-0005"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# dominant axis ") and "id: gen-s0-0005" in out
    assert yaml.safe_load(out)["id"] == "gen-s0-0005"

    assert main(["cases", "stats", "--pool", "generated:0:60"]) == 0
    out = capsys.readouterr().out
    for heading in (
        "dominant axis",
        "life domain",
        "difficulty",
        "empathy threshold",
        "||P_0||: mean",
    ):
        assert heading in out
    assert "daily_life" in out and "extreme" in out


def test_show_unknown_id_and_bad_pool_fail_cleanly(capsys):
    assert main(["cases", "show", "no-such-case"]) == 2
    err = capsys.readouterr().err
    assert "no case 'no-such-case'" in err and err.startswith("error: ")
    assert main(["cases", "list", "--pool", "bogus"]) == 2
    err = capsys.readouterr().err
    assert "unknown pool 'bogus'" in err and err.strip().splitlines()[-1].startswith("error: ")


def test_generate_writes_valid_files_and_refuses_to_overwrite(tmp_path, capsys):
    out_dir = tmp_path / "gen"
    assert main(["cases", "generate", "--seed", "4", "--count", "5", "--out", str(out_dir)]) == 0
    cases = load_directory(out_dir)
    assert sorted(c.id for c in cases) == [f"gen-s4-{i:04d}" for i in range(5)]
    assert main(["cases", "generate", "--seed", "4", "--count", "5", "--out", str(out_dir)]) == 2
    assert "--force" in capsys.readouterr().err
    assert (
        main(["cases", "generate", "--seed", "4", "--count", "5", "--out", str(out_dir), "--force"])
        == 0
    )


def test_sample_writes_a_stratified_set(tmp_path, capsys):
    out_dir = tmp_path / "sample"
    args = [
        "cases",
        "sample",
        "--pool",
        "generated:0:240",
        "--n",
        "12",
        "--seed",
        "2",
        "--out",
        str(out_dir),
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "12 of 12 cases drawn" in out and "unfilled" not in out
    assert len(load_directory(out_dir)) == 12


def test_sample_reports_unfillable_strata(tmp_path, small_pool, capsys):
    few = tmp_path / "few"
    few.mkdir()
    for c in small_pool[:8]:
        (few / f"{c.id}.yaml").write_text(dump_case(c), encoding="utf-8")
    assert main(["cases", "sample", "--pool", str(few), "--n", "30"]) == 1
    out = capsys.readouterr().out
    assert "unfilled strata" in out and "wanted" in out


@pytest.mark.parametrize("quota", ["C=3,A=x", "Q=3"])
def test_sample_rejects_malformed_quota(quota, capsys):
    with pytest.raises(SystemExit):
        main(["cases", "sample", "--n", "3", "--axis", quota])
    assert "--axis" in capsys.readouterr().err


def test_suite_validate_and_stats(capsys):
    assert main(["cases", "validate", "empa30-v1"]) == 0
    assert "ok: 30 valid case(s)" in capsys.readouterr().out
    assert main(["cases", "stats", "--suite", "empa30-v1"]) == 0
    out = capsys.readouterr().out
    assert "empa30-v1: 30 case(s)" in out and "hard           11" in out


#: Characters that must never reach a terminal raw: a right-to-left override (reorders what is
#: shown), zero-width space and joiner, a tag character, a line separator, an ANSI sequence.
HIDDEN = "\u202e\u200b\u200d\U000e0041\u2028\x1b"


def test_show_and_list_print_no_control_or_format_character_raw(tmp_path, small_pool, capsys):
    case = small_pool[0]
    data = case.model_dump(mode="json", by_alias=True)
    data["profile"]["vent"] = f"My bank{HIDDEN}[2J closed. Everything moved to an app."
    data["persona"]["social_persona"] = "Neighbour\u202e.exe\u2066 on the third floor."
    path = tmp_path / "cases" / "hidden.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    assert main(["cases", "show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert not any(ch in shown for ch in HIDDEN + "\u2066"), [c for c in HIDDEN if c in shown]
    assert "\\u202e" in shown  # shown as an escape, and as one YAML reads back:
    again = yaml.safe_load(shown)
    assert again["profile"]["vent"] == data["profile"]["vent"]
    assert again["persona"]["social_persona"] == data["persona"]["social_persona"]
    assert main(["cases", "list", "--pool", str(path.parent)]) == 0
    assert not any(ch in capsys.readouterr().out for ch in HIDDEN)


def test_a_persona_name_with_a_format_character_is_refused_as_a_policy_name_is(
    tmp_path, small_pool, capsys
):
    data = small_pool[0].model_dump(mode="json", by_alias=True)
    for name in ("Ann\u202eeva", "Ann\u200bEva", "Ann\nEva", "Ann\x1b[31mEva"):
        data["persona"]["name"] = name
        path = tmp_path / "named.yaml"
        path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
        assert main(["cases", "validate", str(path)]) == 1
        out = capsys.readouterr().out
        assert f"{path}: persona.name:" in out and "format" in out, out
        assert not any(ch in out for ch in HIDDEN)
        code = main(["bench", "--quiet", "--no-report", "--limit", "1", "--max-turns", "12",
                     "--out", str(tmp_path / "run"), "--policy", f"{name}=scripted:advice_giver"])  # fmt: skip
        assert code == 2 and "policy name" in capsys.readouterr().err


def test_an_error_line_and_a_problem_show_a_path_s_format_characters_as_escapes(tmp_path, capsys):
    hostile = str(tmp_path / "no\u202edir\x1b]0;title\x07")
    assert main(["show", hostile]) == 2  # the path in an error line
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "\\u202e" in err and "\\x1b" in err, err
    assert not any(ch in err for ch in "\u202e\x1b\x07")
    assert main(["cases", "validate", hostile]) == 1  # the path in a validation problem
    out = capsys.readouterr().out
    assert "\\u202e" in out and not any(ch in out for ch in "\u202e\x1b\x07")
