"""Whole episodes with every role an LLM, against the scripted server: clean episodes, fault
injection through an episode (recover or fail exactly as specified, nothing lost), and reruns
served entirely from the cache."""

from __future__ import annotations

import asyncio

import gymnasium as gym

import empa_env  # noqa: F401  (registers the environments)
from empa_env.llm import UsageLedger
from empa_env.llm.roles import failure_kind
from empa_env.testing.scripted_server import fault_marker

from .conftest import MODEL

SPEC = f"llm:{MODEL}"
REPLIES = (
    "That sounds painful. So you trained him yourself?",
    "You kept showing up anyway. What if this is really about being seen?",
    "It makes sense you're angry. You did the work for fifteen years.",
)


def _make(opts, ledger, **kwargs):
    options = {**opts, "ledger": ledger, **kwargs.pop("llm_options", {})}
    max_turns = kwargs.get("max_turns", 45)
    kwargs.setdefault("epm_overrides", {"min_turns": min(12, max_turns)})
    return gym.make(
        "EMPA-Bench-v14",
        actor=SPEC,
        director=SPEC,
        judger=SPEC,
        llm_options=options,
        disable_env_checker=True,
        **kwargs,
    ).unwrapped


def _play(env, replies, case="empa30-029", seed=4):
    env.reset(seed=seed, options={"case": case})
    infos = []
    for turn in range(1, 100):
        *_, term, trunc, info = env.step(replies(turn))
        infos.append(info)
        if term or trunc:
            return infos
    raise AssertionError("the episode did not end")


def _expected_requests(trajectory) -> dict[str, int]:
    """One request per role call the episode made (no faults, no repairs)."""
    turns = trajectory.turns
    return {
        "judger": len(turns),
        "director": sum(1 for t in turns if t.director is not None),
        "actor": 1 + sum(1 for t in turns if t.user_message),
    }


def test_an_episode_with_every_role_an_llm(server, opts):
    ledger = UsageLedger()
    env = _make(opts, ledger, max_turns=14)
    infos = _play(env, lambda t: REPLIES[t % 3])
    traj = env.trajectory
    assert traj.outcome in ("success", "failure", "director_end", "truncated")
    assert not any(i["judge_failed"] for i in infos) and traj.judge_failures == 0
    assert any(t.director["tool"] == "select_and_reveal_fragment" for t in traj.turns if t.director)
    assert dict(server.counts()) == _expected_requests(traj)
    snap = ledger.snapshot()
    assert snap["total"]["requests"] == len(server.requests) == snap["total"]["responses"]
    assert snap["total"]["failures"] == {}
    roles = env.describe()["roles"]
    assert roles["judger"]["name"] == SPEC and roles["judger"]["prompt"].startswith("judger@")


def test_fault_injection_through_an_episode(server, opts):
    """Each turn's reply carries a fault for one role; the client recovers or the failure is
    recorded exactly where it happened."""
    faults = {
        2: fault_marker("http_500", "judger", times=2, tag="t2"),  # retried, recovered
        3: fault_marker("malformed", "judger", times=3, tag="t3"),  # 1 + 2 re-asks: judge failure
        4: fault_marker("refusal", "judger", times=1, tag="t4"),  # re-asked, recovered
        5: fault_marker("timeout", "director", tag="t5"),  # retried after the timeout
        6: fault_marker("malformed", "actor", times=3, tag="t6"),  # actor falls back to its voice
        7: fault_marker("http_400", "judger", tag="t7"),  # fatal: judge failure, no retry
        8: fault_marker("slow", "judger", tag="t8"),  # late but in time
    }
    ledger = UsageLedger()
    env = _make(opts, ledger, max_turns=9, llm_options={"timeout": 1.0, "max_repairs": 2})
    infos = _play(env, lambda t: f"{REPLIES[t % 3]} {faults.get(t, '')}".strip())
    traj = env.trajectory

    failed = {i["turn"]: failure_kind(i["judge_error"]) for i in infos if i["judge_failed"]}
    assert failed == {3: "malformed_json", 7: "provider_bad_request"}
    assert [t.turn for t in traj.turns if t.judgement.failed] == [3, 7]
    assert traj.meta["judge_failures"] == 2 and infos[-1]["epm"]["judge_failures"] == 2
    assert traj.turns[2].v == [0.0, 0.0, 0.0] and traj.turns[2].judgement.error

    snap = ledger.snapshot()
    assert snap["judger"]["failures"] == {"malformed_json": 1, "provider_bad_request": 1}
    assert snap["judger"]["repairs"] == 2 + 1  # turn 3 twice, turn 4 once
    assert snap["judger"]["errors"] == {"server_error": 2, "bad_request": 1}
    assert snap["director"]["errors"] == {"timeout": 1} and snap["director"]["failures"] == {}
    assert snap["actor"]["failures"] == {"empty": 1}
    assert traj.turns[5].user_message in env.case.voice.reactions.neutral
    # the fallback is visible where it happened: in that turn's info and record, and counted
    assert infos[5]["actor_fallback"].startswith("empty") and traj.turns[5].actor_fallback
    assert [i["turn"] for i in infos if i["actor_fallback"]] == [6]
    assert traj.meta["actor_fallbacks"] == 1
    # Nothing lost, nothing extra: every request the server saw is accounted for.
    assert snap["total"]["requests"] == len(server.requests)
    applied = [r.fault for r in server.requests if r.fault]
    assert sorted(applied) == sorted(
        ["http_500"] * 2 + ["malformed"] * 3 + ["refusal", "timeout"] + ["malformed"] * 3
        + ["http_400", "slow"]
    )  # fmt: skip
    assert traj.num_turns == 9 and traj.outcome in ("truncated", "success", "failure")


def test_a_rerun_is_served_from_the_cache(server, opts, tmp_path):
    options = {"cache_path": str(tmp_path / "llm.sqlite")}
    first = _make(opts, UsageLedger(), max_turns=6, llm_options=options)
    _play(first, lambda t: REPLIES[t % 3])
    made = len(server.requests)
    assert made > 0
    ledger = UsageLedger()
    again = _make(opts, ledger, max_turns=6, llm_options=options)
    _play(again, lambda t: REPLIES[t % 3])
    assert len(server.requests) == made  # zero new calls
    assert again.trajectory.to_dict() == first.trajectory.to_dict()
    snap = ledger.snapshot()["total"]
    assert snap["requests"] == 0 and snap["cache_hits"] == made


def test_concurrent_async_episodes(server, opts):
    server.latency = 0.02
    ledger = UsageLedger()

    async def episode(case_id: str) -> str:
        env = _make(opts, ledger, max_turns=5)
        await env.areset(seed=1, options={"case": case_id})
        for turn in range(1, 10):
            *_, term, trunc, _ = await env.astep(REPLIES[turn % 3])
            if term or trunc:
                return env.trajectory.outcome
        raise AssertionError("did not end")

    async def main():
        return await asyncio.gather(*(episode(f"empa30-00{i}") for i in range(1, 5)))

    outcomes = asyncio.run(main())
    assert len(outcomes) == 4 and set(outcomes) <= {"truncated", "success", "failure"}
    assert ledger.snapshot()["total"]["responses"] == len(server.requests)
