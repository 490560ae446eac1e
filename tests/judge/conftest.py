"""Shared fixtures of the judge tests: the semantic judge's tiers (the encoders load once per
session) and the judge under attack (the default offline Judger)."""

from __future__ import annotations

import pytest

from empa_env.backends import judgers
from empa_env.roles.base import Judger


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


def make_judge() -> Judger:
    """The judge every RL user optimises by default: ``judger="offline"``."""
    return judgers.create("offline")


@pytest.fixture(scope="session")
def judge_under_test() -> Judger:
    return make_judge()
