"""Shared fixtures for the semantic judge tests (the encoders load once per session)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def static_judger():
    from empa_env.offline.semantic.judger import SemanticJudger

    return SemanticJudger(tier="static")


@pytest.fixture(scope="session")
def minilm_judger():
    from empa_env.offline.semantic.judger import SemanticJudger

    return SemanticJudger(tier="minilm")


@pytest.fixture(params=["static", "minilm"], scope="session")
def judger(request, static_judger, minilm_judger):
    return static_judger if request.param == "static" else minilm_judger
