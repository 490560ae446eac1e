"""``empa cases import-official``: official EMPA case cards and plots as our case files.

Reads the CC BY-NC slice from ``../shared/data/empa-official`` (never copied into the repository;
modified copies live in ``tmp_path`` only); the data tests are skipped when it is absent. The
LLM paths (``--iedr``, ``--writer``) run against the scripted OpenAI-compatible server.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from empa_env.cases.loader import dump_case, load_case, load_directory, parse_case  # noqa: E402
from empa_env.cases.official import (  # noqa: E402
    MISSING,
    aconvert_official_cases,
    parse_priority,
)
from empa_env.cli import main  # noqa: E402
from empa_env.testing.scripted_server import ScriptedLLMServer  # noqa: E402

OFFICIAL_DATA = Path(
    os.environ.get(
        "EMPA_OFFICIAL_DATA",
        Path(__file__).resolve().parents[3] / "shared" / "data" / "empa-official",
    )
)
CARDS = OFFICIAL_DATA / "empa" / "data" / "cases"
RUNS = OFFICIAL_DATA / "results" / "benchmark_runs" / "epm-bench"
needs_data = pytest.mark.skipif(
    not CARDS.is_dir(),
    reason=f"official EMPA cases not found under {CARDS} (set EMPA_OFFICIAL_DATA to the "
    "empa-official slice or a checkout of the official repository)",
)


@pytest.fixture(scope="module")
def server():
    server = ScriptedLLMServer().start()
    yield server
    server.stop()


def _cards_only(tmp_path: Path) -> Path:
    """A copy of the official case material without the published results (so no IEDR levels)."""
    root = tmp_path / "official"
    shutil.copytree(OFFICIAL_DATA / "empa", root / "empa")
    return root


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("中优先级 + 希望对方", "medium"), ("[高优先级] 希望", "high"), ("[优先级：低] 不需要", "low"),
        ("【高】林思悦", "high"), ("[最高优先级 | 苏晴", "high"), ("[优先级极高] 林", "high"),
        ("其次。希望对方", "medium"), ("中 | 希望对方", "medium"), ("最低。不涉及", "low"),
        ("最希望获得的是直接的情绪共鸣", "high"), ("其次是希望对方", "medium"),
        ("最后才是对厨艺进步", "low"), ("最优先，需要对方", "high"), ("优先级最低）", "low"),
        ("希望对方能理解", None),
    ],
)  # fmt: skip
def test_priority_formats(text: str, level: str | None) -> None:
    assert parse_priority(text) == level


@needs_data
def test_all_thirty_cards_convert_and_validate(tmp_path: Path) -> None:
    out = tmp_path / "cases"
    assert main(["cases", "import-official", str(OFFICIAL_DATA), "--out", str(out)]) == 0
    cases = load_directory(out)
    assert len(cases) == 30
    assert main(["cases", "validate", str(out)]) == 0
    assert all(c.language == "zh" and c.llm_roles_only for c in cases)
    # the official set's strata (reference section 11)
    assert sorted(c.dominant_axis for c in cases).count("C") == 10
    assert {c.domain for c in cases} == {
        "daily_life", "health", "leisure", "values_identity", "relationships", "career"
    }  # fmt: skip
    bands = [c.difficulty for c in cases]
    assert [bands.count(b) for b in ("easy", "medium", "hard", "extreme")] == [4, 10, 11, 5]
    # files round-trip, and the marker is in them
    text = (out / "script_003.yaml").read_text(encoding="utf-8")
    assert "llm_roles_only: true" in text and "language: zh" in text
    assert dump_case(load_case(out / "script_003.yaml")) == text


@needs_data
def test_fields_come_from_the_card_and_the_plot(tmp_path: Path) -> None:
    report = asyncio.run(aconvert_official_cases(OFFICIAL_DATA))
    case = {c.id: c for c in report.cases}["script_003"]
    assert (case.persona.name, case.persona.gender, case.persona.age) == ("林思悦", "女", 26)
    assert case.persona.inner_core == "冷酷理智，用逻辑而非情感做判断"
    assert case.empathy_threshold == "low" and case.domain == "leisure"
    assert case.profile.opening_topic == "我新买的攀岩鞋好挤脚啊，你们有没有什么舒服又好用的推荐？"
    assert case.profile.priorities.model_dump() == {
        "affective": "medium", "motivational": "low", "cognitive": "high"
    }  # fmt: skip
    assert case.experience.childhood.startswith("林思悦的父亲是个业余木匠")
    assert case.scenario_trigger.startswith("林思悦在周末的下午拆开了新买的咖啡机")
    stories = json.loads(
        (OFFICIAL_DATA / "empa/data/scenarios/character_stories.json").read_text("utf-8")
    )
    story = next(s for s in stories if s["剧本编号"] == "script_003")
    assert [s.summary for s in case.plot.stages] == [
        story["故事的经过"][f"阶段{i}"]["内容"] for i in range(1, 5)
    ]
    assert case.plot.outcome == story["故事的结果"] and case.plot.interlude == story["故事的插曲"]
    # what the official format lacks is marked, never invented
    assert case.cues.hidden_emotions == (MISSING,) and case.plot.stages[0].emotions == (MISSING,)
    assert case.voice.memories.childhood == (case.experience.childhood,)
    # a ranking (script_059: 认知 > 情感 > 动机) and numbered lists (script_042) are read too
    by_id = {c.id: c for c in report.cases}
    assert by_id["script_059"].profile.priorities.cognitive == "high"
    assert by_id["script_042"].profile.priorities.model_dump() == {
        "affective": "high", "motivational": "low", "cognitive": "medium"
    }  # fmt: skip


@needs_data
def test_iedr_levels_from_the_published_results(tmp_path: Path) -> None:
    report = asyncio.run(aconvert_official_cases(OFFICIAL_DATA))
    assert set(report.iedr_source.values()) == {"published results"}
    for case in report.cases:
        published = json.loads((RUNS / "gpt-4o" / f"{case.id}_result.json").read_text("utf-8"))
        assert case.p0.tolist() == published["epj"]["trajectory"][0]["P_t"], case.id


@needs_data
def test_without_published_levels_each_card_says_to_rate_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _cards_only(tmp_path)
    out = tmp_path / "cases"
    assert main(["cases", "import-official", str(root), "--out", str(out)]) == 1
    text = capsys.readouterr().out
    assert "0 case(s) converted, 30 not" in text
    assert (
        text.count("no IEDR levels: no published result for this case; rate it with --iedr") == 30
    )


@needs_data
def test_iedr_rater_and_writer_through_the_scripted_server(
    tmp_path: Path, server: ScriptedLLMServer
) -> None:
    root = _cards_only(tmp_path)
    out = tmp_path / "cases"
    args = ["cases", "import-official", str(root), "--out", str(out), "--id", "script_003",
            "--id", "script_282", "--iedr", "llm:openai/scripted", "--writer",
            "llm:openai/scripted", "--api-base", server.api_base]  # fmt: skip
    assert main(args) == 0
    cases = {c.id: c for c in load_directory(out)}
    assert sorted(cases) == ["script_003", "script_282"]
    for case in cases.values():
        assert not case.llm_roles_only and case.language == "zh"
        assert MISSING not in case.cues.hidden_emotions
        assert all(MISSING not in s.emotions for s in case.plot.stages)
        assert len(case.voice.reactions.hurt) >= 4
    # the persona and the story are the card's, whatever the writer answered
    assert cases["script_003"].persona.name == "林思悦"
    assert cases["script_003"].plot.stages[0].summary.startswith("这阵噪音让林思悦想起")
    roles = {r.role for r in server.requests}
    assert {"iedr", "case-writer"} <= roles


@needs_data
def test_a_broken_card_gets_its_reason_the_rest_convert(tmp_path: Path) -> None:
    root = tmp_path / "official"
    shutil.copytree(OFFICIAL_DATA, root)
    card = root / "empa/data/cases/script_010.md"
    text = card.read_text(encoding="utf-8")
    card.write_text(text.split("<scenario>")[0], encoding="utf-8")
    stories = root / "empa/data/scenarios/character_stories.json"
    data = json.loads(stories.read_text(encoding="utf-8"))
    data = [s for s in data if s["剧本编号"] != "script_011"]
    stories.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    card = root / "empa/data/cases/script_020.md"
    card.write_text(card.read_text(encoding="utf-8").replace("共情阈值【", "阈值【"), "utf-8")
    report = asyncio.run(aconvert_official_cases(root))
    assert len(report.cases) == 27
    assert report.failures == {
        "script_010": "the card has no <scenario> section",
        "script_011": "no plot for script_011 in empa/data/scenarios/character_stories.json",
        "script_020": "the card states no empathy threshold (共情阈值【高/中/低】)",
    }
    parse_case(report.cases[0].model_dump(mode="json", by_alias=True))
