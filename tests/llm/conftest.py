"""Fixtures for the LLM backend tests: a scripted OpenAI-compatible server on localhost, a case,
and views for each role."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest  # noqa: E402

from empa_env.cases.schema import Case  # noqa: E402
from empa_env.cases.suites import load_suite  # noqa: E402
from empa_env.roles.views import (  # noqa: E402
    ActorGuidance,
    ActorPersona,
    ActorView,
    DirectorView,
    JudgeProfile,
    JudgeView,
    Message,
)
from empa_env.testing.scripted_server import ScriptedLLMServer  # noqa: E402

MODEL = "openai/scripted"


@pytest.fixture(scope="session")
def _server():
    server = ScriptedLLMServer(hang_seconds=20.0, slow_seconds=0.3).start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _no_fatal_failure_of_another_test():
    """A refused key or unknown model is remembered per process (no client asks again); the
    session's one server makes every test's model and endpoint the same."""
    from empa_env.llm.client import clear_fatal_failures

    clear_fatal_failures()
    yield
    clear_fatal_failures()


@pytest.fixture
def server(_server: ScriptedLLMServer) -> ScriptedLLMServer:
    """The session's scripted server with an empty log, no faults and no latency."""
    _server.reset_log()
    _server.latency = 0.0
    yield _server
    _server.reset_log()
    _server.latency = 0.0


@pytest.fixture
def opts(server: ScriptedLLMServer) -> dict:
    """Client options for fast tests: short timeout, quick backoff."""
    return {
        "api_base": server.api_base,
        "timeout": 2.0,
        "max_retries": 2,
        "backoff_base": 0.01,
        "backoff_cap": 0.05,
    }


@pytest.fixture(scope="session")
def case() -> Case:
    return load_suite("empa30-v1").case("empa30-029")


HISTORY = (
    Message("user", "Found out I didn't get head chef from a schedule taped to the fridge."),
    Message("assistant", "That sounds like a gut punch. Fifteen years and a note on the fridge?"),
    Message("user", "Yeah. Whatever. It's just a job."),
)


@pytest.fixture
def judge_view(case: Case) -> JudgeView:
    return JudgeView(
        JudgeProfile.from_case(case),
        HISTORY,
        "It sounds like it hurts more than you let on. So you trained him yourself?",
        2,
    )


@pytest.fixture
def actor_view(case: Case) -> ActorView:
    return ActorView(ActorPersona.from_case(case), HISTORY[:2], ActorGuidance(), 1, 7)


def director_view(case: Case, **changes) -> DirectorView:
    base = {
        "case": case,
        "history": HISTORY,
        "turn": 1,
        "p0": tuple(float(x) for x in case.p0),
        "position": tuple(float(x) for x in case.p0),
        "last_increment": (0.0, 1.0, 0.0),
        "epm": {"turn": 1, "distance": 30.0, "E_total": 0.5, "last_delta_E": 0.5},
        "released_stages": (),
        "revealed_memories": (),
        "can_end": False,
    }
    base.update(changes)
    return DirectorView(**base)
