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
