"""``empa bench --executor ray``: episodes as Ray tasks on a real local cluster of several
processes (a head node and two worker nodes, each a raylet with its own workers).

What must hold: the store ends with the same rows as the local executor's, each episode once;
a worker node killed mid-run loses nothing and duplicates nothing (Ray retries its tasks
elsewhere); a killed driver resumes; failures are grouped as locally; a missing ``ray`` is a
one-line ``error:``. The cluster is started once per session (about 15 s on a busy 2-core
machine); the tests that use it take about 50 s together and are marked slow.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from benchmarks.executors import make_executor
from benchmarks.executors.ray_executor import RayExecutor, portable_spec, subtract_usage
from benchmarks.runner import BenchConfig, run_benchmark
from benchmarks.store import RunStore, episode_key
from empa_env.config import EnvConfig
from empa_env.errors import UserError

pytest.importorskip("ray")
#: In parallel runs (pytest -n) this file and tests/baselines/test_ray_rollouts.py share one
#: worker process, and so one local Ray cluster (tests/conftest.py reads the group).
pytestmark = pytest.mark.xdist_group("ray_cluster")

#: A policy that takes its time (so a node can be killed mid-episode) and notes, for each turn,
#: on which node it ran and which episode (the hash of the opening message) it was playing.
NOTING_POLICY = textwrap.dedent(
    """
    import hashlib, time

    import ray

    NOTES = {notes!r}

    def reply(messages):
        node = ray.get_runtime_context().get_node_id()
        opening = hashlib.sha256(messages[0]["content"].encode()).hexdigest()[:12]
        with open(NOTES, "a") as notes:
            notes.write(f"{{node}} {{opening}}\\n")
        time.sleep(0.03)
        return "That sounds like a lot to carry. What part of it weighs on you most?"
    """
)
FAILING_POLICY = "def reply(messages):\n    raise ValueError('no reply today')\n"


def _rows(run_dir: Path) -> dict[str, tuple]:
    """Every stored episode by key, all columns but the commit time."""
    with sqlite3.connect(run_dir / "results.sqlite") as conn:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(episodes)")]
        keep = [c for c in cols if c != "finished_at"]
        rows = conn.execute(f"SELECT {', '.join(keep)} FROM episodes").fetchall()
    return {row[0]: row for row in rows}


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


# --- no cluster needed ---------------------------------------------------------------------------
def test_missing_ray_is_a_one_line_error_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(UserError, match=r"pip install 'empa-gym\[ray\]'") as caught:
        make_executor("ray")
    assert "\n" not in str(caught.value)


def test_ray_address_without_the_ray_executor_is_refused(tmp_path, capsys):
    from empa_env.cli import main

    code = main(
        ["bench", "--policy", "scripted:empty", "--limit", "1", "--out", str(tmp_path / "r"),
         "--ray-address", "127.0.0.1:6379"]
    )  # fmt: skip
    assert code == 2
    assert "error: --ray-address needs --executor ray" in capsys.readouterr().err
    assert not (tmp_path / "r" / "results.sqlite").exists()


def test_an_address_where_no_cluster_answers_fails_at_once_before_the_run_exists(tmp_path, capsys):
    import socket

    from empa_env.cli import main

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = main(
        ["bench", "--executor", "ray", "--ray-address", f"127.0.0.1:{port}", "--policy",
         "scripted:empty", "--limit", "1", "--out", str(tmp_path / "r")]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and f"error: --ray-address 127.0.0.1:{port}: no Ray cluster answers" in err
    assert not (tmp_path / "r").exists()


def test_policy_files_travel_as_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert portable_spec("python:mine.py:reply") == f"python:{tmp_path / 'mine.py'}:reply"
    assert portable_spec("me=python:mine.py:reply") == f"me=python:{tmp_path / 'mine.py'}:reply"
    assert portable_spec("python:pkg.module:reply") == "python:pkg.module:reply"
    assert portable_spec("scripted:attuned") == "scripted:attuned"


def test_usage_deltas_subtract_numbers_key_by_key():
    before = {"judger": {"calls": 3, "cost": 0.5, "model": "m"}}
    after = {"judger": {"calls": 5, "cost": 0.75, "model": "m"}, "actor": {"calls": 1}}
    assert subtract_usage(after, before) == {
        "judger": {"calls": 2, "cost": 0.25, "model": "m"},
        "actor": {"calls": 1},
    }


# --- on a local cluster ---------------------------------------------------------------------------
@pytest.fixture(scope="session")
def cluster():
    from benchmarks.executors.local_cluster import shared_cluster

    return shared_cluster(workers=2)


@pytest.mark.slow
def test_ray_executor_stores_exactly_what_the_local_executor_stores(tmp_path, cluster):
    config = BenchConfig(
        EnvConfig(max_turns=20), case_ids=["empa30-003", "empa30-011", "empa30-027"]
    )
    specs = ["scripted:attuned", "scripted:random_mixer"]
    local = asyncio.run(run_benchmark(config, specs, tmp_path / "local", progress=False))
    seen = []
    remote = asyncio.run(
        run_benchmark(
            config,
            specs,
            tmp_path / "ray",
            progress=False,
            executor=RayExecutor(max_in_flight=4, on_outcome=seen.append),
        )
    )
    assert local.finished == remote.finished == 6 and remote.failed == 0
    assert _rows(tmp_path / "ray") == _rows(tmp_path / "local")
    with RunStore(tmp_path / "local") as a, RunStore(tmp_path / "ray") as b:
        assert a.run_info()["fingerprint"] == b.run_info()["fingerprint"]
    assert {o.worker.split("/")[0] for o in seen} <= {n.node_id[:8] for n in cluster.nodes}


@pytest.mark.slow
def test_episode_errors_are_grouped_as_locally_and_ray_does_not_retry_them(tmp_path, cluster):
    policy = tmp_path / "failing.py"
    policy.write_text(FAILING_POLICY)
    config = BenchConfig(EnvConfig(max_turns=14), limit=3, max_identical_failures=0)
    summary = asyncio.run(
        run_benchmark(
            config,
            [f"broken=python:{policy}:reply", "scripted:empty"],
            tmp_path / "run",
            progress=False,
            executor="ray",
        )
    )
    assert (summary.finished, summary.failed) == (3, 3)
    ((message, keys),) = summary.failures.items()
    assert message == "ValueError: no reply today" and len(keys) == 3
    assert "3 x ValueError: no reply today" in str(summary)
    with RunStore(tmp_path / "run") as store:
        assert sorted(e["episode_key"] for e in store.errors()) == sorted(keys)  # once each


@pytest.mark.slow
def test_killing_a_worker_node_mid_run_loses_nothing_and_duplicates_nothing(tmp_path, cluster):
    notes = tmp_path / "notes.txt"
    notes.touch()
    policy = tmp_path / "noting.py"
    policy.write_text(NOTING_POLICY.format(notes=str(notes)))
    victim, survivor = cluster.nodes
    finished_on: dict[str, int] = {}
    killed = threading.Event()

    def on_outcome(outcome):
        node = outcome.worker.split("/")[0]
        finished_on[node] = finished_on.get(node, 0) + 1

    def started_on(node_id: str) -> set[str]:
        lines = [ln.split() for ln in notes.read_text().splitlines() if ln.strip()]
        return {opening for node, opening in lines if node == node_id}

    def in_the_middle(node_id: str) -> bool:
        """The node's latest episode has played 2 to 8 turns: running, far from its end (an
        episode lasts at least the preset's 12 turns), so no result of it is on the way."""
        lines = [ln.split() for ln in notes.read_text().splitlines() if ln.strip()]
        mine = [opening for node, opening in lines if node == node_id]
        return bool(mine) and 2 <= mine.count(mine[-1]) <= 8

    def killer():
        """Kill the victim in the middle of an episode."""
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if in_the_middle(victim.node_id):
                cluster.kill_worker(victim)
                killed.set()
                return
            time.sleep(0.01)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    config = BenchConfig(EnvConfig(max_turns=14), limit=10)  # one seed: an opening is an episode
    summary = asyncio.run(
        run_benchmark(
            config,
            [f"noting=python:{policy}:reply"],
            tmp_path / "run",
            progress=False,
            executor=RayExecutor(max_in_flight=4, on_outcome=on_outcome),
        )
    )
    thread.join(timeout=5)
    assert killed.is_set(), (
        f"the run ended before the worker node could be killed: finished {finished_on}, "
        f"victim {victim.node_id[:8]} started {len(started_on(victim.node_id))}"
    )
    assert (summary.finished, summary.failed) == (10, 0)
    rows = _rows(tmp_path / "run")
    expected = {episode_key("noting", f"empa30-{c:03d}", 0) for c in range(1, 11)}
    assert set(rows) == expected  # all there, each once (the key is the primary key)
    assert _count(tmp_path / "run" / "results.sqlite") == 10
    # Episodes the dead node had started were played again on the surviving node.
    interrupted = len(started_on(victim.node_id)) - finished_on.get(victim.node_id[:8], 0)
    assert interrupted >= 1
    assert finished_on.get(survivor.node_id[:8], 0) == 10 - finished_on.get(victim.node_id[:8], 0)
    cluster.add_worker()  # the next test gets two worker nodes again


@pytest.mark.slow
def test_a_killed_ray_driver_resumes_where_it_stopped(tmp_path, cluster):
    policy = tmp_path / "noting.py"
    policy.write_text(NOTING_POLICY.format(notes=str(tmp_path / "notes.txt")))
    run_dir = tmp_path / "run"
    db = run_dir / "results.sqlite"
    cmd = [
        sys.executable, "-m", "empa_env.cli", "bench", "--executor", "ray",
        "--ray-address", cluster.address, "--out", str(run_dir), "--no-report", "--quiet",
        "--max-turns", "12", "--limit", "6", "--concurrency", "2",
        "--policy", f"noting=python:{policy}:reply",
    ]  # fmt: skip
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    proc = subprocess.Popen(cmd, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 120
    while _count(db) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before the driver could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _rows(run_dir)
    assert 2 <= len(before) < 6

    done = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{len(before)} already in" in done.stdout
    after = _rows(run_dir)
    assert set(after) == {episode_key("noting", f"empa30-00{c}", 0) for c in range(1, 7)}
    assert _count(db) == 6
    assert all(after[k] == v for k, v in before.items()), "finished episodes must not be redone"
