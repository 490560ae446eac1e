"""Import the published episodes of the official EMPA benchmark into a normal run store.

The official repository (KAYA-HAI/EMPA-Benchmark-EPMSandbox, CC BY-NC 4.0) publishes one folder
per model, ``results/benchmark_runs/<benchmark>/<model>/script_NNN_result.json``, one JSON file per
episode: the dialogue (``history``), the ending (``termination_reason``, ``total_turns``) and the
EPM record (``epj.trajectory``: point 0 is ``P_0``, every later point has ``v_t``, ``P_t`` and the
judge's levels with evidence and reasoning in ``mdep_analysis``).

:func:`import_official` turns every such folder under a path into one model of a run store
(:class:`benchmarks.store.RunStore`), one :class:`epm.Trajectory` per episode with

* the transcript (the Actor's opening, then every reply and the Actor's answer to it),
* per turn the judge's levels, evidence and reasoning (:class:`epm.Judgement`), ``v_t``, ``P_t``
  and the physics ``epm`` derives from them (``delta_E``, alignment, projection, distance),
* the published ending (``outcome``, victory type or failure reason) and its original text,
* the case metadata (life domain, difficulty, dominant axis, ``||P_0||``, empathy threshold).

Metrics and EPM-Q indices are recomputed with ``epm`` (``official`` preset), exactly as for a run
of our own, so ``empa report`` and ``empa export`` work on the result unchanged. A turn the
reference's judge did not rate (it scored zeros) is recorded as a judge failure, never as a
silent zero. A file that cannot be read is reported with one clear reason; the others are imported.
"""

from __future__ import annotations

import fnmatch
import json
import math
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.store import EpisodeRow, RunStore, episode_key
from empa_env import __version__
from empa_env.cases.official import (
    DIFFICULTY_OF,
    DOMAIN_OF,
    OFFICIAL_LICENSE,
    OFFICIAL_REPOSITORY,
    UnsafeFileError,
    find_official_root,
    load_case_metadata,
    read_card_threshold,
    read_regular_file,
)
from empa_env.errors import UserError
from empa_env.safe_text import check_name, terminal_safe
from epm import AXES, Judgement, Trajectory, TurnRecord, evaluate, get_preset, replay
from epm.config import EPMConfig
from epm.dynamics import goal_distance, turn_physics, unit_toward_origin
from epm.rubric import difficulty_band, dominant_axis, increment

RESULT_GLOB = "script_*_result.json"
#: The suite name imported runs carry (the official 30-case set, in Chinese).
OFFICIAL_SUITE = "empa-official"
_CASE_ID = re.compile(r"^(script_\d+)_result$")
#: What a case id may hold (the case schema's rule): it names files and keys, never a path.
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class OfficialFormatError(UserError, ValueError):
    """One published episode file that cannot be imported (the message says why)."""


@dataclass
class ImportReport:
    """What :func:`import_official` did."""

    run_dir: Path
    #: model -> episodes imported into the store (or already there)
    models: dict[str, int] = field(default_factory=dict)
    imported: int = 0
    already_there: int = 0
    #: (file, reason) for every file that could not be imported
    errors: list[tuple[Path, str]] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [
            f"{self.imported} episode(s) imported into {self.run_dir} "
            f"({self.already_there} already there) for {len(self.models)} model(s): "
            + ", ".join(f"{m} ({n})" for m, n in self.models.items())
        ]
        if self.errors:
            lines.append(f"{len(self.errors)} file(s) could not be imported:")
            lines += [
                f"  {terminal_safe(path, single_line=True)}: "
                + terminal_safe(" ".join(reason.split())[:300], single_line=True)
                for path, reason in self.errors
            ]
        return "\n".join(lines)


# --- discovery ------------------------------------------------------------------------------
def find_model_folders(path: str | Path) -> dict[str, Path]:
    """``model name -> folder`` for every folder under ``path`` holding published episodes.

    A model is named after its folder; two folders of the same name (e.g. under two benchmark
    runs) are told apart by their parent folder (``parent/name``).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    folders = sorted({p.parent for p in _candidates(path)})
    names: dict[str, list[Path]] = {}
    for folder in folders:
        names.setdefault(folder.name, []).append(folder)
    out: dict[str, Path] = {}
    for name, group in sorted(names.items()):
        if len(group) == 1:
            out[name] = group[0]
        else:
            for folder in group:
                out[f"{folder.parent.name}/{name}"] = folder
    return out


def _candidates(path: Path) -> list[Path]:
    """Every entry named like a published episode under ``path``, whatever it is (a file, a
    link, a FIFO, a folder): the folders are walked without following links, and what cannot be
    read is reported by :func:`read_episode`, never opened blindly."""
    found = []
    for folder, names in _folders(path):
        found += [folder / name for name in names if fnmatch.fnmatchcase(name, RESULT_GLOB)]
    return sorted(found)


def _folders(path: Path) -> Iterable[tuple[Path, list[str]]]:
    """``(folder, names of its entries)`` for ``path`` and every folder under it, links not
    followed. A stack, not recursion (``os.walk`` recurses once per level before Python 3.12: a
    tree a thousand folders deep was a ``RecursionError``); a folder that cannot be listed (no
    permission, a path too long) is skipped, as ``os.walk`` skips it."""
    stack = [path]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                listed = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        except OSError:
            continue
        yield folder, [name for name, _ in listed]
        stack += [folder / name for name, is_dir in listed if is_dir]


# --- one episode ----------------------------------------------------------------------------
def published_ending(reason: str, termination_type: str | None = None) -> dict[str, Any]:
    """``outcome`` / ``victory_type`` / ``failure_reason`` of a published ending.

    The reference writes e.g. ``"EPM v2.0 Success: Positional Victory (...)"``, ``"EPM v2.0
    Failure: 5 consecutive negative-energy turns (Direction Collapse), ..."``, ``"Reached max
    turns (45), timeout"``; newer versions add a ``termination_type`` (``EPM_SUCCESS_GEOMETRIC``,
    ``EPM_FAILURE``, ``MAX_TURNS``, ``STAGNATION`` for the Director-level oscillation stop,
    ``DIRECTOR_END``). Anything else was the Director ending the conversation.
    """
    text = f"{termination_type or ''} {reason or ''}".lower()
    if "success" in text or "victory" in text:
        victory = "geometric" if "geometric" in text else "positional"
        return {"outcome": "success", "victory_type": victory, "failure_reason": None}
    if "failure" in text:
        collapse = "collapse" in text or "collapsed" in text
        reason_ = "collapse" if collapse else "stagnation_regression"
        return {"outcome": "failure", "victory_type": None, "failure_reason": reason_}
    if "stagnation" in text or "停滞" in text or "oscillat" in text:
        return {"outcome": "failure", "victory_type": None, "failure_reason": "oscillation"}
    if "max turns" in text or "max_turns" in text or "timeout" in text or "超时" in text:
        return {"outcome": "truncated", "victory_type": None, "failure_reason": None}
    return {"outcome": "director_end", "victory_type": None, "failure_reason": None}


def _level(analysis: dict[str, Any], key: str) -> int:
    """A level as published (often a string, ``"-1"``); absent means 0, as the reference read it."""
    raw = analysis.get(key, 0)
    try:
        value = int(str(raw).strip().replace("+", ""))
    except ValueError as exc:
        raise OfficialFormatError(f"{key} is {raw!r}, not a level") from exc
    return value


def _judgement(analysis: Any, judge: str, turn: int, notes: list[str]) -> Judgement:
    if not isinstance(analysis, dict) or not analysis:
        return Judgement.failure(
            "the published episode has no judge analysis for this turn (the reference scored "
            "it as zeros)",
            judge=judge,
        )
    prog: dict[str, int] = {}
    neg: dict[str, int] = {}
    evidence: dict[str, str] = {}
    reasoning: dict[str, str] = {}
    for axis in AXES:
        for kind, target in (("Prog", prog), ("Neg", neg)):
            key = f"{axis}_{kind}_level"
            if key not in analysis:
                notes.append(f"turn {turn}: no {key} in the judge's analysis; read as 0")
            target[axis] = _level(analysis, key)
            ev = str(analysis.get(f"{axis}_{kind}_evidence", "") or "").strip()
            why = str(analysis.get(f"{axis}_{kind}_reasoning", "") or "").strip()
            if ev and ev != "0":
                evidence[f"{axis}_{kind}"] = ev
            if why:
                reasoning[f"{axis}_{kind}"] = why
    try:
        return Judgement(prog, neg, evidence, reasoning, judge=judge)
    except ValueError as exc:
        raise OfficialFormatError(f"turn {turn}: {exc}") from exc


def _vector(value: Any, what: str) -> list[float]:
    try:
        out = [float(x) for x in value]
    except (TypeError, ValueError, OverflowError) as exc:
        raise OfficialFormatError(f"{what} is {str(value)[:80]}, not three numbers") from exc
    if not all(math.isfinite(x) for x in out):
        raise OfficialFormatError(f"{what} is {out}, not three finite numbers")
    if len(out) != 3:
        raise OfficialFormatError(f"{what} has {len(out)} components, not 3 (C, A, P)")
    return out


def _transcript(history: Any, turns: int) -> tuple[str, list[str], list[str], list[dict]]:
    """Opening, replies, the Actor's answers and the Director's notes from ``history``."""
    if not isinstance(history, list) or not history:
        raise OfficialFormatError("no dialogue ('history' is missing or empty)")
    opening = ""
    replies: list[str] = []
    answers: list[str] = []
    director: list[dict] = []
    for i, message in enumerate(history):
        if not isinstance(message, dict) or "role" not in message:
            raise OfficialFormatError(f"history[{i}] is not a message with a role")
        content = str(message.get("content", ""))
        if message["role"] == "test_model":
            replies.append(content)
            answers.append("")
            notes = {k: message[k] for k in ("director_guidance", "epj_guidance") if message.get(k)}
            director.append({"tool": None, **notes} if notes else {})
        elif not replies:
            opening = f"{opening}\n{content}".strip() if opening else content
        else:
            answers[-1] = f"{answers[-1]}\n{content}".strip() if answers[-1] else content
    if len(replies) < turns:
        raise OfficialFormatError(
            f"the dialogue has {len(replies)} model replies for {turns} judged turns (partial file?)"
        )
    return opening, replies[:turns], answers[:turns], director[:turns]


def read_episode(
    path: str | Path,
    *,
    preset: str = "official",
    metadata: dict[str, dict[str, Any]] | None = None,
    threshold: Callable[[str], str | None] | None = None,
    root: Path | None = None,
) -> tuple[Trajectory, dict[str, Any]]:
    """One published episode file -> (trajectory, case metadata). Raises :class:`OfficialFormatError`.

    Only a regular file is read; with ``root``, a link that leads out of ``root`` is refused."""
    path = Path(path)
    try:
        data = json.loads(read_regular_file(path, root).decode("utf-8"))
    except UnsafeFileError as exc:
        raise OfficialFormatError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise OfficialFormatError(f"not UTF-8 text ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise OfficialFormatError(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); truncated?"
        ) from exc
    except RecursionError:
        raise OfficialFormatError("JSON nested too deeply to be a published episode") from None
    if not isinstance(data, dict):
        raise OfficialFormatError("not a published episode (the top level is not an object)")
    try:
        return _episode(path, data, preset, metadata or {}, threshold)
    except OfficialFormatError:
        raise
    except (KeyError, TypeError, IndexError, AttributeError, ValueError, ArithmeticError) as exc:
        raise OfficialFormatError(f"unexpected layout ({type(exc).__name__}: {exc})") from exc
    except RecursionError:
        raise OfficialFormatError("nested too deeply to be a published episode") from None


def _checked(path: Path, data: dict[str, Any]) -> tuple[str, dict[str, Any], list[Any], int]:
    """``(case id, EPM record, trajectory points, judged turns)`` of a published episode file, or
    an :class:`OfficialFormatError` saying what is missing or inconsistent."""
    match = _CASE_ID.match(path.stem)
    case_id = str(data.get("script_id") or (match.group(1) if match else path.stem))
    if len(case_id) > 128 or not _SAFE_ID.match(case_id):
        raise OfficialFormatError(
            f"script_id {case_id[:60]!r} is not a case id (letters, digits, '_', '.', '-')"
        )
    epj = data.get("epj")
    if not isinstance(epj, dict):
        raise OfficialFormatError("no EPM record ('epj' is missing)")
    points = epj.get("trajectory")
    if not isinstance(points, list) or not points:
        raise OfficialFormatError("no trajectory ('epj.trajectory' is missing or empty)")
    for i, point in enumerate(points):
        if not isinstance(point, dict) or point.get("turn") != i:
            raise OfficialFormatError(f"trajectory point {i} is missing or out of order")
    if "termination_reason" not in data:
        raise OfficialFormatError("no ending ('termination_reason' is missing; partial file?)")
    turns = len(points) - 1
    total = data.get("total_turns")
    if total is not None and (isinstance(total, bool) or not isinstance(total, int | str)):
        raise OfficialFormatError(f"total_turns is {str(total)[:40]}, not a number of turns")
    if total is not None and not str(total).strip().isdigit():
        raise OfficialFormatError(f"total_turns is {str(total)[:40]!r}, not a number of turns")
    if total is not None and int(total) != turns:
        raise OfficialFormatError(
            f"total_turns is {total} but the trajectory has {turns} judged turns (partial file?)"
        )
    if turns < 1:
        raise OfficialFormatError("the trajectory has no judged turn")
    return case_id, epj, points, turns


def _turn_records(
    points: list[Any],
    p0: np.ndarray,
    config: EPMConfig,
    judge: str,
    transcript: tuple[list[str], list[str], list[dict]],
    notes: list[str],
) -> tuple[list[TurnRecord], np.ndarray]:
    """Each judged turn replayed with the epm code (``v_t`` from the levels, ``P_t = P_(t-1) +
    v_t``) and checked against the published values; ``(records, final position)``."""
    replies, answers, director = transcript
    v_star0 = unit_toward_origin(p0)
    records: list[TurnRecord] = []
    position = p0.copy()
    for t, point in enumerate(points[1:], start=1):
        v = np.array(_vector(point.get("v_t"), f"turn {t}: v_t"))
        judgement = _judgement(point.get("mdep_analysis"), judge, t, notes)
        if not judgement.failed and increment(judgement.prog, judgement.neg).tolist() != v.tolist():
            raise OfficialFormatError(
                f"turn {t}: v_t = {v.tolist()} does not follow from the judge's levels "
                f"({judgement.prog}, {judgement.neg})"
            )
        phys = turn_physics(position, v, v_star0, config)
        published_p = _vector(point.get("P_t"), f"turn {t}: P_t")
        if not np.allclose(phys.position, published_p):
            raise OfficialFormatError(
                f"turn {t}: P_t = {published_p} but P_(t-1) + v_t = {phys.position.tolist()}"
            )
        position = phys.position
        records.append(
            TurnRecord(
                turn=t,
                reply=replies[t - 1],
                judgement=judgement,
                **phys.record_fields(),
                user_message=answers[t - 1],
                director=director[t - 1] or None,
                status="ongoing",
            )
        )
    return records, position


def _case_meta(
    case_id: str,
    p0: np.ndarray,
    meta_row: dict[str, Any],
    threshold: Callable[[str], str | None] | None,
) -> dict[str, Any]:
    """The case's metadata as the run store keeps it (from P_0 and the published case table)."""
    norm = float(np.linalg.norm(p0))
    case_meta: dict[str, Any] = {
        "id": case_id,
        "domain": DOMAIN_OF.get(str(meta_row.get("category", ""))),
        "dominant_axis": dominant_axis(p0),
        "norm_p0": round(norm, 4),
        "difficulty": DIFFICULTY_OF.get(str(meta_row.get("difficulty", "")))
        or difficulty_band(norm),
        "empathy_threshold": threshold(case_id) if threshold else None,
        "p0": [float(x) for x in p0],
        "source": f"official:{OFFICIAL_REPOSITORY} ({OFFICIAL_LICENSE})",
        "language": "zh",
    }
    if meta_row:
        case_meta["official_category"] = meta_row.get("category")
        case_meta["official_dominant_axis"] = meta_row.get("dominant_axis")
    return case_meta


def _episode(
    path: Path,
    data: dict[str, Any],
    preset: str,
    metadata: dict[str, dict[str, Any]],
    threshold: Callable[[str], str | None] | None,
) -> tuple[Trajectory, dict[str, Any]]:
    case_id, epj, points, turns = _checked(path, data)
    config = get_preset(preset)
    p0 = np.array(_vector(points[0].get("P_t"), "P_0 (trajectory point 0)"))
    if np.any(p0 > 0) or not np.any(p0):
        raise OfficialFormatError(f"P_0 = {p0.tolist()} is not a deficit")
    judge = str(data.get("judger_model", ""))
    opening, replies, answers, director = _transcript(data.get("history"), turns)

    notes: list[str] = []
    records, position = _turn_records(
        points, p0, config, judge, (replies, answers, director), notes
    )
    ending = published_ending(str(data["termination_reason"]), data.get("termination_type"))
    records[-1].status = ending["outcome"]
    status, ended_at = replay(p0.tolist(), np.array([r.v for r in records]), config)

    iedr = (epj.get("iedr_details") or {}).get("filled_iedr") or {}
    levels = {k: iedr[k] for k in ("C.1", "C.2", "C.3", "A.1", "A.2", "A.3", "P.1", "P.2", "P.3")
              if k in iedr}  # fmt: skip
    case_meta = _case_meta(case_id, p0, metadata.get(case_id, {}), threshold)
    trajectory = Trajectory(
        case_id=case_id,
        p0=p0.tolist(),
        preset=config.name,
        opening=opening,
        turns=records,
        **ending,
        meta={
            "source": "official",
            "repository": OFFICIAL_REPOSITORY,
            "license": OFFICIAL_LICENSE,
            "file": path.name,
            "termination_reason": data["termination_reason"],
            "termination_type": data.get("termination_type"),
            "test_model_name": data.get("test_model_name"),
            "roles": {
                "actor": data.get("actor_model"),
                "director": data.get("director_model"),
                "judger": data.get("judger_model"),
            },
            "timestamp": data.get("timestamp"),
            "iedr_levels": levels,
            "replayed_ending": {
                "outcome": status.outcome,
                "victory_type": status.victory_type,
                "failure_reason": status.failure_reason,
                "turn": ended_at,
                "matches_published": (
                    ended_at == turns
                    and status.outcome == ending["outcome"]
                    and status.victory_type == ending["victory_type"]
                    and status.failure_reason == ending["failure_reason"]
                ),
            },
            "import_notes": notes,
            "distance_published": points[-1].get("distance"),
            "goal_distance": float(goal_distance(position, config.goal_epsilon)),
        },
    )
    return trajectory, case_meta


# --- the whole import -----------------------------------------------------------------------
def _roles(trajectories: Iterable[Trajectory]) -> dict[str, dict[str, str]]:
    seen: dict[str, set[str]] = {"actor": set(), "director": set(), "judger": set()}
    for t in trajectories:
        for kind, model in t.meta["roles"].items():
            seen[kind].add(str(model or "unknown"))
    return {
        kind: {"class": "OfficialEMPA", "name": ", ".join(sorted(models)) or "unknown"}
        for kind, models in seen.items()
    }


def import_official(
    path: str | Path, run_dir: str | Path, *, preset: str = "official"
) -> ImportReport:
    """Import every published episode under ``path`` into the run store at ``run_dir``.

    ``path`` is a checkout of the official repository, its ``results`` folder, or one model's
    folder. Rerunning into the same ``run_dir`` adds nothing twice.
    """
    folders = find_model_folders(path)
    if not folders:
        raise FileNotFoundError(
            f"no published episodes ({RESULT_GLOB}) under {path}; give a checkout of "
            f"{OFFICIAL_REPOSITORY} or its results/benchmark_runs folder"
        )
    root = find_official_root(path)
    metadata = load_case_metadata(root)
    thresholds: dict[str, str | None] = {}

    def threshold(case_id: str) -> str | None:
        if case_id not in thresholds:
            thresholds[case_id] = read_card_threshold(root, case_id)
        return thresholds[case_id]

    report = ImportReport(Path(run_dir))
    rows: list[EpisodeRow] = []
    tree = Path(path).resolve()
    candidates = _candidates(Path(path))
    for model, folder in folders.items():
        try:
            check_name(model, "model (folder) name")
        except UserError as exc:
            report.errors += [(f, str(exc)) for f in candidates if f.parent == folder]
            continue
        for file in [f for f in candidates if f.parent == folder]:
            try:
                trajectory, case_meta = read_episode(
                    file, preset=preset, metadata=metadata, threshold=threshold, root=tree
                )
                metrics = evaluate(trajectory, preset)
                json.dumps(metrics, allow_nan=False)  # what the store needs: no inf, no NaN
            except OfficialFormatError as exc:
                report.errors.append((file, str(exc)))
                continue
            except (ValueError, ArithmeticError, RecursionError) as exc:
                report.errors.append((file, f"cannot be scored ({type(exc).__name__}: {exc})"))
                continue
            rows.append(EpisodeRow(model, trajectory.case_id, 0, metrics, case_meta, trajectory))
    if not rows:
        raise OfficialFormatError(
            f"none of the published episodes under {path} could be imported:\n"
            + "\n".join(f"  {p}: {r}" for p, r in report.errors)
        )
    config = {
        "suite": OFFICIAL_SUITE,
        "suite_version": None,
        "cases": sorted({r.case_id for r in rows}),
        "preset": get_preset(preset).name,
        "max_turns": None,
        "reward": None,
        "roles": _roles(r.trajectory for r in rows),
        "llm_options": {},
        "nee_judges": [],
        "source": f"official:{OFFICIAL_REPOSITORY}",
        "package_version": __version__,
    }
    with RunStore(run_dir, config) as store:
        store.set_run_value(
            "import",
            {
                "from": str(Path(path).resolve()),
                "repository": OFFICIAL_REPOSITORY,
                "license": OFFICIAL_LICENSE,
                "models": sorted(folders),
            },
        )
        for row in rows:
            if store.add_episode(row):
                report.imported += 1
            else:
                report.already_there += 1
            report.models[row.model] = report.models.get(row.model, 0) + 1
        logged = {(e["episode_key"], e["error"]) for e in store.errors()}
        for file, reason in report.errors:
            model = next((m for m, f in folders.items() if f == file.parent), file.parent.name)
            match = _CASE_ID.match(file.stem)
            key = episode_key(model, match.group(1) if match else file.stem, 0)
            error = f"import of {file.name}: {reason}"
            if (key, error) not in logged:
                store.add_error(key, error)
    return report
