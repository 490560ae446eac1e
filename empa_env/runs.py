"""Reading a run directory (what ``empa bench`` writes) from any package: its trajectories, read
only. The benchmark's store (:mod:`benchmarks.store`) writes ``results.sqlite`` and reads the rest
of it; trainers read their trajectories through here, so nothing in ``baselines`` imports
``benchmarks``."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from empa_env.errors import UserError
from epm.trajectory import Trajectory

#: The run store's file in a run directory.
DB_NAME = "results.sqlite"


class RunReadError(UserError):
    """A run directory's store cannot be read (missing, corrupt, or a damaged row); one line."""


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that never writes: ``mode=ro``, and ``immutable`` when the folder or the file
    cannot be written (SQLite cannot open a WAL database read-only otherwise)."""
    if not path.is_file():
        raise RunReadError(f"{path} does not exist or is not a file")
    writable = os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)
    uri = f"file:{quote(str(path.resolve()))}?mode=ro" + ("" if writable else "&immutable=1")
    return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)


def read_run_trajectories(run_dir: str | Path) -> list[Trajectory]:
    """Every stored episode's trajectory, ordered by model, case and seed."""
    path = Path(run_dir) / DB_NAME
    conn = connect_read_only(path)
    try:
        rows = conn.execute(
            "SELECT episode_key, trajectory FROM episodes ORDER BY model, case_id, seed"
        ).fetchall()
    except sqlite3.Error as exc:
        raise RunReadError(f"{path}: cannot read the episodes: {exc}") from None
    finally:
        conn.close()
    out = []
    for key, text in rows:
        try:
            out.append(Trajectory.from_json(text))
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
            detail = " ".join(str(exc).split())[:160] or type(exc).__name__
            raise RunReadError(
                f"{path}: the stored trajectory of episode {key!r} is damaged ({detail})"
            ) from None
    return out


__all__ = ["DB_NAME", "RunReadError", "connect_read_only", "read_run_trajectories"]
