"""The official EMPA benchmark's case material, read from files the user gives.

The official repository (KAYA-HAI/EMPA-Benchmark-EPMSandbox, CC BY-NC 4.0) keeps its cases as
Chinese markdown cards (``empa/data/cases/script_NNN.md``), the hidden four-stage plots in
``empa/data/scenarios/character_stories.json`` and the benchmark metadata in
``empa/data/case_metadata.json``. This module reads that layout (a checkout, or any folder with
the same paths); nothing of it is shipped with this package.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The official repository, recorded as the source of imported material.
OFFICIAL_REPOSITORY = "KAYA-HAI/EMPA-Benchmark-EPMSandbox"
OFFICIAL_LICENSE = "CC BY-NC 4.0"

#: Official life-domain labels (Chinese, and the English ones of its CSV reports) -> our domains.
DOMAIN_OF: dict[str, str] = {
    "生活状况": "daily_life",
    "身心健康": "health",
    "休闲娱乐": "leisure",
    "观念认同": "values_identity",
    "人际关系": "relationships",
    "生涯发展": "career",
    "Life": "daily_life",
    "Health": "health",
    "Leisure": "leisure",
    "Values": "values_identity",
    "Relations": "relationships",
    "Career": "career",
}
#: Official difficulty labels -> our bands (the official cut points are ours: 28 / 32 / 36).
DIFFICULTY_OF: dict[str, str] = {
    "较易": "easy",
    "中等": "medium",
    "困难": "hard",
    "极难": "extreme",
    "Easy": "easy",
    "Medium": "medium",
    "Hard": "hard",
    "Very Hard": "extreme",
}
#: 高 / 中 / 低 (high / medium / low), for empathy thresholds and priorities.
LEVEL_OF: dict[str, str] = {"高": "high", "中": "medium", "低": "low"}

CASES_DIR = Path("empa", "data", "cases")
STORIES_FILE = Path("empa", "data", "scenarios", "character_stories.json")
METADATA_FILE = Path("empa", "data", "case_metadata.json")
CASE_LIST_FILE = Path("empa", "data", "official_cases.txt")


#: The largest file read from an official checkout (a published episode is well under 1 MB).
MAX_FILE_BYTES = 32 * 1024 * 1024


class UnsafeFileError(OSError):
    """A file of an official checkout that is not read: a link out of the tree, a FIFO, a
    device, a folder, or too large (the message says which)."""


def read_regular_file(
    path: str | Path, root: str | Path | None = None, max_bytes: int = MAX_FILE_BYTES
) -> bytes:
    """The bytes of ``path`` when it is a regular file inside ``root`` (after following links),
    else :class:`UnsafeFileError`: a link never leads out of the tree, and a FIFO or a device is
    never opened in a way that could block (``O_NONBLOCK``; only regular files are read)."""
    path = Path(path)
    target = path.resolve()
    if root is not None and not target.is_relative_to(Path(root).resolve()):
        raise UnsafeFileError(f"a link to {target}, outside {Path(root)}; not followed")
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise UnsafeFileError(f"cannot open it: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = (
                "a folder" if stat.S_ISDIR(info.st_mode)
                else "a FIFO" if stat.S_ISFIFO(info.st_mode)
                else "a device or socket"
            )  # fmt: skip
            raise UnsafeFileError(f"{kind}, not a regular file; not read")
        if info.st_size > max_bytes:
            raise UnsafeFileError(f"{info.st_size} bytes, more than {max_bytes}; not read")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise UnsafeFileError(f"more than {max_bytes} bytes; not read")
        return data
    finally:
        os.close(fd)


def find_official_root(path: str | Path) -> Path | None:
    """The folder holding ``empa/data`` at or above ``path`` (``None`` if there is none)."""
    path = Path(path).resolve()
    for candidate in (path, *path.parents):
        if (candidate / "empa" / "data").is_dir():
            return candidate
    return None


def load_case_metadata(root: Path | None) -> dict[str, dict[str, Any]]:
    """``script_id -> {category, difficulty, dominant_axis, distance}`` from the metadata file.

    Missing or unreadable metadata gives ``{}`` (the caller falls back to what the episode has).
    """
    if root is None or not (root / METADATA_FILE).is_file():
        return {}
    try:
        data = json.loads(read_regular_file(root / METADATA_FILE, root).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    rows = data.get("sampled_cases", []) if isinstance(data, dict) else data
    return {str(r["script_id"]): r for r in rows if isinstance(r, dict) and r.get("script_id")}


_THRESHOLD = re.compile(r"共情阈值\s*[【\[(（]\s*([高中低])\s*[】\])）]")


def card_threshold(card_text: str) -> str | None:
    """The empathy threshold (``high`` / ``medium`` / ``low``) stated in a case card."""
    block = _section(card_text, "empathy_threshold") or card_text
    match = _THRESHOLD.search(block)
    return LEVEL_OF[match.group(1)] if match else None


def read_card_threshold(root: Path | None, script_id: str) -> str | None:
    if root is None:
        return None
    path = root / CASES_DIR / f"{script_id}.md"
    try:
        return card_threshold(read_regular_file(path, root).decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def _section(text: str, tag: str) -> str | None:
    """The text inside ``<tag>...</tag>`` of a card, or ``None``."""
    match = re.search(rf"<{tag}>(.*?)</{tag}>", text, flags=re.S)
    return match.group(1) if match else None


# --- case cards -> our case files -----------------------------------------------------------
#: What fills an offline-only field the official format does not have (cases marked
#: ``llm_roles_only``): "(not given in the official case)".
MISSING = "（官方案例未提供）"
#: The official plots have four stages, always in this order.
STAGE_ORDER: tuple[str, ...] = (
    "evoked_memory",
    "reflection",
    "self_examination",
    "emotional_eruption",
)
#: The need each stage brings forward when no writer says otherwise (an assumption of ours:
#: memories and the eruption are affective, reflection cognitive, self-examination motivational).
DEFAULT_FOCUS: dict[str, str] = {
    "evoked_memory": "affective",
    "reflection": "cognitive",
    "self_examination": "motivational",
    "emotional_eruption": "affective",
}
IEDR_KEYS: tuple[str, ...] = ("C.1", "C.2", "C.3", "A.1", "A.2", "A.3", "P.1", "P.2", "P.3")
_PRIORITY_TOKEN = re.compile(r"最高|极高|最优先|最低|最后|其次|最|高|中|低")
_PRIORITY_OF = {"最高": "high", "极高": "high", "最优先": "high", "最": "high", "高": "high",
                "其次": "medium", "中": "medium", "低": "low", "最低": "low", "最后": "low"}  # fmt: skip
_ASPECT_LABELS = {"affective": "情感共情", "motivational": "动机共情", "cognitive": "认知共情"}
_PROFILE_LABELS = ("想要找人倾诉的想法与内容", "倾诉中想要获得的共情点", "人物共情阈值",
                   "当下共情需求优先级")  # fmt: skip
_EXPERIENCE_LABELS = ("童年经历", "少年经历", "青年经历", "隐形成长主线脉络", "现在的情况",
                      "现在的人生主线目标", "现在的人生愿景与动力")  # fmt: skip


class OfficialCaseError(ValueError):
    """One official case that cannot be converted (the message says why)."""


def _labelled(text: str, labels: tuple[str, ...]) -> dict[str, str]:
    """``label -> text`` for paragraphs that start with ``label：`` (up to the next label)."""
    pattern = "|".join(re.escape(lb) for lb in labels)
    # a label may carry a parenthetical before its colon: 现在的情况（工作、生活、情感等方面）：
    parts = re.split(rf"(?m)^\s*[-*]?\s*({pattern})\s*(?:[（(][^）)\n]*[）)])?\s*[：:]", text)
    out: dict[str, str] = {}
    for label, body in zip(parts[1::2], parts[2::2], strict=True):
        body = re.split(r"(?m)^\s*#", body)[0]  # stop at the next heading
        out[label] = " ".join(line.strip() for line in body.strip().splitlines() if line.strip())
    return out


def _headed(block: str) -> dict[str, str]:
    """``heading -> body`` for the markdown headings of a card section."""
    parts = re.split(r"(?m)^\s*#{1,6}\s*(.+?)\s*$", block)
    return {
        title.strip(): body.strip() for title, body in zip(parts[1::2], parts[2::2], strict=True)
    }


def _field(block: str, label: str) -> str | None:
    match = re.search(rf"(?m)^\s*[-*]?\s*{re.escape(label)}\s*[：:]\s*(.+?)\s*$", block)
    return match.group(1).strip() if match else None


def _bullets(text: str) -> list[str]:
    return [
        re.sub(r"^[-*]\s*", "", line.strip())
        for line in text.splitlines()
        if line.strip().startswith(("-", "*")) and len(line.strip()) > 2
    ]


def parse_priority(text: str) -> str | None:
    """``high`` / ``medium`` / ``low`` from the head of a priority line, in any of the official
    formats (``高优先级 + ...``, ``[优先级：中]``, ``【低】``, ``[最高优先级 | ...``, ``其次。``,
    ``最希望...`` / ``其次是...`` / ``最后是...``, ``（最优先`` / ``（优先级最低``)."""
    match = _PRIORITY_TOKEN.search(text[:16])
    return _PRIORITY_OF[match.group(0)] if match else None


def _priorities(profile_block: str) -> dict[str, str]:
    """The three priorities: one line per aspect, or a ranking ``认知共情 > 情感共情 > 动机共情``
    (first high, second medium, third low)."""
    head = profile_block.find("当下共情需求优先级")
    if head >= 0:  # the labels may also occur in the profile's prose before the priorities
        profile_block = profile_block[head:]
    labels = "|".join(_ASPECT_LABELS.values())
    ranking = re.search(rf"({labels})\s*[>＞]\s*({labels})\s*[>＞]\s*({labels})", profile_block)
    if ranking and len(set(ranking.groups())) == 3:
        aspect_of = {label: aspect for aspect, label in _ASPECT_LABELS.items()}
        return {
            aspect_of[label]: level
            for label, level in zip(ranking.groups(), ("high", "medium", "low"), strict=True)
        }
    out: dict[str, str] = {}
    for aspect, label in _ASPECT_LABELS.items():
        match = re.search(rf"{label}\s*[：:（(]?\s*(.+)", profile_block)
        level = parse_priority(match.group(1)) if match else None
        if level is None:
            found = "no line" if match is None else f"unreadable line {match.group(1)[:30]!r}"
            raise OfficialCaseError(f"priority of {label} ({aspect}): {found}")
        out[aspect] = level
    return out


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.findall(r"[^。！？!?]+[。！？!?]?", text) if s.strip()]


def parse_card(text: str) -> dict[str, Any]:
    """A case draft (persona, profile, experience, trigger, threshold) from an official card."""
    sections = {
        tag: _section(text, tag)
        for tag in ("character_info", "empathy_threshold", "psychological_profile", "experience",
                    "scenario")
    }  # fmt: skip
    missing = [tag for tag, body in sections.items() if body is None]
    if missing:
        raise OfficialCaseError(f"the card has no <{'>, <'.join(missing)}> section")
    info = sections["character_info"] or ""
    name, gender, age = _field(info, "姓名"), _field(info, "性别"), _field(info, "年龄")
    age_digits = re.search(r"\d+", age or "")
    if not name or not gender or not age_digits:
        raise OfficialCaseError("the card's <character_info> lacks 姓名, 性别 or 年龄")
    headed = _headed(info)
    output_format = next((body for title, body in headed.items() if "输出格式" in title), "")
    reply_length = next((ln.strip() for ln in output_format.splitlines() if "长度" in ln), None)
    strategy = next((body for title, body in headed.items() if "聊天策略" in title), "")
    principles = next((body for title, body in headed.items() if "聊天原则" in title), "")
    threshold_text = sections["empathy_threshold"] or ""
    threshold = card_threshold(text)
    if threshold is None:
        raise OfficialCaseError("the card states no empathy threshold (共情阈值【高/中/低】)")
    threshold_sentence = re.sub(r"(?m)^\s*#.*$", "", threshold_text).strip()
    chat_principles = [*_bullets(principles), *_bullets(strategy)] or [
        " ".join(principles.split()) or threshold_sentence
    ]

    profile_block = sections["psychological_profile"] or ""
    profile_headed = _headed(profile_block)
    topic = next((body for title, body in profile_headed.items() if "聊天话题" in title), "")
    labelled = _labelled(profile_block, _PROFILE_LABELS)
    experience = _labelled(sections["experience"] or "", _EXPERIENCE_LABELS)
    trigger = _labelled(sections["scenario"] or "", ("故事的起因",)).get("故事的起因")
    lacking = [
        what
        for what, value in (
            ("聊天话题 (opening topic)", topic),
            ("想要找人倾诉的想法与内容 (vent)", labelled.get("想要找人倾诉的想法与内容")),
            ("倾诉中想要获得的共情点 (hoped empathy)", labelled.get("倾诉中想要获得的共情点")),
            ("故事的起因 (scenario trigger)", trigger),
            *((f"{lb} (experience)", experience.get(lb)) for lb in _EXPERIENCE_LABELS[:6]),
        )
        if not value
    ]
    if lacking:
        raise OfficialCaseError("the card lacks " + ", ".join(lacking))
    goals = experience["现在的人生主线目标"]
    if experience.get("现在的人生愿景与动力"):
        goals = f"{goals} {experience['现在的人生愿景与动力']}"
    return {
        "empathy_threshold": threshold,
        "persona": {
            "name": name,
            "gender": gender,
            "age": int(age_digits.group(0)),
            "social_persona": _field(info, "社交性格") or MISSING,
            "inner_core": _field(info, "内核性格") or MISSING,
            "speaking_style": " ".join(strategy.split())
            or " ".join(output_format.split())
            or MISSING,
            **({"reply_length": reply_length} if reply_length else {}),
            "chat_principles": chat_principles,
        },
        "profile": {
            "opening_topic": " ".join(topic.split()),
            "vent": labelled["想要找人倾诉的想法与内容"],
            "hoped_empathy": labelled["倾诉中想要获得的共情点"],
            "priorities": _priorities(profile_block),
        },
        "experience": {
            "childhood": experience["童年经历"],
            "adolescence": experience["少年经历"],
            "young_adulthood": experience["青年经历"],
            "growth_arc": experience["隐形成长主线脉络"],
            "current_situation": experience["现在的情况"],
            "goals": goals,
        },
        "scenario_trigger": trigger,
    }


def parse_story(story: dict[str, Any]) -> dict[str, Any]:
    """The plot (four stages, outcome, interlude) from one ``character_stories.json`` entry."""
    stages_in = story.get("故事的经过")
    if not isinstance(stages_in, dict):
        raise OfficialCaseError("the plot has no 故事的经过 (stages)")
    keys = sorted(stages_in, key=lambda k: int(re.sub(r"\D", "", k) or 999))
    if len(keys) != 4:
        raise OfficialCaseError(f"the plot has {len(keys)} stages, not 4")
    stages = []
    for kind, key in zip(STAGE_ORDER, keys, strict=True):
        stage = stages_in[key]
        content = str(stage.get("内容", "") if isinstance(stage, dict) else stage).strip()
        if not content:
            raise OfficialCaseError(f"plot stage {key} is empty")
        stages.append({"kind": kind, "summary": content, "title": stage.get("标题", "")
                       if isinstance(stage, dict) else ""})  # fmt: skip
    outcome = str(story.get("故事的结果", "")).strip()
    interlude = str(story.get("故事的插曲", "")).strip()
    if not outcome or not interlude:
        raise OfficialCaseError("the plot lacks 故事的结果 (outcome) or 故事的插曲 (interlude)")
    return {"stages": stages, "outcome": outcome, "interlude": interlude}


def offline_placeholders(draft: dict[str, Any], plot: dict[str, Any]) -> dict[str, Any]:
    """Voice, cues and stage narration/emotions/focus for a case without a writer.

    Whatever the official case does say is used (the opening topic, the memories from the
    experience, the plot text, the life vision); everything else is :data:`MISSING`. The case is
    marked ``llm_roles_only``.
    """
    ex, pr = draft["experience"], draft["profile"]
    facts = _sentences(draft["scenario_trigger"]) + _sentences(pr["vent"])
    stages = []
    for stage in plot["stages"]:
        sentences = _sentences(stage["summary"])
        narration = (sentences + [MISSING, MISSING])[: max(2, min(3, len(sentences)))]
        stages.append({
            "kind": stage["kind"], "summary": stage["summary"], "narration": narration,
            "emotions": [MISSING], "focus": DEFAULT_FOCUS[stage["kind"]],
        })  # fmt: skip
    return {
        "plot": {"stages": stages, "outcome": plot["outcome"], "interlude": plot["interlude"]},
        "voice": {
            "openings": [pr["opening_topic"], MISSING],
            "reactions": {k: [MISSING] * 4 for k in ("guarded", "neutral", "opening_up", "hurt")},
            "memories": {
                "childhood": [ex["childhood"]],
                "adolescence": [ex["adolescence"]],
                "young_adulthood": [ex["young_adulthood"]],
                "current": [ex["current_situation"]],
            },
            "details": (facts + [MISSING] * 4)[: max(4, len(facts))],
        },
        "cues": {
            "expressed_emotions": [MISSING],
            "hidden_emotions": [MISSING],
            "cognitive_knot": MISSING,
            "knot_keywords": [MISSING, MISSING],
            "core_values": [ex["goals"]],
            "key_facts": [pr["opening_topic"], draft["scenario_trigger"]],
        },
        "llm_roles_only": True,
    }


def published_iedr_levels(root: Path, script_id: str) -> dict[str, int] | None:
    """The nine IEDR levels of a case from any published episode under ``root/results``."""
    for path in sorted((root / "results").rglob(f"{script_id}_result.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            filled = data["epj"]["iedr_details"]["filled_iedr"]
            levels = {k: int(filled[k]) for k in IEDR_KEYS}
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if all(0 <= v <= 3 for v in levels.values()):
            return levels
    return None


@dataclass
class ConversionReport:
    """What :func:`convert_official_cases` did: the cases, and a reason for every card that failed."""

    cases: list[Any] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    #: script id -> where its IEDR levels came from ("published results" or the rater)
    iedr_source: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        lines = [f"{len(self.cases)} case(s) converted, {len(self.failures)} not"]
        lines += [f"  {sid}: {why}" for sid, why in sorted(self.failures.items())]
        return "\n".join(lines)


def load_stories(root: Path) -> dict[str, dict[str, Any]]:
    path = root / STORIES_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data if isinstance(data, list) else list(data.values())
    return {str(r.get("剧本编号")): r for r in rows if isinstance(r, dict) and r.get("剧本编号")}


async def aconvert_official_cases(
    path: str | Path,
    *,
    iedr: Any = None,
    writer: Any = None,
    ids: Iterable[str] | None = None,
) -> ConversionReport:
    """Convert the official cards under ``path`` (a checkout or the ``empa/data`` layout).

    ``iedr`` (an :class:`~empa_env.llm.iedr.LLMIEDRRater`) rates cases without published
    levels; ``writer`` (an :class:`~empa_env.llm.generator.LLMCaseGenerator`) writes the offline
    material. Every card either converts or gets a reason in ``failures``.
    """
    from empa_env.cases.loader import CaseError, parse_case

    root = find_official_root(path)
    if root is None or not (root / CASES_DIR).is_dir():
        raise FileNotFoundError(
            f"no official case cards ({CASES_DIR}/script_NNN.md) at or above {path}; give a "
            f"checkout of {OFFICIAL_REPOSITORY}"
        )
    metadata = load_case_metadata(root)
    stories = load_stories(root)
    wanted = set(ids) if ids is not None else None
    cards = sorted((root / CASES_DIR).glob("script_*.md"))
    report = ConversionReport()
    for card in cards:
        sid = card.stem
        if wanted is not None and sid not in wanted:
            continue
        try:
            draft = parse_card(card.read_text(encoding="utf-8"))
            if sid not in stories:
                raise OfficialCaseError(f"no plot for {sid} in {STORIES_FILE}")
            plot = parse_story(stories[sid])
            domain = DOMAIN_OF.get(str(metadata.get(sid, {}).get("category", "")))
            if domain is None:
                raise OfficialCaseError(f"no life domain for {sid} in {METADATA_FILE}")
            body = {**draft, **offline_placeholders(draft, plot)}
            case_data: dict[str, Any] = {
                "id": sid,
                "language": "zh",
                "domain": domain,
                **body,
                "source": f"official:{OFFICIAL_REPOSITORY}/{CASES_DIR.as_posix()}/{card.name} "
                f"({OFFICIAL_LICENSE})",
            }
            levels = published_iedr_levels(root, sid)
            if levels is not None:
                report.iedr_source[sid] = "published results"
            elif iedr is not None:
                rated = {k: v for k, v in case_data.items() if k not in ("voice", "cues")}
                rating = await iedr.arate(rated)
                levels = rating.as_case_levels()
                report.iedr_source[sid] = f"rated by {iedr.name}"
            else:
                raise OfficialCaseError(
                    "no IEDR levels: no published result for this case; rate it with "
                    "--iedr llm:MODEL"
                )
            case_data["iedr"] = levels
            if writer is not None:
                case_data = await writer.acomplete_material(case_data)
            report.cases.append(parse_case(case_data, str(card)))
        except (OfficialCaseError, CaseError) as exc:
            report.failures[sid] = str(exc).replace("\n", " ")
        except Exception as exc:  # an LLM or file failure: this card only
            report.failures[sid] = f"{type(exc).__name__}: {str(exc)[:300]}"
    return report
