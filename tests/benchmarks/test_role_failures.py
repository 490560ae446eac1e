"""A dead LLM Director or Actor makes no result, as a dead judge does: its failures are counted per
episode, the episodes are invalid above the threshold (kept, shown, never ranked), every summary
says so and the command exits non-zero."""

from __future__ import annotations

import json
import os
import sqlite3

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest  # noqa: E402

from empa_env.cli import main  # noqa: E402
from empa_env.testing.scripted_server import ScriptedLLMServer  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with ScriptedLLMServer() as srv:
        yield srv


def _bench(server, out, role: str, *extra: str) -> int:
    return main(
        [
            "bench", "--quiet", "--no-preflight", "--limit", "2", "--max-turns", "12",
            "--policy", "scripted:advice_giver", "--out", str(out),
            f"--{role}", "llm:openai/scripted", "--api-base", server.api_base,
            "--llm-option", "max_retries=0", "--llm-option", "timeout=5",
            "--llm-option", "max_repairs=0", *extra,
        ]
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(
    ("role", "fault", "what"),
    [("director", "malformed", "Director decisions"), ("actor", "refusal", "Actor messages")],
)
def test_a_dead_llm_role_invalidates_its_episodes(tmp_path, capsys, server, role, fault, what):
    server.reset_log()
    server.inject(fault, times=10_000, role=role)  # every call of the role fails
    out = tmp_path / "run"
    code = _bench(server, out, role)
    printed = capsys.readouterr().out
    assert code == 1  # finished, but nothing rankable: not a clean result
    rows = sqlite3.connect(out / "results.sqlite").execute("SELECT invalid FROM episodes")
    reasons = [r[0] for r in rows]
    assert len(reasons) == 2 and all(what in r and "failed" in r for r in reasons), reasons
    # the leaderboard, results.json and the report say so
    assert (
        "role failures" in printed
        and f"{'director' if role == 'director' else 'actor'} "
        in (printed.split("role failures", 1)[1])
    )
    document = json.loads((out / "results.json").read_text())
    (model,) = document["models"]
    assert model["rank"] is None and model["invalid_episodes"] == 2
    share = model["role_failures"][role]
    assert share["calls"] > 0 and share["failed"] == share["calls"] and share["share"] == 1.0
    assert model["role_failures"]["judge"]["failed"] == 0
    episode = document["episodes"][0]
    assert episode[f"{role}_failures"] == episode[f"{role}_calls"] > 0
    assert what in episode["invalid"]


@pytest.mark.slow
def test_a_role_that_fails_now_and_then_is_counted_not_invalidating(tmp_path, capsys, server):
    server.reset_log()
    server.inject("malformed", times=1, role="director")  # one decision fails (no re-asks)
    out = tmp_path / "run"
    assert _bench(server, out, "director", "--limit", "1") == 0
    document = json.loads((out / "results.json").read_text())
    (model,) = document["models"]
    assert model["rank"] == 1 and model["invalid_episodes"] == 0
    assert model["role_failures"]["director"]["failed"] == 1
    assert "role failures" in capsys.readouterr().out


def test_role_failure_shares_and_the_threshold():
    from benchmarks.runner import invalid_reason

    assert invalid_reason({"director_calls": 10, "director_failures": 3}, 0.2, 0.2)
    assert not invalid_reason({"director_calls": 10, "director_failures": 2}, 0.2, 0.2)
    assert invalid_reason({"actor_calls": 4, "actor_failures": 2}, 0.2, 0.4)
    assert not invalid_reason({"actor_calls": 4, "actor_failures": 2}, 0.2, 0.5)
    with pytest.raises(SystemExit):
        main(["bench", "--max-role-failure-share", "x"])
