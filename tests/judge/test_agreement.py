"""What each judge measures, in plain words, for the report and the README."""

from __future__ import annotations

from empa_env.backends import judgers
from empa_env.offline.semantic.lab.agreement import judge_statement


def test_the_default_judge_states_its_recorded_human_agreement():
    statement = judge_statement(judgers.create("offline").describe())
    assert statement.agreement is not None and statement.agreement.tier == "reading as used"
    assert "proxy for a human rater" in statement.text
    assert "never trained on human-rated data" in statement.text
    assert "not met on every count" in statement.text  # it says where it falls short


def test_the_semantic_judge_states_its_recorded_human_agreement():
    statement = judge_statement(judgers.create("semantic").describe())
    assert statement.agreement is not None and statement.agreement.tier == "static as used"
    assert statement.agreement.summary() in statement.text
    assert "never on human-rated data" in statement.text


def test_changed_assets_without_figures_say_so():
    for key in ("acts_sha256", "meanings_sha256", "heads.heads_sha256", "credit"):
        descriptor = {**judgers.create("offline").describe(), key: "0" * 64}
        statement = judge_statement(descriptor)
        assert statement.agreement is None, key
        assert "no recorded as-used agreement figures" in statement.text
    descriptor = {**judgers.create("semantic").describe(), "inner.grounding_sha256": "0" * 64}
    assert judge_statement(descriptor).agreement is None


def test_the_phrase_judge_and_other_judges_are_described_honestly():
    lexicon = judge_statement(judgers.create("lexicon").describe())
    assert "rewards phrases, not empathy" in lexicon.text
    assert lexicon.agreement is not None and not lexicon.agreement.meets_goal()
    llm = judge_statement({"class": "LLMJudger", "name": "llm-judger", "model": "openai/x"})
    assert "openai/x" in llm.text and llm.agreement is None
    custom = judge_statement({"class": "MyJudge", "name": "mine"})
    assert custom.judge == "mine" and "MyJudge" in custom.text


def test_the_benchmark_report_says_what_the_judge_measures(tmp_path):
    from empa_env.cli import main

    run = tmp_path / "run"
    assert main(["bench", "--limit", "1", "--policy", "scripted:attuned", "--out", str(run),
                 "--quiet"]) == 0  # fmt: skip
    report = (run / "report" / "report.md").read_text(encoding="utf-8")
    statement = judge_statement(judgers.create("offline").describe())
    assert "## What the judge measures (reading)" in report
    assert statement.text in report
    table = (run / "report" / "tables" / "judge_agreement.csv").read_text(encoding="utf-8")
    assert table.splitlines()[0] == "axis,AUROC (level > 0),Spearman,meets the bar"
    assert len(table.splitlines()) == 4
