"""One error type for an invalid configuration: worded by field from Python, by flag on the
command line."""

from __future__ import annotations

import pytest

from benchmarks.config import BenchConfig
from empa_env.cli import main
from empa_env.config import EnvConfig
from empa_env.errors import ConfigError, UserError


@pytest.mark.parametrize(
    ("build", "said", "flag"),
    [
        (lambda: BenchConfig(seeds=0), "seeds must be >= 1, got 0", "--seeds must be >= 1, got 0"),
        (lambda: BenchConfig(limit=0), "limit must be >= 1, got 0", "--limit must be >= 1"),
        (lambda: BenchConfig(max_judge_failure_share=2.0), "max_judge_failure_share must be in",
         "--max-judge-failure-share must be in"),
        (lambda: EnvConfig(max_turns=0), "max_turns must be >= 1, got 0", "--max-turns must be"),
    ],
)  # fmt: skip
def test_python_gets_the_field_the_cli_the_flag(build, said, flag):
    with pytest.raises(ConfigError) as caught:
        build()
    assert str(caught.value).startswith(said) and caught.value.as_flag().startswith(flag)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, UserError)


def test_the_cli_words_a_configuration_error_by_its_flag(tmp_path, capsys):
    not_a_folder = tmp_path / "cases.txt"
    not_a_folder.write_text("x")
    code = main(["bench", "--cases", str(not_a_folder), "--policy", "scripted:attuned",
                 "--out", str(tmp_path / "run")])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 2 and err == f"error: --cases {not_a_folder}: not a directory of case files"


def test_the_inspect_task_is_built_from_the_benchmarks_own_configuration():
    pytest.importorskip("inspect_ai")
    from benchmarks.inspect_task import empa_dataset, task_config

    config = task_config(cases="empa30-003, empa30-001", max_turns="12", judger="lexicon")
    assert isinstance(config, BenchConfig) and config.env == EnvConfig(
        judger="lexicon", max_turns=12
    )
    assert [s.id for s in empa_dataset(config)] == ["empa30-003", "empa30-001"]
    with pytest.raises(ConfigError, match="case_ids nope: not in empa30-v1"):
        empa_dataset(task_config(cases="nope"))
    with pytest.raises(ConfigError, match="max_turns must be >= 1"):
        task_config(max_turns=0)
