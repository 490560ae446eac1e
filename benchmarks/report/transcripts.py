"""The report's transcripts: per model its best, median and worst episode, each labelled, every turn
with the judge's levels, evidence and reasons, and the ``empa show`` command that prints it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from benchmarks.report.render import Section
from benchmarks.transcript import StoredEpisode, html_episode, pick_examples, show_command
from empa_env.safe_text import markdown_safe
from epm.trajectory import Trajectory

#: Turns shown per transcript in the report (``empa show`` prints the rest).
SHOWN_TURNS = 20


def _stored(row: Mapping[Any, Any], trajectory: Trajectory) -> StoredEpisode:
    return StoredEpisode(
        str(row["episode_key"]),
        str(row["model"]),
        str(row["case_id"]),
        int(row["seed"]),
        {"EPM_Index": row.get("EPM_Index")},
        trajectory,
    )


def _command(row: Mapping[Any, Any], run_dir: str | None) -> str:
    """The episode's ``empa show`` command: from its own run (a report of several runs carries
    each episode's folder and model name there in ``run_dir`` and ``run_model``), else from
    ``run_dir``; empty when the run's folder is unknown."""
    folder = row.get("run_dir") or run_dir
    if not folder:
        return ""
    model = row.get("run_model") or row["model"]
    return show_command(str(folder), str(model), str(row["case_id"]), int(row["seed"]))


def _markdown_command(command: str) -> str:
    """A code span, or escaped text when a name would break out of the code span."""
    if any(ch in command for ch in "`<>&") or not command.isprintable():
        return markdown_safe(command)
    return f"`{command}`"


def transcript_section(
    episodes: pd.DataFrame,
    trajectories: Mapping[str, Trajectory],
    per_model: int = 3,
    run_dir: str | None = None,
    order: Sequence[str] = (),
) -> Section:
    """A few transcripts per model (best, median, worst EPM-Index), labelled, evidence marked;
    the models in ``order`` (the ranking) first."""
    rows = {
        str(row["episode_key"]): row
        for row in episodes.to_dict("records")
        if str(row["episode_key"]) in trajectories
    }
    rank = {model: i for i, model in enumerate(order)}
    stored = sorted(
        (_stored(row, trajectories[key]) for key, row in rows.items()),
        key=lambda ep: rank.get(ep.model, len(rank)),
    )
    examples = pick_examples(stored, per_model)
    commands = [_command(rows[ex.episode.key], run_dir) for ex in examples]
    md = markdown_safe
    lines = [
        f"- {md(ex.pick)}: {md(ex.episode.model)} | {md(ex.episode.case_id)} | seed "
        f"{ex.episode.seed}" + (f": {_markdown_command(command)}" if command else "")
        for ex, command in zip(examples, commands, strict=True)
    ]
    html = "".join(
        html_episode(ex.episode, max_turns=SHOWN_TURNS, pick=ex.pick, command=command)
        for ex, command in zip(examples, commands, strict=True)
    )
    return Section(
        "Transcripts",
        "Per model its best, median and worst episode by EPM-Index (labelled); open one to read "
        f"its first {SHOWN_TURNS} turns in conversation order: the user's message (the opening "
        "for turn 1), the reply to it with the judge's quoted evidence marked, the levels with "
        "the judge's reasons, v_t and the position P_t. "
        + (
            "Each ends with the empa show command that prints the whole episode in a terminal."
            if any(commands)
            else "In a terminal, empa show with the run's folder prints every turn."
        ),
        html=html,
        markdown="\n".join(lines),
    )
