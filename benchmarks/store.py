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
from empa_env.runs import DB_NAME, RunReadError, connect_read_only
from empa_env.secrets import scrub
from epm.trajectory import Trajectory

SCHEMA_VERSION = 3  # 2: the never-written usage column removed; 3: episode validity

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
    finished_at TEXT NOT NULL,
    invalid TEXT NOT NULL DEFAULT ''
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
    #: Why the episode's score cannot be trusted (too many failed judgements), or ``""``.
    #: Invalid episodes are kept and shown, never ranked, and a rerun plays them again.
    invalid: str = ""

    @property
    def key(self) -> str:
        return episode_key(self.model, self.case_id, self.seed)


class StoreError(UserError):
    """The run store cannot be used (corrupt, unwritable, or held by another run); one line."""


class RunStore:
    """Open (or create) the store of ``run_dir`` for ``config``; refuses a different config.

    ``read_only=True`` only reads (``empa show``, ``report``, ``export``): nothing is created or
    written, so a run directory on a read-only disk or without write permission can be read.

    Opening with a ``config`` (what ``empa bench`` does) takes the run's lock: a second process
    on the same run directory is refused with a clear message while the first one runs. An
    existing file is checked (``PRAGMA quick_check``) before it is reused.
    """

    def __init__(
        self,
        run_dir: str | Path,
        config: Mapping[str, Any] | None = None,
        *,
        read_only: bool = False,
    ) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / DB_NAME
        self.read_only = read_only
        self._lock: Any = None
        if read_only and config is not None:
            raise ValueError("a read-only store cannot bind a configuration")
        try:
            existed = True
            if read_only:
                try:
                    self.conn = connect_read_only(self.path)
                except RunReadError as exc:
                    raise StoreError(str(exc)) from None
            else:
                self.run_dir.mkdir(parents=True, exist_ok=True)
                if config is not None:
                    self._lock = _take_lock(self.run_dir)
                existed = self.path.exists()
                self.conn = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False
                )
            if read_only or existed:
                (verdict,) = self.conn.execute("PRAGMA quick_check").fetchone()
                if verdict != "ok":
                    found = "; ".join(str(verdict).splitlines()[1:3]) or str(verdict)
                    raise StoreError(f"{self.path} is corrupt ({found}); use a new --out directory")
            if not read_only:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")  # durable against kills in WAL
                self.conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            self._release()
            raise StoreError(f"{self.path}: cannot use the run store: {exc}") from None
        except OSError as exc:
            self._release()
            raise StoreError(f"{self.run_dir}: cannot write the run store: {exc}") from None
        except StoreError:
            self._release()
            raise
        if config is not None:
            try:
                self._bind_config(dict(config))
            except BaseException:
                self.close()  # a refused configuration leaves the run directory free
                raise

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

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
                        ("config", scrub(json.dumps(config, sort_keys=True, default=str))),
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
                (key, scrub(json.dumps(value, sort_keys=True, default=str))),
            )

    @property
    def config(self) -> dict[str, Any]:
        return json.loads(self.run_info().get("config", "{}"))

    def register_policy(self, name: str, descriptor: Mapping[str, Any]) -> None:
        """Bind a policy name to its descriptor; a different policy under the same name is refused."""
        blob = scrub(json.dumps(dict(descriptor), sort_keys=True, default=str))
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
        """Episodes that need no rerun: finished and valid (an invalid one is played again)."""
        return {
            k for (k,) in self.conn.execute("SELECT episode_key FROM episodes WHERE invalid = ''")
        }

    def add_episode(self, row: EpisodeRow) -> bool:
        """Commit one finished episode; returns False if it was already stored (never duplicates).

        A storage failure (disk full, read-only file) raises :class:`StoreError` with one line;
        everything committed before stays."""
        try:
            return self._add_episode(row)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot save episode {row.key}: {exc}") from None

    def _add_episode(self, row: EpisodeRow) -> bool:
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            # A rerun replaces an invalid episode; a valid one is never overwritten.
            self.conn.execute(
                "DELETE FROM episodes WHERE episode_key = ? AND invalid != ''", (row.key,)
            )
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO episodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.key,
                    row.model,
                    row.case_id,
                    row.seed,
                    row.metrics.get("outcome", ""),
                    row.metrics.get("EPM_Index"),
                    int(row.metrics.get("judge_failures", 0)),
                    scrub(json.dumps(row.metrics, allow_nan=False)),
                    scrub(json.dumps(row.case_meta)),
                    scrub(row.trajectory.to_json()),
                    _now(),
                    row.invalid,
                ),
            )
        return cur.rowcount == 1

    def add_error(self, key: str, error: str) -> None:
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute(
                "INSERT INTO errors(episode_key, error, at) VALUES (?, ?, ?)",
                (key, scrub(error), _now()),
            )

    def errors(self) -> list[dict[str, str]]:
        rows = self.conn.execute("SELECT episode_key, error, at FROM errors ORDER BY id").fetchall()
        return [{"episode_key": k, "error": e, "at": a} for k, e, a in rows]

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])

    def iter_rows(self) -> Iterator[tuple[str, str, str, int, dict, dict, str]]:
        """Every stored episode: key, model, case, seed, metrics, case metadata and the
        trajectory's JSON text (decode it with :meth:`decode`, :meth:`trajectory`)."""
        try:
            cursor = self.conn.execute(
                "SELECT episode_key, model, case_id, seed, metrics, case_meta, trajectory "
                "FROM episodes ORDER BY model, case_id, seed"
            )
            for k, m, c, s, mt, cm, tj in cursor:
                yield (k, m, c, s, self.decode(k, "metrics", mt), self.decode(k, "case", cm), tj)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot read the episodes: {exc}") from None

    def check_episodes(self) -> int:
        """Read every stored episode back (metrics, case, trajectory), as a rerun does before it
        counts them as done; returns how many. A damaged one is a :class:`StoreError`."""
        count = 0
        for key, *_decoded, text in self.iter_rows():
            self.trajectory(key, text)
            count += 1
        return count

    def decode(self, key: str, what: str, text: Any) -> Any:
        """A stored JSON column of episode ``key``; a damaged one is a :class:`StoreError`."""
        try:
            return json.loads(text)
        except (TypeError, ValueError, RecursionError) as exc:
            raise StoreError(self._damaged(key, what, exc)) from None

    def trajectory(self, key: str, text: str) -> Trajectory:
        """The stored trajectory of episode ``key``; a damaged one is a :class:`StoreError`."""
        try:
            return Trajectory.from_json(text)
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
            raise StoreError(self._damaged(key, "trajectory", exc)) from None

    def _damaged(self, key: str, what: str, exc: BaseException) -> str:
        detail = " ".join(str(exc).split())[:160] or type(exc).__name__
        return (
            f"{self.path}: the stored {what} of episode {key!r} is damaged ({detail}); the file "
            "was edited or corrupted: restore it, or rerun into a new --out directory"
        )

    def episodes_frame(self) -> pd.DataFrame:
        """One row per episode: key, model, case, seed, case metadata and every EPM field."""
        records = []
        invalid = dict(self.conn.execute("SELECT episode_key, invalid FROM episodes"))
        for key, model, case_id, seed, metrics, case_meta, _traj in self.iter_rows():
            record = {"episode_key": key, "model": model, "case_id": case_id, "seed": seed}
            record.update({k: v for k, v in case_meta.items() if k not in ("id", "p0")})
            record.update({k: v for k, v in metrics.items() if k != "case_id"})
            record["invalid"] = invalid.get(key, "")
            records.append(record)
        return pd.DataFrame.from_records(records)

    def content_digest(self) -> str:
        """sha256 of every stored episode as stored (its row, trajectory and invalid mark, in key
        order): a report of this run is redrawn only when this (or the report's code) changes."""
        h = hashlib.sha256()
        try:
            cursor = self.conn.execute(
                "SELECT episode_key, model, case_id, seed, metrics, case_meta, trajectory, invalid "
                "FROM episodes ORDER BY episode_key"
            )
            for row in cursor:
                for value in row:
                    h.update(str(value).encode() + b"\0")
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot read the episodes: {exc}") from None
        return h.hexdigest()

    def trajectories(self) -> dict[str, Trajectory]:
        return {row[0]: self.trajectory(row[0], row[6]) for row in self.iter_rows()}

    def close(self) -> None:
        self.conn.close()
        self._release()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _take_lock(run_dir: Path) -> Any:
    """An exclusive lock on ``run_dir`` for this process (released when the store closes)."""
    import fcntl

    handle = (run_dir / ".lock").open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise StoreError(
            f"{run_dir} is in use by another empa bench process; wait for it to finish "
            "(or use another --out directory)"
        ) from None
    return handle


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
