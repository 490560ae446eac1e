"""Export a run's episodes for anyone's own analysis: JSONL (everything) and Parquet (tables)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from benchmarks.store import RunStore
from empa_env.atomic import atomic_open
from epm.trajectory import Trajectory


def export_jsonl(
    store: RunStore, path: Path, trajectories: Mapping[str, Trajectory] | None = None
) -> Path:
    """One line per episode: key, model, case, seed, case metadata, EPM metrics, the conversation
    and the full trajectory.

    ``messages`` is the conversation in order as chat messages from the policy's side (the user's
    opening, then each reply and the user's answer to it). In ``trajectory``, a turn keeps its
    reply and the user's answer that *followed* it (``user_message``); the message a reply answers
    is the previous turn's ``user_message``, or ``trajectory.opening`` for turn 1.
    """
    with atomic_open(path, "w") as fh:
        for key, model, case_id, seed, metrics, case_meta, trajectory in store.iter_rows():
            parsed = (
                trajectories[key] if trajectories is not None else store.trajectory(key, trajectory)
            )
            traj = store.decode(key, "trajectory", trajectory)
            record = {
                "episode_key": key,
                "model": model,
                "case_id": case_id,
                "seed": seed,
                "case": case_meta,
                "epm": metrics,
                "messages": parsed.transcript(),
                "trajectory": traj,
            }
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def export_parquet(
    store: RunStore, directory: Path, trajectories: Mapping[str, Trajectory] | None = None
) -> list[Path]:
    """``episodes.parquet`` (one row per episode) and ``turns.parquet`` (one row per turn).

    ``trajectories`` (``store.trajectories()``, when the caller has read them already) saves
    reading and parsing every stored trajectory again.

    A turn's row reads in conversation order: ``user_before`` (the user's message the reply
    answers: the opening for turn 1, else the previous turn's answer), ``reply``, then
    ``user_message`` (the user's answer to the reply; empty once the episode has ended).
    """
    episodes = store.episodes_frame()
    turns = []
    for key, model, case_id, seed, _m, _c, stored in store.iter_rows():
        traj = trajectories[key] if trajectories is not None else store.trajectory(key, stored)
        before = traj.opening
        for t in traj.turns:  # the records' own fields (asdict copies every nested list)
            j = t.judgement
            row = {
                "episode_key": key,
                "model": model,
                "case_id": case_id,
                "seed": seed,
                "turn": t.turn,
            }
            row |= {f"{a}_Prog": j.prog[a] for a in "CAP"} | {f"{a}_Neg": j.neg[a] for a in "CAP"}
            row |= {
                "judge_failed": j.failed,
                "judge_error": j.error,
                "v_C": t.v[0], "v_A": t.v[1], "v_P": t.v[2],
                "P_C": t.position[0], "P_A": t.position[1], "P_P": t.position[2],
                "delta_E": t.delta_E, "alignment": t.alignment, "projection": t.projection,
                "distance": t.distance, "reward": t.reward, "status": t.status,
                "director_tool": (t.director or {}).get("tool"),
                "user_before": before, "reply": t.reply, "user_message": t.user_message,
                "evidence": json.dumps(j.evidence, ensure_ascii=False),
            }  # fmt: skip
            turns.append(row)
            before = t.user_message
    paths = [directory / "episodes.parquet", directory / "turns.parquet"]
    for path, frame in zip(paths, [episodes, pd.DataFrame.from_records(turns)], strict=True):
        with atomic_open(path, "wb") as fh:
            frame.to_parquet(fh, index=False)
    return paths
