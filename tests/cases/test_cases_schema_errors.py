"""Loading malformed cases fails with errors that name the file, the field and what was expected."""

from __future__ import annotations

import json

import pytest

from empa_env.cases.loader import CaseError, dump_case, load_case, load_directory, parse_case
from empa_env.cases.schema import STAGE_KINDS


def _only_issue(exc: CaseError):
    assert len(exc.issues) == 1, exc.issues
    return exc.issues[0]


def test_valid_case_round_trips_through_yaml_and_json(case_data, write_case, tmp_path):
    path = write_case("ok.yaml", case_data)
    case = load_case(path)
    assert case.id == case_data["id"]
    again = parse_case(__import__("yaml").safe_load(dump_case(case)))
    assert again == case
    jpath = tmp_path / "ok.json"
    jpath.write_text(json.dumps(case_data), encoding="utf-8")
    assert load_case(jpath) == case


def test_missing_field_names_file_and_field(case_data, write_case):
    del case_data["persona"]["age"]
    path = write_case("missing.yaml", case_data)
    with pytest.raises(CaseError) as err:
        load_case(path)
    issue = _only_issue(err.value)
    assert issue.path == str(path)
    assert issue.field == "persona.age"
    assert "required field is missing" in issue.message
    assert str(path) in str(err.value) and "persona.age" in str(err.value)


def test_wrong_type_says_what_was_expected(case_data, write_case):
    case_data["persona"]["age"] = "forty"
    path = write_case("type.yaml", case_data)
    with pytest.raises(CaseError) as err:
        load_case(path)
    issue = _only_issue(err.value)
    assert (issue.path, issue.field) == (str(path), "persona.age")
    assert "integer" in issue.message and "'forty'" in issue.message


def test_list_field_given_a_string(case_data, write_case):
    case_data["voice"]["reactions"]["hurt"] = "never mind"
    path = write_case("str.yaml", case_data)
    with pytest.raises(CaseError) as err:
        load_case(path)
    issue = _only_issue(err.value)
    assert issue.field == "voice.reactions.hurt"
    assert "expected a list" in issue.message


def test_bad_stage_order_is_reported_with_the_expected_order(case_data, write_case):
    stages = case_data["plot"]["stages"]
    stages[0], stages[1] = stages[1], stages[0]
    path = write_case("order.yaml", case_data)
    with pytest.raises(CaseError) as err:
        load_case(path)
    issue = _only_issue(err.value)
    assert issue.field == "plot.stages"
    assert all(kind in issue.message for kind in STAGE_KINDS)
    assert "got 4" in issue.message


def test_three_stages_is_reported_as_a_count(case_data, write_case):
    case_data["plot"]["stages"] = case_data["plot"]["stages"][:3]
    path = write_case("three.yaml", case_data)
    with pytest.raises(CaseError) as err:
        load_case(path)
    issue = _only_issue(err.value)
    assert issue.field == "plot.stages"
    assert "exactly four stages" in issue.message and "got 3" in issue.message


@pytest.mark.parametrize("level", [5, -1, "high"])
def test_bad_iedr_level_names_the_indicator(case_data, write_case, level):
    case_data["iedr"]["A.2"] = level
    path = write_case("iedr.yaml", case_data)
    with pytest.raises(CaseError) as err:
        load_case(path)
    issue = _only_issue(err.value)
    assert (issue.path, issue.field) == (str(path), "iedr.A.2")
    assert repr(level) in issue.message


def test_missing_iedr_indicator(case_data, write_case):
    del case_data["iedr"]["P.3"]
    with pytest.raises(CaseError) as err:
        load_case(write_case("iedr3.yaml", case_data))
    assert _only_issue(err.value).field == "iedr.P.3"


def test_all_zero_iedr_is_rejected(case_data, write_case):
    case_data["iedr"] = {k: 0 for k in case_data["iedr"]}
    with pytest.raises(CaseError, match="P_0 = 0"):
        load_case(write_case("zero.yaml", case_data))


def test_unknown_field_and_bad_domain(case_data, write_case):
    case_data["domain"] = "sports"
    case_data["persona"]["nickname"] = "Tom"
    with pytest.raises(CaseError) as err:
        load_case(write_case("two.yaml", case_data))
    fields = {i.field: i.message for i in err.value.issues}
    assert "unknown field" in fields["persona.nickname"]
    assert "'sports'" in fields["domain"] and "daily_life" in fields["domain"]


def test_not_a_mapping_and_invalid_yaml(write_case, tmp_path):
    with pytest.raises(CaseError, match="expected a mapping"):
        load_case(write_case("list.yaml", ["a", "b"]))
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: [unclosed\n", encoding="utf-8")
    with pytest.raises(CaseError) as err:
        load_case(broken)
    assert err.value.issues[0].path == str(broken)
    assert "not valid YAML" in err.value.issues[0].message


def test_directory_reports_every_bad_file(case_data, small_pool, write_case, tmp_path):
    directory = tmp_path / "suite"
    good = small_pool[1].model_dump(mode="json", by_alias=True)
    write_case("a-good.yaml", good, directory)
    bad1 = dict(case_data, id="bad-1")
    del bad1["persona"]
    bad2 = json.loads(json.dumps(case_data))
    bad2["id"] = "bad-2"
    bad2["iedr"]["C.1"] = 9
    p1 = write_case("b-bad.yaml", bad1, directory)
    p2 = write_case("c-bad.yaml", bad2, directory)
    with pytest.raises(CaseError) as err:
        load_directory(directory)
    assert {i.path for i in err.value.issues} == {str(p1), str(p2)}
    assert {(i.path, i.field) for i in err.value.issues} == {
        (str(p1), "persona"),
        (str(p2), "iedr.C.1"),
    }
    assert "2 problem(s) in 2 case file(s)" in str(err.value)


def test_directory_reports_duplicate_ids(case_data, write_case, tmp_path):
    directory = tmp_path / "dupes"
    write_case("one.yaml", case_data, directory)
    p2 = write_case("two.yaml", case_data, directory)
    with pytest.raises(CaseError) as err:
        load_directory(directory)
    issue = _only_issue(err.value)
    assert (issue.path, issue.field) == (str(p2), "id")
    assert "duplicate id" in issue.message


def test_a_deeply_nested_file_is_a_case_error_not_a_recursion_error(case_data, tmp_path, capsys):
    from empa_env.cli import main

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(CaseError) as raised:
        load_case(deep)
    assert "nested too deeply" in _only_issue(raised.value).message
    value: object = "x"
    for _ in range(100_000):  # parsed already (e.g. by a caller), too deep for the validation
        value = {"a": value}
    with pytest.raises(CaseError):
        parse_case({**case_data, "persona": value})
    assert main(["cases", "validate", str(deep)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "nested too deeply" in captured.out + captured.err


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_an_integer_of_5000_digits_is_one_problem_naming_the_file(case_data, tmp_path, suffix):
    # Python refuses to convert integers of more than 4,300 digits (a ValueError that is not a
    # parser's syntax error): it was a traceback in `empa bench --cases DIR`
    path = tmp_path / f"huge{suffix}"
    text = json.dumps(case_data).replace(f'"age": {case_data["persona"]["age"]}', '"age": AGE')
    path.write_text(text.replace("AGE", "9" * 5000), encoding="utf-8")
    with pytest.raises(CaseError) as err:
        load_case(path)
    issue = _only_issue(err.value)
    assert issue.path == str(path) and "4300 digits" in issue.message
    assert "set_int_max_str_digits" not in issue.message  # advice for programmers, not users


def test_bench_and_validate_name_a_case_file_with_a_5000_digit_integer(
    case_data, write_case, tmp_path, capsys
):
    from empa_env.cli import main

    cases = tmp_path / "cases"
    write_case("good.yaml", case_data, cases)
    bad = dict(case_data, id=case_data["id"] + "-b")
    path = write_case("bad.yaml", bad, cases)
    path.write_text(
        path.read_text().replace(f"age: {case_data['persona']['age']}", "age: " + "9" * 5000)
    )
    out = tmp_path / "run"
    code = main(["bench", "--quiet", "--no-report", "--cases", str(cases), "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("error: ") and str(path) in err[0] and "4300 digits" in err[0]
    assert not out.exists()  # refused before the run directory was made
    assert main(["cases", "validate", str(cases)]) == 1  # a validation report: every problem
    printed = capsys.readouterr().out
    assert f"{path}: not valid YAML" in printed and "Traceback" not in printed
