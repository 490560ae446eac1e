"""The run store: one SQLite database per run directory, one committed row per finished episode.

Every finished episode is written in its own transaction (WAL journal), so killing the process at
any moment (even SIGKILL) loses at most the episodes still in flight. Rerunning the same command
skips finished episodes (the primary key is ``model|case_id|seed``) and never duplicates them.
A run has one configuration fingerprint; opening it with another is refused.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from empa_env.errors import UserError
from epm.trajectory import Trajectory

DB_NAME = "results.sqlite"
SCHEMA_VERSION = 2  # 2: the never-written per-episode usage column removed

_SCHEMA = """
CREATE TABLE IF NOT EXISTS run (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS policies (name TEXT PRIMARY KEY, descriptor TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS episodes (
    episode_key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    case_id TEXT NOT NULL,
    seed INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    epm_index REAL,
    judge_failures INTEGER NOT NULL,
    metrics TEXT NOT NULL,
    case_meta TEXT NOT NULL,
    trajectory TEXT NOT NULL,
    finished_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS errors (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    episode_key TEXT NOT NULL,
    error TEXT NOT NULL,
    at TEXT NOT NULL
);
"""


class ConfigMismatchError(UserError, RuntimeError):
    """The run directory holds results of a different configuration."""


def fingerprint(config: Mapping[str, Any]) -> str:
    """A stable hash of a JSON-able configuration."""
    blob = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def episode_key(model: str, case_id: str, seed: int) -> str:
    return f"{model}|{case_id}|{seed}"


@dataclass(frozen=True)
class EpisodeRow:
    """What one finished episode leaves in the store."""

    model: str
    case_id: str
    seed: int
    metrics: dict[str, Any]
    case_meta: dict[str, Any]
    trajectory: Trajectory

    @property
    def key(self) -> str:
        return episode_key(self.model, self.case_id, self.seed)


class RunStore:
    """Open (or create) the store of ``run_dir`` for ``config``; refuses a different config."""

    def __init__(self, run_dir: str | Path, config: Mapping[str, Any] | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.run_dir / DB_NAME
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")  # durable against process kills in WAL mode
        self.conn.executescript(_SCHEMA)
        if config is not None:
            self._bind_config(dict(config))

    # --- configuration -----------------------------------------------------------------------
    def _bind_config(self, config: dict[str, Any]) -> None:
        fp = fingerprint(config)
        stored = self.run_info()
        if not stored:
            with self.conn:
                self.conn.execute("BEGIN")
                self.conn.executemany(
                    "INSERT INTO run(key, value) VALUES (?, ?)",
                    [
                        ("fingerprint", fp),
                        ("config", json.dumps(config, sort_keys=True, default=str)),
                        ("schema_version", str(SCHEMA_VERSION)),
                        ("created_at", _now()),
                    ],
                )
            return
        if stored.get("fingerprint") != fp:
            old = json.loads(stored.get("config", "{}"))
            new = json.loads(json.dumps(config, sort_keys=True, default=str))
            diff = _differing_paths(old, new)
            raise ConfigMismatchError(
                f"{self.run_dir} holds results of another configuration (differs in: "
                f"{', '.join(diff) or 'details'}); use a new --out directory or the same options"
            )

    def run_info(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM run").fetchall())

    def set_run_value(self, key: str, value: Any) -> None:
        """Record a run-level fact (e.g. the token and cost ledger); JSON-encoded."""
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute(
                "INSERT INTO run(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, json.dumps(value, sort_keys=True, default=str)),
            )

    @property
    def config(self) -> dict[str, Any]:
        return json.loads(self.run_info().get("config", "{}"))

    def register_policy(self, name: str, descriptor: Mapping[str, Any]) -> None:
        """Bind a policy name to its descriptor; a different policy under the same name is refused."""
        blob = json.dumps(dict(descriptor), sort_keys=True, default=str)
        row = self.conn.execute(
            "SELECT descriptor FROM policies WHERE name = ?", (name,)
        ).fetchone()
        if row is None:
            self.conn.execute("INSERT INTO policies(name, descriptor) VALUES (?, ?)", (name, blob))
        elif row[0] != blob:
            raise ConfigMismatchError(
                f"policy name {name!r} is already used in {self.run_dir} by a different policy "
                f"({row[0]}); give this one another name or use a new --out directory"
            )

    # --- episodes ----------------------------------------------------------------------------
    def finished_keys(self) -> set[str]:
        return {k for (k,) in self.conn.execute("SELECT episode_key FROM episodes")}

    def add_episode(self, row: EpisodeRow) -> bool:
        """Commit one finished episode; returns False if it was already stored (never duplicates)."""
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO episodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.key,
                    row.model,
                    row.case_id,
                    row.seed,
                    row.metrics.get("outcome", ""),
                    row.metrics.get("EPM_Index"),
                    int(row.metrics.get("judge_failures", 0)),
                    json.dumps(row.metrics, allow_nan=False),
                    json.dumps(row.case_meta),
                    row.trajectory.to_json(),
                    _now(),
                ),
            )
        return cur.rowcount == 1

    def add_error(self, key: str, error: str) -> None:
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute(
                "INSERT INTO errors(episode_key, error, at) VALUES (?, ?, ?)", (key, error, _now())
            )

    def errors(self) -> list[dict[str, str]]:
        rows = self.conn.execute("SELECT episode_key, error, at FROM errors ORDER BY id").fetchall()
        return [{"episode_key": k, "error": e, "at": a} for k, e, a in rows]

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])

    def iter_rows(self) -> Iterator[tuple[str, str, str, int, dict, dict, str]]:
        yield from (
            (k, m, c, s, json.loads(mt), json.loads(cm), tj)
            for k, m, c, s, mt, cm, tj in self.conn.execute(
                "SELECT episode_key, model, case_id, seed, metrics, case_meta, trajectory "
                "FROM episodes ORDER BY model, case_id, seed"
            )
        )

    def episodes_frame(self) -> pd.DataFrame:
        """One row per episode: key, model, case, seed, case metadata and every EPM field."""
        records = []
        for key, model, case_id, seed, metrics, case_meta, _traj in self.iter_rows():
            record = {"episode_key": key, "model": model, "case_id": case_id, "seed": seed}
            record.update({k: v for k, v in case_meta.items() if k not in ("id", "p0")})
            record.update({k: v for k, v in metrics.items() if k != "case_id"})
            records.append(record)
        return pd.DataFrame.from_records(records)

    def trajectories(self) -> dict[str, Trajectory]:
        return {row[0]: Trajectory.from_json(row[6]) for row in self.iter_rows()}

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _differing_paths(old: Any, new: Any, prefix: str = "") -> list[str]:
    """Dotted paths where two configurations differ (``env.preset.ending.max_turns``)."""
    if isinstance(old, dict) and isinstance(new, dict):
        paths: list[str] = []
        for key in sorted(set(old) | set(new)):
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in old or key not in new:
                paths.append(path)
            else:
                paths.extend(_differing_paths(old[key], new[key], path))
        return paths
    return [] if old == new else [prefix or "(root)"]
