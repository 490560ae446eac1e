"""The benchmark runner and its store: resume after a real kill, refusal of mixed configurations,
exports, and policy specs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from baselines.policies import PolicySpecError, load_policy
from benchmarks.export import export_jsonl, export_parquet
from benchmarks.runner import BenchConfig, run_benchmark
from benchmarks.store import ConfigMismatchError, RunStore
from empa_env.config import EnvConfig
from epm.episode import evaluate
from epm.trajectory import Trajectory

SLOW_POLICY = textwrap.dedent(
    """
    import time

    def reply(messages):
        time.sleep(0.03)
        return "It sounds like a lot. What part of it weighs on you most?"
    """
)


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


#: The killed run: the first ten suite cases at the shortest episodes the official preset allows
#: (2 policies x 10 cases = 20 episodes), enough to be killed after 5 and resumed for the rest.
KILLED_CASES = 10


def _bench_cmd(run_dir: Path, policy_file: Path) -> list[str]:
    return [
        sys.executable, "-m", "empa_env.cli", "bench", "--out", str(run_dir), "--quiet",
        "--no-report", "--concurrency", "2", "--policy", f"slow=python:{policy_file}:reply",
        "--policy", "scripted:lecturer", "--limit", str(KILLED_CASES), "--max-turns", "12",
    ]  # fmt: skip


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_loses_and_duplicates_nothing(tmp_path):
    """A real SIGKILL of a real `empa bench` process after at least 5 committed episodes, then
    the same command: the store is intact, the 5+ episodes are kept byte for byte, and every one
    of the 20 episodes (2 policies x 10 cases) is there exactly once."""
    policy_file = tmp_path / "slow_policy.py"
    policy_file.write_text(SLOW_POLICY)
    run_dir = tmp_path / "run"
    db = run_dir / "results.sqlite"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    proc = subprocess.Popen(_bench_cmd(run_dir, policy_file), env=env, cwd=tmp_path)
    deadline = time.time() + 120
    while _count(db) < 5 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed; slow the policy down"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _count(db)
    assert 5 <= before < 2 * KILLED_CASES
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        kept = dict(conn.execute("SELECT episode_key, trajectory FROM episodes").fetchall())

    done = subprocess.run(
        _bench_cmd(run_dir, policy_file), env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert f"{before} already in" in done.stdout
    with sqlite3.connect(db) as conn:
        rows = dict(conn.execute("SELECT episode_key, trajectory FROM episodes").fetchall())
        n = conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
    assert n == len(rows) == 2 * KILLED_CASES  # 2 policies x 10 cases x 1 seed, each once
    assert all(rows[k] == v for k, v in kept.items()), "finished episodes must not be redone"


def test_changed_configuration_is_refused(tmp_path):
    """Five cases are enough: only max_turns differs between the two configurations."""
    config = BenchConfig(EnvConfig(max_turns=14), limit=5)
    asyncio.run(run_benchmark(config, ["scripted:lecturer"], tmp_path, progress=False))
    with pytest.raises(ConfigMismatchError, match="max_turns"):
        asyncio.run(
            run_benchmark(
                BenchConfig(EnvConfig(max_turns=20), limit=5),
                ["scripted:lecturer"],
                tmp_path,
                progress=False,
            )
        )
    # a different policy under a name already used is refused too
    with pytest.raises(ConfigMismatchError, match="already used"):
        asyncio.run(run_benchmark(config, ["lecturer=scripted:empty"], tmp_path, progress=False))
    # adding a new policy to the same configuration extends the run
    summary = asyncio.run(run_benchmark(config, ["scripted:empty"], tmp_path, progress=False))
    assert summary.finished == 5 and RunStore(tmp_path).count() == 10


def test_store_rows_match_epm_and_exports(tmp_path):
    """2 policies x 5 cases x 2 seeds (20 episodes, the default roles and preset): every stored
    row is epm.evaluate of its stored trajectory, and both exports hold every episode and turn."""
    asyncio.run(
        run_benchmark(
            BenchConfig(seeds=2, limit=5),
            ["scripted:attuned", "scripted:parrot"],
            tmp_path,
            progress=False,
        )
    )
    store = RunStore(tmp_path)
    frame = store.episodes_frame()
    assert len(frame) == 20 and frame["episode_key"].is_unique
    trajectories = store.trajectories()
    for row in frame.sample(10, random_state=0).itertuples():
        recomputed = evaluate(trajectories[row.episode_key])
        assert recomputed["EPM_Index"] == pytest.approx(row.EPM_Index)
        assert recomputed["outcome"] == row.outcome
    jsonl = export_jsonl(store, tmp_path / "episodes.jsonl")
    lines = jsonl.read_text().splitlines()
    assert len(lines) == 20
    first = json.loads(lines[0])
    assert Trajectory.from_dict(first["trajectory"]).num_turns == first["epm"]["turns"]
    episodes_path, turns_path = export_parquet(store, tmp_path)
    assert len(pd.read_parquet(episodes_path)) == 20
    turns = pd.read_parquet(turns_path)
    # one row per turn played; an episode the policy or the user left before the preset's
    # minimum is scored over the minimum (its unplayed turns count as zero moves, epm's
    # scored_turns), so its "turns" may exceed the turns it played
    played = sum(trajectories[k].num_turns for k in frame["episode_key"])
    assert len(turns) == played and (frame["turns"] >= [
        trajectories[k].num_turns for k in frame["episode_key"]]).all()  # fmt: skip
    assert {"C_Prog", "A_Neg", "delta_E", "evidence", "reply"} <= set(turns.columns)


def test_policy_specs(tmp_path):
    assert load_policy("scripted:attuned").name == "attuned"
    assert load_policy("mine=scripted:attuned").name == "mine"
    f = tmp_path / "p.py"
    f.write_text("async def answer(messages):\n    return 'ok: ' + messages[-1]['content']\n")
    policy = load_policy(f"python:{f}:answer")
    assert policy.reply([{"role": "user", "content": "hi"}]) == "ok: hi"
    assert asyncio.run(policy.areply([{"role": "user", "content": "yo"}])) == "ok: yo"
    assert load_policy("python:empa_env.testing.policies:attuned").name == "attuned"
    for bad in ("scripted:nope", "python:nofile.py:f", "python:os:nope", "magic:thing"):
        with pytest.raises(PolicySpecError):
            load_policy(bad)


def test_a_failing_policy_is_recorded_not_stored(tmp_path):
    f = tmp_path / "bad.py"
    f.write_text("def reply(messages):\n    raise RuntimeError('model down')\n")
    summary = asyncio.run(
        run_benchmark(
            BenchConfig(EnvConfig(max_turns=12), max_identical_failures=0),
            [f"bad=python:{f}:reply"],
            tmp_path,
            progress=False,
        )
    )
    store = RunStore(tmp_path)
    assert summary.failed == 30 and store.count() == 0
    assert len(store.errors()) == 30 and "model down" in store.errors()[0]["error"]


def test_nee_panel_adds_nee_and_fcs_through_a_real_server(tmp_path):
    """Five cases, each rated by a panel of two judges on a real (scripted) HTTP server."""
    from empa_env.testing.scripted_server import ScriptedLLMServer

    server = ScriptedLLMServer().start()
    try:
        config = BenchConfig(
            EnvConfig(
                max_turns=12,
                llm_options={
                    "api_base": server.api_base,
                    "api_key": "x",
                    "timeout": 10,
                    "max_retries": 1,
                },
            ),
            nee_judges=["openai/scripted-a", "openai/scripted-b"],
            limit=5,
        )
        asyncio.run(run_benchmark(config, ["scripted:attuned"], tmp_path, progress=False))
    finally:
        server.stop()
    store = RunStore(tmp_path)
    frame = store.episodes_frame()
    assert len(frame) == 5 and frame["NEE"].notna().all()
    assert ((frame["NEE"] >= 0) & (frame["NEE"] <= 100)).all()
    assert frame["FCS"].to_numpy() == pytest.approx(0.6 * frame["EPM_Index"] + 0.4 * frame["NEE"])
    assert "api_key" not in store.run_info()["config"]
    traj = next(iter(store.trajectories().values()))
    assert len(traj.meta["nee"]["judges"]) == 2
